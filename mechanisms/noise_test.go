package mechanisms

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// sampleStats returns the mean and variance of n draws of f.
func sampleStats(n int, f func(i int) float64) (mean, variance float64) {
	var s, s2 float64
	for i := range n {
		v := f(i)
		s += v
		s2 += v * v
	}
	mean = s / float64(n)
	return mean, s2/float64(n) - mean*mean
}

// TestOUConditionalLaws checks the sampler's three conditional laws (between two stored points, left and
// right of all of them) against the closed forms in the package documentation ("Functional noise"), which
// equal the Gaussian conditional 1 − kᵀK⁻¹k.
func TestOUConditionalLaws(t *testing.T) {
	const sigma, beta, n = 1.5, 3.0, 200000
	zl, zr := 0.8, -1.2
	stored := func(i int) *OUPath {
		p, _ := NewOUPath(sigma, beta, rand.NewPCG(uint64(i), 99))
		p.insert(0.2, zl)
		p.insert(0.6, zr)
		return p
	}
	// Between: the Gaussian conditional on both neighbours, computed from the 2×2 kernel directly.
	x := 0.35
	k := func(a, b float64) float64 { return sigma * sigma * math.Exp(-beta*math.Abs(a-b)) }
	k11, k12, k22 := k(0.2, 0.2), k(0.2, 0.6), k(0.6, 0.6)
	det := k11*k22 - k12*k12
	kx1, kx2 := k(x, 0.2), k(x, 0.6)
	w1, w2 := (kx1*k22-kx2*k12)/det, (kx2*k11-kx1*k12)/det
	wantMean := w1*zl + w2*zr
	wantVar := k(x, x) - (w1*kx1 + w2*kx2)
	m, v := sampleStats(n, func(i int) float64 { return stored(i).At(x) })
	if math.Abs(m-wantMean) > 5*math.Sqrt(wantVar/n) {
		t.Errorf("between: mean %g, want %g", m, wantMean)
	}
	near(t, "between: variance", v, wantVar, 0.015)
	// Left of everything and right of everything: conditional on the nearest point only (Markov).
	for _, c := range []struct {
		x, zn, a float64
	}{{0.05, zl, 0.15}, {0.9, zr, 0.3}} {
		m, v := sampleStats(n, func(i int) float64 { return stored(i).At(c.x) })
		wm := math.Exp(-beta*c.a) * c.zn
		wv := sigma * sigma * (1 - math.Exp(-2*beta*c.a))
		if math.Abs(m-wm) > 5*math.Sqrt(wv/n) {
			t.Errorf("x=%g: mean %g, want %g", c.x, m, wm)
		}
		near(t, "edge variance", v, wv, 0.015)
	}
}

// TestOUCovarianceWhateverTheQueryOrder draws many independent paths, querying the same points in two
// different orders, and compares the empirical covariance with σ² exp(−β|x − y|).
func TestOUCovarianceWhateverTheQueryOrder(t *testing.T) {
	const sigma, beta, n = 2.0, 1.7, 40000
	xs := []float64{0, 0.1, 0.5, 0.9}
	for _, order := range [][]int{{0, 1, 2, 3}, {2, 0, 3, 1}} {
		vals := make([][4]float64, n)
		for i := range vals {
			p, _ := NewOUPath(sigma, beta, rand.NewPCG(uint64(i), 5))
			for _, j := range order {
				vals[i][j] = p.At(xs[j])
			}
		}
		for a := range xs {
			for b := a; b < len(xs); b++ {
				c := 0.0
				for _, v := range vals {
					c += v[a] * v[b]
				}
				c /= n
				want := sigma * sigma * math.Exp(-beta*math.Abs(xs[a]-xs[b]))
				if math.Abs(c-want) > 0.06*sigma*sigma {
					t.Errorf("order %v: cov(%g, %g) = %.3f, want %.3f", order, xs[a], xs[b], c, want)
				}
			}
		}
	}
}

func TestOUPathBookkeeping(t *testing.T) {
	p, _ := NewOUPath(1, 50, rand.NewPCG(1, 1))
	r := rand.New(rand.NewPCG(2, 2))
	xs := make([]float64, 5000)
	for i := range xs {
		xs[i] = r.Float64()
		p.At(xs[i])
	}
	first := p.At(xs[17])
	if p.At(xs[17]) != first || p.Len() != 5000 {
		t.Fatalf("repeated query changed the path or the count (%d)", p.Len())
	}
	// Treap invariants: in-order keys sorted, heap order on priorities, and logarithmic depth.
	var walk func(n int32, lo, hi float64, depth int) int
	walk = func(n int32, lo, hi float64, depth int) int {
		if n == nilNode {
			return depth
		}
		nd := p.nodes[n]
		if nd.x <= lo || nd.x >= hi {
			t.Fatalf("key %g outside (%g, %g)", nd.x, lo, hi)
		}
		for _, c := range []int32{nd.left, nd.right} {
			if c != nilNode && p.nodes[c].prio > nd.prio {
				t.Fatal("heap order violated")
			}
		}
		return max(walk(nd.left, lo, nd.x, depth+1), walk(nd.right, nd.x, hi, depth+1))
	}
	if d := walk(p.root, math.Inf(-1), math.Inf(1), 0); d > 60 {
		t.Errorf("treap depth %d for 5000 keys", d)
	}
	p.Reset()
	if p.Len() != 0 || p.At(xs[17]) == first {
		t.Error("Reset did not start a fresh path")
	}
	// One path per action: each path's values do not depend on whether the others were queried.
	a, _ := NewOUPaths(3, 1, 1, rand.NewPCG(9, 9))
	b, _ := NewOUPaths(3, 1, 1, rand.NewPCG(9, 9))
	a[0].At(0.5)
	a[2].At(0.1)
	if a[1].At(0.3) != b[1].At(0.3) {
		t.Error("path 1 depends on queries to the other paths")
	}
}

