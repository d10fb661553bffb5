package seoyang2020

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/dprl-project/dprl/dprl/actorcritic"
	"github.com/dprl-project/dprl/dprl/experiment"
	"github.com/dprl-project/dprl/dprl/figure"
	"github.com/dprl-project/dprl/dprl/report"
	"github.com/dprl-project/dprl/mechanisms"
)

// The paper's numbers, by domain name: Table 3's performance standard deviation for Non-DP, DP-Actor,
// DP-Critic, DP-Both; Table 4's cosines, mean (variance), for DP-Actor e_u, DP-Critic e_v, DP-Both e_u and
// DP-Both e_v; and the per-step ε at which Fig. 3 calls DP-Actor and DP-Critic stable.
var (
	paperStd    = map[string][]float64{"mdp100": {30.26, 68.04, 27.1, 66.63}, "taxi": {43.47, 57.21, 50.03, 52.72}}
	paperCos    = map[string][]string{"mdp100": {"0.021 (0.0042)", "0.839 (0.006)", "0.014 (0.003)", "0.497 (0.006)"}, "taxi": {"-0.0008 (0.0003)", "0.035 (0.001)", "-0.0001 (0.0003)", "0.0146 (0.0007)"}}
	paperStable = map[string]map[string][]float64{"mdp100": {DPActor: {10, 5, 1, 0.5}, DPCritic: {10, 5, 1}}, "taxi": {DPActor: {10, 5, 1}, DPCritic: {10, 5}}}
)

// NoiseScaleTable shows, at δ = 1e−6 and ε ∈ {10, 5, 1, 0.5, 0.1}, the noise multiplier of |C| by eq. (3)
// (used), by the §2.1 typo, and by the analytic Gaussian mechanism for sensitivity 1 and for replace-one's 2.
func NoiseScaleTable(out report.Sink) error {
	var rows [][]string
	for _, eps := range []float64{10, 5, 1, 0.5, 0.1} {
		a1, err := mechanisms.AnalyticGaussianSigma(eps, Delta, 1)
		if err != nil {
			return err
		}
		a2, err := mechanisms.AnalyticGaussianSigma(eps, Delta, 2)
		if err != nil {
			return err
		}
		rows = append(rows, []string{fmt.Sprint(eps), fmt.Sprintf("%.3f", actorcritic.PublishedSigma(eps, Delta)),
			fmt.Sprintf("%.1f", TypoSigma(eps, Delta)), fmt.Sprintf("%.3f", a1), fmt.Sprintf("%.3f", a2)})
	}
	out.Markdown("σ (noise multiplier of |C|) at δ = 1e-6:")
	out.Table([]string{"ε", "eq. (3), used", "§2.1 typo", "analytic, Δ = 1", "analytic, Δ = 2 (replace-one)"}, rows)
	return nil
}

// TuningTable shows the tuning of Data: per domain and tuned condition, each setting of the grid with the
// mean over the tuning runs of the mean return over all episodes (the criterion) and its 95% interval, the
// runs whose weights overflowed, and the setting chosen.
func TuningTable(out report.Sink, t *Tables) error {
	s, err := read(t)
	if err != nil {
		return err
	}
	cols, err := columns(t.Tuning, tuningColumns...)
	if err != nil {
		return err
	}
	type cell struct {
		scores []float64
		div    int
	}
	cells := map[string]*cell{}
	for _, row := range t.Tuning.Rows {
		k := strings.Join([]string{row[cols[0]], row[cols[1]], row[cols[2]], row[cols[3]]}, "/")
		if cells[k] == nil {
			cells[k] = &cell{}
		}
		v, err := strconv.ParseFloat(row[cols[5]], 64)
		if err != nil {
			return fmt.Errorf("seoyang2020: tuning row %v: %w", row, err)
		}
		cells[k].scores = append(cells[k].scores, v)
		if row[cols[6]] == "1" {
			cells[k].div++
		}
	}
	out.Markdown(fmt.Sprintf("**Tuning** (worked setting, ours: the grid is a 2 × 2 corner of Table 1). Each condition is tuned on its own "+
		"by the paper's criterion, the best mean return over all %d episodes averaged over the runs, on %d tuning runs per setting "+
		"(streams rand.NewPCG(%d, r), disjoint from the evaluation's). The environments are simulators: the tuning reads no private "+
		"data and costs no privacy.", s.size.Episodes, s.size.TuneRuns, TuneSeed))
	var rows [][]string
	for _, d := range Domains() {
		for _, c := range TunedConditions() {
			for _, g := range d.TuningGrid() {
				k := strings.Join([]string{d.Name, c, epsKey(g.AlphaU), epsKey(g.AlphaV)}, "/")
				x := cells[k]
				if x == nil {
					return fmt.Errorf("seoyang2020: the tuning table has no runs of %s", k)
				}
				mark := ""
				if s.chosen[d.Name+"/"+c] == g {
					mark = "✓"
				}
				if g == d.Table2() {
					mark += " (Table 2)"
				}
				rows = append(rows, []string{d.Label, Label(c), g.String(), ci(x.scores, "%.1f"), fmt.Sprintf("%d/%d", x.div, len(x.scores)), mark})
			}
		}
	}
	out.Table([]string{"domain", "condition", "step sizes", "mean return, all episodes", "weights overflowed", "chosen"}, rows)
	return nil
}

