package xie2019

import (
	"math/rand/v2"
	"testing"

	"github.com/dprl-project/dprl/dprl/policyeval"
)

// BenchmarkGPOPEMountainCar times GPOPE iterations on Mountain Car trajectories (36 Fourier features, about
// 130 transitions each, noise on, prepared): the cost of one iteration is two 36×36 matrix–vector products and
// 72 Gaussian draws.
func BenchmarkGPOPEMountainCar(b *testing.B) {
	d, err := MountainCar(false, 5)
	if err != nil {
		b.Fatal(err)
	}
	s, _ := d.Draw(200, rand.NewPCG(1, 1))
	cfg := policyeval.GPOPEConfig{Gamma: d.Gamma, Iterations: 1000, Step: policyeval.Constant(0.01), Clip: d.Clip, Sigma: 0.05, Src: rand.NewPCG(2, 2)}
	b.ResetTimer()
	for b.Loop() {
		if _, err := s.Data.GPOPE(cfg); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*cfg.Iterations), "ns/iteration")
}

// BenchmarkMSPBE times the MSPBE of one estimate under 36-feature moments (the per-row cost of the trials).
func BenchmarkMSPBE(b *testing.B) {
	d, err := MountainCar(false, 50)
	if err != nil {
		b.Fatal(err)
	}
	theta := make([]float64, d.Dim())
	for b.Loop() {
		d.True.MSPBE(theta)
	}
}
