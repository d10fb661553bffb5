package audit

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestClopperPearson(t *testing.T) {
	lo, hi := ClopperPearson(0, 10, 0.95)
	if lo != 0 || math.Abs(hi-(1-math.Pow(0.025, 0.1))) > 1e-9 {
		t.Errorf("k = 0: (%g, %g)", lo, hi)
	}
	lo, hi = ClopperPearson(5, 10, 0.95) // textbook: (0.1871, 0.8129)
	if math.Abs(lo-0.1871) > 1e-4 || math.Abs(hi-0.8129) > 1e-4 {
		t.Errorf("k = 5: (%g, %g)", lo, hi)
	}
	if EpsilonFromRates(0.5, 0.5, 0) != 0 || math.Abs(EpsilonFromRates(0.1, 0.2, 0)-math.Log(0.8/0.1)) > 1e-12 {
		t.Error("EpsilonFromRates")
	}
}

// gaussian audits the Gaussian mechanism on a counting query (sensitivity 1) with noise σ·scale.
func gaussian(sigma float64) Procedure {
	return Procedure{Name: "Gaussian", Run: func(nb int, src rand.Source) (float64, error) {
		return float64(nb) + sigma*rand.New(src).NormFloat64(), nil
	}}
}

func TestAuditDeterministicAndErrors(t *testing.T) {
	a, _ := Run(gaussian(2), Config{Runs: 500, Delta: 1e-5, Seed: 3, Workers: 1}, nil)
	b, _ := Run(gaussian(2), Config{Runs: 500, Delta: 1e-5, Seed: 3, Workers: 2}, nil)
	a.Elapsed, b.Elapsed = 0, 0
	if *a != *b {
		t.Errorf("1 and 2 workers differ: %+v vs %+v", a, b)
	}
	if _, err := Run(gaussian(1), Config{Runs: 5}, nil); err == nil {
		t.Error("Runs = 5 accepted")
	}
	if _, err := Run(gaussian(1), Config{Runs: 100, Delta: 1}, nil); err == nil {
		t.Error("δ = 1 accepted")
	}
}

func TestProjected(t *testing.T) {
	p := Projected("shift", []float64{0, 2}, func(nb int, src rand.Source) ([]float64, error) {
		return []float64{5, float64(nb)}, nil
	})
	if a, _ := p.Run(0, nil); a != 0 {
		t.Errorf("input 0: %g", a)
	}
	if b, _ := p.Run(1, nil); b != 2 {
		t.Errorf("input 1: %g", b)
	}
	bad := Projected("bad", []float64{1}, func(int, rand.Source) ([]float64, error) { return []float64{1, 2}, nil })
	if _, err := bad.Run(0, nil); err == nil {
		t.Error("mismatched dimensions accepted")
	}
}
