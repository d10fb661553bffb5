package xie2019

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/dprl-project/dprl/dprl/experiment"
	"github.com/dprl-project/dprl/dprl/sweep"
)

// DomainInfo is what a figure needs to know of the domain besides the estimates: its name, GPOPE's clip
// bound C (Domain.Clip), the evaluated policy's mean reward r̄ (HIV's relative MSPBE divides by r̄²) and the
// number of transitions behind the population moments (0: exact).
type DomainInfo struct {
	Name              string
	Clip, MeanReward  float64
	MomentTransitions int
}

// Info is the domain's DomainInfo.
func (d *Domain) Info() DomainInfo {
	return DomainInfo{Name: d.Name, Clip: d.Clip, MeanReward: d.MeanReward, MomentTransitions: d.MomentTransitions}
}

// Columns are the columns of a figure's tidy table (Table): one row per estimate, its Row fields, then the
// domain's DomainInfo on every row.
var Columns = []string{"domain", "method", "n", "iterations", "epsilon", "delta", "trial", "seed", "stream", "schedule", "step", "sigma",
	"clipped_share", "mspbe", "clip", "mean_reward", "moment_transitions"}

// Table is the tidy table of a figure's rows on a domain (Columns): what the figure and claims functions
// read, and what a CSV export writes.
func Table(info DomainInfo, rows []Row) *experiment.Table {
	t := &experiment.Table{Columns: Columns}
	for _, r := range rows {
		t.Add(info.Name, r.Method, r.N, r.T, r.Epsilon, r.Delta, r.Trial, strconv.FormatUint(r.Seed, 10), strconv.FormatUint(r.Stream, 10),
			r.Schedule, r.Step, r.Sigma, r.ClippedShare, r.MSPBE, info.Clip, info.MeanReward, info.MomentTransitions)
	}
	return t
}

// Concat is the tables' rows in one table (the tables of several domains, for a figure of several).
func Concat(ts ...*experiment.Table) *experiment.Table {
	out := &experiment.Table{Columns: Columns}
	for _, t := range ts {
		out.Rows = append(out.Rows, t.Rows...)
	}
	return out
}

// Domains lists the domains of a tidy table (Columns) in the order they first appear.
func Domains(t *experiment.Table) ([]string, error) {
	c, err := sweep.NewReader(t, "domain")
	if err != nil {
		return nil, err
	}
	var out []string
	for r := range c.Len() {
		if d := c.String(r, "domain"); !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out, nil
}

// ReadTable reads the rows of one domain from a tidy table (Columns) with its DomainInfo; a domain without
// rows, or rows of it that disagree about the domain, are an error.
func ReadTable(t *experiment.Table, domain string) ([]Row, DomainInfo, error) {
	c, err := sweep.NewReader(t, Columns...)
	if err != nil {
		return nil, DomainInfo{}, err
	}
	var rows []Row
	info := DomainInfo{Name: domain}
	first := -1
	for r := range c.Len() {
		if c.String(r, "domain") != domain {
			continue
		}
		if first < 0 {
			first = r
			info = DomainInfo{Name: domain, Clip: c.Float(r, "clip"), MeanReward: c.Float(r, "mean_reward"), MomentTransitions: c.Int(r, "moment_transitions")}
		}
		for _, col := range []string{"clip", "mean_reward", "moment_transitions"} {
			if c.String(r, col) != c.String(first, col) {
				return nil, DomainInfo{}, fmt.Errorf("xie2019: table row %d of %s has %s = %s, row %d %s", r, domain, col, c.String(r, col), first, c.String(first, col))
			}
		}
		seed, err1 := strconv.ParseUint(c.String(r, "seed"), 10, 64)
		stream, err2 := strconv.ParseUint(c.String(r, "stream"), 10, 64)
		if err1 != nil || err2 != nil {
			return nil, DomainInfo{}, fmt.Errorf("xie2019: table row %d: seed %q, stream %q are not unsigned integers", r, c.String(r, "seed"), c.String(r, "stream"))
		}
		rows = append(rows, Row{Method: c.String(r, "method"), N: c.Int(r, "n"), T: c.Int(r, "iterations"), Epsilon: c.Float(r, "epsilon"),
			Delta: c.Float(r, "delta"), Trial: c.Int(r, "trial"), Seed: seed, Stream: stream, Schedule: c.String(r, "schedule"),
			Step: c.Float(r, "step"), Sigma: c.Float(r, "sigma"), ClippedShare: c.Float(r, "clipped_share"), MSPBE: c.Float(r, "mspbe")})
	}
	if err := c.Err(); err != nil {
		return nil, DomainInfo{}, err
	}
	if first < 0 {
		return nil, DomainInfo{}, fmt.Errorf("xie2019: the table has no rows of domain %q", domain)
	}
	return rows, info, nil
}

// nonPrivate reports whether a method's rows carry ε = 0.
func nonPrivate(m string) bool {
	return m == MethodLSTD || m == MethodWISLSTD || m == MethodZero || m == MethodGTD2
}

// sel selects rows: a method, and optionally ε (non-private methods match any ε), δ (0: any), a schedule
// ("": any), n (0: any) and T (0: any).
type sel struct {
	method   string
	eps      float64
	delta    float64
	schedule string
	n, t     int
}

func (s sel) match(r Row) bool {
	return r.Method == s.method && (nonPrivate(s.method) || r.Epsilon == s.eps) && (s.delta == 0 || r.Delta == s.delta) &&
		(s.schedule == "" || r.Schedule == s.schedule) && (s.n == 0 || r.N == s.n) && (s.t == 0 || r.T == s.t)
}

// curve gathers the MSPBE of the rows s selects as [trial][x] over the x values, x(row) picking the abscissa
// (N or Step); missing or diverged entries are NaN (figure.MeanStd skips them).
func curve(rows []Row, s sel, xs []float64, x func(Row) float64) [][]float64 {
	return experiment.Gather(rows, xs, func(r Row) int { return r.Trial }, x, func(r Row) (float64, bool) {
		return r.MSPBE, s.match(r) && !r.Diverged()
	})
}

// Curve gathers the MSPBE of one method at ε (any ε for non-private methods, which record 0) as
// [trial][x] over the x values, x(row) picking the abscissa (N or Step); missing or diverged entries are NaN.
func Curve(rows []Row, method string, eps float64, xs []float64, x func(Row) float64) [][]float64 {
	return curve(rows, sel{method: method, eps: eps}, xs, x)
}

// byTrial is the MSPBE of the rows s selects per trial, indexed by trial; NaN where the trial has no row or
// the run diverged.
func byTrial(rows []Row, s sel, trials int) []float64 {
	out := make([]float64, trials)
	for i := range out {
		out[i] = math.NaN()
	}
	for _, r := range rows {
		if s.match(r) && r.Trial < trials && !r.Diverged() {
			out[r.Trial] = r.MSPBE
		}
	}
	return out
}

// trials is the number of trials of the rows (the largest trial index plus one).
func trials(rows []Row) int {
	k := 0
	for _, r := range rows {
		k = max(k, r.Trial+1)
	}
	return k
}

// values lists the distinct values of f over the rows that keep selects, sorted.
func values[T int | float64](rows []Row, keep func(Row) bool, f func(Row) T) []T {
	var out []T
	for _, r := range rows {
		if v := f(r); keep(r) && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	slices.Sort(out)
	return out
}

func byN(r Row) float64    { return float64(r.N) }
func byStep(r Row) float64 { return r.Step }
