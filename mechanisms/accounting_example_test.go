package mechanisms_test

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/dprl-project/dprl/mechanisms"
)

// k Gaussian mechanisms with noise multiplier z compose exactly to μ = √k/z in μ-GDP: 100 steps at z = 20
// give μ = 0.5, whose ε at δ = 1e−5 follows from the GDP profile. The GDP accountant composes the same way.
func ExampleGDPEpsilon() {
	eps, _ := mechanisms.GDPEpsilon(math.Sqrt(100)/20, 1e-5)
	var a mechanisms.GDPAccountant
	a.Compose(mechanisms.GaussianEvent{NoiseMultiplier: 20}, 100)
	e2, _ := a.Epsilon(1e-5)
	fmt.Printf("μ = %.2f, ε = %.3f (accountant: %.3f)\n", a.Mu(), eps, e2)
	// Output:
	// μ = 0.50, ε = 1.993 (accountant: 1.993)
}

// The classic calibration σ = √(2 ln(1.25/δ))·Δ/ε is proven only for ε < 1; beyond, the error names the
// parameter and points to the analytic calibration.
func ExampleClassicGaussianSigma() {
	s, _ := mechanisms.ClassicGaussianSigma(0.5, 1e-5, 1)
	fmt.Printf("ε = 0.5: σ = %.3f\n", s)
	_, err := mechanisms.ClassicGaussianSigma(2, 1e-5, 1)
	fmt.Println(err)
	// Output:
	// ε = 0.5: σ = 9.690
	// mechanisms: epsilon = 2 is outside the allowed range (0, 1) (the classic Gaussian calibration is proven only for ε < 1; use AnalyticGaussianSigma)
}

// Advanced composition of 100 mechanisms that are each (0.1, 0)-DP, with slack δ̃ = 1e−5, against basic
// composition (10) and the exact optimal composition.
func ExampleAdvancedComposition() {
	eps, delta, _ := mechanisms.AdvancedComposition(0.1, 0, 100, 1e-5)
	opt, _ := mechanisms.OptimalCompositionEpsilon(0.1, 0, 100, 1e-5)
	fmt.Printf("advanced (%.2f, %.0e), optimal ε = %.2f, basic ε = %.0f\n", eps, delta, opt, 100*0.1)
	// Output:
	// advanced (5.85, 1e-05), optimal ε = 4.31, basic ε = 10
}

// The sparse vector technique answers threshold queries until the first "above": the threshold and each
// query get Laplace noise of scales 2Δ/ε and 4Δ/ε, and the run costs ε however many "below" answers it
// gives. After the stopping answer it refuses more queries.
func ExampleSparseVector() {
	sv, err := mechanisms.NewSparseVector(mechanisms.SparseVectorParams{Epsilon: 1, Sensitivity: 1, Threshold: 50,
		Stop: mechanisms.StopAtAbove, Src: rand.NewPCG(1, 2)})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("noise scales %.0f and %.0f\n", sv.ThresholdScale(), sv.QueryScale())
	for _, v := range []float64{0, 10, 100, 20} {
		above, err := sv.Above(v)
		fmt.Println(v, above, err)
		if err != nil {
			break
		}
	}
	// Output:
	// noise scales 2 and 4
	// 0 false <nil>
	// 10 false <nil>
	// 100 true <nil>
	// 20 false mechanisms: sparse vector run already halted; call Reset for a new run
}
