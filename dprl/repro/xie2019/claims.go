package xie2019

import (
	"fmt"
	"math"
	"slices"

	"github.com/dprl-project/dprl/dprl/experiment"
	"github.com/dprl-project/dprl/dprl/report"
	"github.com/dprl-project/dprl/dprl/repro"
)

// The claims: every row is decided by repro.Record from a 95% Student-t interval over the trials of a
// per-trial quantity, against a boundary stated in its Why before the run. A row saying GPOPE beats (or
// matches) another method also measures GPOPE against θ = 0 (repro.Comparison) and lists the certified
// (ε, δ) of both; a paper row that is not reproduced carries the verdict recomputed under each choice the
// paper leaves open that the run can vary (repro.Robustness).

// interval is the mean of xs with its 95% interval.
func interval(xs []float64) repro.Interval {
	m, lo, hi := ci(xs)
	return repro.Interval{Mean: m, Low: lo, High: hi}
}

// gpopePrivacy is a GPOPE arm's entry in a row's privacy list: the replace-one ε that Theorem 27 certifies
// at Delta for the σ the first row that s selects ran with (σ/C with the domain's C, its n and T).
func gpopePrivacy(name string, rows []Row, info DomainInfo, s sel) (repro.Privacy, error) {
	i := slices.IndexFunc(rows, s.match)
	if i < 0 {
		return repro.Privacy{}, fmt.Errorf("xie2019: no %s rows at ε = %g (n = %d) for the claims", s.method, s.eps, s.n)
	}
	r := rows[i]
	e, err := certified(r.N, r.T, r.Sigma/info.Clip)
	return repro.Privacy{Method: name, Epsilon: e, Delta: Delta}, err
}

// alternative is one setting of a choice the paper leaves open and the row recomputed under it.
type alternative struct {
	setting string
	row     repro.Claim
}

// robust is the Robustness of a row: the choice and the verdict each alternative's row gets from
// repro.Decide (the test and the comparison rules together).
func robust(choice string, alts ...alternative) *repro.Robustness {
	r := &repro.Robustness{Choice: choice}
	for _, a := range alts {
		r.Alternatives = append(r.Alternatives, repro.Alternative{Setting: a.setting, Verdict: repro.Decide(a.row).Verdict})
	}
	return r
}

// scheduleChoice names the choice of GPOPE's step-size schedule.
const scheduleChoice = "GPOPE's step-size schedule (public choice, constant or diminishing)"

// cell is an (n, ε) point of an "MSPBE vs n" figure.
type cell struct {
	n   int
	eps float64
}

// beats is the row "GPOPE beats a baseline by 10^boundary": the per-trial log₁₀(MSPBE of the baseline /
// MSPBE of GPOPE) (paired on the trial's private sample) at the cell where its mean is smallest, GPOPE's
// margin over θ = 0 there, and both methods' certified privacy. gpope names GPOPE's arm (the public choice
// or one schedule), delta the baseline's δ.
func beats(c repro.Claim, rows []Row, info DomainInfo, gpope, baseline, baseName string, delta float64, cells []cell, boundary float64) (repro.Claim, error) {
	k := trials(rows)
	var best []float64
	var at cell
	worst := math.Inf(1)
	for _, ce := range cells {
		x := logRatio(byTrial(rows, sel{method: baseline, eps: ce.eps, delta: delta, n: ce.n}, k), byTrial(rows, sel{method: gpope, eps: ce.eps, n: ce.n}, k))
		if m, _, _ := ci(x); best == nil || m < worst {
			best, at, worst = x, ce, m
		}
	}
	if best == nil {
		return c, fmt.Errorf("xie2019: claim %s: no cell to test", c.Key)
	}
	g, err := gpopePrivacy("GPOPE", rows, info, sel{method: gpope, eps: at.eps, n: at.n})
	if err != nil {
		return c, err
	}
	c.Compare = &repro.Comparison{A: "GPOPE", B: baseName, Trivial: "θ = 0",
		Margin: interval(logRatio(byTrial(rows, sel{method: MethodZero, n: at.n}, k), byTrial(rows, sel{method: gpope, eps: at.eps, n: at.n}, k)))}
	c.Privacy = []repro.Privacy{g, {Method: baseName, Epsilon: at.eps, Delta: delta}}
	return tested(c, best, boundary, true, fmt.Sprintf("n = %d, ε = %g: log₁₀ ratio ", at.n, at.eps), "%.3g"), nil
}

