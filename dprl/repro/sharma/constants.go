package sharma

import (
	"fmt"
	"math"

	"github.com/dprl-project/dprl/dprl/expertdp"
	"github.com/dprl-project/dprl/dprl/figure"
	"github.com/dprl-project/dprl/dprl/report"
)

// GroupPrivacy shows what a trajectory-level (ε, 10⁻⁵) guarantee says about an expert with N trajectories:
// by group privacy (Nε, N·e^{(N−1)ε}·δ), for ε ∈ {0.1, 0.5, 1} and N ∈ {1, 5, 20}.
func GroupPrivacy(out report.Sink) {
	rows := [][]string{}
	for _, eps := range []float64{0.1, 0.5, 1} {
		for _, n := range []int{1, 5, 20} {
			d := float64(n) * math.Exp(float64(n-1)*eps) * 1e-5
			rows = append(rows, []string{fmt.Sprint(eps), "1e−5", fmt.Sprint(n), fmt.Sprintf("%.3g", float64(n)*eps), fmt.Sprintf("%.3g", math.Min(d, 1))})
		}
	}
	out.Table([]string{"trajectory ε", "trajectory δ", "trajectories per expert N", "expert ε", "expert δ (capped at 1)"}, rows)
}

// ReleaseConstants shows DataRelease's constants (ε', δ', c_min, θ, E[θ̂] and the noise scales, the ε
// advanced composition certifies, the longest prefix all-agreeing experts could pass) at the paper's splits
// and T with m = 3000, δ = 1/m and each domain's public bound L (Domain.DemoLen, our choice: the paper states
// none): a worked setting of ours, the paper prints none of these numbers. Then it plots that agreeing prefix
// against m for CartPole at ε = 5, 7.5 and 10 (the 3/4 split throughout).
func ReleaseConstants(out report.Sink) error {
	rows := [][]string{}
	for _, s := range []struct {
		env string
		eps float64
	}{{"acrobot", 10}, {"acrobot", 7.5}, {"cartpole", 10}, {"cartpole", 7.5}, {"lunarlander", 10}, {"lunarlander", 7.5}, {"hiv", 10}} {
		d, err := expertdp.DomainByName(s.env)
		if err != nil {
			return err
		}
		sp := PaperSplit(s.env, s.eps, 1.0/NumExperts)
		c, err := expertdp.Constants(sp.Eps1, sp.Delta1, PMin, sp.T, d.DemoLen)
		if err != nil {
			return err
		}
		rows = append(rows, []string{s.env, fmt.Sprint(s.eps), fmt.Sprintf("%.3g / %.2g", sp.Eps1, sp.Delta1), fmt.Sprint(sp.T), fmt.Sprint(d.DemoLen),
			fmt.Sprintf("%.3f", c.EpsPrime), fmt.Sprintf("%.2g", c.DeltaPrime), fmt.Sprintf("%.2f", c.CMin), fmt.Sprintf("%.0f", c.Theta),
			fmt.Sprintf("%.0f (%.1f / %.1f)", c.MeanThreshold(), c.ThresholdScale, c.QueryScale), fmt.Sprintf("%.2f", c.CompositionEpsilon),
			fmt.Sprint(max(c.AgreeingPrefix(NumExperts, d.NumActions), 0))})
	}
	out.Table([]string{"env", "ε", "ε1 / δ1", "T", "L (public, ours)", "ε'", "δ'", "c_min", "θ", "E[θ̂] (noise scales)", "composition",
		"agreeing prefix (worked setting, ours)"}, rows)

	// How long can stable prefixes be? Agreeing prefix against m, CartPole's constants.
	cp := expertdp.CartPoleDomain()
	ms := []float64{}
	for m := 1000.0; m <= 10000; m += 250 {
		ms = append(ms, m)
	}
	var series []figure.Series
	for _, eps := range []float64{5, 7.5, 10} {
		sp := ThreeQuarterSplit("cartpole", eps, 1)
		y := make([]float64, len(ms))
		for i, m := range ms {
			c, err := expertdp.Constants(sp.Eps1, 0.9/m, PMin, sp.T, cp.DemoLen)
			if err != nil {
				return err
			}
			y[i] = float64(c.AgreeingPrefix(int(m), cp.NumActions))
			if y[i] < 0 {
				y[i] = math.NaN()
			}
		}
		series = append(series, figure.Series{Name: fmt.Sprintf("ε = %g (ε1 = %g)", eps, sp.Eps1), X: ms, Y: [][]float64{y}})
	}
	p, err := figure.Curves(figure.Options{Title: "Longest stable prefix if all experts agree (CartPole, p_min = 0.02, δ = 1/m)",
		XLabel: "number of experts m", YLabel: "prefix length (steps)", LegendBottom: true}, series...)
	if err != nil {
		return err
	}
	return out.Figure(p)
}
