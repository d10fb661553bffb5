package envs

import (
	"github.com/dprl-project/dprl/dprl/param"
	"github.com/dprl-project/dprl/trajectory"

	"fmt"
	"math"
	"math/rand/v2"
)

// Act samples an action from p at obs using rng; scratch (len NumActions, may be nil) avoids an allocation.
func Act(p trajectory.Policy, obs []float64, rng *rand.Rand, scratch []float64) int {
	if len(scratch) < p.NumActions() {
		scratch = make([]float64, p.NumActions())
	}
	return Sample(p.Probs(scratch[:p.NumActions()], obs), rng)
}

// Sample draws an index with the given probabilities (one uniform draw from rng).
func Sample(probs []float64, rng *rand.Rand) int {
	u := rng.Float64()
	acc := 0.0
	for a, q := range probs {
		acc += q
		if u < acc {
			return a
		}
	}
	// Rounding left u above the cumulative sum: return the last index with positive probability.
	for a := len(probs) - 1; a >= 0; a-- {
		if probs[a] > 0 {
			return a
		}
	}
	return len(probs) - 1
}

// Uniform picks every action with equal probability.
type Uniform struct{ N int }

func (u Uniform) NumActions() int { return u.N }
func (u Uniform) Probs(dst, _ []float64) []float64 {
	for a := range dst {
		dst[a] = 1 / float64(u.N)
	}
	return dst
}

// TablePolicy is a policy given by a table of action probabilities per state of a tabular environment
// (Balle's "stay or advance with probability ½" is the table with every row (½, ½)).
type TablePolicy struct {
	P     [][]float64
	Index func(obs []float64) int // the state of an observation; nil: int(obs[0])
}

// NewTablePolicy validates the rows (each a probability vector over the same number of actions).
func NewTablePolicy(p [][]float64) (*TablePolicy, error) {
	if len(p) == 0 {
		return nil, check.Errorf("p", 0, "at least one row (state) in the policy table")
	}
	for s, row := range p {
		if len(row) != len(p[0]) || len(row) == 0 {
			return nil, check.Errorf(fmt.Sprintf("p[%d]", s), float64(len(row)), "len(p[0]) = %d ≥ 1 actions", len(p[0]))
		}
		sum := 0.0
		for a, q := range row {
			if !(q >= 0) {
				return nil, check.In(fmt.Sprintf("p[%d][%d]", s, a), q, param.Probability)
			}
			sum += q
		}
		if math.Abs(sum-1) > 1e-9 {
			return nil, check.Errorf(fmt.Sprintf("p[%d]", s), sum, "rows summing to 1 (the value is the sum)")
		}
	}
	return &TablePolicy{P: p}, nil
}

// ConstantTable returns the table policy with the same action probabilities in each of n states.
func ConstantTable(n int, probs ...float64) (*TablePolicy, error) {
	if err := check.Int("n", n, 1, 1<<24); err != nil {
		return nil, err
	}
	if len(probs) == 0 {
		return nil, check.Errorf("probs", 0, "at least one action probability")
	}
	for a, q := range probs {
		if err := check.In(fmt.Sprintf("probs[%d]", a), q, param.Probability); err != nil {
			return nil, err
		}
	}
	p := make([][]float64, n)
	for s := range p {
		p[s] = append([]float64(nil), probs...)
	}
	return NewTablePolicy(p)
}

func (t *TablePolicy) NumActions() int { return len(t.P[0]) }
func (t *TablePolicy) Probs(dst, obs []float64) []float64 {
	s := int(obs[0])
	if t.Index != nil {
		s = t.Index(obs)
	}
	copy(dst, t.P[s])
	return dst
}

// Greedy picks argmax_a Q(obs, a) (the lowest action among ties) with probability 1−ε and a uniform action
// with probability ε: ε = 0 is the greedy policy. It keeps a scratch buffer: one Greedy per goroutine.
type Greedy struct {
	N       int
	Epsilon float64
	Q       func(dst, obs []float64) []float64 // action values at obs
	q       []float64
}

func (g *Greedy) NumActions() int { return g.N }
func (g *Greedy) Probs(dst, obs []float64) []float64 {
	if len(g.q) != g.N {
		g.q = make([]float64, g.N)
	}
	q := g.Q(g.q, obs)
	best := 0
	for a := range q {
		if q[a] > q[best] {
			best = a
		}
	}
	for a := range dst {
		dst[a] = g.Epsilon / float64(g.N)
	}
	dst[best] += 1 - g.Epsilon
	return dst
}

// Softmax picks a with probability ∝ exp(Q(obs, a)/Temperature). It keeps a scratch buffer: one Softmax
// per goroutine.
type Softmax struct {
	N           int
	Temperature float64
	Q           func(dst, obs []float64) []float64
	q           []float64
}

func (s *Softmax) NumActions() int { return s.N }
func (s *Softmax) Probs(dst, obs []float64) []float64 {
	if len(s.q) != s.N {
		s.q = make([]float64, s.N)
	}
	q := s.Q(s.q, obs)
	mx := math.Inf(-1)
	for _, v := range q {
		mx = math.Max(mx, v)
	}
	sum := 0.0
	for a, v := range q {
		dst[a] = math.Exp((v - mx) / s.Temperature)
		sum += dst[a]
	}
	for a := range dst {
		dst[a] /= sum
	}
	return dst
}

// MixMin gives every action at least probability pMin: the greedy action of base gets
// 1 − (|A|−1)·pMin and the others pMin (Sharma et al.'s p_min mixing of expert policies). base must be
// deterministic (one action with probability 1); pMin must be in [0, 1/|A|].
type MixMin struct {
	Base trajectory.Policy
	PMin float64
}

func (m MixMin) NumActions() int { return m.Base.NumActions() }
func (m MixMin) Probs(dst, obs []float64) []float64 {
	m.Base.Probs(dst, obs)
	best := 0
	for a := range dst {
		if dst[a] > dst[best] {
			best = a
		}
	}
	n := float64(len(dst))
	for a := range dst {
		dst[a] = m.PMin
	}
	dst[best] = 1 - (n-1)*m.PMin
	return dst
}