func TestOUBounds(t *testing.T) {
	near(t, "RKHS bound", OURKHSNormSqBound(2, 3, 4), 3*4+9.0/8, 1e-15)
	// Wang & Hegde's first worked row: σ = 22.2, β = 1/0.185, k = 230: 2k − 8.68√β σ ≈ 12, tail ≈ e^{−72}.
	beta := 1 / 0.185
	u := 2*230 - 8.68*math.Sqrt(beta)*22.2
	near(t, "tail margin", u, 12.0, 0.03)
	near(t, "tail", OUSupTail(22.2, beta, 2*230), math.Exp(-u*u/2), 1e-12)
	if OUSupTail(1, 1, 1) != 1 {
		t.Error("tail below the threshold is not 1")
	}
}

func TestSparseVector(t *testing.T) {
	s, err := NewSparseVector(SparseVectorParams{Epsilon: 0.5, Sensitivity: 1, Threshold: 10, Stop: StopAtAbove, Src: rand.NewPCG(1, 1)})
	if err != nil {
		t.Fatal(err)
	}
	near(t, "threshold scale", s.ThresholdScale(), 4, 1e-15)
	near(t, "query scale", s.QueryScale(), 8, 1e-15)
	// Far below the threshold: "below"; far above: "above", and then the run halts.
	for range 20 {
		if above, _ := s.Above(-1000); above {
			t.Fatal("value far below the threshold answered above")
		}
	}
	if above, _ := s.Above(1000); !above {
		t.Fatal("value far above answered below")
	}
	if _, err := s.Above(0); !errors.Is(err, ErrHalted) {
		t.Fatalf("query after the stopping answer: %v", err)
	}
	s.Reset()
	if _, err := s.Above(0); err != nil {
		t.Fatal(err)
	}
	// The mirrored rule stops at the first "below".
	m, _ := NewSparseVector(SparseVectorParams{Epsilon: 1, Sensitivity: 1, Threshold: 0, Stop: StopAtBelow, Src: rand.NewPCG(2, 2)})
	m.Above(1000)
	m.Above(-1000)
	if _, err := m.Above(1000); !errors.Is(err, ErrHalted) {
		t.Error("StopAtBelow did not halt at the first below")
	}
	// At the threshold, P(above) = 1/2 by symmetry of the two Laplace noises.
	count := 0
	r, _ := NewSparseVector(SparseVectorParams{Epsilon: 1, Sensitivity: 1, Threshold: 3, Stop: StopAtAbove, Src: rand.NewPCG(3, 3)})
	for range 20000 {
		r.Reset()
		if a, _ := r.Above(3); a {
			count++
		}
	}
	if math.Abs(float64(count)/20000-0.5) > 0.015 {
		t.Errorf("P(above at the threshold) = %g", float64(count)/20000)
	}
	if _, err := NewSparseVector(SparseVectorParams{Epsilon: 1, Sensitivity: 1, Threshold: math.NaN(), Src: rand.NewPCG(1, 1)}); paramName(err) != "Threshold" {
		t.Errorf("NaN threshold: %v", err)
	}
}

