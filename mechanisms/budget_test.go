package mechanisms

import (
	"errors"
	"math"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
)

// TestBudgetInvalidUnrepresentable: Budget has no exported field (Budget{Epsilon: NaN} no longer compiles, and
// was an unlimited budget before), and its zero value refuses every spend instead of acting unlimited.
func TestBudgetInvalidUnrepresentable(t *testing.T) {
	typ := reflect.TypeFor[Budget]()
	for i := range typ.NumField() {
		if f := typ.Field(i); f.IsExported() {
			t.Errorf("Budget has exported field %s: a caller can set an invalid cap", f.Name)
		}
	}
	var zero Budget
	if err := zero.Spend("query", 0.1, 0); !errors.Is(err, ErrNoBudget) {
		t.Errorf("zero Budget spend: %v, want ErrNoBudget", err)
	}
	if err := zero.Spend("nothing", 0, 0); !errors.Is(err, ErrNoBudget) {
		t.Errorf("zero Budget zero spend: %v, want ErrNoBudget", err)
	}
	if e, d := zero.Remaining(); e != 0 || d != 0 {
		t.Errorf("zero Budget remaining (%g, %g)", e, d)
	}
	if _, err := zero.Split(1, 1); !errors.Is(err, ErrNoBudget) {
		t.Errorf("zero Budget split: %v", err)
	}
	var nilB *Budget
	if err := nilB.Spend("query", 0.1, 0); !errors.Is(err, ErrNoBudget) {
		t.Errorf("nil Budget spend: %v", err)
	}
	if nilB.Epsilon() != 0 || nilB.Items() != nil {
		t.Error("nil Budget accessors")
	}
	nan, inf := math.NaN(), math.Inf(1)
	for _, c := range []struct {
		eps, delta float64
		param      string
	}{
		{nan, 0, "epsilon"}, {inf, 0, "epsilon"}, {0, 0, "epsilon"}, {-1, 0, "epsilon"},
		{1, nan, "delta"}, {1, 1, "delta"}, {1, -0.1, "delta"}, {1, inf, "delta"},
	} {
		if _, err := NewBudget(c.eps, c.delta); paramName(err) != c.param {
			t.Errorf("NewBudget(%g, %g): %v, want a ParamError naming %s", c.eps, c.delta, err, c.param)
		}
	}
	b, _ := NewBudget(2, 1e-5)
	if b.Epsilon() != 2 || b.Delta() != 1e-5 {
		t.Errorf("caps (%g, %g)", b.Epsilon(), b.Delta())
	}
}

// TestBudgetExactSpends: spending the cap in pieces that add up to it in decimal succeeds, and afterwards
// (or from the start) any representable overspend fails. The old code's relative slack of 1e-12 accepted
// overspends up to 1e-12·cap.
func TestBudgetExactSpends(t *testing.T) {
	b, _ := NewBudget(1, 1e-5)
	for i := range 10 {
		if err := b.Spend("tenth", 0.1, 1e-6); err != nil {
			t.Fatalf("spend %d of 10 × 0.1: %v", i+1, err)
		}
	}
	if e, d := b.Remaining(); e != 0 || d != 0 {
		t.Errorf("remaining after spending the cap: (%g, %g)", e, d)
	}
	var over *OverspendError
	for _, c := range [][2]float64{{math.SmallestNonzeroFloat64, 0}, {0, math.SmallestNonzeroFloat64}, {1e-13, 0}} {
		if err := b.Spend("one more", c[0], c[1]); !errors.As(err, &over) {
			t.Errorf("overspend (%g, %g) after the cap was spent: %v", c[0], c[1], err)
		}
	}
	if err := b.Spend("nothing", 0, 0); err != nil {
		t.Errorf("a zero spend on a spent budget: %v", err)
	}

	// A fresh budget refuses the float just above its cap, and accepts the cap itself.
	b, _ = NewBudget(1, 0)
	if err := b.Spend("above", math.Nextafter(1, 2), 0); !errors.As(err, &over) {
		t.Errorf("spend of 1+ulp on cap 1: %v", err)
	}
	if err := b.Spend("all", 1, 0); err != nil {
		t.Errorf("spend of the whole cap: %v", err)
	}

	// Many uneven pieces: 0.7 + 0.2 + 0.1 = 1; then 0.3 + 1e-16 on a 0.3 budget fails.
	b, _ = NewBudget(1, 0)
	for _, e := range []float64{0.7, 0.2, 0.1} {
		if err := b.Spend("piece", e, 0); err != nil {
			t.Fatalf("piece %g: %v", e, err)
		}
	}
	b, _ = NewBudget(0.3, 0)
	if err := b.Spend("over", 0.30000000000000004, 0); !errors.As(err, &over) {
		t.Errorf("0.30000000000000004 on cap 0.3: %v", err)
	}

	// Extreme but valid amounts are exact too.
	b, _ = NewBudget(1e300, 5e-324)
	if err := b.Spend("huge", 1e300, 5e-324); err != nil {
		t.Errorf("spending an extreme cap: %v", err)
	}
	if err := b.Spend("more", 0, 5e-324); !errors.As(err, &over) {
		t.Errorf("subnormal δ overspend: %v", err)
	}
	b, _ = NewBudget(1e-300, 0)
	if err := b.Spend("big", math.MaxFloat64, 0); !errors.As(err, &over) {
		t.Errorf("MaxFloat64 on a tiny cap: %v", err)
	}

	// Bad spends are parameter errors and record nothing.
	b, _ = NewBudget(1, 1e-5)
	nan, inf := math.NaN(), math.Inf(1)
	for _, c := range []struct {
		eps, delta float64
		param      string
	}{
		{nan, 0, "epsilon"}, {-0.1, 0, "epsilon"}, {inf, 0, "epsilon"}, {math.Inf(-1), 0, "epsilon"},
		{0.1, nan, "delta"}, {0.1, -1e-9, "delta"}, {0.1, 1, "delta"}, {0.1, inf, "delta"},
	} {
		if err := b.Spend("bad", c.eps, c.delta); paramName(err) != c.param {
			t.Errorf("Spend(%g, %g): %v, want a ParamError naming %s", c.eps, c.delta, err, c.param)
		}
	}
	if e, d := b.Spent(); e != 0 || d != 0 || len(b.Items()) != 0 {
		t.Errorf("a refused spend was recorded: (%g, %g) %v", e, d, b.Items())
	}
}

