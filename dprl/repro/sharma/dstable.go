package sharma

import (
	"fmt"
	"slices"

	"github.com/dprl-project/dprl/dprl/experiment"
	"github.com/dprl-project/dprl/dprl/expertdp"
	"github.com/dprl-project/dprl/dprl/figure"
	"github.com/dprl-project/dprl/dprl/report"
	"github.com/dprl-project/dprl/dprl/repro"
	"github.com/dprl-project/dprl/dprl/sweep"
)

// releaseCell is one cell of the |D_stable| table: environment, ε, m and public bound L.
type releaseCell struct {
	env  string
	eps  float64
	m, L int
}

// releases reads DStable.Releases: per cell, |D_stable| and the longest stable prefix of each release, and
// the cells in order of first appearance.
func releases(t *experiment.Table) (stable, longest map[releaseCell][]float64, cells []releaseCell, err error) {
	c, err := sweep.NewReader(t, "env", "epsilon", "m", "L", "release", "stable", "longest")
	if err != nil {
		return nil, nil, nil, err
	}
	stable, longest = map[releaseCell][]float64{}, map[releaseCell][]float64{}
	for r := range c.Len() {
		k := releaseCell{c.String(r, "env"), c.Float(r, "epsilon"), c.Int(r, "m"), c.Int(r, "L")}
		if _, ok := stable[k]; !ok {
			cells = append(cells, k)
		}
		stable[k] = append(stable[k], c.Float(r, "stable"))
		longest[k] = append(longest[k], c.Float(r, "longest"))
	}
	return stable, longest, cells, c.Err()
}

// demoLen is env's public bound L (Domain.DemoLen).
func demoLen(env string) int {
	d, err := expertdp.DomainByName(env)
	if err != nil {
		return 0
	}
	return d.DemoLen
}

// DStableFigure shows DStableData's data: the logs, |D_stable| over ε and m (with LunarLander's alternative
// bound L), a plot of it for CartPole and Acrobot, and HIV's runs.
func DStableFigure(out report.Sink, d *DStable) error {
	if d == nil || d.Logs == nil || d.Releases == nil {
		return check.Missing("d", "DStableData's logs and releases")
	}
	lc, err := sweep.NewReader(d.Logs, d.Logs.Columns...)
	if err != nil {
		return err
	}
	var rows [][]string
	for r := range lc.Len() {
		rows = append(rows, []string{lc.String(r, "env"), lc.String(r, "per_expert"), lc.String(r, "transitions"), lc.String(r, "L"), lc.String(r, "longest"),
			fmt.Sprintf("%.4g", lc.Float(r, "random_return")), fmt.Sprintf("%.4g", lc.Float(r, "expert_return")),
			fmt.Sprintf("%.4g / %.4g / %.4g", lc.Float(r, "q05"), lc.Float(r, "q50"), lc.Float(r, "q95"))})
	}
	if err := lc.Err(); err != nil {
		return err
	}
	out.Table([]string{"env", "N per expert", "transitions", "L (public bound)", "longest demonstration (data, display only)", "random return (0)",
		"best expert (1)", "expert returns 5% / 50% / 95% (data)"}, rows)
	stable, longest, cells, err := releases(d.Releases)
	if err != nil {
		return err
	}
	var ms []int
	type row struct {
		env string
		eps float64
		L   int
	}
	var order []row
	for _, c := range cells {
		if !slices.Contains(ms, c.m) {
			ms = append(ms, c.m)
		}
		if k := (row{c.env, c.eps, c.L}); !slices.Contains(order, k) {
			order = append(order, k)
		}
	}
	slices.Sort(ms)
	header := []string{"env", "ε", "L"}
	for _, m := range ms {
		header = append(header, fmt.Sprintf("m = %d", m))
	}
	rows = nil
	var series []figure.Series
	for _, k := range order {
		cells := []string{k.env, fmt.Sprint(k.eps), fmt.Sprint(k.L)}
		var xs []float64
		var ys [][]float64
		for _, m := range ms {
			c := releaseCell{k.env, k.eps, m, k.L}
			s, ok := stable[c]
			if !ok {
				cells = append(cells, "—")
				continue
			}
			mean, _, _ := experiment.MeanCI(s, 0.95)
			cells = append(cells, fmt.Sprintf("%.0f (longest %.0f)", mean, slices.Max(longest[c])))
			xs = append(xs, float64(m))
			for i, v := range s {
				for len(ys) <= i {
					ys = append(ys, nil)
				}
				ys[i] = append(ys[i], v)
			}
		}
		rows = append(rows, cells)
		if (k.env == "cartpole" || k.env == "acrobot") && len(xs) > 1 {
			series = append(series, figure.Series{Name: fmt.Sprintf("%s ε = %g", envNames[k.env], k.eps), X: xs, Y: ys})
		}
	}
	out.Markdown("|D_stable| in transitions, mean over the releases (ε1 from the paper's split; the 3/4 split where the paper runs no release, as in " +
		"Table 2's low-ε rows; Acrobot ε1 = ε), and the longest stable prefix; L is the public bound on a demonstration's length (LunarLander's also at " +
		fmt.Sprintf("the alternative L = %d):", altL))
	out.Table(header, rows)
	if len(series) > 0 {
		p, err := figure.Curves(figure.Options{Title: "Size of D_stable (T examined trajectories; 95% CI over releases)", XLabel: "number of experts m",
			YLabel: "stable transitions", Band: figure.BandCI95}, series...)
		if err != nil {
			return err
		}
		if err := out.Figure(p); err != nil {
			return err
		}
	}
	if d.Runs == nil {
		return nil
	}
	r, err := readRuns(d.Runs)
	if err != nil {
		return err
	}
	sets := append([]Setting{untrainedSetting("hiv", expertdp.CQL), npSetting("hiv", expertdp.CQL, 0)}, hivOurs(r.noise("dstable"))...)
	out.Markdown("HIV, CQL, ε = 10: ours on D_stable alone under §6.1's split (the whole budget released) and under App. B.3's (3/4 released, p = 0, " +
		"ε/4 left to fall back on). " + r.pointsCaption(sets))
	out.Table(SummaryHeader, r.summary(sets))
	return nil
}

