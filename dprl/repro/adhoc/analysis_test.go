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
	"github.com/dprl-project/dprl/dprl/session"
	"github.com/dprl-project/dprl/envs"
	"github.com/dprl-project/dprl/trajectory"
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

// tinyAnalysis is the notebook's analysis on 60-trajectory files in a temporary folder, with a budget of
// (ε = 10, δ = 1e−3) in a store there, fixed noise, and GPOPE shortened to 20 steps.
func tinyAnalysis(t *testing.T) *Analysis {
	dir := t.TempDir()
	s, _ := chainSetup(t, 1)
	s.Steps = 20
	return &Analysis{Data: filepath.Join(dir, "data", "t.csv"), Public: filepath.Join(dir, "data", "public.csv"), Actions: 2,
		Dir: filepath.Join(dir, "out"), Setup: s, Budget: session.Total{Epsilon: 10, Delta: 1e-3}, Store: filepath.Join(dir, "budgets"),
		Src: rand.NewPCG(4, 4)}
}

// writeFiles writes n trajectories of Balle's chain as the private file (stream 7, as the notebook's
// sample) and n more, simulated from the same public model, as the planning file (stream 8).
func writeFiles(a *Analysis, out report.Sink, n int) error {
	for i, write := range []func(report.Sink, *trajectory.Dataset) error{a.Write, a.WritePublic} {
		d, err := envs.NewBalleEvaluation().Collect(n, rand.NewPCG(2026, uint64(7+i)))
		if err != nil {
			return err
		}
		if err := write(out, d); err != nil {
			return err
		}
	}
	return nil
}

// TestAnalysis runs every step of the notebook on tiny files in a temporary folder: each shows what it
// should, the planning results land in Dir, and the private file sees exactly one release.
func TestAnalysis(t *testing.T) {
	a := tinyAnalysis(t)
	if _, err := a.Planning(); err == nil {
		t.Fatal("a missing planning file loaded")
	}
	var r report.Recorder
	steps := []struct {
		name            string
		run             func() error
		figures, tables int
	}{
		{"Write, WritePublic", func() error { return writeFiles(a, &r, 60) }, 0, 0},
		{"Describe", func() error { return a.Describe(&r) }, 0, 1},
		{"Baselines", func() error { return a.Baselines(&r) }, 0, 1},
		{"Sweep", func() error { return a.Sweep(&r, []float64{1, 10}, 2) }, 1, 1},
		{"Plan", func() error {
			return a.Plan(&r, SizePlan{Epsilons: []float64{10}, Sizes: []int{30, 60}, Trials: 2, Targets: [][2]float64{{10, 100}}})
		}, 1, 1},
		{"CompareFilters", func() error {
			return a.CompareFilters(&r, []Planned{{DPLSL, 1, 1e-5}, {DPLSL, 0.01, 1e-9}, {GPOPE, 0.01, 1e-7}})
		}, 0, 1},
		{"OpenBudget", func() error { return a.OpenBudget(&r) }, 0, 1},
		{"ReleaseBest", func() error { return a.ReleaseBest(&r, 1) }, 1, 1},
		{"Ledger", func() error { return a.Ledger(&r) }, 1, 1},
		{"Export", func() error {
			if err := a.Export(&r); err != nil {
				return err
			}
			if md := r.Items[0].Markdown; !strings.Contains(md, "sweep.csv`: 12 releases on the planning data") || !strings.Contains(r.Items[2].Markdown, "release.csv") {
				t.Errorf("export says %q, %q", md, r.Items[2].Markdown)
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
		switch st.name {
		case "Describe":
			if row := r.Items[0].Rows[0]; row[1] != "private" || row[2] != "60" || row[3] != "(private)" || !strings.HasPrefix(row[7], "sha256:") {
				t.Errorf("the private file's row %v", row)
			}
		case "CompareFilters":
			rows := r.Items[1].Rows
			if rows[0][4] != "10" || rows[1][4] != "1000" || !strings.HasPrefix(rows[2][3], "cannot run") {
				t.Errorf("filters compared: %v", rows)
			}
		case "ReleaseBest":
			rows, _ := a.restore("sweep")
			best, _ := Best(rows, 1)
			if md := r.Items[0].Markdown; !strings.Contains(md, "Chosen on the planning data: **"+best.String()+"**") {
				t.Errorf("choice: %q, the sweep's best is %v", md, best)
			}
		case "Ledger":
			if rows := r.Items[1].Rows; len(rows) != 2 || !strings.Contains(rows[1][2], " θ") || rows[1][6] != "ε = 9, δ = 0.00099" {
				t.Errorf("ledger table %v", rows)
			}
		}
	}
	if rows := r.Items[0].Rows; rows[0][0] != "DP-LSL" || rows[0][1] != "0.3000" || rows[0][7] != "40" {
		t.Errorf("audit table %v", rows)
	}
	for _, f := range []string{"sweep.csv", "plan.csv", "sweep-summary.csv", "plan-summary.csv", "release.csv"} {
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
	if err := a.Plan(report.Discard, SizePlan{}); err == nil {
		t.Error("an empty size plan accepted")
	}
}

// TestPlanningRefusesThePrivateFile: a planning file with the private file's content (a copy under another
// name) is refused, so no planning step can run on the private data by mistake.
func TestPlanningRefusesThePrivateFile(t *testing.T) {
	a := tinyAnalysis(t)
	if err := writeFiles(a, report.Discard, 40); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(a.Data)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(a.Public, b, 0o600); err != nil {
		t.Fatal(err)
	}
	for name, step := range map[string]func() error{
		"Planning":  func() error { _, err := a.Planning(); return err },
		"Sweep":     func() error { return a.Sweep(report.Discard, []float64{1}, 1) },
		"Baselines": func() error { return a.Baselines(report.Discard) },
	} {
		if err := step(); err == nil || !strings.Contains(err.Error(), "holds the private data") {
			t.Errorf("%s on a copy of the private file: %v", name, err)
		}
	}
}