// Fig2 shows Fig. 2 and Table 3 from the tables of Data: per domain, the learning curves of Non-DP, DP-Actor,
// DP-Critic, DP-Both and the random policy, each at its tuned step sizes and at the same composed ε (10 per
// step; DP-Both 10/√2), with 95% bands; under each figure the runs whose weights overflowed; and Table 3:
// the paper's spread beside ours (over all runs and episodes, and per seed) and the first- and last-50
// returns.
func Fig2(out report.Sink, t *Tables) error {
	s, err := read(t)
	if err != nil {
		return err
	}
	window := min(Window, s.size.Episodes)
	for _, d := range Domains() {
		var names []string
		var sets []*runSet
		for _, c := range Fig2Conditions() {
			a, err := s.fig2(d, c)
			if err != nil {
				return err
			}
			names, sets = append(names, Label(c)), append(sets, a)
		}
		if err := learningCurves(out, fmt.Sprintf("Fig. 2 — %s, ε = 10 per step (%d seeds)", d.Label, s.size.Runs), names, sets); err != nil {
			return err
		}
		out.Markdown(seedNote(s.size.Runs) + " " + divergedNote(names, sets) + " Step sizes: " + s.settingsNote(d, Fig2Conditions()) +
			fmt.Sprintf(" DP-Both runs at ε = %.3g per step, the composed ε of DP-Actor and DP-Critic at 10.", StepEpsilon(DPBoth, 10)))
		var rows [][]string
		for i, a := range sets {
			var all []float64
			first := make([]float64, len(a.results))
			for r, res := range a.results {
				all = appendFinite(all, res.Returns)
				first[r] = mean(appendFinite(nil, res.Returns[:window]))
			}
			paper := "—"
			if i < 4 {
				paper = fmt.Sprintf("%.2f", paperStd[d.Name][i])
			}
			rows = append(rows, []string{names[i], paper, fmt.Sprintf("%.2f", ReturnStd(all)), ci(a.stds(), "%.1f"), ci(first, "%.1f"),
				ci(a.scores(d, window), "%.1f")})
		}
		out.Markdown(fmt.Sprintf("**Table 3 — %s**: standard deviation of the episode returns (ours: over all runs and episodes, "+
			"as we read the paper; and per seed, mean [95%% CI] over seeds), and the mean return over the first and last %d episodes "+
			"(mean [95%% CI] over seeds; an episode after the weights overflowed counts as %.0f).", d.Label, window, d.Lowest()))
		out.Table([]string{"algorithm", "paper std", "our std (all runs)", "our std per seed", fmt.Sprintf("first %d", window), fmt.Sprintf("last %d", window)}, rows)
	}
	return nil
}

// traceRow is one line of Fig. 4 and Table 4: a condition's trace (e_u or e_v) against Non-DP's.
type traceRow struct {
	name, cond string
	actor      bool
	paper      string
}

