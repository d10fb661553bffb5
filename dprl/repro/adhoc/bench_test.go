package adhoc

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkDPLSL2000: one DP-LSL release on 2000 chain trajectories (signature from ~80 000 steps, the
// smooth bound over k ≤ m, the solve).
func BenchmarkDPLSL2000(b *testing.B) {
	s, d := chainSetup(b, 2000)
	src := rand.NewPCG(1, 1)
	for b.Loop() {
		if _, err := s.Estimate(DPLSL, d, 1, src); err != nil {
			b.Fatal(err)
		}
	}
}
