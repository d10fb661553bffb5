package expertdp

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/floats"

	"github.com/dprl-project/dprl/dprl/nn"
	"github.com/dprl-project/dprl/dprl/param"
)

// Algorithm is an offline RL learner.
type Algorithm int

const (
	// CQL is conservative Q-learning in its DQN form (Kumar et al. 2020): the TD loss plus
	// α·(log Σ_a exp Q(s, a) − Q(s, a_data)).
	CQL Algorithm = iota
	// BCQ is discrete batch-constrained Q-learning (Fujimoto et al. 2019): a Q head and a behaviour-cloning
	// head; actions whose cloned probability is below Threshold times the most likely one's are never
	// chosen, in the target or at evaluation.
	BCQ
)

// String names the learner ("CQL", "BCQ"), or gives Algorithm(n) for any other value.
func (a Algorithm) String() string {
	switch a {
	case CQL:
		return "CQL"
	case BCQ:
		return "BCQ"
	}
	return fmt.Sprintf("Algorithm(%d)", int(a))
}

// LearnerConfig is the learner's configuration. Zero fields take the defaults, our choices where the paper
// is silent (package doc, "Learners").
type LearnerConfig struct {
	Algorithm    Algorithm
	Hidden       []int   // hidden layer widths: {64, 64} (the paper: 256, 256; HIV 512)
	Gamma        float64 // 0.99
	LR           float64 // Adam step size, 1e−3
	CQLAlpha     float64 // 1
	BCQThreshold float64 // 0.3
	Polyak       float64 // target network update rate per step, 0.005
}

func (c LearnerConfig) withDefaults() LearnerConfig {
	if c.Hidden == nil {
		c.Hidden = []int{64, 64}
	}
	orDefault(&c.Gamma, 0.99)
	orDefault(&c.LR, 1e-3)
	orDefault(&c.CQLAlpha, 1)
	orDefault(&c.BCQThreshold, 0.3)
	orDefault(&c.Polyak, 0.005)
	return c
}

func orDefault(v *float64, d float64) {
	if *v == 0 {
		*v = d
	}
}

func (c LearnerConfig) validate() error {
	unitLeftOpen := param.Interval{Lo: 0, Hi: 1, HiClosed: true} // (0, 1]
	return param.First(
		check.Int("Algorithm", int(c.Algorithm), int(CQL), int(BCQ)),
		check.In("Gamma", c.Gamma, param.OpenUnit),
		check.In("LR", c.LR, param.Positive),
		check.In("CQLAlpha", c.CQLAlpha, param.Positive),
		check.In("BCQThreshold", c.BCQThreshold, unitLeftOpen),
		check.In("Polyak", c.Polyak, unitLeftOpen))
}

// batch is a minibatch of transitions with normalised states.
type batch struct {
	s, s2   []float64
	a       []int
	r       []float64
	term    []bool
	traj    []int // the trajectory each transition came from
	n, dim  int
	private bool
}

func newBatch(maxSize, dim int) *batch {
	return &batch{s: make([]float64, maxSize*dim), s2: make([]float64, maxSize*dim), a: make([]int, maxSize),
		r: make([]float64, maxSize), term: make([]bool, maxSize), traj: make([]int, maxSize), dim: dim}
}

// Learner is an offline Q-learner (CQL or BCQ) on one domain: an MLP with |A| outputs (CQL) or 2|A| (BCQ:
// Q values, then the behaviour-cloning logits), its Polyak-averaged target copy and Adam.
type Learner struct {
	Config LearnerConfig
	Net    *nn.MLP
	target *nn.MLP
	dom    *Domain
	opt    *nn.Adam
	grads  *nn.Grads
	ws     *nn.Workspace // the batch's forward and backward pass
	wsNext *nn.Workspace // next states through the online network (BCQ's action choice)
	wsTarg *nn.Workspace // next states through the target network
	wsOne  *nn.Workspace // one state, for Act
	dOut   []float64
	norms  []float64
	single []float64 // one normalised state
}

// NewLearner builds a learner for domain d whose batches hold at most maxBatch transitions.
func NewLearner(d *Domain, cfg LearnerConfig, maxBatch int, seed uint64) (*Learner, error) {
	if d == nil {
		return nil, check.Missing("d", "a Domain")
	}
	if err := check.AtLeast("maxBatch", maxBatch, 1); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	out := d.NumActions
	if cfg.Algorithm == BCQ {
		out *= 2
	}
	sizes := append(append([]int{d.ObsDim}, cfg.Hidden...), out)
	net, err := nn.NewMLP(sizes, nn.ReLU, rand.NewPCG(seed, 0))
	if err != nil {
		return nil, err
	}
	l := &Learner{Config: cfg, Net: net, target: net.Clone(), dom: d, opt: &nn.Adam{LR: cfg.LR}, grads: nn.NewGrads(net),
		ws: nn.NewWorkspace(net, maxBatch), wsNext: nn.NewWorkspace(net, maxBatch), wsTarg: nn.NewWorkspace(net, maxBatch), wsOne: nn.NewWorkspace(net, 1),
		dOut: make([]float64, maxBatch*out), norms: make([]float64, maxBatch), single: make([]float64, d.ObsDim)}
	return l, nil
}

