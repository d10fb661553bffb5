package sharma

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dprl-project/dprl/dprl/expertdp"
	"github.com/dprl-project/dprl/dprl/repro/claimtest"
	"github.com/dprl-project/dprl/mechanisms"
)

// The notebook's "algorithm in code" cell, copied verbatim: TestNotebookAlgorithmCell keeps the two equal.

// dataRelease is Algorithms 1–2 (DataRelease calling PrefixQuery) from library primitives: the stable
// prefix length kept from each of the T examined trajectories of the log.
func dataRelease(data *expertdp.Data, experts *expertdp.Experts, eps1, delta1, pMin float64, T, L int, src rand.Source) ([]int, error) {
	epsP := eps1 / math.Sqrt(32*float64(T)*math.Log(2/delta1)) // ε′ (Algorithm 2, line 3)
	deltaP := delta1 / (2 * float64(T) * float64(L))           // δ′ (line 3)
	cMin := math.Exp(epsP) / math.Expm1(epsP)                  // c_min (line 4)
	theta := cMin / pMin                                       // θ (line 4)
	rng := rand.New(src)
	thrNoise, err := mechanisms.NewLaplaceScale(2/epsP, rng) // the threshold's Lap(2/ε′) (line 8)
	if err != nil {
		return nil, err
	}
	qNoise, err := mechanisms.NewLaplaceScale(4/epsP, rng) // each query's Lap(4/ε′) (Algorithm 1, line 3)
	if err != nil {
		return nil, err
	}
	count, err := expertdp.NewPrefixCounter(experts, pMin) // count_τ(Π) along a trajectory (Algorithm 1, line 2)
	if err != nil {
		return nil, err
	}
	order := rng.Perm(len(data.Trajs)) // reshuffle D^Π (line 5)
	kept := make([]int, T)
	for c := range T { // lines 6–7: the next trajectory
		count.Start(&data.Trajs[order[c]])
		thr := theta + 4/epsP*math.Log(1/deltaP) + thrNoise.Sample() // θ̂ (line 8)
		for i := 1; i <= L; i++ {                                    // line 9
			n, ok := count.Next()
			if !ok || n+qNoise.Sample() <= thr { // past |τ|, or PrefixQuery says ⊥ (lines 10–14)
				break
			}
			kept[c] = i // τ_{1:i} is stable
		}
	}
	return kept, nil
}

// The algorithm written in the notebook gives exactly the library's release with the same seed: on a
// small CartPole log at a budget where prefixes pass, and at the paper's CartPole split, where few do.
func TestAlgorithmInCode(t *testing.T) {
	st, err := NewSetup("cartpole", SetupConfig{Bases: 6, Experts: 300, PerExpert: 2, RefEpisodes: 1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	passed := 0
	for k, c := range []struct {
		eps1, delta1 float64
		T, L         int
	}{{3e3, 0.5, 40, 200}, {7.5, 0.9 / 300, 25, 200}, {50, 1e-3, 60, 30}} {
		mine, err := dataRelease(st.Data, st.Experts, c.eps1, c.delta1, PMin, c.T, c.L, rand.NewPCG(uint64(k), 9))
		if err != nil {
			t.Fatal(err)
		}
		lib, err := expertdp.DataRelease(st.Data, st.Experts, expertdp.ReleaseParams{Epsilon: c.eps1, Delta: c.delta1, PMin: PMin, T: c.T, L: c.L,
			Src: rand.NewPCG(uint64(k), 9)})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(mine, lib.StableLen()) {
			t.Errorf("%+v: the notebook's algorithm keeps %v, the library %v", c, mine, lib.StableLen())
		}
		passed += slices.Max(mine)
	}
	if passed == 0 {
		t.Error("no prefix passed in any case: the comparison says nothing")
	}
}

// TestNotebookAlgorithmCell: exactly one code cell of notebook 05 declares dataRelease, and its declaration is
// this file's, doc comment included (both formatted by gofmt), so the equality TestAlgorithmInCode asserts
// holds for what the reader sees.
func TestNotebookAlgorithmCell(t *testing.T) {
	claimtest.CellFunc(t, filepath.Join("..", "..", "..", "notebooks", "05-sharma-expert-level-offline-rl.ipynb"), "algorithm_test.go", "dataRelease")
	b, err := os.ReadFile("algorithm_test.go")
	if err != nil {
		t.Fatal(err)
	}
	src := string(b)
	body := src[strings.Index(src, "func dataRelease("):strings.Index(src, "// The algorithm written in the notebook")]
	if n := strings.Count(body, "\n"); n > 40 {
		t.Errorf("dataRelease is %d lines, the algorithm section's budget is about 40", n)
	}
}
