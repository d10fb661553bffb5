package mechanisms_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/dprl-project/dprl/mechanisms"
)

// The noise a Gaussian mechanism needs for (ε, δ) = (0.5, 1e-5) and sensitivity 1: the classic bound and
// the exact (analytic) one.
func ExampleAnalyticGaussianSigma() {
	classic, _ := mechanisms.ClassicGaussianSigma(0.5, 1e-5, 1)
	analytic, _ := mechanisms.AnalyticGaussianSigma(0.5, 1e-5, 1)
	fmt.Printf("classic σ = %.3f, analytic σ = %.3f\n", classic, analytic)
	// Output: classic σ = 9.690, analytic σ = 7.032
}

// DP-SGD with Poisson sampling rate 0.01 and noise multiplier 1.1 for 10,000 steps, accounted in RDP and
// with the PLD accountant.
func ExampleRDPAccountant() {
	ev := mechanisms.PoissonSampled{Q: 0.01, Event: mechanisms.GaussianEvent{NoiseMultiplier: 1.1}}
	rdp, _ := mechanisms.NewRDPAccountant(nil, mechanisms.ConversionImproved)
	rdp.Compose(ev, 10000)
	pld, _ := mechanisms.NewPLDAccountant(mechanisms.PLDParams{})
	pld.Compose(ev, 10000)
	e1, _ := rdp.Epsilon(1e-5)
	e2, _ := pld.Epsilon(1e-5)
	fmt.Printf("RDP ε = %.3f, PLD ε = %.3f\n", e1, e2)
	fmt.Println(rdp.History())
	// Output:
	// RDP ε = 5.632, PLD ε = 5.193
	// [10000 × PoissonSampled(q=0.01, Gaussian(z=1.1))]
}

// The smallest noise multiplier that keeps the run above within ε = 2.
func ExampleCalibrateNoise() {
	z, _ := mechanisms.CalibrateNoise(2, 0.5, 20, func(z float64) (float64, error) {
		a, _ := mechanisms.NewRDPAccountant(nil, mechanisms.ConversionImproved)
		if err := a.Compose(mechanisms.PoissonSampled{Q: 0.01, Event: mechanisms.GaussianEvent{NoiseMultiplier: z}}, 10000); err != nil {
			return 0, err
		}
		return a.Epsilon(1e-5)
	})
	fmt.Printf("z = %.3f\n", z)
	// Output: z = 2.278
}

// A lazily sampled Ornstein–Uhlenbeck path: repeated queries agree, new points are drawn conditionally.
func ExampleOUPath() {
	p, _ := mechanisms.NewOUPath(1, 2, rand.NewPCG(1, 2))
	a := p.At(0.5)
	fmt.Println(p.At(0.5) == a, p.Len())
	p.At(0.25)
	fmt.Println(p.Len())
	// Output:
	// true 1
	// 2
}

// Splitting a budget 3:1 between a data release and training, and refusing to overspend.
func ExampleBudget() {
	b, _ := mechanisms.NewBudget(10, 1e-4)
	parts, _ := b.Split(3, 1)
	fmt.Println(b.Spend("data release", parts[0][0], parts[0][1]))
	fmt.Println(b.Spend("training", 3, 0))
	// Output:
	// <nil>
	// mechanisms: spending (ε=3, δ=0) on training exceeds the remaining budget (ε=2.5, δ=2.5e-05)
}
