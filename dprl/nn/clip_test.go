package nn

import (
	"math"
	"math/rand/v2"
	"testing"
)

// privateGrad runs one DP-SGD aggregation on a 3→8→2 tanh network for the batch x, dOut.
func privateGrad(t *testing.T, x, dOut []float64, cfg DPSGDConfig) (*Grads, []float64, int) {
	t.Helper()
	m, _ := NewMLP([]int{3, 8, 2}, Tanh, rand.NewPCG(1, 1))
	ws := NewWorkspace(m, len(x)/3)
	ws.Forward(m, x)
	ws.Backward(m, dOut)
	g := NewGrads(m)
	norms, dropped, err := ws.PrivateGradient(m, cfg, rand.New(rand.NewPCG(2, 2)), g, nil)
	if err != nil {
		t.Fatal(err)
	}
	return g, norms, dropped
}

func gradsClose(a, b *Grads, tol float64) bool {
	for l := range a.W {
		for i := range a.W[l] {
			if math.Abs(a.W[l][i]-b.W[l][i]) > tol {
				return false
			}
		}
		for i := range a.B[l] {
			if math.Abs(a.B[l][i]-b.B[l][i]) > tol {
				return false
			}
		}
	}
	return true
}

// TestPrivateGradientNonFinite: an example whose input or loss gradient is NaN or infinite contributes
// exactly what a zero-gradient example does (nothing), is counted, and its norm reads NaN; the old code
// spread NaN through the whole private gradient.
func TestPrivateGradientNonFinite(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	x, dOut := randomBatch(rng, 4, 3), randomBatch(rng, 4, 2)
	cfg := DPSGDConfig{Clip: 0.5, NoiseMultiplier: 1}
	// reference: example 0 has a zero loss gradient
	zero := append([]float64(nil), dOut...)
	zero[0], zero[1] = 0, 0
	want, _, _ := privateGrad(t, x, zero, cfg)
	for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		for _, where := range []string{"input", "loss gradient"} {
			xb, db := append([]float64(nil), x...), append([]float64(nil), dOut...)
			if where == "input" {
				xb[1] = bad
			} else {
				db[0] = bad
			}
			got, norms, dropped := privateGrad(t, xb, db, cfg)
			if dropped != 1 || !math.IsNaN(norms[0]) || math.IsNaN(norms[1]) {
				t.Errorf("%v in the %s: dropped %d, norms %v", bad, where, dropped, norms)
			}
			if !gradsClose(got, want, 0) {
				t.Errorf("%v in the %s: the private gradient differs from the one with the example zeroed", bad, where)
			}
		}
	}
}

// TestPrivateGradientHuge: a loss gradient of 1e200 (squared norm 1e400 overflows) is clipped like one of 1e2
// in the same direction, not dropped or turned into NaN.
func TestPrivateGradientHuge(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	x, dOut := randomBatch(rng, 4, 3), randomBatch(rng, 4, 2)
	cfg := DPSGDConfig{Clip: 0.01, NoiseMultiplier: 1}
	mod := func(s float64) []float64 {
		d := append([]float64(nil), dOut...)
		d[0], d[1] = 0.6*s, -0.8*s
		return d
	}
	want, _, _ := privateGrad(t, x, mod(1e2), cfg)
	got, norms, dropped := privateGrad(t, x, mod(1e200), cfg)
	if dropped != 0 || !(norms[0] > 1e199) || math.IsInf(norms[0], 0) {
		t.Fatalf("dropped %d, norm %v", dropped, norms[0])
	}
	if !gradsClose(got, want, 1e-15) {
		t.Error("a huge gradient is not clipped like a large one in the same direction")
	}
}

// TestDPSGDConfigRefusesNoNoise: PrivateGradient never returns a noiseless gradient.
func TestDPSGDConfigRefusesNoNoise(t *testing.T) {
	m, _ := NewMLP([]int{1, 2}, Tanh, rand.NewPCG(1, 1))
	ws := NewWorkspace(m, 1)
	ws.Forward(m, []float64{1})
	ws.Backward(m, []float64{1, 1})
	for _, c := range []DPSGDConfig{{Clip: 1}, {Clip: 1, NoiseMultiplier: -1}, {Clip: 1, NoiseMultiplier: math.NaN()},
		{Clip: 1, NoiseMultiplier: math.Inf(1)}, {Clip: 0, NoiseMultiplier: 1}, {Clip: math.Inf(1), NoiseMultiplier: 1}} {
		g := NewGrads(m)
		if _, _, err := ws.PrivateGradient(m, c, rand.New(rand.NewPCG(1, 1)), g, nil); err == nil {
			t.Errorf("PrivateGradient accepted %+v", c)
		}
	}
}

// TestNewMLPErrors: bad sizes, activations and a nil source are errors, not panics.
func TestNewMLPErrors(t *testing.T) {
	for _, c := range []struct {
		sizes []int
		act   Activation
		src   rand.Source
	}{{[]int{1}, ReLU, rand.NewPCG(1, 1)}, {[]int{1, 0}, ReLU, rand.NewPCG(1, 1)}, {[]int{-1, 2}, Tanh, rand.NewPCG(1, 1)},
		{[]int{1, 2}, Activation(5), rand.NewPCG(1, 1)}, {[]int{1, 2}, ReLU, nil}} {
		if _, err := NewMLP(c.sizes, c.act, c.src); err == nil {
			t.Errorf("NewMLP(%v, %v, %v) accepted", c.sizes, c.act, c.src)
		}
	}
	if s := Activation(5).String(); s != "Activation(5)" {
		t.Errorf("invalid activation prints %q", s)
	}
}
