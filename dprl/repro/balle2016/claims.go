package balle2016

import (
	"fmt"
	"math"
	"strings"

	"github.com/dprl-project/dprl/dprl/experiment"
	"github.com/dprl-project/dprl/dprl/report"
	"github.com/dprl-project/dprl/dprl/repro"
	"github.com/dprl-project/dprl/mechanisms"
)

// The paper's words the claims quote (testdata/quotes.txt holds their paragraphs).
const (
	quoteStable   = "both algorithms are very stable and converge to the same solution, but LSW converges faster"
	quoteConverge = "the DP algorithms converge to the same solutions as the nonprivate corresponding versions for large enough batch sizes"
	quoteBatches  = "The LSL algorithms work better with small batches of data, whereas the LSW approach is preferable with large batches"
	quoteSchedule = "While the theory suggests it is not the best schedule in terms of excess empirical risk, it achieves the best overall accuracy"
	quoteNoise    = "especially as batch size increases, the noise introduced by the DP mechanism decreases rapidly"
	quoteAggr     = "more aggressive function approximation helps both differentially private algorithms converge faster"
)

// dependence is what of a Setting a claim depends on, and so which alternatives its Robust column lists.
type dependence int

const (
	onC     dependence = iota // the non-private LSL: its c only
	onArm                     // DP-LSW: the arm only
	onBoth                    // DP-LSL: the arm and c
	onPower                   // the schedule claim: the arm, each exponent at the c chosen for it
)

// choiceName is the open choice a dependence's alternatives vary.
var choiceName = map[dependence]string{onC: "regularisation c", onArm: "return bound F and δ", onBoth: "c, F and δ",
	onPower: "F and δ (each exponent at the c chosen for it)"}

// claimRow is a row with what it depends on.
type claimRow struct {
	repro.Claim
	dep dependence
}

// Claims records the claims table of Fig. 1 (repro.Record): every claim computed on d in the choice's
// main setting, with its Robust column recomputed from d under each of the choice's alternatives that
// change what the claim depends on; then the sensitivity rows (the convergence claims with the authors'
// code's F = 100, its c chosen by the same criterion) as analyses of ours.
func Claims(out report.Sink, d *Data, ch *Choice) error {
	m := ch.Main()
	primary, err := claimRows(d, m)
	if err != nil {
		return err
	}
	alts := ch.Alternatives()
	altRows := make([][]claimRow, len(alts))
	for i, a := range alts {
		if altRows[i], err = claimRows(d, a); err != nil {
			return err
		}
	}
	rows := make([]repro.Claim, len(primary))
	for i, r := range primary {
		rb := &repro.Robustness{Choice: choiceName[r.dep]}
		seen := map[string]bool{r.dep.of(m): true}
		for j, a := range alts {
			if seen[r.dep.of(a)] {
				continue // changes nothing the claim depends on
			}
			seen[r.dep.of(a)] = true
			setting := a.Name
			if r.dep == onC {
				setting = fmt.Sprintf("c = %g", a.LSLC)
			}
			rb.Alternatives = append(rb.Alternatives, repro.Alternative{Setting: setting, Verdict: repro.Decide(altRows[j][i].Claim).Verdict})
		}
		rows[i] = r.Claim
		rows[i].Robust = rb
	}
	code, err := claimRows(d, ch.In(ArmCodeBound))
	if err != nil {
		return err
	}
	for _, r := range code {
		if r.Key != "p3-lsw" && r.Key != "p3-lsl" {
			continue
		}
		c := r.Claim
		c.Key, c.Kind = c.Key+"-f100", repro.KindAnalysis
		c.Claim = "Sensitivity, the authors' code's F = 100 (c chosen for it): " + c.Claim
		rows = append(rows, c)
	}
	repro.Record(out, rows...)
	return nil
}

