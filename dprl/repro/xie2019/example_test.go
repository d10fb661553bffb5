package xie2019_test

import (
	"fmt"

	"github.com/dprl-project/dprl/dprl/policyeval"
	"github.com/dprl-project/dprl/dprl/repro/xie2019"
)

// The paper's protocol at n = 1000, ε = 1: T = n iterations, GPOPE's δ, the half-decade step grid and the
// trials.
func ExampleProtocol_Config() {
	cfg := xie2019.PaperProtocol().Config([]int{1000}, []float64{1})
	fmt.Println("T =", cfg.Iterations(1000), "δ =", cfg.Delta, "trials =", cfg.Trials)
	fmt.Println("steps:", cfg.Steps[0], "…", cfg.Steps[len(cfg.Steps)-1], "in", len(cfg.Steps), "points")
	// Output:
	// T = 1000 δ = 1e-05 trials = 100
	// steps: 1e-06 … 3 in 14 points
}

// What a run certifiably spends: 1000 steps on 1000 trajectories with σ = 1.726·C (the paper's calibration
// for ε = 1) under replace-one, and the Poisson run calibrated for add/remove ε = 1 (σ = 0.641·C), which
// under replace-one spends far more.
func ExampleCertify() {
	one, _ := xie2019.Certify(policyeval.AccountingTheorem9, 1000, 1000, 1.726)
	poisson, _ := xie2019.Certify(policyeval.AccountingPoissonPLD, 1000, 1000, 0.641)
	fmt.Println(one)
	fmt.Println(poisson)
	// Output:
	// replace-one ε = 0.999
	// replace-one ε = 43.4, add/remove ε = 1
}