// traceRows are Fig. 4's lines on d: the three DP variants' noised traces and the references.
func traceRows(d Domain) []traceRow {
	p := paperCos[d.Name]
	return []traceRow{
		{"DP-Actor e_u", DPActor, true, p[0]}, {"DP-Critic e_v", DPCritic, false, p[1]},
		{"DP-Both e_u", DPBoth, true, p[2]}, {"DP-Both e_v", DPBoth, false, p[3]},
		{"reference: Non-DP e_u, other seeds", NonDPOtherSeed, true, "—"}, {"reference: Non-DP e_v, other seeds", NonDPOtherSeed, false, "—"},
		{"reference: random policy e_u", Random, true, "—"},
	}
}

// Fig4 shows Fig. 4 and Table 4 from the tables of Data: per domain, the cosine between each DP variant's
// end-of-episode traces and Non-DP's, with the traces averaged over the runs per episode as the caption
// says, 10-episode averages with a pointwise jackknife 95% band over the runs; and Table 4: the paper's mean
// (variance) beside ours (the mean over episodes with its jackknife interval, the variance over episodes)
// and, as an extra, the paired cosine (each run against the Non-DP run of the same seed, mean over
// episodes, 95% interval over seeds). Non-DP on other seeds and the random policy are the references.
func Fig4(out report.Sink, t *Tables) error {
	s, err := read(t)
	if err != nil {
		return err
	}
	for _, d := range Domains() {
		var series []figure.Series
		var rows [][]string
		var names []string
		var sets []*runSet
		for _, tr := range traceRows(d) {
			a, err := s.fig2(d, tr.cond)
			if err != nil {
				return err
			}
			if !slices.Contains(sets, a) {
				names, sets = append(names, Label(tr.cond)), append(sets, a)
			}
			c := a.caption(tr.actor)
			avg := figure.Smooth([][]float64{c.perEpisode}, 10)[0]
			without := figure.Smooth(c.withoutPerEpisode, 10)
			ser := episodeSeries(tr.name, [][]float64{avg})
			ser.Lo, ser.Hi = make([]float64, len(avg)), make([]float64, len(avg))
			for ep := range avg {
				col := make([]float64, len(without))
				for r := range without {
					col[r] = without[r][ep]
				}
				lo, hi := Jackknife(avg[ep], col)
				ser.Lo[ep], ser.Hi[ep] = math.Max(lo, -1), math.Min(hi, 1) // a cosine lies in [−1, 1]
			}
			series = append(series, ser)
			paired := a.paired(tr.actor)
			rows = append(rows, []string{tr.name, tr.paper, fmt.Sprintf("%.4f [%.4f, %.4f]", c.mean, c.lo, c.hi), fmt.Sprintf("%.4f", c.variance),
				ci(paired, "%.4f")})
		}
		p, err := figure.Curves(figure.Options{Title: fmt.Sprintf("Fig. 4 — %s: cosine of DP and non-DP traces, averaged over %d runs", d.Label, s.size.Runs),
			XLabel: "episode", YLabel: "cosine similarity (10-episode average)"}, series...)
		if err != nil {
			return err
		}
		if err := out.Figure(p); err != nil {
			return err
		}
		out.Markdown(divergedNote(names, sets))
		out.Markdown(fmt.Sprintf("**Table 4 — %s**: cosine between a condition's end-of-episode traces and Non-DP's. Ours as the caption "+
			"says: the traces of each episode averaged over the %d runs, then the cosine, mean over episodes with its jackknife 95%% "+
			"interval over the runs, and its variance over episodes; and the paired cosine (each run against the Non-DP run with the "+
			"same seed), mean over episodes, mean [95%% CI] over seeds. The references bound what a cosine can tell: Non-DP runs with "+
			"other seeds, and a policy that never learns. Runs whose weights overflowed record no trace after that episode.", d.Label, s.size.Runs))
		out.Table([]string{"trace", "paper: mean (variance)", "ours, caption: mean [jackknife 95% CI]", "ours: variance over episodes",
			"ours, paired per seed: mean [95% CI]"}, rows)
	}
	return nil
}

