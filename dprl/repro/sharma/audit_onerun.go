package sharma

import (
	"fmt"
	"math/rand/v2"

	"github.com/dprl-project/dprl/dprl/audit"
	"github.com/dprl-project/dprl/dprl/expertdp"
	"github.com/dprl-project/dprl/dprl/param"
	"github.com/dprl-project/dprl/mechanisms"
)

// SelectiveOneRunTargets audit Selective DP-SGD's accounting in one run (Steinke, Nasr & Jagielski) with
// canaries experts: every one of the m experts is a canary whose (unstable) data contributes a Dirac gradient
// C·e_i, in a model of m coordinates, and is present (S_i = +1) or absent (S_i = −1) independently, so
// flipping S_i adds or removes one expert. The step rule is expertdp.Train's: each of T steps is, with
// probability P, an expert-level DP-SGD step (experts Poisson-sampled at rate b/m = 1, each present expert's
// clipped gradient summed by the library's aggregator, mechanisms.DPSGD, with noise N(0, s²C²)), and otherwise
// a plain step on stable data no canary enters. s is expertdp.TrainConfig.CalibrateNoise's for (eps, 10⁻⁵)
// over T steps under each accounting. White box, as both accountings assume: the adversary sees every
// iterate, so it knows which steps were private (a plain step has no noise), and scores canary i by the sum of
// coordinate i of the released sums over the private steps.
//
//   - mixture accounting (AccountingMixed, exact for released iterates): valid.
//   - the paper's accounting (q = P·b/m, as if every step were a subsampled Gaussian at the reduced rate):
//     its noise is too small for the claim (the exact mixture ε of the paper's s is about 5.7 at a claim of 1),
//     and the one-run audit, which needs no assumption beyond the neighbouring relation, exposes it.
func SelectiveOneRunTargets(m int, eps float64) ([]audit.Target, error) {
	const T, P, delta = 400, 0.05, 1e-5
	if err := param.First(check.Int("m", m, 10, 1<<14), check.In("eps", eps, param.Positive)); err != nil {
		return nil, err
	}
	var ts []audit.Target
	for _, acc := range []expertdp.Accounting{expertdp.AccountingMixed, expertdp.AccountingPaper} {
		cfg := expertdp.TrainConfig{P: P, Batch: m, Epsilon: eps, Delta: delta, Accounting: acc, MaxSteps: T}
		s, err := cfg.CalibrateNoise(m, T)
		if err != nil {
			return nil, err
		}
		proc := &audit.OneRunProcedure{Name: "Selective DP-SGD one run " + acc.String(), Canaries: m,
			Run: func(include []bool, src rand.Source) ([]float64, error) {
				rng := rand.New(src)
				agg, err := mechanisms.NewDPSGD(mechanisms.DPSGDParams{Clip: 1, NoiseMultiplier: s, Src: src})
				if err != nil {
					return nil, err
				}
				var grads [][]float64
				for i, in := range include {
					if in {
						g := make([]float64, m)
						g[i] = 1 // the canary's gradient C·e_i
						grads = append(grads, g)
					}
				}
				score := make([]float64, m)
				sum := make([]float64, m)
				for range T {
					if rng.Float64() >= P {
						continue // a plain step on D_stable: no canary's data, no noise
					}
					if _, _, err := agg.Aggregate(sum, grads); err != nil {
						return nil, err
					}
					for i, v := range sum {
						score[i] += v
					}
				}
				return score, nil
			}}
		t := audit.Target{Mechanism: fmt.Sprintf("Selective DP-SGD (Sharma et al.), one run, %d canary experts, %s", m, acc.String()),
			Neighbours: fmt.Sprintf("add/remove each of %d canary experts (Dirac gradient, norm C)", m),
			Epsilon:    eps, Delta: delta, Method: audit.MethodOneRun, OneRun: proc}
		if acc == expertdp.AccountingMixed {
			t.Variant, t.Holds, t.PairEpsilon = "corrected", true, 0
			t.Note = fmt.Sprintf("P = %g, T = %d, s = %.3g: one run is far from tight at this ε, but sound", P, T, s)
		} else {
			t.Variant = "published: q = p·b/m"
			t.Note = fmt.Sprintf("s = %.3g: the iterates show which steps were private, so the reduced rate is no amplification", s)
		}
		ts = append(ts, t)
	}
	return ts, nil
}
