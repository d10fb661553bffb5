package sharma

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"gonum.org/v1/plot"

	"github.com/dprl-project/dprl/dprl/experiment"
	"github.com/dprl-project/dprl/dprl/expertdp"
	"github.com/dprl-project/dprl/dprl/figure"
	"github.com/dprl-project/dprl/dprl/report"
)

// runSet is a runs table read back (Outcomes), indexed by setting.
type runSet struct {
	all []Outcome
	by  map[Setting][]Outcome
}

// readRuns reads a runs table.
func readRuns(t *experiment.Table) (*runSet, error) {
	all, err := Outcomes(t)
	if err != nil {
		return nil, err
	}
	r := &runSet{all: all, by: map[Setting][]Outcome{}}
	for _, o := range all {
		s := o.Setting()
		r.by[s] = append(r.by[s], o)
	}
	return r, nil
}

// values is the normalised return of every seed of a setting, indexed by seed (NaN for a missing seed).
func (r *runSet) values(set Setting) []float64 {
	var v []float64
	for _, o := range r.by[set] {
		for len(v) <= o.Seed {
			v = append(v, math.NaN())
		}
		v[o.Seed] = o.Normalized
	}
	return v
}

// stable is the |D_stable| of every seed of a setting, indexed by seed.
func (r *runSet) stable(set Setting) []float64 {
	var v []float64
	for _, o := range r.by[set] {
		for len(v) <= o.Seed {
			v = append(v, math.NaN())
		}
		v[o.Seed] = float64(o.Stable)
	}
	return v
}

// noise is the noise regime of the runs tagged tag (the primary ones; NoiseCalibrated if none is private).
func (r *runSet) noise(tag string) Noise {
	for _, o := range r.all {
		if o.Tag == tag && (o.Method == ExpertDPSGD || o.Method == Ours && o.Split.Eps2 > 0) {
			return o.Noise
		}
	}
	return NoiseCalibrated
}

// npMean is the mean normalised return of the non-private runs of env and alg on m experts (0: all), or
// on all experts if there are none at m.
func (r *runSet) npMean(env string, alg expertdp.Algorithm, m int) float64 {
	v, _, _ := experiment.MeanCI(r.values(npSetting(env, alg, m)), 0.95)
	if math.IsNaN(v) && m != 0 {
		v, _, _ = experiment.MeanCI(r.values(npSetting(env, alg, 0)), 0.95)
	}
	return v
}

// fraction is a run's normalised return as a fraction of the non-private learner's (mean over the seeds of
// the same environment, learner and m): the paper's y-axis.
func (r *runSet) fraction(o Outcome) float64 {
	return o.Normalized / r.npMean(o.Env, o.Algorithm, o.Setting().Experts)
}

// envs are the environments with runs of set(env), in the figures' order.
func (r *runSet) envs(set func(env string) Setting) []string {
	var out []string
	for _, env := range []string{"cartpole", "acrobot", "lunarlander", "hiv"} {
		if len(r.by[set(env)]) > 0 {
			out = append(out, env)
		}
	}
	return out
}

func npSetting(env string, alg expertdp.Algorithm, m int) Setting {
	return Job{Env: env, Algorithm: alg, Method: NonPrivate, Experts: m}.Setting()
}

func untrainedSetting(env string, alg expertdp.Algorithm) Setting {
	return Job{Env: env, Algorithm: alg, Method: Untrained}.Setting()
}

// withNoise is j's setting in regime n on m experts.
func withNoise(j Job, n Noise, m int) Setting {
	j.Noise, j.Experts = n, m
	return j.Setting()
}

// fig3Sets are Fig. 3's ours and baseline settings on env with alg at ε in regime n.
func fig3Sets(env string, alg expertdp.Algorithm, eps float64, n Noise) (ours, base Setting) {
	o := OursJob(env, alg, eps)
	return withNoise(o, n, 0), withNoise(BaselineJob(env, alg, eps, o.Split), n, 0)
}