// captionCosine is Fig. 4's cosine of one condition's traces: per episode (the traces averaged over the
// runs) and without each run, its mean over episodes with the jackknife interval, and its variance over
// episodes.
type captionCosine struct {
	perEpisode             []float64
	withoutPerEpisode      [][]float64
	mean, lo, hi, variance float64
	without                []float64 // the mean over episodes without each run
}

// caption is a's captionCosine of e_u (actor) or e_v.
func (a *runSet) caption(actor bool) captionCosine {
	avg, without := a.avgV, a.withoutV
	if actor {
		avg, without = a.avgU, a.withoutU
	}
	c := captionCosine{perEpisode: avg[0], withoutPerEpisode: without}
	fin := appendFinite(nil, c.perEpisode)
	c.mean = mean(fin)
	for _, v := range fin {
		c.variance += (v - c.mean) * (v - c.mean) / float64(len(fin))
	}
	for _, w := range without {
		c.without = append(c.without, mean(appendFinite(nil, w)))
	}
	c.lo, c.hi = Jackknife(c.mean, c.without)
	return c
}

// paired is each run's paired cosine of e_u (actor) or e_v, mean over episodes.
func (a *runSet) paired(actor bool) []float64 {
	per := a.cosV
	if actor {
		per = a.cosU
	}
	out := make([]float64, len(per))
	for r, x := range per {
		out[r] = mean(appendFinite(nil, x))
	}
	return out
}

// fig3Variants are the variants of Fig. 3 in the tables.
func (s *study) fig3Variants() []string {
	v := []string{DPActor, DPCritic}
	if s.size.Both {
		v = append(v, DPBoth)
	}
	return v
}

// Fig3 shows Fig. 3 from the tables of Data: per domain, the final return (the mean over the last 50
// episodes) of DP-Actor and DP-Critic (and DP-Both) at each per-step ε of the size, and at ε = 10 (Fig. 2's
// runs), each at its tuned step sizes, against Non-DP and the random policy; a table with each point's
// return, the share of its ε = 10 gain over the random policy it keeps, whether the paper calls it stable,
// and the runs whose weights overflowed (counted at the lowest return).
func Fig3(out report.Sink, t *Tables) error {
	s, err := read(t)
	if err != nil {
		return err
	}
	window := min(Window, s.size.Episodes)
	epsilons := append([]float64{10}, s.size.Epsilons...)
	for _, d := range Domains() {
		non, err := s.fig2(d, NonDP)
		if err != nil {
			return err
		}
		rnd, err := s.fig2(d, Random)
		if err != nil {
			return err
		}
		fRnd := rnd.scores(d, window)
		mRnd, _, _ := experiment.MeanCI(fRnd, 0.95)
		var series []figure.Series
		var rows [][]string
		var divs []string
		for _, v := range s.fig3Variants() {
			y := make([][]float64, s.size.Runs)
			for r := range y {
				y[r] = make([]float64, len(epsilons))
			}
			var m10 float64
			for k, eps := range epsilons {
				a, err := s.fig3(d, v, eps)
				if err != nil {
					return err
				}
				f := a.scores(d, window)
				for r, val := range f {
					y[r][k] = val
				}
				m, _, _ := experiment.MeanCI(f, 0.95)
				if k == 0 {
					m10 = m
				}
				paper := "—"
				if st, ok := paperStable[d.Name][v]; ok {
					paper = map[bool]string{true: "yes", false: "no"}[slices.Contains(st, eps)]
				}
				div := fmt.Sprintf("%d/%d", a.diverged(), len(a.results))
				rows = append(rows, []string{Label(v), fmt.Sprintf("%.3g", StepEpsilon(v, eps)), ci(f, "%.1f"), fmt.Sprintf("%.0f%%", 100*(m-mRnd)/(m10-mRnd)), paper, div})
				divs = append(divs, fmt.Sprintf("%s at %g: %s", Label(v), eps, div))
			}
			series = append(series, figure.Series{Name: Label(v), X: epsilons, Y: y})
		}
		for _, ref := range []struct {
			name string
			a    *runSet
		}{{"Non-DP", non}, {Label(Random), rnd}} {
			f := ref.a.scores(d, window)
			flat := make([][]float64, len(f))
			for r, val := range f {
				flat[r] = slices.Repeat([]float64{val}, len(epsilons))
			}
			series = append(series, figure.Series{Name: ref.name, X: epsilons, Y: flat})
		}
		xlabel := "ε per step"
		if s.size.Both {
			xlabel += " (DP-Both: ε/√2, the same composed ε)"
		}
		p, err := figure.Curves(figure.Options{Title: fmt.Sprintf("Fig. 3 — %s: final return vs ε (%d seeds)", d.Label, s.size.Runs),
			XLabel: xlabel, YLabel: fmt.Sprintf("mean return, last %d episodes", window), LogX: true,
			LegendBottom: true, Band: figure.BandCI95}, series...)
		if err != nil {
			return err
		}
		if err := out.Figure(p); err != nil {
			return err
		}
		out.Markdown(fmt.Sprintf("%s Weights overflowed (runs, counted at the lowest return %.0f): %s. Non-DP %s, random policy %s "+
			"(last-%d return, mean [95%% CI]). Step sizes: %s", seedNote(s.size.Runs), d.Lowest(), strings.Join(divs, "; "),
			ci(non.scores(d, window), "%.1f"), ci(fRnd, "%.1f"), window, s.settingsNote(d, s.fig3Variants())))
		out.Table([]string{"algorithm", "ε per step", fmt.Sprintf("last-%d return", window), "share of its ε = 10 gain over random", "paper: stable",
			"weights overflowed"}, rows)
	}
	return nil
}

