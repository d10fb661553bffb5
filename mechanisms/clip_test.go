package mechanisms

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/dprl-project/dprl/mechanisms/internal/gauss"
)

// TestClipNonFinite: a gradient with a NaN or infinite entry is zeroed and reported by a NaN norm (the old
// code left NaN in place and turned [+Inf, 1] into [NaN, 0]).
func TestClipNonFinite(t *testing.T) {
	for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		for name, f := range map[string]func([]float64, float64) float64{"ClipToNorm": ClipToNorm, "NormalizeToNorm": NormalizeToNorm} {
			g := []float64{bad, 1}
			n := f(g, 1)
			if !math.IsNaN(n) || g[0] != 0 || g[1] != 0 {
				t.Errorf("%s([%v, 1], 1) = %v leaving %v, want NaN and [0 0]", name, bad, n, g)
			}
		}
	}
}

// TestClipHuge: entries whose squares overflow are still clipped to norm c exactly (old: the norm was +Inf
// and c/Inf = 0 zeroed the gradient; or NaN from Inf·0).
func TestClipHuge(t *testing.T) {
	cases := [][]float64{{1e308, 1e308}, {1.7e308, -1.7e308, 1e308}, {1e200, 0, 3e199}, {1e-200, 1e-200}}
	for _, in := range cases {
		g := append([]float64(nil), in...)
		n := ClipToNorm(g, 2)
		if math.IsNaN(n) || n <= 0 {
			t.Fatalf("ClipToNorm(%v) norm %v", in, n)
		}
		got := norm2(g)
		want := math.Min(2, n)
		if math.Abs(got-want) > 1e-14*want {
			t.Errorf("ClipToNorm(%v, 2): norm after %v, want %v", in, got, want)
		}
		// direction kept
		for i := range g {
			if (g[i] > 0) != (in[i] > 0) || (g[i] == 0) != (in[i] == 0) {
				t.Errorf("ClipToNorm(%v) changed direction: %v", in, g)
			}
		}
		h := append([]float64(nil), in...)
		NormalizeToNorm(h, 3)
		if got := norm2(h); math.Abs(got-3) > 1e-14 {
			t.Errorf("NormalizeToNorm(%v, 3): norm %v", in, got)
		}
	}
	if n := norm2([]float64{1.7e308, 1.7e308}); !math.IsInf(n, 1) {
		t.Errorf("norm beyond MaxFloat64 = %v, want +Inf", n)
	}
}

// TestClipBadBound: a clip bound that is not positive zeroes the gradient instead of passing it through
// (old: NaN compared false and left g unclipped).
func TestClipBadBound(t *testing.T) {
	for _, c := range []float64{math.NaN(), 0, -1} {
		g := []float64{3, 4}
		ClipToNorm(g, c)
		if g[0] != 0 || g[1] != 0 {
			t.Errorf("ClipToNorm with c = %v left %v", c, g)
		}
	}
}

// TestDPSGDDropsNonFinite: one bad example does not poison the private sum; it is counted. A gradient
// whose norm exceeds the largest float64 is dropped too (ClipFactor 0, as in nn's norm-only path), while
// [1e308, 1e308] (norm 1.41e308) is clipped.
func TestDPSGDDropsNonFinite(t *testing.T) {
	a, err := NewDPSGD(DPSGDParams{Clip: 1, NoiseMultiplier: 1e-300, Src: rand.NewPCG(1, 2)})
	if err != nil {
		t.Fatal(err)
	}
	dst := make([]float64, 2)
	grads := [][]float64{{3, 4}, {math.NaN(), 1}, {math.Inf(1), 0}, {0, math.Inf(-1)}, {1e308, 1e308}, {1.5e308, 1.5e308}}
	clipped, dropped, err := a.Aggregate(dst, grads)
	if err != nil {
		t.Fatal(err)
	}
	s := math.Sqrt(0.5)
	if clipped != 2 || dropped != 4 || math.Abs(dst[0]-(0.6+s)) > 1e-12 || math.Abs(dst[1]-(0.8+s)) > 1e-12 {
		t.Errorf("Aggregate = %v (clipped %d, dropped %d), want [%v %v], 2, 4", dst, clipped, dropped, 0.6+s, 0.8+s)
	}
	for _, i := range []int{1, 2, 3, 5} {
		if grads[i][0] != 0 || grads[i][1] != 0 {
			t.Errorf("dropped gradient %d left as %v, want zeroed", i, grads[i])
		}
	}
}

