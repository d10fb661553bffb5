package mechanisms

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// chiSquareCritical is the upper 0.1% point of the χ² distribution with df degrees of freedom
// (Wilson–Hilferty approximation, accurate to about 1% for df ≥ 5).
func chiSquareCritical(df int) float64 {
	k := float64(df)
	h := 2 / (9 * k)
	return k * math.Pow(1-h+3.0902*math.Sqrt(h), 3)
}

// chiSquareInts compares draws of an integer distribution with its pmf (given on [-kmax, kmax], tails merged
// into the end bins) and fails above the 0.1% critical value.
func chiSquareInts(t *testing.T, what string, draw func() int64, pmf func(k int64) float64, n int) {
	t.Helper()
	kmax := int64(0)
	for pmf(kmax+1)*float64(n) >= 5 {
		kmax++
	}
	counts := make([]float64, 2*kmax+1)
	var s, s2 float64
	for range n {
		k := draw()
		s += float64(k)
		s2 += float64(k) * float64(k)
		k = max(-kmax, min(kmax, k))
		counts[k+kmax]++
	}
	total := 0.0
	for k := -kmax - 200; k <= kmax+200; k++ {
		total += pmf(k)
	}
	chi := 0.0
	for i := range counts {
		k := int64(i) - kmax
		p := pmf(k) / total
		if k == -kmax || k == kmax {
			for j := int64(1); j <= 200; j++ {
				p += pmf(k+sign64(k)*j) / total
			}
		}
		e := p * float64(n)
		chi += (counts[i] - e) * (counts[i] - e) / e
	}
	if crit := chiSquareCritical(len(counts) - 1); chi > crit {
		t.Errorf("%s: χ² = %.1f over %d bins exceeds the 0.1%% point %.1f", what, chi, len(counts), crit)
	}
	// the pmf's mean and variance
	meanWant, m2Want := 0.0, 0.0
	for k := -kmax - 200; k <= kmax+200; k++ {
		meanWant += float64(k) * pmf(k) / total
		m2Want += float64(k*k) * pmf(k) / total
	}
	varWant := m2Want - meanWant*meanWant
	nf := float64(n)
	if m := s / nf; math.Abs(m-meanWant) > 4*math.Sqrt(varWant/nf) {
		t.Errorf("%s: mean %g, want %g ± %g", what, m, meanWant, 4*math.Sqrt(varWant/nf))
	}
	near(t, what+" variance", s2/nf-(s/nf)*(s/nf), varWant, 0.02)
}

func sign64(k int64) int64 {
	if k < 0 {
		return -1
	}
	return 1
}

func TestDiscreteGaussianExactPMF(t *testing.T) {
	for _, c := range []struct{ sigma, g float64 }{{3, 1}, {1.7, 0.5}, {0.6, 1}, {20.25, 2}} {
		m, err := NewDiscreteGaussian(DiscreteGaussianParams{Sigma: c.sigma, Granularity: c.g, Src: rand.NewPCG(11, 12)})
		if err != nil {
			t.Fatal(err)
		}
		tau := c.sigma / c.g
		chiSquareInts(t, "N_Z(0, τ²)", m.SampleInt, func(k int64) float64 {
			return math.Exp(-float64(k*k) / (2 * tau * tau))
		}, 200000)
	}
}

func TestDiscreteLaplaceExactPMF(t *testing.T) {
	for _, c := range []struct{ scale, g float64 }{{2.5, 1}, {0.75, 0.25}, {7, 1}, {1 + 0x1p-52, 1}, {3.3, 1}} {
		m, err := NewDiscreteLaplace(DiscreteLaplaceParams{Scale: c.scale, Granularity: c.g, Src: rand.NewPCG(5, 6)})
		if err != nil {
			t.Fatal(err)
		}
		b := c.scale / c.g
		chiSquareInts(t, "Lap_Z(b)", m.SampleInt, func(k int64) float64 {
			return math.Exp(-math.Abs(float64(k)) / b)
		}, 200000)
	}
}

