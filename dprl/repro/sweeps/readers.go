package sweeps

import (
	"fmt"
	"math"

	"github.com/dprl-project/dprl/dprl/experiment"
	"github.com/dprl-project/dprl/dprl/expertdp"
	"github.com/dprl-project/dprl/dprl/repro/sharma"
	"github.com/dprl-project/dprl/dprl/sweep"
)

// The readers turn a merged table (sweep.LoadMerged, narrowed with sweep.Where where the grid has several
// cells) back into the reproduction packages' types, so a notebook can use a full-size result where it
// would have used its own run. Seeds become trial or run indices in increasing order.

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
