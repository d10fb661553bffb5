package nn

import (
	"math/rand/v2"
	"testing"

	"github.com/dprl-project/dprl/mechanisms"
)

// benchStep times one training step of a 8→256→256→4 ReLU MLP on a batch of 256 with the Huber loss on one
// output per example: forward, backward, gradient (plain or DP-SGD: clip per example via the norm trick plus
// Gaussian noise) and an SGD update, in precision F. The target: DP-SGD ≤ 1.3× plain.
func benchStep[F Float](b *testing.B, private bool) {
	m, _ := NewNetwork[F]([]int{8, 256, 256, 4}, ReLU, rand.NewPCG(1, 1))
	src := rand.NewPCG(2, 2)
	rng := rand.New(src)
	const n = 256
	x := make([]F, n*8)
	for i := range x {
		x[i] = F(rng.NormFloat64())
	}
	acts := make([]int, n)
	targets := make([]F, n)
	for i := range n {
		acts[i], targets[i] = rng.IntN(4), F(rng.NormFloat64())
	}
	ws := NewWorkspace(m, n)
	g := NewGrads(m)
	dOut := make([]F, n*4)
	norms := make([]float64, n)
	dp, err := mechanisms.NewDPSGD(mechanisms.DPSGDParams{Clip: 1, NoiseMultiplier: 1, Src: src})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		out := ws.Forward(m, x)
		SelectedLoss(Huber{}, out, 4, acts, targets, dOut)
		ws.Backward(m, dOut)
		if private {
			ws.PrivateGradient(m, dp, g, norms)
		} else {
			ws.Gradient(m, nil, g)
			g.Scale(1.0 / n)
		}
		SGDStep(1e-4, m, g)
	}
}

func BenchmarkSGDStep(b *testing.B)     { benchStep[float64](b, false) }
func BenchmarkDPSGDStep(b *testing.B)   { benchStep[float64](b, true) }
func BenchmarkSGDStep32(b *testing.B)   { benchStep[float32](b, false) }
func BenchmarkDPSGDStep32(b *testing.B) { benchStep[float32](b, true) }

// BenchmarkForward1 times a single-state forward pass of the Wang–Hegde Q-network (1→16→16→2).
func BenchmarkForward1(b *testing.B) {
	m, _ := NewMLP([]int{1, 16, 16, 2}, ReLU, rand.NewPCG(1, 1))
	ws := NewWorkspace(m, 1)
	x := []float64{0.3}
	for b.Loop() {
		ws.Forward(m, x)
	}
}
