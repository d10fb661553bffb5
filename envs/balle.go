package envs

import (
	"math/rand/v2"

	"github.com/dprl-project/dprl/trajectory"
)

// BalleEvaluation is the policy-evaluation problem Balle et al. pose on their chain, which Xie et al.'s
// Fig. 1 and the estimators' tests reuse: the chain of BalleChainParams inside its registered 200-step limit,
// the policy that stays or advances with probability ½ (it collects the data and is the policy evaluated),
// γ = 0.99, and the exact values of the chain's 40 states under it.
type BalleEvaluation struct {
	Policy *TablePolicy
	Gamma  float64
	V      []float64 // V_π of states 0 … 39 (0 at the absorbing state 39), from the tabular model
}

// NewBalleEvaluation builds the problem; the exact values come from a linear solve on the chain's model.
func NewBalleEvaluation() *BalleEvaluation {
	const gamma = 0.99
	pol, err := ConstantTable(40, 0.5, 0.5)
	if err != nil {
		panic(err) // constant arguments: an error here is a bug
	}
	v, err := NewChain(BalleChainParams()).Model().PolicyValue(pol.P, gamma)
	if err != nil {
		panic(err)
	}
	return &BalleEvaluation{Policy: pol, Gamma: gamma, V: v}
}

// Collect records n trajectories of the chain under Policy (expert 0; randomness from src as in package
// function Collect) as a dataset of 1-dimensional observations (the state index) and 2 actions.
func (b *BalleEvaluation) Collect(n int, src rand.Source) (*trajectory.Dataset, error) {
	env, err := Make("chain")
	if err != nil {
		return nil, err
	}
	tr, err := Collect(env, b.Policy, n, src, 0)
	if err != nil {
		return nil, err
	}
	return &trajectory.Dataset{ObsDim: 1, NumActions: 2, Trajectories: tr}, nil
}

// Episodes records the same n trajectories as Collect with the same src, as each step's state index and
// reward only: what a first-visit estimator needs (policyeval.NewEpisodeSignature), without a Step per
// transition. Its draws are Collect's, in the same order, so both give the same batch.
func (b *BalleEvaluation) Episodes(n int, src rand.Source) (states [][]int, rewards [][]float64, err error) {
	env, err := Make("chain")
	if err != nil {
		return nil, nil, err
	}
	switch {
	case src == nil:
		return nil, nil, check.Missing("src", "a rand.Source")
	case n < 0:
		return nil, nil, check.AtLeast("n", n, 0)
	}
	rng := rand.New(src)
	probs := make([]float64, env.NumActions())
	states, rewards = make([][]int, n), make([][]float64, n)
	for i := range n {
		o, err := env.Reset(rand.NewPCG(rng.Uint64(), rng.Uint64()))
		if err != nil {
			return nil, nil, err
		}
		s := int(o[0])
		for {
			a := Act(b.Policy, o, rng, probs)
			r, err := env.Step(a)
			if err != nil {
				return nil, nil, err
			}
			states[i], rewards[i] = append(states[i], s), append(rewards[i], r.Reward)
			if r.Terminated || r.Truncated {
				break
			}
			o, s = r.Obs, int(r.Obs[0])
		}
	}
	return states, rewards, nil
}
