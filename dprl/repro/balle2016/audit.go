package balle2016

import (
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/dprl-project/dprl/dprl/audit"
	"github.com/dprl-project/dprl/dprl/policyeval"
	"github.com/dprl-project/dprl/mechanisms"
	"github.com/dprl-project/dprl/trajectory"
)

// LSWAuditProblem is the worst case for DP-LSW (Balle et al. Algorithm 1) used by DPLSWCase: two states with
// tabular features and weights ρ = (½, ½), returns in [0, 1] (FMax = FRange = 1), m = 200 one-step
// trajectories of which 199 start in state 1 (reward ½) and exactly one visits state 0. That one is the
// trajectory the neighbours replace: reward 0 in input 0, reward 1 in input 1. With a single visit, θ_0 = F_0
// moves by the whole return range and the local sensitivity equals the smooth bound (n_0 = 1 leaves the
// smooth maximum at k = 0), so the noise is as small relative to the change as the analysis allows.
func LSWAuditProblem() (*policyeval.Problem, [2]*trajectory.Dataset) {
	const m = 200
	p := &policyeval.Problem{Phi: mat.NewDense(2, 2, []float64{1, 0, 0, 1}), Rho: []float64{0.5, 0.5}, FMax: 1, FRange: 1}
	return p, oneVisitPair(m)
}

// oneVisitPair is the neighbouring pair of the audits: m one-step trajectories over two tabular states, m − 1
// of them starting in state 1 with reward ½ and exactly one, the one the neighbours replace, in state 0 with
// reward 0 (input 0) or 1 (input 1).
func oneVisitPair(m int) [2]*trajectory.Dataset {
	var ds [2]*trajectory.Dataset
	for nb := range 2 {
		d := &trajectory.Dataset{ObsDim: 1, NumActions: 1, Trajectories: make([]trajectory.Trajectory, m)}
		for i := range m {
			st := trajectory.Step{Obs: []float64{1}, Reward: 0.5, NextObs: []float64{1}, Terminated: true, Prob: 1}
			if i == 0 {
				st.Obs, st.Reward = []float64{0}, float64(nb)
			}
			d.Trajectories[i] = trajectory.Trajectory{Expert: 0, Steps: []trajectory.Step{st}}
		}
		ds[nb] = d
	}
	return ds
}

// DPLSWCase audits DP-LSW (Lemma 1 constants) on LSWAuditProblem at (eps, 1e−5); the statistic is the
// released θ_0. The broken variant forgets the factor α: it adds noise of the size of the smooth bound
// itself, as if sensitivity-sized noise were enough.
func DPLSWCase(eps float64) audit.Case {
	const delta = 1e-5
	p, ds := LSWAuditProblem()
	index := func(obs []float64) int { return int(obs[0]) }
	priv := policyeval.PrivacyParams{Epsilon: eps, Delta: delta, Variant: mechanisms.SmoothLemma1}
	run := func(withAlpha bool) audit.Procedure {
		return audit.Procedure{Name: "DP-LSW", Run: func(nb int, src rand.Source) (float64, error) {
			sig, err := policyeval.NewSignature(ds[nb], 2, 1, index)
			if err != nil {
				return 0, err
			}
			r, err := policyeval.DPLSW(p, sig, priv, false, src)
			if err != nil {
				return 0, err
			}
			if withAlpha {
				return r.Theta[0], nil
			}
			theta, err := policyeval.LSW(p, sig)
			if err != nil {
				return 0, err
			}
			// The valid release consumed one normal draw per coordinate from src; the broken one draws afresh.
			return theta[0] + r.Sigma/r.Alpha*rand.New(src).NormFloat64(), nil
		}}
	}
	// The pair's exact ε: θ_0 moves by 1 under noise σ (the same for both inputs: their counts agree).
	sig, err := policyeval.NewSignature(ds[0], 2, 1, index)
	if err != nil {
		panic(err)
	}
	r, err := policyeval.DPLSW(p, sig, priv, false, rand.NewPCG(0, 0))
	if err != nil {
		panic(err)
	}
	return audit.Case{Name: "DP-LSW (Balle et al.)", Valid: run(true), Broken: run(false), Epsilon: eps, Delta: delta,
		Neighbours: "datasets of m = 200 trajectories differing in one (the only visit to a state)", Break: "noise without the factor α",
		PairEpsilon: audit.GaussianPairEpsilon(1/r.Sigma, delta)}
}
