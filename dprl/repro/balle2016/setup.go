package balle2016

import (
	"math/rand/v2"

	"github.com/dprl-project/dprl/dprl/policyeval"
	"github.com/dprl-project/dprl/envs"
)

// Setup is Balle et al.'s chain experiment (envs.BalleEvaluation): the 40-state chain seen without its
// absorbing state (39 states, ρ_s = 1/39), the policy that stays or advances with probability ½, γ = 0.99,
// and the exact values V of the 39 states.
type Setup struct {
	States int
	Gamma  float64
	V      []float64 // exact values of the 39 non-absorbing states
	Policy *envs.TablePolicy
	chain  *envs.BalleEvaluation
}

// NewSetup builds the setup from envs.NewBalleEvaluation, which computes the exact values by a linear solve.
func NewSetup() (*Setup, error) {
	c := envs.NewBalleEvaluation()
	return &Setup{States: 39, Gamma: c.Gamma, V: c.V[:39], Policy: c.Policy, chain: c}, nil
}

// Problem returns the tabular (aggregate = 1) or state-aggregation features (aggregate = 2: adjacent pairs,
// d = 20, the last state alone) with ρ = 1/39 and the return bound fBound (the authors' code:
// R_max/(1−γ) = 100; the chain's tight public bound: 1).
func (b *Setup) Problem(aggregate int, fBound float64) *policyeval.Problem {
	return &policyeval.Problem{Phi: policyeval.StateAggregation(b.States, aggregate), Rho: policyeval.UniformWeights(b.States),
		FMax: fBound, FRange: fBound}
}

// Batch collects m trajectories (one per individual) and returns their first-visit signature. The
// trajectories are envs.BalleEvaluation.Collect's for src, recorded as states and rewards only.
func (b *Setup) Batch(m int, src rand.Source) (*policyeval.Signature, error) {
	states, rewards, err := b.chain.Episodes(m, src)
	if err != nil {
		return nil, err
	}
	return policyeval.NewEpisodeSignature(states, rewards, b.States, b.Gamma)
}
