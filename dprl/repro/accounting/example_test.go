package accounting_test

import (
	"fmt"

	"github.com/dprl-project/dprl/dprl/report"
	"github.com/dprl-project/dprl/dprl/repro/accounting"
)

// The classic Gaussian σ beside the analytic one for sensitivity 1 at δ = 1e−5: the classic formula is proved
// only for ε < 1 and over-noises below.
func ExampleGaussianNoise() {
	var r report.Recorder
	if err := accounting.GaussianNoise(&r, []float64{0.5, 2}, 1e-5); err != nil {
		fmt.Println(err)
		return
	}
	for _, row := range r.Items[0].Rows {
		fmt.Println(row[0], row[1], row[2], row[3])
	}
	// Output:
	// 0.5 9.69 yes 7.032
	// 2 2.422 no (ε ≥ 1) 1.994
}

// DP-SGD's workload after 1000 steps: RDP and the exact PLD accountant.
func ExampleEpsilon() {
	w := accounting.Workload{Q: 0.01, Z: 1.1, Steps: 1000}
	for _, m := range []accounting.Method{accounting.RDP, accounting.PLD} {
		e, err := accounting.Epsilon(m, w, 1e-5)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s: ε = %.3f\n", m, e)
	}
	// Output:
	// RDP (Poisson): ε = 1.712
	// PLD (Poisson): ε = 1.515
}