// beatsRobust is beats for GPOPE's public choice against the baseline at Delta, with the verdict under each
// schedule and with the baseline at BalleDelta (another privacy level: inconclusive by the rules, shown for
// what the paper's stripped δ would do).
func beatsRobust(c repro.Claim, rows []Row, info DomainInfo, baseline, baseName string, cells []cell, boundary float64) (repro.Claim, error) {
	row, err := beats(c, rows, info, MethodGPOPE, baseline, baseName, Delta, cells, boundary)
	if err != nil {
		return c, err
	}
	var alts []alternative
	for _, a := range []struct {
		setting, gpope string
		delta          float64
	}{{"constant step", MethodGPOPEConstant, Delta}, {"diminishing step", MethodGPOPEDiminishing, Delta},
		{fmt.Sprintf("%s at Balle et al.'s δ = %g", baseName, BalleDelta), MethodGPOPE, BalleDelta}} {
		alt, err := beats(c, rows, info, a.gpope, baseline, baseName, a.delta, cells, boundary)
		if err != nil {
			return c, err
		}
		alts = append(alts, alternative{a.setting, alt})
	}
	row.Robust = robust(scheduleChoice+"; the baselines' δ (not printed)", alts...)
	return row, nil
}

// Fig1aClaims records the claims of Fig. 1(a) from Fig1aData's table, at ε = 0.1: GPOPE beats DP-LSW and
// DP-LSL by an order of magnitude, the mis-tuned steps usually beat both, and (a sanity check of ours) GPOPE
// beats θ = 0 at the largest n.
func Fig1aClaims(out report.Sink, t *experiment.Table) error {
	rows, info, ns, err := rowsOf(t, "chain")
	if err != nil {
		return err
	}
	const eps = 0.1
	k := trials(rows)
	var cells []cell
	for _, n := range ns {
		cells = append(cells, cell{int(n), eps})
	}
	const quote = "Our proposed method outperforms output perturbation V1 and output perturbation V2 in terms of accuracy by an order of magnitude."
	const where = "§7, chain; Fig. 1(a) (the text's \"Figure 0(a)\")"
	why := "Test: log₁₀(MSPBE of %s / MSPBE of GPOPE) per trial (the same private sample), ε = 0.1, both at δ = 1e−5, at the n where its mean " +
		"is smallest; reproduced if its 95%% interval lies above 1 (10×). GPOPE is the public choice of schedule and step.%s"
	v1, err := beatsRobust(repro.Claim{Key: "c1-v1", Kind: repro.KindPaper, Where: where, Quote: quote, Paper: "10× or more",
		Claim: "Chain: GPOPE beats output perturbation V1 (DP-LSW) by an order of magnitude", Why: fmt.Sprintf(why, "DP-LSW", "")},
		rows, info, MethodDPLSW, "DP-LSW", cells, 1)
	if err != nil {
		return err
	}
	v2, err := beatsRobust(repro.Claim{Key: "c1-v2", Kind: repro.KindPaper, Where: where, Quote: quote, Paper: "10× or more",
		Claim: "Chain: GPOPE beats output perturbation V2 (DP-LSL, the authors' bound) by an order of magnitude",
		Why:   fmt.Sprintf(why, "DP-LSL", " With the authors' λ schedule DP-LSL shrinks towards 0 and sits near θ = 0.")},
		rows, info, MethodDPLSLPaper, "DP-LSL", cells, 1)
	if err != nil {
		return err
	}
	mis := func(delta float64) (repro.Claim, error) {
		share, margin := make([]float64, k), make([]float64, k) // per trial
		for tr := range k {
			won, cases := 0, 0
			for _, n := range ns {
				at := func(m string, d float64) float64 {
					return byTrial(rows, sel{method: m, eps: eps, delta: d, n: int(n)}, k)[tr]
				}
				base, zero := math.Min(at(MethodDPLSW, delta), at(MethodDPLSLPaper, delta)), at(MethodZero, 0)
				for _, m := range []string{MethodGPOPE10x, MethodGPOPETenth} {
					cases++
					v := at(m, 0)
					if v < base {
						won++
					}
					margin[tr] += math.Log10(zero/v) / float64(2*len(ns)) // a diverged run (NaN) leaves the trial out
				}
			}
			share[tr] = float64(won) / float64(cases)
		}
		g, err := gpopePrivacy("GPOPE (10× and 0.1× step)", rows, info, sel{method: MethodGPOPE10x, eps: eps})
		if err != nil {
			return repro.Claim{}, err
		}
		c := repro.Claim{Key: "c1-mis", Kind: repro.KindPaper, Where: where, Claim: "Chain: with 10× or 0.1× the tuned step GPOPE usually still beats V1 and V2",
			Quote: "Even using these imprecise optimal step sizes, our proposed approach usually achieves better accuracy than prior methods.", Paper: "usually",
			Compare: &repro.Comparison{A: "GPOPE (10× and 0.1× step)", B: "DP-LSW and DP-LSL", Trivial: "θ = 0", Margin: interval(margin)},
			Privacy: []repro.Privacy{g, {Method: "DP-LSW and DP-LSL", Epsilon: eps, Delta: delta}},
			Why: fmt.Sprintf("Test: per trial, the share of the %d (n, mis-tuned step) cases at ε = 0.1 whose MSPBE is below both DP-LSW's and DP-LSL's "+
				"(δ = 1e−5); reproduced if its mean's interval lies above ½. The margin over θ = 0 is the mean log₁₀(θ = 0 / GPOPE) over those cases.", 2*len(ns))}
		return tested(c, share, 0.5, true, "share of cases ", "%.3g"), nil
	}
	misRow, err := mis(Delta)
	if err != nil {
		return err
	}
	misBalle, err := mis(BalleDelta)
	if err != nil {
		return err
	}
	misRow.Robust = robust("the baselines' δ (not printed)", alternative{fmt.Sprintf("baselines at Balle et al.'s δ = %g", BalleDelta), misBalle})
	nMax := int(ns[len(ns)-1])
	zero := ratio(byTrial(rows, sel{method: MethodGPOPE, eps: eps, n: nMax}, k), byTrial(rows, sel{method: MethodZero, n: nMax}, k))
	repro.Record(out, v1, v2, misRow,
		tested(repro.Claim{Key: "c1-zero", Kind: repro.KindSanity, Claim: "Chain: the private estimate is informative (beats θ = 0)", Paper: "not shown",
			Why: fmt.Sprintf("Test: the MSPBE of GPOPE (public choice) / θ = 0's per trial at n = %d, ε = 0.1; reproduced if below 1.", nMax)},
			zero, 1, false, "MSPBE / θ = 0: ", "%.4f"))
	return nil
}

