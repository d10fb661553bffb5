package balle2016

import (
	"fmt"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/dprl-project/dprl/dprl/audit"
	"github.com/dprl-project/dprl/dprl/policyeval"
	"github.com/dprl-project/dprl/mechanisms"
)

// The DP-LSL audit's setting (LSLAuditProblem): m one-step trajectories over two tabular states with
// weights ρ = (0.9, 0.1), returns declared in [0, 1], regularisation λ and (ε, δ) = (1, 10⁻⁵).
const (
	lslM      = 10
	lslLambda = 1000.0
	lslDelta  = 1e-5
)

// LSLAuditProblem is the worst-case pair for DP-LSL (Balle et al.'s regularised estimator, policyeval.DPLSL):
// two states with tabular features and weights ρ = (0.9, 0.1), returns in [0, 1] (FMax = FRange = 1),
// m = 10 one-step trajectories, nine of which start in state 1 (reward ½) and exactly one in state 0. That
// one is the trajectory the neighbours replace, and its return hits the declared bounds: 0 in input 0, 1 in
// input 1. Both inputs have the same visit counts, so DP-LSL's smooth-sensitivity noise σ is the same for
// both and the pair is exactly a Gaussian mechanism on θ_0, which moves by ρ_0/(ρ_0·n_0 + λ/2).
//
// The constants maximise the pair's exact ε over the settings tried (m ∈ {2, 10, 50, 200}, ρ_0 ∈ {½, 0.9,
// 0.99}, λ from 0.01 to 10⁴): the change of θ_0 shrinks like 1/λ and so does the noise, whose count-dependent
// factor loses weight as λ grows, so large λ is the worst case; even there the pair's ε is about 0.12 for a
// claim of 1, the calibration's slack (the smooth-sensitivity constant α ≈ 25 and a sensitivity bound that
// covers every pair of counts).
func LSLAuditProblem() (*policyeval.Problem, [2]*policyeval.Signature, error) {
	p := &policyeval.Problem{Phi: mat.NewDense(2, 2, []float64{1, 0, 0, 1}), Rho: []float64{0.9, 0.1}, FMax: 1, FRange: 1}
	var sigs [2]*policyeval.Signature
	for nb, d := range oneVisitPair(lslM) {
		s, err := policyeval.NewSignature(d, 2, 1, func(obs []float64) int { return int(obs[0]) })
		if err != nil {
			return nil, sigs, err
		}
		sigs[nb] = s
	}
	return p, sigs, nil
}

// DPLSLTargets are DP-LSL's rows of the tight audit table at ε = 1 on LSLAuditProblem, with the bound the
// library proves (policyeval.LSLSafe): the valid release audited with the GDP fit (the pair is exactly
// Gaussian), and the broken variant that forgets the smooth-sensitivity factor α (noise of the size of the
// smooth bound itself), also an exact Gaussian pair, so also the GDP fit. The statistic is the released θ_0.
func DPLSLTargets() ([]audit.Target, error) {
	p, sigs, err := LSLAuditProblem()
	if err != nil {
		return nil, err
	}
	priv := policyeval.PrivacyParams{Epsilon: 1, Delta: lslDelta, Variant: mechanisms.SmoothLemma1}
	release := func(nb int, src rand.Source) (*policyeval.Release, error) {
		return policyeval.DPLSL(p, sigs[nb], lslLambda, priv, policyeval.LSLSafe, src)
	}
	valid := audit.Procedure{Name: "DP-LSL", Run: func(nb int, src rand.Source) (float64, error) {
		r, err := release(nb, src)
		if err != nil {
			return 0, err
		}
		return r.Theta[0], nil
	}}
	broken := audit.Procedure{Name: "DP-LSL without α", Run: func(nb int, src rand.Source) (float64, error) {
		r, err := release(nb, src)
		if err != nil {
			return 0, err
		}
		theta, err := policyeval.LSL(p, sigs[nb], lslLambda)
		if err != nil {
			return 0, err
		}
		// The valid release consumed one normal draw per coordinate from src; the broken one draws afresh.
		return theta[0] + r.Sigma/r.Alpha*rand.New(src).NormFloat64(), nil
	}}
	// The pair's exact ε: θ_0 moves by Δ under the same σ in both inputs.
	var theta [2]float64
	var sigma, alpha float64
	for nb := range 2 {
		th, err := policyeval.LSL(p, sigs[nb], lslLambda)
		if err != nil {
			return nil, err
		}
		theta[nb] = th[0]
		r, err := release(nb, rand.NewPCG(0, 0))
		if err != nil {
			return nil, err
		}
		if nb == 1 && r.Sigma != sigma {
			return nil, fmt.Errorf("balle2016: DP-LSL audit pair: σ differs between the inputs (%g, %g)", sigma, r.Sigma)
		}
		sigma, alpha = r.Sigma, r.Alpha
	}
	mu := (theta[1] - theta[0]) / sigma
	nb := fmt.Sprintf("datasets of m = %d trajectories differing in one (the only visit to a state; its return 0 or 1, the declared bounds)", lslM)
	return []audit.Target{
		{Mechanism: "DP-LSL (Balle et al.)", Neighbours: nb, Variant: "valid", Holds: true, Epsilon: 1, Delta: lslDelta,
			PairEpsilon: audit.GaussianPairEpsilon(mu, lslDelta), Method: audit.MethodGDP, Procedure: valid, Runs: 50_000,
			Note: fmt.Sprintf("λ = %g, safe bound: the pair's exact ε is far below the claim (α ≈ %.0f and a sensitivity bound for every pair of counts); no audit can reach the claim", lslLambda, alpha)},
		{Mechanism: "DP-LSL (Balle et al.), broken", Neighbours: nb, Variant: "broken: noise without the factor α", Epsilon: 1, Delta: lslDelta,
			PairEpsilon: audit.GaussianPairEpsilon(mu*alpha, lslDelta), Method: audit.MethodGDP, Procedure: broken, Runs: 10_000,
			Note: "an exact Gaussian pair with α times less noise: the GDP fit applies"},
	}, nil
}
