package policyeval

import (
	"math/rand/v2"

	"github.com/dprl-project/dprl/envs"
	"github.com/dprl-project/dprl/trajectory"
)

// balleChain is the tests' fixture: Balle et al.'s 40-state chain (envs.BalleChainParams) without its
// absorbing state (39 states, ρ_s = 1/39) under the policy that stays or advances with probability ½,
// γ = 0.99, with the exact values V. (The reproduction's own copy is balle2016.Setup; the library does not
// import reproductions.)
type balleChain struct {
	States int
	Gamma  float64
	V      []float64
	Policy *envs.TablePolicy
}

func newBalleChain() (*balleChain, error) {
	pol, err := envs.ConstantTable(40, 0.5, 0.5)
	if err != nil {
		return nil, err
	}
	v, err := envs.NewChain(envs.BalleChainParams()).Model().PolicyValue(pol.P, 0.99)
	if err != nil {
		return nil, err
	}
	return &balleChain{States: 39, Gamma: 0.99, V: v[:39], Policy: pol}, nil
}

// Problem has tabular (aggregate = 1) or adjacent-pair (aggregate = 2) features, ρ = 1/39 and return bound
// fBound.
func (b *balleChain) Problem(aggregate int, fBound float64) *Problem {
	return &Problem{Phi: StateAggregation(b.States, aggregate), Rho: UniformWeights(b.States), FMax: fBound, FRange: fBound}
}

// Batch is the signature of m fresh trajectories.
func (b *balleChain) Batch(m int, src rand.Source) (*Signature, error) {
	env, err := envs.Make("chain")
	if err != nil {
		return nil, err
	}
	tr, err := envs.Collect(env, b.Policy, m, src, 0)
	if err != nil {
		return nil, err
	}
	return NewSignature(&trajectory.Dataset{ObsDim: 1, NumActions: 2, Trajectories: tr}, b.States, b.Gamma,
		func(o []float64) int { return int(o[0]) })
}
