package nn

import (
	"math"
	"math/rand/v2"

	"github.com/dprl-project/dprl/dprl/param"
	"github.com/dprl-project/dprl/mechanisms"
)

// check rejects values on behalf of this package.
const check param.Checker = "nn"

// Loss is a per-element regression loss: Value(pred, target) and its derivative in pred.
type Loss interface {
	Value(pred, target float64) float64
	Deriv(pred, target float64) float64
}

// Squared is ½(pred − target)².
type Squared struct{}

func (Squared) Value(p, t float64) float64 { return 0.5 * (p - t) * (p - t) }
func (Squared) Deriv(p, t float64) float64 { return p - t }

// Huber is PyTorch's smooth L1 / Huber loss with threshold Delta (0 means 1): ½x² for |x| ≤ Δ, Δ(|x| − ½Δ)
// beyond.
type Huber struct{ Delta float64 }

func (h Huber) delta() float64 {
	if h.Delta == 0 {
		return 1
	}
	return h.Delta
}

func (h Huber) Value(p, t float64) float64 {
	x, d := math.Abs(p-t), h.delta()
	if x <= d {
		return 0.5 * x * x
	}
	return d * (x - 0.5*d)
}

func (h Huber) Deriv(p, t float64) float64 {
	x, d := p-t, h.delta()
	return math.Max(-d, math.Min(d, x))
}

// Optimizer updates a network from a gradient (already averaged over the batch).
type Optimizer interface {
	Step(m *MLP, g *Grads)
}

// SGD is θ ← θ − LR·g.
type SGD struct{ LR float64 }

func (o *SGD) Step(m *MLP, g *Grads) { SGDStep(o.LR, m, g) }

// SGDStep is θ ← θ − lr·g in any precision (SGD.Step for float64 networks).
func SGDStep[F Float](lr float64, m *Network[F], g *GradsOf[F]) {
	for l := range m.W {
		axpy(F(-lr), g.W[l], m.W[l])
		axpy(F(-lr), g.B[l], m.B[l])
	}
}

func axpy[F Float](a F, x, y []F) {
	for i, v := range x {
		y[i] += a * v
	}
}

// RMSprop is PyTorch's RMSprop without momentum: v ← αv + (1 − α)g², θ ← θ − LR·g/(√v + Eps). Zero fields
// take PyTorch's defaults (LR 0.01, Alpha 0.99, Eps 1e−8).
type RMSprop struct {
	LR, Alpha, Eps float64
	v              *Grads
}

func (o *RMSprop) Step(m *MLP, g *Grads) {
	if o.LR == 0 {
		o.LR = 0.01
	}
	if o.Alpha == 0 {
		o.Alpha = 0.99
	}
	if o.Eps == 0 {
		o.Eps = 1e-8
	}
	if o.v == nil {
		o.v = NewGrads(m)
	}
	upd := func(p, gr, v []float64) {
		for i, x := range gr {
			v[i] = o.Alpha*v[i] + (1-o.Alpha)*x*x
			p[i] -= o.LR * x / (math.Sqrt(v[i]) + o.Eps)
		}
	}
	for l := range m.W {
		upd(m.W[l], g.W[l], o.v.W[l])
		upd(m.B[l], g.B[l], o.v.B[l])
	}
}

// Adam is Kingma & Ba's optimiser with bias correction; zero fields take the defaults LR 1e−3, Beta1 0.9,
// Beta2 0.999, Eps 1e−8.
type Adam struct {
	LR, Beta1, Beta2, Eps float64
	m, v                  *Grads
	t                     int
}

func (o *Adam) Step(net *MLP, g *Grads) {
	if o.LR == 0 {
		o.LR = 1e-3
	}
	if o.Beta1 == 0 {
		o.Beta1 = 0.9
	}
	if o.Beta2 == 0 {
		o.Beta2 = 0.999
	}
	if o.Eps == 0 {
		o.Eps = 1e-8
	}
	if o.m == nil {
		o.m, o.v = NewGrads(net), NewGrads(net)
	}
	o.t++
	c1, c2 := 1-math.Pow(o.Beta1, float64(o.t)), 1-math.Pow(o.Beta2, float64(o.t))
	upd := func(p, gr, m, v []float64) {
		for i, x := range gr {
			m[i] = o.Beta1*m[i] + (1-o.Beta1)*x
			v[i] = o.Beta2*v[i] + (1-o.Beta2)*x*x
			p[i] -= o.LR * (m[i] / c1) / (math.Sqrt(v[i]/c2) + o.Eps)
		}
	}
	for l := range net.W {
		upd(net.W[l], g.W[l], o.m.W[l], o.v.W[l])
		upd(net.B[l], g.B[l], o.m.B[l], o.v.B[l])
	}
}

