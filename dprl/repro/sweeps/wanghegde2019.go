package sweeps

import (
	"fmt"
	"math/rand/v2"
	"strconv"

	"github.com/dprl-project/dprl/dprl/param"
	"github.com/dprl-project/dprl/dprl/repro/wanghegde2019"
	"github.com/dprl-project/dprl/dprl/sweep"
	"github.com/dprl-project/dprl/envs"
)

type wangTask struct {
	sigma                float64
	resetEvery, episodes int
	baseSeed             uint64
}

func wangParams(p sweep.Params) (*wangTask, error) {
	if err := p.Known("sigma", "reset_every", "episodes", "base_seed"); err != nil {
		return nil, err
	}
	var t wangTask
	var err error
	if t.sigma, err = p.Float("sigma", 0.4, param.NonNegative); err != nil {
		return nil, err
	}
	if t.resetEvery, err = p.Int("reset_every", 1, -1, 1_000_000); err != nil {
		return nil, err
	}
	if t.resetEvery == 0 {
		return nil, check.Errorf("params.reset_every", 0, "[1, 1000000] episodes, or −1 for never")
	}
	if t.episodes, err = p.Int("episodes", 100, 1, 10_000_000); err != nil {
		return nil, err
	}
	if t.baseSeed, err = p.Uint64("base_seed", 2019); err != nil {
		return nil, err
	}
	return &t, nil
}

// WangHegdeReturns is one run of Wang and Hegde's functional-noise Q-learning in its code configuration
// (wanghegde2019.CodeAgent, as notebook 04's Fig. 1 runs it: fnq.FunctionalNoise with sigma and reset_every,
// the non-private DQN at sigma = 0) on a fresh Wang–Hegde environment, drawing from
// rand.NewPCG(base_seed, seed) as seed s of wanghegde2019.ReturnCurves does: seeds 0…9 are the notebook's
// default runs. Beside it, on another fresh environment and the same stream, the random policy
// (wanghegde2019.RandomPolicy), the reference every Fig. 1 panel shows; it reads no reward and costs little.
// Params: sigma (0.4), reset_every (1; −1 never), episodes (100), base_seed (2019). Rows: one per episode
// (50 samples each) with both returns and whether the learner's run diverged (a network parameter not finite
// at the end: "1" on every row of the run, else "0").
var WangHegdeReturns = sweep.Func{
	Cols: []string{"episode", "samples", wanghegde2019.ReturnColumn, wanghegde2019.RandomReturnColumn, wanghegde2019.DivergedColumn},
	Doc:  "Wang & Hegde 2019 (Fig. 1): per-episode returns of one functional-noise Q-learning run and of the random policy, run index = seed",
	Check: func(p sweep.Params) error {
		_, err := wangParams(p)
		return err
	},
	Do: func(p sweep.Params, seed uint64) ([][]string, error) {
		t, err := wangParams(p)
		if err != nil {
			return nil, err
		}
		var returns [2][]float64
		diverged := "0"
		for i, s := range []wanghegde2019.Setting{wanghegde2019.CodeAgent("", t.sigma, t.resetEvery, t.episodes), wanghegde2019.RandomPolicy(t.episodes)} {
			env, err := envs.Make("wanghegde")
			if err != nil {
				return nil, err
			}
			r, err := s.Run(env, rand.NewPCG(t.baseSeed, seed))
			if err != nil {
				return nil, err
			}
			if len(r.Returns) != t.episodes {
				return nil, fmt.Errorf("wanghegde2019/returns: %d episode returns for %d episodes", len(r.Returns), t.episodes)
			}
			returns[i] = r.Returns
			if r.Diverged {
				diverged = "1"
			}
		}
		out := make([][]string, t.episodes)
		for i := range out {
			out[i] = []string{strconv.Itoa(i + 1), strconv.Itoa(50 * (i + 1)), strconv.FormatFloat(returns[0][i], 'g', -1, 64),
				strconv.FormatFloat(returns[1][i], 'g', -1, 64), diverged}
		}
		return out, nil
	},
}

func init() { sweep.Register("wanghegde2019/returns", WangHegdeReturns) }