// of is what of the setting s the claim depends on, as a string: two settings with the same one give the
// claim the same verdict. (A setting's exponents take the c chosen for its arm.)
func (dep dependence) of(s Setting) string {
	switch dep {
	case onC:
		return fmt.Sprint(s.LSLC)
	case onArm, onPower:
		return s.Arm.Name
	}
	return s.Arm.Name + fmt.Sprint(s.C)
}

// claimRows computes every claim on d under the setting s, each decided by a test stated in its Why (a 95%
// Student-t interval of a per-seed quantity against a boundary), not yet by repro.Decide.
func claimRows(d *Data, s Setting) ([]claimRow, error) {
	var err error
	at := func(k key, m metric, j int) []float64 {
		if err != nil {
			return nil
		}
		var v []float64
		v, err = d.at(k, m, j)
		return v
	}
	first, last := 0, len(d.M)-1
	mFirst, mLast := fmt.Sprintf("m = %g", d.M[first]), fmt.Sprintf("m = %g", d.M[last])
	const tab, pairs = FeaturesTabular, FeaturesPairs
	c := s.C
	lsl := fmt.Sprintf("LSL (c = %g)", c)
	lsl1 := fmt.Sprintf("LSL (c = %g)", s.LSLC)
	dplsl := fmt.Sprintf("DP-LSL (c = %g)", c)
	priv := func(method string, dim int) repro.Privacy {
		if err != nil {
			return repro.Privacy{}
		}
		var p repro.Privacy
		p, err = certified(method, s.Arm, dim)
		return p
	}
	np := func(method string) repro.Privacy { return repro.Privacy{Method: method, NonPrivate: true} }
	where := "§6, Fig. 1 (%s)"
	inSetting := fmt.Sprintf(" (%s)", s.Arm.Name)

	// Panel 1: the non-private estimators, tabular.
	lswT, lslT, zeroT := at(lswKey(tab), rmseOf, last), at(lslKey(tab, CodePower, s.LSLC), rmseOf, last), at(zeroKey(tab), rmseOf, last)
	lswT0, lslT0 := at(lswKey(tab), rmseOf, first), at(lslKey(tab, CodePower, s.LSLC), rmseOf, first)
	// Panel 3: pairs.
	lswP, lslP, zeroP := at(lswKey(pairs), rmseOf, last), at(lslKey(pairs, CodePower, c), rmseOf, last), at(zeroKey(pairs), rmseOf, last)
	dwP, dlP := at(dplswKey(pairs, s.Arm), rmseOf, last), at(dplslKey(pairs, s.Arm, CodePower, c), rmseOf, last)
	dwP0, dlP0, zeroP0, lslP0 := at(dplswKey(pairs, s.Arm), rmseOf, first), at(dplslKey(pairs, s.Arm, CodePower, c), rmseOf, first),
		at(zeroKey(pairs), rmseOf, first), at(lslKey(pairs, CodePower, c), rmseOf, first)
	// Noise.
	sw0, sw := at(dplswKey(pairs, s.Arm), sigmaOf, first), at(dplswKey(pairs, s.Arm), sigmaOf, last)
	sl0, sl := at(dplslKey(pairs, s.Arm, CodePower, c), sigmaOf, first), at(dplslKey(pairs, s.Arm, CodePower, c), sigmaOf, last)
	// Panel 4: excess risk at the largest m.
	rwP, rwT := at(dplswKey(pairs, s.Arm), riskOf, last), at(dplswKey(tab, s.Arm), riskOf, last)
	rlP, rlT := at(dplslKey(pairs, s.Arm, CodePower, c), riskOf, last), at(dplslKey(tab, s.Arm, CodePower, c), riskOf, last)
	rzP, rlslP := at(zeroKey(pairs), riskOf, last), at(lslKey(pairs, CodePower, c), riskOf, last)
	if err != nil {
		return nil, err
	}
	// The schedule claim: DP-LSL's overall RMSE with each exponent at its chosen c.
	overall := map[float64][]float64{}
	for _, p := range Powers {
		if overall[p], err = d.overall(func(f string) key { return dplslKey(f, s.Arm, p, s.PowerC[p]) }, rmseOf); err != nil {
			return nil, err
		}
	}
	zeroAll, err := d.overall(zeroKey, rmseOf)
	if err != nil {
		return nil, err
	}
	scheduleGap := make([]float64, len(d.Seeds))
	var others []string
	for t := range scheduleGap {
		scheduleGap[t] = math.Inf(1)
	}
	for _, p := range Powers {
		if p == CodePower {
			continue
		}
		others = append(others, fmt.Sprintf("p = %g (c = %g)", p, s.PowerC[p]))
		for t := range scheduleGap {
			scheduleGap[t] = math.Min(scheduleGap[t], overall[p][t]-overall[CodePower][t])
		}
	}
	schedA := fmt.Sprintf("DP-LSL, λ ∝ m^%g (c = %g)", CodePower, s.PowerC[CodePower])
	schedB := "DP-LSL, λ ∝ m^p, " + strings.Join(others, ", ")
	noiseBound := math.Sqrt(d.M[first] / d.M[last])

	rows := []claimRow{
		{tested(repro.Claim{Key: "p1", Kind: repro.KindPaper, Where: fmt.Sprintf(where, "left plot"), Quote: quoteStable, Paper: "LSW converges faster than LSL",
			Claim:   "Non-private: LSW converges faster than LSL (tabular)",
			Compare: &repro.Comparison{A: "LSW", B: lsl1, Trivial: "θ = 0", Margin: ci(sub(zeroT, lswT))}, Privacy: []repro.Privacy{np("LSW"), np(lsl1)},
			Why: fmt.Sprintf("test: per-seed RMSE(%s) − RMSE(LSW) at %s, tabular, same batch; reproduced if the 95%% interval is above 0", lsl1, mLast)},
			sub(lslT, lswT), 0, true), onC},
		{tested(repro.Claim{Key: "p1-conv", Kind: repro.KindPaper, Where: fmt.Sprintf(where, "left plot"), Quote: quoteStable, Paper: "both converge to the same solution",
			Claim:   "Non-private: LSL converges to LSW's solution as m grows (tabular)",
			Compare: &repro.Comparison{A: lsl1, B: "LSW", Trivial: "θ = 0", Margin: ci(sub(zeroT, lslT))}, Privacy: []repro.Privacy{np(lsl1), np("LSW")},
			Why: fmt.Sprintf("test: per-seed gap RMSE(%s) − RMSE(LSW) at %s minus the gap at %s, tabular; reproduced if the 95%% interval is above 0 (the gap closes)", lsl1, mFirst, mLast)},
			sub(sub(lslT0, lswT0), sub(lslT, lswT)), 0, true), onC},
		{tested(repro.Claim{Key: "p3-lsw", Kind: repro.KindPaper, Where: fmt.Sprintf(where, "third plot"), Quote: quoteConverge, Paper: "DP-LSW reaches LSW's solution for large m",
			Claim:   "DP-LSW reaches the non-private LSW for large m (pairs)" + inSetting,
			Compare: &repro.Comparison{A: "DP-LSW", B: "LSW", Trivial: "θ = 0", Margin: ci(sub(zeroP, dwP))}, Privacy: []repro.Privacy{priv("DP-LSW", 20), np("LSW")},
			Why: "test: per-seed RMSE(DP-LSW)/RMSE(LSW) at " + mLast + ", pairs; reproduced if the 95% interval is below 2"},
			div(dwP, lswP), 2, false), onArm},
		{tested(repro.Claim{Key: "p3-lsl", Kind: repro.KindPaper, Where: fmt.Sprintf(where, "third plot"), Quote: quoteConverge, Paper: "DP-LSL reaches LSL's solution for large m",
			Claim:   "DP-LSL reaches the non-private LSL for large m (pairs)" + inSetting,
			Compare: &repro.Comparison{A: dplsl, B: lsl, Trivial: "θ = 0", Margin: ci(sub(zeroP, dlP))}, Privacy: []repro.Privacy{priv(dplsl, 20), np(lsl)},
			Why: fmt.Sprintf("test: per-seed RMSE(%s)/RMSE(%s) at %s, pairs; reproduced if the 95%% interval is below 2", dplsl, lsl, mLast)},
			div(dlP, lslP), 2, false), onBoth},
		{tested(repro.Claim{Key: "p3-small", Kind: repro.KindPaper, Where: fmt.Sprintf(where, "third plot"), Quote: quoteBatches, Paper: "LSL for small batches",
			Claim:   "DP-LSL is better than DP-LSW for small batches (pairs)" + inSetting,
			Compare: &repro.Comparison{A: dplsl, B: "DP-LSW", Trivial: "θ = 0", Margin: ci(sub(zeroP0, dlP0))}, Privacy: []repro.Privacy{priv(dplsl, 20), priv("DP-LSW", 20)},
			Why: fmt.Sprintf("test: per-seed RMSE(DP-LSW) − RMSE(%s) at %s, pairs; reproduced if the 95%% interval is above 0", dplsl, mFirst)},
			sub(dwP0, dlP0), 0, true), onBoth},
		{tested(repro.Claim{Key: "p3-large", Kind: repro.KindPaper, Where: fmt.Sprintf(where, "third plot"), Quote: quoteBatches, Paper: "LSW for large batches",
			Claim:   "DP-LSW is better than DP-LSL for large batches (pairs)" + inSetting,
			Compare: &repro.Comparison{A: "DP-LSW", B: dplsl, Trivial: "θ = 0", Margin: ci(sub(zeroP, dwP))}, Privacy: []repro.Privacy{priv("DP-LSW", 20), priv(dplsl, 20)},
			Why: fmt.Sprintf("test: per-seed RMSE(%s) − RMSE(DP-LSW) at %s, pairs; reproduced if the 95%% interval is above 0", dplsl, mLast)},
			sub(dlP, dwP), 0, true), onBoth},
		{tested(repro.Claim{Key: "p-schedule", Kind: repro.KindPaper, Where: "§6 (Fig. 1, third plot)", Quote: quoteSchedule,
			Paper:   "DP-LSL's schedule λ ∝ m^p (p lost in the text; 0.4 in the authors' code) achieves the best overall accuracy",
			Claim:   "DP-LSL with λ ∝ m^0.4 is more accurate overall than with a constant λ or λ ∝ m" + inSetting,
			Compare: &repro.Comparison{A: schedA, B: schedB, Trivial: "θ = 0", Margin: ci(sub(zeroAll, overall[CodePower]))},
			Privacy: []repro.Privacy{priv(schedA, 20), priv(schedB, 20)},
			Why: fmt.Sprintf("test: per seed, overall RMSE = DP-LSL's RMSE averaged over m = %g … %g and both feature sets, each exponent at the c "+
				"chosen for it on the selection batches; the smallest overall RMSE of the other exponents minus that of p = 0.4; "+
				"reproduced if the 95%% interval is above 0 (p = 0.4 beats every other exponent)", d.M[first], d.M[last])},
			scheduleGap, 0, true), onPower},
		{tested(repro.Claim{Key: "p-noise-lsw", Kind: repro.KindPaper, Where: "§6", Quote: quoteNoise, Paper: "the noise decreases rapidly as the batch grows",
			Claim: "DP-LSW's noise σ falls at least as fast as 1/√m (pairs)" + inSetting,
			Why: fmt.Sprintf("test: per-seed σ(DP-LSW) at %s over σ at %s, pairs; reproduced if the 95%% interval is below √(%g/%g) = %.3g, "+
				"the fall of 1/√m (the rate of the estimators' own sampling error)", mLast, mFirst, d.M[first], d.M[last], noiseBound)},
			div(sw, sw0), noiseBound, false), onArm},
		{tested(repro.Claim{Key: "p-noise-lsl", Kind: repro.KindPaper, Where: "§6", Quote: quoteNoise, Paper: "the noise decreases rapidly as the batch grows",
			Claim: "DP-LSL's noise σ falls at least as fast as 1/√m (pairs)" + inSetting,
			Why: fmt.Sprintf("test: per-seed σ(%s) at %s over σ at %s, pairs; reproduced if the 95%% interval is below √(%g/%g) = %.3g, "+
				"the fall of 1/√m (the rate of the estimators' own sampling error)", dplsl, mLast, mFirst, d.M[first], d.M[last], noiseBound)},
			div(sl, sl0), noiseBound, false), onBoth},
		{tested(repro.Claim{Key: "p4-lsw", Kind: repro.KindPaper, Where: fmt.Sprintf(where, "last plot"), Quote: quoteAggr, Paper: "aggregation (smaller d) helps DP-LSW",
			Claim:   "Aggregation (d = 20) lowers DP-LSW's excess empirical risk" + inSetting,
			Compare: &repro.Comparison{A: "DP-LSW, pairs", B: "DP-LSW, tabular", Trivial: "θ = 0", Margin: ci(sub(rzP, rwP))},
			Privacy: []repro.Privacy{priv("DP-LSW, pairs", 20), priv("DP-LSW, tabular", 39)},
			Why:     "test: per-seed excess risk of DP-LSW, tabular minus pairs, at " + mLast + "; reproduced if the 95% interval is above 0"},
			sub(rwT, rwP), 0, true), onArm},
		{tested(repro.Claim{Key: "p4-lsl", Kind: repro.KindPaper, Where: fmt.Sprintf(where, "last plot"), Quote: quoteAggr, Paper: "aggregation (smaller d) helps DP-LSL",
			Claim:   "Aggregation (d = 20) lowers DP-LSL's excess empirical risk" + inSetting,
			Compare: &repro.Comparison{A: dplsl + ", pairs", B: dplsl + ", tabular", Trivial: "θ = 0", Margin: ci(sub(sub(rzP, rlslP), rlP))},
			Privacy: []repro.Privacy{priv(dplsl+", pairs", 20), priv(dplsl+", tabular", 39)},
			Why:     fmt.Sprintf("test: per-seed excess risk of %s, tabular minus pairs, at %s; reproduced if the 95%% interval is above 0", dplsl, mLast)},
			sub(rlT, rlP), 0, true), onBoth},
		{tested(repro.Claim{Key: "s-lsl-zero", Kind: repro.KindSanity, Paper: "not shown",
			Claim: fmt.Sprintf("Non-private %s beats θ = 0 at the smallest batch (pairs): the chosen regularisation keeps the signal", lsl),
			Why:   fmt.Sprintf("test: per-seed RMSE(θ = 0) − RMSE(%s) at %s, pairs; reproduced if the 95%% interval is above 0", lsl, mFirst)},
			sub(zeroP0, lslP0), 0, true), onBoth},
	}
	return rows, err
}

