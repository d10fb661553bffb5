package adhoc

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"

	"gonum.org/v1/plot"

	"github.com/dprl-project/dprl/dprl/audit"
	"github.com/dprl-project/dprl/dprl/experiment"
	"github.com/dprl-project/dprl/dprl/figure"
	"github.com/dprl-project/dprl/dprl/param"
	"github.com/dprl-project/dprl/mechanisms"
	"github.com/dprl-project/dprl/trajectory"
)

// Row is one private release: method, ε, dataset size m, trial, its error against the reference and its noise
// (NaN error and the reason in Err when the method could not run, e.g. no σ meets ε).
type Row struct {
	Method Method
	Eps    float64
	M      int
	Trial  int
	Error  float64
	Sigma  float64
	Err    string
}

// Resample draws m trajectories of d: without replacement when m ≤ len(d), otherwise with replacement
// (extrapolating to more data like the data at hand).
func Resample(d *trajectory.Dataset, m int, src rand.Source) *trajectory.Dataset {
	rng := rand.New(src)
	n := len(d.Trajectories)
	out := &trajectory.Dataset{ObsDim: d.ObsDim, NumActions: d.NumActions, Trajectories: make([]trajectory.Trajectory, m)}
	if m <= n {
		for i, k := range rng.Perm(n)[:m] {
			out.Trajectories[i] = d.Trajectories[k]
		}
		return out
	}
	for i := range out.Trajectories {
		out.Trajectories[i] = d.Trajectories[rng.IntN(n)]
	}
	return out
}

// Study runs every method at every (ε, m) for the given trials (trial streams fixed by seed, so results do not
// depend on the number of workers) and measures each release's error against the full data's reference.
// m = 0 means the whole dataset.
func (s *Setup) Study(d *trajectory.Dataset, methods []Method, epsilons []float64, sizes []int, trials int, seed uint64, workers int, progress experiment.Progress) ([]Row, error) {
	ref, err := s.Reference(d)
	if err != nil {
		return nil, err
	}
	if trials < 1 {
		return nil, &mechanisms.ParamError{Pkg: "adhoc", Param: "trials", Value: float64(trials), Allowed: "[1, ∞)"}
	}
	for i, e := range epsilons {
		if err := check.In(fmt.Sprintf("epsilons[%d]", i), e, param.Positive); err != nil {
			return nil, err
		}
	}
	type job struct {
		m     Method
		eps   float64
		size  int
		trial int
	}
	var jobs []job
	for _, m := range methods {
		for _, e := range epsilons {
			for _, size := range sizes {
				for t := range trials {
					jobs = append(jobs, job{m, e, size, t})
				}
			}
		}
	}
	return experiment.Trials(len(jobs), workers, seed, progress, func(i int, src rand.Source) (Row, error) {
		j := jobs[i]
		data := d
		if j.size > 0 {
			data = Resample(d, j.size, src)
		}
		r := Row{Method: j.m, Eps: j.eps, M: len(data.Trajectories), Trial: j.trial, Error: math.NaN(), Sigma: math.NaN()}
		rel, err := s.estimate(j.m, data, j.eps, false, src)
		if err != nil {
			r.Err = err.Error()
			return r, nil
		}
		r.Error, r.Sigma = s.Error(rel.Theta, ref), rel.Sigma
		return r, nil
	})
}

// curve is method m's errors as trials × xs, x read from each row by key (NaN where missing).
func curve(rows []Row, m Method, xs []float64, key func(Row) float64) [][]float64 {
	return experiment.Gather(rows, xs, func(r Row) int { return r.Trial }, key, func(r Row) (float64, bool) { return r.Error, r.Method == m })
}

// Curves plots the error of each method against ε (bySize false: rows at one size) or against the dataset
// size m (bySize true: rows at one ε), mean ± one standard deviation over trials, log axes.
func Curves(rows []Row, methods []Method, xs []float64, bySize bool, opt figure.Options) (*plot.Plot, error) {
	key := func(r Row) float64 { return r.Eps }
	if bySize {
		key = func(r Row) float64 { return float64(r.M) }
	}
	series := make([]figure.Series, len(methods))
	for i, m := range methods {
		series[i] = figure.Series{Name: m.String(), X: xs, Y: curve(rows, m, xs, key)}
	}
	opt.LogX, opt.LogY, opt.Band = true, true, figure.BandStd
	return figure.Curves(opt, series...)
}

// Needed is, for each method, the smallest dataset size whose mean error (over trials at that size) is at
// most target, or 0 if none of the studied sizes reaches it.
func Needed(rows []Row, methods []Method, sizes []int, target float64) map[Method]int {
	out := map[Method]int{}
	for _, m := range methods {
		xs := make([]float64, len(sizes))
		for i, n := range sizes {
			xs[i] = float64(n)
		}
		mean, _, _ := figure.MeanStd(curve(rows, m, xs, func(r Row) float64 { return float64(r.M) }))
		for i, v := range mean {
			if v <= target {
				out[m] = sizes[i]
				break
			}
		}
	}
	return out
}

