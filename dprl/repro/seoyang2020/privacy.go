package seoyang2020

import (
	"math"

	"gonum.org/v1/gonum/floats"

	"github.com/dprl-project/dprl/dprl/param"
	"github.com/dprl-project/dprl/mechanisms"
)

// ComposedPublishedEpsilon is the ε at δ of the published variants' noised releases composed over a whole
// run — the most charitable reading of the paper: it treats each noised vector (the normalised actor
// gradient, the critic update, or both per step) as the only thing released, with sensitivity 2|C| under
// replace-one of that step's sample and noise σ|C| (GDP μ = 2/σ per release), and ignores the
// data-dependent |C| and the raw δ applied after the noise (either of which voids the guarantee).
// releases is the total number of noised vectors in the run.
func ComposedPublishedEpsilon(sigma float64, releases int, delta float64) (float64, error) {
	if err := param.First(check.AtLeast("releases", releases, 1), check.In("sigma", sigma, param.Positive)); err != nil {
		return 0, err
	}
	return mechanisms.GDPEpsilon(2*math.Sqrt(float64(releases))/sigma, delta)
}

// Cosine is the cosine similarity of two vectors (0 when either is zero).
func Cosine(a, b []float64) float64 {
	na, nb := math.Sqrt(floats.Dot(a, a)), math.Sqrt(floats.Dot(b, b))
	if na == 0 || nb == 0 {
		return 0
	}
	return floats.Dot(a, b) / (na * nb)
}

// EpisodeCosines is our cosine procedure for Fig. 4 and Table 4 (the paper gives none), for one seed: the
// cosine, per episode, between the end-of-episode traces of a DP run and of the non-DP run with the same
// seed, for `episodes` episodes; NaN where either run recorded no trace (after its weights overflowed).
func EpisodeCosines(dp, nonDP [][]float64, episodes int) []float64 {
	out := make([]float64, episodes)
	for ep := range out {
		out[ep] = math.NaN()
		if ep < len(dp) && ep < len(nonDP) {
			out[ep] = Cosine(dp[ep], nonDP[ep])
		}
	}
	return out
}
