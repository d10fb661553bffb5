package adhoc_test

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/dprl-project/dprl/dprl/repro/adhoc"
)

// Five states read through features that aggregate neighbouring pairs: states 0 and 1 share feature 0, 2 and 3
// feature 1, and state 4 has feature 2 to itself.
func ExampleGroupFeatures() {
	fmt.Println(mat.Formatted(adhoc.GroupFeatures(5, 2)))
	// Output:
	// ⎡1  0  0⎤
	// ⎢1  0  0⎥
	// ⎢0  1  0⎥
	// ⎢0  1  0⎥
	// ⎣0  0  1⎦
}

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
