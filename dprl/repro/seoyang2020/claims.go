package seoyang2020

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/dprl-project/dprl/dprl/experiment"
	"github.com/dprl-project/dprl/dprl/report"
	"github.com/dprl-project/dprl/dprl/repro"
)

// StableShare is the test of "almost similar performance" across ε in Fig. 3, stated before the runs: a
// variant at ε keeps at least this share of its ε = 10 gain over the random policy, i.e.
// mean(F_ε) − [StableShare·mean(F₁₀) + (1 − StableShare)·mean(F_random)] > 0 on the last-50 returns F, by the
// Welch interval over the seeds (our reading: the paper gives no margin).
const StableShare = 0.8

// cut is one way of reading the runs that the paper leaves open: the step sizes (each condition tuned on its
// own, the paper's procedure; or Table 2's for every condition, DP-Actor's optimum, as this notebook read it
// before) and the performance measure (the last-50 return, or the mean over all episodes).
type cut struct {
	name   string
	table2 bool
	all    bool
}

// cuts are the readings every performance claim is recomputed under; the first is the claim's own.
var cuts = []cut{{"tuned, last 50", false, false}, {"tuned, all episodes", false, true}, {"Table 2, last 50", true, false},
	{"Table 2, all episodes", true, true}}

// cutChoice names what the cuts vary.
const cutChoice = "step sizes (tuned per condition | Table 2 for all) and measure (last-50 return | mean over all episodes)"

// runs is condition cond of Fig. 2 on d under cut c, with its per-seed scores.
func (s *study) runs(d Domain, cond string, c cut) ([]float64, error) {
	get := s.fig2
	if c.table2 && cond != Random {
		get = s.table2
	}
	a, err := get(d, cond)
	if err != nil {
		return nil, err
	}
	w := min(Window, s.size.Episodes)
	if c.all {
		w = s.size.Episodes
	}
	return a.scores(d, w), nil
}

// interval is a mean and its 95% interval.
type interval struct{ m, lo, hi float64 }

func (i interval) repro() repro.Interval { return repro.Interval{Mean: i.m, Low: i.lo, High: i.hi} }

func welch(a, b []float64) interval {
	m, lo, hi := experiment.DiffCI(a, b, 0.95)
	return interval{m, lo, hi}
}

// beats is the comparison row "a beats b" on d at ε = 10 per step (Fig. 2's runs): the Welch interval of
// the difference of the per-seed scores, a's margin over the random policy, both methods' privacy, and the
// verdict recomputed under every cut of order (the first is the row's own). base holds the row's text.
func (s *study) beats(d Domain, a, b string, order []cut, base repro.Claim) (repro.Claim, error) {
	row := func(c cut) (repro.Claim, error) {
		fa, err := s.runs(d, a, c)
		if err != nil {
			return repro.Claim{}, err
		}
		fb, err := s.runs(d, b, c)
		if err != nil {
			return repro.Claim{}, err
		}
		fr, err := s.runs(d, Random, c)
		if err != nil {
			return repro.Claim{}, err
		}
		diff, margin := welch(fa, fb), welch(fa, fr)
		r := base
		r.Compare = &repro.Comparison{A: Label(a), B: Label(b), Trivial: "random policy", Margin: margin.repro()}
		if r.Privacy, err = privacies(d, "", a, b); err != nil {
			return repro.Claim{}, err
		}
		ma, _, _ := experiment.MeanCI(fa, 0.95)
		mb, _, _ := experiment.MeanCI(fb, 0.95)
		mr, _, _ := experiment.MeanCI(fr, 0.95)
		r.Why = fmt.Sprintf("%s; %s %.1f, %s %.1f, random policy %.1f", base.Why, Label(a), ma, Label(b), mb, mr)
		return repro.Decide(repro.Tested(r, diff.m, diff.lo, diff.hi, len(fa), "%.1f", 0, true)), nil
	}
	return robust(cutChoice, order, row)
}

// robust is the row of the first cut of order with Robust: the verdict under every cut.
func robust(choice string, order []cut, row func(cut) (repro.Claim, error)) (repro.Claim, error) {
	var out repro.Claim
	rob := &repro.Robustness{Choice: choice}
	for i, c := range order {
		r, err := row(c)
		if err != nil {
			return repro.Claim{}, err
		}
		if i == 0 {
			out = r
		}
		rob.Alternatives = append(rob.Alternatives, repro.Alternative{Setting: c.name, Verdict: r.Verdict})
	}
	out.Robust = rob
	return out, nil
}

