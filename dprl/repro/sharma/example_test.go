package sharma_test

import (
	"fmt"

	"github.com/dprl-project/dprl/dprl/expertdp"
	"github.com/dprl-project/dprl/dprl/repro/sharma"
)

// The paper's budget split at δ = 1/m: Acrobot spends everything on DataRelease, CartPole splits 3/4 and
// 1/4 from ε = 7.5 up and is pure DP-SGD at ε = 5, unless the low-ε allocation of Table 2 is asked for.
func ExamplePaperSplit() {
	for _, c := range []struct {
		env string
		eps float64
		low bool
	}{{"acrobot", 10, false}, {"cartpole", 10, false}, {"cartpole", 5, false}, {"cartpole", 5, true}} {
		sp := sharma.PaperSplit(c.env, c.eps, 1, c.low)
		fmt.Printf("%s ε = %g: ε1 = %g (δ1 = %g·δ), ε2 = %g (δ2 = %g·δ), T = %d, p = %g (CQL)\n",
			c.env, c.eps, sp.Eps1, sp.Delta1, sp.Eps2, sp.Delta2, sp.T, sharma.PaperP(c.env, expertdp.CQL, c.eps))
	}
	// Output:
	// acrobot ε = 10: ε1 = 10 (δ1 = 1·δ), ε2 = 0 (δ2 = 0·δ), T = 25, p = 0 (CQL)
	// cartpole ε = 10: ε1 = 7.5 (δ1 = 0.9·δ), ε2 = 2.5 (δ2 = 0.1·δ), T = 25, p = 0.8 (CQL)
	// cartpole ε = 5: ε1 = 0 (δ1 = 0·δ), ε2 = 5 (δ2 = 1·δ), T = 0, p = 1 (CQL)
	// cartpole ε = 5: ε1 = 3.75 (δ1 = 0.9·δ), ε2 = 1.25 (δ2 = 0.1·δ), T = 20, p = 1 (CQL)
}

// The worked example of DataRelease's constants: Acrobot at ε = 10 with m = 3000 experts (δ1 = 1/m, T = 25,
// demonstrations of at most L = 200 steps). A prefix must keep about a thousand experts' worth of count to
// pass, so even 3000 experts in perfect agreement pass only 26 steps.
func Example_workedExample() {
	sp := sharma.PaperSplit("acrobot", 10, 1.0/sharma.NumExperts, false)
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
