package accounting

import (
	"fmt"

	"github.com/dprl-project/dprl/dprl/param"
	"github.com/dprl-project/dprl/dprl/repro/seoyang2020"
	"github.com/dprl-project/dprl/dprl/repro/sharma"

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

// XieRows are the GPOPE calibrations notebook 01 shows.
var XieRows = []XieRow{{1000, 1000, 1}, {1000, 10000, 1}, {10000, 10000, 1}, {1000, 1000, 0.1}, {10000, 100000, 0.5}}

// XieTable calibrates GPOPE's σ by the paper's accounting (Wang, Balle & Kasiviswanathan's general
// Theorem 9 for one trajectory of n sampled per step, replace-one neighbours, Δ = 2C, improved RDP
// conversion) and shows Theorem 1's implied constant c₂ = σ/(C√(T ln(1/δ))/(nε)); then the ε of that σ
// for the algorithm as implemented (policyeval.GPOPE draws one trajectory uniformly per step, which is a
// batch of one without replacement) by the tightest accountant the mechanisms package has for it, RDP with
// the Gaussian-specific Theorem 27; and, labelled as not what GPOPE runs, the ε that Poisson sampling at
// rate 1/n under add/remove neighbours (Δ = C) would give the same σ.
func XieTable(rows []XieRow) (*experiment.Table, error) {
	const delta, clip = 1e-5, 1.0
	t := &experiment.Table{Columns: []string{"n", "T", "target ε (Thm 9, the paper's accounting)", "σ", "implied c₂",
		"ε as run (Thm 27 RDP: 1 of n per step, replace-one, Δ = 2C)", "ε if Poisson at 1/n, add/remove, Δ = C (not what GPOPE runs)"}}
	for i, r := range rows {
		if err := param.First(check.AtLeast(fmt.Sprintf("rows[%d].N", i), r.N, 1), check.AtLeast(fmt.Sprintf("rows[%d].T", i), r.T, 1),
			check.In(fmt.Sprintf("rows[%d].Eps", i), r.Eps, param.Positive)); err != nil {
			return nil, err
		}
	}
	for _, r := range rows {
		s, err := policyeval.GPOPESigma(policyeval.AccountingTheorem9, r.N, r.T, r.Eps, delta, clip, nil)
		if err != nil {
			return nil, err
		}
		c2 := s / (clip * math.Sqrt(float64(r.T)*math.Log(1/delta)) / (float64(r.N) * r.Eps))
		run, err := GPOPEEpsilonAsRun(r.N, r.T, s, clip, delta)
		if err != nil {
			return nil, err
		}
		e, err := policyeval.GPOPEEpsilon(policyeval.AccountingPoisson, r.N, r.T, s, clip, delta, nil)
		if err != nil {
			return nil, err
		}
		t.Add(r.N, r.T, r.Eps, sig4(s), sig4(c2), sig4(run), sig4(e))
	}
	return t, nil
}

// GPOPEEpsilonAsRun is the ε at δ of T GPOPE steps on n trajectories with noise σ and clip C as
// policyeval.GPOPE runs them (one trajectory drawn uniformly per step, replace-one neighbours, so the clipped
// gradient moves by Δ = 2C) by RDP with Wang, Balle & Kasiviswanathan's Theorem 27 and the improved
// conversion: a valid upper bound on the true ε, the tightest the mechanisms package has for this sampling.
func GPOPEEpsilonAsRun(n, T int, sigma, clip, delta float64) (float64, error) {
	a, err := mechanisms.NewRDPAccountant(nil, mechanisms.ConversionImproved)
	if err != nil {
		return 0, err
	}
	if err := a.Compose(mechanisms.SampledWithoutReplacement{N: n, Batch: 1, Event: mechanisms.GaussianEvent{NoiseMultiplier: sigma / (2 * clip)}}, T); err != nil {
		return 0, err
	}
	return a.Epsilon(delta)
}

// WangHegdeCalibrations are the Theorem 5 calibrations notebook 01 shows: the paper's settings (T = 5000
// samples, δ = 1e−4, m = 2 actions, J = 100 paths) and the package fnq's example of a k for which the
// corrected tail bound holds (T′ = 100, J = 1).
var WangHegdeCalibrations = []fnq.Calibration{
	{Epsilon: 0.9, Delta: 1e-4, T: 5000, B: 50, LR: 0.01, L: 1, K: 230, Actions: 2, Resets: 100},
	{Epsilon: 0.9, Delta: 1e-4, T: 5000, B: 128, LR: 7e-5, L: 1, K: 210, Actions: 2, Resets: 100},
	{Epsilon: 0.45, Delta: 1e-4, T: 5000, B: 128, LR: 3e-5, L: 1, K: 420, Actions: 2, Resets: 100},
	{Epsilon: 0.9, Delta: 1e-4, T: 12800, B: 128, LR: 7e-5, L: 1, K: 425, Actions: 2, Resets: 1},
}

// WangHegdeTable evaluates Theorem 5 (σ by the KOV-style sufficient condition) against the exact μ-GDP
// accounting of the same T′ releases (each a Gaussian mechanism in the RKHS, μ = √T′·‖f‖_H/σ), for one
// action's sensitivity as the theorem states and for the joint sensitivity of all m actions (√m times
// larger: every output function changes and m paths are added). Those exact ε hold only on the event that
// the tail bound of Lemma 8 controls, so the table gives Theorem 5's precondition 2k − 8.68√β·σ > 0, the
// paper's tail term and the corrected one (package fnq, "Corrections"), and says what is guaranteed at the
// claimed δ plus the corrected tail.
func WangHegdeTable(cals []fnq.Calibration) (*experiment.Table, error) {
	t := &experiment.Table{Columns: []string{"ε (claimed)", "δ", "T′ = T/B", "α", "k", "J", "‖f‖²_H ≤ C", "σ (Thm 5)", "KOV-formula ε",
		"exact ε, one action (GDP)", "exact ε, m actions (GDP)", "exact σ for ε, one action", "2k − 8.68√β σ (Thm 5 needs > 0)",
		"tail, paper", "tail, corrected", "what holds"}}
	for i, c := range cals {
		k, err := c.Compute()
		if err != nil {
			return nil, fmt.Errorf("accounting: cals[%d]: %w", i, err)
		}
		joint := math.Sqrt(float64(k.Steps) * k.NormSq * float64(c.Actions))
		if c.MActionCorrection {
			joint = math.Sqrt(float64(k.Steps) * k.NormSq) // NormSq already carries the factor m
		}
		em, err := mechanisms.GDPEpsilon(joint/k.SigmaThm5, c.Delta)
		if err != nil {
			return nil, fmt.Errorf("accounting: cals[%d]: %w", i, err)
		}
		holds := fmt.Sprintf("(%.3g, δ + %.2g), all m actions", em, k.TailConservative)
		switch {
		case k.TailMargin <= 0:
			holds = "nothing: Thm 5's precondition fails"
		case k.TailConservative >= 1:
			holds = "nothing proved: the corrected tail bound is vacuous"
		}
		t.Add(c.Epsilon, c.Delta, k.Steps, c.LR, c.K, c.Resets, sig4(k.NormSq), sig4(k.SigmaThm5), sig4(k.EpsilonKOV), sig4(k.EpsilonGDP),
			sig4(em), sig4(k.SigmaGDP), sig4(k.TailMargin), sig2(k.TailPaper), sig2(k.TailConservative), holds)
	}
	return t, nil
}

// sig2 keeps two significant digits (NaN as "—").
func sig2(v float64) any {
	if math.IsNaN(v) {
		return "—"
	}
	return fmt.Sprintf("%.2g", v)
}

// SharmaRow is one DataRelease setting: (ε1, δ1), T trajectories examined, longest demonstration L, p_min.
type SharmaRow struct {
	Name         string
	Eps1, Delta1 float64
	T, L         int
	PMin         float64
}

// SharmaPaperRows are DataRelease's settings at overall ε on the paper's four domains, with the budget split
// of the reproduction package sharma (sharma.PaperSplit at δ = 1/m, m = sharma.NumExperts): Acrobot gives
// DataRelease all of (ε, δ); CartPole, LunarLander and HIV give it ε1 = 3ε/4 and δ1 = 9δ/10 (DP-SGD gets
// ε/4 and δ/10) from ε = 7.5 up. L is the domain's public bound on a demonstration's length
// (expertdp.Domain.DemoLen), p_min = sharma.PMin. A domain whose split gives DataRelease nothing (ε < 7.5
// outside Acrobot) is left out.
func SharmaPaperRows(eps float64) ([]SharmaRow, error) {
	if err := check.In("eps", eps, param.Positive); err != nil {
		return nil, err
	}
	const delta = 1.0 / sharma.NumExperts
	var rows []SharmaRow
	for _, env := range []struct{ name, title string }{{"acrobot", "Acrobot"}, {"cartpole", "CartPole"}, {"lunarlander", "LunarLander"}, {"hiv", "HIV"}} {
		sp := sharma.PaperSplit(env.name, eps, delta)
		if sp.Eps1 == 0 {
			continue
		}
		d, err := expertdp.DomainByName(env.name)
		if err != nil {
			return nil, err
		}
		name := fmt.Sprintf("%s, ε = %g: all to DataRelease", env.title, eps)
		if sp.Eps2 > 0 {
			name = fmt.Sprintf("%s, ε = %g: ε1 = 3ε/4, δ1 = 9δ/10", env.title, eps)
		}
		rows = append(rows, SharmaRow{Name: name, Eps1: sp.Eps1, Delta1: sp.Delta1, T: sp.T, L: d.DemoLen, PMin: sharma.PMin})
	}
	return rows, nil
}

// SharmaTable gives DataRelease's SVT constants (Sharma et al. §5) and the ε that advanced composition
// (Dwork–Roth Thm 3.20: T rounds of (2ε′, δ1/(2T)), slack δ1/2) certifies for the T rounds at δ1, against
// the ε1 the paper claims through Corollary 3.21.
func SharmaTable(rows []SharmaRow) (*experiment.Table, error) {
	t := &experiment.Table{Columns: []string{"setting", "ε1 (claimed)", "δ1", "T", "L", "ε'", "δ'", "c_min", "θ", "E[θ̂]", "threshold b", "query b",
		"ε certified for T rounds at δ1 (Thm 3.20)"}}
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

// SeoYangEpsilons are the per-step ε notebook 01 shows for Seo & Yang, at SeoYangDelta.
var (
	SeoYangEpsilons = []float64{10, 5, 1, 0.5, 0.1}
	SeoYangDelta    = 1e-6
)

// SeoYangTable gives Seo & Yang's noise σ (eq. (3), the classic formula applied at any ε), the §2.1 typo,
// the analytic Gaussian σ for sensitivity |C| (as the paper assumes) and 2|C| (replace-one), the exact ε of
// one release with the eq. (3) σ for both sensitivities (above the claimed ε where the classic formula
// under-noises), and what the published releases (eq. (3) σ) compose to over 100 and 10⁴ releases (μ-GDP),
// with the paper's implicit sensitivity |C| and with replace-one's 2|C|.
func SeoYangTable(epsilons []float64, delta float64) (*experiment.Table, error) {
	t := &experiment.Table{Columns: []string{"ε per step (claimed)", "σ eq. (3)", "σ §2.1 typo", "analytic σ, Δ = |C|", "analytic σ, Δ = 2|C|",
		"exact ε of 1 release, Δ = |C|", "exact ε of 1 release, Δ = 2|C|",
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
		one := make([]float64, 2)
		for i, sens := range []float64{1, 2} {
			if one[i], err = mechanisms.GDPEpsilon(sens/s, delta); err != nil {
				return nil, err
			}
		}
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
		t.Add(e, sig4(s), sig4(seoyang2020.TypoSigma(e, delta)), sig4(a1), sig4(2*a1), sig4(one[0]), sig4(one[1]), sig4(x100), sig4(x1e4), sig4(e100), sig4(e1e4))
	}
	return t, nil
}