// Fig2Claims records the claims of Fig. 2 and Table 3 from the tables of Data, per domain: the DP-Critic
// performs best (beats DP-Actor and DP-Both), DP-Actor falls below Non-DP, DP-Actor's and DP-Both's
// returns spread more than DP-Critic's (Table 3), and, across the domains, the gap between DP-Critic and
// DP-Actor is larger on Taxi; with the sanity check that Non-DP beats the random policy.
func Fig2Claims(out report.Sink, t *Tables) error {
	s, err := read(t)
	if err != nil {
		return err
	}
	var rows []repro.Claim
	test := "test: per-seed return (last 50; a diverged episode at the lowest return), %s − %s > 0, Welch 95%% interval; compared at the same composed ε " +
		"(10 per step, DP-Both 10/√2; as published, the per-patient ε listed is the charitable composition, not a guarantee)"
	for _, d := range Domains() {
		for _, b := range []string{DPActor, DPBoth} {
			r, err := s.beats(d, DPCritic, b, cuts, repro.Claim{Key: fmt.Sprintf("fig2-critic-vs-%s-%s", strings.TrimPrefix(b, "dp-"), d.Name),
				Kind: repro.KindPaper, Where: "§4.2.1, Fig. 2", Quote: "the DP-Critic achieved the highest performance in all environments",
				Claim: fmt.Sprintf("%s: DP-Critic ends above %s (Fig. 2)", d.Label, Label(b)), Paper: "DP-Critic highest",
				Why: fmt.Sprintf(test, "DP-Critic", Label(b))})
			if err != nil {
				return err
			}
			rows = append(rows, r)
		}
		r, err := s.beats(d, NonDP, DPActor, cuts, repro.Claim{Key: "fig2-nondp-vs-actor-" + d.Name, Kind: repro.KindPaper, Where: "§4.2.2, Fig. 2",
			Quote: "DP-Actor exhibited the performance degradation compared with the performance of the non-DP approach",
			Claim: d.Label + ": DP-Actor ends below Non-DP (Fig. 2)", Paper: "degraded", Why: fmt.Sprintf(test, "Non-DP", "DP-Actor")})
		if err != nil {
			return err
		}
		rows = append(rows, r)
		fn, err := s.runs(d, NonDP, cuts[0])
		if err != nil {
			return err
		}
		fr, err := s.runs(d, Random, cuts[0])
		if err != nil {
			return err
		}
		m := welch(fn, fr)
		rows = append(rows, repro.Tested(repro.Claim{Key: "sanity-nondp-" + d.Name, Kind: repro.KindSanity,
			Claim: d.Label + ": Non-DP (tuned) beats the random policy", Paper: "not shown",
			Why: "test: per-seed last-50 return, Non-DP − random policy > 0, Welch 95% interval"}, m.m, m.lo, m.hi, len(fn), "%.1f", 0, true))
		for _, v := range []string{DPActor, DPBoth} {
			r, err := s.spread(d, v)
			if err != nil {
				return err
			}
			rows = append(rows, r)
		}
	}
	r, err := s.gap()
	if err != nil {
		return err
	}
	repro.Record(out, append(rows, r)...)
	return nil
}

// spread is Table 3's row: v's per-seed spread of the episode returns exceeds DP-Critic's on d.
func (s *study) spread(d Domain, v string) (repro.Claim, error) {
	row := func(c cut) (repro.Claim, error) {
		var stds [2][]float64
		for i, cond := range []string{v, DPCritic} {
			get := s.fig2
			if c.table2 {
				get = s.table2
			}
			a, err := get(d, cond)
			if err != nil {
				return repro.Claim{}, err
			}
			stds[i] = a.stds()
		}
		diff := welch(stds[0], stds[1])
		mv, _, _ := experiment.MeanCI(stds[0], 0.95)
		mc, _, _ := experiment.MeanCI(stds[1], 0.95)
		i := map[string]int{DPActor: 1, DPBoth: 3}[v]
		ps, err := privacies(d, "", v, DPCritic)
		if err != nil {
			return repro.Claim{}, err
		}
		return repro.Tested(repro.Claim{Key: fmt.Sprintf("tab3-%s-%s", strings.TrimPrefix(v, "dp-"), d.Name), Kind: repro.KindPaper,
			Where: "§4.2.1, Table 3", Quote: "the learning variances of DP-Both and DP-Actor were greater than those of the DP-Critic",
			Claim: fmt.Sprintf("%s: %s's returns spread more than DP-Critic's (Table 3)", d.Label, Label(v)),
			Paper: fmt.Sprintf("std %.2f vs %.2f", paperStd[d.Name][i], paperStd[d.Name][2]), Privacy: ps,
			Why: fmt.Sprintf("test: per-seed standard deviation of the episode returns, %s − DP-Critic > 0, Welch 95%% interval; ours %.1f vs %.1f",
				Label(v), mv, mc)}, diff.m, diff.lo, diff.hi, len(stds[0]), "%.1f", 0, true), nil
	}
	return s.robustSettings(row)
}

