package audit

import (
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

// BenchmarkRunTightGaussian100k: RunTight on 10⁵ runs per input and half (4·10⁵ runs of the cheapest
// procedure): the GDP and threshold selections over 2·10⁵ statistics. Reports runs per second.
func BenchmarkRunTightGaussian100k(b *testing.B) {
	c := GaussianCase()
	for b.Loop() {
		if _, err := RunTight(c.Valid, Config{Runs: 100_000, Delta: c.Delta, Seed: 1}, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(4*100_000*b.N)/b.Elapsed().Seconds(), "runs/s")
}

// BenchmarkOneRunEpsilon: the exact binomial bound for 1000 canaries and 200 guesses.
func BenchmarkOneRunEpsilon(b *testing.B) {
	for b.Loop() {
		if _, err := OneRunEpsilon(1000, 200, 150, 1e-5, 0.95); err != nil {
			b.Fatal(err)
		}
	}
}
