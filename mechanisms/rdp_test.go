package mechanisms

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// TestRDPPoissonHugeOrders: fractional orders from 1029.5 on used to give NaN (C(α, i) overflowed) and order
// 1e9 did not return. Every order now gives a finite value in [0, α/(2z²)].
func TestRDPPoissonHugeOrders(t *testing.T) {
	for _, alpha := range []float64{1029.5, 1030, 2000.5, 9999.5, 1e4 + 0.5, 123456.7, 1e9, 1e9 + 0.5, 1e12, 1e300} {
		for _, c := range []struct{ q, z float64 }{{0.01, 1.1}, {0.3, 4}, {1e-6, 0.5}, {0.9, 100}} {
			r, err := RDPPoissonGaussian(c.q, c.z, alpha)
			if err != nil || math.IsNaN(r) || math.IsInf(r, 0) || r < 0 || r > RDPGaussian(c.z, alpha)*(1+1e-12) {
				t.Errorf("q=%g z=%g α=%g: RDP %g, err %v", c.q, c.z, alpha, r, err)
			}
		}
	}
}

// TestRDPPoissonProperties: over random parameters the Poisson-subsampled RDP lies in [0, α/(2z²)], is
// non-decreasing in α, q and 1/z, equals α/(2z²) at q = 1, and is finite at every order of every grid.
func TestRDPPoissonProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var grid []float64
	for _, name := range []string{"dpa_default", "opacus_default", "tfp_cli"} {
		o, _ := Orders(name)
		grid = append(grid, o...)
	}
	const tol = 1e-9
	for range 200 {
		q := math.Pow(10, -5+5*rng.Float64())
		z := math.Pow(10, -0.5+2.5*rng.Float64())
		alpha := 1 + math.Pow(10, -1+13*rng.Float64()) // up to 1e12
		if rng.IntN(3) == 0 {
			alpha = grid[rng.IntN(len(grid))]
		}
		r, err := RDPPoissonGaussian(q, z, alpha)
		up := RDPGaussian(z, alpha)
		if err != nil || !(r >= 0 && r <= up*(1+tol)) {
			t.Fatalf("q=%g z=%g α=%g: RDP %g (bound %g), err %v", q, z, alpha, r, up, err)
		}
		r1, _ := RDPPoissonGaussian(1, z, alpha)
		if r1 != up {
			t.Errorf("q=1 z=%g α=%g: %g, want %g", z, alpha, r1, up)
		}
		for _, m := range []struct {
			name          string
			q2, z2, alpha float64
		}{
			{"α", q, z, alpha * (1 + 0.3*rng.Float64())},
			{"q", math.Min(1, q*(1+rng.Float64())), z, alpha},
			{"1/z", q, z / (1 + rng.Float64()), alpha},
		} {
			r2, _ := RDPPoissonGaussian(m.q2, m.z2, m.alpha)
			if r2 < r*(1-tol)-1e-15 {
				t.Errorf("not monotone in %s: q=%g z=%g α=%g: %g, then q=%g z=%g α=%g: %g", m.name, q, z, alpha, r,
					m.q2, m.z2, m.alpha, r2)
			}
		}
	}
}

// TestRDPMatchesDPAccounting: per-order RDP against Google's dp_accounting 0.6.0
// (_compute_rdp_poisson_subsampled_gaussian and _compute_rdp_sample_wor_gaussian), and the issue's
// without-replacement case (n = 60000, batch 600, σ = 4, 10 000 steps, δ = 1e−5, dpa_default, improved
// conversion), where Theorem 9 alone gave 2.441 and dp_accounting, with Theorem 27, 2.2210584725.
func TestRDPMatchesDPAccounting(t *testing.T) {
	worOrders := []float64{2, 3, 10.5, 32, 63, 128, 256, 512}
	worWant := []float64{2.5797450810048217e-05, 3.8761469258154765e-05, 0.00013769526827253934,
		0.0004319038556391074, 0.0008803353804633161, 0.0018449725822944608, 3.379500574721464, 11.387174191693441}
	for i, a := range worOrders {
		got, _ := RDPSampledWithoutReplacementGaussian(0.01, 4, a)
		near(t, "WOR RDP", got, worWant[i], 1e-9)
	}
	poOrders := []float64{2, 3, 10, 32, 63, 128, 256, 512, 1024}
	poWant := []float64{0.00012851008160516542, 0.00019627788991500341, 0.0008075821730220726, 8.469416433675926,
		21.353610726767897, 48.251130614916136, 101.1618942900286, 206.95606567316818, 418.53082404914505}
	for i, a := range poOrders {
		got, _ := RDPPoissonGaussian(0.01, 1.1, a)
		near(t, "Poisson RDP", got, poWant[i], 1e-9)
	}
	a, _ := NewRDPAccountant(nil, ConversionImproved)
	if err := a.Compose(SampledWithoutReplacement{N: 60000, Batch: 600, Event: GaussianEvent{4}}, 10000); err != nil {
		t.Fatal(err)
	}
	e, _ := a.Epsilon(1e-5)
	near(t, "ε (60000, 600, σ=4, 10⁴ steps)", e, 2.2210584725255407, 1e-9)
}