// fig3 is variant v of Fig. 3 at nominal per-step ε: Fig. 2's runs at ε = 10.
func (s *study) fig3(d Domain, v string, eps float64) (*runSet, error) {
	if eps == d.Base.Epsilon {
		return s.fig2(d, v)
	}
	return s.get(d, v, Tuned, eps)
}

// Fig5 shows Fig. 5 from the tables of Data: per domain, the learning curves of DP-Actor acting ε-greedily
// (the paper's choice) and by softmax, each at its own tuned step sizes, at ε = 10 per step, beside the
// random policy, with the runs whose weights overflowed.
func Fig5(out report.Sink, t *Tables) error {
	s, err := read(t)
	if err != nil {
		return err
	}
	for _, d := range Domains() {
		conds := []string{DPActor, DPActorSoftmax, Random}
		var names []string
		var sets []*runSet
		for _, c := range conds {
			a, err := s.fig2(d, c)
			if err != nil {
				return err
			}
			names, sets = append(names, Label(c)), append(sets, a)
		}
		names[0] = "DP-Actor (ε-greedy)"
		if err := learningCurves(out, fmt.Sprintf("Fig. 5 — %s: ε-greedy vs softmax, DP-Actor at ε = 10 per step (%d seeds)", d.Label, s.size.Runs), names, sets); err != nil {
			return err
		}
		out.Markdown(seedNote(s.size.Runs) + " " + divergedNote(names, sets) + " Step sizes: " + s.settingsNote(d, conds[:2]))
	}
	return nil
}