// fig4Sets are Fig. 4's settings at m in regime n: ours with the fallback, ours on D_stable alone (the
// paper's Acrobot split) and the baseline at their certificate.
func fig4Sets(m int, n Noise) (fallback, stableOnly, base Setting) {
	f := FallbackJob("acrobot", expertdp.CQL, 10)
	return withNoise(f, n, m), withNoise(StableOnlyJob("acrobot", expertdp.CQL, 10), n, m), withNoise(BaselineJob("acrobot", expertdp.CQL, 10, f.Split), n, m)
}

// curve is a figure series over xs: trial t at xs[i] is seed t's normalised return of setting set(xs[i])
// divided by scale(xs[i]).
func (r *runSet) curve(name string, xs []float64, set func(x float64) Setting, scale func(x float64) float64) figure.Series {
	y := [][]float64{}
	for i, x := range xs {
		for t, v := range r.values(set(x)) {
			for len(y) <= t {
				row := make([]float64, len(xs))
				for k := range row {
					row[k] = math.NaN()
				}
				y = append(y, row)
			}
			y[t][i] = v / scale(x)
		}
	}
	if len(y) == 0 {
		row := make([]float64, len(xs))
		for k := range row {
			row[k] = math.NaN()
		}
		y = [][]float64{row}
	}
	return figure.Series{Name: name, X: xs, Y: y}
}

// flat is a reference line at y over xs (no band).
func flat(name string, xs []float64, y float64) figure.Series {
	row := make([]float64, len(xs))
	for i := range row {
		row[i] = y
	}
	return figure.Series{Name: name, X: xs, Y: [][]float64{row}}
}

// epsilons are the ε of the runs tagged fig3 in the table, ascending.
func (r *runSet) epsilons() []float64 {
	var xs []float64
	for _, o := range r.all {
		if o.Tag == "fig3" && o.Method == Ours && !slices.Contains(xs, o.Epsilon) {
			xs = append(xs, o.Epsilon)
		}
	}
	slices.Sort(xs)
	return xs
}

// ms are the expert counts of the runs tagged fig4, ascending (0 read as NumExperts).
func (r *runSet) ms() []int {
	var ms []int
	for _, o := range r.all {
		m := o.Experts
		if m == 0 {
			m = NumExperts
		}
		if o.Tag == "fig4" && o.Method == Ours && !slices.Contains(ms, m) {
			ms = append(ms, m)
		}
	}
	slices.Sort(ms)
	return ms
}

// Fig3Plot is Fig. 3 for one environment and learner from Fig3Data's table: the fraction of the non-private
// return against ε, ours and expert-level DP-SGD at ours' certified (ε, δ), mean with a 95% confidence band
// over seeds, beside the non-private learner (1, its own band), the untrained network and the uniform
// policy (0).
func Fig3Plot(t *experiment.Table, env string, alg expertdp.Algorithm) (*plot.Plot, error) {
	r, err := readRuns(t)
	if err != nil {
		return nil, err
	}
	return r.fig3Plot(env, alg)
}

func (r *runSet) fig3Plot(env string, alg expertdp.Algorithm) (*plot.Plot, error) {
	xs, n := r.epsilons(), r.noise("fig3")
	np := r.npMean(env, alg, 0)
	scale := func(float64) float64 { return np }
	return figure.Curves(figure.Options{Title: fmt.Sprintf("Fig. 3, %s %v: return vs ε (fraction of non-private)", envNames[env], alg),
		XLabel: "ε (δ = 1/m; the baseline at ours' certified (ε, δ))", YLabel: "normalised return / non-private", Band: figure.BandCI95, LegendBottom: true},
		r.curve("ours", xs, func(e float64) Setting { o, _ := fig3Sets(env, alg, e, n); return o }, scale),
		r.curve("expert-level DP-SGD", xs, func(e float64) Setting { _, b := fig3Sets(env, alg, e, n); return b }, scale),
		r.curve("non-private", xs, func(float64) Setting { return npSetting(env, alg, 0) }, scale),
		r.curve("untrained network", xs, func(float64) Setting { return untrainedSetting(env, alg) }, scale),
		flat("uniform policy", xs, 0))
}

