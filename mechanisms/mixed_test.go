package mechanisms

import (
	"math"
	"testing"
)

// Mixed with P = 1 is its inner event; with P < 1 one run's δ(ε) is P times the inner event's, and
// composing it costs more than folding P into the sampling rate (Sharma et al.'s q = p·b/m).
func TestMixedEvent(t *testing.T) {
	inner := PoissonSampled{Q: 0.05, Event: GaussianEvent{NoiseMultiplier: 1}}
	run := func(e Event, k int) *PLDAccountant {
		a, err := NewPLDAccountant(PLDParams{})
		if err != nil {
			t.Fatal(err)
		}
		if err := a.Compose(e, k); err != nil {
			t.Fatal(err)
		}
		return a
	}
	d1, _ := run(Mixed{P: 1, Event: inner}, 1).Delta(0.5)
	d0, _ := run(inner, 1).Delta(0.5)
	if math.Abs(d1-d0) > 1e-9 {
		t.Errorf("Mixed{P: 1}: δ(0.5) = %g, inner event %g", d1, d0)
	}
	dm, _ := run(Mixed{P: 0.5, Event: inner}, 1).Delta(0.5)
	if math.Abs(dm-0.5*d0) > 1e-3*d0 {
		t.Errorf("Mixed{P: 0.5}: δ(0.5) = %g, want half the inner event's %g", dm, d0)
	}
	em, _ := run(Mixed{P: 0.5, Event: inner}, 2000).Epsilon(1e-5)
	ef, _ := run(PoissonSampled{Q: 0.025, Event: GaussianEvent{NoiseMultiplier: 1}}, 2000).Epsilon(1e-5)
	if !(em > ef) {
		t.Errorf("2000 runs at δ = 1e−5: Mixed ε = %g, q = p·q0 ε = %g; the mixture should cost more", em, ef)
	}
	t.Logf("2000 runs: Mixed(p=0.5, q=0.05) ε = %.4f vs PoissonSampled(q=0.025) ε = %.4f", em, ef)
	if err := (Mixed{P: 0, Event: inner}).validate(); err == nil {
		t.Error("Mixed{P: 0} validated")
	}
}
