package sweeps

import (
	"fmt"
	"math"

	"github.com/dprl-project/dprl/dprl/experiment"
	"github.com/dprl-project/dprl/dprl/expertdp"
	"github.com/dprl-project/dprl/dprl/repro/sharma"
	"github.com/dprl-project/dprl/dprl/repro/xie2019"
	"github.com/dprl-project/dprl/dprl/sweep"
)

// The readers turn a merged table (sweep.LoadMerged, narrowed with sweep.Where where the grid has several
// cells) back into the reproduction packages' types, so a notebook can use a full-size result where it
// would have used its own run. Seeds become trial or run indices in increasing order.

// XieRows reads an xie2019/mspbe table (one domain: narrow it with sweep.Where(t, {"domain": …}) if the
// grid has several) as xie2019 rows, Trial = the seed's rank, for xie2019.Curve and the notebook's claims.
func XieRows(t *experiment.Table) ([]xie2019.Row, error) {
	c, err := sweep.NewReader(t, "seed", "method", "n", "epsilon", "step", "sigma", "clipped_share", "mspbe")
	if err != nil {
		return nil, err
	}
	trial := c.SeedRanks("seed")
	out := make([]xie2019.Row, len(t.Rows))
	for r := range t.Rows {
		out[r] = xie2019.Row{Method: c.String(r, "method"), N: c.Int(r, "n"), Epsilon: c.Float(r, "epsilon"), Trial: trial[c.String(r, "seed")],
			Step: c.Float(r, "step"), Sigma: c.Float(r, "sigma"), ClippedShare: c.Float(r, "clipped_share"), MSPBE: c.Float(r, "mspbe")}
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