// TestWORForwardDifferencesExact: where dp_accounting's log-space differencing loses its digits (z = 7.78,
// q = 0.14, α = 128: it gives 0.0409752006629, and its χ^118 is a factor 3.5 below the true one), the bound
// is the exact Theorem 27 value, 0.0409736076101503 (600-digit arithmetic, mpmath).
func TestWORForwardDifferencesExact(t *testing.T) {
	got, _ := RDPSampledWithoutReplacementGaussian(0.13996227064089659, 7.782798860340345, 128)
	near(t, "Theorem 27 at α=128", got, 0.0409736076101503, 1e-10)
	got, _ = RDPSampledWithoutReplacementGaussian(0.13996227064089659, 7.782798860340345, 63)
	near(t, "Theorem 27 at α=63", got, 0.0310946019145757, 1e-10)
	// Every χ^m bound is at least the true value, which for z = 1e4 is (m−1)!!/z^m to leading order.
	d := worForwardDiffs(1e4, 64)
	for m := 2; m <= 64; m += 2 {
		lead := -float64(m) * math.Log(1e4)
		for k := m - 1; k > 1; k -= 2 {
			lead += math.Log(float64(k))
		}
		if d[m-1] < lead-1e-3 {
			t.Errorf("χ^%d bound e^%g below e^%g", m, d[m-1], lead)
		}
	}
}

// TestWORProperties: the without-replacement bound lies in [0, α/(2z²)] and is finite for every order.
func TestWORProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 100 {
		q := math.Pow(10, -5+5*rng.Float64())
		z := math.Pow(10, -0.5+2.5*rng.Float64())
		alpha := 1 + math.Pow(10, -1+13*rng.Float64())
		r, err := RDPSampledWithoutReplacementGaussian(q, z, alpha)
		if err != nil || !(r >= 0 && r <= RDPGaussian(z, alpha)) {
			t.Fatalf("q=%g z=%g α=%g: RDP %g, err %v", q, z, alpha, r, err)
		}
	}
}