// robustSettings is robust over the step sizes only (the measure does not enter the row).
func (s *study) robustSettings(row func(cut) (repro.Claim, error)) (repro.Claim, error) {
	out, err := row(cuts[0])
	if err != nil {
		return repro.Claim{}, err
	}
	alt, err := row(cuts[2])
	if err != nil {
		return repro.Claim{}, err
	}
	out.Robust = &repro.Robustness{Choice: "step sizes (tuned per condition | Table 2 for all)",
		Alternatives: []repro.Alternative{{Setting: "tuned", Verdict: out.Verdict}, {Setting: "Table 2", Verdict: alt.Verdict}}}
	return out, nil
}

// gap is the cross-domain row: the per-seed gap DP-Critic − DP-Actor is larger on Taxi than on MDP-100.
func (s *study) gap() (repro.Claim, error) {
	doms := Domains()
	row := func(c cut) (repro.Claim, error) {
		var gaps [2][]float64
		var means [2]float64
		for k, d := range doms {
			fc, err := s.runs(d, DPCritic, c)
			if err != nil {
				return repro.Claim{}, err
			}
			fa, err := s.runs(d, DPActor, c)
			if err != nil {
				return repro.Claim{}, err
			}
			gaps[k] = make([]float64, len(fc))
			for r := range fc {
				gaps[k][r] = fc[r] - fa[r]
			}
			means[k], _, _ = experiment.MeanCI(gaps[k], 0.95)
		}
		diff := welch(gaps[1], gaps[0])
		var ps []repro.Privacy
		for _, d := range doms {
			p, err := privacies(d, " on "+d.Label, DPCritic, DPActor)
			if err != nil {
				return repro.Claim{}, err
			}
			ps = append(ps, p...)
		}
		return repro.Tested(repro.Claim{Key: "fig2-gap-taxi", Kind: repro.KindPaper, Where: "§4.2.1, Fig. 2",
			Quote: "the differences in performance estimates corresponding to the … DP-Critic and DP-Actor were larger in Taxi-v2 compared with MDP-100",
			Claim: "DP-Critic's lead over DP-Actor is larger on Taxi than on MDP-100 (Fig. 2)", Paper: "larger on Taxi", Privacy: ps,
			Why: fmt.Sprintf("test: per-seed (DP-Critic − DP-Actor) return, Taxi − MDP-100 > 0, Welch 95%% interval (raw returns; the "+
				"domains' scales differ); gap %.1f on Taxi, %.1f on MDP-100", means[1], means[0])}, diff.m, diff.lo, diff.hi, len(gaps[0]), "%.1f", 0, true), nil
	}
	return robust(cutChoice, cuts, row)
}

// Fig3Claims records the claims of Fig. 3 from the tables of Data, per domain: DP-Actor and DP-Critic each
// keep "almost similar performance" down to the smallest ε the paper calls stable for them (StableShare of
// their ε = 10 gain over the random policy), and DP-Actor degrades less than DP-Critic at the ε where the
// paper calls DP-Actor stable and DP-Critic not. A row needs the ε in the size's grid.
func Fig3Claims(out report.Sink, t *Tables) error {
	s, err := read(t)
	if err != nil {
		return err
	}
	var rows []repro.Claim
	for _, d := range Domains() {
		for _, v := range []string{DPActor, DPCritic} {
			eps := slices.Min(paperStable[d.Name][v])
			if !slices.Contains(s.size.Epsilons, eps) {
				continue
			}
			r, err := s.keeps(d, v, eps)
			if err != nil {
				return err
			}
			rows = append(rows, r)
		}
		// The ε where DP-Actor is called stable and DP-Critic not: the smallest of DP-Actor's range.
		eps := slices.Min(paperStable[d.Name][DPActor])
		if !slices.Contains(s.size.Epsilons, eps) {
			continue
		}
		r, err := s.moreStable(d, eps)
		if err != nil {
			return err
		}
		rows = append(rows, r)
	}
	if s.size.Both && slices.Contains(s.size.Epsilons, 5) && slices.Contains(s.size.Epsilons, 1) {
		r, err := s.bothDrop()
		if err != nil {
			return err
		}
		rows = append(rows, r)
	}
	repro.Record(out, rows...)
	return nil
}

