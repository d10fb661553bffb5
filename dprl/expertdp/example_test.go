package expertdp_test

import (
	"fmt"

	"github.com/dprl-project/dprl/dprl/expertdp"
)

// DataRelease's constants in a worked setting of ours (the paper prints none of these numbers): Sharma et
// al.'s Acrobot split (ε1, δ1) = (10, 1/3000) and T = 25 examined trajectories, our bound L = 200 on their
// length, p_min = 0.02. With 3000 experts that all agree on every action of three, prefixes stay above the
// mean threshold for about 26 steps.
func ExampleConstants() {
	c, err := expertdp.Constants(10, 1.0/3000, 0.02, 25, 200)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("ε′ = %.3f, δ′ = %.2g, c_min = %.2f, θ = %.0f\n", c.EpsPrime, c.DeltaPrime, c.CMin, c.Theta)
	fmt.Printf("threshold noise Lap(%.1f), query noise Lap(%.1f), E[θ̂] = %.0f\n", c.ThresholdScale, c.QueryScale, c.MeanThreshold())
	fmt.Printf("one round (%.3f, %.2g); T rounds by Theorem 3.20: ε = %.2f ≤ 10\n", c.RoundEpsilon, c.RoundDelta, c.CompositionEpsilon)
	fmt.Printf("longest prefix if all experts agree: %d\n", c.AgreeingPrefix(3000, 3))
	// Output:
	// ε′ = 0.120, δ′ = 3.3e-08, c_min = 8.85, θ = 443
	// threshold noise Lap(16.7), query noise Lap(33.4), E[θ̂] = 1017
	// one round (0.240, 6.7e-06); T rounds by Theorem 3.20: ε = 6.62 ≤ 10
	// longest prefix if all experts agree: 26
}

// How Selective DP-SGD's steps are accounted: the paper folds the probability p of a private step into the
// sampling rate; the exact mixture keeps it apart.
func ExampleTrainConfig_StepEvent() {
	for _, acc := range []expertdp.Accounting{expertdp.AccountingPaper, expertdp.AccountingMixed} {
		cfg := expertdp.TrainConfig{P: 0.5, Batch: 60, NoiseMultiplier: 20, Accounting: acc}
		fmt.Printf("%s: %v\n", acc, cfg.StepEvent(3000))
	}
	// Output:
	// q = p·b/m (paper): PoissonSampled(q=0.01, Gaussian(z=20))
	// mixture (exact): Mixed(p=0.5, PoissonSampled(q=0.02, Gaussian(z=20)))
}

// What walking a fixed log costs DataRelease: with m = 3000 experts of N = 4 trajectories each and T = 25
// examined, one expert's trajectories are examined with probability p_T ≈ T/m, and a release budgeted
// (7.5, 0.9/3000) in the paper's model of fresh draws certifies only (ε1 + ln(1/(1 − p_T)), δ1 + p_T).
func ExampleFixedLogDelta() {
	pT, err := expertdp.FixedLogDelta(3000*4, 4, 25)
	if err != nil {
		fmt.Println(err)
		return
	}
	eps, delta := expertdp.FixedLogGuarantee(7.5, 0.9/3000, pT)
	fmt.Printf("p_T = %.2g (T/m = %.2g); on the log: (%.3f, %.2g) instead of (7.5, %.2g)\n", pT, 25.0/3000, eps, delta, 0.9/3000)
	// Output:
	// p_T = 0.0083 (T/m = 0.0083); on the log: (7.508, 0.0086) instead of (7.5, 0.0003)
}