// TestDiscreteDefaultGranularity: with the default grid (about 2⁴⁰ steps per σ) the noise has the right
// mean and variance in the units of the value, and releases are grid points.
func TestDiscreteDefaultGranularity(t *testing.T) {
	g, _ := NewDiscreteGaussian(DiscreteGaussianParams{Sigma: 2.5, Src: rand.NewPCG(1, 2)})
	l, _ := NewDiscreteLaplace(DiscreteLaplaceParams{Scale: 1.5, Src: rand.NewPCG(3, 4)})
	if g.Granularity() != DefaultGranularity(2.5) || g.Granularity() < 2.5*0x1p-40 || g.Granularity() >= 2.5*0x1p-39 {
		t.Errorf("granularity %g", g.Granularity())
	}
	for _, c := range []struct {
		name    string
		release func(float64) (float64, error)
		grid    float64
		varWant float64
	}{
		{"discrete Gaussian", g.Release, g.Granularity(), 2.5 * 2.5},
		{"discrete Laplace", l.Release, l.Granularity(), 2 * 1.5 * 1.5},
	} {
		n := 100000
		var s, s2 float64
		for range n {
			y, err := c.release(0.3)
			if err != nil {
				t.Fatal(err)
			}
			if r := y / c.grid; r != math.Trunc(r) {
				t.Fatalf("%s: release %v is not a multiple of %g", c.name, y, c.grid)
			}
			s += y - 0.3
			s2 += (y - 0.3) * (y - 0.3)
		}
		nf := float64(n)
		if m := s / nf; math.Abs(m) > 4*math.Sqrt(c.varWant/nf) {
			t.Errorf("%s: mean noise %g", c.name, m)
		}
		near(t, c.name+" variance", s2/nf, c.varWant, 0.03)
	}
}

func TestExactBernoulli(t *testing.T) {
	src := rand.NewPCG(9, 9)
	var s bigScratch
	n := 200000
	for _, c := range []struct{ num, den int64 }{{3, 2}, {1, 3}, {0, 1}, {7, 1}, {5, 5}} {
		hits := 0
		num, den := big.NewInt(c.num), big.NewInt(c.den)
		for range n {
			if s.bernoulliExpRat(src, num, den) {
				hits++
			}
		}
		p := math.Exp(-float64(c.num) / float64(c.den))
		if d := math.Abs(float64(hits)/float64(n) - p); d > 4*math.Sqrt(p*(1-p)/float64(n))+1e-12 {
			t.Errorf("Bernoulli(exp(−%d/%d)) frequency %g, want %g", c.num, c.den, float64(hits)/float64(n), p)
		}
	}
	hits := 0
	for range n {
		if bernoulliExp1(src) {
			hits++
		}
	}
	near(t, "Bernoulli(exp(−1))", float64(hits)/float64(n), math.Exp(-1), 0.01)
	// uniformStar: uniform mean, the right mass below 2⁻¹⁰, and random low mantissa bits.
	var sum float64
	small, odd := 0, 0
	for range n {
		u := uniformStar(src)
		if !(u > 0 && u < 1) {
			t.Fatalf("uniformStar gave %v", u)
		}
		sum += u
		if u < 0x1p-10 {
			small++
		}
		odd += int(math.Float64bits(u) & 1)
	}
	near(t, "mean of U*", sum/float64(n), 0.5, 0.01)
	if math.Abs(float64(small)-float64(n)*0x1p-10) > 5*math.Sqrt(float64(n)*0x1p-10) {
		t.Errorf("U* below 2⁻¹⁰: %d of %d", small, n)
	}
	near(t, "share of odd mantissas", float64(odd)/float64(n), 0.5, 0.02)
}

func TestSnappingLaplace(t *testing.T) {
	m, err := NewSnappingLaplace(SnappingLaplaceParams{Epsilon: 0.5, Sensitivity: 1, Bound: 1000, Src: rand.NewPCG(1, 1)})
	if err != nil {
		t.Fatal(err)
	}
	bp := 1000 / m.scale
	want := (1 + 0x1p-49*bp) * 0.5
	if e := m.Epsilon(); e < want || e > want*(1+1e-15) || e <= 0.5 {
		t.Errorf("true ε = %.17g, want just above %.17g", e, want)
	}
	if m.Grid() < 2 || m.Grid() > 2*(1+1e-12) {
		t.Errorf("grid %g, want Λ = 2 (λ = 2) times Δ'", m.Grid())
	}
	// The release of 3 is 2k·Δ' with k the nearest integer to (3 + L)/(2Δ'), L ~ Lap(2Δ'): compare the
	// counts of k with the Laplace mass of each cell [2k−1, 2k+1)·Δ' (ties have probability ~2⁻⁵²).
	cdf := func(x float64) float64 { // of 3 + Lap(2) in units of Δ'
		z := (x - 3/m.scale) / 2
		if z < 0 {
			return 0.5 * math.Exp(z)
		}
		return 1 - 0.5*math.Exp(-z)
	}
	chiSquareInts(t, "snapped release", func() int64 {
		y, err := m.Release(3)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(y) > 1000 {
			t.Fatalf("release %v beyond the bound", y)
		}
		k := y / m.Grid()
		if k != math.Round(k) {
			t.Fatalf("release %v is off the grid %g", y, m.Grid())
		}
		return int64(k) - 1 // centre the counts near 0 for the χ² helper
	}, func(k int64) float64 {
		c := float64(2 * (k + 1))
		return cdf(c+1) - cdf(c-1)
	}, 100000)
	// Clamping: values beyond the bound are released as if at the bound; the output never leaves [−B, B].
	for _, v := range []float64{math.Inf(1), 1e300, -1e300, math.Inf(-1)} {
		y, err := m.Release(v)
		if err != nil || math.Abs(y) > 1000 {
			t.Errorf("Release(%g) = %v, %v", v, y, err)
		}
	}
	if _, err := m.Release(math.NaN()); paramName(err) != "value" {
		t.Errorf("Release(NaN): %v", err)
	}
}

