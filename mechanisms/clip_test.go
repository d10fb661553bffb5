package mechanisms

import (
	"math"
	"math/rand/v2"
	"testing"
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

// TestDPSGDDropsNonFinite: one bad example does not poison the private sum; it is counted.
func TestDPSGDDropsNonFinite(t *testing.T) {
	a, err := NewDPSGD(DPSGDParams{Clip: 1, NoiseMultiplier: 1e-300, Src: rand.NewPCG(1, 2)})
	if err != nil {
		t.Fatal(err)
	}
	dst := make([]float64, 2)
	clipped, dropped, err := a.Aggregate(dst, [][]float64{{3, 4}, {math.NaN(), 1}, {math.Inf(1), 0}, {0, math.Inf(-1)}, {1e308, 1e308}})
	if err != nil {
		t.Fatal(err)
	}
	s := math.Sqrt(0.5)
	if clipped != 2 || dropped != 3 || math.Abs(dst[0]-(0.6+s)) > 1e-12 || math.Abs(dst[1]-(0.8+s)) > 1e-12 {
		t.Errorf("Aggregate = %v (clipped %d, dropped %d), want [%v %v], 2, 3", dst, clipped, dropped, 0.6+s, 0.8+s)
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
