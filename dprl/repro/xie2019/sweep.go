package xie2019

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/dprl-project/dprl/dprl/experiment"
	"github.com/dprl-project/dprl/dprl/param"
	"github.com/dprl-project/dprl/dprl/sweep"
)

// The checked-in sweeps (sweeps/specs/<name>.json) whose merged results stand in for the figures' runs.
const (
	SweepFig1a  = "xie2019-fig1a"  // Fig1a: the chain
	SweepFig2_3 = "xie2019-fig2-3" // MountainCarFigures: Mountain Car on- and off-policy (grid over domain)
	SweepFig4   = "xie2019-fig4"   // Fig4: HIV
)

// SweepColumns are the columns of an xie2019/mspbe task's rows (the sweep adds the seed): Columns without
// the domain, trial, seed and stream (one trial per task, drawing from rand.NewPCG(seed, 0)).
var SweepColumns = []string{"method", "n", "iterations", "epsilon", "delta", "schedule", "step", "sigma", "clipped_share", "mspbe", "clip", "mean_reward", "moment_transitions"}

// SweepRows is a task's rows (SweepColumns) from Experiment's rows on a domain.
func SweepRows(info DomainInfo, rows []Row) [][]string {
	t := Table(info, rows)
	out := make([][]string, len(t.Rows))
	for i, r := range t.Rows {
		for _, col := range SweepColumns {
			out[i] = append(out[i], r[slices.Index(Columns, col)])
		}
	}
	return out
}

// RowsFromSweep reads a merged xie2019/mspbe table of one domain (narrow a table of several with
// sweep.Where(t, map[string]string{"domain": …})) as rows, Trial = the seed's rank (the seeds in increasing
// order become trials 0, 1, …), Seed the task's seed and Stream 0, and the domain's DomainInfo (every row
// carries the same; rows that disagree, as in a table of several domains, are an error, as is an empty table).
func RowsFromSweep(t *experiment.Table, domain string) ([]Row, DomainInfo, error) {
	c, err := sweep.NewReader(t, append([]string{"seed"}, SweepColumns...)...)
	if err != nil {
		return nil, DomainInfo{}, err
	}
	if c.Len() == 0 {
		return nil, DomainInfo{}, fmt.Errorf("xie2019: the sweep table has no rows")
	}
	for r := range c.Len() {
		for _, col := range []string{"clip", "mean_reward", "moment_transitions"} {
			if c.String(r, col) != c.String(0, col) {
				return nil, DomainInfo{}, fmt.Errorf("xie2019: sweep row %d has %s = %s, row 0 %s (more than one domain? narrow with sweep.Where)",
					r, col, c.String(r, col), c.String(0, col))
			}
		}
	}
	info := DomainInfo{Name: domain, Clip: c.Float(0, "clip"), MeanReward: c.Float(0, "mean_reward"), MomentTransitions: c.Int(0, "moment_transitions")}
	trial := c.SeedRanks("seed")
	out := make([]Row, c.Len())
	for r := range out {
		seed, err := strconv.ParseUint(c.String(r, "seed"), 10, 64)
		if err != nil {
			return nil, DomainInfo{}, fmt.Errorf("xie2019: sweep row %d: seed %q: %w", r, c.String(r, "seed"), err)
		}
		out[r] = Row{Method: c.String(r, "method"), N: c.Int(r, "n"), T: c.Int(r, "iterations"), Epsilon: c.Float(r, "epsilon"), Delta: c.Float(r, "delta"),
			Trial: trial[c.String(r, "seed")], Seed: seed, Schedule: c.String(r, "schedule"), Step: c.Float(r, "step"), Sigma: c.Float(r, "sigma"),
			ClippedShare: c.Float(r, "clipped_share"), MSPBE: c.Float(r, "mspbe")}
	}
	return out, info, c.Err()
}

// FullSizeConfig is the configuration the full size runs with: DefaultProtocol's choices outside quick mode
// (3 public tuning samples per grid step over StepGrid, seed 2019, δ = 1e−5 for every method compared, σ by
// Theorem 27, DP-LSW/DP-LSL also at δ = 0.1, c = 100, T = n) for the given sizes and privacy levels, one
// trial. The xie2019/mspbe sweep takes its
// defaults from it, so that a merged sweep tunes the step size exactly as the notebook does.
func FullSizeConfig(ns []int, eps []float64) Config {
	cfg := Protocol{Trials: 1, TuneRuns: paperTuneRuns, Steps: StepGrid()}.Config(ns, eps)
	cfg.IterationsPerTrajectory = 1
	return cfg
}