// TestSecureDeterministic: the secure samplers are a function of the source's words: same seed, same
// releases bit for bit.
func TestSecureDeterministic(t *testing.T) {
	run := func(seed uint64) []float64 {
		var out []float64
		sn, _ := NewSnappingLaplace(SnappingLaplaceParams{Epsilon: 1, Sensitivity: 1, Bound: 100, Src: rand.NewPCG(seed, 1)})
		dg, _ := NewDiscreteGaussian(DiscreteGaussianParams{Sigma: 3.3, Src: rand.NewPCG(seed, 2)})
		dl, _ := NewDiscreteLaplace(DiscreteLaplaceParams{Scale: 1.1, Src: rand.NewPCG(seed, 3)})
		for i := range 200 {
			a, _ := sn.Release(float64(i) / 7)
			b, _ := dg.Release(float64(i) / 7)
			c, _ := dl.Release(float64(i) / 7)
			out = append(out, a, b, c)
		}
		return out
	}
	a, b, c := run(5), run(5), run(6)
	same := 0
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			t.Fatalf("draw %d differs for the same seed: %v vs %v", i, a[i], b[i])
		}
		if a[i] == c[i] {
			same++
		}
	}
	if same > len(a)/2 {
		t.Errorf("different seeds agree on %d of %d draws", same, len(a))
	}
	// SecureSource works with every secure sampler.
	if _, err := NewDiscreteGaussian(DiscreteGaussianParams{Sigma: 1, Src: SecureSource()}); err != nil {
		t.Error(err)
	}
}

