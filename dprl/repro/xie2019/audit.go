package xie2019

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/dprl-project/dprl/dprl/audit"
	"github.com/dprl-project/dprl/dprl/policyeval"
	"github.com/dprl-project/dprl/mechanisms"
)

// gpopeCanary is a one-transition feature trajectory (d = 1, φ = 1, terminal next state, ρ = 1) with reward
// r: at x = 0 its stacked gradient is [0; −r], so |r| ≫ C saturates the clip and ±r make the two clipped
// gradients opposite, ‖g − g′‖ = 2C (the replace-one sensitivity the paper's calibration assumes).
func gpopeCanary(r float64) policyeval.FeatureTrajectory {
	return policyeval.FeatureTrajectory{Phi: [][]float64{{1}, {0}}, Rho: []float64{1}, R: []float64{r}}
}

// gpopeCase runs GPOPE (Xie et al. Algorithm 1, step 0.1, clip C = 1) on n trajectories for T steps with σ
// calibrated as the figures are (Calibration: one of n per step, replace-one, Δ = 2C, WBK Theorem 27) for
// (eps, 1e−5). Trajectory 0 is the canary with reward +10 (input 0) or −10 (input 1); the other n − 1 have
// φ = 0 and contribute no gradient, so every move of the iterate is noise or the canary.
//
// The adversary sees every iterate (the accounting covers them all) and knows the mechanism, so it can
// recover each step's noisy gradient y_t = −(x_{t+1} − x_t)/α and the canary's clipped gradient g_t^b at x_t
// under either input. The statistic is the transcript's log-likelihood ratio of input 1 to input 0,
// Σ_t log[(1 − q) + q·exp((⟨y_t, g_t^1⟩ − ‖g_t^1‖²/2)/σ²)] minus the same for input 0, with q = 1/n: the
// Neyman–Pearson test when steps are independent given the past. The broken variant skips clipping (and the
// adversary knows it).
func gpopeCase(name string, n, T int, eps float64) audit.Case {
	const delta, clip, reward, step, gamma = 1e-5, 1.0, 10.0, 0.1, 0.9
	sigma, err := policyeval.GPOPESigma(Calibration, n, T, eps, delta, clip, nil)
	if err != nil {
		panic(fmt.Sprintf("audit: GPOPE σ for n = %d, T = %d, ε = %g: %v", n, T, eps, err))
	}
	canary := [2]policyeval.FeatureTrajectory{gpopeCanary(reward), gpopeCanary(-reward)}
	data := [2][]policyeval.FeatureTrajectory{}
	for nb := range 2 {
		data[nb] = make([]policyeval.FeatureTrajectory, n)
		data[nb][0] = canary[nb]
		for i := 1; i < n; i++ {
			data[nb][i] = policyeval.FeatureTrajectory{Phi: [][]float64{{0}, {0}}, Rho: []float64{1}, R: []float64{0}}
		}
	}
	q := 1 / float64(n)
	// logMix is log[(1 − q) + q·e^a].
	logMix := func(a float64) float64 {
		if q == 1 {
			return a
		}
		m := math.Max(math.Log1p(-q), math.Log(q)+a)
		return m + math.Log(math.Exp(math.Log1p(-q)-m)+math.Exp(math.Log(q)+a-m))
	}
	run := func(c float64) audit.Procedure {
		return audit.Procedure{Name: name, Run: func(nb int, src rand.Source) (float64, error) {
			x := []float64{0, 0} // [θ; w] before the step
			g := make([]float64, 2)
			llr := 0.0
			_, err := policyeval.GPOPE(data[nb], policyeval.GPOPEConfig{Gamma: gamma, Iterations: T, Step: policyeval.Constant(step),
				Clip: c, Sigma: sigma, Src: src, Iterate: func(_ int, theta, w []float64) {
					y := []float64{(x[0] - theta[0]) / step, (x[1] - w[0]) / step}
					for b, sign := range []float64{-1, 1} {
						policyeval.Gradient(g, canary[b], gamma, x[:1], x[1:])
						mechanisms.ClipToNorm(g, c)
						a := (y[0]*g[0] + y[1]*g[1] - (g[0]*g[0]+g[1]*g[1])/2) / (sigma * sigma)
						llr += sign * logMix(a)
					}
					x[0], x[1] = theta[0], w[0]
				}})
			return llr, err
		}}
	}
	c := audit.Case{Name: name, Valid: run(clip), Broken: run(1e300), Epsilon: eps, Delta: delta,
		Neighbours: fmt.Sprintf("n = %d trajectories, one replaced (clipped gradients ±C)", n), Break: "clipping skipped"}
	if n == 1 && T == 1 {
		c.PairEpsilon = audit.GaussianPairEpsilon(2*clip/sigma, delta) // one Gaussian release, means 2C apart
	}
	return c
}

// GPOPEStepCase audits one GPOPE step on a single trajectory (n = T = 1, no sampling): the released noisy
// stacked gradient, ε = 2.
func GPOPEStepCase() audit.Case { return gpopeCase("GPOPE, one step", 1, 1, 2) }

// GPOPERunCase audits a full GPOPE run, every iterate: n = 20 trajectories, T = 50 steps, ε = 2.
func GPOPERunCase() audit.Case { return gpopeCase("GPOPE, full run", 20, 50, 2) }