// certified is the (ε, δ) Lemma 1 certifies for the constants a release in dimension dim uses in the arm.
func certified(method string, arm Arm, dim int) (repro.Privacy, error) {
	priv := arm.Privacy()
	alpha, beta, err := mechanisms.SmoothGaussianConstants(priv.Epsilon, priv.Delta, dim, priv.Variant)
	if err != nil {
		return repro.Privacy{}, err
	}
	return repro.Privacy{Method: method, Epsilon: Lemma1Epsilon(alpha, beta, priv.Delta, dim), Delta: priv.Delta}, nil
}

// tested decides c from the 95% Student-t interval of the mean of xs (one value per seed) against the test
// stated in c.Why: the paper's side is above boundary (above = true) or below it.
func tested(c repro.Claim, xs []float64, boundary float64, above bool) repro.Claim {
	m, lo, hi := experiment.MeanCI(xs, 0.95)
	return repro.Tested(c, m, lo, hi, len(xs), "%.3g", boundary, above)
}

// ci is the mean of xs with its 95% Student-t interval.
func ci(xs []float64) repro.Interval {
	m, lo, hi := experiment.MeanCI(xs, 0.95)
	return repro.Interval{Mean: m, Low: lo, High: hi}
}

func sub(a, b []float64) []float64 {
	out := make([]float64, len(a))
	for i := range a {
		out[i] = a[i] - b[i]
	}
	return out
}