// bothDrop is the cross-domain row: DP-Both's return drops more from ε = 5 to ε = 1 on Taxi than on
// MDP-100 (a paper-scale row: DP-Both's Fig. 3 grid).
func (s *study) bothDrop() (repro.Claim, error) {
	return robust(measureChoice, measureCuts, func(c cut) (repro.Claim, error) {
		var drops [2][]float64
		var ps []repro.Privacy
		for k, d := range Domains() {
			f5, _, _, err := s.fig3Scores(d, DPBoth, 5, c)
			if err != nil {
				return repro.Claim{}, err
			}
			f1, _, _, err := s.fig3Scores(d, DPBoth, 1, c)
			if err != nil {
				return repro.Claim{}, err
			}
			drops[k] = make([]float64, len(f5))
			for r := range f5 {
				drops[k][r] = f5[r] - f1[r]
			}
			for _, e := range []float64{5, 1} {
				p, err := MethodPrivacy(d, DPBoth, e)
				if err != nil {
					return repro.Claim{}, err
				}
				p.Method += fmt.Sprintf(" on %s, ε = %g", d.Label, e)
				ps = append(ps, p)
			}
		}
		diff := welch(drops[1], drops[0])
		return repro.Tested(repro.Claim{Key: "fig3-both-drop-taxi", Kind: repro.KindPaper, Where: "§4.2.1, Fig. 3",
			Quote: "it demonstrated more significant performance degradation from e = 5 to e = 1 in Taxi-v2 compared with the results corresponding to MDP-100",
			Claim: "DP-Both loses more from ε = 5 to ε = 1 on Taxi than on MDP-100 (Fig. 3)", Paper: "larger drop on Taxi", Privacy: ps,
			Why: "test: per-seed drop of DP-Both's return from ε = 5 to ε = 1 (per step of DP-Actor and DP-Critic; DP-Both at ε/√2), Taxi − MDP-100 > 0, " +
				"Welch 95% interval (raw returns; the domains' scales differ)"}, diff.m, diff.lo, diff.hi, len(drops[0]), "%.1f", 0, true), nil
	})
}

// fig3Scores is variant v's per-seed scores at nominal ε on d (Fig. 2's runs at ε = 10) over the window of
// cut c, and the random policy's.
func (s *study) fig3Scores(d Domain, v string, eps float64, c cut) (f, rnd []float64, diverged int, err error) {
	a, err := s.fig3(d, v, eps)
	if err != nil {
		return nil, nil, 0, err
	}
	r, err := s.fig2(d, Random)
	if err != nil {
		return nil, nil, 0, err
	}
	w := min(Window, s.size.Episodes)
	if c.all {
		w = s.size.Episodes
	}
	return a.scores(d, w), r.scores(d, w), a.diverged(), nil
}

// measureCuts are the cuts of Fig. 3's rows: the paper fixes each condition's tuned step sizes for Fig. 3,
// so only the measure is open.
var measureCuts = []cut{cuts[0], cuts[1]}

// measureChoice names what measureCuts vary.
const measureChoice = "measure (last-50 return | mean over all episodes)"

