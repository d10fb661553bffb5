package wanghegde2019

import (
	"fmt"
	"slices"
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

// fig1FromSweeps is Fig. 1's runs from the merged full-size sweeps SweepFig1a and SweepFig1b when both are in
// the repository at root (repro.FullSize says so on out), nil when neither is (the caller runs the default
// size). One sweep without the other is an error, not a silent default run. The sweeps must share their
// seeds: every σ of Fig1Sigmas reset every episode comes from a, σ = 0.4 reset every 10 episodes and never
// from b, and the random policy from a's first σ.
func fig1FromSweeps(out report.Sink, root string) (*Runs, error) {
	a, okA, err := repro.FullSize(out, root, SweepFig1a)
	if err != nil {
		return nil, err
	}
	b, okB, err := repro.FullSize(out, root, SweepFig1b)
	if err != nil {
		return nil, err
	}
	switch {
	case !okA && !okB:
		return nil, nil
	case !okA || !okB:
		have, lack := SweepFig1a, SweepFig1b
		if okB {
			have, lack = lack, have
		}
		return nil, fmt.Errorf("wanghegde2019: Fig. 1 draws on both %s and %s, and only %s is merged: run %s too "+
			"(or remove %s's results to run the default size)", SweepFig1a, SweepFig1b, have, lack, have)
	}
	sa, err := repro.SweepRunSeeds(a, Seed)
	if err != nil {
		return nil, err
	}
	sb, err := repro.SweepRunSeeds(b, Seed)
	if err != nil {
		return nil, err
	}
	if !sa.Equal(sb) {
		return nil, fmt.Errorf("wanghegde2019: Fig. 1 pairs its settings by seed, but %s ran seeds %v from base %d and %s seeds %v from base %d",
			a.Spec.Name, sa.Seeds, sa.Base, b.Spec.Name, sb.Seeds, sb.Base)
	}
	episodes := -1
	runs := &Runs{Table: experiment.Table{Columns: RunColumns}, Seeds: sa, Source: "the merged full-size sweeps " + a.Describe() + " and " + b.Describe()}
	read := func(r *sweep.Result, sigma float64, reset int, column string, s Setting) error {
		t, err := repro.SweepCell(r, map[string]string{"sigma": sweep.FormatValue(sigma), "reset_every": strconv.Itoa(reset)})
		if err != nil {
			return err
		}
		c, err := CurvesFromSweep(t, column)
		if err != nil {
			return err
		}
		div, err := divergedFromSweep(t, column)
		if err != nil {
			return err
		}
		for i, run := range c {
			if episodes < 0 {
				episodes = len(run)
			}
			if len(run) != episodes {
				return fmt.Errorf("wanghegde2019: %s from the sweeps has %d episodes, the other settings %d", s.Name, len(run), episodes)
			}
			runs.add(s.Name, sa.Seeds[i], run, div[i])
		}
		if len(c) != len(sa.Seeds) {
			return fmt.Errorf("wanghegde2019: %s from the sweeps has %d seeds, want %d", s.Name, len(c), len(sa.Seeds))
		}
		runs.Settings = append(runs.Settings, s)
		return nil
	}
	// The settings' episodes are the sweeps' (read from the rows): the names and privacy are Fig1Settings'.
	settings := Fig1Settings(1)
	for i, sigma := range Fig1Sigmas {
		if err := read(a, sigma, 1, ReturnColumn, settings[i]); err != nil {
			return nil, err
		}
	}
	n := len(Fig1Sigmas)
	for i, reset := range []int{10, -1} {
		if err := read(b, 0.4, reset, ReturnColumn, settings[n+i]); err != nil {
			return nil, err
		}
	}
	if err := read(a, Fig1Sigmas[0], 1, RandomReturnColumn, settings[n+2]); err != nil {
		return nil, err
	}
	return runs, nil
}

// DivergedColumn is the column of a wanghegde2019/returns table that says whether the learner's run diverged
// ("1" on every episode of a run whose network ended with a parameter that is not finite, else "0").
const DivergedColumn = "diverged"

// divergedFromSweep is, per seed rank of t, the diverged cell of column's runs: the learner's from
// DivergedColumn, "0" for the random policy (it has no network), "" where the sweep did not record it.
func divergedFromSweep(t *experiment.Table, column string) ([]string, error) {
	c, err := sweep.NewReader(t, "seed")
	if err != nil {
		return nil, err
	}
	run := c.SeedRanks("seed")
	if err := c.Err(); err != nil {
		return nil, err
	}
	out := make([]string, len(run))
	col := slices.Index(t.Columns, DivergedColumn)
	for r, row := range t.Rows {
		i := run[c.String(r, "seed")]
		switch {
		case column == RandomReturnColumn:
			out[i] = "0"
		case col >= 0:
			out[i] = row[col]
		}
	}
	return out, c.Err()
}
