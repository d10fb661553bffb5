package sweeps

import (
	"math/rand/v2"

	"github.com/dprl-project/dprl/dprl/param"
	"github.com/dprl-project/dprl/dprl/policyeval"
	"github.com/dprl-project/dprl/dprl/repro/balle2016"
	"github.com/dprl-project/dprl/dprl/sweep"
	"github.com/dprl-project/dprl/mechanisms"
)

type balleTask struct {
	m       int
	priv    policyeval.PrivacyParams
	c, fMax float64
}

func balleParams(p sweep.Params) (*balleTask, error) {
	if err := p.Known("m", "epsilon", "delta", "c", "f"); err != nil {
		return nil, err
	}
	var t balleTask
	var err error
	if t.m, err = p.Int("m", 0, 1, 10_000_000); err != nil {
		return nil, err
	}
	if !p.Has("m") {
		return nil, sweepMissing("m", "a batch size (trajectories), usually a grid axis")
	}
	if t.priv.Epsilon, err = p.Float("epsilon", balle2016.Privacy().Epsilon, mechanisms.SmoothEpsilonRange); err != nil {
		return nil, err
	}
	if t.priv.Delta, err = p.Float("delta", balle2016.Privacy().Delta, param.OpenUnit); err != nil {
		return nil, err
	}
	if t.c, err = p.Float("c", balle2016.PanelC, param.Positive); err != nil {
		return nil, err
	}
	if t.fMax, err = p.Float("f", balle2016.ReturnBound, param.Positive); err != nil {
		return nil, err
	}
	return &t, nil
}

var balleSetup cache[*balle2016.Setup]

// BalleRMSE is one trial of Balle et al.'s Fig. 1 panels 3 and 4 (notebook 02's Panels34) at batch size m:
// a fresh batch of m trajectories of the 40-state chain and balle2016.Setup.PanelEstimates on it: for the
// paired, then the tabular features, LSW, LSL and DP-LSL (λ schedule constant c), DP-LSW and θ = 0, each
// with its RMSE against the true values and its excess empirical risk over its non-private counterpart
// (LSL's for DP-LSL, LSW's for the others). The batch draws from rand.NewPCG(u₁, u₂) and the noise from
// rand.NewPCG(u₃, u₄), u₁…u₄ the first values of rand.NewPCG(seed, m): one trial of the notebook's
// estimates, on its own stream. Params: m (required), epsilon (0.1), delta (0.1), c (100), f (the return
// bound F, 100): the notebook's configuration. Rows: one per estimator and features
// (balle2016.EstimatesFromSweep reads them back).
var BalleRMSE = sweep.Func{
	Cols: []string{"estimator", "features", "rmse", "excess_risk"},
	Doc:  "Balle et al. 2016 (Fig. 1, panels 3–4): RMSE and excess empirical risk of LSW, LSL, DP-LSW, DP-LSL and θ = 0 at batch size m",
	Check: func(p sweep.Params) error {
		_, err := balleParams(p)
		return err
	},
	Do: func(p sweep.Params, seed uint64) ([][]string, error) {
		t, err := balleParams(p)
		if err != nil {
			return nil, err
		}
		setup, err := balleSetup.get("", balle2016.NewSetup)
		if err != nil {
			return nil, err
		}
		rng := rand.New(rand.NewPCG(seed, uint64(t.m)))
		sig, err := setup.Batch(t.m, rand.NewPCG(rng.Uint64(), rng.Uint64()))
		if err != nil {
			return nil, err
		}
		est, err := setup.PanelEstimates(sig, t.c, t.fMax, t.priv, rand.NewPCG(rng.Uint64(), rng.Uint64()))
		if err != nil {
			return nil, err
		}
		rows := make([][]string, len(est))
		for i, e := range est {
			rows[i] = []string{e.Estimator, e.Features, sweep.FormatValue(e.RMSE), sweep.FormatValue(e.ExcessRisk)}
		}
		return rows, nil
	},
}

func init() { sweep.Register("balle2016/rmse", BalleRMSE) }
