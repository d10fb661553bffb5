package audit_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/dprl-project/dprl/dprl/audit"
	"github.com/dprl-project/dprl/mechanisms"
)

// The exact 95% interval for 3 successes in 100 trials.
func ExampleClopperPearson() {
	lo, hi := audit.ClopperPearson(3, 100, 0.95)
	fmt.Printf("[%.4f, %.4f]\n", lo, hi)
	// Output: [0.0062, 0.0852]
}

// A test that mistakes input 0 for input 1 5% of the time and input 1 for input 0 10% of the time shows that
// the procedure is not (ε, 0)-DP for any ε below max{ln(0.95/0.10), ln(0.90/0.05)} = ln 18.
func ExampleEpsilonFromRates() {
	fmt.Printf("ε ≥ %.3f\n", audit.EpsilonFromRates(0.05, 0.10, 0))
	// Output: ε ≥ 2.890
}

// Auditing the Gaussian mechanism calibrated for (ε, δ) = (1, 1e−5) on a query of sensitivity 1, and a
// broken copy with a tenth of the noise. The valid mechanism audits below its claim; the broken one far
// above it.
func ExampleRun() {
	sigma, _ := mechanisms.AnalyticGaussianSigma(1, 1e-5, 1)
	procedure := func(name string, s float64) audit.Procedure {
		return audit.Procedure{Name: name, Run: func(neighbour int, src rand.Source) (float64, error) {
			g, err := mechanisms.NewGaussian(s, src)
			if err != nil {
				return 0, err
			}
			return g.Release(float64(neighbour)), nil // the query answers 0 on input 0 and 1 on input 1
		}}
	}
	cfg := audit.Config{Runs: 1000, Delta: 1e-5, Seed: 1}
	for _, p := range []audit.Procedure{procedure("valid", sigma), procedure("broken", sigma/10)} {
		r, err := audit.Run(p, cfg, nil)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s: audited ε ≥ %.1f, claimed 1, caught: %v\n", r.Name, r.EpsilonLower, r.EpsilonLower > 1)
	}
	// Output:
	// valid: audited ε ≥ 0.0, claimed 1, caught: false
	// broken: audited ε ≥ 4.0, claimed 1, caught: true
}