// ClampElements clamps every gradient entry to [−c, c] (the DQN tutorial's clamp_(−1, 1)).
func (g *GradsOf[F]) ClampElements(c F) {
	g.Each(func(b []F) {
		for i, v := range b {
			b[i] = max(-c, min(c, v))
		}
	})
}

// SelectedLoss fills dOut for a batch whose loss touches one output per example (Q(s, a) against a target):
// dOut[i, actions[i]] = Deriv(pred, targets[i]) (other entries 0), and returns the mean loss. outputs is the
// n × k output of Forward. The loss is evaluated in float64 whatever F.
func SelectedLoss[F Float](loss Loss, outputs []F, k int, actions []int, targets, dOut []F) float64 {
	n := len(actions)
	clear(dOut[:n*k])
	total := 0.0
	for i, a := range actions {
		p, t := float64(outputs[i*k+a]), float64(targets[i])
		total += loss.Value(p, t)
		dOut[i*k+a] = F(loss.Deriv(p, t))
	}
	return total / float64(n)
}

// PrivateGradient sets g to the DP-SGD gradient of the batch of the last Backward, aggregated by dp (the
// module's one DP-SGD, mechanisms.DPSGD): every example's gradient is scaled by dp.ClipFactor of its norm
// from ExampleNormsSq (no per-example gradient is formed), then mechanisms.AddScaledNoise adds N(0, (zC)²)
// to every coordinate of the clipped sum and divides by the batch size, in one pass over g's blocks taken
// as one vector (W then B of each layer, in order: the noise is that of dp.Aggregate on the flattened
// gradients). norms is scratch of at least the batch size (nil: allocated); it returns the unclipped
// per-example norms in it, and how many examples were dropped. Clip and NoiseMultiplier were checked by
// mechanisms.NewDPSGD, whose errors name them; a nil dp is an error, leaving g unchanged. In float32 the
// noisy sum is formed in float64 and rounded once to float32 with the division, and each clip factor is
// rounded toward zero.
//
// An example whose gradient has a NaN or infinite entry, or whose norm exceeds the largest float64, is
// dropped (its clip factor is 0): it contributes zero to the sum (so the sum's sensitivity is still Clip),
// its norm is reported as NaN and it is counted in dropped. Norms of large finite gradients are computed
// without overflow.
func (ws *WorkspaceOf[F]) PrivateGradient(m *Network[F], dp *mechanisms.DPSGD, g *GradsOf[F], norms []float64) (out []float64, dropped int, err error) {
	if dp == nil {
		return norms, 0, check.Missing("dp", "a *mechanisms.DPSGD (mechanisms.NewDPSGD)")
	}
	norms, dropped = ws.clip(m, dp.ClipFactor, g, norms)
	inv := 1 / float64(ws.n)
	ws.blocks = ws.blocks[:0]
	g.Each(func(b []F) { ws.blocks = append(ws.blocks, b) })
	mechanisms.AddScaledNoise(dp, inv, ws.blocks...)
	return norms, dropped, nil
}

// ClippedGradient is PrivateGradient without noise — not private: it sets g to the mean of the per-example
// gradients clipped to norm clip (in (0, ∞]; mechanisms.ClipFactor, dropped examples as in PrivateGradient)
// for audits, tests and non-private baselines.
func (ws *WorkspaceOf[F]) ClippedGradient(m *Network[F], clip float64, g *GradsOf[F], norms []float64) (out []float64, dropped int, err error) {
	if err := check.In("clip", clip, param.Interval{Lo: 0, Hi: math.Inf(1), HiClosed: true}); err != nil {
		return norms, 0, err
	}
	norms, dropped = ws.clip(m, func(norm float64) float64 { return mechanisms.ClipFactor(norm, clip) }, g, norms)
	g.Scale(1 / F(ws.n))
	return norms, dropped, nil
}

// clip sets g to the sum of the per-example gradients scaled by factor(norm) and returns the norms and the
// number dropped: the examples whose norm is NaN or +Inf (factor 0), their norms reported as NaN.
func (ws *WorkspaceOf[F]) clip(m *Network[F], factor func(norm float64) float64, g *GradsOf[F], norms []float64) ([]float64, int) {
	norms = ws.ExampleNormsSq(m, norms)
	scale := ws.scale[:len(norms)]
	dropped := 0
	for i, s := range norms {
		norms[i] = math.Sqrt(s)
		if math.IsInf(s, 1) || math.IsNaN(s) {
			norms[i] = ws.exampleNorm(m, i) // overflowed or non-finite: recompute with scaling
		}
		scale[i] = towardZero[F](factor(norms[i]))
		if math.IsNaN(norms[i]) || math.IsInf(norms[i], 1) {
			// dropped (factor 0): zero its stored data too, since 0·Inf in Gradient would be NaN
			norms[i] = math.NaN()
			ws.dropExample(m, i)
			dropped++
		}
	}
	ws.Gradient(m, scale, g)
	return norms, dropped
}