// stepRange is, per trial, the width in decades of the steps whose MSPBE is within 2× of that trial's best,
// and the largest MSPBE among them (the worst of the "stable" steps).
func stepRange(y [][]float64, steps []float64) (width, worst []float64) {
	width, worst = make([]float64, len(y)), make([]float64, len(y))
	for t, row := range y {
		best := math.Inf(1)
		for _, v := range row {
			if !math.IsNaN(v) {
				best = math.Min(best, v)
			}
		}
		lo, hi := math.Inf(1), 0.0
		for i, v := range row {
			if v <= 2*best {
				lo, hi = math.Min(lo, steps[i]), math.Max(hi, steps[i])
				worst[t] = math.Max(worst[t], v)
			}
		}
		width[t] = math.Log10(hi / lo)
	}
	return width, worst
}

// stableSteps is the row "accuracy is stable over a wide range of steps" at ε on a step sweep: per trial the
// width in decades of the steps within 2× of the trial's best MSPBE (schedule sc), above 1 decade; the
// margin over θ = 0 is that of the worst of those steps, so a flat curve at θ = 0 is uninformative.
func stableSteps(c repro.Claim, rows []Row, info DomainInfo, eps float64, sc Schedule) (repro.Claim, error) {
	k := trials(rows)
	steps := values(rows, func(r Row) bool { return r.Method == MethodGPOPEAtStep }, byStep)
	width, worst := stepRange(curve(rows, sel{method: MethodGPOPEAtStep, eps: eps, schedule: sc.String()}, steps, byStep), steps)
	g, err := gpopePrivacy("GPOPE (its best step)", rows, info, sel{method: MethodGPOPEAtStep, eps: eps})
	if err != nil {
		return c, err
	}
	stable := g
	stable.Method = "GPOPE (steps within 2× of its best)"
	c.Compare = &repro.Comparison{A: stable.Method, B: g.Method, Trivial: "θ = 0", Margin: interval(logRatio(byTrial(rows, sel{method: MethodZero}, k), worst))}
	c.Privacy = []repro.Privacy{stable, g}
	c.Why = fmt.Sprintf("Test: per trial, the width in decades of the %s steps whose MSPBE is within 2× of that trial's best (n = %d, ε = %g); reproduced "+
		"if its mean's interval lies above 1 decade. The margin over θ = 0 is log₁₀(θ = 0 / the worst of those steps), so a curve flat at θ = 0 "+
		"does not count.", sc, rows[0].N, eps)
	return tested(c, width, 1, true, sc.String()+" step: decades within 2× of the best ", "%.3g"), nil
}

