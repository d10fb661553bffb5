package xie2019

import (
	"fmt"
	"math/rand/v2"

	"github.com/dprl-project/dprl/dprl/audit"
	"github.com/dprl-project/dprl/dprl/policyeval"
)

// GPOPETargets are the rows of the tight audit table for Xie et al.'s GPOPE (calibrated as the figures are:
// one of n trajectories per step, replace-one, Δ = 2C, WBK Theorem 27), all with the worst-case canary of gpopeCanary (clipped
// gradients ±C, difference 2C):
//
//   - one step on one trajectory (n = T = 1): exactly a Gaussian mechanism, audited with the GDP fit;
//   - a full run (n = 20, T = 50, ε = 2) white box, every iterate, with the transcript's likelihood ratio
//     (GPOPERunCase): the sampling makes the privacy loss a mixture, not Gaussian, so only the
//     assumption-free threshold test is valid;
//   - the same run black box: the adversary sees only the last iterate θ_T (the estimator as released);
//   - one run with many canaries (GPOPEOneRunTargets).
//
// Each has a broken variant that skips clipping.
func GPOPETargets() []audit.Target {
	step, run := GPOPEStepCase(), GPOPERunCase()
	last := gpopeLastIterateCase(20, 50, 2)
	t := func(c audit.Case, name string, m audit.Method, runs int, note string) []audit.Target {
		return []audit.Target{
			{Mechanism: name, Neighbours: c.Neighbours, Variant: "valid", Holds: true, Epsilon: c.Epsilon, Delta: c.Delta,
				PairEpsilon: c.PairEpsilon, Method: m, Procedure: c.Valid, Runs: runs, Note: note},
			{Mechanism: name + ", broken", Neighbours: c.Neighbours, Variant: "broken: " + c.Break, Epsilon: c.Epsilon, Delta: c.Delta,
				Method: audit.MethodThreshold, Procedure: c.Broken, Runs: 10_000},
		}
	}
	var out []audit.Target
	out = append(out, t(step, "GPOPE, one step (white box)", audit.MethodGDP, 100_000, "a single Gaussian release: the GDP fit applies")...)
	out = append(out, t(run, "GPOPE, 50 steps (white box, every iterate)", audit.MethodThreshold, 20_000,
		"sampled 1 of 20 per step: the loss is a mixture, so only the assumption-free test is valid; the accountant's bound (WOR, Thm 27) is loose")...)
	out = append(out, t(last, "GPOPE, 50 steps (black box, last iterate)", audit.MethodThreshold, 20_000,
		"only θ_T is seen: the audit is weaker than white box, as the accounting of every iterate allows; the canary's reward (±1000) saturates the clip, so only the broken variant feels its size")...)
	return out
}

// gpopeLastIterateCase is gpopeCase's run seen black box: the statistic is the released estimate θ_T. Its
// canary has reward ±lastIterateReward (the clip saturates either way, so the valid variant is the same as
// with ±10; without clipping every draw of the canary throws θ a thousand clip-widths).
func gpopeLastIterateCase(n, T int, eps float64) audit.Case {
	c := gpopeCase("GPOPE last iterate", n, T, eps)
	const delta, clip, step, gamma = 1e-5, 1.0, 0.1, 0.9
	sigma, _ := policyeval.GPOPESigma(Calibration, n, T, eps, delta, clip, nil)
	data := [2][]policyeval.FeatureTrajectory{}
	for nb := range 2 {
		data[nb] = make([]policyeval.FeatureTrajectory, n)
		data[nb][0] = gpopeCanary(lastIterateReward * float64(1-2*nb))
		for i := 1; i < n; i++ {
			data[nb][i] = policyeval.FeatureTrajectory{Phi: [][]float64{{0}, {0}}, Rho: []float64{1}, R: []float64{0}}
		}
	}
	run := func(cl float64) audit.Procedure {
		return audit.Procedure{Name: "GPOPE last iterate", Run: func(nb int, src rand.Source) (float64, error) {
			theta, err := policyeval.GPOPE(data[nb], policyeval.GPOPEConfig{Gamma: gamma, Iterations: T, Step: policyeval.Constant(step),
				Clip: cl, Sigma: sigma, Src: src})
			if err != nil {
				return 0, err
			}
			return theta[0], nil
		}}
	}
	c.Valid, c.Broken = run(clip), run(1e300)
	return c
}