// Summary is one line per (method, ε, m): mean and standard deviation of the error, mean σ, and how many
// trials ran (with the first failure's reason).
func Summary(rows []Row) *experiment.Table {
	t := &experiment.Table{Columns: []string{"method", "ε", "m", "trials", "mean error", "std", "mean σ", "note"}}
	type key struct {
		m   Method
		eps float64
		n   int
	}
	var order []key
	groups := map[key][]Row{}
	for _, r := range rows {
		k := key{r.Method, r.Eps, r.M}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], r)
	}
	for _, k := range order {
		errs, sig := [][]float64{}, 0.0
		note := ""
		for _, r := range groups[k] {
			if r.Err != "" {
				note = r.Err
				continue
			}
			errs = append(errs, []float64{r.Error})
			sig += r.Sigma
		}
		if len(errs) == 0 {
			t.Add(k.m.String(), k.eps, k.n, 0, "—", "—", "—", note)
			continue
		}
		mean, std, _ := figure.MeanStd(errs)
		t.Add(k.m.String(), k.eps, k.n, len(errs), fmt.Sprintf("%.4g", mean[0]), fmt.Sprintf("%.3g", std[0]), fmt.Sprintf("%.4g", sig/float64(len(errs))), note)
	}
	return t
}

// RowsTable is the tidy per-release table for export.
func RowsTable(rows []Row) *experiment.Table {
	t := &experiment.Table{Columns: []string{"method", "epsilon", "m", "trial", "error", "sigma", "failure"}}
	for _, r := range rows {
		t.Add(r.Method.String(), r.Eps, r.M, r.Trial, r.Error, r.Sigma, r.Err)
	}
	return t
}

// Canary is a worst-case trajectory for auditing on d: one step from the data's least-visited state (its
// observation taken from the data) with reward ±ReturnMax (the sign that moves that state's value most away
// from its current estimate), terminated.
func (s *Setup) Canary(d *trajectory.Dataset) (trajectory.Trajectory, error) {
	sig, err := s.signature(d)
	if err != nil {
		return trajectory.Trajectory{}, err
	}
	best, obs := -1, []float64(nil)
	for _, tr := range d.Trajectories {
		for _, st := range tr.Steps {
			k := s.State(st.Obs)
			if s.Rho[k] > 0 && (best < 0 || sig.Counts[k] < sig.Counts[best]) {
				best, obs = k, st.Obs
			}
		}
	}
	if best < 0 {
		return trajectory.Trajectory{}, fmt.Errorf("adhoc: no visited state has positive weight: nothing to audit")
	}
	r := s.ReturnMax
	if s.Signed && sig.F[best] > 0 || !s.Signed && sig.F[best] > s.ReturnMax/2 {
		r = -s.ReturnMax
		if !s.Signed {
			r = 0
		}
	}
	step := trajectory.Step{Obs: obs, Action: 0, Reward: r, NextObs: obs, Terminated: true, Prob: 1}
	return trajectory.Trajectory{Steps: []trajectory.Step{step}}, nil
}

// Audit audits method m at ε on the user's data: input 0 is d, input 1 is d with its first trajectory
// replaced by the canary (Canary); the statistic is the release projected on the
// difference of the two inputs' non-private LSW estimates.
func (s *Setup) Audit(m Method, d *trajectory.Dataset, eps float64, cfg audit.Config, progress experiment.Progress) (*audit.Result, error) {
	if err := check.In("epsilon", eps, param.Positive); err != nil {
		return nil, err
	}
	canary, err := s.Canary(d)
	if err != nil {
		return nil, err
	}
	d1 := &trajectory.Dataset{ObsDim: d.ObsDim, NumActions: d.NumActions, Trajectories: append([]trajectory.Trajectory(nil), d.Trajectories...)}
	d1.Trajectories[0] = canary
	inputs := [2]*trajectory.Dataset{d, d1}
	r0, err := s.Reference(d)
	if err != nil {
		return nil, err
	}
	r1, err := s.Reference(d1)
	if err != nil {
		return nil, err
	}
	dir := make([]float64, len(r0))
	for i := range dir {
		dir[i] = r1[i] - r0[i]
	}
	cfg.Delta = s.Delta
	p := audit.Projected(m.String(), dir, func(nb int, src rand.Source) ([]float64, error) {
		r, err := s.estimate(m, inputs[nb], eps, false, src)
		if err != nil {
			return nil, err
		}
		return r.Theta, nil
	})
	return audit.Run(p, cfg, progress)
}

// ReadRows reads a table written by RowsTable(...).WriteCSV back into rows (NaN errors and σ included).
func ReadRows(r io.Reader) ([]Row, error) {
	recs, err := csv.NewReader(r).ReadAll()
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 || len(recs[0]) != 7 || recs[0][0] != "method" {
		return nil, fmt.Errorf("adhoc: not a results table (want the header of RowsTable)")
	}
	out := make([]Row, 0, len(recs)-1)
	for i, rec := range recs[1:] {
		line := i + 2
		m := slices.IndexFunc(Methods, func(m Method) bool { return m.String() == rec[0] })
		if m < 0 {
			return nil, fmt.Errorf("adhoc: line %d: unknown method %q", line, rec[0])
		}
		var r Row
		r.Method, r.Err = Methods[m], rec[6]
		var errs [5]error
		r.Eps, errs[0] = strconv.ParseFloat(rec[1], 64)
		r.M, errs[1] = strconv.Atoi(rec[2])
		r.Trial, errs[2] = strconv.Atoi(rec[3])
		r.Error, errs[3] = strconv.ParseFloat(rec[4], 64)
		r.Sigma, errs[4] = strconv.ParseFloat(rec[5], 64)
		if err := errors.Join(errs[:]...); err != nil {
			return nil, fmt.Errorf("adhoc: line %d: %w", line, err)
		}
		out = append(out, r)
	}
	return out, nil
}

// AtEpsilon keeps the rows at ε = eps.
func AtEpsilon(rows []Row, eps float64) []Row {
	return slices.DeleteFunc(slices.Clone(rows), func(r Row) bool { return r.Eps != eps })
}
