package audit

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkAuditGaussian10k: a whole audit of 10 000 runs per input (40 000 runs) of the cheapest procedure:
// the auditor's own overhead (threshold selection over 20 000 statistics, Clopper–Pearson bounds).
func BenchmarkAuditGaussian10k(b *testing.B) {
	c := GaussianCase()
	for b.Loop() {
		if _, err := Run(c.Valid, Config{Runs: 10000, Delta: c.Delta, Seed: 1}, nil); err != nil {
			b.Fatal(err)
		}
	}
}

func pcg(seed uint64) *rand.PCG { return rand.NewPCG(seed, seed) }
