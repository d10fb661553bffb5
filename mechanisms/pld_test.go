package mechanisms

import (
	"errors"
	"math"
	"testing"
)

// Reference values are computed to about 1e−12 relative (bisection and quadrature); "never below" allows
// for that much and no more.
const refSlack = 1e-9

func notBelow(got, exact float64) bool { return got >= exact-refSlack*math.Max(1, math.Abs(exact)) }

// gaussianExactEpsilon is the exact ε(δ) of k Gaussian runs at noise multiplier z: μ-GDP with μ = √k/z.
func gaussianExactEpsilon(t *testing.T, z float64, k int, delta float64) float64 {
	t.Helper()
	e, err := GDPEpsilon(math.Sqrt(float64(k))/z, delta)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// laplaceExactDelta is the exact δ(ε) of k runs of the Laplace mechanism with scale b (sensitivity 1),
// from the exact distribution of the summed privacy loss. Under P = Lap(0, b) against Q = Lap(1, b) one
// run's loss is ε0(1 − 2x̃) with x̃ the output clipped to [0, 1] and ε0 = 1/b: an atom at 0 (probability
// 1/2), an atom at 1 (e^{−ε0}/2) and density e^{−x/b}/(2b) between. With a runs at the first atom, c at the
// second and m inside, the summed loss is ε0(k − 2c − 2T), where T, the sum of the m inner outputs, has
// density (2b)^{−m}·e^{−t/b}·IH_m(t) (IH_m the Irwin–Hall density, evaluated by the stable B-spline
// recursion). δ(ε) = E[(1 − e^{ε−S})₊] is then a finite sum of one-dimensional integrals of smooth
// functions over unit intervals, done by Gauss–Legendre quadrature on fine subintervals.
func laplaceExactDelta(b float64, k int, eps float64) float64 {
	e0 := 1 / b
	gx, gw := gaussLegendre16()
	total := 0.0
	for m := 0; m <= k; m++ {
		for c := 0; c+m <= k; c++ {
			a := k - m - c
			lcoef := lgammaInt(k+1) - lgammaInt(a+1) - lgammaInt(c+1) - lgammaInt(m+1) +
				float64(a)*math.Log(0.5) + float64(c)*(-e0-math.Ln2)
			if m == 0 {
				s := e0 * float64(k-2*c)
				if s > eps {
					total += math.Exp(lcoef) * -math.Expm1(eps-s)
				}
				continue
			}
			tstar := (float64(k-2*c) - eps/e0) / 2 // the loss exceeds ε iff T < t*
			upper := math.Min(tstar, float64(m))
			if upper <= 0 {
				continue
			}
			lscale := lcoef - float64(m)*math.Log(2*b)
			const sub = 64
			integral := 0.0
			for piece := 0; float64(piece) < upper; piece++ {
				lo, hi := float64(piece), math.Min(float64(piece+1), upper)
				w := (hi - lo) / sub
				for s := 0; s < sub; s++ {
					l := lo + float64(s)*w
					for i, x := range gx {
						tt := l + (x+1)*w/2
						loss := e0 * (float64(k-2*c) - 2*tt)
						integral += gw[i] * w / 2 * math.Exp(lscale-tt/b) * irwinHall(m, tt) * -math.Expm1(eps-loss)
					}
				}
			}
			total += integral
		}
	}
	return total
}

// irwinHall is the density of the sum of m uniforms on (0, 1), by de Boor's recursion.
func irwinHall(m int, t float64) float64 {
	if t <= 0 || t >= float64(m) {
		return 0
	}
	// f_1 .. f_m at t − j for j = 0..m−1.
	f := make([]float64, m)
	for j := range f {
		if x := t - float64(j); x > 0 && x < 1 {
			f[j] = 1
		}
	}
	for n := 2; n <= m; n++ {
		for j := 0; j+n-1 < m; j++ {
			x := t - float64(j)
			f[j] = (x*f[j] + (float64(n)-x)*f[j+1]) / float64(n-1)
		}
	}
	return f[0]
}

func lgammaInt(n int) float64 { v, _ := math.Lgamma(float64(n)); return v }

// gaussLegendre16 returns the 16-point Gauss–Legendre nodes and weights on [−1, 1], by Newton's method.
func gaussLegendre16() (x, w []float64) {
	const n = 16
	x, w = make([]float64, n), make([]float64, n)
	for i := range n {
		z := math.Cos(math.Pi * (float64(i) + 0.75) / (n + 0.5))
		var dp float64
		for range 100 {
			p0, p1 := 1.0, z
			for j := 2; j <= n; j++ {
				p0, p1 = p1, ((2*float64(j)-1)*z*p1-float64(j-1)*p0)/float64(j)
			}
			dp = n * (z*p1 - p0) / (z*z - 1)
			dz := p1 / dp
			z -= dz
			if math.Abs(dz) < 1e-16 {
				break
			}
		}
		x[i], w[i] = z, 2/((1-z*z)*dp*dp)
	}
	return x, w
}

// laplaceExactEpsilon is the smallest ε ≥ 0 with laplaceExactDelta ≤ δ, by bisection.
func laplaceExactEpsilon(b float64, k int, delta float64) float64 {
	f := func(e float64) float64 { return laplaceExactDelta(b, k, e) - delta }
	if f(0) <= 0 {
		return 0
	}
	return bisect(f, 0, float64(k)/b, 1e-13)
}

// TestLaplaceExactReference checks the Laplace reference itself: one run is LaplaceDelta, and the
// quadrature's total mass of the loss (δ at ε = −∞ would be 1) is right through δ(ε) + e^ε·… at ε = 0.
func TestLaplaceExactReference(t *testing.T) {
	for _, b := range []float64{0.3, 1, 4} {
		for _, eps := range []float64{0, 0.1, 1} {
			near(t, "laplaceExactDelta k=1", laplaceExactDelta(b, 1, eps), LaplaceDelta(b, 1, eps), 1e-10)
		}
	}
	// Two runs at ε = 0: δ(0) = TV distance of the 2-fold products; check against a direct 2-D sum of
	// the two-run pair's densities on a fine grid (midpoint rule, coarse tolerance).
	b := 1.0
	got := laplaceExactDelta(b, 2, 0)
	lap := func(x, m float64) float64 { return math.Exp(-math.Abs(x-m)/b) / (2 * b) }
	const step = 0.02
	sum := 0.0
	for x := -25.0; x < 26; x += step {
		for y := -25.0; y < 26; y += step {
			p := lap(x+step/2, 0) * lap(y+step/2, 0)
			q := lap(x+step/2, 1) * lap(y+step/2, 1)
			sum += math.Max(p-q, 0) * step * step
		}
	}
	near(t, "2-run Laplace δ(0) vs 2-D sum", got, sum, 1e-3)
}

// TestPLDLowNoiseIsPessimistic is the regression test of the low-noise defect: 100 Gaussian runs at
// z = 0.1 and h = 1e−3 reported ε(1e−5) = 0 (exact: μ-GDP with μ = 100, ε = 5425.5), and CalibrateNoise
// over the PLD accountant returned z ≈ 0.01 for (ε = 1, δ = 1e−5), where the analytic Gaussian needs 3.7306.
func TestPLDLowNoiseIsPessimistic(t *testing.T) {
	a, err := NewPLDAccountant(PLDParams{Discretization: 1e-3})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Compose(GaussianEvent{NoiseMultiplier: 0.1}, 100); err != nil {
		t.Fatal(err)
	}
	exact := gaussianExactEpsilon(t, 0.1, 100, 1e-5)
	e, lower, err := a.EpsilonBounds(1e-5)
	if err != nil {
		t.Fatal(err)
	}
	if !notBelow(e, exact) || !(lower <= exact) || e-exact > 1e-3*exact {
		t.Errorf("100 × Gaussian(z=0.1) at h=1e-3: ε = %.8g (certified lower %.8g), exact %.8g", e, lower, exact)
	}
	z, err := CalibrateNoise(1, 0.01, 100, func(z float64) (float64, error) {
		a, err := NewPLDAccountant(PLDParams{Discretization: 1e-3})
		if err != nil {
			return 0, err
		}
		if err := a.Compose(GaussianEvent{NoiseMultiplier: z}, 1); err != nil {
			return 0, err
		}
		return a.Epsilon(1e-5)
	})
	if err != nil {
		t.Fatal(err)
	}
	sigma, _ := AnalyticGaussianSigma(1, 1e-5, 1)
	if !(z >= sigma*(1-1e-9) && z <= sigma*1.001) {
		t.Errorf("CalibrateNoise over PLD: z = %.6g, analytic Gaussian σ = %.6g", z, sigma)
	}
}

// TestPLDMemoryIsBounded is the regression test of the memory defect: Laplace at noise multiplier 1e−5
// asked for a 16 GB grid; now every oversized grid is a *GridError found before allocating, and the zero
// value is a usable accountant.
func TestPLDMemoryIsBounded(t *testing.T) {
	// The 16 GB case: its loss sits within 68 of ε0 = 10⁵ (all but 1e−15 of it), which the adaptive grid
	// covers with 7·10⁵ points.
	lap, _ := NewPLDAccountant(PLDParams{})
	if err := lap.Compose(LaplaceEvent{NoiseMultiplier: 1e-5}, 1); err != nil {
		t.Fatal(err)
	}
	e, err := lap.Epsilon(1e-5)
	exact := bisect(func(e float64) float64 { return LaplaceDelta(1e-5, 1, e) - 1e-5 }, 0, 1e5, 1e-13)
	if err != nil || !notBelow(e, exact) {
		t.Errorf("Laplace(1e-5): ε = %g, %v; exact %g", e, err, exact)
	}
	a, _ := NewPLDAccountant(PLDParams{})
	for _, e := range []Event{
		PoissonSampled{Q: 0.5, Event: GaussianEvent{NoiseMultiplier: 0.01}},
		GaussianEvent{NoiseMultiplier: 1e-6},
		PoissonSampled{Q: 1, Event: GaussianEvent{NoiseMultiplier: 1e-300}},
		Mixed{P: 0.5, Event: LaplaceEvent{NoiseMultiplier: 1e-9}},
	} {
		var g *GridError
		if err := a.Compose(e, 1); !errors.As(err, &g) {
			t.Errorf("%v: error %v, want a *GridError", e, err)
		}
	}
	if err := a.Compose(GaussianEvent{NoiseMultiplier: 1}, math.MaxInt); err == nil {
		t.Error("MaxInt runs composed")
	}
	if got := a.History(); len(got) != 0 {
		t.Errorf("failed compositions recorded: %v", got)
	}
	for _, p := range []PLDParams{{Discretization: -1}, {TailMass: 0.5}, {MaxGridPoints: 1 << 30}, {Discretization: math.NaN()}} {
		if _, err := NewPLDAccountant(p); paramName(err) == "" {
			t.Errorf("%+v: error %v, want a ParamError", p, err)
		}
	}
	var z PLDAccountant
	if e, err := z.Epsilon(1e-5); err != nil || e != 0 {
		t.Errorf("zero value, nothing composed: ε = %g, %v", e, err)
	}
	if err := z.Compose(GaussianEvent{NoiseMultiplier: 2}, 10); err != nil {
		t.Fatal(err)
	}
	e, _ = z.Epsilon(1e-5)
	if exact := gaussianExactEpsilon(t, 2, 10, 1e-5); !notBelow(e, exact) || e > exact*1.001 {
		t.Errorf("zero value: ε = %g, exact %g", e, exact)
	}
	if d, err := (&PLDAccountant{}).Delta(0.5); err != nil || d != 0 {
		t.Errorf("zero value δ(0.5) = %g, %v", d, err)
	}
}

// TestPLDPessimisticOverGrid: over z ∈ [0.01, 1000], runs ∈ [1, 10⁵] and h ∈ [1e−5, 0.1], the Gaussian PLD
// ε(δ) is never below μ-GDP's exact value, the certified lower bound never above it, or the accountant
// returns a *GridError. The grid is capped at 2¹⁸ points to keep the test fast; the cap only turns cases
// into errors.
func TestPLDPessimisticOverGrid(t *testing.T) {
	cases, errs := 0, 0
	for _, z := range []float64{0.01, 0.1, 0.7, 3, 40, 1000} {
		for _, k := range []int{1, 7, 300, 100000} {
			for _, h := range []float64{1e-5, 1e-3, 0.1} {
				a, _ := NewPLDAccountant(PLDParams{Discretization: h, MaxGridPoints: 1 << 18})
				if err := a.Compose(GaussianEvent{NoiseMultiplier: z}, k); err != nil {
					var g *GridError
					if !errors.As(err, &g) {
						t.Errorf("z=%g k=%d h=%g: %v", z, k, h, err)
					}
					errs++
					continue
				}
				for _, delta := range []float64{1e-10, 1e-5, 0.1} {
					e, lower, err := a.EpsilonBounds(delta)
					if err != nil {
						// Allowed: δ within the accountant's truncation and round-off bound.
						if paramName(err) != "delta" {
							t.Errorf("z=%g k=%d h=%g δ=%g: %v", z, k, h, delta, err)
						}
						errs++
						continue
					}
					cases++
					exact := gaussianExactEpsilon(t, z, k, delta)
					if !notBelow(e, exact) || lower > exact+refSlack*math.Max(1, exact) {
						t.Errorf("z=%g k=%d h=%g δ=%g: ε = %.12g, lower %.12g, exact %.12g", z, k, h, delta, e, lower, exact)
					}
					if d, _ := a.Delta(exact); exact > 0 && d < delta*(1-refSlack) {
						t.Errorf("z=%g k=%d h=%g: δ(exact ε) = %g below %g", z, k, h, d, delta)
					}
				}
			}
		}
	}
	t.Logf("%d (case, δ) pairs checked, %d grids or δ refused", cases, errs)
	if cases < 60 {
		t.Errorf("only %d cases ran", cases)
	}
}

// TestPLDLaplacePessimistic: Laplace compositions against their exact privacy profile (laplaceExactDelta).
func TestPLDLaplacePessimistic(t *testing.T) {
	for _, b := range []float64{0.05, 0.5, 1, 3, 100} {
		for _, k := range []int{1, 2, 5} {
			for _, h := range []float64{1e-4, 1e-2, 0.1} {
				a, _ := NewPLDAccountant(PLDParams{Discretization: h, MaxGridPoints: 1 << 18})
				if err := a.Compose(LaplaceEvent{NoiseMultiplier: b}, k); err != nil {
					var g *GridError
					if !errors.As(err, &g) {
						t.Errorf("b=%g k=%d h=%g: %v", b, k, h, err)
					}
					continue
				}
				for _, delta := range []float64{1e-6, 1e-2} {
					e, lower, err := a.EpsilonBounds(delta)
					if err != nil {
						t.Fatal(err)
					}
					exact := laplaceExactEpsilon(b, k, delta)
					if !notBelow(e, exact) || lower > exact+refSlack*math.Max(1, exact) {
						t.Errorf("Laplace b=%g k=%d h=%g δ=%g: ε = %.12g, lower %.12g, exact %.12g", b, k, h, delta, e, lower, exact)
					}
				}
			}
		}
	}
}

// TestPLDMonotone: more runs or less noise never lower ε (Gaussian, subsampled Gaussian and Laplace).
func TestPLDMonotone(t *testing.T) {
	eps := func(e Event, k int) float64 {
		a, _ := NewPLDAccountant(PLDParams{Discretization: 1e-3})
		if err := a.Compose(e, k); err != nil {
			t.Fatal(err)
		}
		v, err := a.Epsilon(1e-6)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, mk := range []func(z float64) Event{
		func(z float64) Event { return GaussianEvent{NoiseMultiplier: z} },
		func(z float64) Event { return PoissonSampled{Q: 0.02, Event: GaussianEvent{NoiseMultiplier: z}} },
		func(z float64) Event { return LaplaceEvent{NoiseMultiplier: z} },
		func(z float64) Event { return Mixed{P: 0.3, Event: GaussianEvent{NoiseMultiplier: z}} },
	} {
		for _, z := range []float64{0.8, 2} {
			prev := 0.0
			for _, k := range []int{1, 2, 3, 10, 50, 200} {
				v := eps(mk(z), k)
				if v < prev*(1-1e-12) {
					t.Errorf("%v: ε fell from %g to %g at %d runs", mk(z), prev, v, k)
				}
				prev = v
			}
		}
		prev := math.Inf(1)
		for _, z := range []float64{0.5, 0.6, 0.9, 1.5, 4, 20} {
			v := eps(mk(z), 20)
			if v > prev*(1+1e-12) {
				t.Errorf("%v × 20: ε rose from %g to %g with more noise", mk(z), prev, v)
			}
			prev = v
		}
	}
}

// TestPLDCertifiedError: on the benchmark workload the certified error is small and the lower bound holds
// against the exact Gaussian.
func TestPLDCertifiedError(t *testing.T) {
	a, _ := NewPLDAccountant(PLDParams{Discretization: 1e-4})
	if err := a.Compose(PoissonSampled{Q: 0.01, Event: GaussianEvent{NoiseMultiplier: 1}}, 10000); err != nil {
		t.Fatal(err)
	}
	e, lower, err := a.EpsilonBounds(1e-5)
	if err != nil {
		t.Fatal(err)
	}
	if !(lower <= e && e-lower < 0.01*e) {
		t.Errorf("10k subsampled Gaussian steps: ε ∈ [%g, %g], wider than 1%%", lower, e)
	}
	t.Logf("10k subsampled Gaussian steps (q=0.01, σ=1, h=1e-4): ε(1e-5) ∈ [%.6f, %.6f]", lower, e)
	d, dl, _ := a.DeltaBounds(e)
	if !(dl <= d && d <= 1e-5*(1+1e-9)) {
		t.Errorf("δ(ε) bounds [%g, %g] at ε = %g", dl, d, e)
	}
}
