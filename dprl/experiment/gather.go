package experiment

import (
	"math"
	"slices"
)

// Gather arranges results as [trial][i] over the abscissae xs, the layout figure.Series and figure.MeanStd
// take: each row r lands at trial(r) and the index of x(r) in xs, with value y(r) when keep(r) holds; cells
// that no row fills are NaN (MeanStd skips them). Rows whose x is not in xs, or whose trial is negative, are
// ignored.
func Gather[R any](rows []R, xs []float64, trial func(R) int, x func(R) float64, y func(R) (v float64, keep bool)) [][]float64 {
	trials := 0
	for _, r := range rows {
		if t := trial(r); t >= 0 {
			trials = max(trials, t+1)
		}
	}
	out := make([][]float64, trials)
	for t := range out {
		out[t] = make([]float64, len(xs))
		for i := range out[t] {
			out[t][i] = math.NaN()
		}
	}
	for _, r := range rows {
		if t := trial(r); t < 0 {
			continue
		}
		if v, ok := y(r); ok {
			if i := slices.Index(xs, x(r)); i >= 0 {
				out[trial(r)][i] = v
			}
		}
	}
	return out
}
