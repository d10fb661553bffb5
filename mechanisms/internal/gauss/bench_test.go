package gauss

import (
	"math/rand/v2"
	"testing"
)

// The DP-SGD workload's largest block (a 256 × 256 layer) and its whole parameter vector: the noise of
// one step, against math/rand/v2's NormFloat64 on a PCG (what DPSGD drew before).
func benchAdd[F Float](b *testing.B, n int) {
	x := make([]F, n)
	key := [4]uint64{1, 2, 3, 4}
	b.SetBytes(int64(n) * 8)
	for b.Loop() {
		key[0]++
		Add([][]F{x}, 1, 1, key)
	}
}

func BenchmarkAdd64(b *testing.B)    { benchAdd[float64](b, 65792) }
func BenchmarkAdd32(b *testing.B)    { benchAdd[float32](b, 65792) }
func BenchmarkAddSmall(b *testing.B) { benchAdd[float64](b, 256) }

func BenchmarkNormFloat64(b *testing.B) {
	x := make([]float64, 65792)
	rng := rand.New(rand.NewPCG(1, 2))
	b.SetBytes(int64(len(x)) * 8)
	for b.Loop() {
		for i := range x {
			x[i] += rng.NormFloat64()
		}
	}
}
