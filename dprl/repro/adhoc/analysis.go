package adhoc

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"

	"gonum.org/v1/plot"

	"github.com/dprl-project/dprl/dprl/audit"
	"github.com/dprl-project/dprl/dprl/figure"
	"github.com/dprl-project/dprl/dprl/report"
	"github.com/dprl-project/dprl/trajectory"
)

// Analysis is notebook 07's workflow on one trajectory file: describe the data, compare the non-private
// estimates, sweep ε, plan a budget, audit the best estimator and export the results. Each step is a method
// that shows its results on a report.Sink. The steps share nothing in memory (a notebook runs every cell as a
// new program): the sweep and the budget study are saved as CSV files in Dir (sweep.csv, plan.csv), which the
// audit and the export read back.
type Analysis struct {
	Data    string // the trajectory file, in the CSV format of trajectory.Dataset.WriteCSV
	Actions int    // the number of actions in the file
	Dir     string // where results are exported
	Setup   *Setup // the public reading of the data

	data *trajectory.Dataset // Data, once loaded
}

// MethodNames are the names of Methods, in order (an explorer's list of estimators).
func MethodNames() []string {
	names := make([]string, len(Methods))
	for i, m := range Methods {
		names[i] = m.String()
	}
	return names
}

// Write writes d to a.Data in the trajectory CSV format (creating its folder) and says how large the file
// is: the notebook writes its sample data this way.
func (a *Analysis) Write(out report.Sink, d *trajectory.Dataset) error {
	if err := os.MkdirAll(filepath.Dir(a.Data), 0o755); err != nil {
		return err
	}
	f, err := os.Create(a.Data)
	if err != nil {
		return err
	}
	if err := d.WriteCSV(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	a.data = nil
	st, err := os.Stat(a.Data)
	if err != nil {
		return err
	}
	out.Markdown(fmt.Sprintf("Wrote %d trajectories to `%s` (%.1f MB).", len(d.Trajectories), a.Data, float64(st.Size())/1e6))
	return nil
}

// Load reads a.Data (once; later calls return the same dataset).
func (a *Analysis) Load() (*trajectory.Dataset, error) {
	if a.data != nil {
		return a.data, nil
	}
	f, err := os.Open(a.Data)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	d, err := trajectory.ReadCSV(f, a.Actions)
	if err != nil {
		return nil, fmt.Errorf("adhoc: %s: %w", a.Data, err)
	}
	a.data = d
	return d, nil
}

// Describe shows the file's size: trajectories, steps, dimensions and the trajectory lengths.
func (a *Analysis) Describe(out report.Sink) error {
	d, err := a.Load()
	if err != nil {
		return err
	}
	if len(d.Trajectories) == 0 {
		return fmt.Errorf("adhoc: %s holds no trajectories", a.Data)
	}
	lengths := make([]float64, len(d.Trajectories))
	for i, tr := range d.Trajectories {
		lengths[i] = float64(len(tr.Steps))
	}
	slices.Sort(lengths)
	out.Table([]string{"trajectories", "steps", "observation dim", "actions", "length: min / median / max"},
		[][]string{{fmt.Sprint(len(d.Trajectories)), fmt.Sprint(d.NumSteps()), fmt.Sprint(d.ObsDim), fmt.Sprint(d.NumActions),
			fmt.Sprintf("%g / %g / %g", lengths[0], lengths[len(lengths)/2], lengths[len(lengths)-1])}})
	return nil
}

// Baselines validates the setup against the file and shows each estimator's non-private counterpart's error
// against the reference (the floor its private version can approach), then the reference values of the
// first, middle and last states.
func (a *Analysis) Baselines(out report.Sink) error {
	s := a.Setup
	d, err := a.Load()
	if err != nil {
		return err
	}
	if err := s.Validate(d); err != nil {
		return err
	}
	ref, err := s.Reference(d)
	if err != nil {
		return err
	}
	var rows [][]string
	for _, m := range Methods {
		th, err := s.NonPrivate(m, d, rand.NewPCG(1, 1))
		if err != nil {
			return err
		}
		rows = append(rows, []string{m.String(), fmt.Sprintf("%.4f", s.Error(th, ref))})
	}
	out.Table([]string{"non-private counterpart of", "error vs reference"}, rows)
	v := s.Values(ref)
	mid, last := (len(v)-1)/2, len(v)-1
	out.Markdown(fmt.Sprintf("Reference values: V(%d) = %.3f, V(%d) = %.3f, V(%d) = %.3f.", 0, v[0], mid, v[mid], last, v[last]))
	return nil
}

// Sweep releases every estimator trials times at each ε on the whole file (seed 1), with a progress bar,
// saves the releases as sweep.csv in Dir, and shows the mean error ± one standard deviation against ε and the
// summary table.
func (a *Analysis) Sweep(out report.Sink, epsilons []float64, trials int) error {
	d, err := a.Load()
	if err != nil {
		return err
	}
	bar := out.Bar("releases", len(Methods)*len(epsilons)*trials)
	rows, err := a.Setup.Study(d, Methods, epsilons, []int{0}, trials, 1, 0, bar)
	bar.Done()
	if err != nil {
		return err
	}
	if err := a.save("sweep", rows); err != nil {
		return err
	}
	p, err := Curves(rows, Methods, epsilons, false, figure.Options{Title: fmt.Sprintf("privacy–utility on %d trajectories", len(d.Trajectories)),
		XLabel: "ε", YLabel: "error (ρ-RMSE)", LegendLeft: true, LegendBottom: true})
	if err != nil {
		return err
	}
	if err := out.Figure(p); err != nil {
		return err
	}
	t := Summary(rows)
	out.Table(t.Columns, t.Rows)
	return nil
}

// EstimateDraw is the explorer's Draw function: v holds ε and the index of the estimator in Methods; the
// figure is Setup.EstimateFigure over the given number of releases (seed 1) on the file.
func (a *Analysis) EstimateDraw(releases int) func(v []float64) (*plot.Plot, error) {
	return func(v []float64) (*plot.Plot, error) {
		if len(v) != 2 {
			return nil, fmt.Errorf("adhoc: EstimateDraw needs 2 values (ε, the estimator's index), got %d", len(v))
		}
		i := int(v[1])
		if i < 0 || i >= len(Methods) {
			return nil, check.Errorf("v[1]", v[1], "an index of Methods, [0, %d]", len(Methods)-1)
		}
		d, err := a.Load()
		if err != nil {
			return nil, err
		}
		return a.Setup.EstimateFigure(Methods[i], d, v[0], releases, 1)
	}
}

// Budget is the budget-planning study: every estimator at each of Epsilons on Trials resamples of each of
// Sizes trajectories, and the (ε, target error) pairs of Targets for the table of trajectories needed. The
// figure shows the first ε.
type Budget struct {
	Epsilons []float64
	Sizes    []int
	Trials   int
	Targets  [][2]float64
}

// Plan runs the budget study (seed 2) with a progress bar, saves the releases as plan.csv in Dir, and shows
// the error against the number of trajectories at the first ε and, for each target, the smallest studied size
// whose mean error meets it (or "> the largest size").
func (a *Analysis) Plan(out report.Sink, b Budget) error {
	if len(b.Epsilons) == 0 || len(b.Sizes) == 0 {
		return check.Missing("Budget", "at least one ε and one size")
	}
	d, err := a.Load()
	if err != nil {
		return err
	}
	bar := out.Bar("releases", len(b.Epsilons)*len(Methods)*len(b.Sizes)*b.Trials)
	rows, err := a.Setup.Study(d, Methods, b.Epsilons, b.Sizes, b.Trials, 2, 0, bar)
	bar.Done()
	if err != nil {
		return err
	}
	if err := a.save("plan", rows); err != nil {
		return err
	}
	xs := make([]float64, len(b.Sizes))
	for i, m := range b.Sizes {
		xs[i] = float64(m)
	}
	p, err := Curves(AtEpsilon(rows, b.Epsilons[0]), Methods, xs, true, figure.Options{Title: fmt.Sprintf("error vs number of trajectories at ε = %g", b.Epsilons[0]),
		XLabel: "trajectories m", YLabel: "error (ρ-RMSE)", LegendLeft: true, LegendBottom: true})
	if err != nil {
		return err
	}
	if err := out.Figure(p); err != nil {
		return err
	}
	out.Markdown("Trajectories needed (smallest studied size whose mean error meets the target):")
	out.Table(append([]string{"ε", "target error"}, MethodNames()...), NeededTable(rows, b.Sizes, b.Targets))
	return nil
}

// NeededTable has one row per (ε, target error): ε, the target, and for each of Methods the smallest of sizes
// whose mean error at that ε meets the target (Needed), "> the largest size", or "not run" when no release of
// the method ran at that ε (DP-LSW and DP-LSL refuse ε > 1: their constants give no guarantee there).
func NeededTable(rows []Row, sizes []int, targets [][2]float64) [][]string {
	var table [][]string
	for _, target := range targets {
		at := AtEpsilon(rows, target[0])
		need := Needed(at, Methods, sizes, target[1])
		row := []string{fmt.Sprint(target[0]), fmt.Sprint(target[1])}
		for _, m := range Methods {
			ran := false
			for _, r := range at {
				ran = ran || (r.Method == m && r.Err == "")
			}
			if !ran {
				row = append(row, "not run")
			} else if need[m] == 0 {
				row = append(row, fmt.Sprintf("> %d", sizes[len(sizes)-1]))
			} else {
				row = append(row, fmt.Sprint(need[m]))
			}
		}
		table = append(table, row)
	}
	return table
}

// Best is the method with the smallest mean error among rows at ε = eps that ran, with that mean; DP-LSW and 0
// when none ran.
func Best(rows []Row, eps float64) (Method, float64) {
	best, bestErr := DPLSW, 0.0
	for _, m := range Methods {
		sum, k := 0.0, 0
		for _, r := range rows {
			if r.Method == m && r.Eps == eps && r.Err == "" {
				sum += r.Error
				k++
			}
		}
		if k > 0 && (bestErr == 0 || sum/float64(k) < bestErr) {
			best, bestErr = m, sum/float64(k)
		}
	}
	return best, bestErr
}

// AuditBest audits, at ε = eps on the file, the estimator with the smallest mean error at eps in the saved
// sweep (Best), against the canary of Setup.Audit, with a progress bar, and shows the audited lower bound with
// its error rates.
func (a *Analysis) AuditBest(out report.Sink, eps float64, cfg audit.Config) error {
	d, err := a.Load()
	if err != nil {
		return err
	}
	rows, err := a.restore("sweep")
	if err != nil {
		return err
	}
	best, bestErr := Best(rows, eps)
	bar := out.Bar("audit runs of "+best.String(), 4*cfg.Runs)
	res, err := a.Setup.Audit(best, d, eps, cfg, bar)
	bar.Done()
	if err != nil {
		return err
	}
	out.Table([]string{"estimator", fmt.Sprintf("mean error at ε = %g", eps), "claimed ε", "δ", "audited ε ≥ (95%)", "FPR", "FNR", "runs", "time"},
		[][]string{{best.String(), fmt.Sprintf("%.4f", bestErr), fmt.Sprint(eps), fmt.Sprint(a.Setup.Delta), fmt.Sprintf("%.3f", res.EpsilonLower),
			fmt.Sprintf("%.3f", res.FPR), fmt.Sprintf("%.3f", res.FNR), fmt.Sprint(res.Runs), report.FormatDuration(res.Elapsed)}})
	return nil
}

// Export writes the summary (Summary) of the saved sweep and budget study next to them in Dir, as
// sweep-summary.csv and plan-summary.csv, and says where everything is.
func (a *Analysis) Export(out report.Sink) error {
	for _, name := range []string{"sweep", "plan"} {
		rows, err := a.restore(name)
		if err != nil {
			return err
		}
		path := filepath.Join(a.Dir, name+"-summary.csv")
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		if err := Summary(rows).WriteCSV(f); err != nil {
			f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
		out.Markdown(fmt.Sprintf("`%s`: %d releases; summary in `%s`", filepath.Join(a.Dir, name+".csv"), len(rows), path))
	}
	return nil
}

// save writes rows as name.csv in Dir (RowsTable's CSV).
func (a *Analysis) save(name string, rows []Row) error {
	if err := os.MkdirAll(a.Dir, 0o755); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(a.Dir, name+".csv"))
	if err != nil {
		return err
	}
	if err := RowsTable(rows).WriteCSV(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// restore reads name.csv from Dir back into rows.
func (a *Analysis) restore(name string) ([]Row, error) {
	f, err := os.Open(filepath.Join(a.Dir, name+".csv"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadRows(f)
}
