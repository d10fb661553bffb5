package policyeval

import (
	"fmt"
	"math"
)

// TuneStep picks, from the grid, the constant step size whose GPOPE run (cfg with Step replaced) has the
// smallest MSPBE on public data: Xie et al. tune the step size "on similar public data" so that tuning costs
// no privacy. It returns the best step and the MSPBE at each grid point (NaN where GPOPE diverged).
func TuneStep(public []FeatureTrajectory, mo *Moments, cfg GPOPEConfig, grid []float64) (best float64, mspbe []float64, err error) {
	if len(grid) == 0 {
		return 0, nil, check.Missing("grid", "at least one step size")
	}
	bestVal := math.Inf(1)
	for _, a := range grid {
		c := cfg
		c.Step = Constant(a)
		th, err := GPOPE(public, c)
		if err != nil {
			mspbe = append(mspbe, math.NaN())
			continue
		}
		v := mo.MSPBE(th)
		mspbe = append(mspbe, v)
		if v < bestVal {
			bestVal, best = v, a
		}
	}
	if math.IsInf(bestVal, 1) {
		return 0, mspbe, fmt.Errorf("policyeval: GPOPE diverged at every step size of the grid")
	}
	return best, mspbe, nil
}
