package sharma

import (
	"math/rand/v2"

	"github.com/dprl-project/dprl/dprl/audit"
	"github.com/dprl-project/dprl/dprl/expertdp"
)

// DataReleaseTargets are DataRelease's rows of the tight audit table: one SVT round (DataReleaseCase), whose
// privacy loss is that of AboveThreshold, so only the assumption-free threshold test (pure DP, δ = 0) is
// valid; and its broken variant (Laplace noise × 0.1).
func DataReleaseTargets() []audit.Target {
	c := DataReleaseCase()
	return []audit.Target{
		{Mechanism: "DataRelease (one SVT round)", Neighbours: c.Neighbours, Variant: "valid", Holds: true, Epsilon: c.Epsilon, Delta: c.Delta,
			Method: audit.MethodThreshold, Procedure: c.Valid, Runs: 20_000,
			Note: "the adversary sees where the stable prefix stops: the SVT analysis's worst case is not reached by prefix counts"},
		{Mechanism: "DataRelease (one SVT round), broken", Neighbours: c.Neighbours, Variant: "broken: " + c.Break, Epsilon: c.Epsilon, Delta: c.Delta,
			Method: audit.MethodThreshold, Procedure: c.Broken, Runs: 5_000},
	}
}

// SelectiveDPSGDTargets audit Selective DP-SGD's accounting (expertdp.TrainConfig, the library's calibration)
// on the step rule expertdp.Train runs: each of T = 100 steps is, with probability P = 0.05, an expert-level
// DP-SGD step (experts Poisson-sampled at rate b/m = 1, one clipped gradient per sampled expert, noise
// N(0, s²C²) on the sum), and otherwise a plain step on stable data that no expert's unstable data enters.
// Neighbours add or remove one expert whose gradient is a Dirac canary of norm C (the add/remove worst
// case). The adversary sees every iterate (the threat model of both accountings): it knows which steps were
// private (a plain step has no noise) and sums the canary coordinate's log-likelihood ratio over them. The
// step rule is replayed here on the canary coordinate (the other coordinates carry no information about the
// canary), not through Train, whose iterates are internal.
//
//   - published accounting (q = P·b/m, as if each step were a Poisson-subsampled Gaussian at the reduced
//     rate): the mixture's exact ε at that noise is about 6 for a claim of 1; the audit exposes it.
//   - mixture accounting (AccountingMixed, exact for released iterates): the audit stays below the claim.
//
// The privacy loss is a mixture over the number of private steps, not Gaussian: threshold test only.
func SelectiveDPSGDTargets() ([]audit.Target, error) {
	const m, T, P, delta, eps = 100, 100, 0.05, 1e-5, 1.0
	var ts []audit.Target
	for _, acc := range []expertdp.Accounting{expertdp.AccountingMixed, expertdp.AccountingPaper} {
		cfg := expertdp.TrainConfig{P: P, Batch: m, Epsilon: eps, Delta: delta, Accounting: acc, MaxSteps: T}
		s, err := cfg.CalibrateNoise(m, T)
		if err != nil {
			return nil, err
		}
		proc := audit.Procedure{Name: "Selective DP-SGD " + acc.String(), Run: func(nb int, src rand.Source) (float64, error) {
			rng := rand.New(src)
			llr := 0.0
			for range T {
				if rng.Float64() >= P {
					continue // a plain step on D_stable: the canary's data is not in it
				}
				// the canary coordinate of the noised sum, in units of C: the canary's 1 (if present) + noise
				y := float64(nb) + s*rng.NormFloat64()
				llr += (y - 0.5) / (s * s)
			}
			return llr, nil
		}}
		t := audit.Target{Mechanism: "Selective DP-SGD (Sharma et al.), " + acc.String(), Neighbours: "add/remove one expert (Dirac gradient canary, norm C)",
			Epsilon: eps, Delta: delta, Method: audit.MethodThreshold, Procedure: proc, Runs: 50_000}
		if acc == expertdp.AccountingMixed {
			t.Variant, t.Holds, t.Note = "corrected", true, "exact mixture accounting: holds"
		} else {
			t.Variant = "published: q = p·b/m"
			t.Note = "treats the choice of private steps as amplification although the iterates reveal it"
		}
		ts = append(ts, t)
	}
	return ts, nil
}
