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
	"github.com/dprl-project/dprl/dprl/session"
	"github.com/dprl-project/dprl/trajectory"
)

// Analysis is notebook 07's workflow on one private trajectory file: plan on public data (compare the
// estimators, sweep ε, study sizes, audit), choose there, then release once on the private file through a
// session that charges the file's persistent budget (package session), and show the ledger. Each step is
// a method that shows its results on a report.Sink. The steps share nothing in memory (a notebook runs
// every cell as a new program): planning results are saved as CSV files in Dir (sweep.csv, plan.csv,
// release.csv), and the budget lives in the session's store.
//
// The private file is opened only by a session.Session: no method reads it otherwise, except for its public
// identity (content hash, number of trajectories, shape). Everything else runs on Public.
type Analysis struct {
	Data    string // the private trajectory file, in the CSV format of trajectory.Dataset.WriteCSV
	Actions int    // the number of actions in the files
	// Public is the planning file: trajectories that are not the private ones, e.g. simulated from a public
	// model of the system (WritePublic) or a public split you name. Choosing on it costs nothing.
	Public string
	Dir    string // where results are exported
	Setup  *Setup // the public reading of the data
	// Budget is granted to the private file on its first release (OpenBudget); a file with a budget keeps
	// its own.
	Budget session.Total
	// Store is the budget store ("": session.DefaultStore, i.e. $DPRL_BUDGET_DIR or
	// ~/.local/state/dprl/budgets).
	Store string
	// Src is the noise of the private releases (nil: crypto/rand). A fixed seed lets whoever knows it
	// remove the noise: for tests only.
	Src rand.Source

	public *trajectory.Dataset // Public, once loaded
}

// MethodNames are the names of Methods, in order (an explorer's list of estimators).
func MethodNames() []string {
	names := make([]string, len(Methods))
	for i, m := range Methods {
		names[i] = m.String()
	}
	return names
}

// Write writes d to Data in the trajectory CSV format (creating its folder) and says how large the file is:
// the notebook writes its stand-in for your private file this way.
func (a *Analysis) Write(out report.Sink, d *trajectory.Dataset) error {
	return writeData(out, a.Data, d, "the private sample")
}

// WritePublic writes d to Public, the planning file: e.g. trajectories simulated from a public model of the
// system (the notebook collects them with package envs), to plan on at no privacy cost.
func (a *Analysis) WritePublic(out report.Sink, d *trajectory.Dataset) error {
	a.public = nil
	return writeData(out, a.Public, d, "planning data")
}

// writeData writes d to path (creating its folder) and says how large the file is.
func writeData(out report.Sink, path string, d *trajectory.Dataset, what string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
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
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	out.Markdown(fmt.Sprintf("Wrote %d trajectories of %s to `%s` (%.1f MB).", len(d.Trajectories), what, path, float64(st.Size())/1e6))
	return nil
}

// Planning reads Public (once; later calls return the same dataset). It refuses a planning file whose
// content is the private file's: planning on the private data would spend without counting.
func (a *Analysis) Planning() (*trajectory.Dataset, error) {
	if a.public != nil {
		return a.public, nil
	}
	if a.Public == "" {
		return nil, check.Missing("Public", "a planning file that is not the private data (WritePublic, or a public split)")
	}
	f, err := os.Open(a.Public)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	d, err := trajectory.ReadCSV(f, a.Actions)
	if err != nil {
		return nil, fmt.Errorf("adhoc: %s: %w", a.Public, err)
	}
	h, err := session.Hash(d)
	if err != nil {
		return nil, err
	}
	if id, err := session.Identify(a.Data, a.Actions); err == nil && id.Hash == h {
		return nil, fmt.Errorf("adhoc: the planning file %s holds the private data (%s): plan on public or synthetic data", a.Public, a.Data)
	}
	a.public = d
	return d, nil
}

// Describe shows what may be said of the private file without spending (its content hash, the number of
// trajectories, which the neighbouring relation makes public, and its shape) and the planning file's size:
// trajectories, steps and the trajectory lengths.
func (a *Analysis) Describe(out report.Sink) error {
	id, err := session.Identify(a.Data, a.Actions)
	if err != nil {
		return err
	}
	d, err := a.Planning()
	if err != nil {
		return err
	}
	lengths := make([]float64, len(d.Trajectories))
	for i, tr := range d.Trajectories {
		lengths[i] = float64(len(tr.Steps))
	}
	slices.Sort(lengths)
	out.Table([]string{"file", "role", "trajectories", "steps", "observation dim", "actions", "length: min / median / max", "content hash"},
		[][]string{
			{a.Data, "private", fmt.Sprint(id.Records), "(private)", fmt.Sprint(id.ObsDim), fmt.Sprint(id.Actions), "(private)", shortHash(id.Hash)},
			{a.Public, "planning", fmt.Sprint(len(d.Trajectories)), fmt.Sprint(d.NumSteps()), fmt.Sprint(d.ObsDim), fmt.Sprint(d.NumActions),
				fmt.Sprintf("%g / %g / %g", lengths[0], lengths[len(lengths)/2], lengths[len(lengths)-1]), "—"}})
	return nil
}

