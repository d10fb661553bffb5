package xie2019_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dprl-project/dprl/dprl/display"
	"github.com/dprl-project/dprl/dprl/policyeval"
	"github.com/dprl-project/dprl/dprl/repro/xie2019"
	"github.com/dprl-project/dprl/kernels"
	"github.com/dprl-project/dprl/mechanisms"
)

// Notebook 03's "algorithm in code" cell is the body of this example between the markers, word for word
// (TestAlgorithmCellIsTheExample): Algorithm 1 written from library primitives gives exactly the library's
// GPOPE with the same seed.
func Example_algorithmInCode() {
	display.Default.Out = os.Stdout // the example's standard output, which replaced the one display kept at init
	// cell begin
	// Algorithm 1 in code: GPOPE on n = 200 chain trajectories at (ε, δ) = (1, 1e−5), line by line.
	d, err := xie2019.Chain()
	display.Check(err)
	s, err := d.Draw(200, rand.NewPCG(1, 2)) // the private data: n trajectories of the behaviour policy
	display.Check(err)
	data := s.Data // each trajectory's Â_i, b̂_i, Ĉ_i over all its transitions: (2.2)
	n, dim := data.Len(), data.Dim()
	T, alpha, C := n, 0.001, d.Clip
	z, err := policyeval.GPOPESigma(xie2019.Calibration, n, T, 1, xie2019.Delta, 1, mechanisms.IntegerOrders(2, 256))
	display.Check(err)
	sigma := z * C // the noise that (ε, δ) needs after T steps (Theorem 1), by the accountant
	rng := rand.New(rand.NewPCG(3, 4))
	x := make([]float64, 2*dim) // x = [θ; w], x₀ = 0
	g := make([]float64, 2*dim)
	for range T {
		i := rng.IntN(n)            // line 2: a trajectory uniformly at random
		data.Gradient(g, i, x)      // lines 3–4: g = [−Âᵀw; Âθ − b̂ + Ĉw], (4.1)
		mechanisms.ClipToNorm(g, C) // line 5: clip to norm C
		for j := range x {          // lines 6–7: add N(0, σ²) to every entry, step
			x[j] -= alpha * mechanisms.AddGaussian(g[j], sigma, rng)
		}
	}
	lib, err := data.GPOPE(policyeval.GPOPEConfig{Gamma: d.Gamma, Iterations: T, Step: policyeval.Constant(alpha), Clip: C, Sigma: sigma,
		Src: rand.NewPCG(3, 4)})
	display.Check(err)
	display.Markdown(fmt.Sprintf("σ/C = %.3g; MSPBE: this loop %.3g, policyeval's GPOPE %.3g, θ = 0 %.3g; the same θ: %v",
		z, d.True.MSPBE(x[:dim]), d.True.MSPBE(lib), d.True.MSPBE(make([]float64, dim)), slices.Equal(x[:dim], lib)))
	// cell end

	// Output:
	// σ/C = 2.08; MSPBE: this loop 0.0124, policyeval's GPOPE 0.0124, θ = 0 0.0125; the same θ: true
}

// notebook is notebook 03, as stored.
const notebook = "../../../notebooks/03-xie2019-gpope.ipynb"

// TestAlgorithmCellIsTheExample: the notebook's "algorithm in code" cell (the code cell whose first line
// after %% starts "// Algorithm 1 in code") is Example_algorithmInCode's body between its markers, so the
// example's output (the loop equals the library) holds for the cell too.
func TestAlgorithmCellIsTheExample(t *testing.T) {
	nb, err := kernels.ReadNotebookFile(notebook)
	if err != nil {
		t.Fatal(err)
	}
	var cell []string
	for _, c := range nb.Cells {
		lines := strings.Split(string(c.Source), "\n")
		if c.CellType == "code" && len(lines) > 1 && lines[0] == "%%" && strings.HasPrefix(lines[1], "// Algorithm 1 in code") {
			cell = lines[1:]
		}
	}
	if cell == nil {
		t.Fatalf("%s has no cell starting %q", notebook, "// Algorithm 1 in code")
	}
	src, err := os.ReadFile(filepath.Join(".", "algorithm_test.go"))
	if err != nil {
		t.Fatal(err)
	}
	body := strings.Split(string(src), "\n")
	begin, end := slices.Index(body, "\t// cell begin"), slices.Index(body, "\t// cell end")
	if begin < 0 || end < begin {
		t.Fatal("algorithm_test.go: markers not found")
	}
	var want []string
	for _, l := range body[begin+1 : end] {
		want = append(want, strings.TrimPrefix(l, "\t"))
	}
	if got := strings.TrimRight(strings.Join(cell, "\n"), "\n"); got != strings.Join(want, "\n") {
		t.Errorf("the notebook's cell differs from Example_algorithmInCode:\n--- cell\n%s\n--- example\n%s", got, strings.Join(want, "\n"))
	}
}
