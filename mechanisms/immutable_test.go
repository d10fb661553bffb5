package mechanisms

import (
	"math"
	"testing"
)

// TestRDPAccountantCopiesOrders: the accountant keeps its own copy of the orders. Changing the caller's
// slice after NewRDPAccountant, or the slice Orders returns, changes nothing it reports. Before, the
// accountant kept the caller's slice (and ready() compared only its length), so overwriting an order after
// composing changed ε.
func TestRDPAccountantCopiesOrders(t *testing.T) {
	orders := IntegerOrders(2, 64)
	a, err := NewRDPAccountant(orders, ConversionImproved)
	if err != nil {
		t.Fatal(err)
	}
	ref, _ := NewRDPAccountant(IntegerOrders(2, 64), ConversionImproved)
	for _, acc := range []*RDPAccountant{a, ref} {
		if err := acc.Compose(PoissonSampled{Q: 0.01, Event: GaussianEvent{1}}, 1000); err != nil {
			t.Fatal(err)
		}
	}
	for i := range orders {
		orders[i] = 1.0001 // the worst order for the conversion
	}
	got := a.Orders()
	got[0] = 1e6
	e, err := a.Epsilon(1e-5)
	want, _ := ref.Epsilon(1e-5)
	if err != nil || e != want || a.Orders()[0] != 2 {
		t.Errorf("after the caller changed the orders: ε %g (%v), want %g; Orders()[0] = %g", e, err, want, a.Orders()[0])
	}
	if a.Conversion() != ConversionImproved {
		t.Errorf("conversion %v", a.Conversion())
	}
}

// TestDefaultGranularityTinyScale: a scale whose 2⁻⁴⁰ multiple underflows gets the smallest power of two,
// not 1 (powerOfTwoAtLeast(0) is 1, a grid far coarser than the scale).
func TestDefaultGranularityTinyScale(t *testing.T) {
	for _, s := range []float64{5e-324, 1e-320} {
		if g := DefaultGranularity(s); g != 0x1p-1074 {
			t.Errorf("DefaultGranularity(%g) = %g, want 2⁻¹⁰⁷⁴", s, g)
		}
	}
	if g := DefaultGranularity(1); g != 0x1p-40 || DefaultGranularity(math.Inf(1)) != 0 {
		t.Errorf("DefaultGranularity(1) = %g", g)
	}
}
