package policyeval

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/dprl-project/dprl/dprl/param"
	"github.com/dprl-project/dprl/envs"
)

// BalleSetup is Balle et al.'s chain experiment (package doc, "Balle et al.'s chain"): the 40-state chain
// without its absorbing state (39 states, ρ_s = 1/39), the policy that stays or advances with probability ½,
// γ = 0.99, and the exact values V.
type BalleSetup struct {
	States int
	Gamma  float64
	V      []float64 // exact values of the 39 non-absorbing states
	Policy *envs.TablePolicy
}

// NewBalleSetup computes the exact values by a linear solve.
func NewBalleSetup() (*BalleSetup, error) {
	chain := envs.NewChain(envs.BalleChainParams())
	pol, err := envs.ConstantTable(40, 0.5, 0.5)
	if err != nil {
		return nil, err
	}
	v, err := chain.Model().PolicyValue(pol.P, 0.99)
	if err != nil {
		return nil, err
	}
	return &BalleSetup{States: 39, Gamma: 0.99, V: v[:39], Policy: pol}, nil
}

// Problem returns the tabular (aggregate = 1) or state-aggregation features (aggregate = 2: adjacent pairs,
// d = 20) with ρ = 1/39 and the return bound fBound (Balle's code: R_max/(1−γ) = 100; the chain's tight
// public bound: 1).
func (b *BalleSetup) Problem(aggregate int, fBound float64) *Problem {
	d := (b.States + aggregate - 1) / aggregate
	phi := mat.NewDense(b.States, d, nil)
	rho := make([]float64, b.States)
	for s := range b.States {
		phi.Set(s, s/aggregate, 1)
		rho[s] = 1 / float64(b.States)
	}
	return &Problem{Phi: phi, Rho: rho, FMax: fBound, FRange: fBound}
}

// Batch collects m trajectories (one per individual) and returns their signature.
func (b *BalleSetup) Batch(m int, src rand.Source) (*Signature, error) {
	env, err := envs.Make("chain")
	if err != nil {
		return nil, err
	}
	tr, err := envs.Collect(env, b.Policy, m, src, 0)
	if err != nil {
		return nil, err
	}
	return NewSignature(&envs.Dataset{ObsDim: 1, NumActions: 2, Trajectories: tr}, b.States, b.Gamma,
		func(o []float64) int { return int(o[0]) })
}

// LambdaSchedule is the authors' regularisation schedule λ = ‖Φ‖_F²‖ρ‖∞ + c·m^0.4 (from their code; package
// doc, "DP-LSL").
func LambdaSchedule(p *Problem, c float64, m int) (float64, error) {
	switch {
	case p == nil:
		return 0, check.Missing("p", "a Problem")
	case p.Phi == nil:
		return 0, check.Missing("Phi", "the Problem's features")
	}
	if err := param.First(check.In("c", c, param.NonNegative), check.AtLeast("m", m, 1)); err != nil {
		return 0, err
	}
	rhoInf := 0.0
	for _, r := range p.Rho {
		rhoInf = math.Max(rhoInf, r)
	}
	f := mat.Norm(p.Phi, 2)
	return f*f*rhoInf + c*math.Pow(float64(m), 0.4), nil
}
