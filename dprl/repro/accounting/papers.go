package accounting

import (
	"fmt"

	"github.com/dprl-project/dprl/dprl/param"
	"github.com/dprl-project/dprl/dprl/repro/seoyang2020"

	"math"

	"github.com/dprl-project/dprl/dprl/actorcritic"
	"github.com/dprl-project/dprl/dprl/experiment"
	"github.com/dprl-project/dprl/dprl/expertdp"
	"github.com/dprl-project/dprl/dprl/fnq"
	"github.com/dprl-project/dprl/dprl/policyeval"
	"github.com/dprl-project/dprl/mechanisms"
)

// BalleTable gives the smooth-sensitivity Gaussian's constants (Balle et al. Lemma 1 and the Appendix-A
// variant) for each (ε, δ) and dimension d, beside the analytic Gaussian's σ for a known sensitivity of 1:
// α/σ_analytic is the price of not knowing the sensitivity, 1/β the visit count after which the smooth bound
// starts to relax. The ICML-era code's β (which multiplies where the proof divides, so it is not private) is
// shown for the Appendix-A row, labelled.
func BalleTable(privacy [][2]float64, dims []int) (*experiment.Table, error) {
	t := &experiment.Table{Columns: []string{"constants", "ε", "δ", "d", "α", "β", "1/β", "analytic σ (Δ = 1)", "α / analytic σ", "ICML-era code β (not private)"}}
	for i, p := range privacy {
		if err := param.First(check.In(fmt.Sprintf("privacy[%d][0]", i), p[0], param.Positive),
			check.In(fmt.Sprintf("privacy[%d][1]", i), p[1], param.OpenUnit)); err != nil {
			return nil, err
		}
	}
	for i, d := range dims {
		if err := check.AtLeast(fmt.Sprintf("dims[%d]", i), d, 1); err != nil {
			return nil, err
		}
	}
	for _, p := range privacy {
		for _, d := range dims {
			analytic, err := mechanisms.AnalyticGaussianSigma(p[0], p[1], 1)
			if err != nil {
				return nil, err
			}
			for _, v := range []mechanisms.SmoothVariant{mechanisms.SmoothLemma1, mechanisms.SmoothAppendixA} {
				a, b, err := mechanisms.SmoothGaussianConstants(p[0], p[1], d, v)
				if err != nil {
					return nil, err
				}
				name, buggy := "Lemma 1 (NRS)", any("—")
				if v == mechanisms.SmoothAppendixA {
					name = "Appendix A (Lemma 14)"
					r := math.Sqrt(float64(d)) + math.Sqrt(2*math.Log(2/p[1]))
					buggy = sig4(2 * p[0] / 5 * r * r)
				}
				t.Add(name, p[0], p[1], d, sig4(a), sig4(b), sig4(1/b), sig4(analytic), sig4(a/analytic), buggy)
			}
		}
	}
	return t, nil
}

// XieRow is one GPOPE calibration: n trajectories, T steps, target ε at δ = 1e−5 with clip C = 1.
type XieRow struct {
	N, T int
	Eps  float64
}

// XieTable calibrates GPOPE's σ by the paper's accounting (WBK Theorem 9, replace-one, Δ = 2C) and shows
// Theorem 1's implied constant c₂ = σ/(C√(T ln(1/δ))/(nε)) and the ε that the common Poisson add/remove
// accounting (Δ = C) gives the same σ.
func XieTable(rows []XieRow) (*experiment.Table, error) {
	const delta, clip = 1e-5, 1.0
	t := &experiment.Table{Columns: []string{"n", "T", "target ε", "σ (paper accounting)", "implied c₂", "ε, Poisson add/remove, same σ"}}
	for i, r := range rows {
		if err := param.First(check.AtLeast(fmt.Sprintf("rows[%d].N", i), r.N, 1), check.AtLeast(fmt.Sprintf("rows[%d].T", i), r.T, 1),
			check.In(fmt.Sprintf("rows[%d].Eps", i), r.Eps, param.Positive)); err != nil {
			return nil, err
		}
	}
	for _, r := range rows {
		s, err := policyeval.GPOPESigma(policyeval.AccountingPaper, r.N, r.T, r.Eps, delta, clip, nil)
		if err != nil {
			return nil, err
		}
		c2 := s / (clip * math.Sqrt(float64(r.T)*math.Log(1/delta)) / (float64(r.N) * r.Eps))
		e, err := policyeval.GPOPEEpsilon(policyeval.AccountingPoisson, r.N, r.T, s, clip, delta, nil)
		if err != nil {
			return nil, err
		}
		t.Add(r.N, r.T, r.Eps, sig4(s), sig4(c2), sig4(e))
	}
	return t, nil
}

