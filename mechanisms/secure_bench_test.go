package mechanisms

import (
	"math/rand/v2"
	"testing"
)

// Throughput of one release, float path against secure path (no speed target: the secure samplers trade
// speed for exactness; compare them here).

func BenchmarkFloatGaussianRelease(b *testing.B) {
	g, _ := NewGaussian(1, rand.NewPCG(1, 2))
	for b.Loop() {
		g.Release(0.5)
	}
}

func BenchmarkFloatLaplaceRelease(b *testing.B) {
	l, _ := NewLaplace(1, 1, rand.NewPCG(1, 2))
	for b.Loop() {
		l.Release(0.5)
	}
}

func BenchmarkSnappingLaplaceRelease(b *testing.B) {
	m, _ := NewSnappingLaplace(SnappingLaplaceParams{Epsilon: 1, Sensitivity: 1, Bound: 1000, Src: rand.NewPCG(1, 2)})
	for b.Loop() {
		m.Release(0.5)
	}
}

// BenchmarkDiscreteGaussianRelease uses the default granularity (about 2⁴⁰ grid steps per σ).
func BenchmarkDiscreteGaussianRelease(b *testing.B) {
	m, _ := NewDiscreteGaussian(DiscreteGaussianParams{Sigma: 1, Src: rand.NewPCG(1, 2)})
	for b.Loop() {
		m.Release(0.5)
	}
}

// BenchmarkDiscreteGaussianCoarse: σ/g = 3, small integers throughout.
func BenchmarkDiscreteGaussianCoarse(b *testing.B) {
	m, _ := NewDiscreteGaussian(DiscreteGaussianParams{Sigma: 3, Granularity: 1, Src: rand.NewPCG(1, 2)})
	for b.Loop() {
		m.Release(0.5)
	}
}

func BenchmarkDiscreteLaplaceRelease(b *testing.B) {
	m, _ := NewDiscreteLaplace(DiscreteLaplaceParams{Scale: 1, Src: rand.NewPCG(1, 2)})
	for b.Loop() {
		m.Release(0.5)
	}
}

// BenchmarkSecureSourceDiscreteGaussian: the default secure setup, ChaCha8 from crypto/rand.
func BenchmarkSecureSourceDiscreteGaussian(b *testing.B) {
	m, _ := NewDiscreteGaussian(DiscreteGaussianParams{Sigma: 1, Src: SecureSource()})
	for b.Loop() {
		m.Release(0.5)
	}
}