// GPOPEOneRunTargets audit GPOPE in one run: m = 200 canary trajectories with Dirac features φ = e_i
// (d = m, terminal next state, ρ = 1) and reward +1000 (S_i = +1) or −1000 (S_i = −1, oneRunReward), so flipping S_i replaces
// one trajectory; T = 2000 steps (each canary drawn about 10 times), noise calibrated as the figures are (Calibration) for
// (eps, 10⁻⁵). A drawn canary's clipped gradient is about ∓C on its own dual coordinate w_i, which then pulls θ_i, so the score of
// canary i is θ_i + w_i at the end (the last iterate, which the accounting covers).
// Broken variant: clipping skipped.
func GPOPEOneRunTargets(eps float64) []audit.Target {
	const m, T, delta, clip, step, gamma, reward = 200, 2000, 1e-5, 1.0, 0.05, 0.0, oneRunReward
	sigma, err := policyeval.GPOPESigma(Calibration, m, T, eps, delta, clip, nil)
	if err != nil {
		panic(fmt.Sprintf("xie2019: GPOPE σ for the one-run audit: %v", err))
	}
	run := func(cl float64) *audit.OneRunProcedure {
		return &audit.OneRunProcedure{Name: "GPOPE one run", Canaries: m, Run: func(include []bool, src rand.Source) ([]float64, error) {
			data := make([]policyeval.FeatureTrajectory, m)
			for i, in := range include {
				phi := make([]float64, m)
				phi[i] = 1
				r := -reward
				if in {
					r = reward
				}
				data[i] = policyeval.FeatureTrajectory{Phi: [][]float64{phi, make([]float64, m)}, Rho: []float64{1}, R: []float64{r}}
			}
			score := make([]float64, m)
			_, err := policyeval.GPOPE(data, policyeval.GPOPEConfig{Gamma: gamma, Iterations: T, Step: policyeval.Constant(step),
				Clip: cl, Sigma: sigma, Src: src, Iterate: func(t int, theta, w []float64) {
					if t == T-1 {
						// reward +1000 makes the dual gradient θ_i − r + w_i negative: w_i grows, and θ_i follows
						// (its gradient is −w_i)
						for i := range score {
							score[i] = theta[i] + w[i]
						}
					}
				}})
			return score, err
		}}
	}
	nb := fmt.Sprintf("replace one of %d Dirac canary trajectories (reward ±%g)", m, reward)
	return []audit.Target{
		{Mechanism: fmt.Sprintf("GPOPE, one run, %d canaries", m), Neighbours: nb, Variant: "valid", Holds: true, Epsilon: eps, Delta: delta,
			Method: audit.MethodOneRun, OneRun: run(clip), Note: "one run with ~10 draws per canary: weak at this ε; unclipped, each draw of a ±1000 canary gives it away"},
		{Mechanism: fmt.Sprintf("GPOPE, one run, %d canaries, broken", m), Neighbours: nb, Variant: "broken: clipping skipped",
			Epsilon: eps, Delta: delta, Method: audit.MethodOneRun, OneRun: run(1e300)},
	}
}

// The canaries' rewards. A clipped canary's gradient is ±C whatever its reward (the reward only has to
// saturate the clip), so the valid variants do not change with it; without clipping the gradient grows with
// the reward. At ±10 (ten times the clip) the broken last-iterate and one-run variants were not caught: the
// canary moves θ only in the few steps that draw it, and the noise's random walk swamps ten clip-widths. At
// ±1000 each draw moves the iterate a thousand clip-widths along a direction no other trajectory moves, and
// both are caught.
const (
	lastIterateReward = 1000.0
	oneRunReward      = 1000.0
)
