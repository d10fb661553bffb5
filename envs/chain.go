package envs

import (
	"github.com/dprl-project/dprl/dprl/param"

	"fmt"
	"math"
	"math/rand/v2"
)

// ChainParams configures a chain of N states 0 … N−1 whose last state is absorbing (terminal). There are
// two actions: 0 stays, 1 tries to advance and succeeds with probability AdvanceProb.
type ChainParams struct {
	N           int
	AdvanceProb float64   // probability that action 1 moves to the next state (otherwise it stays)
	StepReward  float64   // reward of a step that does not reach the absorbing state
	GoalReward  float64   // reward of the step that reaches it
	Start       []float64 // start distribution over the N−1 non-absorbing states; nil: uniform
	Label       string    // the registry name
}

// BalleChainParams is Balle et al.'s chain (package doc, "Environments"; constants from the authors' code):
// N = 40, reward 1 on reaching the absorbing state and 0 otherwise, uniform start. Their evaluated policy
// picks stay or advance with probability ½ each (p = 0.5); use a fixed stochastic policy for it. Time limit
// 200.
func BalleChainParams() ChainParams {
	return ChainParams{N: 40, AdvanceProb: 1, StepReward: 0, GoalReward: 1, Label: "chain"}
}

// MDP100Params is Seo & Yang's "MDP-100" patient-treatment chain: 100 states, "move right" advances with
// probability 0.9, reward −1 per step and +1 on reaching the absorbing state. The paper gives neither the
// start state nor a step cap; we start in state 0 and cut episodes at 1000 steps (package doc,
// "Environments").
func MDP100Params() ChainParams {
	start := make([]float64, 99)
	start[0] = 1
	return ChainParams{N: 100, AdvanceProb: 0.9, StepReward: -1, GoalReward: 1, Start: start, Label: "mdp100"}
}

// Chain is the chain environment. Its observation is the state index.
type Chain struct {
	p ChainParams
	episode
	s   int
	obs [1]float64
}

// NewChain returns a chain. Invalid parameters (see ValidateChain) make every Reset return the error.
func NewChain(p ChainParams) *Chain {
	if p.Label == "" {
		p.Label = "chain"
	}
	c := &Chain{p: p}
	c.bad = ValidateChain(p)
	if c.bad != nil {
		c.p.N = 2 // keep the methods that read N (NumStates, ObservationSpace) harmless
	}
	return c
}

// ValidateChain checks chain parameters.
func ValidateChain(p ChainParams) error {
	if err := param.First(
		check.Int("N", p.N, 2, 1<<24),
		check.In("AdvanceProb", p.AdvanceProb, param.Interval{Lo: 0, Hi: 1, HiClosed: true}),
		check.In("StepReward", p.StepReward, param.Finite),
		check.In("GoalReward", p.GoalReward, param.Finite),
	); err != nil {
		return err
	}
	if p.Start != nil {
		if len(p.Start) != p.N-1 {
			return check.Errorf("Start", float64(len(p.Start)), "N−1 = %d entries (a distribution over the non-absorbing states)", p.N-1)
		}
		sum := 0.0
		for i, w := range p.Start {
			if err := check.In(fmt.Sprintf("Start[%d]", i), w, param.Probability); err != nil {
				return err
			}
			sum += w
		}
		if math.Abs(sum-1) > 1e-9 {
			return check.Errorf("Start", sum, "entries summing to 1 (the value is their sum)")
		}
	}
	return nil
}

func (c *Chain) Name() string        { return c.p.Label }
func (c *Chain) NumActions() int     { return 2 }
func (c *Chain) NumStates() int      { return c.p.N }
func (c *Chain) Params() ChainParams { return c.p }

// StateIndex is the observation itself.
func (c *Chain) StateIndex(obs []float64) int { return int(obs[0]) }

func (c *Chain) ObservationSpace() Box {
	return Box{Low: []float64{0}, High: []float64{float64(c.p.N - 1)}}
}

// Reset draws the start state.
func (c *Chain) Reset(src rand.Source) ([]float64, error) {
	if err := c.begin(src); err != nil {
		return nil, err
	}
	if c.p.Start == nil {
		c.s = c.rng.IntN(c.p.N - 1)
	} else {
		u, acc := c.rng.Float64(), 0.0
		c.s = c.p.N - 2
		for i, w := range c.p.Start {
			acc += w
			if u < acc {
				c.s = i
				break
			}
		}
	}
	c.obs[0] = float64(c.s)
	return c.obs[:], nil
}

// Step moves along the chain.
func (c *Chain) Step(a int) (StepResult, error) {
	if err := c.check(c.p.Label, a, 2); err != nil {
		return StepResult{}, err
	}
	if a == 1 && (c.p.AdvanceProb == 1 || c.rng.Float64() < c.p.AdvanceProb) {
		c.s++
	}
	r := StepResult{Obs: c.obs[:], Reward: c.p.StepReward}
	if c.s == c.p.N-1 {
		r.Reward, r.Terminated = c.p.GoalReward, true
	}
	c.obs[0] = float64(c.s)
	c.end(r.Terminated)
	return r, nil
}

// State is the state index.
func (c *Chain) State() []float64 { return []float64{float64(c.s)} }

// SetState sets the state index (a non-absorbing state).
func (c *Chain) SetState(s []float64) error {
	if len(s) != 1 {
		return stateError(c.p.Label, len(s), 1)
	}
	i := int(s[0])
	if float64(i) != s[0] || i < 0 || i >= c.p.N-1 {
		return check.Errorf("s[0]", s[0], "the integers [0, %d] (the non-absorbing states of %s)", c.p.N-2, c.p.Label)
	}
	c.s = i
	c.obs[0] = s[0]
	c.resume()
	return nil
}

// Model returns the chain's tabular model (transition probabilities and expected rewards).
func (c *Chain) Model() *Model {
	n := c.p.N
	m := NewModel(n, 2)
	for s := 0; s < n-1; s++ {
		m.Add(s, 0, s, 1, c.p.StepReward)
		next := s + 1
		rew := c.p.StepReward
		if next == n-1 {
			rew = c.p.GoalReward
		}
		m.Add(s, 1, next, c.p.AdvanceProb, rew)
		if c.p.AdvanceProb < 1 {
			m.Add(s, 1, s, 1-c.p.AdvanceProb, c.p.StepReward)
		}
	}
	m.Terminal[n-1] = true
	if c.p.Start == nil {
		for s := 0; s < n-1; s++ {
			m.Start[s] = 1 / float64(n-1)
		}
	} else {
		copy(m.Start, c.p.Start)
	}
	return m
}
