package mechanisms

import (
	"math"
	"math/cmplx"
	"math/rand/v2"
	"testing"
)

// TestRealFFT compares the transform with a direct DFT and checks that inverse(forward(x)) = x.
func TestRealFFT(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{4, 8, 16, 32, 64, 1024, 2048} {
		x := make([]float64, n)
		for i := range x {
			x[i] = r.Float64() - 0.3
		}
		f := newRealFFT(n)
		X := f.forward(nil, x)
		for k := 0; k <= n/2; k++ {
			var want complex128
			for j, v := range x {
				want += complex(v, 0) * cmplx.Exp(complex(0, -2*math.Pi*float64(j*k)/float64(n)))
			}
			if cmplx.Abs(X[k]-want) > 1e-12*float64(n) {
				t.Errorf("n=%d k=%d: %v, want %v", n, k, X[k], want)
			}
		}
		y := make([]float64, n)
		f.inverse(y, X)
		for i := range x {
			if math.Abs(y[i]-x[i]) > 1e-13 {
				t.Errorf("n=%d: round trip x[%d] = %g, want %g", n, i, y[i], x[i])
				break
			}
		}
	}
}
