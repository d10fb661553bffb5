package sweeps

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/dprl-project/dprl/dprl/actorcritic"
	"github.com/dprl-project/dprl/dprl/experiment"
	"github.com/dprl-project/dprl/dprl/expertdp"
	"github.com/dprl-project/dprl/dprl/repro/sharma"
	"github.com/dprl-project/dprl/dprl/repro/xie2019"
	"github.com/dprl-project/dprl/dprl/sweep"
)

// The readers turn a merged table (sweep.LoadMerged, narrowed with sweep.Where where the grid has several
// cells) back into the reproduction packages' types, so a notebook can use a full-size result where it
// would have used its own run. Seeds become trial or run indices in increasing order.

// cell parses one value of a table; the error names the column and row.
type cell struct {
	t    *experiment.Table
	cols map[string]int
	err  error
}

func newCell(t *experiment.Table, names ...string) (*cell, error) {
	idx, err := sweep.Columns(t, names...)
	if err != nil {
		return nil, err
	}
	c := &cell{t: t, cols: map[string]int{}}
	for k, n := range names {
		c.cols[n] = idx[k]
	}
	return c, nil
}

func (c *cell) str(r int, name string) string { return c.t.Rows[r][c.cols[name]] }

func (c *cell) float(r int, name string) float64 {
	v, err := strconv.ParseFloat(c.str(r, name), 64)
	if err != nil && c.err == nil {
		c.err = fmt.Errorf("sweep: row %d, column %s: %w", r, name, err)
	}
	return v
}

func (c *cell) int(r int, name string) int {
	v, err := strconv.Atoi(c.str(r, name))
	if err != nil && c.err == nil {
		c.err = fmt.Errorf("sweep: row %d, column %s: %w", r, name, err)
	}
	return v
}

// seedIndex maps each seed of the table to its rank among the distinct seeds.
func seedIndex(c *cell) map[string]int {
	var seeds []uint64
	seen := map[string]bool{}
	for r := range c.t.Rows {
		s := c.str(r, "seed")
		if !seen[s] {
			seen[s] = true
			v, _ := strconv.ParseUint(s, 10, 64)
			seeds = append(seeds, v)
		}
	}
	slices.Sort(seeds)
	out := map[string]int{}
	for i, s := range seeds {
		out[strconv.FormatUint(s, 10)] = i
	}
	return out
}

// XieRows reads an xie2019/mspbe table (one domain: narrow it with sweep.Where(t, {"domain": …}) if the
// grid has several) as xie2019 rows, Trial = the seed's rank, for xie2019.Curve and the notebook's claims.
func XieRows(t *experiment.Table) ([]xie2019.Row, error) {
	c, err := newCell(t, "seed", "method", "n", "epsilon", "step", "sigma", "clipped_share", "mspbe")
	if err != nil {
		return nil, err
	}
	trial := seedIndex(c)
	out := make([]xie2019.Row, len(t.Rows))
	for r := range t.Rows {
		out[r] = xie2019.Row{Method: c.str(r, "method"), N: c.int(r, "n"), Epsilon: c.float(r, "epsilon"), Trial: trial[c.str(r, "seed")],
			Step: c.float(r, "step"), Sigma: c.float(r, "sigma"), ClippedShare: c.float(r, "clipped_share"), MSPBE: c.float(r, "mspbe")}
	}
	return out, c.err
}

// SeoYangResults reads a seoyang2020/returns table of one condition (narrow it with sweep.Where) as one
// actorcritic.Result per seed, in seed order, with Returns, Lengths and DivergedAt: what
// seoyang2020.Summarize and ReturnsByRun need.
func SeoYangResults(t *experiment.Table) ([]*actorcritic.Result, error) {
	c, err := newCell(t, "seed", "episode", "return", "length", "diverged_at")
	if err != nil {
		return nil, err
	}
	run := seedIndex(c)
	out := make([]*actorcritic.Result, len(run))
	for r := range t.Rows {
		i := run[c.str(r, "seed")]
		if out[i] == nil {
			out[i] = &actorcritic.Result{DivergedAt: c.int(r, "diverged_at")}
		}
		if ep := c.int(r, "episode"); ep != len(out[i].Returns)+1 {
			return nil, fmt.Errorf("sweep: row %d: episode %d of seed %s out of order (more than one condition? narrow with sweep.Where)", r, ep, c.str(r, "seed"))
		}
		out[i].Returns = append(out[i].Returns, c.float(r, "return"))
		out[i].Lengths = append(out[i].Lengths, c.int(r, "length"))
	}
	return out, c.err
}

// WangHegdeCurves reads a wanghegde2019/returns table of one setting (narrow it with sweep.Where) as the
// episode returns [seed][episode], ReturnCurves' layout for one setting.
func WangHegdeCurves(t *experiment.Table) ([][]float64, error) {
	c, err := newCell(t, "seed", "episode", "return")
	if err != nil {
		return nil, err
	}
	run := seedIndex(c)
	out := make([][]float64, len(run))
	for r := range t.Rows {
		i := run[c.str(r, "seed")]
		if ep := c.int(r, "episode"); ep != len(out[i])+1 {
			return nil, fmt.Errorf("sweep: row %d: episode %d of seed %s out of order (more than one setting? narrow with sweep.Where)", r, ep, c.str(r, "seed"))
		}
		out[i] = append(out[i], c.float(r, "return"))
	}
	return out, c.err
}

// SharmaOutcomes reads a sharma/jobs table as outcomes (Job.Seed = the seed's rank), for sharma.Fraction,
// Fig3Plot, Fig4Plot and Summary.
func SharmaOutcomes(t *experiment.Table) ([]sharma.Outcome, error) {
	c, err := newCell(t, "seed", "tag", "env", "learner", "method", "epsilon", "eps1", "eps2", "p", "m", "stable", "steps",
		"private_steps", "s", "eps2_spent", "return", "normalized", "note")
	if err != nil {
		return nil, err
	}
	seed := seedIndex(c)
	methods := map[string]sharma.Method{}
	for _, m := range []sharma.Method{sharma.Ours, sharma.ExpertDPSGD, sharma.NonPrivate} {
		methods[m.String()] = m
	}
	out := make([]sharma.Outcome, len(t.Rows))
	for r := range t.Rows {
		m, ok := methods[c.str(r, "method")]
		if !ok {
			return nil, fmt.Errorf("sweep: row %d: method %q is not one of sharma's", r, c.str(r, "method"))
		}
		alg := expertdp.CQL
		if c.str(r, "learner") == expertdp.BCQ.String() {
			alg = expertdp.BCQ
		}
		o := sharma.Outcome{Job: sharma.Job{Tag: c.str(r, "tag"), Env: c.str(r, "env"), Algorithm: alg, Method: m, Epsilon: c.float(r, "epsilon"),
			Split: sharma.Split{Eps1: c.float(r, "eps1"), Eps2: c.float(r, "eps2")}, P: c.float(r, "p"), Experts: c.int(r, "m"), Seed: seed[c.str(r, "seed")]},
			Stable: c.int(r, "stable"), Steps: c.int(r, "steps"), Private: c.int(r, "private_steps"), S: c.float(r, "s"), Eps2: c.float(r, "eps2_spent"),
			Return: c.float(r, "return"), Normalized: c.float(r, "normalized"), Note: c.str(r, "note")}
		if o.Note != "" && math.IsNaN(o.Return) {
			o.Normalized = math.NaN()
		}
		out[r] = o
	}
	return out, c.err
}