// TestSmoothSensitivity checks the constants and the smoothness that condition (b) of the smooth-sensitivity
// lemma needs for DP-LSW's count-based bound: Ψ_β(n) ≤ e^β Ψ_β(n′) for neighbouring count vectors
// (‖n − n′‖∞ ≤ 1).
func TestSmoothSensitivity(t *testing.T) {
	a, b := smoothConstants(t, 0.5, 1e-5, 10, SmoothLemma1)
	near(t, "α", a, 5*math.Sqrt(2*math.Log(2e5))/0.5, 1e-15)
	near(t, "β", b, 0.5/(4*(10+math.Log(2e5))), 1e-15)
	a, b = smoothConstants(t, 0.5, 1e-5, 10, SmoothAppendixA)
	near(t, "α (App. A)", a, 15*math.Sqrt(2*math.Log(4e5))/0.5, 1e-15)
	r := math.Sqrt(10) + math.Sqrt(2*math.Log(2e5))
	near(t, "β (App. A)", b, 1/(5*r*r), 1e-15)

	// Balle et al.'s chain experiment at ε = δ = 0.1 (package doc, "Reference values"): α = 122.39;
	// β = 5.953e−4 for the tabular chain (d = 39) and 1.087e−3 for pair aggregation (d = 20).
	a, b = smoothConstants(t, 0.1, 0.1, 39, SmoothLemma1)
	near(t, "Balle α", a, 122.39, 1e-4)
	near(t, "Balle β, d = 39", b, 5.953e-4, 1e-3)
	_, b = smoothConstants(t, 0.1, 0.1, 20, SmoothLemma1)
	near(t, "Balle β, d = 20", b, 1.087e-3, 1e-3)

	w := []float64{0.5, 1, 2, 0.25, 1}
	psi := func(n []int, beta float64) float64 {
		kMax := 0
		for _, c := range n {
			kMax = max(kMax, c)
		}
		bound, _ := SmoothUpperBound(beta, kMax, func(k int) float64 {
			s := 0.0
			for i, c := range n {
				d := math.Max(float64(c-k), 1)
				s += w[i] / (d * d)
			}
			return s
		})
		return bound
	}
	rng := rand.New(rand.NewPCG(4, 4))
	for range 2000 {
		n := make([]int, len(w))
		m := make([]int, len(w))
		for i := range n {
			n[i] = rng.IntN(30)
			m[i] = max(n[i]+rng.IntN(3)-1, 0)
		}
		for _, beta := range []float64{0.01, 0.1, 1} {
			if x, y := psi(n, beta), psi(m, beta); x > math.Exp(beta)*y*(1+1e-12) {
				t.Fatalf("Ψ(%v) = %g > e^β Ψ(%v) = %g", n, x, m, math.Exp(beta)*y)
			}
		}
	}
	// The constants are proven for ε ≤ 1 only: ε = 1 is allowed, anything above is refused for both variants.
	smoothConstants(t, 1, 1e-5, 10, SmoothLemma1)
	for _, v := range []SmoothVariant{SmoothLemma1, SmoothAppendixA} {
		_, _, err := SmoothGaussianConstants(1.000001, 1e-5, 10, v)
		var pe *ParamError
		if !errors.As(err, &pe) || pe.Param != "epsilon" || pe.Allowed != "(0, 1]" {
			t.Errorf("%v at ε slightly above 1: %v", v, err)
		}
	}
	m, _ := NewSmoothGaussian(0.5, 1e-5, 3, SmoothLemma1, rand.NewPCG(5, 5))
	if _, _, err := m.Release([]float64{1, 2}, 1); paramName(err) != "len(value)" {
		t.Errorf("wrong dimension: %v", err)
	}
	out, sigma, err := m.Release([]float64{1, 2, 3}, 0.01)
	if err != nil || len(out) != 3 || sigma != m.Alpha()*0.01 {
		t.Errorf("release %v σ %g err %v", out, sigma, err)
	}
}

func smoothConstants(t *testing.T, eps, delta float64, d int, v SmoothVariant) (alpha, beta float64) {
	t.Helper()
	a, b, err := SmoothGaussianConstants(eps, delta, d, v)
	if err != nil {
		t.Fatal(err)
	}
	return a, b
}

func TestDPSGDPrimitives(t *testing.T) {
	g := []float64{3, 4}
	if n := ClipToNorm(g, 1); n != 5 || math.Abs(norm2(g)-1) > 1e-15 {
		t.Errorf("clip: norm before %g, after %g", n, norm2(g))
	}
	small := []float64{0.3, 0.4}
	ClipToNorm(small, 1)
	if small[0] != 0.3 {
		t.Error("clipping changed a gradient inside the ball")
	}
	NormalizeToNorm(small, 1)
	near(t, "normalised norm", norm2(small), 1, 1e-15)
	a, err := NewDPSGD(DPSGDParams{Clip: 1, NoiseMultiplier: 2, Src: rand.NewPCG(6, 6)})
	if err != nil {
		t.Fatal(err)
	}
	// With zero gradients the output is pure noise of std z·C = 2.
	dst := make([]float64, 100000)
	grads := [][]float64{make([]float64, len(dst))}
	a.Aggregate(dst, grads)
	_, v := sampleStats(len(dst), func(i int) float64 { return dst[i] })
	near(t, "noise variance", v, 4, 0.02)
	// Noise of std 1e-300 leaves the sum of clipped gradients visible.
	b, _ := NewDPSGD(DPSGDParams{Clip: 1, NoiseMultiplier: 1e-300, Src: rand.NewPCG(6, 6)})
	out := make([]float64, 2)
	clipped, _, _ := b.Aggregate(out, [][]float64{{3, 4}, {0.1, 0}})
	if clipped != 1 || math.Abs(out[0]-0.7) > 1e-15 || math.Abs(out[1]-0.8) > 1e-15 {
		t.Errorf("sum of clipped gradients %v (clipped %d), want [0.7 0.8]", out, clipped)
	}
	if _, _, err := b.Aggregate(out, [][]float64{{1, 2, 3}}); paramName(err) != "len(grads[0])" {
		t.Errorf("mismatched length: %v", err)
	}
}
