package adhoc

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dprl-project/dprl/dprl/audit"
	"github.com/dprl-project/dprl/dprl/report"
	"github.com/dprl-project/dprl/envs"
)

func TestMethodNames(t *testing.T) {
	if n := MethodNames(); len(n) != len(Methods) || n[1] != "DP-LSL" {
		t.Errorf("names %v", n)
	}
}

// handRows is a hand-made study: DP-LSL is best at ε = 1 (mean 0.3), GPOPE failed there, DP-LSW meets 0.5 only at
// m = 1000.
func handRows() []Row {
	nan := math.NaN()
	return []Row{
		{Method: DPLSW, Eps: 1, M: 100, Trial: 0, Error: 2}, {Method: DPLSW, Eps: 1, M: 1000, Trial: 0, Error: 0.4},
		{Method: DPLSL, Eps: 1, M: 100, Trial: 0, Error: 0.2}, {Method: DPLSL, Eps: 1, M: 1000, Trial: 0, Error: 0.4},
		{Method: GPOPE, Eps: 1, M: 100, Trial: 0, Error: nan, Err: "no σ"}, {Method: GPOPE, Eps: 1, M: 1000, Trial: 0, Error: nan, Err: "no σ"},
		{Method: DPLSW, Eps: 10, M: 100, Trial: 0, Error: 0.01},
	}
}

func TestBestAndNeededTable(t *testing.T) {
	m, e := Best(handRows(), 1)
	if m != DPLSL || math.Abs(e-0.3) > 1e-12 {
		t.Errorf("best %v %g, want DP-LSL 0.3", m, e)
	}
	if m, e := Best(handRows(), 3); m != DPLSW || e != 0 {
		t.Errorf("no rows at ε = 3: %v %g", m, e)
	}
	got := NeededTable(handRows(), []int{100, 1000}, [][2]float64{{1, 0.5}, {1, 0.1}})
	want := [][]string{{"1", "0.5", "1000", "100", "not run"}, {"1", "0.1", "> 1000", "> 1000", "not run"}} // GPOPE: every release failed
	if len(got) != 2 || strings.Join(got[0], ",") != strings.Join(want[0], ",") || strings.Join(got[1], ",") != strings.Join(want[1], ",") {
		t.Errorf("needed %v, want %v", got, want)
	}
}

// TestAnalysis runs every step of the notebook on a tiny sample in a temporary folder: each shows what it should
// and the sweep, the budget study and their summaries land in Dir.
func TestAnalysis(t *testing.T) {
	dir := t.TempDir()
	s, _ := chainSetup(t, 1)
	s.Steps = 20
	a := &Analysis{Data: filepath.Join(dir, "data", "t.csv"), Actions: 2, Dir: filepath.Join(dir, "out"), Setup: s}
	if _, err := a.Load(); err == nil {
		t.Fatal("a missing file loaded")
	}
	var r report.Recorder
	steps := []struct {
		name            string
		run             func() error
		figures, tables int
	}{
		{"Write", func() error {
			sample, err := envs.NewBalleEvaluation().Collect(60, rand.NewPCG(2026, 7))
			if err != nil {
				return err
			}
			return a.Write(&r, sample)
		}, 0, 0},
		{"Describe", func() error { return a.Describe(&r) }, 0, 1},
		{"Baselines", func() error { return a.Baselines(&r) }, 0, 1},
		{"Sweep", func() error { return a.Sweep(&r, []float64{1, 10}, 2) }, 1, 1},
		{"Plan", func() error {
			return a.Plan(&r, Budget{Epsilons: []float64{10}, Sizes: []int{30, 60}, Trials: 2, Targets: [][2]float64{{10, 100}}})
		}, 1, 1},
		{"Export", func() error {
			if err := a.Export(&r); err != nil {
				return err
			}
			if md := r.Items[0].Markdown; !strings.Contains(md, "sweep.csv`: 12 releases") {
				t.Errorf("export says %q", md)
			}
			return nil
		}, 0, 0},
		{"AuditBest", func() error {
			// a saved sweep where DP-LSL is best at ε = 1 (GPOPE's calibration would make each run slow)
			if err := a.save("sweep", handRows()); err != nil {
				return err
			}
			return a.AuditBest(&r, 1, audit.Config{Runs: 10, Seed: 3, Workers: 1})
		}, 0, 1},
	}
	for _, st := range steps {
		r.Items = nil
		if err := st.run(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if r.Figures() != st.figures || r.Tables() != st.tables {
			t.Errorf("%s: %d figures, %d tables; want %d, %d", st.name, r.Figures(), r.Tables(), st.figures, st.tables)
		}
	}
	if rows := r.Items[0].Rows; rows[0][0] != "DP-LSL" || rows[0][1] != "0.3000" || rows[0][7] != "40" {
		t.Errorf("audit table %v", rows)
	}
	for _, f := range []string{"sweep.csv", "plan.csv", "sweep-summary.csv", "plan-summary.csv"} {
		if _, err := os.Stat(filepath.Join(a.Dir, f)); err != nil {
			t.Error(err)
		}
	}
	p, err := a.EstimateDraw(3)([]float64{1, 1})
	if err != nil || !strings.Contains(p.Title.Text, "DP-LSL at ε = 1") {
		t.Errorf("explorer figure: %v", err)
	}
	if _, err := a.EstimateDraw(3)([]float64{1, 3}); err == nil {
		t.Error("estimator index 3 accepted")
	}
	if err := a.Plan(report.Discard, Budget{}); err == nil {
		t.Error("an empty budget accepted")
	}
}