// Fig3Figure shows Fig. 3 from Fig3Data's table: a panel per environment and learner (Fig3Plot), the seeds
// and diverged runs of every point, and the summary table.
func Fig3Figure(out report.Sink, t *experiment.Table) error {
	r, err := readRuns(t)
	if err != nil {
		return err
	}
	xs, n := r.epsilons(), r.noise("fig3")
	var sets []Setting
	for _, env := range r.envs(func(env string) Setting { return npSetting(env, expertdp.CQL, 0) }) {
		for _, alg := range learners {
			p, err := r.fig3Plot(env, alg)
			if err != nil {
				return err
			}
			if err := out.Figure(p); err != nil {
				return err
			}
			sets = append(sets, untrainedSetting(env, alg), npSetting(env, alg, 0))
			for _, e := range xs {
				o, b := fig3Sets(env, alg, e, n)
				sets = append(sets, o, b)
			}
		}
	}
	same := ""
	if o, b := fig3Sets("cartpole", expertdp.CQL, 5, n); o == b && len(r.by[o]) > 0 {
		same = " On CartPole at ε = 5 the paper's split gives ε1 = 0 and p = 1: ours *is* expert-level DP-SGD there, and both curves show the same runs."
	}
	out.Markdown(fmt.Sprintf("Mean with 95%% t-interval bands. Each point's baseline runs at the (ε, δ) ours certifies there (its release on the fixed log adds "+
		"p_T to δ), so the two methods compared are equally private.%s The uniform policy is 0 and the non-private learner 1 (its band: the spread of its own "+
		"seeds). %s", same, r.pointsCaption(sets)))
	out.Table(SummaryHeader, r.summary(sets))
	return nil
}

// envNames are the environments as the text names them.
var envNames = map[string]string{"cartpole": "CartPole", "acrobot": "Acrobot", "lunarlander": "LunarLander", "hiv": "HIV"}

// Fig4Plot is Fig. 4 from Fig4Data's table: Acrobot, ε = 10, CQL, the fraction of the non-private return
// (at the same m) against m, ours with the fallback, ours on D_stable alone (the paper's Acrobot split) and
// expert-level DP-SGD at their certificate, with 95% confidence bands, beside the non-private learner, the
// untrained network and the uniform policy.
func Fig4Plot(t *experiment.Table) (*plot.Plot, error) {
	r, err := readRuns(t)
	if err != nil {
		return nil, err
	}
	return r.fig4Plot()
}

func (r *runSet) fig4Plot() (*plot.Plot, error) {
	ms, n := r.ms(), r.noise("fig4")
	xs := make([]float64, len(ms))
	for i, m := range ms {
		xs[i] = float64(m)
	}
	scale := func(x float64) float64 { return r.npMean("acrobot", expertdp.CQL, mOf(x)) }
	return figure.Curves(figure.Options{Title: "Fig. 4: Acrobot, ε = 10, CQL", XLabel: "number of experts m (δ = 1/m)",
		YLabel: "normalised return / non-private", Band: figure.BandCI95, LegendBottom: true},
		r.curve("ours (3/4 split, p = 0, fallback)", xs, func(x float64) Setting { f, _, _ := fig4Sets(mOf(x), n); return f }, scale),
		r.curve("ours (D_stable alone, ε1 = ε)", xs, func(x float64) Setting { _, s, _ := fig4Sets(mOf(x), n); return s }, scale),
		r.curve("expert-level DP-SGD", xs, func(x float64) Setting { _, _, b := fig4Sets(mOf(x), n); return b }, scale),
		r.curve("non-private", xs, func(x float64) Setting { return npSetting("acrobot", expertdp.CQL, mOf(x)) }, scale),
		r.curve("untrained network", xs, func(float64) Setting { return untrainedSetting("acrobot", expertdp.CQL) }, scale),
		flat("uniform policy", xs, 0))
}

