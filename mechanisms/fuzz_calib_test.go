package mechanisms

import (
	"errors"
	"testing"
)

// FuzzCalibrationInverses runs the calibration inverses over their parameter spaces: AnalyticGaussianSigma,
// GDPEpsilon, OptimalCompositionEpsilon, KOVGaussianSigma, AdvancedCompositionEps0 and DiscreteGaussianSigma.
// Each input must give either a *ParamError or a certified answer: a σ positive and finite, or an ε ≥ 0,
// on the safe side of the package's own forward function (GDPDelta, OptimalCompositionDelta,
// AdvancedComposition, DiscreteGaussianEpsilon) and, where the work is bounded, of the exact high-precision
// reference (bigref_test.go).
func FuzzCalibrationInverses(f *testing.F) {
	f.Add(uint8(0), 1.0, 1e-5, 1.0, uint32(1))
	f.Add(uint8(0), 100.0, 1e-15, 1e-3, uint32(1))
	f.Add(uint8(1), 0.01, 1e-12, 0.0, uint32(1))
	f.Add(uint8(2), 0.1, 1e-6, 0.0, uint32(1000))
	f.Add(uint8(3), 0.9, 1e-4, 0.47, uint32(100))
	f.Add(uint8(3), 20.0, 1e-5, 1.0, uint32(1))
	f.Add(uint8(4), 0.9, 0.9, 0.0, uint32(10))
	f.Add(uint8(5), 0.5, 1e-6, 1.0, uint32(3))
	f.Fuzz(func(t *testing.T, kind uint8, a, b, c float64, k uint32) {
		checkErr := func(err error) {
			t.Helper()
			var pe *ParamError
			if !errors.As(err, &pe) {
				t.Fatalf("kind %d (%g, %g, %g, %d): error %v is not a *ParamError", kind%6, a, b, c, k, err)
			}
		}
		switch kind % 6 {
		case 0: // AnalyticGaussianSigma(ε = a, δ = b, Δ = c)
			sigma, err := AnalyticGaussianSigma(a, b, c)
			if err != nil {
				checkErr(err)
				return
			}
			if !isPositiveFinite(sigma) || GDPDelta(c/sigma, a) > b {
				t.Fatalf("AnalyticGaussianSigma(%g, %g, %g) = %g: δ there %g", a, b, c, sigma, GDPDelta(c/sigma, a))
			}
			if a <= 1e6 { // the reference's e^ε stays within big.Float's exponent range
				if at := refDeltaAt(1, c, sigma, a); at > b {
					t.Fatalf("AnalyticGaussianSigma(%g, %g, %g) = %g: exact δ there %g", a, b, c, sigma, at)
				}
			}
		case 1: // GDPEpsilon(μ = a, δ = b)
			eps, err := GDPEpsilon(a, b)
			if err != nil {
				checkErr(err)
				return
			}
			if !(eps >= 0) || GDPDelta(a, eps) > b {
				t.Fatalf("GDPEpsilon(%g, %g) = %g", a, b, eps)
			}
			if eps <= 1e6 { // the reference's e^ε stays within big.Float's exponent range
				if at := refDeltaAt(1, a, 1, eps); at > b {
					t.Fatalf("GDPEpsilon(%g, %g) = %g: exact δ there %g", a, b, eps, at)
				}
			}
		case 2: // OptimalCompositionEpsilon(ε0 = a, δ0 = 0, k, δ = b)
			n := int(k%100000) + 1
			eps, err := OptimalCompositionEpsilon(a, 0, n, b)
			if err != nil {
				checkErr(err)
				return
			}
			if d, _ := OptimalCompositionDelta(a, 0, n, eps); !(eps >= 0) || d > b {
				t.Fatalf("OptimalCompositionEpsilon(%g, 0, %d, %g) = %g: δ there %g", a, n, b, eps, d)
			}
			if n <= 2000 && a <= 50 {
				if at, _ := refRRDelta(a, n, eps).Float64(); at > b {
					t.Fatalf("OptimalCompositionEpsilon(%g, 0, %d, %g) = %g: exact δ there %g", a, n, b, eps, at)
				}
			}
		case 3: // KOVGaussianSigma(k, Δ = c, ε = a, δ = b)
			n := int(k%1_000_000_000) + 1
			sigma, err := KOVGaussianSigma(n, c, a, b)
			if err != nil {
				checkErr(err)
				return
			}
			if !isPositiveFinite(sigma) {
				t.Fatalf("KOVGaussianSigma(%d, %g, %g, %g) = %g", n, c, a, b, sigma)
			}
			if a <= 1e6 {
				if at := refDeltaAt(n, c, sigma, a); at > b {
					t.Fatalf("KOVGaussianSigma(%d, %g, %g, %g) = %g: exact δ there %g", n, c, a, b, sigma, at)
				}
			}
		case 4: // AdvancedCompositionEps0(ε = a, k, δ̃ = b)
			n := int(k%1_000_000_000) + 1
			e0, err := AdvancedCompositionEps0(a, n, b)
			if err != nil {
				checkErr(err)
				return
			}
			if e, _, err := AdvancedComposition(e0, 0, n, b); err != nil || e > a {
				t.Fatalf("AdvancedCompositionEps0(%g, %d, %g) = %g composes to %g (%v)", a, n, b, e0, e, err)
			}
		case 5: // DiscreteGaussianSigma(ε = a, δ = b, Δ = c, dim)
			dim := int(k%1000) + 1
			sigma, g, err := DiscreteGaussianSigma(a, b, c, dim)
			if err != nil {
				checkErr(err)
				return
			}
			if e, err := DiscreteGaussianEpsilon(sigma, c, g, dim, b); err != nil || e > a || !isPositiveFinite(sigma) {
				t.Fatalf("DiscreteGaussianSigma(%g, %g, %g, %d) = %g, %g: ε %g (%v)", a, b, c, dim, sigma, g, e, err)
			}
		}
	})
}
