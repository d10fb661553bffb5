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

// MeanTraces averages, for each episode index, the end-of-episode traces of several runs (each runs[r] is
// one run's traces by episode).
func MeanTraces(runs [][][]float64) [][]float64 {
	if len(runs) == 0 {
		return nil
	}
	out := make([][]float64, len(runs[0]))
	for ep := range out {
		m := make([]float64, len(runs[0][ep]))
		for _, r := range runs {
			for i, v := range r[ep] {
				m[i] += v
			}
		}
		for i := range m {
			m[i] /= float64(len(runs))
		}
		out[ep] = m
	}
	return out
}

// Cosine is the cosine similarity of two vectors (0 when either is zero).
func Cosine(a, b []float64) float64 {
	na, nb := math.Sqrt(floats.Dot(a, a)), math.Sqrt(floats.Dot(b, b))
	if na == 0 || nb == 0 {
		return 0
	}
	return floats.Dot(a, b) / (na * nb)
}

// TraceSimilarity is our cosine procedure for Table 4 (the paper gives none): for each episode index,
// average the end-of-episode traces over the runs of each condition, take the cosine between the DP and the
// non-DP averages, and report the per-episode cosines with their mean and (population) variance.
func TraceSimilarity(dp, nonDP [][][]float64) (perEpisode []float64, mean, variance float64) {
	a, b := MeanTraces(dp), MeanTraces(nonDP)
	n := min(len(a), len(b))
	perEpisode = make([]float64, n)
	for ep := range n {
		perEpisode[ep] = Cosine(a[ep], b[ep])
		mean += perEpisode[ep]
	}
	mean /= float64(n)
	for _, c := range perEpisode {
		variance += (c - mean) * (c - mean)
	}
	return perEpisode, mean, variance / float64(n)
}
