package xie2019

import (
	"fmt"
	"math"

	"github.com/dprl-project/dprl/dprl/experiment"
	"github.com/dprl-project/dprl/dprl/repro"
)

// logRatio is log10(a_k/b_k) per trial (paired: the same trial's private sample), NaN where either is missing
// or not positive.
func logRatio(a, b []float64) []float64 {
	out := make([]float64, len(a))
	for k := range a {
		out[k] = math.NaN()
		if a[k] > 0 && b[k] > 0 {
			out[k] = math.Log10(a[k] / b[k])
		}
	}
	return out
}

// ratio is a_k/b_k per trial (NaN where either is missing).
func ratio(a, b []float64) []float64 {
	out := make([]float64, len(a))
	for k := range a {
		out[k] = a[k] / b[k]
	}
	return out
}

// ci is the mean of xs with its 95% Student-t interval.
func ci(xs []float64) (mean, lo, hi float64) { return experiment.MeanCI(xs, 0.95) }

// fmtCI formats a mean with its 95% interval, "m [lo, hi]".
func fmtCI(format string, xs []float64) string {
	m, lo, hi := ci(xs)
	return fmt.Sprintf(format+" ["+format+", "+format+"]", m, lo, hi)
}

// tested decides claim c from the per-seed values xs (test: their mean is above or below boundary, by its 95%
// interval); prefix, if set, goes before the measured "mean [lo, hi]", each formatted with format.
func tested(c repro.Claim, xs []float64, boundary float64, above bool, prefix, format string) repro.Claim {
	m, lo, hi := ci(xs)
	return testedInterval(c, m, lo, hi, len(experiment.Finite(xs)), boundary, above, prefix, format)
}

// testedInterval is tested for a mean and interval computed elsewhere. With fewer than two seeds there is no
// interval: the row says so and is inconclusive (its interval fields stay 0).
func testedInterval(c repro.Claim, mean, lo, hi float64, seeds int, boundary float64, above bool, prefix, format string) repro.Claim {
	if math.IsNaN(lo) || math.IsNaN(hi) {
		c.Measured = prefix + fmt.Sprintf(format+" (no interval: %d seed(s))", mean, seeds)
		if math.IsNaN(mean) {
			c.Measured = prefix + "no finite value"
		}
		c.Seeds, c.Verdict = seeds, repro.Inconclusive
		return c
	}
	c = repro.Tested(c, mean, lo, hi, seeds, format, boundary, above)
	c.Measured = prefix + c.Measured
	return c
}

// absInterval is the interval of |x| implied by an interval [lo, hi] of x.
func absInterval(lo, hi float64) (float64, float64) {
	switch {
	case lo >= 0:
		return lo, hi
	case hi <= 0:
		return -hi, -lo
	}
	return 0, math.Max(-lo, hi)
}