// recordStableSteps records the row "accuracy is stable over a wide range of steps" of a step sweep's table
// on one domain at ε: stableSteps with the constant step (what the paper's step panels vary), and the verdict
// under the diminishing schedule.
func recordStableSteps(out report.Sink, t *experiment.Table, domain string, eps float64, c repro.Claim) error {
	rows, info, _, err := rowsOf(t, domain)
	if err != nil {
		return err
	}
	row, err := stableSteps(c, rows, info, eps, Constant)
	if err != nil {
		return err
	}
	alt, err := stableSteps(c, rows, info, eps, Diminishing)
	if err != nil {
		return err
	}
	row.Robust = robust("the step-size schedule the figure varies (not printed)", alternative{"diminishing step, α₀ varied", alt})
	repro.Record(out, row)
	return nil
}

// Fig1bClaims records Fig. 1(b)'s claim from Fig1bData's table: at ε = 0.1, accuracy is stable over a wide
// range of step sizes.
func Fig1bClaims(out report.Sink, t *experiment.Table) error {
	return recordStableSteps(out, t, "chain", 0.1, repro.Claim{Key: "c1-steps", Kind: repro.KindPaper, Where: "§7, chain; Fig. 1(b) (the text's \"Figure 0(b)\")",
		Claim: "Chain: accuracy is stable over a very wide range of step sizes", Quote: "This shows that accuracy is stable for a very wide range of step sizes.",
		Paper: "flat over the steps shown"})
}

// Fig2bClaims records Fig. 2(b)'s claim from Fig2bData's table: at ε = 1, Mountain Car's accuracy is stable
// over a wide range of step sizes, as on the chain.
func Fig2bClaims(out report.Sink, t *experiment.Table) error {
	return recordStableSteps(out, t, "mountaincar", 1, repro.Claim{Key: "m-steps", Kind: repro.KindPaper, Where: "§7, Mountain Car; Fig. 2(b) (the text's \"Figure 1(b)\")",
		Claim: "Mountain Car: accuracy is robust to the step size, as on the chain",
		Quote: "Similar to the chain domain, we show the robustness of our algorithm to step sizes in Figure 1(b)", Paper: "flat over the steps shown"})
}