// mOf is the m of an x coordinate, NumExperts written 0 as in a Setting.
func mOf(x float64) int {
	if m := int(x); m != NumExperts {
		return m
	}
	return 0
}

// gainAt is the gain of ours (the setting of fig4Sets that pick chooses) over expert-level DP-SGD at m:
// the difference of mean normalised returns with its Welch 95% interval, and the two samples.
func (r *runSet) gainAt(m int, pick func(fallback, stableOnly Setting) Setting) (d, lo, hi float64, ours, base []float64) {
	f, s, b := fig4Sets(mOf(float64(m)), r.noise("fig4"))
	ours, base = r.values(pick(f, s)), r.values(b)
	d, lo, hi = experiment.DiffCI(ours, base, 0.95)
	return d, lo, hi, ours, base
}

func pickFallback(f, _ Setting) Setting   { return f }
func pickStableOnly(_, s Setting) Setting { return s }

// Fig4Figure shows Fig. 4 from Fig4Data's table (Fig4Plot), the gain of ours over expert-level DP-SGD
// against m with Welch intervals, the seeds and diverged runs of every point, and the summary table.
func Fig4Figure(out report.Sink, t *experiment.Table) error {
	r, err := readRuns(t)
	if err != nil {
		return err
	}
	p, err := r.fig4Plot()
	if err != nil {
		return err
	}
	if err := out.Figure(p); err != nil {
		return err
	}
	ms, n := r.ms(), r.noise("fig4")
	xs := make([]float64, len(ms))
	for i, m := range ms {
		xs[i] = float64(m)
	}
	var series []figure.Series
	var gains []string
	sets := []Setting{untrainedSetting("acrobot", expertdp.CQL)}
	for k, pick := range []func(f, s Setting) Setting{pickFallback, pickStableOnly} {
		g := figure.Series{Name: []string{"ours with the fallback − DP-SGD", "ours on D_stable alone − DP-SGD"}[k], X: xs, Y: [][]float64{make([]float64, len(xs))},
			Lo: make([]float64, len(xs)), Hi: make([]float64, len(xs))}
		for i, m := range ms {
			g.Y[0][i], g.Lo[i], g.Hi[i], _, _ = r.gainAt(m, pick)
			if k == 0 {
				gains = append(gains, fmt.Sprintf("m = %d: %+.2f [%+.2f, %+.2f]", m, g.Y[0][i], g.Lo[i], g.Hi[i]))
			}
		}
		series = append(series, g)
	}
	for _, m := range ms {
		f, s, b := fig4Sets(mOf(float64(m)), n)
		sets = append(sets, npSetting("acrobot", expertdp.CQL, mOf(float64(m))), f, s, b)
	}
	p, err = figure.Curves(figure.Options{Title: "Gain over expert-level DP-SGD against m (Acrobot, ε = 10, CQL; 95% Welch intervals)",
		XLabel: "number of experts m", YLabel: "difference of normalised returns", LegendBottom: true}, append(series, flat("no gain", xs, 0))...)
	if err != nil {
		return err
	}
	if err := out.Figure(p); err != nil {
		return err
	}
	out.Markdown(fmt.Sprintf("Mean with 95%% t-interval bands (above) and the gain over the baseline with its Welch 95%% interval (below); ours with the "+
		"fallback: %s. Where D_stable is empty, ours with the fallback trains expert-level DP-SGD on its ε2 = 2.5 (the note column counts the runs), "+
		"and ours on D_stable alone, which has no DP-SGD budget, returns its initial network. Both splits certify the same (ε, δ), at which the baseline "+
		"runs. %s", strings.Join(gains, "; "), r.pointsCaption(sets)))
	out.Table(SummaryHeader, r.summary(sets))
	return nil
}