// TestClipFactor: min(1, c/norm), 0 for a NaN or +Inf norm, 1 for every finite norm when c = +Inf; the
// DPSGD method is the function at its Clip.
func TestClipFactor(t *testing.T) {
	for _, c := range []struct{ norm, c, want float64 }{
		{5, 1, 0.2}, {1, 1, 1}, {0.5, 1, 1}, {0, 1, 1}, {2, 3, 1}, {1e308, 1e-10, 1e-318},
		{math.NaN(), 1, 0}, {math.Inf(1), 1, 0}, {math.NaN(), math.Inf(1), 0}, {math.Inf(1), math.Inf(1), 0},
		{1e300, math.Inf(1), 1}, {math.MaxFloat64, 1, 1 / math.MaxFloat64},
	} {
		if got := ClipFactor(c.norm, c.c); got != c.want {
			t.Errorf("ClipFactor(%v, %v) = %v, want %v", c.norm, c.c, got, c.want)
		}
	}
	a, _ := NewDPSGD(DPSGDParams{Clip: 0.3, NoiseMultiplier: 1, Src: rand.NewPCG(1, 1)})
	if a.ClipFactor(0.6) != 0.5 || a.ClipFactor(0.1) != 1 || a.ClipFactor(math.Inf(1)) != 0 || a.Params().Clip != 0.3 {
		t.Errorf("DPSGD.ClipFactor at Clip 0.3: %v %v %v", a.ClipFactor(0.6), a.ClipFactor(0.1), a.ClipFactor(math.Inf(1)))
	}
}

// TestNoiseStreams: AddGaussian is x + σ·Z with Z the generator's next NormFloat64, bit for bit; Gaussian
// draws its normals from its Source in order and DPSGD a 256-bit key (four Uint64) per AddNoise, so
// mechanisms built on one Source with another rand.Rand interleave their draws in program order (what the
// algorithm packages rely on).
func TestNoiseStreams(t *testing.T) {
	ref := rand.New(rand.NewPCG(3, 4))
	rng := rand.New(rand.NewPCG(3, 4))
	for _, c := range []struct{ x, sigma float64 }{{1, 2}, {-3, 0.5}, {0.25, 0}, {1e300, 1e-300}} {
		want := c.x + c.sigma*ref.NormFloat64()
		if got := AddGaussian(c.x, c.sigma, rng); math.Float64bits(got) != math.Float64bits(want) {
			t.Errorf("AddGaussian(%v, %v) = %v, want %v", c.x, c.sigma, got, want)
		}
	}
	src := rand.NewPCG(5, 6)
	shared := rand.New(src)
	g, _ := NewGaussian(0.7, src)
	dp, _ := NewDPSGD(DPSGDParams{Clip: 0.5, NoiseMultiplier: 3, Src: src})
	ref = rand.New(rand.NewPCG(5, 6))
	u := shared.Float64()
	r := g.Release(2)
	x := []float64{1, -1, 0}
	dp.AddNoise(x)
	v := shared.IntN(1000)
	y := []float64{4, 5}
	g.AddNoise(y)
	want := []float64{ref.Float64(), 2 + 0.7*ref.NormFloat64()}
	noisy := []float64{1, -1, 0}
	gauss.Add([][]float64{noisy}, 1.5, 1, [4]uint64{ref.Uint64(), ref.Uint64(), ref.Uint64(), ref.Uint64()})
	want = append(want, noisy...)
	want = append(want, float64(ref.IntN(1000)), 4+0.7*ref.NormFloat64(), 5+0.7*ref.NormFloat64())
	got := []float64{u, r, x[0], x[1], x[2], float64(v), y[0], y[1]}
	for i := range want {
		if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
			t.Fatalf("draw %d: %v, want %v (all: %v vs %v)", i, got[i], want[i], got, want)
		}
	}
}

// TestDPSGDRefusesNoNoise: DPSGD never aggregates without noise, and a nil source is an error, not a panic.
func TestDPSGDRefusesNoNoise(t *testing.T) {
	for _, p := range []DPSGDParams{
		{Clip: 1, NoiseMultiplier: 0, Src: rand.NewPCG(1, 1)},
		{Clip: 1, NoiseMultiplier: math.NaN(), Src: rand.NewPCG(1, 1)},
		{Clip: 1, NoiseMultiplier: math.Inf(1), Src: rand.NewPCG(1, 1)},
		{Clip: 0, NoiseMultiplier: 1, Src: rand.NewPCG(1, 1)},
		{Clip: 1, NoiseMultiplier: 1},
	} {
		if _, err := NewDPSGD(p); err == nil {
			t.Errorf("NewDPSGD(%+v) accepted", p)
		}
	}
}
