package balle2016_test

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/dprl-project/dprl/dprl/policyeval"
	"github.com/dprl-project/dprl/dprl/repro/balle2016"
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

// TestAlgorithmCellUnchanged: notebook 02 has exactly one code cell declaring dplsw, and its declaration is
// this file's, token for token (both formatted by gofmt).
func TestAlgorithmCellUnchanged(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "notebooks", "02-balle2016-dp-policy-evaluation.ipynb"))
	if err != nil {
		t.Fatal(err)
	}
	var nb struct {
		Cells []struct {
			CellType string          `json:"cell_type"`
			Source   json.RawMessage `json:"source"`
		} `json:"cells"`
	}
	if err := json.Unmarshal(b, &nb); err != nil {
		t.Fatal(err)
	}
	var cells []string
	for _, c := range nb.Cells {
		var lines []string
		if err := json.Unmarshal(c.Source, &lines); err != nil {
			var one string
			if err := json.Unmarshal(c.Source, &one); err != nil {
				t.Fatal(err)
			}
			lines = []string{one}
		}
		if src := strings.Join(lines, ""); c.CellType == "code" && strings.Contains(src, "func dplsw(") {
			cells = append(cells, src)
		}
	}
	if len(cells) != 1 {
		t.Fatalf("%d notebook cells declare dplsw, want 1", len(cells))
	}
	self, err := os.ReadFile("algorithm_test.go")
	if err != nil {
		t.Fatal(err)
	}
	nbDecl, fileDecl := funcSource(t, "package p\n"+cells[0], "dplsw"), funcSource(t, string(self), "dplsw")
	if nbDecl != fileDecl {
		t.Errorf("the notebook's dplsw differs from algorithm_test.go's:\nnotebook:\n%s\nhere:\n%s", nbDecl, fileDecl)
	}
}

// funcSource is the text of the declaration, doc comment included, of the function name in the Go source
// src, formatted by gofmt.
func funcSource(t *testing.T, src, name string) string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Name.Name == name {
			start := fd.Pos()
			if fd.Doc != nil {
				start = fd.Doc.Pos()
			}
			out, err := format.Source([]byte(src[fset.Position(start).Offset:fset.Position(fd.End()).Offset]))
			if err != nil {
				t.Fatal(err)
			}
			return string(out)
		}
	}
	t.Fatalf("no func %s", name)
	return ""
}
