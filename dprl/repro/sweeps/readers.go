package sweeps

import (
	"fmt"

	"github.com/dprl-project/dprl/dprl/actorcritic"
	"github.com/dprl-project/dprl/dprl/experiment"
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
