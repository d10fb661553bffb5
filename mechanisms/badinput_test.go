package mechanisms

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestSmoothSVTAndOUBadInput: a nil source or an unknown SmoothVariant panicked; SparseVector's errors named
// "epsilon", "sensitivity" and "threshold" where the user set Epsilon, Sensitivity and Threshold, and it
// accepted an unknown Stop rule.
func TestSmoothSVTAndOUBadInput(t *testing.T) {
	src := rand.NewPCG(1, 1)
	for name, c := range map[string]struct {
		err  func() error
		want string
	}{
		"smooth nil src": {func() error { _, err := NewSmoothGaussian(1, 1e-5, 2, SmoothLemma1, nil); return err }, "src is missing"},
		"smooth variant": {func() error { _, err := NewSmoothGaussian(1, 1e-5, 2, 7, src); return err }, "v = 7 is outside the allowed range [0, 1]"},
		"ou nil src":     {func() error { _, err := NewOUPath(1, 1, nil); return err }, "src is missing"},
		"ou paths nil":   {func() error { _, err := NewOUPaths(2, 1, 1, nil); return err }, "src is missing"},
		"ou paths beta":  {func() error { _, err := NewOUPaths(2, 1, math.NaN(), src); return err }, "beta = NaN"},
		"svt Epsilon": {func() error {
			_, err := NewSparseVector(SparseVectorParams{Epsilon: -1, Sensitivity: 1, Src: src})
			return err
		}, "Epsilon = -1"},
		"svt Sensitivity": {func() error {
			_, err := NewSparseVector(SparseVectorParams{Epsilon: 1, Sensitivity: 0, Src: src})
			return err
		}, "Sensitivity = 0"},
		"svt Threshold": {func() error {
			_, err := NewSparseVector(SparseVectorParams{Epsilon: 1, Sensitivity: 1, Threshold: math.Inf(1), Src: src})
			return err
		}, "Threshold = ∞"},
		"svt Stop": {func() error {
			_, err := NewSparseVector(SparseVectorParams{Epsilon: 1, Sensitivity: 1, Stop: 5, Src: src})
			return err
		}, "Stop = 5"},
		"svt Src": {func() error { _, err := NewSparseVector(SparseVectorParams{Epsilon: 1, Sensitivity: 1}); return err }, "Src is missing"},
		"smooth bound": {func() error {
			m, err := NewSmoothGaussian(1, 1e-5, 1, SmoothLemma1, src)
			if err != nil {
				return err
			}
			_, _, err = m.Release([]float64{0}, math.NaN())
			return err
		}, "smoothBound = NaN"},
	} {
		if err := c.err(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
}

// TestSmoothUpperBoundStopsEarly: a huge kMax used to loop kMax times (a hang); the early stop gives the
// full scan's answer.
func TestSmoothUpperBoundStopsEarly(t *testing.T) {
	A := func(k int) float64 { return math.Min(float64(k+1)*float64(k+1), 1e6) }
	full := func(beta float64, kMax int) (float64, int) {
		b, arg := 0.0, 0
		for k := 0; k <= kMax; k++ {
			if v := math.Exp(-float64(k)*beta) * A(k); v > b {
				b, arg = v, k
			}
		}
		return b, arg
	}
	for _, beta := range []float64{0, 1e-3, 0.05, 1, 30} {
		wb, wk := full(beta, 5000)
		if b, k := SmoothUpperBound(beta, 5000, A); b != wb || k != wk {
			t.Errorf("β = %g: (%g, %d), the full scan gives (%g, %d)", beta, b, k, wb, wk)
		}
	}
	calls := 0
	b, k := SmoothUpperBound(0.1, math.MaxInt, func(k int) float64 { calls++; return A(min(k, 10000)) })
	if wb, wk := full(0.1, 20000); b != wb || k != wk || calls > 10000 {
		t.Errorf("kMax = MaxInt: (%g, %d) after %d calls, want (%g, %d)", b, k, calls, wb, wk)
	}
	if b, k := SmoothUpperBound(math.NaN(), 10, A); !math.IsNaN(b) || k != -1 {
		t.Errorf("β = NaN: (%g, %d)", b, k)
	}
}
