package balle2016_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/dprl-project/dprl/dprl/policyeval"
	"github.com/dprl-project/dprl/dprl/repro/balle2016"
	"github.com/dprl-project/dprl/dprl/repro/claimtest"
	"github.com/dprl-project/dprl/mechanisms"
)

// The notebook's "DP-LSW in code" cell, copied verbatim: TestAlgorithmCellUnchanged keeps the two equal.

// dplsw is Balle et al.'s Algorithm 1 (DP-LSW) at (eps, delta) on the batch signature sig, with the features,
// weights ρ and return range F of p; the noise draws from src.
func dplsw(p *policyeval.Problem, sig *policyeval.Signature, eps, delta float64, src rand.Source) ([]float64, float64, error) {
	theta, err := policyeval.LSW(p, sig) // step 1
	if err != nil {
		return nil, 0, err
	}
	n, d := p.Phi.Dims()
	alpha, beta, err := mechanisms.SmoothGaussianConstants(eps, delta, d, mechanisms.SmoothLemma1) // step 2
	if err != nil {
		return nil, 0, err
	}
	psi, _ := mechanisms.SmoothUpperBound(beta, slices.Max(sig.Counts), func(k int) float64 { // step 3
		sum := 0.0
		for s, c := range sig.Counts {
			den := 1.0
			if c-k > 1 {
				den = float64(c - k)
			}
			sum += p.Rho[s] / (den * den)
		}
		return sum
	})
	g := mat.NewDense(n, d, nil) // Γ_w^{1/2}Φ
	for s := range n {
		for j := range d {
			g.Set(s, j, math.Sqrt(p.Rho[s])*p.Phi.At(s, j))
		}
	}
	var svd mat.SVD
	if !svd.Factorize(g, mat.SVDNone) {
		return nil, 0, fmt.Errorf("dplsw: the SVD of Γ_w^{1/2}Φ failed")
	}
	sigma := alpha * p.FRange * (1 / svd.Values(nil)[d-1]) * math.Sqrt(psi) // step 4
	noise, err := mechanisms.NewGaussian(sigma, src)                        // step 5
	if err != nil {
		return nil, 0, err
	}
	noise.AddNoise(theta)
	return theta, sigma, nil
}

// TestAlgorithmInCode: the notebook's DP-LSW, written from library primitives, gives policyeval.DPLSW's σ and
// estimate bit for bit with the same seed, for both feature sets, both return bounds and both δ (the chain's
// returns are in [0, 1], so the library clips none).
func TestAlgorithmInCode(t *testing.T) {
	s, err := balle2016.NewSetup()
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range []int{50, 500, 3000} {
		sig, err := s.Batch(m, rand.NewPCG(uint64(i), 7))
		if err != nil {
			t.Fatal(err)
		}
		for _, agg := range []int{1, 2} {
			for _, arm := range balle2016.Arms() {
				p := s.Problem(agg, arm.F)
				theta, sigma, err := dplsw(p, sig, 0.1, arm.Delta, rand.NewPCG(9, uint64(m)))
				if err != nil {
					t.Fatal(err)
				}
				lib, err := policyeval.DPLSW(p, sig, arm.Privacy(), false, rand.NewPCG(9, uint64(m)))
				if err != nil {
					t.Fatal(err)
				}
				if sigma != lib.Sigma || !slices.Equal(theta, lib.Theta) || lib.Clipped != 0 {
					t.Errorf("m = %d, aggregate %d, %s: σ %v, library %v; estimates equal %v; clipped %d", m, agg, arm.Name, sigma, lib.Sigma,
						slices.Equal(theta, lib.Theta), lib.Clipped)
				}
			}
		}
	}
}

// TestAlgorithmCellUnchanged: the notebook has exactly one code cell declaring dplsw, and its declaration is
// this file's, token for token (claimtest.CellFunc).
func TestAlgorithmCellUnchanged(t *testing.T) {
	claimtest.CellFunc(t, filepath.Join("..", "..", "..", "notebooks", "02-balle2016-dp-policy-evaluation.ipynb"), "algorithm_test.go", "dplsw")
}