// hivOurs are HIV's two splits of ours in regime n: §6.1's (D_stable alone) and App. B.3's.
func hivOurs(n Noise) []Setting {
	return []Setting{withNoise(StableOnlyJob("hiv", expertdp.CQL, 10), n, 0), withNoise(OursJob("hiv", expertdp.CQL, 10), n, 0)}
}

// DStableClaims records the claims about the stable set from DStableData's data: LunarLander's is empty
// (Table 2's "inf"), its alternative the shorter bound L; Acrobot's and HIV's are not (sanity checks: the
// condition of "D_stable suffices"; HIV's from the releases of its runs at §6.1's split); and on HIV,
// D_stable alone matches the non-private learner (§6.1's split, its alternative App. B.3's). Each |D_stable|
// row is decided by the 95% t-interval of the mean |D_stable| over releases at ε = 10 and m = 3000 against
// half a transition.
func DStableClaims(out report.Sink, d *DStable) error {
	if d == nil || d.Releases == nil {
		return check.Missing("d", "DStableData's releases")
	}
	stable, longest, _, err := releases(d.Releases)
	if err != nil {
		return err
	}
	tested := func(c repro.Claim, env string, L int, above bool) repro.Claim {
		k := releaseCell{env, 10, NumExperts, L}
		s := stable[k]
		m, lo, hi := experiment.MeanCI(s, 0.95)
		side := "above"
		if !above {
			side = "below"
		}
		long := 0.0
		if len(longest[k]) > 0 {
			long = slices.Max(longest[k])
		}
		c.Why = fmt.Sprintf("test stated before the run: 95%% t-interval of mean |D_stable| (transitions) over %d releases (ε = 10, m = 3000, L = %d) %s 0.5; "+
			"longest stable prefix %.0f", len(s), L, side, long)
		return repro.Tested(c, m, lo, hi, len(s), "%.3g", 0.5, above)
	}
	lunar := tested(repro.Claim{Key: "stable-lunar", Kind: repro.KindPaper, Where: "Table 2", Quote: quoteInf,
		Claim: "LunarLander ε = 10, m = 3000: D_stable empty (Table 2: p = 0 is infeasible)", Paper: "inf at p = 0"}, "lunarlander", demoLen("lunarlander"), false)
	if lunar.Verdict == repro.NotReproduced {
		alt := tested(repro.Claim{}, "lunarlander", altL, false)
		lunar.Robust = &repro.Robustness{Choice: "demonstration bound L (the paper states none; ours 1000)",
			Alternatives: []repro.Alternative{{Setting: fmt.Sprintf("L = %d", altL), Verdict: alt.Verdict}}}
		if alt.Seeds == 0 {
			lunar.Robust.Alternatives[0].Verdict = "no runs"
		}
	}
	rows := []repro.Claim{lunar,
		tested(repro.Claim{Key: "stable-acro", Kind: repro.KindSanity, Claim: "Acrobot ε = 10, m = 3000: D_stable non-empty (the condition of training on it alone)",
			Paper: "p = 0 best (Table 1)"}, "acrobot", demoLen("acrobot"), true),
	}
	if d.Runs == nil {
		repro.Record(out, rows...)
		return nil
	}
	r, err := readRuns(d.Runs)
	if err != nil {
		return err
	}
	n := r.noise("dstable")
	ours := hivOurs(n)
	hiv := r.evaluate(test{claim: repro.Claim{Key: "stable-hiv", Kind: repro.KindSanity,
		Claim: "HIV ε = 10, m = 3000: D_stable non-empty at §6.1's split (the condition of training on it alone)", Paper: "CQL p = 0 best (Table 1)",
		Why: "test stated before the run: 95% t-interval of mean |D_stable| (transitions) over the releases of the runs on D_stable alone (ε1 = 10, T = 50, " +
			"L = 50) above 0.5"}, groups: []Setting{ours[0]}, coef: []float64{1}, boundary: 0.5, above: true, stable: true})
	b3 := alternative{name: "App. B.3's split (ε1 = 3ε/4, p = 0, the fallback's budget ε/4)", sub: func(s Setting) (Setting, bool) {
		if s == ours[0] {
			return ours[1], true
		}
		return s, false
	}}
	repro.Record(out, append(rows, hiv, r.decide(sufficesTest("hiv", expertdp.CQL, ours[0], &b3, setupNote(n, r.steps("dstable")))))...)
	return nil
}
