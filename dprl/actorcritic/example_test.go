package actorcritic_test

import (
	"fmt"

	"github.com/dprl-project/dprl/dprl/actorcritic"
)

// The corrected variant's noise for a whole run at (ε, δ) = (1, 1e−6) with episodes of at most 50 steps,
// and back: CorrectedEpsilon of that noise is the target ε.
func ExampleCorrectedNoise() {
	sigma, err := actorcritic.CorrectedNoise(1, 1e-6, 50)
	if err != nil {
		fmt.Println(err)
		return
	}
	eps, _ := actorcritic.CorrectedEpsilon(sigma, 50, 1e-6)
	fmt.Printf("σ = %.1f, ε = %.3f\n", sigma, eps)
	// Twice as long episodes at the same noise spend more.
	eps, _ = actorcritic.CorrectedEpsilon(sigma, 100, 1e-6)
	fmt.Printf("H = 100: ε = %.3f\n", eps)
	// Output:
	// σ = 59.7, ε = 1.000
	// H = 100: ε = 1.455
}

// The published per-step noise multiplier, eq. (3), at δ = 1e−6.
func ExamplePublishedSigma() {
	for _, eps := range []float64{10, 1, 0.1} {
		fmt.Printf("ε = %4.1f: σ = %6.3f\n", eps, actorcritic.PublishedSigma(eps, 1e-6))
	}
	// Output:
	// ε = 10.0: σ =  0.530
	// ε =  1.0: σ =  5.299
	// ε =  0.1: σ = 52.988
}