// CorrectedFigure shows what ε the runs really have and the corrected variant, from the tables of Data: the
// privacy table of every configuration Data ran (Privacy), then per domain the learning curves of the
// corrected variant at each ε per patient of the size (Sizes.Corrected) beside Non-DP and the random policy, and a table of their
// last-50 returns. It fails if a corrected run made other than Episodes·H releases, the count its
// accounting assumes.
func CorrectedFigure(out report.Sink, t *Tables) error {
	s, err := read(t)
	if err != nil {
		return err
	}
	prows, err := Privacy(s.size)
	if err != nil {
		return err
	}
	header, cells := PrivacyTable(prows)
	out.Markdown(fmt.Sprintf("**What ε the runs have**, at δ = %g, for neighbouring data sets that differ in one patient (one episode). "+
		"For the published variants the per-patient column is only the most charitable reading; the last columns compose every "+
		"release of a %d-episode run, which is the ε for replacing the whole data set, not a per-patient ε.", Delta, s.size.Episodes))
	out.Table(header, cells)
	window := min(Window, s.size.Episodes)
	var rows [][]string
	for _, d := range Domains() {
		names := []string{"Non-DP", Label(Random)}
		var sets []*runSet
		for _, c := range []string{NonDP, Random} {
			a, err := s.fig2(d, c)
			if err != nil {
				return err
			}
			sets = append(sets, a)
		}
		for _, eps := range s.size.Corrected {
			sigma, err := actorcritic.CorrectedNoise(eps, Delta, d.MaxSteps)
			if err != nil {
				return err
			}
			a, err := s.get(d, Corrected, Table2, eps)
			if err != nil {
				return err
			}
			for i, r := range a.results {
				if r.Releases != s.size.Episodes*d.MaxSteps {
					return fmt.Errorf("seoyang2020: corrected run %d on %s made %d releases, the accounting assumes %d", i, d.Label, r.Releases, s.size.Episodes*d.MaxSteps)
				}
			}
			names, sets = append(names, fmt.Sprintf("Corrected, ε = %g per patient (σ = %.1f)", eps, sigma)), append(sets, a)
		}
		if err := learningCurves(out, fmt.Sprintf("Corrected variant — %s (%d seeds)", d.Label, s.size.Runs), names, sets); err != nil {
			return err
		}
		out.Markdown(seedNote(s.size.Runs) + " " + divergedNote(names, sets) + fmt.Sprintf(" The corrected variant runs at Table 2's step sizes "+
			"(worked setting, ours); every run made exactly %d·H noisy releases (H = %d).", s.size.Episodes, d.MaxSteps))
		for i, a := range sets {
			rows = append(rows, []string{d.Label, names[i], ci(a.scores(d, window), "%.1f")})
		}
	}
	out.Table([]string{"domain", "condition", fmt.Sprintf("last-%d return, mean [95%% CI]", window)}, rows)
	return nil
}

// settingsNote lists the step sizes each condition ran at on d.
func (s *study) settingsNote(d Domain, conds []string) string {
	var parts []string
	for _, c := range conds {
		st, ok := s.chosen[d.Name+"/"+c]
		what := "tuned"
		if !ok {
			st, what = d.Table2(), "Table 2"
		}
		parts = append(parts, fmt.Sprintf("%s %s (%s)", Label(c), st, what))
	}
	return strings.Join(parts, "; ") + "."
}

// learningCurves plots the returns of several conditions, smoothed over 10 episodes, mean with a 95% CI
// band over the runs.
func learningCurves(out report.Sink, title string, names []string, sets []*runSet) error {
	var series []figure.Series
	for i, a := range sets {
		series = append(series, episodeSeries(names[i], figure.Smooth(a.returns(), 10)))
	}
	p, err := figure.Curves(figure.Options{Title: title, XLabel: "episode", YLabel: "return (10-episode average)", LegendBottom: true,
		Band: figure.BandCI95}, series...)
	if err != nil {
		return err
	}
	return out.Figure(p)
}

// episodeSeries is a curve over episodes 1 … len(y[0]).
func episodeSeries(name string, y [][]float64) figure.Series {
	x := make([]float64, len(y[0]))
	for k := range x {
		x[k] = float64(k + 1)
	}
	return figure.Series{Name: name, X: x, Y: y}
}

// divergedNote is the line under a figure that counts, per curve, the runs whose weights overflowed.
func divergedNote(names []string, sets []*runSet) string {
	parts := make([]string, len(names))
	for i, a := range sets {
		parts[i] = fmt.Sprintf("%s %d/%d", names[i], a.diverged(), len(a.results))
	}
	return "Weights overflowed: " + strings.Join(parts, ", ") + "."
}

// seedNote states the seeds and the band of every figure.
func seedNote(runs int) string {
	return fmt.Sprintf("Seeds: run r of every condition draws from rand.NewPCG(%d, r), r = 0 … %d (Non-DP on other seeds: rand.NewPCG(%d, r)); "+
		"curves are means over the runs with 95%% Student-t bands.", Seed, runs-1, OtherSeed)
}

// ci is the mean of xs (one value per seed) with its 95% Student-t interval, written "m [lo, hi]".
func ci(xs []float64, format string) string {
	m, lo, hi := experiment.MeanCI(xs, 0.95)
	return fmt.Sprintf(format+" ["+format+", "+format+"]", m, lo, hi)
}