// keeps is the row "v keeps almost similar performance down to eps" on d (StableShare).
func (s *study) keeps(d Domain, v string, eps float64) (repro.Claim, error) {
	return robust(measureChoice, measureCuts, func(c cut) (repro.Claim, error) {
		f, rnd, div, err := s.fig3Scores(d, v, eps, c)
		if err != nil {
			return repro.Claim{}, err
		}
		f10, _, _, err := s.fig3Scores(d, v, d.Base.Epsilon, c)
		if err != nil {
			return repro.Claim{}, err
		}
		ref := make([]float64, len(f10))
		for r := range ref {
			ref[r] = StableShare*f10[r] + (1-StableShare)*rnd[r]
		}
		diff, gain := welch(f, ref), welch(f10, rnd)
		var ps []repro.Privacy
		for _, e := range []float64{eps, d.Base.Epsilon} {
			p, err := MethodPrivacy(d, v, e)
			if err != nil {
				return repro.Claim{}, err
			}
			p.Method += fmt.Sprintf(", ε = %g per step", e)
			ps = append(ps, p)
		}
		row := repro.Tested(repro.Claim{Key: fmt.Sprintf("fig3-range-%s-%s", strings.TrimPrefix(v, "dp-"), d.Name), Kind: repro.KindPaper,
			Where: "§4.2.1, Fig. 3", Quote: "DP-Actor exhibited almost similar performance estimates in a wider privacy budget range",
			Claim: fmt.Sprintf("%s: %s at ε = %g per step performs almost as at ε = 10 (Fig. 3)", d.Label, Label(v), eps),
			Paper: fmt.Sprintf("similar for ε ∈ {%s}", joinFloats(paperStable[d.Name][v])), Privacy: ps,
			Why: fmt.Sprintf("test (ours; the paper gives no margin): it keeps ≥ %.0f%% of its ε = 10 gain over the random policy: per-seed return − "+
				"(%.1f × its ε = 10 return + %.1f × the random policy's) > 0, Welch 95%% interval; its ε = 10 gain over the random policy %s",
				100*StableShare, StableShare, 1-StableShare, gain.repro())}, diff.m, diff.lo, diff.hi, len(f), "%.1f", 0, true)
		if div > 0 {
			row.Why += fmt.Sprintf("; %d/%d runs at ε = %g overflowed and count at the lowest return", div, len(f), eps)
		}
		if !(gain.lo > 0) {
			// Keeping a share of no gain says nothing: the same rule as a comparison's trivial reference.
			row.Why = fmt.Sprintf("uninformative: %s at ε = 10 ≈ random policy; the test alone: %s. %s", Label(v), row.Verdict, row.Why)
			row.Verdict = repro.Inconclusive
		}
		return row, nil
	})
}

// moreStable is the row "DP-Actor degrades less than DP-Critic from ε = 10 to eps" on d.
func (s *study) moreStable(d Domain, eps float64) (repro.Claim, error) {
	return robust(measureChoice, measureCuts, func(c cut) (repro.Claim, error) {
		var drop [2][]float64
		var fActor, rnd []float64
		var divs []string
		for k, v := range []string{DPCritic, DPActor} {
			f, r, div, err := s.fig3Scores(d, v, eps, c)
			if err != nil {
				return repro.Claim{}, err
			}
			f10, _, _, err := s.fig3Scores(d, v, d.Base.Epsilon, c)
			if err != nil {
				return repro.Claim{}, err
			}
			drop[k] = make([]float64, len(f))
			for j := range f {
				drop[k][j] = f10[j] - f[j]
			}
			if v == DPActor {
				fActor, rnd = f, r
			}
			divs = append(divs, fmt.Sprintf("%s %d/%d", Label(v), div, len(f)))
		}
		diff, margin := welch(drop[0], drop[1]), welch(fActor, rnd)
		var ps []repro.Privacy
		for _, v := range []string{DPActor, DPCritic} {
			p, err := MethodPrivacy(d, v, eps)
			if err != nil {
				return repro.Claim{}, err
			}
			ps = append(ps, p)
		}
		mc, _, _ := experiment.MeanCI(drop[0], 0.95)
		ma, _, _ := experiment.MeanCI(drop[1], 0.95)
		row := repro.Decide(repro.Tested(repro.Claim{Key: "fig3-actor-vs-critic-" + d.Name, Kind: repro.KindPaper, Where: "§4.2.1, Fig. 3",
			Quote: "the performance degradation corresponding to the lower privacy budget in the case of DP-Actor deemed to be more stable compared with DP-Critic",
			Claim: fmt.Sprintf("%s: from ε = 10 to ε = %g per step DP-Actor loses less than DP-Critic (Fig. 3)", d.Label, eps),
			Paper: fmt.Sprintf("DP-Actor stable at %g, DP-Critic not", eps), Privacy: ps,
			Compare: &repro.Comparison{A: "DP-Actor", B: "DP-Critic", Trivial: "random policy", Margin: margin.repro()},
			Why: fmt.Sprintf("test: per-seed drop of the return from ε = 10 to ε = %g, DP-Critic's − DP-Actor's > 0, Welch 95%% interval; "+
				"drops: DP-Critic %.1f, DP-Actor %.1f; weights overflowed at ε = %g: %s; the margin is DP-Actor's at ε = %g over the random policy",
				eps, mc, ma, eps, strings.Join(divs, ", "), eps)}, diff.m, diff.lo, diff.hi, len(drop[0]), "%.1f", 0, true))
		return row, nil
	})
}

