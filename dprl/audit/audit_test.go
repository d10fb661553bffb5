package audit

import (
	"math"
	"math/rand/v2"
	"testing"

	"dprl/mechanisms"
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

// TestAuditGaussianAndLaplace: the analytic Gaussian and the Laplace mechanism at ε = 1 audit below 1, and
// the same mechanisms with a tenth of the noise are caught (audited ε above the claimed 1) at 95% confidence.
func TestAuditGaussianAndLaplace(t *testing.T) {
	const eps, delta = 1.0, 1e-5
	sigma, err := mechanisms.AnalyticGaussianSigma(eps, delta, 1)
	if err != nil {
		t.Fatal(err)
	}
	laplace := func(b float64) Procedure {
		return Procedure{Name: "Laplace", Run: func(nb int, src rand.Source) (float64, error) {
			r := rand.New(src)
			return float64(nb) + b*(r.ExpFloat64()-r.ExpFloat64()), nil
		}}
	}
	for _, c := range []struct {
		p     Procedure
		delta float64
	}{{gaussian(sigma), delta}, {laplace(1 / eps), 0}} {
		good, err := Run(c.p, Config{Runs: 20000, Delta: c.delta, Seed: 1}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !(good.EpsilonLower < eps) || !(good.EpsilonLower > 0.2) {
			t.Errorf("%s at the claimed noise: audited ε ≥ %g (point %g), want in (0.2, %g)", c.p.Name, good.EpsilonLower, good.EpsilonPoint, eps)
		}
	}
	for _, p := range []Procedure{gaussian(sigma / 10), laplace(0.1 / eps)} {
		bad, err := Run(p, Config{Runs: 20000, Delta: delta, Seed: 2}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !(bad.EpsilonLower > eps) {
			t.Errorf("%s with a tenth of the noise: audited ε ≥ %g, not caught", p.Name, bad.EpsilonLower)
		}
	}
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
