package adhoc_test

import (
	"fmt"

	"github.com/dprl-project/dprl/dprl/repro/adhoc"
)

// The estimator with the smallest mean error at ε = 1 among the releases that ran.
func ExampleBest() {
	rows := []adhoc.Row{
		{Method: adhoc.DPLSW, Eps: 1, Error: 0.8}, {Method: adhoc.DPLSW, Eps: 1, Trial: 1, Error: 0.6},
		{Method: adhoc.DPLSL, Eps: 1, Error: 0.3}, {Method: adhoc.DPLSL, Eps: 10, Error: 0.1},
		{Method: adhoc.GPOPE, Eps: 1, Err: "no σ meets ε"},
	}
	m, mean := adhoc.Best(rows, 1)
	fmt.Println(m, mean)
	// Output:
	// DP-LSL 0.3
}
