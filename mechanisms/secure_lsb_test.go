package mechanisms

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Mironov's (2012) least-significant-bit attack on float noise, run against the float path and the secure
// path with neighbouring inputs 0 and 1 (sensitivity 1), 2000 releases of each.
//
// The attacker knows the sampler's code but not its seed. Go's NormFloat64 returns j·w[i] for a 31-bit
// integer j and one of 128 table constants w[i] (except in the rare tail), so a float Gaussian release of 0
// is σ·j·w[i] exactly: a sparse set of float64s. A release of 1 is 1 + σ·j·w[i] rounded, which almost never
// falls in that set. The attacker reads the table constants off the sampler itself, by feeding it a
// scripted source, and tests membership. For float Laplace noise (a difference of two such exponentials the
// set is not sparse) a coarser bit pattern suffices: 1 + n rounded is always a multiple of 2⁻⁵³, while n
// itself often is not when |n| < 1/2: an event impossible for one input and not for the other breaks
// ε-DP for every ε.

// scriptedSource replays fixed words, then zeros.
type scriptedSource struct {
	words []uint64
	i     int
}

func (s *scriptedSource) Uint64() uint64 {
	if s.i < len(s.words) {
		s.i++
		return s.words[s.i-1]
	}
	return 0
}

// normTable recovers NormFloat64's 128 layer constants: with j = 1 in layer i the sampler returns w[i] (the
// wedge test, fed a zero uniform, accepts).
func normTable() []float64 {
	w := make([]float64, 128)
	for i := range w {
		w[i] = rand.New(&scriptedSource{words: []uint64{uint64(i)<<32 | 1}}).NormFloat64()
	}
	return w
}

// inFloatGaussianSupport reports whether y = σ·(j·w[i]) in float64 for some layer i and 0 < |j| < 2³¹:
// whether y can be a float Gaussian release of 0. (j = 0, the release 0 itself, has probability 2⁻³¹ on the
// float path; leaving it out keeps the test about low-order bits rather than about the value 0.)
func inFloatGaussianSupport(y, sigma float64, w []float64) bool {
	for _, wi := range w {
		c := y / sigma / wi
		if !(math.Abs(c) < 0x1p31+3) {
			continue
		}
		r := math.Round(c)
		for j := r - 2; j <= r+2; j++ {
			if j != 0 && math.Abs(j) < 0x1p31 && sigma*(j*wi) == y {
				return true
			}
		}
	}
	return false
}

// offGrid reports whether y is not a multiple of 2⁻⁵³, which no float release of 1 + noise can be.
func offGrid(y float64) bool { v := y * 0x1p53; return v != math.Trunc(v) }

// lsbSuccess draws n releases of 0 and of 1 and returns the share of correct guesses of a distinguisher that
// says "0" when says0 holds, and the counts of says0 on each input.
func lsbSuccess(n int, release func(float64) float64, says0 func(float64) bool) (success float64, hits0, hits1 int) {
	for range n {
		if says0(release(0)) {
			hits0++
		}
		if says0(release(1)) {
			hits1++
		}
	}
	return float64(hits0+n-hits1) / float64(2*n), hits0, hits1
}

func TestLSBAttack(t *testing.T) {
	const n = 2000
	chance := 0.5 + 3.0902*math.Sqrt(0.25/(2*n)) // 99.9% binomial bound for a coin
	w := normTable()
	for i, wi := range w {
		if !(wi > 0 && wi < 1e-8) {
			t.Fatalf("recovered table w[%d] = %g", i, wi)
		}
	}
	const sigma = 10 // μ = 0.1: any test told 0 from 1 at most Φ(μ/2) = 52.0% of the time, ideally
	gaussSupport := func(y float64) bool { return inFloatGaussianSupport(y, sigma, w) }

	// Float path, seeded and with SecureSource: the membership attack.
	for _, src := range []struct {
		name string
		s    rand.Source
	}{{"seeded", rand.NewPCG(1, 2)}, {"SecureSource", SecureSource()}} {
		g, _ := NewGaussian(sigma, src.s)
		succ, h0, h1 := lsbSuccess(n, g.Release, gaussSupport)
		t.Logf("float Gaussian σ=%g (%s): membership attack correct %.2f%% (releases of 0 in the set %d/%d, of 1 %d/%d)",
			float64(sigma), src.name, 100*succ, h0, n, h1, n)
		if succ < 0.99 {
			t.Errorf("float Gaussian (%s): the LSB attack should succeed almost always; got %.4f", src.name, succ)
		}
	}
	// Float Laplace, b = 1 (ε = 1): an event with probability 0 for input 1 and about 10% for input 0, which
	// no finite ε allows.
	l, _ := NewLaplace(1, 1, rand.NewPCG(3, 4))
	succ, h0, h1 := lsbSuccess(n, l.Release, offGrid)
	t.Logf("float Laplace b=1: off-grid attack correct %.2f%% (off the 2⁻⁵³ grid: input 0 %d/%d, input 1 %d/%d)", 100*succ, h0, n, h1, n)
	if h1 != 0 || h0 < n/20 {
		t.Errorf("float Laplace: off-grid releases %d/%d for input 0 and %d/%d for input 1; want many and none", h0, n, h1, n)
	}

	// Secure path: the same distinguishers do no better than chance.
	snap, _ := NewSnappingLaplace(SnappingLaplaceParams{Epsilon: 1, Sensitivity: 1, Bound: 100, Src: rand.NewPCG(5, 6)})
	dg, _ := NewDiscreteGaussian(DiscreteGaussianParams{Sigma: sigma, Src: rand.NewPCG(7, 8)})
	dl, _ := NewDiscreteLaplace(DiscreteLaplaceParams{Scale: 1, Src: rand.NewPCG(9, 10)})
	must := func(f func(float64) (float64, error)) func(float64) float64 {
		return func(v float64) float64 {
			y, err := f(v)
			if err != nil {
				t.Fatal(err)
			}
			return y
		}
	}
	for _, c := range []struct {
		name    string
		release func(float64) float64
	}{
		{"snapping Laplace ε=1", must(snap.Release)},
		{"discrete Gaussian σ=10", must(dg.Release)},
		{"discrete Laplace b=1", must(dl.Release)},
	} {
		for _, d := range []struct {
			name  string
			says0 func(float64) bool
		}{{"membership", gaussSupport}, {"off-grid", offGrid}} {
			succ, h0, h1 := lsbSuccess(n, c.release, d.says0)
			t.Logf("%s: %s attack correct %.2f%% (flags %d/%d releases of 0, %d/%d of 1)", c.name, d.name, 100*succ, h0, n, h1, n)
			if succ > chance {
				t.Errorf("%s: %s attack correct %.4f of the time, above chance bound %.4f", c.name, d.name, succ, chance)
			}
		}
	}
}