// WangHegdeTable evaluates Theorem 5 (σ by the KOV-style sufficient condition) against the exact μ-GDP
// accounting of the same releases, for each calibration.
func WangHegdeTable(cals []fnq.Calibration) (*experiment.Table, error) {
	t := &experiment.Table{Columns: []string{"ε", "δ", "T′ = T/B", "α", "k", "‖f‖²_H ≤ C", "σ (Thm 5)", "exact ε of σ (GDP)", "KOV-formula ε", "exact σ for ε (GDP)", "2k − 8.68√β σ"}}
	for i, c := range cals {
		k, err := c.Compute()
		if err != nil {
			return nil, fmt.Errorf("accounting: cals[%d]: %w", i, err)
		}
		t.Add(c.Epsilon, c.Delta, k.Steps, c.LR, c.K, sig4(k.NormSq), sig4(k.SigmaThm5), sig4(k.EpsilonGDP), sig4(k.EpsilonKOV), sig4(k.SigmaGDP), sig4(k.TailMargin))
	}
	return t, nil
}

// SharmaRow is one DataRelease setting: (ε1, δ1), T trajectories examined, longest demonstration L, p_min.
type SharmaRow struct {
	Name         string
	Eps1, Delta1 float64
	T, L         int
	PMin         float64
}

// SharmaTable gives DataRelease's SVT constants (Sharma et al. §5) and what advanced
// composition (Dwork–Roth Thm 3.20) actually certifies for the T rounds.
func SharmaTable(rows []SharmaRow) (*experiment.Table, error) {
	t := &experiment.Table{Columns: []string{"setting", "ε1", "δ1", "T", "L", "ε'", "δ'", "c_min", "θ", "E[θ̂]", "threshold b", "query b", "Thm 3.20 ε of T rounds"}}
	for i, r := range rows {
		if err := param.First(check.In(fmt.Sprintf("rows[%d].Eps1", i), r.Eps1, param.Positive),
			check.In(fmt.Sprintf("rows[%d].Delta1", i), r.Delta1, param.OpenUnit),
			check.In(fmt.Sprintf("rows[%d].PMin", i), r.PMin, param.Interval{Lo: 0, Hi: 1, HiClosed: true}),
			check.AtLeast(fmt.Sprintf("rows[%d].T", i), r.T, 1), check.AtLeast(fmt.Sprintf("rows[%d].L", i), r.L, 1)); err != nil {
			return nil, err
		}
	}
	for _, r := range rows {
		c, err := expertdp.Constants(r.Eps1, r.Delta1, r.PMin, r.T, r.L)
		if err != nil {
			return nil, err
		}
		t.Add(r.Name, r.Eps1, sig4(r.Delta1), r.T, r.L, sig4(c.EpsPrime), sig4(c.DeltaPrime), sig4(c.CMin), sig4(c.Theta),
			sig4(c.MeanThreshold()), sig4(c.ThresholdScale), sig4(c.QueryScale), sig4(c.CompositionEpsilon))
	}
	return t, nil
}

// SeoYangTable gives Seo & Yang's noise σ (eq. (3), the classic formula applied at any ε), the §2.1 typo,
// the analytic Gaussian σ for sensitivity |C| (as the paper assumes) and 2|C| (replace-one), and what the
// published releases (eq. (3) σ) compose to over 100 and 10⁴ releases (μ-GDP), with the paper's implicit
// sensitivity |C| and with replace-one's 2|C|.
func SeoYangTable(epsilons []float64, delta float64) (*experiment.Table, error) {
	t := &experiment.Table{Columns: []string{"ε per step", "σ eq. (3)", "σ §2.1 typo", "analytic σ, Δ = |C|", "analytic σ, Δ = 2|C|",
		"ε of 100 releases, Δ = |C|", "ε of 10⁴ releases, Δ = |C|", "ε of 100 releases, Δ = 2|C|", "ε of 10⁴ releases, Δ = 2|C|"}}
	if err := checkList("epsilons", epsilons, param.Positive, delta); err != nil {
		return nil, err
	}
	for _, e := range epsilons {
		a1, err := mechanisms.AnalyticGaussianSigma(e, delta, 1)
		if err != nil {
			return nil, err
		}
		s := actorcritic.PublishedSigma(e, delta)
		e100, err := seoyang2020.ComposedPublishedEpsilon(s, 100, delta)
		if err != nil {
			return nil, err
		}
		e1e4, err := seoyang2020.ComposedPublishedEpsilon(s, 10000, delta)
		if err != nil {
			return nil, err
		}
		x100, err := mechanisms.GDPEpsilon(10/s, delta)
		if err != nil {
			return nil, err
		}
		x1e4, err := mechanisms.GDPEpsilon(100/s, delta)
		if err != nil {
			return nil, err
		}
		t.Add(e, sig4(s), sig4(seoyang2020.TypoSigma(e, delta)), sig4(a1), sig4(2*a1), sig4(x100), sig4(x1e4), sig4(e100), sig4(e1e4))
	}
	return t, nil
}