func TestSecureBadInput(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	src := rand.NewPCG(1, 1)
	snap := func(e, s, b float64, src rand.Source) error {
		_, err := NewSnappingLaplace(SnappingLaplaceParams{Epsilon: e, Sensitivity: s, Bound: b, Src: src})
		return err
	}
	dg := func(s, g float64, src rand.Source) error {
		_, err := NewDiscreteGaussian(DiscreteGaussianParams{Sigma: s, Granularity: g, Src: src})
		return err
	}
	dl := func(s, g float64, src rand.Source) error {
		_, err := NewDiscreteLaplace(DiscreteLaplaceParams{Scale: s, Granularity: g, Src: src})
		return err
	}
	cases := []struct {
		param string
		err   error
	}{
		{"Epsilon", snap(nan, 1, 10, src)}, {"Epsilon", snap(0, 1, 10, src)}, {"Epsilon", snap(-1, 1, 10, src)},
		{"Epsilon", snap(inf, 1, 10, src)}, {"Epsilon", snap(1e-320, 1, 10, src)},
		{"Sensitivity", snap(1, nan, 10, src)}, {"Sensitivity", snap(1, 0, 10, src)}, {"Sensitivity", snap(1, inf, 10, src)},
		{"Bound", snap(1, 1, nan, src)}, {"Bound", snap(1, 1, 0, src)}, {"Bound", snap(1, 1, -5, src)},
		{"Bound", snap(1, 1, inf, src)}, {"Bound", snap(1, 1, 0.5, src)}, {"Bound", snap(1, 1, 1e15, src)},
		{"Src", snap(1, 1, 10, nil)},
		{"Sigma", dg(nan, 0, src)}, {"Sigma", dg(0, 0, src)}, {"Sigma", dg(-1, 0, src)}, {"Sigma", dg(inf, 0, src)},
		{"Granularity", dg(1, 0.3, src)}, {"Granularity", dg(1, -0.5, src)}, {"Granularity", dg(1, nan, src)},
		{"Granularity", dg(1, inf, src)}, {"Granularity", dg(1, 0x1p-70, src)}, {"Granularity", dg(1, 0x1p30, src)},
		{"Src", dg(1, 0, nil)},
		{"Granularity", dl(1, 2, src)}, {"Granularity", dl(0x1p-20, 1, src)}, {"Scale", dl(nan, 0, src)}, {"Scale", dl(0, 0, src)}, {"Scale", dl(inf, 0, src)}, {"Granularity", dl(1, 3, src)},
		{"Src", dl(1, 0, nil)},
		{"sigma", second(NewGaussian(nan, src))}, {"sigma", second(NewGaussian(inf, src))}, {"sigma", second(NewGaussian(-1, src))},
		{"src", second(NewGaussian(1, nil))},
		{"epsilon", second(NewLaplace(0, 1, src))}, {"epsilon", second(NewLaplace(inf, 1, src))},
		{"epsilon", second(NewLaplace(1e-320, 1e300, src))},
		{"sensitivity", second(NewLaplace(1, nan, src))}, {"sensitivity", second(NewLaplace(1, -1, src))},
		{"src", second(NewLaplace(1, 1, nil))},
		{"scale", second(NewLaplaceScale(nan, src))}, {"scale", second(NewLaplaceScale(0, src))},
		{"scale", second(NewLaplaceScale(inf, src))}, {"src", second(NewLaplaceScale(1, nil))},
		{"Src", second(NewSparseVector(SparseVectorParams{Epsilon: 1, Sensitivity: 1}))},
		{"sensitivity", second(DiscreteGaussianSensitivity(0, 1, 1))},
		{"Granularity", second(DiscreteGaussianSensitivity(1, 0.3, 1))},
		{"dim", second(DiscreteGaussianSensitivity(1, 1, 0))},
		{"delta", second(DiscreteGaussianEpsilon(1, 1, 1, 1, 0))},
		{"sigma", second(DiscreteGaussianRho(nan, 1, 1, 1))},
		{"epsilon", third(DiscreteGaussianSigma(nan, 1e-5, 1, 1))},
		{"dim", third(DiscreteGaussianSigma(1, 1e-5, 1, -3))},
		{"scale", second(DiscreteLaplaceEpsilon(0, 1, 1, 1))},
	}
	for i, c := range cases {
		if got := paramName(c.err); got != c.param {
			t.Errorf("case %d: error %v names %q, want %q", i, c.err, got, c.param)
		}
	}
	g, _ := NewDiscreteGaussian(DiscreteGaussianParams{Sigma: 1, Src: src})
	x := []float64{1, nan, 3}
	if err := g.AddNoise(x); paramName(err) != "x[1]" || x[0] != 1 || x[2] != 3 {
		t.Errorf("AddNoise with NaN: %v, x = %v", err, x)
	}
	if _, err := g.Release(inf); paramName(err) != "value" {
		t.Errorf("Release(∞): %v", err)
	}
}

func TestDiscreteGaussianAccounting(t *testing.T) {
	// Rounding to the grid adds g·√d to the ℓ2 sensitivity.
	d, _ := DiscreteGaussianSensitivity(1, 0.25, 16)
	near(t, "Δ'", d, 2, 1e-15)
	if d < 2 {
		t.Errorf("Δ' = %v rounded down", d)
	}
	// σ from DiscreteGaussianSigma meets ε, and a slightly smaller σ does not.
	for _, c := range []struct {
		eps, delta, sens float64
		dim              int
	}{{1, 1e-5, 1, 1}, {0.1, 1e-6, 2, 1000}, {8, 1e-3, 0.5, 10}} {
		sigma, g, err := DiscreteGaussianSigma(c.eps, c.delta, c.sens, c.dim)
		if err != nil {
			t.Fatal(err)
		}
		e, _ := DiscreteGaussianEpsilon(sigma, c.sens, g, c.dim, c.delta)
		lower, _ := DiscreteGaussianEpsilon(sigma*(1-1e-9), c.sens, g, c.dim, c.delta)
		if e > c.eps || lower <= c.eps {
			t.Errorf("%+v: σ = %g gives ε = %.12g (σ·(1−1e−9): %.12g)", c, sigma, e, lower)
		}
		// zCDP conversion ρ + 2√(ρ ln 1/δ) with ρ = Δ'²/(2σ²)
		dp, _ := DiscreteGaussianSensitivity(c.sens, g, c.dim)
		rho := dp * dp / (2 * sigma * sigma)
		near(t, "ε", e, rho+2*math.Sqrt(rho*math.Log(1/c.delta)), 1e-12)
	}
	e, _ := DiscreteLaplaceEpsilon(2, 1, 0.5, 4)
	near(t, "discrete Laplace ε", e, 1.5, 1e-15)
	if e < 1.5 {
		t.Error("discrete Laplace ε rounded down")
	}
}
