package policyeval

import (
	"math/rand/v2"

	"github.com/dprl-project/dprl/envs"
)

// balleChain is the tests' fixture: envs.BalleEvaluation (Balle et al.'s 40-state chain under the policy
// that stays or advances with probability ½, γ = 0.99) seen without its absorbing state (39 states,
// ρ_s = 1/39), with the exact values V. (The reproduction balle2016.Setup reads the chain the same way; the
// library does not import reproductions.)
type balleChain struct {
	States int
	Gamma  float64
	V      []float64
	Policy *envs.TablePolicy
	chain  *envs.BalleEvaluation
}

func newBalleChain() (*balleChain, error) {
	c := envs.NewBalleEvaluation()
	return &balleChain{States: 39, Gamma: c.Gamma, V: c.V[:39], Policy: c.Policy, chain: c}, nil
}

// Problem has tabular (aggregate = 1) or adjacent-pair (aggregate = 2) features, ρ = 1/39 and return bound
// fBound.
func (b *balleChain) Problem(aggregate int, fBound float64) *Problem {
	return &Problem{Phi: StateAggregation(b.States, aggregate), Rho: UniformWeights(b.States), FMax: fBound, FRange: fBound}
}

// Batch is the signature of m fresh trajectories.
func (b *balleChain) Batch(m int, src rand.Source) (*Signature, error) {
	d, err := b.chain.Collect(m, src)
	if err != nil {
		return nil, err
	}
	return NewSignature(d, b.States, b.Gamma, func(o []float64) int { return int(o[0]) })
}