// exampleNorm is example i's gradient norm √Σ_l ‖δ_l‖²(‖a_l‖² + 1) computed without overflow: NaN if an
// entry is not finite, +Inf if the norm itself exceeds the largest float64.
func (ws *WorkspaceOf[F]) exampleNorm(m *Network[F], i int) float64 {
	total := 0.0
	for l := range m.W {
		in, out := m.Sizes[l], m.Sizes[l+1]
		d := robustNorm(ws.delta[l][i*out : (i+1)*out])
		a := robustNorm(ws.acts[l][i*in : (i+1)*in])
		if math.IsNaN(d) || math.IsNaN(a) {
			return math.NaN()
		}
		total = math.Hypot(total, d*math.Hypot(a, 1))
	}
	return total
}

// robustNorm is ‖v‖ scaled by max|v_i| (no overflow in the squares); NaN if an entry is NaN or infinite.
func robustNorm[F Float](v []F) float64 {
	mx := 0.0
	for _, x := range v {
		a := math.Abs(float64(x))
		if !(a <= math.MaxFloat64) {
			return math.NaN()
		}
		mx = max(mx, a)
	}
	if mx == 0 {
		return 0
	}
	s := 0.0
	for _, x := range v {
		s += (float64(x) / mx) * (float64(x) / mx)
	}
	return mx * math.Sqrt(s)
}

// towardZero is x in F, rounded toward zero (a clip factor never grows by rounding).
func towardZero[F Float](x float64) F {
	f := F(x)
	if math.Abs(float64(f)) > math.Abs(x) {
		f = F(math.Nextafter32(float32(f), 0))
	}
	return f
}

// dropExample zeroes example i's stored errors and activations so that it contributes exactly zero to
// Gradient (0·Inf would be NaN).
func (ws *WorkspaceOf[F]) dropExample(m *Network[F], i int) {
	for l := range m.W {
		in, out := m.Sizes[l], m.Sizes[l+1]
		clear(ws.delta[l][i*out : (i+1)*out])
		clear(ws.acts[l][i*in : (i+1)*in])
	}
}

// Replay is a fixed-capacity ring buffer of transitions (s, a, r, s′, done) with states of a fixed width.
type Replay struct {
	cap, width, n, next int
	S, S2               []float64
	A                   []int
	R                   []float64
	Done                []bool
}

// NewReplay allocates a buffer of capacity transitions with states of the given width.
func NewReplay(capacity, width int) (*Replay, error) {
	if err := param.First(check.AtLeast("capacity", capacity, 1), check.AtLeast("width", width, 1)); err != nil {
		return nil, err
	}
	return &Replay{cap: capacity, width: width, S: make([]float64, capacity*width), S2: make([]float64, capacity*width),
		A: make([]int, capacity), R: make([]float64, capacity), Done: make([]bool, capacity)}, nil
}

// Len is the number of stored transitions.
func (b *Replay) Len() int { return b.n }

// Add stores a transition, overwriting the oldest when full.
func (b *Replay) Add(s []float64, a int, r float64, s2 []float64, done bool) {
	i := b.next
	copy(b.S[i*b.width:(i+1)*b.width], s)
	copy(b.S2[i*b.width:(i+1)*b.width], s2)
	b.A[i], b.R[i], b.Done[i] = a, r, done
	b.next = (b.next + 1) % b.cap
	b.n = min(b.n+1, b.cap)
}

// Sample draws k indices uniformly with replacement into idx (allocated if nil).
func (b *Replay) Sample(k int, rng *rand.Rand, idx []int) []int {
	if b.n == 0 {
		panic("nn: Sample from an empty replay buffer")
	}
	if idx == nil {
		idx = make([]int, k)
	}
	for i := range k {
		idx[i] = rng.IntN(b.n)
	}
	return idx[:k]
}

// State returns stored state i (a view).
func (b *Replay) State(i int) []float64 { return b.S[i*b.width : (i+1)*b.width] }

// Next returns stored next state i (a view).
func (b *Replay) Next(i int) []float64 { return b.S2[i*b.width : (i+1)*b.width] }