// Fig4Claims records the claims of Fig. 4 and Table 4 from the tables of Data: per domain, DP-Actor's and
// DP-Both's actor traces are nearly orthogonal to Non-DP's (|cosine| < 0.1) and DP-Critic's critic traces are
// more similar to Non-DP's than DP-Actor's actor traces are; across the domains, DP-Critic's similarity is
// lower on Taxi. The cosine is the caption's (traces averaged over the runs per episode, mean over episodes,
// jackknife interval over the runs); the paired per-seed cosine is the alternative reading. A verdict is
// inconclusive where the non-private reference pair (Non-DP on other seeds) passes the same test.
func Fig4Claims(out report.Sink, t *Tables) error {
	s, err := read(t)
	if err != nil {
		return err
	}
	var rows []repro.Claim
	cosOf := func(d Domain, cond string, actor, caption bool) (interval, []float64, error) {
		a, err := s.fig2(d, cond)
		if err != nil {
			return interval{}, nil, err
		}
		if caption {
			c := a.caption(actor)
			return interval{c.mean, c.lo, c.hi}, c.without, nil
		}
		p := a.paired(actor)
		m, lo, hi := experiment.MeanCI(p, 0.95)
		return interval{m, lo, hi}, p, nil
	}
	procedures := []struct {
		name    string
		caption bool
	}{{"caption (traces averaged over runs)", true}, {"paired per seed", false}}
	for _, d := range Domains() {
		for _, v := range []string{DPActor, DPBoth} {
			var row repro.Claim
			rob := &repro.Robustness{Choice: "cosine procedure (caption | paired per seed)"}
			for i, p := range procedures {
				c, _, err := cosOf(d, v, true, p.caption)
				if err != nil {
					return err
				}
				ref, _, err := cosOf(d, NonDPOtherSeed, true, p.caption)
				if err != nil {
					return err
				}
				lo, hi := absInterval(c)
				rlo, rhi := absInterval(ref)
				k := map[string]int{DPActor: 0, DPBoth: 2}[v]
				ps, err := privacies(d, "", v, NonDP)
				if err != nil {
					return err
				}
				r := repro.Tested(repro.Claim{Key: fmt.Sprintf("tab4-%s-%s", strings.TrimPrefix(v, "dp-"), d.Name), Kind: repro.KindFigure, Privacy: ps,
					Where: "Table 4, Fig. 4", Claim: fmt.Sprintf("%s: %s's actor traces are nearly orthogonal to Non-DP's (|cosine| < 0.1; read off Table 4)", d.Label, Label(v)),
					Paper: paperCos[d.Name][k],
					Why: fmt.Sprintf("test: |cosine| of e_u with Non-DP's, %s, mean over episodes, 95%% interval below 0.1; the reference pair "+
						"(Non-DP on other seeds) gives |%.4f| [%.4f, %.4f]", p.name, ref.m, rlo, rhi)}, math.Abs(c.m), lo, hi, s.size.Runs, "%.4f", 0.1, false)
				if repro.Verdict(rlo, rhi, 0.1, false) == repro.Reproduced {
					r.Why = fmt.Sprintf("the non-private reference pair passes too: a change of seed is as orthogonal; the test alone: %s. %s", r.Verdict, r.Why)
					r.Verdict = repro.Inconclusive
				}
				if i == 0 {
					row = r
				}
				rob.Alternatives = append(rob.Alternatives, repro.Alternative{Setting: p.name, Verdict: r.Verdict})
			}
			row.Robust = rob
			rows = append(rows, row)
		}
		// DP-Critic's e_v against DP-Actor's e_u: the difference of the two cosines, jackknifed jointly.
		var row repro.Claim
		rob := &repro.Robustness{Choice: "cosine procedure (caption | paired per seed)"}
		for i, p := range procedures {
			cc, wc, err := cosOf(d, DPCritic, false, p.caption)
			if err != nil {
				return err
			}
			ca, wa, err := cosOf(d, DPActor, true, p.caption)
			if err != nil {
				return err
			}
			var diff interval
			if p.caption {
				w := make([]float64, len(wc))
				for r := range w {
					w[r] = wc[r] - wa[r]
				}
				diff.m = cc.m - ca.m
				diff.lo, diff.hi = Jackknife(diff.m, w)
			} else {
				diff = welch(wc, wa)
			}
			ps, err := privacies(d, "", DPCritic, DPActor)
			if err != nil {
				return err
			}
			r := repro.Tested(repro.Claim{Key: "tab4-critic-vs-actor-" + d.Name, Kind: repro.KindPaper, Where: "§4.2.2, Table 4", Privacy: ps,
				Quote: "the cosine similarity of DP-Critic differed considerably from that of DP-Actor with higher similarity values",
				Claim: d.Label + ": DP-Critic's critic traces are more similar to Non-DP's than DP-Actor's actor traces are (Table 4)",
				Paper: fmt.Sprintf("%s vs %s", paperCos[d.Name][1], paperCos[d.Name][0]),
				Why: fmt.Sprintf("test: cosine of DP-Critic's e_v − cosine of DP-Actor's e_u > 0 (%s; jackknife or Welch 95%% interval); %.4f vs %.4f",
					p.name, cc.m, ca.m)}, diff.m, diff.lo, diff.hi, s.size.Runs, "%.4f", 0, true)
			if i == 0 {
				row = r
			}
			rob.Alternatives = append(rob.Alternatives, repro.Alternative{Setting: p.name, Verdict: r.Verdict})
		}
		row.Robust = rob
		rows = append(rows, row)
	}
	// DP-Critic's similarity is lower on Taxi than on MDP-100; the reference: Non-DP on other seeds' e_v.
	doms := Domains()
	var row repro.Claim
	rob := &repro.Robustness{Choice: "cosine procedure (caption | paired per seed)"}
	for i, p := range procedures {
		var d2 [2]interval
		for k, cond := range []string{DPCritic, NonDPOtherSeed} {
			mdp, wm, err := cosOf(doms[0], cond, false, p.caption)
			if err != nil {
				return err
			}
			taxi, wt, err := cosOf(doms[1], cond, false, p.caption)
			if err != nil {
				return err
			}
			d2[k] = crossDomain(taxi, mdp, wt, wm, p.caption)
		}
		var ps []repro.Privacy
		for _, d := range doms {
			p, err := privacies(d, " on "+d.Label, DPCritic)
			if err != nil {
				return err
			}
			ps = append(ps, p...)
		}
		r := repro.Tested(repro.Claim{Key: "tab4-critic-taxi", Kind: repro.KindPaper, Where: "§4.2.2, Table 4", Privacy: ps,
			Quote: "DP-Critic exhibited lower similarity in the case Taxi-v2 compared with MDP-100",
			Claim: "DP-Critic's critic traces are less similar to Non-DP's on Taxi than on MDP-100 (Table 4)",
			Paper: fmt.Sprintf("%s vs %s", paperCos["taxi"][1], paperCos["mdp100"][1]),
			Why: fmt.Sprintf("test: cosine of DP-Critic's e_v with Non-DP's, Taxi − MDP-100 < 0 (%s; the domains' runs are independent: the "+
				"half-widths' root sum of squares); the reference pair (Non-DP on other seeds) gives %.4f [%.4f, %.4f]", p.name, d2[1].m, d2[1].lo, d2[1].hi)},
			d2[0].m, d2[0].lo, d2[0].hi, s.size.Runs, "%.4f", 0, false)
		if repro.Verdict(d2[1].lo, d2[1].hi, 0, false) == repro.Reproduced {
			r.Why = fmt.Sprintf("the non-private reference pair passes too: the domain, not the noise, lowers the cosine; the test alone: %s. %s", r.Verdict, r.Why)
			r.Verdict = repro.Inconclusive
		}
		if i == 0 {
			row = r
		}
		rob.Alternatives = append(rob.Alternatives, repro.Alternative{Setting: p.name, Verdict: r.Verdict})
	}
	row.Robust = rob
	repro.Record(out, append(rows, row)...)
	return nil
}

