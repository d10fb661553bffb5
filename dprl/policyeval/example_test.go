package policyeval_test

import (
	"fmt"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/dprl-project/dprl/dprl/policyeval"
	"github.com/dprl-project/dprl/mechanisms"
)

// DP-LSW on a tiny dataset: four episodes over three states, tabular features, equal weights, rewards in
// [0, 1] and returns bounded by 2. The non-private LSW estimate is the per-state average of first-visit
// returns; DP-LSW adds Gaussian noise whose σ comes from the smooth sensitivity of those averages. With so
// few episodes the smooth bound stays at its global value (every count lowered to 1, k = 3) and σ is far
// larger than the values: privacy needs many more episodes per state.
func ExampleDPLSW() {
	states := [][]int{{0, 1, 2}, {1, 2}, {0, 2}, {2}}
	rewards := [][]float64{{0, 1, 1}, {0, 0}, {1, 0}, {1}}
	sig, err := policyeval.NewEpisodeSignature(states, rewards, 3, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	p := &policyeval.Problem{
		Phi:  mat.NewDense(3, 3, []float64{1, 0, 0, 0, 1, 0, 0, 0, 1}),
		Rho:  []float64{1.0 / 3, 1.0 / 3, 1.0 / 3},
		FMax: 2, FRange: 2, // returns lie in [0, 2]: at most two rewards of at most 1 after a first visit
	}
	theta, _ := policyeval.LSW(p, sig)
	fmt.Printf("counts %v, LSW θ = %.2f\n", sig.Counts, theta)

	priv := policyeval.PrivacyParams{Epsilon: 1, Delta: 1e-5}
	r, err := policyeval.DPLSW(p, sig, priv, false, rand.NewPCG(1, 2))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("α = %.1f, β = %.4f, smooth bound Ψ = %.3f at k = %d, σ = %.0f, clipped %d\n",
		r.Alpha, r.Beta, r.SmoothBound, r.ArgmaxK, r.Sigma, r.Clipped)
	// Output:
	// counts [2 2 4], LSW θ = [1.50 1.00 0.50]
	// α = 24.7, β = 0.0164, smooth bound Ψ = 0.952 at k = 3, σ = 83, clipped 0
}

// The noise GPOPE needs for 100 steps on 100 trajectories at (ε, δ) = (1, 1e−5) with clip bound C = 1: one of
// n sampled per step under replace-one neighbours (Δ = 2C) by the conservative Theorem 9 bound and by the tight Theorem 27 one, and
// Poisson sampling with add/remove neighbours (Δ = C) by RDP and by the PLD accountant.
func ExampleGPOPESigma() {
	orders := mechanisms.IntegerOrders(2, 64)
	for _, acc := range []policyeval.GPOPEAccounting{policyeval.AccountingTheorem9, policyeval.AccountingTight,
		policyeval.AccountingPoisson, policyeval.AccountingPoissonPLD} {
		s, err := policyeval.GPOPESigma(acc, 100, 100, 1, 1e-5, 1, orders)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s, %v sampling: σ = %.2f\n", acc, acc.Sampling(), s)
	}
	// Output:
	// without replacement, replace-one, Δ = 2C (WBK Theorem 9, conservative bound), one per step sampling: σ = 2.42
	// without replacement, replace-one, Δ = 2C (WBK Theorem 27), one per step sampling: σ = 2.42
	// Poisson, add/remove, Δ = C (RDP), Poisson sampling: σ = 1.10
	// Poisson, add/remove, Δ = C (PLD), Poisson sampling: σ = 0.90
}

// Five states read through features that aggregate neighbouring pairs: states 0 and 1 share feature 0, 2 and 3
// feature 1, and state 4 has feature 2 to itself.
func ExampleStateAggregation() {
	fmt.Println(mat.Formatted(policyeval.StateAggregation(5, 2)))
	// Output:
	// ⎡1  0  0⎤
	// ⎢1  0  0⎥
	// ⎢0  1  0⎥
	// ⎢0  1  0⎥
	// ⎣0  0  1⎦
}
