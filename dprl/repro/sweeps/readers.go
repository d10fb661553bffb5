package sweeps

import (
	"fmt"
	"math"

	"github.com/dprl-project/dprl/dprl/actorcritic"
	"github.com/dprl-project/dprl/dprl/experiment"
	"github.com/dprl-project/dprl/dprl/expertdp"
	"github.com/dprl-project/dprl/dprl/repro/sharma"
	"github.com/dprl-project/dprl/dprl/sweep"
)

// The readers turn a merged table (sweep.LoadMerged, narrowed with sweep.Where where the grid has several
// cells) back into the reproduction packages' types, so a notebook can use a full-size result where it
// would have used its own run. Seeds become trial or run indices in increasing order.

// SeoYangResults reads a seoyang2020/returns table of one condition (narrow it with sweep.Where) as one
// actorcritic.Result per seed, in seed order, with Returns, Lengths and DivergedAt: what
// seoyang2020.Summarize and ReturnsByRun need.
func SeoYangResults(t *experiment.Table) ([]*actorcritic.Result, error) {
	c, err := sweep.NewReader(t, "seed", "episode", "return", "length", "diverged_at")
	if err != nil {
		return nil, err
	}
	run := c.SeedRanks("seed")
	out := make([]*actorcritic.Result, len(run))
	for r := range t.Rows {
		i := run[c.String(r, "seed")]
		if out[i] == nil {
			out[i] = &actorcritic.Result{DivergedAt: c.Int(r, "diverged_at")}
		}
		if ep := c.Int(r, "episode"); ep != len(out[i].Returns)+1 {
			return nil, fmt.Errorf("sweep: row %d: episode %d of seed %s out of order (more than one condition? narrow with sweep.Where)", r, ep, c.String(r, "seed"))
		}
		out[i].Returns = append(out[i].Returns, c.Float(r, "return"))
		out[i].Lengths = append(out[i].Lengths, c.Int(r, "length"))
	}
	return out, c.Err()
}

// WangHegdeCurves reads a wanghegde2019/returns table of one setting (narrow it with sweep.Where) as the
// episode returns [seed][episode], ReturnCurves' layout for one setting.
func WangHegdeCurves(t *experiment.Table) ([][]float64, error) {
	c, err := sweep.NewReader(t, "seed", "episode", "return")
	if err != nil {
		return nil, err
	}
	run := c.SeedRanks("seed")
	out := make([][]float64, len(run))
	for r := range t.Rows {
		i := run[c.String(r, "seed")]
		if ep := c.Int(r, "episode"); ep != len(out[i])+1 {
			return nil, fmt.Errorf("sweep: row %d: episode %d of seed %s out of order (more than one setting? narrow with sweep.Where)", r, ep, c.String(r, "seed"))
		}
		out[i] = append(out[i], c.Float(r, "return"))
	}
	return out, c.Err()
}

// SharmaOutcomes reads a sharma/jobs table as outcomes (Job.Seed = the seed's rank), for sharma.Fraction,
// Fig3Plot, Fig4Plot and Summary.
func SharmaOutcomes(t *experiment.Table) ([]sharma.Outcome, error) {
	c, err := sweep.NewReader(t, "seed", "tag", "env", "learner", "method", "epsilon", "eps1", "eps2", "p", "m", "stable", "steps",
		"private_steps", "s", "eps2_spent", "return", "normalized", "note")
	if err != nil {
		return nil, err
	}
	seed := c.SeedRanks("seed")
	methods := map[string]sharma.Method{}
	for _, m := range []sharma.Method{sharma.Ours, sharma.ExpertDPSGD, sharma.NonPrivate} {
		methods[m.String()] = m
	}
	out := make([]sharma.Outcome, len(t.Rows))
	for r := range t.Rows {
		m, ok := methods[c.String(r, "method")]
		if !ok {
			return nil, fmt.Errorf("sweep: row %d: method %q is not one of sharma's", r, c.String(r, "method"))
		}
		alg := expertdp.CQL
		if c.String(r, "learner") == expertdp.BCQ.String() {
			alg = expertdp.BCQ
		}
		o := sharma.Outcome{Job: sharma.Job{Tag: c.String(r, "tag"), Env: c.String(r, "env"), Algorithm: alg, Method: m, Epsilon: c.Float(r, "epsilon"),
			Split: sharma.Split{Eps1: c.Float(r, "eps1"), Eps2: c.Float(r, "eps2")}, P: c.Float(r, "p"), Experts: c.Int(r, "m"), Seed: seed[c.String(r, "seed")]},
			Stable: c.Int(r, "stable"), Steps: c.Int(r, "steps"), Private: c.Int(r, "private_steps"), S: c.Float(r, "s"), Eps2: c.Float(r, "eps2_spent"),
			Return: c.Float(r, "return"), Normalized: c.Float(r, "normalized"), Note: c.String(r, "note")}
		if o.Note != "" && math.IsNaN(o.Return) {
			o.Normalized = math.NaN()
		}
		out[r] = o
	}
	return out, c.Err()
}