// allowed reports BCQ's action filter at one state's cloning logits: π(a)/max π ≥ threshold, i.e.
// logit_a − max logit ≥ ln threshold.
func (l *Learner) bestAllowed(q, logits []float64) int {
	lt := math.Log(l.Config.BCQThreshold)
	mx := floats.Max(logits)
	best := -1
	for a := range q {
		if logits[a]-mx >= lt && (best < 0 || q[a] > q[best]) {
			best = a
		}
	}
	return best
}

// Act is the learned greedy action at a raw observation: argmax Q (CQL) or argmax over BCQ's allowed
// actions. It allocates nothing (the learner keeps a one-state workspace), so it is not safe for concurrent
// use.
func (l *Learner) Act(obs []float64) int {
	l.dom.normalize(obs, l.single)
	o := l.wsOne.Forward(l.Net, l.single)
	A := l.dom.NumActions
	if l.Config.Algorithm == BCQ {
		return l.bestAllowed(o[:A], o[A:2*A])
	}
	return floats.MaxIdx(o[:A])
}

// backward runs the batch forward and backward: per-example output errors of the learner's loss go into
// the workspace, ready for Gradient or PrivateGradient. It returns the mean loss.
func (l *Learner) backward(b *batch) float64 {
	A, g := l.dom.NumActions, l.Config.Gamma
	k := A
	if l.Config.Algorithm == BCQ {
		k = 2 * A
	}
	n := b.n
	next := l.wsTarg.Forward(l.target, b.s2[:n*b.dim])
	var nextOnline []float64
	if l.Config.Algorithm == BCQ {
		nextOnline = l.wsNext.Forward(l.Net, b.s2[:n*b.dim])
	}
	out := l.ws.Forward(l.Net, b.s[:n*b.dim])
	dOut := l.dOut[:n*k]
	clear(dOut)
	loss := 0.0
	for i := range n {
		y := b.r[i]
		if !b.term[i] {
			var v float64
			if l.Config.Algorithm == BCQ {
				o := nextOnline[i*k : (i+1)*k]
				v = next[i*k+l.bestAllowed(o[:A], o[A:])]
			} else {
				v = floats.Max(next[i*k : i*k+A])
			}
			y += g * v
		}
		o := out[i*k : (i+1)*k]
		d := dOut[i*k : (i+1)*k]
		a := b.a[i]
		td := o[a] - y
		loss += huber(td)
		d[a] += math.Max(-1, math.Min(1, td))
		switch l.Config.Algorithm {
		case CQL:
			// α·(logsumexp Q − Q(s, a)): gradient α·(softmax Q − e_a).
			lse := floats.LogSumExp(o[:A])
			loss += l.Config.CQLAlpha * (lse - o[a])
			for j := range A {
				d[j] += l.Config.CQLAlpha * math.Exp(o[j]-lse)
			}
			d[a] -= l.Config.CQLAlpha
		case BCQ:
			// Cross-entropy of the cloning head plus 0.01·mean(logit²), as in Fujimoto et al.'s code.
			z := o[A:]
			lse := floats.LogSumExp(z)
			loss += lse - z[a]
			for j := range A {
				loss += 0.01 * z[j] * z[j] / float64(A)
				d[A+j] += math.Exp(z[j]-lse) + 0.02*z[j]/float64(A)
			}
			d[A+a] -= 1
		}
	}
	l.ws.Backward(l.Net, dOut)
	return loss / float64(n)
}

func huber(x float64) float64 {
	if a := math.Abs(x); a > 1 {
		return a - 0.5
	}
	return 0.5 * x * x
}

// update applies the averaged gradient in l.grads and moves the target network.
func (l *Learner) update() {
	l.opt.Step(l.Net, l.grads)
	tau := l.Config.Polyak
	for i := range l.Net.W {
		for _, p := range [][2][]float64{{l.target.W[i], l.Net.W[i]}, {l.target.B[i], l.Net.B[i]}} {
			floats.Scale(1-tau, p[0])
			floats.AddScaled(p[0], tau, p[1])
		}
	}
}

// finite reports whether every parameter of the network is finite.
func (l *Learner) finite() bool {
	for i := range l.Net.W {
		for _, p := range [][]float64{l.Net.W[i], l.Net.B[i]} {
			for _, v := range p {
				if !finite(v) {
					return false
				}
			}
		}
	}
	return true
}

// normalize maps an observation to the network's input, (obs − shift)/scale (identity for LunarLander).
func (d *Domain) normalize(obs, dst []float64) {
	if d.lander {
		copy(dst, obs)
		return
	}
	for j, o := range obs {
		dst[j] = (o - d.shift[j]) / d.scale[j]
	}
}
