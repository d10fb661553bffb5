package wanghegde2019

import (
	"fmt"

	"github.com/dprl-project/dprl/dprl/report"
	"github.com/dprl-project/dprl/dprl/repro"
)

// The paper's words the claims quote (§4; testdata/quotes.txt holds their paragraphs).
const (
	quoteSamples  = "the algorithm requires more samples to achieve the same return than the non-private version"
	quoteConverge = "the algorithm is likely to converge with limited sub-optimality as desired, especially when σ < 0.4"
	quoteReset    = "we suggest using J = T /B in practice to achieve a better utility"
	quoteBGP      = "their approach shares similar performance with ours"
	quoteBeats    = "Both the approaches are differentially private under our setting, while our algorithm significantly outperforms them"
	quoteFlat     = "both the baseline methods do not improve over the training due the the large noise level needed"
)

// The methods as the claims' Compare and Privacy columns name them.
const (
	methodOurs       = "Algorithm 1, corrected"
	methodCode       = "functional noise, code configuration (no privacy guarantee)"
	methodInput      = "input perturbation"
	methodDPSGD      = "DP-SGD"
	methodBGP        = "BGP16 (no guarantee for reward functions)"
	methodNonPrivate = "non-private DQN"
	trivialRandom    = "random policy"
)

// noGuaranteeMethod is a compared method that certifies nothing (no guarantee, or non-private), as the
// Privacy column lists it.
func noGuaranteeMethod(method string) repro.Privacy {
	return repro.Privacy{Method: method, NonPrivate: true}
}

// certified is how a claim lists a private setting of Fig. 2's panel at eps: at the panel's target (eps,
// Delta), which the setting's exact ε and δ must not exceed (a guarantee at (ε′, δ′) with ε′ ≤ ε and δ′ ≤ δ
// is one at (ε, δ)), so that methods calibrated to the same target are listed at equal privacy.
func certified(s Setting, method string, eps float64) (repro.Privacy, error) {
	p := s.Privacy
	if !p.Guarantee || p.Epsilon > eps*(1+1e-9) || p.Delta > Delta*(1+1e-12) {
		return repro.Privacy{}, fmt.Errorf("wanghegde2019: %s does not certify (%g, %g): %s (ε = %g, δ = %g)", s.Name, eps, Delta, p.Label(), p.Epsilon, p.Delta)
	}
	return repro.Privacy{Method: method, Epsilon: eps, Delta: Delta}, nil
}

// returns reads runs from a Runs, keeping the first error.
type returns struct {
	r   *Runs
	err error
}

func (g *returns) runs(name string) [][]float64 {
	if g.err != nil {
		return nil
	}
	v, err := g.r.Returns(name)
	g.err = err
	return v
}

func (g *returns) last(name string) []float64 {
	if r := g.runs(name); r != nil {
		return lastFifth(r)
	}
	return nil
}

// tested decides c from per-seed values d: the 95% Student-t interval of their mean against boundary
// (above: the paper's side is above it), printed with format, with why saying what was tested.
func tested(c repro.Claim, d []float64, format string, boundary float64, above bool, why string) repro.Claim {
	i := interval(d)
	c = repro.Tested(c, i.Mean, i.Low, i.High, len(d), format, boundary, above)
	c.Why = why
	return c
}

// equivalent decides a claim of similarity from per-seed differences d: reproduced when the 95% interval of
// their mean lies within (−margin, margin), not reproduced when it lies wholly outside, else inconclusive.
func equivalent(c repro.Claim, d []float64, margin float64, why string) repro.Claim {
	c = tested(c, d, "%.2f", -margin, true, why)
	upper := repro.Verdict(c.CILow, c.CIHigh, margin, false)
	switch {
	case c.Verdict == repro.Reproduced && upper == repro.Reproduced:
	case c.Verdict == repro.NotReproduced || upper == repro.NotReproduced:
		c.Verdict = repro.NotReproduced
	default:
		c.Verdict = repro.Inconclusive
	}
	return c
}