// fromSweep reads one domain of the merged sweep r (loaded with error err) as a figure's tidy table under
// protocol p. It checks that the sweep is of that domain, that it ran GPOPE at every privacy level in need
// (the ones the figure's claims are about), and that it ran the configuration the protocol would (the public
// step-size search, δ, the baselines' constants; sizes, seeds and the other privacy levels may differ). A
// mismatch is an error naming the parameter: the cell stops rather than show numbers of another
// configuration.
func fromSweep(r *sweep.Result, err error, p Protocol, domain string, need ...float64) (*experiment.Table, error) {
	if err != nil {
		return nil, err
	}
	s := r.Spec
	where := fmt.Sprintf("xie2019: merged sweep %s (%s)", s.Name, r.Dir)
	t := r.Table
	if _, ok := s.Grid["domain"]; ok {
		if t, err = sweep.Where(t, map[string]string{"domain": domain}); err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
	} else if d, err := s.Params.String("domain", "", true); err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	} else if d != domain {
		return nil, fmt.Errorf("%s: params.domain = %q, the figure is of %q", where, d, domain)
	}
	if err := checkSweepConfig(s, p); err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	rows, info, err := RowsFromSweep(t, domain)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	eps := values(rows, func(x Row) bool { return x.Method == MethodGPOPE }, func(x Row) float64 { return x.Epsilon })
	for _, e := range need {
		if !slices.Contains(eps, e) {
			return nil, fmt.Errorf("%s: GPOPE ran at ε = %v; the figure's claims need ε = %g", where, eps, e)
		}
	}
	return Table(info, rows), nil
}

// checkSweepConfig compares what a sweep spec's parameters configure (with the sweep's defaults,
// FullSizeConfig) with what protocol p runs. The number of public tuning samples is not compared in quick
// mode, which cuts it for speed while the sweep is the full size.
func checkSweepConfig(s *sweep.Spec, p Protocol) error {
	def, want := FullSizeConfig(nil, nil), p.Config(nil, nil)
	perTrajectory := want.IterationsPerTrajectory
	if perTrajectory == 0 {
		perTrajectory = 1
	}
	for _, k := range []string{"steps", "tune_runs", "tune_seed", "delta", "balle_delta", "lsl_c", "iterations_per_trajectory"} {
		if _, ok := s.Grid[k]; ok {
			return fmt.Errorf("the grid varies %s, which the figure keeps fixed", k)
		}
	}
	steps, err := s.Params.Floats("steps", def.Steps, param.Positive)
	if err != nil {
		return err
	}
	if !slices.Equal(steps, want.Steps) {
		return fmt.Errorf("params.steps = %v, but the protocol searches the step size over %v: run the sweep with the protocol's grid or pass a protocol with the sweep's", steps, want.Steps)
	}
	runs, err := s.Params.Int("tune_runs", def.TuneRuns, 1, 1000)
	if err != nil {
		return err
	}
	if runs != want.TuneRuns && !experiment.Quick() {
		return fmt.Errorf("params.tune_runs = %d, but the protocol tunes on %d public samples per grid step", runs, want.TuneRuns)
	}
	seed, err := s.Params.Uint64("tune_seed", def.Seed)
	if err != nil {
		return err
	}
	if seed != want.Seed {
		return fmt.Errorf("params.tune_seed = %d, the notebook tunes with seed %d", seed, want.Seed)
	}
	for _, f := range []struct {
		key       string
		def, want float64
		iv        param.Interval
	}{
		{"delta", def.Delta, want.Delta, param.OpenUnit},
		{"balle_delta", def.BalleDelta, want.BalleDelta, param.Interval{Lo: 0, Hi: 1, LoClosed: true}},
		{"lsl_c", def.LSLC, want.LSLC, param.Positive},
		{"iterations_per_trajectory", def.IterationsPerTrajectory, perTrajectory, param.Positive},
	} {
		v, err := s.Params.Float(f.key, f.def, f.iv)
		if err != nil {
			return err
		}
		if v != f.want {
			return fmt.Errorf("params.%s = %g, the notebook runs with %g", f.key, v, f.want)
		}
	}
	return nil
}