// MountainCarClaims records the claims of Figs. 2(a), 3(a), 3(b) from MountainCarData's table: GPOPE improves
// on DP-LSW by orders of magnitude, is close to LSTD, its error falls as ε grows (the paper's privacy–accuracy
// trade-off), and off-policy it performs like on-policy.
func MountainCarClaims(out report.Sink, t *experiment.Table) error {
	on, info, ns, err := rowsOf(t, "mountaincar")
	if err != nil {
		return err
	}
	off, offInfo, _, err := rowsOf(t, "mountaincar-off")
	if err != nil {
		return err
	}
	k := trials(on)
	eps := values(on, func(r Row) bool { return r.Method == MethodGPOPE }, func(r Row) float64 { return r.Epsilon })
	nMax := int(ns[len(ns)-1])
	var cells []cell
	for _, n := range ns {
		for _, e := range eps {
			if e <= 1 {
				cells = append(cells, cell{int(n), e})
			}
		}
	}
	v1, err := beatsRobust(repro.Claim{Key: "m-v1", Kind: repro.KindPaper, Where: "§7, Mountain Car; Fig. 2(a) (the text's \"Figure 1(a)\")",
		Claim: "Mountain Car: GPOPE improves on V1 (DP-LSW) by orders of magnitude",
		Quote: "our proposed gradient perturbation algorithm improves upon existing methods by orders of magnitude", Paper: "orders of magnitude",
		Why: "Test: log₁₀(MSPBE of DP-LSW / MSPBE of GPOPE) per trial at the (n, ε ≤ 1) cell where its mean is smallest, both at δ = 1e−5; reproduced " +
			"if above 2 (100×). DP-LSW on a 10×10 grid of the state box; not run at ε = 2 (no guarantee)."}, on, info, MethodDPLSW, "DP-LSW", cells, 2)
	if err != nil {
		return err
	}

	// Each remaining row, for GPOPE's public choice and for each schedule (the robustness alternatives).
	type arm struct{ setting, method string }
	// withArms builds the row with the first arm (default: the public choice) and recomputes it with the others.
	withArms := func(build func(method string) (repro.Claim, error), arms ...arm) (repro.Claim, error) {
		if arms == nil {
			arms = []arm{{"", MethodGPOPE}, {"constant step", MethodGPOPEConstant}, {"diminishing step", MethodGPOPEDiminishing}}
		}
		row, err := build(arms[0].method)
		if err != nil {
			return row, err
		}
		var alts []alternative
		for _, a := range arms[1:] {
			alt, err := build(a.method)
			if err != nil {
				return row, err
			}
			alts = append(alts, alternative{a.setting, alt})
		}
		row.Robust = robust(scheduleChoice, alts...)
		return row, nil
	}
	zeroOverLSTD := math.Log10(mean(byTrial(on, sel{method: MethodZero, n: nMax}, k)) / mean(byTrial(on, sel{method: MethodLSTD, n: nMax}, k)))
	lstd, err := withArms(func(m string) (repro.Claim, error) {
		g, err := gpopePrivacy("GPOPE", on, info, sel{method: m, eps: 1, n: nMax})
		c := repro.Claim{Key: "m-lstd", Kind: repro.KindPaper, Where: "§7, Mountain Car; Figs. 2(a), 3(a)",
			Claim: "Mountain Car: GPOPE is close in accuracy to non-private LSTD",
			Quote: "LSTD does not provide any privacy guarantees, and is presented here to show how close our algorithm is in accuracy to non-private methods.",
			Paper: "close (figure)", Privacy: []repro.Privacy{g, {Method: "LSTD", NonPrivate: true}},
			Why: fmt.Sprintf("Test: log₁₀(MSPBE of GPOPE / MSPBE of LSTD) per trial at n = %d, ε = 1; reproduced if below 1 (within 10×). Informative "+
				"whichever way it goes: θ = 0 is %.2f decades above LSTD, so an estimate no better than θ = 0 fails it.", nMax, zeroOverLSTD)}
		return tested(c, logRatio(byTrial(on, sel{method: m, eps: 1, n: nMax}, k), byTrial(on, sel{method: MethodLSTD, n: nMax}, k)), 1, false,
			fmt.Sprintf("n = %d, ε = 1: log₁₀ ratio ", nMax), "%.3g"), err
	})
	if err != nil {
		return err
	}
	lo, hi := eps[0], eps[len(eps)-1]
	// The ε ordering, with a constant step first: the paper's Theorem 2 is about a constant step.
	order, err := withArms(func(m string) (repro.Claim, error) {
		a, errA := gpopePrivacy(fmt.Sprintf("GPOPE, ε = %g", lo), on, info, sel{method: m, eps: lo, n: nMax})
		b, errB := gpopePrivacy(fmt.Sprintf("GPOPE, ε = %g", hi), on, info, sel{method: m, eps: hi, n: nMax})
		zero := byTrial(on, sel{method: MethodZero, n: nMax}, k)
		rel := func(e float64) float64 { return mean(ratio(byTrial(on, sel{method: m, eps: e, n: nMax}, k), zero)) }
		c := repro.Claim{Key: "m-eps", Kind: repro.KindPaper, Where: "§6 (Theorem 2); Mountain Car, Fig. 3(a) (the text's \"Figure 2(a)\")",
			Claim: fmt.Sprintf("Mountain Car: stronger privacy costs accuracy (GPOPE's MSPBE at ε = %g well above ε = %g's)", lo, hi),
			Quote: "Theorem 2 shows that there is a strong trade-off between accuracy and privacy when using a constant step size.",
			Paper: "error falls as ε grows", Privacy: []repro.Privacy{a, b},
			Why: fmt.Sprintf("Test: log₁₀(MSPBE at ε = %g / MSPBE at ε = %g) per trial (the same private sample) at n = %d, constant step (the "+
				"theorem's); reproduced if above log₁₀ 2 = 0.301 (a strong trade-off: at least 2× between the ends of the ε grid, a 20-fold "+
				"change of ε). GPOPE / θ = 0 is %.4f at ε = %g and %.4f at ε = %g: no ε of the grid moves it off θ = 0.", lo, hi, nMax, rel(lo), lo, rel(hi), hi)}
		err := errA
		if err == nil {
			err = errB
		}
		return tested(c, logRatio(byTrial(on, sel{method: m, eps: lo, n: nMax}, k), byTrial(on, sel{method: m, eps: hi, n: nMax}, k)), math.Log10(2), true,
			fmt.Sprintf("n = %d: log₁₀ ratio ", nMax), "%.3g"), err
	}, arm{"", MethodGPOPEConstant}, arm{"public choice", MethodGPOPE}, arm{"diminishing step", MethodGPOPEDiminishing})
	if err != nil {
		return err
	}
	similar, err := withArms(func(m string) (repro.Claim, error) {
		var best repro.Claim
		worst := -1.0
		for _, e := range eps {
			a := logRatio(byTrial(on, sel{method: m, eps: e, n: nMax}, k), byTrial(on, sel{method: MethodZero, n: nMax}, k))
			b := logRatio(byTrial(off, sel{method: m, eps: e, n: nMax}, k), byTrial(off, sel{method: MethodZero, n: nMax}, k))
			diff, dlo, dhi := experiment.DiffCI(a, b, 0.95)
			if math.Abs(diff) <= worst {
				continue
			}
			worst = math.Abs(diff)
			gOn, err := gpopePrivacy("GPOPE on-policy", on, info, sel{method: m, eps: e, n: nMax})
			if err != nil {
				return best, err
			}
			gOff, err := gpopePrivacy("GPOPE off-policy", off, offInfo, sel{method: m, eps: e, n: nMax})
			if err != nil {
				return best, err
			}
			neg := make([]float64, len(b)) // the off-policy margin over θ = 0: log₁₀(θ = 0 / GPOPE)
			for i, v := range b {
				neg[i] = -v
			}
			alo, ahi := absInterval(dlo, dhi)
			best = testedInterval(repro.Claim{Key: "m-off", Kind: repro.KindPaper, Where: "§7, Mountain Car off-policy; Fig. 3(a) vs 3(b) (the text's \"Figures 2(a) and 2(b)\")",
				Claim: "Mountain Car: off-policy performance is remarkably similar to on-policy",
				Quote: "our algorithm’s performances in Figures 2(a) and 2(b) are remarkably similar", Paper: "remarkably similar",
				Compare: &repro.Comparison{A: "GPOPE off-policy", B: "GPOPE on-policy", Trivial: "θ = 0", Margin: interval(neg)},
				Privacy: []repro.Privacy{gOff, gOn},
				Why: "Test: the difference between on- and off-policy of the mean log₁₀(MSPBE / θ = 0's) (Welch interval, independent samples) at the " +
					"largest n and the ε where it is largest; reproduced if |difference| < log₁₀ 3 (a factor 3). Similar at θ = 0 says nothing, hence " +
					"the margin of the off-policy estimate over θ = 0."},
				math.Abs(diff), alo, ahi, min(len(experiment.Finite(a)), len(experiment.Finite(b))), math.Log10(3), false, fmt.Sprintf("n = %d, ε = %g: |Δ log₁₀| ", nMax, e), "%.3g")
		}
		return best, nil
	})
	if err != nil {
		return err
	}
	repro.Record(out, v1, lstd, order, similar)
	return nil
}