// shortHash is the first 12 hex digits of a "sha256:…" hash.
func shortHash(h string) string {
	if len(h) > 19 {
		return h[:19] + "…"
	}
	return h
}

// Baselines validates the setup against the planning data and shows each estimator's non-private
// counterpart's error there against the reference (the floor its private version can approach), then the
// reference values of the first, middle and last states.
func (a *Analysis) Baselines(out report.Sink) error {
	s := a.Setup
	d, err := a.Planning()
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

// Sweep releases every estimator trials times at each ε on the planning data (seed 1), with a progress
// bar, saves the releases as sweep.csv in Dir, and shows the mean error ± one standard deviation against ε
// and the summary table.
func (a *Analysis) Sweep(out report.Sink, epsilons []float64, trials int) error {
	d, err := a.Planning()
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
	p, err := Curves(rows, Methods, epsilons, false, figure.Options{Title: fmt.Sprintf("privacy–utility on the planning data (%d trajectories)", len(d.Trajectories)),
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
// figure is Setup.EstimateFigure over the given number of releases (seed 1) on the planning data.
func (a *Analysis) EstimateDraw(releases int) func(v []float64) (*plot.Plot, error) {
	return func(v []float64) (*plot.Plot, error) {
		if len(v) != 2 {
			return nil, fmt.Errorf("adhoc: EstimateDraw needs 2 values (ε, the estimator's index), got %d", len(v))
		}
		i := int(v[1])
		if i < 0 || i >= len(Methods) {
			return nil, check.Errorf("v[1]", v[1], "an index of Methods, [0, %d]", len(Methods)-1)
		}
		d, err := a.Planning()
		if err != nil {
			return nil, err
		}
		p, err := a.Setup.EstimateFigure(Methods[i], d, v[0], releases, 1)
		if err != nil {
			return nil, err
		}
		p.Title.Text += " on the planning data"
		return p, nil
	}
}

// SizePlan is the size study: every estimator at each of Epsilons on Trials resamples of each of Sizes
// trajectories of the planning data, and the (ε, target error) pairs of Targets for the table of
// trajectories needed. The figure shows the first ε.
type SizePlan struct {
	Epsilons []float64
	Sizes    []int
	Trials   int
	Targets  [][2]float64
}

// Plan runs the size study on the planning data (seed 2) with a progress bar, saves the releases as
// plan.csv in Dir, and shows the error against the number of trajectories at the first ε and, for each
// target, the smallest studied size whose mean error meets it (or "> the largest size").
func (a *Analysis) Plan(out report.Sink, b SizePlan) error {
	if len(b.Epsilons) == 0 || len(b.Sizes) == 0 {
		return check.Missing("SizePlan", "at least one ε and one size")
	}
	d, err := a.Planning()
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
	p, err := Curves(AtEpsilon(rows, b.Epsilons[0]), Methods, xs, true, figure.Options{Title: fmt.Sprintf("error vs number of trajectories at ε = %g (planning data)", b.Epsilons[0]),
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

// AuditBest audits, at ε = eps on the planning data, the estimator with the smallest mean error at eps in
// the saved sweep (Best), against the canary of Setup.Audit, with a progress bar, and shows the audited
// lower bound with its error rates.
func (a *Analysis) AuditBest(out report.Sink, eps float64, cfg audit.Config) error {
	d, err := a.Planning()
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

// Export writes the summary (Summary) of the saved planning sweep and size study next to them in Dir, as
// sweep-summary.csv and plan-summary.csv, and says where everything is, the release (release.csv) included.
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
		out.Markdown(fmt.Sprintf("`%s`: %d releases on the planning data; summary in `%s`", filepath.Join(a.Dir, name+".csv"), len(rows), path))
	}
	if rel := filepath.Join(a.Dir, "release.csv"); fileExists(rel) {
		out.Markdown(fmt.Sprintf("`%s`: the release on the private file (θ and the state values).", rel))
	}
	return nil
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
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
