package xie2019

import (
	"fmt"
	"slices"

	"github.com/dprl-project/dprl/dprl/experiment"
	"github.com/dprl-project/dprl/dprl/param"
	"github.com/dprl-project/dprl/dprl/report"
	"github.com/dprl-project/dprl/dprl/repro"
	"github.com/dprl-project/dprl/dprl/sweep"
)

// The checked-in sweeps (sweeps/specs/<name>.json) whose merged results stand in for the figures' runs.
const (
	SweepFig1a  = "xie2019-fig1a"  // Fig1a: the chain
	SweepFig2_3 = "xie2019-fig2-3" // MountainCarFigures: Mountain Car on- and off-policy (grid over domain)
	SweepFig4   = "xie2019-fig4"   // Fig4: HIV
)

// RowsFromSweep reads a merged xie2019/mspbe table of one domain (narrow a table of several with
// sweep.Where(t, map[string]string{"domain": …})) as rows, Trial = the seed's rank (the seeds in increasing
// order become trials 0, 1, …), for Curve and the figures' claims.
func RowsFromSweep(t *experiment.Table) ([]Row, error) {
	c, err := sweep.NewReader(t, "seed", "method", "n", "epsilon", "step", "sigma", "clipped_share", "mspbe")
	if err != nil {
		return nil, err
	}
	trial := c.SeedRanks("seed")
	out := make([]Row, len(t.Rows))
	for r := range t.Rows {
		out[r] = Row{Method: c.String(r, "method"), N: c.Int(r, "n"), Epsilon: c.Float(r, "epsilon"), Trial: trial[c.String(r, "seed")],
			Step: c.Float(r, "step"), Sigma: c.Float(r, "sigma"), ClippedShare: c.Float(r, "clipped_share"), MSPBE: c.Float(r, "mspbe")}
	}
	return out, c.Err()
}

// SweepDomain is what a merged xie2019/mspbe table records about its domain besides the estimates: GPOPE's
// clip bound C (Domain.Clip), the evaluated policy's mean reward r̄ (Domain.MeanReward, which HIV's
// relative MSPBE divides by) and the number of transitions behind the population moments.
type SweepDomain struct {
	Clip, MeanReward  float64
	MomentTransitions int
}

// DomainFromSweep reads SweepDomain from a merged xie2019/mspbe table of one domain. Every row carries the
// same values; rows that disagree (a table of several domains) are an error, as is an empty table.
func DomainFromSweep(t *experiment.Table) (SweepDomain, error) {
	c, err := sweep.NewReader(t, "clip", "mean_reward", "moment_transitions")
	if err != nil {
		return SweepDomain{}, err
	}
	if c.Len() == 0 {
		return SweepDomain{}, fmt.Errorf("xie2019: the sweep table has no rows")
	}
	for r := range c.Len() {
		for _, col := range []string{"clip", "mean_reward", "moment_transitions"} {
			if c.String(r, col) != c.String(0, col) {
				return SweepDomain{}, fmt.Errorf("xie2019: sweep row %d has %s = %s, row 0 %s (more than one domain? narrow with sweep.Where)",
					r, col, c.String(r, col), c.String(0, col))
			}
		}
	}
	d := SweepDomain{Clip: c.Float(0, "clip"), MeanReward: c.Float(0, "mean_reward"), MomentTransitions: c.Int(0, "moment_transitions")}
	return d, c.Err()
}

// FullSizeConfig is the configuration the full size runs with: DefaultProtocol's choices outside quick mode
// (3 public tuning samples per grid step over StepGrid, seed 2019, δ = 1e−5, DP-LSW/DP-LSL at δ = 0.1 and
// c = 100, T = n) for the given sizes and privacy levels, one trial. The xie2019/mspbe sweep takes its
// defaults from it, so that a merged sweep tunes the step size exactly as the notebook does.
func FullSizeConfig(ns []int, eps []float64) Config {
	cfg := Protocol{Trials: 1, TuneRuns: paperTuneRuns, Steps: StepGrid()}.Config(ns, eps)
	cfg.IterationsPerTrajectory = 1
	return cfg
}