// privacies are the privacy entries of conds on d at ε = 10 per step (MethodPrivacy), each named with
// suffix.
func privacies(d Domain, suffix string, conds ...string) ([]repro.Privacy, error) {
	var ps []repro.Privacy
	for _, c := range conds {
		p, err := MethodPrivacy(d, c, d.Base.Epsilon)
		if err != nil {
			return nil, err
		}
		p.Method += suffix
		ps = append(ps, p)
	}
	return ps, nil
}

// absInterval is the interval of |x| from x's interval.
func absInterval(x interval) (lo, hi float64) {
	a, b := math.Abs(x.lo), math.Abs(x.hi)
	if x.lo <= 0 && x.hi >= 0 {
		return 0, math.Max(a, b)
	}
	return math.Min(a, b), math.Max(a, b)
}

// crossDomain is a − b for two independent domains' cosines: for the caption's jackknife intervals, the
// half-widths combined as a root sum of squares; for the paired per-seed values, Welch's interval.
func crossDomain(a, b interval, wa, wb []float64, caption bool) interval {
	if !caption {
		return welch(wa, wb)
	}
	ha, hb := (a.hi-a.lo)/2, (b.hi-b.lo)/2
	h := math.Hypot(ha, hb)
	return interval{a.m - b.m, a.m - b.m - h, a.m - b.m + h}
}

