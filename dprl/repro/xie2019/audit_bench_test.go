package xie2019

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkGPOPERunAuditStep: one run of the full-run GPOPE audit (50 steps with the transcript's
// likelihood ratio).
func BenchmarkGPOPERunAuditStep(b *testing.B) {
	c := GPOPERunCase()
	src := pcg(1)
	for b.Loop() {
		if _, err := c.Valid.Run(1, src); err != nil {
			b.Fatal(err)
		}
	}
}

func pcg(seed uint64) *rand.PCG { return rand.NewPCG(seed, seed) }