// pairedTest states the test of a paired difference: what, above or below which boundary.
func pairedTest(what string, boundary float64, above bool) string {
	side := "above"
	if !above {
		side = "below"
	}
	return fmt.Sprintf("Test stated before the run: per seed (every setting of a seed shares its random stream), %s; "+
		"95%% t interval of the mean over seeds; reproduced if it lies wholly %s %g, not reproduced if wholly on the other side.", what, side, boundary)
}

// verdict is the verdict Record would give c.
func verdict(c repro.Claim) string { return repro.Decide(c).Verdict }

// SampleWindow is the number of episodes whose trailing mean return must reach the target in
// SamplesToReach.
const SampleWindow = 5

// SamplesToReach is the number of samples (50 an episode) after which the trailing mean of run's returns over
// SampleWindow episodes first reaches target; a run that never reaches it counts as one episode more than it
// has (censored).
func SamplesToReach(run []float64, target float64) float64 {
	sum := 0.0
	for e, v := range run {
		sum += v
		if e >= SampleWindow {
			sum -= run[e-SampleWindow]
		}
		if e >= SampleWindow-1 && sum/SampleWindow >= target {
			return float64(50 * (e + 1))
		}
	}
	return float64(50 * (len(run) + 1))
}

// slope is the least-squares slope of ys against xs.
func slope(xs, ys []float64) float64 {
	mx, my := mean(xs), mean(ys)
	var sxy, sxx float64
	for i := range xs {
		sxy += (xs[i] - mx) * (ys[i] - my)
		sxx += (xs[i] - mx) * (xs[i] - mx)
	}
	return sxy / sxx
}

// Claims records the claims of Fig. 1 and Fig. 2 (repro.Record), each decided by a test stated in its Why
// on c's runs, with the random policy as every comparison's trivial reference and the certified (ε, δ) of
// every method compared; the Robust column recomputes each verdict under the alternatives of the choice it
// depends on.
func Claims(out report.Sink, c *Curves) error {
	f1, err := fig1Claims(c)
	if err != nil {
		return err
	}
	f2, err := fig2Claims(c)
	if err != nil {
		return err
	}
	repro.Record(out, append(f1, f2...)...)
	return nil
}

// utility ends the why of a claim about learners without a privacy guarantee.
const utility = " A utility claim: the code configuration has no privacy guarantee (Theorem 5 does not cover it)."