// TestCompositionHugeK: the composition helpers answer promptly for any k: a value or an error naming k.
func TestCompositionHugeK(t *testing.T) {
	for _, k := range []int{1e9, math.MaxInt} {
		if e, d, err := AdvancedComposition(0.01, 1e-9, k, 1e-6); err != nil || !(e > 0) || !(d > 0) {
			t.Errorf("AdvancedComposition k=%d: %g %g %v", k, e, d, err)
		}
		if e, err := AdvancedCompositionEps0(0.5, k, 1e-6); err != nil || !(e > 0) {
			t.Errorf("AdvancedCompositionEps0 k=%d: %g %v", k, e, err)
		}
		if e, err := KOVGaussianEpsilon(k, 1, 1e6, 1e-5); err != nil || !(e > 0) {
			t.Errorf("KOVGaussianEpsilon k=%d: %g %v", k, e, err)
		}
		if s, err := KOVGaussianSigma(k, 1, 1, 1e-5); err != nil || !(s > 0) {
			t.Errorf("KOVGaussianSigma k=%d: %g %v", k, s, err)
		}
		d, err := OptimalCompositionDelta(1e-5, 0, k, 0.1)
		e, err2 := OptimalCompositionEpsilon(1e-5, 0, k, 1e-5)
		if k <= MaxOptimalCompositionK {
			if err != nil || err2 != nil || !(d >= 0 && d <= 1) || !(e > 0) {
				t.Errorf("OptimalComposition k=%d: δ %g ε %g, %v %v", k, d, e, err, err2)
			}
			// The tight ε is below advanced composition's.
			adv, _, _ := AdvancedComposition(1e-5, 0, k, 1e-5)
			if e > adv {
				t.Errorf("k=%d: optimal ε %g above advanced composition's %g", k, e, adv)
			}
			continue
		}
		var pe *ParamError
		if !errors.As(err, &pe) || pe.Param != "k" || !errors.As(err2, &pe) || pe.Param != "k" {
			t.Errorf("OptimalComposition k=%d: want a k error, got %v, %v", k, err, err2)
		}
	}
	// The windowed sum agrees with the full one (each C(k, l) from log-gamma) where both run: k = 10⁶.
	full := func(eps0 float64, k int, eps float64) float64 {
		fk := float64(k)
		logNorm := fk * logAdd(0, eps0)
		pos, neg := math.Inf(-1), math.Inf(-1)
		for l := 0; l <= k; l++ {
			fl := float64(l)
			logC := logComb(fk, fl)
			if (fk-2*fl)*eps0 <= eps {
				break
			}
			pos = logAdd(pos, logC+(fk-fl)*eps0-logNorm)
			neg = logAdd(neg, logC+fl*eps0-logNorm+eps)
		}
		return math.Exp(logSub(pos, neg))
	}
	got, _ := OptimalCompositionDelta(1e-3, 0, 1_000_000, 2)
	want := full(1e-3, 1_000_000, 2)
	if math.Abs(got-want) > 1e-7*want {
		t.Errorf("windowed δ %g, full sum %g", got, want)
	}
}

