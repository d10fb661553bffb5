package experiment

import (
	"math"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// MeanCI is the mean of xs with its two-sided Student-t confidence interval at level conf (0.95 for a 95%
// interval), treating xs as independent draws (one per seed). NaN entries are skipped; with fewer than two
// finite values the interval is (NaN, NaN).
func MeanCI(xs []float64, conf float64) (mean, lo, hi float64) {
	v := Finite(xs)
	if len(v) == 0 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	mean = stat.Mean(v, nil)
	if len(v) < 2 || !(conf > 0 && conf < 1) {
		return mean, math.NaN(), math.NaN()
	}
	se := stat.StdDev(v, nil) / math.Sqrt(float64(len(v)))
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(len(v) - 1)}.Quantile(1 - (1-conf)/2)
	return mean, mean - t*se, mean + t*se
}

// DiffCI is the difference of means mean(a) − mean(b) of two independent samples with Welch's
// confidence interval at level conf (unequal variances, Welch–Satterthwaite degrees of freedom). NaN entries
// are skipped; with fewer than two finite values in either sample the interval is (NaN, NaN).
func DiffCI(a, b []float64, conf float64) (diff, lo, hi float64) {
	va, vb := Finite(a), Finite(b)
	if len(va) == 0 || len(vb) == 0 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	diff = stat.Mean(va, nil) - stat.Mean(vb, nil)
	if len(va) < 2 || len(vb) < 2 || !(conf > 0 && conf < 1) {
		return diff, math.NaN(), math.NaN()
	}
	sa, sb := stat.Variance(va, nil)/float64(len(va)), stat.Variance(vb, nil)/float64(len(vb))
	se := math.Sqrt(sa + sb)
	if se == 0 {
		return diff, diff, diff
	}
	nu := (sa + sb) * (sa + sb) / (sa*sa/float64(len(va)-1) + sb*sb/float64(len(vb)-1))
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: nu}.Quantile(1 - (1-conf)/2)
	return diff, diff - t*se, diff + t*se
}

// Finite is the finite entries of xs, in order: the samples MeanCI and DiffCI rest on (len(Finite(xs)) is
// the number of seeds an interval of theirs counts).
func Finite(xs []float64) []float64 {
	out := make([]float64, 0, len(xs))
	for _, x := range xs {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			out = append(out, x)
		}
	}
	return out
}
