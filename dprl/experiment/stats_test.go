package experiment

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestMeanCI: the textbook case (n = 10, t₀.₉₇₅,₉ = 2.262) and coverage near 95% over many samples.
func TestMeanCI(t *testing.T) {
	xs := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	m, lo, hi := MeanCI(xs, 0.95)
	// sd = 3.02765, se = 0.957427, half width = 2.262157·se = 2.16587
	if m != 5.5 || math.Abs(lo-3.33413) > 1e-4 || math.Abs(hi-7.66587) > 1e-4 {
		t.Errorf("mean %g [%g, %g], want 5.5 [3.33413, 7.66587]", m, lo, hi)
	}
	if _, lo, hi := MeanCI([]float64{1}, 0.95); !math.IsNaN(lo) || !math.IsNaN(hi) {
		t.Error("one value gave an interval")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	covered := 0
	const reps = 4000
	for range reps {
		x := make([]float64, 10)
		for i := range x {
			x[i] = 3 + 2*rng.NormFloat64()
		}
		if _, lo, hi := MeanCI(x, 0.95); lo < 3 && 3 < hi {
			covered++
		}
	}
	if c := float64(covered) / reps; c < 0.94 || c > 0.96 {
		t.Errorf("coverage %.3f, want 0.95 ± 0.01", c)
	}
}

// TestDiffCI: Welch's interval covers the true difference about 95% of the time with unequal variances and
// sizes, and a NaN is skipped.
func TestDiffCI(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	covered := 0
	const reps = 4000
	for range reps {
		a, b := make([]float64, 10), make([]float64, 15)
		for i := range a {
			a[i] = 1 + rng.NormFloat64()
		}
		for i := range b {
			b[i] = 3 * rng.NormFloat64()
		}
		if _, lo, hi := DiffCI(a, b, 0.95); lo < 1 && 1 < hi {
			covered++
		}
	}
	if c := float64(covered) / reps; c < 0.935 || c > 0.965 {
		t.Errorf("coverage %.3f, want 0.95", c)
	}
	d, _, _ := DiffCI([]float64{1, 2, math.NaN()}, []float64{0, 0}, 0.95)
	if d != 1.5 {
		t.Errorf("difference %g with a NaN, want 1.5", d)
	}
}
