package mechanisms

import (
	"errors"
	"math"
	"testing"
)

// FuzzRDPParams drives the RDP functions, an accountant and both conversions over arbitrary (q, z, order,
// steps, delta): no panic, and every answer is an error naming a parameter or a value that is not NaN and
// not negative, with each RDP value at most the unsampled Gaussian's α/(2z²). Bounded time is part of the
// contract: the work per order is capped (maxSeriesOrder, maxSeriesTerms), so a slow input shows up as a
// fuzzer timeout.
func FuzzRDPParams(f *testing.F) {
	for _, s := range []struct {
		q, z, order float64
		steps       int
		delta       float64
	}{
		{0.01, 1.1, 2.5, 10000, 1e-5},
		{0.01, 4, 1029.5, 100, 1e-5},
		{0.3, 0.5, 1e9, 1, 1e-9},
		{1, 1, 1.0000001, 5, 0.5},
		{1e-9, 1e3, 1e12, math.MaxInt, 1e-300},
		{math.NaN(), 1, 2, 1, 1e-5},
		{0.5, math.Inf(1), 3, -1, 0},
		{0.999, 1e-3, 256, 7, 1},
	} {
		f.Add(s.q, s.z, s.order, s.steps, s.delta)
	}
	f.Fuzz(func(t *testing.T, q, z, order float64, steps int, delta float64) {
		valid := func(name string, v float64, err error) {
			if err != nil {
				var pe *ParamError
				if !errors.As(err, &pe) || pe.Param == "" {
					t.Fatalf("%s: error without a parameter: %v", name, err)
				}
				return
			}
			if math.IsNaN(v) || v < 0 {
				t.Fatalf("%s(q=%g, z=%g, α=%g, steps=%d, δ=%g) = %g", name, q, z, order, steps, delta, v)
			}
		}
		up := RDPGaussian(z, order)
		r, err := RDPPoissonGaussian(q, z, order)
		valid("RDPPoissonGaussian", r, err)
		if err == nil && r > up*(1+1e-9) {
			t.Fatalf("Poisson RDP %g above α/(2z²) = %g (q=%g z=%g α=%g)", r, up, q, z, order)
		}
		w, err := RDPSampledWithoutReplacementGaussian(q, z, order)
		valid("RDPSampledWithoutReplacementGaussian", w, err)
		if err == nil && w > up*(1+1e-9) {
			t.Fatalf("WOR RDP %g above α/(2z²) = %g (q=%g z=%g α=%g)", w, up, q, z, order)
		}
		orders := []float64{order}
		if d, err := Orders(DefaultOrders); err == nil && order > 1 && order <= 1e4 {
			orders = append(d, order)
		}
		a, err := NewRDPAccountant(orders, ConversionImproved)
		if err != nil {
			valid("NewRDPAccountant", 0, err)
			return
		}
		if err := a.Compose(PoissonSampled{Q: q, Event: GaussianEvent{z}}, steps); err != nil {
			valid("Compose", 0, err)
			return
		}
		for _, conv := range []Conversion{ConversionImproved, ConversionClassic} {
			e, _, err := RDPToEpsilon(a.Orders(), a.RDP(), delta, conv)
			valid("RDPToEpsilon", e, err)
			d, _, err := RDPToDelta(a.Orders(), a.RDP(), math.Abs(delta)*10, conv)
			valid("RDPToDelta", d, err)
			if err == nil && d > 1 {
				t.Fatalf("δ = %g > 1", d)
			}
		}
	})
}
