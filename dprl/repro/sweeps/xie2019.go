package sweeps

import (
	"fmt"
	"slices"

	"github.com/dprl-project/dprl/dprl/param"
	"github.com/dprl-project/dprl/dprl/repro/xie2019"
	"github.com/dprl-project/dprl/dprl/sweep"
)

// XieStepGrid is the public step-size grid of notebook 03 (xie2019.StepGrid): half decades from 1e−6 to 3.
var XieStepGrid = xie2019.StepGrid()

// xieConfig is one task's reading of the parameters.
type xieConfig struct {
	domain                    string
	momentTrajs, pool, public int
	cfg                       xie2019.Config
}

func xieParams(p sweep.Params) (*xieConfig, error) {
	if err := p.Known("domain", "n", "epsilons", "delta", "tune_runs", "tune_seed", "steps", "moment_trajs", "pool", "public",
		"balle_delta", "lsl_c", "iterations_per_trajectory"); err != nil {
		return nil, err
	}
	var x xieConfig
	var err error
	def := xie2019.FullSizeConfig(nil, nil) // the notebook's protocol at full size
	if x.domain, err = p.OneOf("domain", "", "chain", "mountaincar", "mountaincar-off", "hiv"); err != nil {
		return nil, err
	}
	c := &x.cfg
	if c.N, err = p.Ints("n", nil, 1, 1_000_000); err != nil {
		return nil, err
	}
	if c.N == nil {
		return nil, (sweepMissing("n", "a list of dataset sizes, e.g. [500, 1000, 2000, 5000]"))
	}
	if c.Epsilons, err = p.Floats("epsilons", nil, param.Positive); err != nil {
		return nil, err
	}
	if c.Epsilons == nil {
		return nil, sweepMissing("epsilons", "a list of privacy levels, e.g. [0.1, 1]")
	}
	if c.Delta, err = p.Float("delta", def.Delta, param.OpenUnit); err != nil {
		return nil, err
	}
	if c.TuneRuns, err = p.Int("tune_runs", def.TuneRuns, 1, 1000); err != nil {
		return nil, err
	}
	if c.Seed, err = p.Uint64("tune_seed", def.Seed); err != nil {
		return nil, err
	}
	if c.Steps, err = p.Floats("steps", def.Steps, param.Positive); err != nil {
		return nil, err
	}
	if c.IterationsPerTrajectory, err = p.Float("iterations_per_trajectory", def.IterationsPerTrajectory, param.Positive); err != nil {
		return nil, err
	}
	if c.BalleDelta, err = p.Float("balle_delta", def.BalleDelta, param.Interval{Lo: 0, Hi: 1, LoClosed: true}); err != nil {
		return nil, err
	}
	c.Accounting = def.Accounting
	if c.LSLC, err = p.Float("lsl_c", def.LSLC, param.Positive); err != nil {
		return nil, err
	}
	if x.momentTrajs, err = p.Int("moment_trajs", 1000, 2, 1_000_000); err != nil {
		return nil, err
	}
	if x.pool, err = p.Int("pool", 1200, 1, 1_000_000); err != nil {
		return nil, err
	}
	if x.public, err = p.Int("public", 600, 2, 1_000_000); err != nil {
		return nil, err
	}
	if x.domain == "hiv" && slices.Max(c.N) > min(x.pool, x.public) {
		return nil, check.Errorf("params.n", float64(slices.Max(c.N)), "[1, %d] (HIV draws without replacement from the pool of params.pool trajectories, "+
			"and tunes on as many of the params.public public ones)", min(x.pool, x.public))
	}
	c.Trials = 1
	return &x, nil
}

func (x *xieConfig) domainKey() string {
	switch x.domain {
	case "mountaincar", "mountaincar-off":
		return fmt.Sprintf("%s/%d", x.domain, x.momentTrajs)
	case "hiv":
		return fmt.Sprintf("hiv/%d/%d", x.pool, x.public)
	}
	return x.domain
}

var (
	xieDomains cache[*xie2019.Domain]
	xieTunings cache[[]xie2019.Tuning]
)

func (x *xieConfig) build() (*xie2019.Domain, error) {
	return xieDomains.get(x.domainKey(), func() (*xie2019.Domain, error) {
		switch x.domain {
		case "chain":
			return xie2019.Chain()
		case "mountaincar":
			return xie2019.MountainCar(false, x.momentTrajs)
		case "mountaincar-off":
			return xie2019.MountainCar(true, x.momentTrajs)
		}
		return xie2019.HIV(x.pool, x.public)
	})
}

// XieMSPBE runs one trial of Xie et al.'s "MSPBE vs n" experiment (xie2019.Experiment) with the task's seed
// as Config.Seed, after the public step-size tuning (xie2019.Tune with tune_seed, the same for every task and
// cached). Params: domain (chain, mountaincar, mountaincar-off, hiv), n and epsilons (lists), delta (1e−5),
// tune_runs (3), tune_seed (2019), steps (XieStepGrid), moment_trajs (Mountain Car, 1000), pool and public
// (HIV, 1200 and 600), balle_delta (0.1: the baselines' second δ; 0: not run), lsl_c (100),
// iterations_per_trajectory (1); the defaults are xie2019.FullSizeConfig's, notebook 03's protocol at full
// size (σ by Theorem 27, every compared method at delta), so the tuning is the notebook's. Rows:
// xie2019.SweepColumns (the seed column identifies the trial), the domain's clip bound C, mean reward r̄ and
// moments' transitions on every row (xie2019.RowsFromSweep), which the figures show beside the estimates.
var XieMSPBE = sweep.Func{
	Cols: xie2019.SweepColumns,
	Doc:  "Xie et al. 2019 MSPBE vs n: one trial per seed (GPOPE with each schedule at its publicly tuned step, the public choice at 10× and 0.1×, LSTD/WIS-LSTD, GTD2, DP-LSW, DP-LSL, θ = 0)",
	Check: func(p sweep.Params) error {
		_, err := xieParams(p)
		return err
	},
	Do: func(p sweep.Params, seed uint64) ([][]string, error) {
		x, err := xieParams(p)
		if err != nil {
			return nil, err
		}
		d, err := x.build()
		if err != nil {
			return nil, err
		}
		c := x.cfg
		key := fmt.Sprintf("%s|%v|%v|%v|%d|%d|%v|%v|%v", x.domainKey(), c.N, c.Epsilons, c.Delta, c.TuneRuns, c.Seed, c.Steps, c.IterationsPerTrajectory, c.Accounting)
		tu, err := xieTunings.get(key, func() ([]xie2019.Tuning, error) { return xie2019.Tune(d, c, nil) })
		if err != nil {
			return nil, err
		}
		c.Seed, c.Workers = seed, 1
		rows, err := xie2019.Experiment(d, c, tu, nil)
		if err != nil {
			return nil, err
		}
		return xie2019.SweepRows(d.Info(), rows), nil
	},
}

func init() { sweep.Register("xie2019/mspbe", XieMSPBE) }
