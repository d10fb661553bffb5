package mechanisms_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/dprl-project/dprl/mechanisms"
)

// A secure Laplace release of a count in [0, 1000] with sensitivity 1 at ε = 0.5: the snapping mechanism
// reports the true ε to account for, and releases multiples of its grid. (Use SecureSource() for a real
// release; a seeded source makes the example reproducible.)
func ExampleSnappingLaplace() {
	m, err := mechanisms.NewSnappingLaplace(mechanisms.SnappingLaplaceParams{
		Epsilon: 0.5, Sensitivity: 1, Bound: 1000, Src: rand.NewPCG(1, 2)})
	if err != nil {
		panic(err)
	}
	y, _ := m.Release(412)
	fmt.Printf("true ε − 0.5 = %.2g, grid %.4f, release on the grid: %v\n", m.Epsilon()-0.5, m.Grid(), y == float64(int64(y/m.Grid()))*m.Grid())
	// Output:
	// true ε − 0.5 = 8.9e-13, grid 2.0000, release on the grid: true
}

// Calibrating the discrete Gaussian for a 100-coordinate gradient of ℓ2 sensitivity 1 at (ε, δ) = (1, 1e-5),
// with the grid's rounding counted in the sensitivity.
func ExampleDiscreteGaussianSigma() {
	sigma, g, err := mechanisms.DiscreteGaussianSigma(1, 1e-5, 1, 100)
	if err != nil {
		panic(err)
	}
	m, _ := mechanisms.NewDiscreteGaussian(mechanisms.DiscreteGaussianParams{Sigma: sigma, Granularity: g, Src: rand.NewPCG(3, 4)})
	x := make([]float64, 100)
	if err := m.AddNoise(x); err != nil {
		panic(err)
	}
	eps, _ := mechanisms.DiscreteGaussianEpsilon(sigma, 1, g, 100, 1e-5)
	fmt.Printf("σ = %.4f, grid 2^%d, ε = %.6f\n", sigma, exponent(g), eps)
	// Output:
	// σ = 4.9006, grid 2^-37, ε = 1.000000
}

func exponent(g float64) int {
	e := 0
	for g < 1 {
		g *= 2
		e--
	}
	return e
}
