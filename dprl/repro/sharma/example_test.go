package sharma_test

import (
	"fmt"

	"github.com/dprl-project/dprl/dprl/expertdp"
	"github.com/dprl-project/dprl/dprl/repro/sharma"
)

// The paper's budget split at δ = 1/m: Acrobot spends everything on DataRelease, CartPole splits 3/4 and
// 1/4 from ε = 7.5 up and is pure DP-SGD at ε = 5; App. B.3's 3/4 split is what Table 2's low-ε rows use.
func ExamplePaperSplit() {
	for _, c := range []struct {
		env string
		eps float64
		sp  sharma.Split
	}{{"acrobot", 10, sharma.PaperSplit("acrobot", 10, 1)}, {"cartpole", 10, sharma.PaperSplit("cartpole", 10, 1)},
		{"cartpole", 5, sharma.PaperSplit("cartpole", 5, 1)}, {"cartpole", 5, sharma.ThreeQuarterSplit("cartpole", 5, 1)}} {
		fmt.Printf("%s ε = %g: ε1 = %g (δ1 = %g·δ), ε2 = %g (δ2 = %g·δ), T = %d, p = %g (CQL)\n",
			c.env, c.eps, c.sp.Eps1, c.sp.Delta1, c.sp.Eps2, c.sp.Delta2, c.sp.T, sharma.PaperP(c.env, expertdp.CQL, c.eps))
	}
	// Output:
	// acrobot ε = 10: ε1 = 10 (δ1 = 1·δ), ε2 = 0 (δ2 = 0·δ), T = 25, p = 0 (CQL)
	// cartpole ε = 10: ε1 = 7.5 (δ1 = 0.9·δ), ε2 = 2.5 (δ2 = 0.1·δ), T = 25, p = 0.8 (CQL)
	// cartpole ε = 5: ε1 = 0 (δ1 = 0·δ), ε2 = 5 (δ2 = 1·δ), T = 0, p = 1 (CQL)
	// cartpole ε = 5: ε1 = 3.75 (δ1 = 0.9·δ), ε2 = 1.25 (δ2 = 0.1·δ), T = 20, p = 1 (CQL)
}

// What ours certifies at CartPole's ε = 10 on the fixed log DataRelease walks (m = 3000, N = 4
// trajectories each, T = 25): p_T is added to δ and ln(1/(1 − p_T)) to ε. Expert-level DP-SGD compared with
// it runs at this certificate.
func ExampleCertificate() {
	sp := sharma.PaperSplit("cartpole", 10, 1.0/sharma.NumExperts)
	pT, err := expertdp.FixedLogDelta(4*sharma.NumExperts, 4, sp.T)
	if err != nil {
		fmt.Println(err)
		return
	}
	eps, delta := sharma.Certificate(sp, pT)
	fmt.Printf("p_T = %.2g: certified (%.4f, %.2g) instead of (10, %.2g)\n", pT, eps, delta, 1.0/sharma.NumExperts)
	// Output:
	// p_T = 0.0083: certified (10.0083, 0.0086) instead of (10, 0.00033)
}

// DataRelease's constants in a worked setting of ours (the paper prints none of these numbers): Acrobot at
// ε = 10 with m = 3000 experts (δ1 = 1/m, the paper's T = 25, our bound L = 200 on a demonstration). A prefix must keep about a thousand experts' worth of count to
// pass, so even 3000 experts in perfect agreement pass only 26 steps.
func Example_workedSetting() {
	sp := sharma.PaperSplit("acrobot", 10, 1.0/sharma.NumExperts)
	c, err := expertdp.Constants(sp.Eps1, sp.Delta1, sharma.PMin, sp.T, 200)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("ε' %.3f, δ' %.2g, c_min %.2f, θ %.0f, E[θ̂] %.0f, agreeing prefix %d\n",
		c.EpsPrime, c.DeltaPrime, c.CMin, c.Theta, c.MeanThreshold(), c.AgreeingPrefix(sharma.NumExperts, 3))
	// Output:
	// ε' 0.120, δ' 3.3e-08, c_min 8.85, θ 443, E[θ̂] 1017, agreeing prefix 26
}
