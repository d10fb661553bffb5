package xie2019_test

import (
	"fmt"

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
