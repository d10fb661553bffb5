package mechanisms

import (
	"errors"
	"math"
	"testing"
)

// FuzzPLDParams runs the PLD accountant over its parameter space (event kind, noise multiplier z, sampling
// rate q, runs, Discretization h, δ) with the grid capped at 2¹⁶ points so every input is bounded work. It
// asserts no panic, and either an error or an ε that is a number ≥ 0, at least the exact value where a
// closed form exists (Gaussian: μ-GDP; one Laplace run: LaplaceDelta), with the certified lower bound
// below it.
func FuzzPLDParams(f *testing.F) {
	f.Add(uint8(0), 1.0, 1.0, 10, 1e-3, 1e-5)
	f.Add(uint8(0), 0.1, 1.0, 100, 1e-3, 1e-5)
	f.Add(uint8(1), 1.0, 0.01, 1000, 1e-3, 1e-5)
	f.Add(uint8(2), 1e-5, 1.0, 1, 1e-4, 1e-5)
	f.Add(uint8(2), 2.0, 1.0, 1, 1e-2, 1e-3)
	f.Add(uint8(3), 0.8, 0.5, 50, 1e-2, 1e-6)
	f.Add(uint8(0), 1000.0, 1.0, 100000, 0.1, 0.5)
	f.Fuzz(func(t *testing.T, kind uint8, z, q float64, count int, h, delta float64) {
		a, err := NewPLDAccountant(PLDParams{Discretization: h, MaxGridPoints: 1 << 16})
		if err != nil {
			return
		}
		var e Event
		switch kind % 4 {
		case 0:
			e = GaussianEvent{NoiseMultiplier: z}
		case 1:
			e = PoissonSampled{Q: q, Event: GaussianEvent{NoiseMultiplier: z}}
		case 2:
			e = LaplaceEvent{NoiseMultiplier: z}
		default:
			e = Mixed{P: q, Event: GaussianEvent{NoiseMultiplier: z}}
		}
		if err := a.Compose(e, count); err != nil {
			return
		}
		eps, lower, err := a.EpsilonBounds(delta)
		if err != nil {
			if !errors.As(err, new(*ParamError)) {
				t.Fatalf("%v × %d, h=%g, δ=%g: %v", e, count, h, delta, err)
			}
			return
		}
		if math.IsNaN(eps) || eps < 0 || !(lower <= eps) {
			t.Fatalf("%v × %d, h=%g, δ=%g: ε = %g, lower %g", e, count, h, delta, eps, lower)
		}
		exact := math.NaN()
		switch {
		case kind%4 == 0:
			exact, _ = GDPEpsilon(math.Sqrt(float64(count))/z, delta)
		case kind%4 == 2 && count == 1:
			if LaplaceDelta(z, 1, 0) <= delta {
				exact = 0
			} else {
				exact = bisect(func(x float64) float64 { return LaplaceDelta(z, 1, x) - delta }, 0, 1/z, 1e-13)
			}
		}
		if !math.IsNaN(exact) && count > 0 && !notBelow(eps, exact) {
			t.Fatalf("%v × %d, h=%g, δ=%g: ε = %.12g below the exact %.12g", e, count, h, delta, eps, exact)
		}
		if !math.IsNaN(exact) && count > 0 && lower > exact+refSlack*math.Max(1, exact) {
			t.Fatalf("%v × %d, h=%g, δ=%g: certified lower bound %.12g above the exact %.12g", e, count, h, delta, lower, exact)
		}
	})
}
