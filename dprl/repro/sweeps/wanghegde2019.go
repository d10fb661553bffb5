package sweeps

import (
	"math/rand/v2"
	"strconv"

	"github.com/dprl-project/dprl/dprl/fnq"
	"github.com/dprl-project/dprl/dprl/param"
	"github.com/dprl-project/dprl/dprl/sweep"
	"github.com/dprl-project/dprl/envs"
)

type wangTask struct {
	cfg      fnq.Config
	baseSeed uint64
}

func wangParams(p sweep.Params) (*wangTask, error) {
	if err := p.Known("sigma", "reset_every", "episodes", "base_seed"); err != nil {
		return nil, err
	}
	var t wangTask
	var err error
	if t.cfg.Sigma, err = p.Float("sigma", 0.4, param.NonNegative); err != nil {
		return nil, err
	}
	if t.cfg.ResetEvery, err = p.Int("reset_every", 1, -1, 1_000_000); err != nil {
		return nil, err
	}
	if t.cfg.ResetEvery == 0 {
		return nil, check.Errorf("params.reset_every", 0, "[1, 1000000] episodes, or −1 for never")
	}
	if t.cfg.Episodes, err = p.Int("episodes", 100, 1, 10_000_000); err != nil {
		return nil, err
	}
	if t.baseSeed, err = p.Uint64("base_seed", 2019); err != nil {
		return nil, err
	}
	t.cfg.Method = fnq.FunctionalNoise
	if t.cfg.Sigma == 0 {
		t.cfg.Method = fnq.NonPrivate // σ = 0 is the non-private DQN, as in notebook 04
	}
	return &t, nil
}

// WangHegdeReturns is one run of Wang and Hegde's functional-noise Q-learning in its code configuration
// (notebook 04's codeAgent: fnq.FunctionalNoise with sigma and reset_every, the non-private DQN at sigma = 0)
// on a fresh Wang–Hegde environment, drawing from rand.NewPCG(base_seed, seed) as seed s of
// wanghegde2019.ReturnCurves does: seeds 0…4 are the notebook's default runs. Params: sigma (0.4),
// reset_every (1; −1 never), episodes (100), base_seed (2019). Rows: one per episode (50 samples each).
var WangHegdeReturns = sweep.Func{
	Cols: []string{"episode", "samples", "return"},
	Doc:  "Wang & Hegde 2019 (Fig. 1): per-episode returns of one functional-noise Q-learning run, run index = seed",
	Check: func(p sweep.Params) error {
		_, err := wangParams(p)
		return err
	},
	Do: func(p sweep.Params, seed uint64) ([][]string, error) {
		t, err := wangParams(p)
		if err != nil {
			return nil, err
		}
		env, err := envs.Make("wanghegde")
		if err != nil {
			return nil, err
		}
		c := t.cfg
		c.Src = rand.NewPCG(t.baseSeed, seed)
		r, err := fnq.Run(env, c)
		if err != nil {
			return nil, err
		}
		out := make([][]string, len(r.Returns))
		for i, ret := range r.Returns {
			out[i] = []string{strconv.Itoa(i + 1), strconv.Itoa(50 * (i + 1)), strconv.FormatFloat(ret, 'g', -1, 64)}
		}
		return out, nil
	},
}

func init() { sweep.Register("wanghegde2019/returns", WangHegdeReturns) }
