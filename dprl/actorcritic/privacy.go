package actorcritic

import (
	"math"

	"github.com/dprl-project/dprl/dprl/param"
	"github.com/dprl-project/dprl/mechanisms"
)

// CorrectedEpsilon is the whole-run guarantee of the corrected variant under replace-one-episode
// neighbours: each step releases a noisy increment with sensitivity 2C and noise σC (μ = 2/σ), and only the
// at most maxEpisodeLen steps of the differing episode see different data, so the run is (2√H/σ)-GDP;
// the result is its exact ε at δ.
func CorrectedEpsilon(noiseMultiplier float64, maxEpisodeLen int, delta float64) (float64, error) {
	if err := param.First(check.AtLeast("maxEpisodeLen", maxEpisodeLen, 1), check.In("noiseMultiplier", noiseMultiplier, param.Positive)); err != nil {
		return 0, err
	}
	return mechanisms.GDPEpsilon(2*math.Sqrt(float64(maxEpisodeLen))/noiseMultiplier, delta)
}

// CorrectedNoise is the noise multiplier σ that makes the corrected variant (ε, δ)-DP for episodes of at
// most maxEpisodeLen steps: σ = 2√H·σ₁ with σ₁ the analytic Gaussian noise for sensitivity 1.
func CorrectedNoise(eps, delta float64, maxEpisodeLen int) (float64, error) {
	if err := check.AtLeast("maxEpisodeLen", maxEpisodeLen, 1); err != nil {
		return 0, err
	}
	s1, err := mechanisms.AnalyticGaussianSigma(eps, delta, 1)
	if err != nil {
		return 0, err
	}
	return 2 * math.Sqrt(float64(maxEpisodeLen)) * s1, nil
}