// Fig4Claims records Fig. 4's reading from Fig4Data's table: GPOPE's relative MSPBE at ε = 1 halves from the
// smallest n to the largest.
func Fig4Claims(out report.Sink, t *experiment.Table) error {
	rows, info, ns, err := rowsOf(t, "hiv")
	if err != nil {
		return err
	}
	k := trials(rows)
	first, last := int(ns[0]), int(ns[len(ns)-1])
	zero := mean(byTrial(rows, sel{method: MethodZero, n: first}, k)) / (info.MeanReward * info.MeanReward)
	build := func(m string) (repro.Claim, error) {
		g, err := gpopePrivacy("GPOPE", rows, info, sel{method: m, eps: 1, n: first})
		c := repro.Claim{Key: "h", Kind: repro.KindFigure, Where: "§7, HIV simulator; Fig. 4", Quote: "Figure 4 shows the results on the HIV simulator.",
			Claim: "HIV: GPOPE's relative MSPBE falls with n (read off Fig. 4's curves, which fall with n)", Paper: "falls with n", Privacy: []repro.Privacy{g},
			Why: fmt.Sprintf("Test: log₁₀(relative MSPBE at n = %d / at n = %d) per trial at ε = 1; reproduced if above log₁₀ 2 = 0.301 (it halves). "+
				"θ = 0's relative MSPBE is %.3g.", first, last, zero)}
		return tested(c, logRatio(byTrial(rows, sel{method: m, eps: 1, n: first}, k), byTrial(rows, sel{method: m, eps: 1, n: last}, k)), math.Log10(2), true,
			fmt.Sprintf("ε = 1, n = %d → %d: log₁₀ ratio ", first, last), "%.3g"), err
	}
	row, err := build(MethodGPOPE)
	if err != nil {
		return err
	}
	var alts []alternative
	for _, a := range []struct{ setting, method string }{{"constant step", MethodGPOPEConstant}, {"diminishing step", MethodGPOPEDiminishing}} {
		alt, err := build(a.method)
		if err != nil {
			return err
		}
		alts = append(alts, alternative{a.setting, alt})
	}
	row.Robust = robust(scheduleChoice, alts...)
	repro.Record(out, row)
	return nil
}
