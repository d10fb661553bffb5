package sharma

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/dprl-project/dprl/dprl/audit"
	"github.com/dprl-project/dprl/dprl/expertdp"
	"github.com/dprl-project/dprl/mechanisms"
)

// DataReleaseCase audits one round of Sharma et al.'s DataRelease (the SVT part A_2, which is (ε', 0)-DP for
// a fixed trajectory): the log is one public 40-step CartPole trajectory τ, examined with T = 1, and the
// neighbouring expert sets are m = 140 experts that all play τ's actions greedily, against the same plus one
// more such expert: the worst case, moving every prefix count by its largest possible amount,
// (1 − p_min)^k. ε1 = √(32·ln(2/δ1)) at δ1 = 0.01 makes ε' = 1, and m puts the counts near the threshold
// (θ̂ ≈ 115, so about 10 steps pass). The public length bound is τ's, L = 40, in both variants. The
// statistic is the released stable prefix length. The broken variant runs the same loop with a tenth of
// both Laplace noises.
func DataReleaseCase() audit.Case {
	const m, L, pMin, delta1 = 140, 40, 0.02, 0.01
	eps1 := math.Sqrt(32 * math.Log(2/delta1))
	dom := expertdp.CartPoleDomain()
	// Every expert plays action 1 when the pole angle is positive, 0 otherwise; τ alternates the sign.
	tau := expertdp.Traj{Obs: make([]float64, (L+1)*4), Actions: make([]int, L), Rewards: make([]float64, L)}
	for k := range L + 1 {
		tau.Obs[k*4+2] = 0.01 * float64(1-2*(k%2))
		if k < L {
			tau.Actions[k] = 1 - k%2
		}
	}
	sets := [2]*expertdp.Experts{}
	logs := [2]*expertdp.Data{}
	for nb := range 2 {
		e := &expertdp.Experts{Domain: dom, Params: mat.NewDense(m+nb, dom.NumParams, nil)}
		for i := range m + nb {
			e.Params.Set(i, 5+2, 1) // action 1's score on the normalised angle
		}
		sets[nb] = e
		logs[nb] = &expertdp.Data{ObsDim: 4, NumActions: 2, Experts: m + nb, Trajs: []expertdp.Traj{tau}}
	}
	c, _ := expertdp.Constants(eps1, delta1, pMin, 1, L)
	valid := audit.Procedure{Name: "DataRelease round", Run: func(nb int, src rand.Source) (float64, error) {
		r, err := expertdp.DataRelease(logs[nb], sets[nb], expertdp.ReleaseParams{Epsilon: eps1, Delta: delta1, PMin: pMin, T: 1, L: L, Src: src})
		if err != nil {
			return 0, err
		}
		return float64(r.StableLen()[0]), nil
	}}
	broken := audit.Procedure{Name: "DataRelease round, noise × 0.1", Run: func(nb int, src rand.Source) (float64, error) {
		counter, err := expertdp.NewPrefixCounter(sets[nb], pMin)
		if err != nil {
			return 0, err
		}
		thrNoise, _ := mechanisms.NewLaplaceScale(c.ThresholdScale/10, src)
		qNoise, _ := mechanisms.NewLaplaceScale(c.QueryScale/10, src)
		thr := c.MeanThreshold() + thrNoise.Sample()
		counter.Start(&logs[nb].Trajs[0])
		kept := 0
		for {
			count, ok := counter.Next()
			if !ok || count+qNoise.Sample() <= thr {
				break
			}
			kept++
		}
		return float64(kept), nil
	}}
	return audit.Case{Name: "DataRelease (one SVT round)", Valid: valid, Broken: broken, Epsilon: c.EpsPrime, Delta: 0,
		Neighbours: "expert sets differing in one expert (all of whose actions match τ)", Break: "Laplace noise × 0.1"}
}
