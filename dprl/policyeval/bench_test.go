package policyeval

import (
	"math/rand/v2"
	"testing"
)

// benchBatch is a batch of 5000 trajectories of Balle et al.'s chain and its tabular problem with F = 1.
func benchBatch(b *testing.B) (*Problem, *Signature) {
	c, err := newBalleChain()
	if err != nil {
		b.Fatal(err)
	}
	sig, err := c.Batch(5000, rand.NewPCG(1, 2))
	if err != nil {
		b.Fatal(err)
	}
	return c.Problem(1, 1), sig
}

// BenchmarkDPLSW is one DP-LSW release on 5000 trajectories (tabular, ε = δ = 0.1): the smooth bound's
// scan over k dominates.
func BenchmarkDPLSW(b *testing.B) {
	p, sig := benchBatch(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DPLSW(p, sig, PrivacyParams{Epsilon: 0.1, Delta: 0.1}, false, rand.NewPCG(1, 1)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDPLSL is one DP-LSL release (the authors' bound, λ at c = 1) on the same batch.
func BenchmarkDPLSL(b *testing.B) {
	p, sig := benchBatch(b)
	lambda, err := LambdaSchedule(p, 1, sig.M)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DPLSL(p, sig, lambda, PrivacyParams{Epsilon: 0.1, Delta: 0.1}, LSLPaper, rand.NewPCG(1, 1)); err != nil {
			b.Fatal(err)
		}
	}
}