// fig1Claims are Fig. 1's rows: the privacy-utility trade-off (samples to a return against σ), limited
// sub-optimality at σ = 0.2 and 0.4, and resetting the path every episode.
func fig1Claims(c *Curves) ([]repro.Claim, error) {
	g := &returns{r: c.Fig1}
	np, rnd := g.last(NonPrivateName), g.last(RandomName)
	npRuns := g.runs(NonPrivateName)
	byS := make([][][]float64, len(Fig1Sigmas))
	for i, sigma := range Fig1Sigmas {
		byS[i] = g.runs(SigmaName(sigma))
	}
	j100, j10, j1 := g.last(SigmaName(0.4)), g.last(J10Name), g.last(NeverName)
	if g.err != nil {
		return nil, claimsErr(g.err)
	}
	// code names a code-configuration learner as Compare and Privacy name it.
	code := func(what string) string { return what + " (code configuration, no privacy guarantee)" }
	npPriv := noGuaranteeMethod(methodNonPrivate)

	samples := func(share float64) repro.Claim {
		d := make([]float64, len(np))
		for s := range d {
			ys := make([]float64, len(Fig1Sigmas))
			for i := range Fig1Sigmas {
				ys[i] = SamplesToReach(byS[i][s], share*mean(npRuns[s][len(npRuns[s])*4/5:]))
			}
			d[s] = slope(Fig1Sigmas, ys)
		}
		return tested(repro.Claim{Key: "f1-samples", Kind: repro.KindPaper, Where: "§4, Fig. 1(a)", Quote: quoteSamples,
			Claim:   fmt.Sprintf("Code configuration, a fresh path every episode: the larger σ, the more samples before the return reaches %.0f%% of the non-private DQN's last-fifth return", 100*share),
			Paper:   "samples to the same return grow with σ (Fig. 1(a))",
			Compare: &repro.Comparison{A: methodNonPrivate, B: code("σ = 0.2 … 1"), Trivial: trivialRandom, Margin: interval(paired(np, 1, rnd, 1))},
			Privacy: []repro.Privacy{npPriv, noGuaranteeMethod(code("σ = 0.2 … 1"))}},
			d, "%.0f", 0, true, pairedTest(fmt.Sprintf("the least-squares slope, against σ ∈ %v, of the samples after which the mean return over %d episodes first reaches "+
				"%.0f%% of that seed's non-private last-fifth return (a run that never reaches it counts as 50 samples past its end), in samples per unit of σ",
				Fig1Sigmas, SampleWindow, 100*share), 0, true)+utility)
	}
	keeps := func(key string, sigma float64, x []float64, share float64) repro.Claim {
		return tested(repro.Claim{Key: key, Kind: repro.KindPaper, Where: "§4, Fig. 1(a)", Quote: quoteConverge,
			Claim:   fmt.Sprintf("Code configuration, a fresh path every episode: σ = %g keeps at least %.0f%% of the non-private last-fifth return", sigma, 100*share),
			Paper:   "converges with limited sub-optimality, especially for σ < 0.4",
			Compare: &repro.Comparison{A: code(fmt.Sprintf("σ = %g", sigma)), B: methodNonPrivate, Trivial: trivialRandom, Margin: interval(paired(x, 1, rnd, 1))},
			Privacy: []repro.Privacy{noGuaranteeMethod(code(fmt.Sprintf("σ = %g", sigma))), npPriv}},
			paired(x, 1, np, share), "%.2f", 0, true,
			pairedTest(fmt.Sprintf("last-fifth mean return at σ = %g minus %g × the non-private DQN's", sigma, share), 0, true)+utility)
	}
	reset := func(other []float64, j string) repro.Claim {
		return tested(repro.Claim{Key: "f1-j", Kind: repro.KindPaper, Where: "§4, Fig. 1(b)", Quote: quoteReset,
			Claim: fmt.Sprintf("σ = 0.4: a fresh path every episode (J = T/B, 100 here) learns better than %s", j), Paper: "recommends J = T/B",
			Compare: &repro.Comparison{A: code("σ = 0.4, J = 100"), B: code("σ = 0.4, " + j), Trivial: trivialRandom, Margin: interval(paired(j100, 1, rnd, 1))},
			Privacy: []repro.Privacy{noGuaranteeMethod(code("σ = 0.4, J = 100")), noGuaranteeMethod(code("σ = 0.4, " + j))}},
			paired(j100, 1, other, 1), "%.2f", 0, true, pairedTest("last-fifth mean return with J = 100 minus with "+j, 0, true)+utility)
	}
	shareChoice := "the share of the non-private return that counts (ours; the paper gives none)"
	withShares := func(row repro.Claim, mk func(float64) repro.Claim, alts ...float64) repro.Claim {
		r := &repro.Robustness{Choice: shareChoice}
		for _, a := range alts {
			r.Alternatives = append(r.Alternatives, repro.Alternative{Setting: fmt.Sprintf("%.0f%%", 100*a), Verdict: verdict(mk(a))})
		}
		row.Robust = r
		return row
	}
	l2, l4 := lastFifth(byS[1]), lastFifth(byS[2])
	return []repro.Claim{
		withShares(samples(0.8), samples, 0.7, 0.9),
		withShares(keeps("f1", 0.2, l2, 0.8), func(a float64) repro.Claim { return keeps("f1", 0.2, l2, a) }, 0.7, 0.9),
		withShares(keeps("f1-04", 0.4, l4, 0.7), func(a float64) repro.Claim { return keeps("f1-04", 0.4, l4, a) }, 0.6, 0.8),
		func() repro.Claim {
			row := reset(j1, "never resetting (J = 1)")
			row.Robust = &repro.Robustness{Choice: "the smaller J it is compared with", Alternatives: []repro.Alternative{
				{Setting: "J = 10", Verdict: verdict(reset(j10, "every 10 episodes (J = 10)"))}}}
			return row
		}(),
	}, nil
}

