package wanghegde2019

import (
	"fmt"
	"strconv"

	"github.com/dprl-project/dprl/dprl/experiment"
	"github.com/dprl-project/dprl/dprl/report"
	"github.com/dprl-project/dprl/dprl/repro"
	"github.com/dprl-project/dprl/dprl/sweep"
)

// The checked-in sweeps (sweeps/specs/<name>.json) of Fig. 1 at the paper's full size, both of the
// experiment wanghegde2019/returns: Fig. 1(a)'s σ grid with a fresh path every episode, and Fig. 1(b)'s
// reset schedules at σ = 0.4.
const (
	SweepFig1a = "wanghegde2019-fig1a"
	SweepFig1b = "wanghegde2019-fig1b"
)

// Columns of a wanghegde2019/returns table that CurvesFromSweep reads: the learner's episode return, and
// the random policy's return on the same seed's stream.
const (
	ReturnColumn       = "return"
	RandomReturnColumn = "random_return"
)

// CurvesFromSweep reads one setting of a wanghegde2019/returns table (narrow it with sweep.Where or
// repro.SweepCell) as the episode returns in the named column, [seed][episode] in increasing seed order:
// ReturnCurves' layout for one setting.
func CurvesFromSweep(t *experiment.Table, column string) ([][]float64, error) {
	c, err := sweep.NewReader(t, "seed", "episode", column)
	if err != nil {
		return nil, err
	}
	run := c.SeedRanks("seed")
	if err := c.Err(); err != nil {
		return nil, err
	}
	out := make([][]float64, len(run))
	for r := range t.Rows {
		i := run[c.String(r, "seed")]
		if ep := c.Int(r, "episode"); ep != len(out[i])+1 {
			return nil, fmt.Errorf("wanghegde2019: row %d: episode %d of seed %s out of order (more than one setting? narrow with sweep.Where)", r, ep, c.String(r, "seed"))
		}
		out[i] = append(out[i], c.Float(r, column))
	}
	if err := c.Err(); err != nil {
		return nil, err
	}
	for i, r := range out {
		if len(r) != len(out[0]) {
			return nil, fmt.Errorf("wanghegde2019: seed rank %d has %d episodes, seed rank 0 has %d", i, len(r), len(out[0]))
		}
	}
	return out, nil
}

// seedCaption lists the seeds behind a figure.
func seedCaption(s repro.RunSeeds) string {
	return fmt.Sprintf("Mean over %d seeds with its 95%% confidence band (Student t); seed s %s runs every setting from rand.NewPCG(%d, s).",
		len(s.Seeds), repro.SeedRange(s.Seeds), s.Base)
}

// fig1Curves is Fig. 1's runs, [setting][seed][episode] in Fig1Settings' order, and their seeds: from the
// merged full-size sweeps SweepFig1a and SweepFig1b when both are there (repro.FullSize says so on out),
// else a run at the default size p. One sweep without the other is an error, not a silent default run.
func fig1Curves(out report.Sink, root string, settings []Setting, p Protocol) ([][][]float64, repro.RunSeeds, error) {
	a, okA, err := repro.FullSize(out, root, SweepFig1a)
	if err != nil {
		return nil, repro.RunSeeds{}, err
	}
	b, okB, err := repro.FullSize(out, root, SweepFig1b)
	if err != nil {
		return nil, repro.RunSeeds{}, err
	}
	switch {
	case okA && okB:
		return fig1FromSweeps(a, b)
	case okA || okB:
		have, lack := SweepFig1a, SweepFig1b
		if okB {
			have, lack = lack, have
		}
		return nil, repro.RunSeeds{}, fmt.Errorf("wanghegde2019: Fig. 1 draws on both %s and %s, and only %s is merged: run %s too "+
			"(or remove %s's results to run the default size)", SweepFig1a, SweepFig1b, have, lack, have)
	}
	res, err := runCurves(out, "Fig. 1", settings, p)
	return res, repro.FirstRunSeeds(Seed, p.Seeds), err
}

// fig1FromSweeps reads Fig. 1's curves from the two merged sweeps, which must share their seeds: every σ
// of Fig1Sigmas reset every episode from a, σ = 0.4 reset every 10 episodes and never from b, and the
// random policy from a's first σ.
func fig1FromSweeps(a, b *sweep.Result) ([][][]float64, repro.RunSeeds, error) {
	sa, err := repro.SweepRunSeeds(a, Seed)
	if err != nil {
		return nil, repro.RunSeeds{}, err
	}
	sb, err := repro.SweepRunSeeds(b, Seed)
	if err != nil {
		return nil, repro.RunSeeds{}, err
	}
	if !sa.Equal(sb) {
		return nil, repro.RunSeeds{}, fmt.Errorf("wanghegde2019: Fig. 1 pairs its settings by seed, but %s ran seeds %v from base %d and %s seeds %v from base %d",
			a.Spec.Name, sa.Seeds, sa.Base, b.Spec.Name, sb.Seeds, sb.Base)
	}
	read := func(r *sweep.Result, sigma float64, reset int, column string) ([][]float64, error) {
		t, err := repro.SweepCell(r, map[string]string{"sigma": sweep.FormatValue(sigma), "reset_every": strconv.Itoa(reset)})
		if err != nil {
			return nil, err
		}
		return CurvesFromSweep(t, column)
	}
	var res [][][]float64
	for _, sigma := range Fig1Sigmas {
		c, err := read(a, sigma, 1, ReturnColumn)
		if err != nil {
			return nil, repro.RunSeeds{}, err
		}
		res = append(res, c)
	}
	for _, reset := range []int{10, -1} {
		c, err := read(b, 0.4, reset, ReturnColumn)
		if err != nil {
			return nil, repro.RunSeeds{}, err
		}
		res = append(res, c)
	}
	rnd, err := read(a, Fig1Sigmas[0], 1, RandomReturnColumn)
	if err != nil {
		return nil, repro.RunSeeds{}, err
	}
	res = append(res, rnd)
	for i, c := range res {
		if len(c) != len(sa.Seeds) || len(c[0]) != len(res[0][0]) {
			return nil, repro.RunSeeds{}, fmt.Errorf("wanghegde2019: Fig. 1 setting %d from the sweeps has %d seeds of %d episodes, want %d of %d",
				i, len(c), len(c[0]), len(sa.Seeds), len(res[0][0]))
		}
	}
	return res, sa, nil
}
