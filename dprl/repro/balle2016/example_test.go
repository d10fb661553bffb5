package balle2016_test

import (
	"fmt"

	"github.com/dprl-project/dprl/dprl/repro/balle2016"
	"github.com/dprl-project/dprl/mechanisms"
)

// The smooth-sensitivity constants of Lemma 1 at the reproduction's ε = δ = 0.1, for the tabular and the
// paired features: α does not depend on d, β does, and 1/β is the visit count above which the smooth bound
// starts to fall.
func ExampleSetup_Problem() {
	s, err := balle2016.NewSetup()
	if err != nil {
		fmt.Println(err)
		return
	}
	priv := balle2016.Privacy()
	for _, agg := range []int{1, 2} {
		_, d := s.Problem(agg, 100).Phi.Dims()
		alpha, beta, _ := mechanisms.SmoothGaussianConstants(priv.Epsilon, priv.Delta, d, mechanisms.SmoothLemma1)
		fmt.Printf("d = %d: α = %.2f, β = %.3g, 1/β = %.0f\n", d, alpha, beta, 1/beta)
	}
	// Output:
	// d = 39: α = 122.39, β = 0.000595, 1/β = 1680
	// d = 20: α = 122.39, β = 0.00109, 1/β = 920
}

// The ε that Lemma 1 certifies for the constants DP-LSW uses on the tabular features at ε = δ = 0.1, and for
// half that noise (α halved): the guarantee doubles.
func ExampleLemma1Epsilon() {
	priv := balle2016.Privacy()
	alpha, beta, _ := mechanisms.SmoothGaussianConstants(priv.Epsilon, priv.Delta, 39, priv.Variant)
	fmt.Printf("%.3g %.3g\n", balle2016.Lemma1Epsilon(alpha, beta, priv.Delta, 39), balle2016.Lemma1Epsilon(alpha/2, beta, priv.Delta, 39))
	// Output: 0.1 0.2
}
