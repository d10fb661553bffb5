package nn

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/dprl-project/dprl/mechanisms"
)

// newDP is mechanisms.NewDPSGD that fails the test on an error.
func newDP(t testing.TB, clip, z float64, src rand.Source) *mechanisms.DPSGD {
	t.Helper()
	dp, err := mechanisms.NewDPSGD(mechanisms.DPSGDParams{Clip: clip, NoiseMultiplier: z, Src: src})
	if err != nil {
		t.Fatal(err)
	}
	return dp
}

// privateGrad runs one DP-SGD aggregation (clip norm clip, noise multiplier z) on a 3→8→2 tanh network for
// the batch x, dOut.
func privateGrad(t *testing.T, x, dOut []float64, clip, z float64) (*Grads, []float64, int) {
	t.Helper()
	m, _ := NewMLP([]int{3, 8, 2}, Tanh, rand.NewPCG(1, 1))
	ws := NewWorkspace(m, len(x)/3)
	ws.Forward(m, x)
	ws.Backward(m, dOut)
	g := NewGrads(m)
	norms, dropped, err := ws.PrivateGradient(m, newDP(t, clip, z, rand.NewPCG(2, 2)), g, nil)
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
	const clip, z = 0.5, 1.0
	// reference: example 0 has a zero loss gradient
	zero := append([]float64(nil), dOut...)
	zero[0], zero[1] = 0, 0
	want, _, _ := privateGrad(t, x, zero, clip, z)
	for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		for _, where := range []string{"input", "loss gradient"} {
			xb, db := append([]float64(nil), x...), append([]float64(nil), dOut...)
			if where == "input" {
				xb[1] = bad
			} else {
				db[0] = bad
			}
			got, norms, dropped := privateGrad(t, xb, db, clip, z)
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
	const clip, z = 0.01, 1.0
	mod := func(s float64) []float64 {
		d := append([]float64(nil), dOut...)
		d[0], d[1] = 0.6*s, -0.8*s
		return d
	}
	want, _, _ := privateGrad(t, x, mod(1e2), clip, z)
	got, norms, dropped := privateGrad(t, x, mod(1e200), clip, z)
	if dropped != 0 || !(norms[0] > 1e199) || math.IsInf(norms[0], 0) {
		t.Fatalf("dropped %d, norm %v", dropped, norms[0])
	}
	if !gradsClose(got, want, 1e-15) {
		t.Error("a huge gradient is not clipped like a large one in the same direction")
	}
}

// TestPrivateGradientRefusesNoNoise: PrivateGradient never returns a noiseless gradient: it needs a
// *mechanisms.DPSGD, which NewDPSGD refuses without positive finite Clip and NoiseMultiplier, and a nil one
// is an error naming dp that leaves g unchanged.
func TestPrivateGradientRefusesNoNoise(t *testing.T) {
	m, _ := NewMLP([]int{1, 2}, Tanh, rand.NewPCG(1, 1))
	ws := NewWorkspace(m, 1)
	ws.Forward(m, []float64{1})
	ws.Backward(m, []float64{1, 1})
	for _, c := range []mechanisms.DPSGDParams{{Clip: 1}, {Clip: 1, NoiseMultiplier: -1}, {Clip: 1, NoiseMultiplier: math.NaN()},
		{Clip: 1, NoiseMultiplier: math.Inf(1)}, {Clip: 0, NoiseMultiplier: 1}, {Clip: math.Inf(1), NoiseMultiplier: 1}} {
		c.Src = rand.NewPCG(1, 1)
		if _, err := mechanisms.NewDPSGD(c); err == nil {
			t.Errorf("NewDPSGD accepted %+v", c)
		}
	}
	g := NewGrads(m)
	g.W[0][0] = 7
	if _, _, err := ws.PrivateGradient(m, nil, g, nil); err == nil || !strings.Contains(err.Error(), "dp") || g.W[0][0] != 7 {
		t.Errorf("PrivateGradient with a nil DPSGD: error %v, g.W[0][0] = %v", err, g.W[0][0])
	}
}

// TestPrivateGradientIsAggregate: PrivateGradient, which never forms per-example gradients, is
// mechanisms.DPSGD.Aggregate on the explicit per-example gradients (formed here one by one), divided by the
// batch size: the same clipping, the same dropped examples and, from the same seed, the same noise.
func TestPrivateGradientIsAggregate(t *testing.T) {
	const n, clip, z = 6, 0.05, 0.7
	rng := rand.New(rand.NewPCG(9, 9))
	m, _ := NewMLP([]int{3, 8, 2}, Tanh, rand.NewPCG(1, 1))
	x, dOut := randomBatch(rng, n, 3), randomBatch(rng, n, 2)
	dOut[4] = math.NaN() // example 2 is dropped
	dOut[0] *= 1e-3      // example 0 is inside the clip ball
	dOut[1] *= 1e-3
	ws := NewWorkspace(m, n)
	ws.Forward(m, x)
	ws.Backward(m, dOut)
	flat := func(g *Grads) []float64 {
		var v []float64
		g.Each(func(b []float64) { v = append(v, b...) })
		return v
	}
	// per-example gradients, each from a batch of one
	grads := make([][]float64, n)
	for i := range n {
		w1 := NewWorkspace(m, 1)
		w1.Forward(m, x[i*3:(i+1)*3])
		w1.Backward(m, dOut[i*2:(i+1)*2])
		gi := NewGrads(m)
		w1.Gradient(m, nil, gi)
		grads[i] = flat(gi)
	}
	g := NewGrads(m)
	_, dropped, err := ws.PrivateGradient(m, newDP(t, clip, z, rand.NewPCG(5, 5)), g, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]float64, len(grads[0]))
	clipped, dropped2, err := newDP(t, clip, z, rand.NewPCG(5, 5)).Aggregate(want, grads)
	if err != nil {
		t.Fatal(err)
	}
	if dropped != 1 || dropped2 != 1 || clipped != n-2 {
		t.Fatalf("dropped %d (PrivateGradient) and %d (Aggregate), clipped %d: want 1, 1, %d", dropped, dropped2, clipped, n-2)
	}
	for i, v := range flat(g) {
		if w := want[i] / n; math.Abs(v-w) > 1e-12 {
			t.Fatalf("coordinate %d: PrivateGradient %v, Aggregate/n %v", i, v, w)
		}
	}
}
