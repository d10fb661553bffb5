package sweeps

import (
	"math/rand/v2"

	"github.com/dprl-project/dprl/dprl/repro/balle2016"
	"github.com/dprl-project/dprl/dprl/sweep"
)

func balleM(p sweep.Params) (int, error) {
	if err := p.Known("m"); err != nil {
		return 0, err
	}
	m, err := p.Int("m", 0, 1, 10_000_000)
	if err != nil {
		return 0, err
	}
	if !p.Has("m") {
		return 0, sweepMissing("m", "a batch size (trajectories), usually a grid axis")
	}
	return m, nil
}

var balleSetup cache[*balle2016.Setup]

// BalleRMSE is one trial of Balle et al.'s Fig. 1 (notebook 02's balle2016.Fig1Data) at batch size m: a
// fresh batch of m trajectories of the 40-state chain and balle2016.Setup.BatchEstimates on it: every
// estimator, privacy arm, schedule exponent and constant the figures and claims read, with its RMSE, excess
// empirical risk and noise σ. The batch draws from rand.NewPCG(u₁, u₂) and the noise from rand.NewPCG(u₃,
// u₄), u₁…u₄ the first values of rand.NewPCG(seed, m). Params: m (required). Rows: one per estimate, the
// columns of balle2016.DataColumns after seed and m (balle2016.NewData reads the merged table back).
var BalleRMSE = sweep.Func{
	Cols: balle2016.DataColumns[2:],
	Doc:  "Balle et al. 2016 (Fig. 1): RMSE, excess empirical risk and σ of every estimator, arm and schedule at batch size m",
	Check: func(p sweep.Params) error {
		_, err := balleM(p)
		return err
	},
	Do: func(p sweep.Params, seed uint64) ([][]string, error) {
		m, err := balleM(p)
		if err != nil {
			return nil, err
		}
		setup, err := balleSetup.get("", balle2016.NewSetup)
		if err != nil {
			return nil, err
		}
		rng := rand.New(rand.NewPCG(seed, uint64(m)))
		sig, err := setup.Batch(m, rand.NewPCG(rng.Uint64(), rng.Uint64()))
		if err != nil {
			return nil, err
		}
		est, err := setup.BatchEstimates(sig, rand.NewPCG(rng.Uint64(), rng.Uint64()))
		if err != nil {
			return nil, err
		}
		rows := make([][]string, len(est))
		for i, e := range est {
			rows[i] = balle2016.EstimateRow(e)
		}
		return rows, nil
	},
}

func init() { sweep.Register("balle2016/rmse", BalleRMSE) }