// sweepData is a figure's input read from a merged sweep.
type sweepData struct {
	rows   []Row
	ns     []int
	eps    []float64 // GPOPE's privacy levels
	trials int
	domain SweepDomain
	tuning []Tuning // the public tuning, as Tune returned it
	seeds  string   // the note on the seeds behind the bands
}

// showTuning shows the sweep's tuning table as run does.
func (s *sweepData) showTuning(out report.Sink, name string) {
	showTuning(out, name, s.domain.Clip, s.tuning, s.rows)
}

// fromSweep reads one domain of the merged sweep r for a figure under protocol p. It checks that the sweep
// is of that domain, that it ran GPOPE at every privacy level in need (the ones the figure's claims are
// about), and that it ran the configuration the protocol would (the public step-size search, δ, DP-LSW's
// and DP-LSL's constants; sizes, seeds and the other privacy levels may differ),
// and recovers the tuning from the rows. A mismatch is an error naming the parameter: the cell stops
// rather than show numbers of another configuration.
func fromSweep(r *sweep.Result, p Protocol, domain string, need ...float64) (*sweepData, error) {
	s := r.Spec
	where := fmt.Sprintf("xie2019: merged sweep %s (%s)", s.Name, r.Dir)
	t := r.Table
	if _, ok := s.Grid["domain"]; ok {
		var err error
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
	rows, err := RowsFromSweep(t)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	dom, err := DomainFromSweep(t)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	var ns []int
	var eps []float64
	trials := 0
	for _, x := range rows {
		if !slices.Contains(ns, x.N) {
			ns = append(ns, x.N)
		}
		if x.Method == MethodGPOPE && !slices.Contains(eps, x.Epsilon) {
			eps = append(eps, x.Epsilon)
		}
		trials = max(trials, x.Trial+1)
	}
	slices.Sort(ns)
	slices.Sort(eps)
	for _, e := range need {
		if !slices.Contains(eps, e) {
			return nil, fmt.Errorf("%s: GPOPE ran at ε = %v; the figure's claims need ε = %g", where, eps, e)
		}
	}
	// The tuning, as Tune returned it: every trial's GPOPE row at (n, ε) carries the tuned step and σ, every
	// GTD2 row at n the step tuned for GTD2.
	var tu []Tuning
	for _, n := range ns {
		gtd2 := slices.IndexFunc(rows, func(x Row) bool { return x.Method == MethodGTD2 && x.N == n })
		for _, e := range eps {
			k := slices.IndexFunc(rows, func(x Row) bool { return x.Method == MethodGPOPE && x.N == n && x.Epsilon == e })
			if k < 0 || gtd2 < 0 {
				return nil, fmt.Errorf("%s: no GPOPE or GTD2 row at n = %d, ε = %g", where, n, e)
			}
			tu = append(tu, Tuning{N: n, Epsilon: e, Sigma: rows[k].Sigma, Best: rows[k].Step, GTD2Best: rows[gtd2].Step})
		}
	}
	return &sweepData{rows: rows, ns: ns, eps: eps, trials: trials, domain: dom, tuning: tu, seeds: sweepSeedsNote(trials, s.Seeds.Values())}, nil
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
	for _, k := range []string{"steps", "tune_runs", "tune_seed", "delta", "lsw_delta", "lsl_c", "iterations_per_trajectory"} {
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
		{"lsw_delta", def.LSWDelta, want.LSWDelta, param.OpenUnit},
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

// sweepSeedsNote lists the seeds behind a figure drawn from a sweep: trial k is the task of the k-th
// smallest seed s, which runs one trial drawing from rand.NewPCG(s, 0).
func sweepSeedsNote(trials int, seeds []uint64) string {
	slices.Sort(seeds)
	return fmt.Sprintf("Bands: 95%% Student-t intervals of the mean over the sweep's %d trials; the trial of seed s draws from rand.NewPCG(s, 0), s %s, "+
		"after the public step-size tuning with seed %d (the notebook's).", trials, repro.SeedRange(seeds), Seed)
}
