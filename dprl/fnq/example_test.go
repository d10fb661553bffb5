package fnq_test

import (
	"fmt"

	"github.com/dprl-project/dprl/dprl/fnq"
)

// Theorem 5's calibration for (ε, δ) = (0.9, 1e−4), T = 5000 samples in batches of 50 (T′ = 100 steps),
// learning rate 0.01, a 1-Lipschitz network, tail level k = 230 and two actions: the sufficient σ, the
// exact ε it gives by GDP accounting, and the smaller σ that exact accounting needs.
func ExampleCalibration_Compute() {
	c := fnq.Calibration{Epsilon: 0.9, Delta: 1e-4, T: 5000, B: 50, LR: 0.01, L: 1, K: 230, Actions: 2, Resets: 100}
	k, err := c.Compute()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("T′ = %d, v = %.3f, ‖f‖²_H ≤ %.3f, β = %.2f\n", k.Steps, k.V, k.NormSq, k.Beta)
	fmt.Printf("σ (Theorem 5) = %.1f: exact ε = %.3f, the proof's ε = %.2f\n", k.SigmaThm5, k.EpsilonGDP, k.EpsilonKOV)
	fmt.Printf("σ (exact GDP) = %.1f, tail margin %.0f\n", k.SigmaGDP, k.TailMargin)
	// Output:
	// T′ = 100, v = 0.185, ‖f‖²_H ≤ 0.219, β = 5.41
	// σ (Theorem 5) = 22.2: exact ε = 0.639, the proof's ε = 0.85
	// σ (exact GDP) = 16.4, tail margin 12
}

// The reward noise of the input-perturbation baseline: 5000 rewards of sensitivity 1, composed exactly as
// μ-GDP, at δ = 1e−4. Noise of this size swamps rewards in [0, 0.5].
func ExampleInputPerturbationSigma() {
	for _, eps := range []float64{0.9, 0.45} {
		s, err := fnq.InputPerturbationSigma(5000, eps, 1e-4)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("ε = %.2f: σ_r = %.0f\n", eps, s)
	}
	// Output:
	// ε = 0.90: σ_r = 247
	// ε = 0.45: σ_r = 458
}