// Fig5Claims records Fig. 5's claim from the tables of Data, per domain: DP-Actor acting ε-greedily learns
// faster than acting by softmax (the mean return over all episodes, the area under the learning curve),
// each at its own tuned step sizes, at ε = 10 per step.
func Fig5Claims(out report.Sink, t *Tables) error {
	s, err := read(t)
	if err != nil {
		return err
	}
	var rows []repro.Claim
	for _, d := range Domains() {
		// The claim is about speed: the measure is the mean over all episodes first.
		r, err := s.beats(d, DPActor, DPActorSoftmax, []cut{cuts[1], cuts[0], cuts[3], cuts[2]}, repro.Claim{Key: "fig5-" + d.Name,
			Kind: repro.KindPaper, Where: "§4.2.3, Fig. 5",
			Quote: "if we set the policy to be the e-greedy, the DP-Actor only converges to local optimal faster than soft-max one",
			Claim: d.Label + ": DP-Actor learns faster acting ε-greedily than by softmax (Fig. 5)", Paper: "ε-greedy faster",
			Why: "test: per-seed mean return over all episodes (the area under the learning curve), ε-greedy − softmax > 0, Welch 95% interval; " +
				"both at ε = 10 per step"})
		if err != nil {
			return err
		}
		rows = append(rows, r)
	}
	repro.Record(out, rows...)
	return nil
}

// CorrectedClaims records our analysis of the corrected variant from the tables of Data: per domain,
// whether it beats the random policy at the strictest ε per patient the size runs (Sizes.Corrected), with
// the verdict under the other measure (the mean over all episodes) and at each other ε in its robust column.
func CorrectedClaims(out report.Sink, t *Tables) error {
	s, err := read(t)
	if err != nil {
		return err
	}
	eps := slices.Min(s.size.Corrected)
	var rows []repro.Claim
	for _, d := range Domains() {
		beats := func(e float64, all bool) (repro.Claim, error) {
			a, err := s.get(d, Corrected, Table2, e)
			if err != nil {
				return repro.Claim{}, err
			}
			f, err := s.runs(d, Random, cut{all: all})
			if err != nil {
				return repro.Claim{}, err
			}
			w, measure := min(Window, s.size.Episodes), "last-50 return"
			if all {
				w, measure = s.size.Episodes, "mean return over all episodes"
			}
			m := welch(a.scores(d, w), f)
			return repro.Tested(repro.Claim{Key: "corrected-" + d.Name, Kind: repro.KindAnalysis,
				Claim: fmt.Sprintf("%s: the corrected variant at ε = %g per patient beats the random policy", d.Label, e), Paper: "not in the paper",
				Why: fmt.Sprintf("test: per-seed %s, corrected − random policy > 0, Welch 95%% interval; Table 2's step sizes (worked setting, ours)", measure)},
				m.m, m.lo, m.hi, len(f), "%.1f", 0, true), nil
		}
		row, err := beats(eps, false)
		if err != nil {
			return err
		}
		// The verdict under the other measure, and at each other ε per patient the size runs.
		rb := &repro.Robustness{Choice: "measure (last-50 return | mean over all episodes) and the ε per patient (ours; the paper runs no corrected variant)"}
		for _, e := range s.size.Corrected {
			for _, all := range []bool{false, true} {
				if e == eps && !all {
					continue
				}
				alt, err := beats(e, all)
				if err != nil {
					return err
				}
				name := fmt.Sprintf("ε = %g, last 50", e)
				if all {
					name = fmt.Sprintf("ε = %g, all episodes", e)
				}
				rb.Alternatives = append(rb.Alternatives, repro.Alternative{Setting: name, Verdict: repro.Decide(alt).Verdict})
			}
		}
		row.Robust = rb
		rows = append(rows, row)
	}
	repro.Record(out, rows...)
	return nil
}

// joinFloats lists x as "10, 5, 1".
func joinFloats(x []float64) string {
	s := make([]string, len(x))
	for i, v := range x {
		s[i] = fmt.Sprint(v)
	}
	return strings.Join(s, ", ")
}
