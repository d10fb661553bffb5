package crosscheck

import (
	"fmt"
	"math/rand/v2"

	"github.com/dprl-project/dprl/dprl/nn"
	"github.com/dprl-project/dprl/mechanisms"
)

// MLPCase is one run of the MLP workload for ref.py (modes train and bench): a ReLU network of Sizes in
// Dtype ("float64", "float32") trained with learning rate LR on one fixed batch of Batch examples under
// nn.SelectedLoss with nn.Huber{}. Method is "sgd" (plain SGD; PyTorch), "ghost" (DP-SGD, clipped to Clip
// with noise multiplier Noise; Opacus's ghost clipping) or "opacus" (the same with Opacus's per-example
// gradients). W, B, X, Actions and Targets carry dprl's initialisation and batch to the Python side (ref.py
// draws its own when they are empty: timing only).
type MLPCase struct {
	Workload string      `json:"workload,omitempty"`
	Sizes    []int       `json:"sizes"`
	Dtype    string      `json:"dtype"`
	Batch    int         `json:"batch"`
	LR       float64     `json:"lr"`
	Method   string      `json:"method"`
	Clip     float64     `json:"clip,omitempty"`
	Noise    float64     `json:"noise"`
	Steps    int         `json:"steps,omitempty"`
	Threads  int         `json:"threads,omitempty"`
	MinTime  float64     `json:"min_time,omitempty"`
	W        [][]float64 `json:"W,omitempty"`
	B        [][]float64 `json:"B,omitempty"`
	X        []float64   `json:"x,omitempty"`
	Actions  []int       `json:"actions,omitempty"`
	Targets  []float64   `json:"targets,omitempty"`
}

// MLPRun is a network and a fixed batch in precision F, with a step function for an MLPCase's method.
type MLPRun[F nn.Float] struct {
	Net     *nn.Network[F]
	X       []F
	Actions []int
	Targets []F
	ws      *nn.WorkspaceOf[F]
	g       *nn.GradsOf[F]
	dOut    []F
	norms   []float64
	lr      float64
	step    func() float64
}

// NewMLPRun initialises c's network (nn.NewNetwork with a source seeded by seed) and draws its batch
// (standard normal inputs and targets, uniform actions) from the same seed; it fills c.W, c.B, c.X,
// c.Actions and c.Targets (as float64, exact for either precision) so that ref.py starts from the same
// point. The "ghost" and "opacus" methods are nn's PrivateGradient with a mechanisms.DPSGD of c.Clip and
// c.Noise drawing from a source seeded by seed, or its noiseless ClippedGradient when c.Noise is 0.
func NewMLPRun[F nn.Float](c *MLPCase, seed uint64) (*MLPRun[F], error) {
	m, err := nn.NewNetwork[F](c.Sizes, nn.ReLU, rand.NewPCG(seed, 1))
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(seed, 2))
	n, in, k := c.Batch, c.Sizes[0], c.Sizes[len(c.Sizes)-1]
	r := &MLPRun[F]{Net: m, X: make([]F, n*in), Actions: make([]int, n), Targets: make([]F, n),
		ws: nn.NewWorkspace(m, n), g: nn.NewGrads(m), dOut: make([]F, n*k), norms: make([]float64, n), lr: c.LR}
	for i := range r.X {
		r.X[i] = F(rng.NormFloat64())
	}
	for i := range n {
		r.Actions[i], r.Targets[i] = rng.IntN(k), F(rng.NormFloat64())
	}
	c.W, c.B = nil, nil
	for l := range m.W {
		c.W, c.B = append(c.W, toF64(m.W[l])), append(c.B, toF64(m.B[l]))
	}
	c.X, c.Actions, c.Targets = toF64(r.X), r.Actions, toF64(r.Targets)
	switch {
	case c.Method == "sgd":
		r.step = func() float64 { return r.sgd() }
	case (c.Method == "ghost" || c.Method == "opacus") && c.Noise == 0:
		r.step = func() float64 { return r.clipped(c.Clip) }
	case c.Method == "ghost" || c.Method == "opacus":
		dp, err := mechanisms.NewDPSGD(mechanisms.DPSGDParams{Clip: c.Clip, NoiseMultiplier: c.Noise, Src: rand.NewPCG(seed, 3)})
		if err != nil {
			return nil, err
		}
		r.step = func() float64 { return r.private(dp) }
	default:
		return nil, fmt.Errorf("crosscheck: unknown method %q", c.Method)
	}
	return r, nil
}

func toF64[F nn.Float](x []F) []float64 {
	y := make([]float64, len(x))
	for i, v := range x {
		y[i] = float64(v)
	}
	return y
}

// Step runs one training step (forward, loss, backward, gradient, SGD update) and returns the loss before
// the update.
func (r *MLPRun[F]) Step() float64 { return r.step() }

func (r *MLPRun[F]) forwardBackward() float64 {
	k := r.Net.Sizes[len(r.Net.Sizes)-1]
	out := r.ws.Forward(r.Net, r.X)
	loss := nn.SelectedLoss(nn.Huber{}, out, k, r.Actions, r.Targets, r.dOut)
	r.ws.Backward(r.Net, r.dOut)
	return loss
}

func (r *MLPRun[F]) sgd() float64 {
	loss := r.forwardBackward()
	r.ws.Gradient(r.Net, nil, r.g)
	r.g.Scale(1 / F(len(r.Actions)))
	nn.SGDStep(r.lr, r.Net, r.g)
	return loss
}

// private is a DP-SGD step: nn's PrivateGradient (per-example clipping by the norm trick, Gaussian noise)
// and the SGD update.
func (r *MLPRun[F]) private(dp *mechanisms.DPSGD) float64 {
	loss := r.forwardBackward()
	if _, _, err := r.ws.PrivateGradient(r.Net, dp, r.g, r.norms); err != nil {
		panic(err)
	}
	nn.SGDStep(r.lr, r.Net, r.g)
	return loss
}

// clipped is private without noise: the mean of the clipped per-example gradients (not private).
func (r *MLPRun[F]) clipped(clip float64) float64 {
	loss := r.forwardBackward()
	if _, _, err := r.ws.ClippedGradient(r.Net, clip, r.g, r.norms); err != nil {
		panic(err)
	}
	nn.SGDStep(r.lr, r.Net, r.g)
	return loss
}