// claimsErr wraps an error of the claims.
func claimsErr(err error) error { return fmt.Errorf("wanghegde2019: claims: %w", err) }

// fig2Claims are Fig. 2's rows at each ε: the corrected Algorithm 1 against input perturbation and DP-SGD
// (equal certified (ε, δ)), the same claim for the code configuration as a utility row, BGP16 against ours,
// and whether the corrected Algorithm 1 and its noiseless version beat the random policy; at ε = 0.45 that
// the baselines do not improve.
func fig2Claims(c *Curves) ([]repro.Claim, error) {
	g := &returns{r: c.Fig2}
	var rows []repro.Claim
	for _, p := range c.Panels {
		eps := p.Epsilon
		ours, ip, dp, code, bgp, rnd := g.last(p.Ours), g.last(p.Input), g.last(p.DPSGD), g.last(p.Code), g.last(p.BGP16), g.last(p.Random)
		ours0 := g.last(p.OursNoiseless)
		if g.err != nil {
			return nil, claimsErr(g.err)
		}
		privOf := func(name, method string) (repro.Privacy, error) {
			s, err := c.Fig2.Setting(name)
			if err != nil {
				return repro.Privacy{}, err
			}
			return certified(s, method, eps)
		}
		oursP, err := privOf(p.Ours, methodOurs)
		if err != nil {
			return nil, err
		}
		ipP, err := privOf(p.Input, methodInput)
		if err != nil {
			return nil, err
		}
		dpP, err := privOf(p.DPSGD, methodDPSGD)
		if err != nil {
			return nil, err
		}
		key := fmt.Sprintf("f2-%g", eps)
		cfg := c.Choice.Arms[c.Choice.Chosen].Config

		// Ours (corrected Algorithm 1 in a configuration x) against a baseline.
		beats := func(suffix, bName string, b []float64, bP repro.Privacy, x []float64, xName string) repro.Claim {
			return tested(repro.Claim{Key: key + suffix, Kind: repro.KindPaper, Where: fmt.Sprintf("§4, Fig. 2(%s)", panelLetter(eps)), Quote: quoteBeats,
				Claim:   fmt.Sprintf("ε = %g: functional noise with a guarantee (Algorithm 1, corrected; %s) outperforms %s at the same (ε, δ)", eps, xName, bName),
				Paper:   "ours significantly outperforms input perturbation and DP-SGD",
				Compare: &repro.Comparison{A: methodOurs, B: bP.Method, Trivial: trivialRandom, Margin: interval(paired(x, 1, rnd, 1))},
				Privacy: []repro.Privacy{oursP, bP}},
				paired(x, 1, b, 1), "%.2f", 0, true, pairedTest(fmt.Sprintf("last-fifth mean return of Algorithm 1 (corrected, %s) minus %s's", xName, bName), 0, true))
		}
		// configAlternatives is row's verdict for each other configuration of Algorithm 1 the runs hold (the
		// runner-up of the public choice and our worked setting), as a robust column; nil when there is none.
		configAlternatives := func(row func(x []float64, label string) repro.Claim) (*repro.Robustness, error) {
			r := &repro.Robustness{Choice: "Algorithm 1's configuration (B, α, γ; the paper leaves them open)"}
			for _, alt := range []struct{ name, label string }{{p.RunnerUp, "runner-up"}, {p.Worked, "worked setting (ours)"}} {
				if alt.name == "" {
					continue
				}
				x := g.last(alt.name)
				if g.err != nil {
					return nil, g.err
				}
				r.Alternatives = append(r.Alternatives, repro.Alternative{Setting: alt.label, Verdict: verdict(row(x, alt.label))})
			}
			if len(r.Alternatives) == 0 {
				return nil, nil
			}
			return r, nil
		}
		for _, b := range []struct {
			suffix, name string
			x            []float64
			p            repro.Privacy
		}{{"-ip", methodInput, ip, ipP}, {"-dp", methodDPSGD, dp, dpP}} {
			row := beats(b.suffix, b.name, b.x, b.p, ours, fmt.Sprintf("chosen: %s", cfg))
			if row.Robust, err = configAlternatives(func(x []float64, label string) repro.Claim { return beats(b.suffix, b.name, b.x, b.p, x, label) }); err != nil {
				return nil, claimsErr(err)
			}
			row.Why += fmt.Sprintf(" Both at (ε, δ) = (%g, %g) by the exact accountant (privacy table). Algorithm 1 without noise in the same configuration minus the random policy: %s.",
				eps, Delta, ci(paired(ours0, 1, rnd, 1)))
			rows = append(rows, row)

			// The same claim for the code configuration, which the caption names: a utility row.
			codeRow := func(x []float64, what string) repro.Claim {
				return tested(repro.Claim{Key: key + "-code" + b.suffix, Kind: repro.KindPaper, Where: fmt.Sprintf("§4, Fig. 2(%s)", panelLetter(eps)), Quote: quoteBeats,
					Claim:   fmt.Sprintf("ε = %g, utility only: functional noise in the code configuration (%s, no privacy guarantee; the caption's configuration) outperforms %s", eps, what, b.name),
					Paper:   "ours significantly outperforms input perturbation and DP-SGD",
					Compare: &repro.Comparison{A: methodCode, B: b.name, Trivial: trivialRandom, Margin: interval(paired(x, 1, rnd, 1))},
					Privacy: []repro.Privacy{noGuaranteeMethod(methodCode), b.p}},
					paired(x, 1, b.x, 1), "%.2f", 0, true, pairedTest(fmt.Sprintf("last-fifth mean return of the code configuration (%s) minus %s's", what, b.name), 0, true)+
						" Ours has no privacy guarantee here, so this row says nothing about privacy at equal (ε, δ): it is the paper's Fig. 2 as its caption describes it.")
			}
			cr := codeRow(code, fmt.Sprintf("σ = %g, Theorem 5's σ at the worked setting (ours)", CodeSigma(eps)))
			cr.Robust = &repro.Robustness{Choice: "the code configuration's σ (the paper does not say which σ its Fig. 2 ran)"}
			g1 := &returns{r: c.Fig1}
			for _, sigma := range []float64{0.6, 1} {
				if !c.Fig1.Seeds.Equal(c.Fig2.Seeds) {
					break // Fig. 1 read from a sweep of other seeds: its runs do not pair with Fig. 2's
				}
				x := g1.last(SigmaName(sigma))
				if g1.err != nil {
					return nil, claimsErr(g1.err)
				}
				cr.Robust.Alternatives = append(cr.Robust.Alternatives, repro.Alternative{Setting: fmt.Sprintf("σ = %g (Fig. 1's runs)", sigma),
					Verdict: verdict(codeRow(x, fmt.Sprintf("σ = %g", sigma)))})
			}
			if len(cr.Robust.Alternatives) == 0 {
				cr.Robust = nil
			}
			rows = append(rows, cr)
		}

		// BGP16 against ours: the code configuration, as the caption says, or the corrected Algorithm 1.
		bgpRow := func(x []float64, what repro.Privacy) repro.Claim {
			return equivalent(repro.Claim{Key: key + "-bgp", Kind: repro.KindPaper, Where: fmt.Sprintf("§4, Fig. 2(%s)", panelLetter(eps)), Quote: quoteBGP,
				Claim:   fmt.Sprintf("ε = %g, utility only: BGP16 performs similarly to ours (%s)", eps, what.Method),
				Paper:   "BGP16 performs similarly to ours",
				Compare: &repro.Comparison{A: methodBGP, B: what.Method, Trivial: trivialRandom, Margin: interval(paired(bgp, 1, rnd, 1))},
				Privacy: []repro.Privacy{noGuaranteeMethod(methodBGP), what}},
				paired(bgp, 1, x, 1), 2, fmt.Sprintf("Test stated before the run: per seed, last-fifth mean return of BGP16 minus ours (%s); "+
					"reproduced if the 95%% t interval lies within (−2, 2), not reproduced if wholly outside, else inconclusive. "+
					"BGP16 has no guarantee for neighbouring reward functions: a utility comparison, as in the paper.", what.Method))
		}
		br := bgpRow(code, noGuaranteeMethod(methodCode))
		br.Robust = &repro.Robustness{Choice: "which learner is ours (the caption: the code configuration)", Alternatives: []repro.Alternative{
			{Setting: "Algorithm 1, corrected (chosen)", Verdict: verdict(bgpRow(ours, oursP))}}}
		learns := func(x []float64, xName string) repro.Claim {
			return tested(repro.Claim{Key: key + "-random", Kind: repro.KindSanity,
				Claim: fmt.Sprintf("ε = %g: functional noise with a guarantee (Algorithm 1, corrected; %s) learns: it ends above the random policy", eps, xName),
				Paper: "Fig. 2 (implicit: ours learns a useful policy)"},
				paired(x, 1, rnd, 1), "%.2f", 0, true, pairedTest("last-fifth mean return of Algorithm 1 (corrected) minus the random policy's", 0, true))
		}
		lr := learns(ours, cfg.String())
		if lr.Robust, err = configAlternatives(learns); err != nil {
			return nil, claimsErr(err)
		}
		rows = append(rows, br, lr)

		if eps == 0.45 {
			for _, b := range []struct{ key, name, setting string }{{"f2-flat-ip", methodInput, p.Input}, {"f2-flat-dp", methodDPSGD, p.DPSGD}} {
				runs := g.runs(b.setting)
				if g.err != nil {
					return nil, claimsErr(g.err)
				}
				flat := func(part int, what string) repro.Claim {
					d := make([]float64, len(runs))
					for s, r := range runs {
						n := max(1, len(r)/part)
						d[s] = mean(r[len(r)-n:]) - mean(r[:n])
					}
					return tested(repro.Claim{Key: b.key, Kind: repro.KindPaper, Where: "§4, Fig. 2(b)", Quote: quoteFlat,
						Claim: fmt.Sprintf("At ε = 0.45 %s does not improve during training", b.name), Paper: "Fig. 2(b): flat learning curves"},
						d, "%.2f", 2, false, pairedTest(fmt.Sprintf("%s minus %s mean return of %s", "last "+what, "first "+what, b.name), 2, false))
				}
				row := flat(5, "fifth")
				row.Robust = &repro.Robustness{Choice: "what \"improve over the training\" compares (ours: the first and the last fifth)", Alternatives: []repro.Alternative{
					{Setting: "first and last tenth", Verdict: verdict(flat(10, "tenth"))}, {Setting: "first and second half", Verdict: verdict(flat(2, "half"))}}}
				rows = append(rows, row)
			}
		}
	}
	// The configuration chosen on the selection seeds learns on the figures' seeds too.
	p := c.Panels[0]
	ours0, rnd := g.last(p.OursNoiseless), g.last(p.Random)
	if g.err != nil {
		return nil, claimsErr(g.err)
	}
	rows = append(rows, tested(repro.Claim{Key: "alg1-learns", Kind: repro.KindSanity,
		Claim: fmt.Sprintf("Algorithm 1 without noise in the chosen configuration (%s) ends above the random policy", c.Choice.Arms[c.Choice.Chosen].Config),
		Paper: "Fig. 1 (implicit: the non-private version learns)"},
		paired(ours0, 1, rnd, 1), "%.2f", 0, true, pairedTest("last-fifth mean return of Algorithm 1 without noise minus the random policy's, on the figures' seeds (the choice was made on other seeds)", 0, true)))
	return rows, nil
}

// panelLetter is Fig. 2's panel of eps: (a) at 0.9, (b) at 0.45.
func panelLetter(eps float64) string {
	if eps == 0.45 {
		return "b"
	}
	return "a"
}
