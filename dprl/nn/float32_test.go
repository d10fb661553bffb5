package nn

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestFloat32Network: a float32 network is the float64 one (same source) rounded; its outputs, per-example
// norms and clipped gradient agree with the float64 ones to float32 precision; its clip factors never
// exceed the float64 ones (rounded toward zero); and its DP-SGD steps are the same bit for bit on 1 and 4
// threads.
func TestFloat32Network(t *testing.T) {
	sizes := []int{5, 40, 30, 3}
	m64, _ := NewMLP(sizes, Tanh, rand.NewPCG(5, 5))
	m32, _ := NewNetwork[float32](sizes, Tanh, rand.NewPCG(5, 5))
	for l := range m64.W {
		for i, v := range m64.W[l] {
			if m32.W[l][i] != float32(v) {
				t.Fatalf("W[%d][%d]: float32 %v, float64 %v", l, i, m32.W[l][i], v)
			}
		}
	}
	rng := rand.New(rand.NewPCG(6, 6))
	const n = 33
	x64, d64 := randomBatch(rng, n, 5), randomBatch(rng, n, 3)
	x32, d32 := make([]float32, len(x64)), make([]float32, len(d64))
	for i, v := range x64 {
		x32[i] = float32(v)
	}
	for i, v := range d64 {
		d32[i] = float32(v)
	}
	ws64, ws32 := NewWorkspace(m64, n), NewWorkspace(m32, n)
	out64, out32 := ws64.Forward(m64, x64), ws32.Forward(m32, x32)
	for i := range out64 {
		if math.Abs(float64(out32[i])-out64[i]) > 1e-5*(1+math.Abs(out64[i])) {
			t.Fatalf("output %d: float32 %v, float64 %v", i, out32[i], out64[i])
		}
	}
	ws64.Backward(m64, d64)
	ws32.Backward(m32, d32)
	norms64 := append([]float64(nil), ws64.ExampleNormsSq(m64, nil)...)
	norms32 := ws32.ExampleNormsSq(m32, nil)
	for i := range norms64 {
		if math.Abs(norms32[i]-norms64[i]) > 1e-4*norms64[i] {
			t.Fatalf("norm² %d: float32 %v, float64 %v", i, norms32[i], norms64[i])
		}
	}
	const clip = 0.3
	g64, g32 := NewGrads(m64), NewGrads(m32)
	if _, _, err := ws64.ClippedGradient(m64, clip, g64, nil); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ws32.ClippedGradient(m32, clip, g32, nil); err != nil {
		t.Fatal(err)
	}
	for l := range g64.W {
		for i, v := range g64.W[l] {
			if math.Abs(float64(g32.W[l][i])-v) > 1e-4*clip {
				t.Fatalf("clipped gradient W[%d][%d]: float32 %v, float64 %v", l, i, g32.W[l][i], v)
			}
		}
	}
	for _, f := range []float64{1, 0.3, 1 / 3.0, math.Nextafter(1, 0), 1e-30} {
		if z := towardZero[float32](f); float64(z) > f || float64(math.Nextafter32(z, float32(math.Inf(1)))) <= f {
			t.Errorf("towardZero(%v) = %v: not the largest float32 at most it", f, z)
		}
	}
	step := func() *MLP32 {
		m, _ := NewNetwork[float32]([]int{8, 64, 64, 4}, ReLU, rand.NewPCG(1, 1))
		src := rand.NewPCG(2, 2)
		rng := rand.New(src)
		const n = 128
		x, d := make([]float32, n*8), make([]float32, n*4)
		for i := range x {
			x[i] = float32(rng.NormFloat64())
		}
		for i := range d {
			d[i] = float32(rng.NormFloat64())
		}
		ws, g, dp := NewWorkspace(m, n), NewGrads(m), newDP(t, 0.1, 1, src)
		for range 3 {
			ws.Forward(m, x)
			ws.Backward(m, d)
			if _, _, err := ws.PrivateGradient(m, dp, g, nil); err != nil {
				t.Fatal(err)
			}
			SGDStep(0.1, m, g)
		}
		return m
	}
	sameAtGOMAXPROCS1And4(t, "float32 DP-SGD", func() any { return step() })
}