// table2Sets are Table 2's settings in regime n: CartPole at ε = 10 with p ∈ table2Ps per learner, and the
// low-ε rows' split and baseline.
func table2Sets(n Noise) (pSets, lowSets []Setting) {
	for _, alg := range learners {
		pSets = append(pSets, untrainedSetting("cartpole", alg))
		for _, p := range table2Ps(alg) {
			pSets = append(pSets, withNoise(table2Job(alg, p), n, 0))
		}
	}
	for _, c := range lowCases {
		l := lowJob(c.env, c.eps)
		lowSets = append(lowSets, withNoise(l, n, 0), withNoise(BaselineJob(c.env, expertdp.BCQ, c.eps, l.Split), n, 0))
	}
	lowSets = append(lowSets, untrainedSetting("acrobot", expertdp.BCQ))
	return pSets, lowSets
}

// Table2Figure shows Table 2 from Table2Data's table: the mixing probability p on CartPole at ε = 10, and the
// low-ε allocation, with 95% intervals, the seeds and diverged runs of every row.
func Table2Figure(out report.Sink, t *experiment.Table) error {
	r, err := readRuns(t)
	if err != nil {
		return err
	}
	pSets, lowSets := table2Sets(r.noise("table2"))
	out.Table(SummaryHeader, r.summary(pSets))
	out.Table(SummaryHeader, r.summary(lowSets))
	out.Markdown(fmt.Sprintf("Mean [95%% t-interval] of the normalised return (the paper's Table 2 divides by the non-private learner's: Fig. 3's "+
		"runs of the same settings, which draw the same streams). Every private row of a comparison is held to the same certified (ε, δ): p = 0 spends "+
		"none of ε2 (a looser certificate, still valid) and the pure DP-SGD rows run at the split's. %s", r.pointsCaption(append(pSets, lowSets...))))
	return nil
}

// pointsCaption says how many seeds stand behind the points of sets and which runs diverged or fell back.
func (r *runSet) pointsCaption(sets []Setting) string {
	lo, hi := math.MaxInt, 0
	var diverged, fell []string
	for _, set := range sets {
		runs := r.by[set]
		if len(runs) == 0 {
			continue
		}
		lo, hi = min(lo, len(runs)), max(hi, len(runs))
		d, f := 0, 0
		for _, o := range runs {
			if o.Diverged {
				d++
			}
			if o.FellBack {
				f++
			}
		}
		if d > 0 {
			diverged = append(diverged, fmt.Sprintf("%s: %d of %d", pointName(set), d, len(runs)))
		}
		if f > 0 {
			fell = append(fell, fmt.Sprintf("%s: %d of %d", pointName(set), f, len(runs)))
		}
	}
	if hi == 0 {
		return "No runs."
	}
	seeds := fmt.Sprintf("%d seeds per point", hi)
	if lo != hi {
		seeds = fmt.Sprintf("%d to %d seeds per point", lo, hi)
	}
	div := "none"
	if len(diverged) > 0 {
		div = strings.Join(diverged, "; ")
	}
	s := fmt.Sprintf("%s. **Diverged runs** (a non-finite parameter or return), per point: %s.", seeds, div)
	if len(fell) > 0 {
		s += " Fell back to expert-level DP-SGD (D_stable empty): " + strings.Join(fell, "; ") + "."
	}
	return s
}

// pointName names a setting in a caption: "ours, CartPole CQL, ε = 10, m = 1000".
func pointName(s Setting) string {
	name := fmt.Sprintf("%s, %s %v", label(s), envNames[s.Env], s.Algorithm)
	if s.Method == Ours || s.Method == ExpertDPSGD {
		name += fmt.Sprintf(", ε = %g", s.Epsilon)
	}
	if s.Experts > 0 {
		name += fmt.Sprintf(", m = %d", s.Experts)
	}
	return name
}

