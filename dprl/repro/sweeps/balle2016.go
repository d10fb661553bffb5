package sweeps

import (
	"math/rand/v2"
	"strconv"

	"github.com/dprl-project/dprl/dprl/param"
	"github.com/dprl-project/dprl/dprl/policyeval"
	"github.com/dprl-project/dprl/dprl/repro/balle2016"
	"github.com/dprl-project/dprl/dprl/sweep"
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
	if t.priv.Epsilon, err = p.Float("epsilon", 0.1, param.Positive); err != nil {
		return nil, err
	}
	if t.priv.Delta, err = p.Float("delta", 0.1, param.OpenUnit); err != nil {
		return nil, err
	}
	if t.c, err = p.Float("c", 100, param.Positive); err != nil {
		return nil, err
	}
	if t.fMax, err = p.Float("f", 100, param.Positive); err != nil {
		return nil, err
	}
	return &t, nil
}

var balleSetup cache[*balle2016.Setup]

// BalleRMSE is one trial of Balle et al.'s Fig. 1 panels 3 and 4 (notebook 02's last experiment) at batch
// size m: a fresh batch of m trajectories of the 40-state chain, then the non-private LSW (tabular) and, for
// state pairs and tabular features, DP-LSW and DP-LSL (λ schedule constant c) with their RMSE against the
// true values and their excess empirical risk over the non-private solution. The trial draws from
// rand.NewPCG(seed, m). Params: m (required), epsilon (0.1), delta (0.1), c (100), f (the return bound F,
// 100). Rows: one per estimator.
var BalleRMSE = sweep.Func{
	Cols: []string{"estimator", "features", "rmse", "excess_risk"},
	Doc:  "Balle et al. 2016 (Fig. 1, panels 3–4): RMSE and excess empirical risk of LSW, DP-LSW and DP-LSL at batch size m",
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
		f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
		pt := setup.Problem(1, t.fMax)
		w, err := policyeval.LSW(pt, sig)
		if err != nil {
			return nil, err
		}
		rows := [][]string{{"LSW", "tabular", f(policyeval.RMSE(pt.Phi, w, setup.V, pt.Rho)), "0"}}
		for _, agg := range []int{2, 1} {
			features := map[int]string{1: "tabular", 2: "pairs"}[agg]
			pr := setup.Problem(agg, t.fMax)
			base, err := policyeval.LSW(pr, sig)
			if err != nil {
				return nil, err
			}
			dw, err := policyeval.DPLSW(pr, sig, t.priv, false, rand.NewPCG(rng.Uint64(), 1))
			if err != nil {
				return nil, err
			}
			lambda, err := policyeval.LambdaSchedule(pr, t.c, t.m)
			if err != nil {
				return nil, err
			}
			baseL, err := policyeval.LSL(pr, sig, lambda)
			if err != nil {
				return nil, err
			}
			dl, err := policyeval.DPLSL(pr, sig, lambda, t.priv, policyeval.LSLPaper, rand.NewPCG(rng.Uint64(), 2))
			if err != nil {
				return nil, err
			}
			rows = append(rows,
				[]string{"DP-LSW", features, f(policyeval.RMSE(pr.Phi, dw.Theta, setup.V, pr.Rho)),
					f(policyeval.EmpiricalRisk(pr.Phi, dw.Theta, sig, pr.Rho) - policyeval.EmpiricalRisk(pr.Phi, base, sig, pr.Rho))},
				[]string{"DP-LSL", features, f(policyeval.RMSE(pr.Phi, dl.Theta, setup.V, pr.Rho)),
					f(policyeval.EmpiricalRisk(pr.Phi, dl.Theta, sig, pr.Rho) - policyeval.EmpiricalRisk(pr.Phi, baseL, sig, pr.Rho))})
		}
		return rows, nil
	},
}

func init() { sweep.Register("balle2016/rmse", BalleRMSE) }