// TestBudgetSplitFits: the parts of any split can all be spent.
func TestBudgetSplitFits(t *testing.T) {
	for _, c := range []struct {
		eps, delta float64
		w          []float64
	}{
		{1, 1e-5, []float64{1, 1, 1}},
		{0.3, 1e-6, []float64{1, 1, 1, 1, 1, 1, 1}},
		{10, 1e-4, []float64{3, 1}},
		{0.7, 3e-7, []float64{0.1, 0.2, 0.3, 0.4, 1e-3}},
	} {
		b, _ := NewBudget(c.eps, c.delta)
		parts, err := b.Split(c.w...)
		if err != nil {
			t.Fatal(err)
		}
		total := 0.0
		for _, w := range c.w {
			total += w
		}
		for i, p := range parts {
			if err := b.Spend("part", p[0], p[1]); err != nil {
				t.Errorf("cap (%g, %g) split %v: part %d %v refused: %v", c.eps, c.delta, c.w, i, p, err)
			}
			if want := c.eps * c.w[i] / total; math.Abs(p[0]-want) > 1e-12*want {
				t.Errorf("part %d ε = %g, want ≈ %g", i, p[0], want)
			}
		}
	}
}

// TestBudgetConcurrentSpends: goroutines spending from one Budget at once never overspend it. With a cap of
// ε = 1, 200 concurrent spends of 0.01 must be accepted exactly 100 times in every trial, the accepted
// spends must be the items listed and Spent must equal their sum; readers running alongside see whole
// spends only. Before Budget took a lock, up to 199 spends were accepted (19 of 300 trials at GOMAXPROCS =
// 2) and `go test -race` reported the data race.
func TestBudgetConcurrentSpends(t *testing.T) {
	const trials, spenders = 100, 200
	for trial := range trials {
		b, err := NewBudget(1, 1e-6)
		if err != nil {
			t.Fatal(err)
		}
		var accepted atomic.Int64
		var wg sync.WaitGroup
		start := make(chan struct{})
		for range spenders {
			wg.Go(func() {
				<-start
				if b.Spend("query", 0.01, 1e-8) == nil {
					accepted.Add(1)
				}
			})
		}
		wg.Go(func() { // a reader: Spent, Remaining and Items must agree at every instant
			<-start
			for range 50 {
				e, _ := b.Spent()
				if le, _ := b.Remaining(); e > 1 || le < 0 {
					t.Errorf("trial %d: spent %g, remaining %g", trial, e, le)
				}
				_ = b.Items()
			}
		})
		close(start)
		wg.Wait()
		e, d := b.Spent()
		if n := accepted.Load(); n != 100 || len(b.Items()) != 100 || e != 1 || d != 1e-6 {
			t.Fatalf("trial %d: %d spends of 0.01 accepted against a cap of 1 (%d items), spent (%g, %g): want exactly 100, (1, 1e-06)",
				trial, n, len(b.Items()), e, d)
		}
	}
}

// TestParallelAccountants: accountants in different goroutines share the PLD's transform plans and scratch
// buffers and nothing else; each gives the same ε as one run alone, bit for bit. Run under -race (make race)
// it also checks that the shared caches are race-free.
func TestParallelAccountants(t *testing.T) {
	events := []Event{GaussianEvent{2}, PoissonSampled{Q: 0.02, Event: GaussianEvent{1}}, LaplaceEvent{5}}
	run := func() [3]float64 {
		var out [3]float64
		pld, _ := NewPLDAccountant(PLDParams{Discretization: 1e-3})
		rdp, _ := NewRDPAccountant(nil, ConversionImproved)
		var gdp GDPAccountant
		for _, e := range events {
			if err := pld.Compose(e, 20); err != nil {
				t.Error(err)
			}
			if _, ok := e.(LaplaceEvent); !ok {
				if err := rdp.Compose(e, 20); err != nil {
					t.Error(err)
				}
			}
		}
		if err := gdp.Compose(GaussianEvent{2}, 20); err != nil {
			t.Error(err)
		}
		out[0], _ = pld.Epsilon(1e-6)
		out[1], _ = rdp.Epsilon(1e-6)
		out[2], _ = gdp.Epsilon(1e-6)
		return out
	}
	want := run()
	var wg sync.WaitGroup
	got := make([][3]float64, 4)
	for i := range got {
		wg.Go(func() { got[i] = run() })
	}
	wg.Wait()
	for i, g := range got {
		if g != want {
			t.Errorf("goroutine %d: ε %v, alone %v", i, g, want)
		}
	}
}