func div(a, b []float64) []float64 {
	out := make([]float64, len(a))
	for i := range a {
		out[i] = a[i] / b[i]
	}
	return out
}

// Summary is the numbers behind the notebook's explanation of the verdicts, in the choice's main setting:
// the chosen constants, DP-LSL's and DP-LSW's RMSE against θ = 0's, how much the noise falls over the batch
// sizes, and every exponent's overall RMSE (means over the seeds with their 95% intervals).
func Summary(d *Data, ch *Choice) (string, error) {
	s := ch.Main()
	first, last := 0, len(d.M)-1
	zero, err := d.overall(zeroKey, rmseOf)
	if err != nil {
		return "", err
	}
	var sched []string
	var dplslAll []float64
	for _, p := range Powers {
		o, err := d.overall(func(f string) key { return dplslKey(f, s.Arm, p, s.PowerC[p]) }, rmseOf)
		if err != nil {
			return "", err
		}
		if p == CodePower {
			dplslAll = o
		}
		sched = append(sched, fmt.Sprintf("p = %g (c = %g): %s", p, s.PowerC[p], ci(o)))
	}
	pick := func(k key, m metric, j int) []float64 {
		if err != nil {
			return nil
		}
		var v []float64
		v, err = d.at(k, m, j)
		return v
	}
	dw, dl, z := pick(dplswKey(FeaturesPairs, s.Arm), rmseOf, last), pick(dplslKey(FeaturesPairs, s.Arm, CodePower, s.C), rmseOf, last), pick(zeroKey(FeaturesPairs), rmseOf, last)
	sw, sw0 := pick(dplswKey(FeaturesPairs, s.Arm), sigmaOf, last), pick(dplswKey(FeaturesPairs, s.Arm), sigmaOf, first)
	sl, sl0 := pick(dplslKey(FeaturesPairs, s.Arm, CodePower, s.C), sigmaOf, last), pick(dplslKey(FeaturesPairs, s.Arm, CodePower, s.C), sigmaOf, first)
	if err != nil {
		return "", err
	}
	ml := fmt.Sprintf("m = %g", d.M[last])
	lines := []string{
		fmt.Sprintf("**Summary** (%s; c chosen on the selection batches: DP-LSL %g, the non-private LSL of panel 1 %g; means over %d seeds with 95%% intervals).",
			s.Arm.Name, s.C, s.LSLC, len(d.Seeds)),
		fmt.Sprintf("* DP-LSL's RMSE averaged over the batch sizes and both feature sets: %s; θ = 0's: %.4g. At %s, pairs: DP-LSL %s, θ = 0 %.4g.",
			ci(dplslAll), mean(zero), ml, ci(dl), mean(z)),
		fmt.Sprintf("* DP-LSW at %s, pairs: RMSE %s with σ = %s.", ml, ci(dw), ci(sw)),
		fmt.Sprintf("* From m = %g to %g the noise σ falls by a factor %s (DP-LSW) and %s (DP-LSL), against %.3g for 1/√m.",
			d.M[first], d.M[last], ci(div(sw0, sw)), ci(div(sl0, sl)), math.Sqrt(d.M[last]/d.M[first])),
		"* DP-LSL's overall RMSE per schedule exponent: " + strings.Join(sched, "; ") + ".",
	}
	return strings.Join(lines, "\n"), nil
}