// label names a setting's method: ours with what sets it apart (D_stable alone, the 3/4 split with p = 0,
// p, the published accounting, the paper's noise regime).
func label(s Setting) string {
	if s.Method != Ours {
		l := s.Method.String()
		if s.Method == ExpertDPSGD && s.Noise == NoisePaper {
			l += fmt.Sprintf(" (s = %d)", BaselineS)
		}
		return l
	}
	var parts []string
	switch {
	case s.Split.Eps2 == 0:
		parts = append(parts, "D_stable alone")
	case s.P == 0 && s.Fallback:
		parts = append(parts, "p = 0, fallback")
	default:
		parts = append(parts, fmt.Sprintf("p = %g", s.P))
	}
	if s.Accounting == expertdp.AccountingPaper {
		parts = append(parts, "published accounting")
	}
	if s.Noise == NoisePaper && (s.P > 0 || s.Fallback) {
		parts = append(parts, fmt.Sprintf("s = %g", PaperS(s.Env, s.Algorithm, s.Epsilon)))
	}
	return "ours (" + strings.Join(parts, ", ") + ")"
}

// SummaryHeader names the columns of the figures' summary tables.
var SummaryHeader = []string{"env", "learner", "method", "m", "ε", "split (ε1 / ε2, T)", "|D_stable|", "private steps", "s", "ε2 spent",
	"certified (ε, δ)", "normalised return [95% CI]", "÷ non-private [95% CI]", "seeds", "notes"}

// summary aggregates the runs of each setting of sets (once each) over seeds: the mean |D_stable|, private steps and
// s, the ε2 the DP-SGD steps spend (exact accounting), the certified (ε, δ), the mean normalised return and
// its fraction of the non-private learner's with 95% t-intervals, the seeds, and notes (diverged runs
// among them).
func (r *runSet) summary(sets []Setting) [][]string {
	var rows [][]string
	seen := map[Setting]bool{}
	for _, set := range sets {
		g := r.by[set]
		if len(g) == 0 || seen[set] {
			continue
		}
		seen[set] = true
		var stable, private, s, eps2, norm, frac []float64
		notes := map[string]int{}
		for _, o := range g {
			stable = append(stable, float64(o.Stable))
			private = append(private, float64(o.Private))
			s = append(s, o.S)
			eps2 = append(eps2, o.Eps2Exact)
			norm = append(norm, o.Normalized)
			frac = append(frac, r.fraction(o))
			if o.Note != "" {
				notes[o.Note]++
			}
			if o.Diverged {
				notes["diverged"]++
			}
		}
		mean := func(x []float64) float64 { v, _, _ := experiment.MeanCI(x, 0.95); return v }
		ci := func(x []float64) string {
			v, lo, hi := experiment.MeanCI(x, 0.95)
			if math.IsNaN(v) {
				return "—"
			}
			return fmt.Sprintf("%.2f [%.2f, %.2f]", v, lo, hi)
		}
		split, cert, m := "—", "—", set.Experts
		if m == 0 {
			m = NumExperts
		}
		switch set.Method {
		case Ours:
			split = fmt.Sprintf("%.3g / %.3g", set.Split.Eps1, set.Split.Eps2)
			if set.Split.T > 0 {
				split += fmt.Sprintf(", T = %d", set.Split.T)
			}
		case NonPrivate:
			cert = "∞"
		}
		if set.Method == Ours || set.Method == ExpertDPSGD {
			cert = fmt.Sprintf("(%.4g, %.2g)", g[0].CertEps, g[0].CertDelta)
		}
		eps := "—"
		if set.Method == Ours || set.Method == ExpertDPSGD {
			eps = fmt.Sprint(set.Epsilon)
		}
		var parts []string
		for k, n := range notes {
			parts = append(parts, fmt.Sprintf("%s in %d of %d", k, n, len(g)))
		}
		sort.Strings(parts)
		rows = append(rows, []string{set.Env, set.Algorithm.String(), label(set), fmt.Sprint(m), eps, split, fmt.Sprintf("%.0f", mean(stable)),
			fmt.Sprintf("%.0f", mean(private)), fmt.Sprintf("%.3g", mean(s)), fmt.Sprintf("%.3f", mean(eps2)), cert, ci(norm), ci(frac), fmt.Sprint(len(g)),
			strings.Join(parts, "; ")})
	}
	return rows
}