// TestRDPBadInputs: every RDP entry point rejects bad input with an error naming the parameter.
func TestRDPBadInputs(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	dpa, _ := Orders(DefaultOrders)
	acc := func() *RDPAccountant { a, _ := NewRDPAccountant(nil, ConversionImproved); return a }
	for _, c := range []struct {
		param string
		err   error
	}{
		{"q", second(RDPPoissonGaussian(-0.1, 1, 2))},
		{"q", second(RDPPoissonGaussian(inf, 1, 2))},
		{"z", second(RDPPoissonGaussian(0.1, nan, 2))},
		{"z", second(RDPPoissonGaussian(0.1, inf, 2))},
		{"z", second(RDPPoissonGaussian(0.1, -1, 2))},
		{"alpha", second(RDPPoissonGaussian(0.1, 1, nan))},
		{"alpha", second(RDPPoissonGaussian(0.1, 1, inf))},
		{"q", second(RDPSampledWithoutReplacementGaussian(nan, 1, 2))},
		{"z", second(RDPSampledWithoutReplacementGaussian(0.1, 0, 2))},
		{"alpha", second(RDPSampledWithoutReplacementGaussian(0.1, 1, -3))},
		{"orders", second(NewRDPAccountant([]float64{}, ConversionImproved))},
		{"orders[1]", second(NewRDPAccountant([]float64{2, nan}, ConversionImproved))},
		{"orders[0]", second(NewRDPAccountant([]float64{1}, ConversionImproved))},
		{"orders[0]", second(NewRDPAccountant([]float64{inf}, ConversionImproved))},
		{"conversion", second(NewRDPAccountant(nil, Conversion(7)))},
		{"orders", second(RDPOf(GaussianEvent{1}, nil))},
		{"orders[2]", second(RDPOf(GaussianEvent{1}, []float64{2, 3, 0.5}))},
		{"e", second(RDPOf(nil, dpa))},
		{"Q", second(RDPOf(PoissonSampled{Q: nan, Event: GaussianEvent{1}}, dpa))},
		{"NoiseMultiplier", second(RDPOf(SampledWithoutReplacement{N: 10, Batch: 2, Event: GaussianEvent{-1}}, dpa))},
		{"Batch", second(RDPOf(SampledWithoutReplacement{N: 10, Batch: 11, Event: GaussianEvent{1}}, dpa))},
		{"count", acc().Compose(GaussianEvent{1}, math.MinInt)},
		{"delta", second(acc().Epsilon(nan))},
		{"delta", second(acc().Epsilon(1))},
		{"delta", second(acc().Epsilon(-1))},
		{"epsilon", second(acc().Delta(nan))},
		{"epsilon", second(acc().Delta(inf))},
		{"epsilon", second(acc().Delta(-1))},
		{"rdp[0]", third(RDPToEpsilon([]float64{2}, []float64{nan}, 1e-5, ConversionImproved))},
		{"rdp[0]", third(RDPToEpsilon([]float64{2}, []float64{-1}, 1e-5, ConversionImproved))},
		{"rdp", third(RDPToEpsilon([]float64{2, 3}, []float64{1}, 1e-5, ConversionImproved))},
		{"orders", third(RDPToEpsilon(nil, nil, 1e-5, ConversionImproved))},
		{"orders[0]", third(RDPToDelta([]float64{0.9}, []float64{1}, 1, ConversionClassic))},
		{"conversion", third(RDPToDelta([]float64{2}, []float64{1}, 1, Conversion(-1)))},
	} {
		var pe *ParamError
		if !errors.As(c.err, &pe) || pe.Param != c.param {
			t.Errorf("want an error naming %s, got %v", c.param, c.err)
		}
	}
	// A zero-value accountant works on the default grid; infinite RDP values give ε = ∞, not an error or
	// a number below the truth; count 0 of an infinite-RDP event records nothing.
	var z RDPAccountant
	if err := z.Compose(PoissonSampled{Q: 0.01, Event: GaussianEvent{1.1}}, 10000); err != nil {
		t.Fatal(err)
	}
	ez, _ := z.Epsilon(1e-5)
	a := acc()
	a.Compose(PoissonSampled{Q: 0.01, Event: GaussianEvent{1.1}}, 10000)
	if ea, _ := a.Epsilon(1e-5); ez != ea {
		t.Errorf("zero-value accountant ε %g, NewRDPAccountant's %g", ez, ea)
	}
	if err := a.Compose(GaussianEvent{1e-300}, 0); err != nil {
		t.Fatal(err)
	}
	if e2, _ := a.Epsilon(1e-5); e2 != ez {
		t.Errorf("count 0 changed ε to %g", e2)
	}
	a.Compose(GaussianEvent{1e-300}, 1)
	for _, conv := range []Conversion{ConversionImproved, ConversionClassic} {
		e, _, err := RDPToEpsilon(a.Orders(), a.RDP(), 1e-5, conv)
		d, _, err2 := RDPToDelta(a.Orders(), a.RDP(), 1, conv)
		if err != nil || err2 != nil || !math.IsInf(e, 1) || d != 1 {
			t.Errorf("%v: infinite RDP gives ε %g, δ %g (%v, %v)", conv, e, d, err, err2)
		}
	}
}

// TestRDPConversionNearOrderOne: at orders just above 1 the conversions stay above the exact ε of the
// Gaussian mechanism (GDP) and finite; for the Gaussian (RDP α/(2z²)) the improved conversion is never below
// the exact ε at any order.
func TestRDPConversionNearOrderOne(t *testing.T) {
	for _, z := range []float64{0.5, 1, 3, 30} {
		exact, _ := GDPEpsilon(1/z, 1e-5)
		for _, a := range []float64{1 + 1e-15, 1 + 1e-9, 1.001, 1.01, 1.1, 2, 10, 100, 1e4} {
			for _, conv := range []Conversion{ConversionImproved, ConversionClassic} {
				e, _, err := RDPToEpsilon([]float64{a}, []float64{RDPGaussian(z, a)}, 1e-5, conv)
				if err != nil || math.IsNaN(e) || e < exact*(1-1e-9) {
					t.Errorf("z=%g α=%g %v: ε %g below the exact %g (err %v)", z, a, conv, e, exact, err)
				}
				d, _, err := RDPToDelta([]float64{a}, []float64{RDPGaussian(z, a)}, exact, conv)
				if err != nil || math.IsNaN(d) || d < 1e-5*(1-1e-9) {
					t.Errorf("z=%g α=%g %v: δ(%g) = %g below 1e-5 (err %v)", z, a, conv, exact, d, err)
				}
			}
		}
	}
}
