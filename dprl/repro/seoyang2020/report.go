package seoyang2020

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/dprl-project/dprl/dprl/actorcritic"
	"github.com/dprl-project/dprl/dprl/experiment"
	"github.com/dprl-project/dprl/dprl/figure"
	"github.com/dprl-project/dprl/dprl/report"
	"github.com/dprl-project/dprl/dprl/repro"
	"github.com/dprl-project/dprl/dprl/sweep"
	"github.com/dprl-project/dprl/envs"
	"github.com/dprl-project/dprl/mechanisms"
)

// Delta is the δ of every run and table (Table 2).
const Delta = 1e-6

// Seed is the seed of every experiment: all conditions share rand.NewPCG(Seed, run) streams, run = 0 …
// Runs − 1. OtherSeed gives the second, independent set of non-private runs of the cosine reference.
const (
	Seed      = 2020
	OtherSeed = 2021
)

// Margin is the stability test of Fig. 2 and Fig. 3, stated before the runs: a DP setting learns "about as
// well as Non-DP" when its mean return over the last 50 episodes is at most 20% worse than Non-DP's, i.e.
// mean(DP) − 1.2·mean(Non-DP) > 0 for the (negative) returns of both domains (0.8 if Non-DP's mean were
// positive); the verdict comes from the Welch 95% interval of that difference over the seeds.
const Margin = 0.2

// Window is the number of final episodes whose mean return is a run's final return (the paper's last 50).
const Window = 50

// Sizes sizes the experiments: Runs seeds of Episodes episodes per condition; Fig. 3 sweeps DP-Actor and
// DP-Critic (and DP-Both when Both is set) over the per-step ε in Epsilons.
type Sizes struct {
	Runs, Episodes int
	Epsilons       []float64
	Both           bool
}

// DefaultSizes is 10 seeds of 500 episodes, the paper's runs, with Fig. 3 at ε ∈ {5, 1, 0.5} for DP-Actor
// and DP-Critic, to fit the notebook's time: ε = 10 is Fig. 2's, ε = 0.1 (below every ε the paper calls
// stable) and DP-Both (for which the paper states no stability range) are left out. Quick mode runs 2 seeds
// of 60 episodes. paperScale restores the paper's full grid: ε ∈ {10, 5, 1, 0.5, 0.1} with DP-Both.
func DefaultSizes(paperScale bool) Sizes {
	if paperScale {
		return Sizes{Runs: 10, Episodes: 500, Epsilons: []float64{10, 5, 1, 0.5, 0.1}, Both: true}
	}
	return Sizes{Runs: experiment.Size(10, 2), Episodes: experiment.Size(500, 60), Epsilons: []float64{5, 1, 0.5}}
}

// The paper's numbers, by domain name: Table 3's performance standard deviation and Table 4's cosines
// (mean (variance)) for Non-DP, DP-Actor, DP-Critic, DP-Both; and Fig. 3's ε values at which DP-Actor and
// DP-Critic are called stable.
var (
	paperStd = map[string][]float64{"mdp100": {30.26, 68.04, 27.1, 66.63}, "taxi": {43.47, 57.21, 50.03, 52.72}}
	paperCos = map[string][]string{"mdp100": {"0.021 (0.0042)", "0.839 (0.006)", "0.014 (0.003)", "0.497 (0.006)"},
		"taxi": {"-0.0008 (0.0003)", "0.035 (0.001)", "-0.0001 (0.0003)", "0.0146 (0.0007)"}}
	paperStable = map[string][][]float64{"mdp100": {{10, 5, 1, 0.5}, {10, 5, 1}}, "taxi": {{10, 5, 1}, {10, 5}}}
)

// TypoSigma is the noise formula as printed in the paper's §2.1, sqrt(2 ln(1.25)/δ)/ε — a typo for eq. (3)'s
// sqrt(2 ln(1.25/δ))/ε (actorcritic.PublishedSigma) that would add about 100× more noise at δ = 1e−6 — kept for
// comparison.
func TypoSigma(eps, delta float64) float64 { return math.Sqrt(2*math.Log(1.25)/delta) / eps }

// NoiseScaleTable shows, at δ = 1e−6 and ε ∈ {10, 5, 1, 0.5, 0.1}, the noise multiplier of |C| by eq. (3)
// (used), by the §2.1 typo, and by the analytic Gaussian mechanism for sensitivity 1 and for replace-one's 2.
func NoiseScaleTable(out report.Sink) error {
	const delta = Delta
	var rows [][]string
	for _, eps := range []float64{10, 5, 1, 0.5, 0.1} {
		a1, err := mechanisms.AnalyticGaussianSigma(eps, delta, 1)
		if err != nil {
			return err
		}
		a2, err := mechanisms.AnalyticGaussianSigma(eps, delta, 2)
		if err != nil {
			return err
		}
		rows = append(rows, []string{fmt.Sprint(eps), fmt.Sprintf("%.3f", actorcritic.PublishedSigma(eps, delta)),
			fmt.Sprintf("%.1f", TypoSigma(eps, delta)), fmt.Sprintf("%.3f", a1), fmt.Sprintf("%.3f", a2)})
	}
	out.Markdown("σ (noise multiplier of |C|) at δ = 1e-6:")
	out.Table([]string{"ε", "eq. (3), used", "§2.1 typo", "analytic, Δ = 1", "analytic, Δ = 2 (replace-one)"}, rows)
	return nil
}

// learningCurves plots the returns of several conditions, smoothed over 10 episodes, mean with a 95% CI
// band over the runs.
func learningCurves(out report.Sink, title string, names []string, results [][]*actorcritic.Result) error {
	var series []figure.Series
	for i, rs := range results {
		series = append(series, episodeSeries(names[i], figure.Smooth(ReturnsByRun(rs), 10)))
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

// ci is the mean of xs (one value per seed) with its 95% Student-t interval, written "m [lo, hi]".
func ci(xs []float64, format string) string {
	m, lo, hi := experiment.MeanCI(xs, 0.95)
	return fmt.Sprintf(format+" ["+format+", "+format+"]", m, lo, hi)
}

// marginTest is Margin's difference mean(dp) − f·mean(non), f = 1.2 (0.8 for a positive Non-DP mean), with
// its Welch 95% interval.
func marginTest(dp, non []float64) (diff, lo, hi float64) {
	f := 1 + Margin
	if m, _, _ := experiment.MeanCI(non, 0.95); m > 0 {
		f = 1 - Margin
	}
	scaled := make([]float64, len(non))
	for i, v := range non {
		scaled[i] = f * v
	}
	return experiment.DiffCI(dp, scaled, 0.95)
}

// stability names a Margin verdict for a table.
func stability(lo, hi float64) string {
	switch repro.Verdict(lo, hi, 0, true) {
	case repro.Reproduced:
		return "stable"
	case repro.NotReproduced:
		return "not stable"
	}
	return "inconclusive"
}

// cosineRuns is a condition's runs (traces dropped) and, per run, the per-episode cosines of its actor and
// critic traces with the non-DP run of the same index.
type cosineRuns struct {
	results    []*actorcritic.Result
	cosU, cosV [][]float64
}

// runCosines runs cfg with recorded traces like Domain.RunMany and reduces each run's traces to its
// per-episode cosines with non[i] (the non-DP run of the same index) as soon as the run ends, so that only
// the non-DP traces stay in memory.
func (d Domain) runCosines(cfg actorcritic.Config, runs int, seed uint64, bar experiment.Progress, non []*actorcritic.Result) (cosineRuns, error) {
	type one struct {
		r          *actorcritic.Result
		cosU, cosV []float64
	}
	cfg.RecordTraces = true
	got, err := experiment.Trials(runs, 0, seed, bar, func(i int, src rand.Source) (one, error) {
		env, err := envs.Make(d.Name)
		if err != nil {
			return one{}, err
		}
		c := cfg
		c.Src = src
		r, err := actorcritic.Run(env, envs.TabularFeatures{N: d.NumStates}, c)
		if err != nil {
			return one{}, err
		}
		o := one{r: r, cosU: EpisodeCosines(r.TraceU, non[i].TraceU, cfg.Episodes), cosV: EpisodeCosines(r.TraceV, non[i].TraceV, cfg.Episodes)}
		r.TraceU, r.TraceV = nil, nil
		return o, nil
	})
	if err != nil {
		return cosineRuns{}, err
	}
	var out cosineRuns
	for _, o := range got {
		out.results = append(out.results, o.r)
		out.cosU = append(out.cosU, o.cosU)
		out.cosV = append(out.cosV, o.cosV)
	}
	return out, nil
}

// rowMeans is the mean of each row's finite values (one value per seed).
func rowMeans(rows [][]float64) []float64 {
	out := make([]float64, len(rows))
	for i, r := range rows {
		out[i] = mean(appendFinite(nil, r))
	}
	return out
}

// absAll is |x| element-wise.
func absAll(x []float64) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = math.Abs(v)
	}
	return out
}

// fig2Data is what Fig. 2 shows of a domain: the runs of Non-DP, DP-Actor, DP-Critic, DP-Both and the
// random policy, in that order; the cosines of DP-Actor, DP-Critic and DP-Both (conds) and of the random
// policy with the Non-DP runs; and of the Non-DP runs on other seeds with them.
type fig2Data struct {
	results    [][]*actorcritic.Result
	conds      []cosineRuns
	rnd, other cosineRuns
}

// fig2Run runs Fig. 2's conditions on d: runs seeds of episodes episodes each.
func (d Domain) fig2Run(runs, episodes int, bar experiment.Progress) (fig2Data, error) {
	base := d.Base
	base.Episodes = episodes
	nonCfg := base
	nonCfg.RecordTraces = true
	non, err := d.RunMany(nonCfg, runs, Seed, bar)
	if err != nil {
		return fig2Data{}, err
	}
	data := fig2Data{results: [][]*actorcritic.Result{non}}
	for _, v := range []actorcritic.Variant{actorcritic.DPActor, actorcritic.DPCritic, actorcritic.DPBoth} {
		cfg := base
		cfg.Variant = v
		cr, err := d.runCosines(cfg, runs, Seed, bar, non)
		if err != nil {
			return fig2Data{}, err
		}
		data.conds = append(data.conds, cr)
		data.results = append(data.results, cr.results)
	}
	random := d.RandomPolicy()
	random.Episodes = episodes
	if data.rnd, err = d.runCosines(random, runs, Seed, bar, non); err != nil {
		return fig2Data{}, err
	}
	if data.other, err = d.runCosines(base, runs, OtherSeed, bar, non); err != nil {
		return fig2Data{}, err
	}
	data.results = append(data.results, data.rnd.results)
	return data, nil
}

// fig2FromSweep reads Fig. 2's conditions on d from the merged sweep SweepFig2, which must have run them
// at ε = 10 per step with the cosine study.
func (d Domain) fig2FromSweep(r *sweep.Result, seeds repro.RunSeeds, episodes int) (fig2Data, error) {
	want := map[string]string{"epsilon": sweep.FormatValue(d.Base.Epsilon), "cosines": "true"}
	read := func(cond string) (cosineRuns, error) {
		runs, err := condition(r, d, cond, want, seeds, episodes)
		if err != nil {
			return cosineRuns{}, err
		}
		return cosineRuns{results: runs.Results, cosU: runs.CosU, cosV: runs.CosV}, nil
	}
	non, err := read(NonDP)
	if err != nil {
		return fig2Data{}, err
	}
	data := fig2Data{results: [][]*actorcritic.Result{non.results}}
	for _, cond := range []string{DPActor, DPCritic, DPBoth} {
		cr, err := read(cond)
		if err != nil {
			return fig2Data{}, err
		}
		data.conds = append(data.conds, cr)
		data.results = append(data.results, cr.results)
	}
	if data.rnd, err = read(Random); err != nil {
		return fig2Data{}, err
	}
	if data.other, err = read(NonDPOtherSeed); err != nil {
		return fig2Data{}, err
	}
	data.results = append(data.results, data.rnd.results)
	return data, nil
}

// Fig2 reproduces Fig. 2, Table 3, Fig. 4 and Table 4 at the per-step ε = 10 on each domain, with size.Runs
// seeds shared by all conditions: Non-DP, DP-Actor, DP-Critic, DP-Both and the random policy (θ = 0).
// It shows their learning curves with 95% bands; Table 3 (the paper's spread, ours over all runs and
// episodes, and per seed with intervals, the first- and last-50 returns); and the per-episode cosine between
// each DP run's end-of-episode traces and the non-DP run of the same seed (Fig. 4, Table 4), beside two
// references: non-DP runs with other seeds (OtherSeed) and the random policy. It records three tested claims
// per domain: DP-Actor learns about as well as Non-DP (Margin); DP-Actor's per-seed return spread exceeds
// Non-DP's (Welch interval of the difference above 0); and DP-Actor's traces are nearly orthogonal to the
// non-DP ones (the mean over seeds of |mean cosine over episodes| has its interval below 0.1). With the
// merged sweep SweepFig2 present in the repository at root it shows that sweep's runs instead of running size (repro.FullSize).
func Fig2(out report.Sink, root string, size Sizes) error {
	full, ok, err := repro.FullSize(out, root, SweepFig2)
	if err != nil {
		return err
	}
	seeds, episodes := repro.FirstRunSeeds(Seed, size.Runs), size.Episodes
	var bar report.Bar
	if ok {
		if seeds, episodes, err = sweepRuns(full); err != nil {
			return err
		}
	} else {
		bar = out.Bar("runs", len(Domains())*6*size.Runs)
	}
	runs := len(seeds.Seeds)
	window := min(Window, episodes)
	for _, d := range Domains() {
		var data fig2Data
		if ok {
			data, err = d.fig2FromSweep(full, seeds, episodes)
		} else {
			data, err = d.fig2Run(runs, episodes, bar)
		}
		if err != nil {
			return err
		}
		names := []string{"Non-DP", actorcritic.DPActor.String(), actorcritic.DPCritic.String(), actorcritic.DPBoth.String(), "Random policy (θ = 0)"}
		results, conds, rnd, other := data.results, data.conds, data.rnd, data.other
		if err := learningCurves(out, fmt.Sprintf("Fig. 2 — %s, ε = 10 per step (%d seeds)", d.Label, runs), names, results); err != nil {
			return err
		}
		out.Markdown(seedNote(seeds))

		var rows [][]string
		var lasts, stds [][]float64
		for i, rs := range results {
			s, err := Summarize(rs, window)
			if err != nil {
				return err
			}
			last, _, err := d.Finals(rs, window)
			if err != nil {
				return err
			}
			first := make([]float64, len(rs))
			for r, res := range rs {
				first[r] = mean(appendFinite(nil, res.Returns[:window]))
			}
			perSeed := ReturnStds(rs)
			lasts, stds = append(lasts, last), append(stds, perSeed)
			paper := "—"
			if i < 4 {
				paper = f2(paperStd[d.Name][i])
			}
			rows = append(rows, []string{names[i], paper, f2(s.Std), ci(perSeed, "%.1f"), ci(first, "%.1f"), ci(last, "%.1f")})
		}
		out.Markdown(fmt.Sprintf("**Table 3 — %s**: standard deviation of the episode returns (ours: over all runs and episodes, "+
			"as we read the paper; and per seed, mean [95%% CI] over seeds), and the mean return over the first and last %d episodes "+
			"(mean [95%% CI] over seeds).", d.Label, window))
		out.Table([]string{"algorithm", "paper std", "our std (all runs)", "our std per seed", fmt.Sprintf("first %d", window), fmt.Sprintf("last %d", window)}, rows)

		// Fig. 4 and Table 4: per-seed cosines with the non-DP run of the same seed.
		type cos struct {
			name, paper string
			per         [][]float64
		}
		cosines := []cos{
			{"DP-Actor e_u", paperCos[d.Name][0], conds[0].cosU},
			{"DP-Critic e_v", paperCos[d.Name][1], conds[1].cosV},
			{"DP-Both e_u", paperCos[d.Name][2], conds[2].cosU},
			{"DP-Both e_v", paperCos[d.Name][3], conds[2].cosV},
			{"reference: Non-DP e_u, other seeds", "—", other.cosU},
			{"reference: random policy e_u", "—", rnd.cosU},
		}
		var cosRows [][]string
		var cosSeries []figure.Series
		for _, c := range cosines {
			m, _, _ := figure.MeanStd(c.per)
			mm := mean(appendFinite(nil, m))
			v := 0.0
			for _, x := range appendFinite(nil, m) {
				v += (x - mm) * (x - mm)
			}
			v /= float64(len(appendFinite(nil, m)))
			cosRows = append(cosRows, []string{c.name, c.paper, ci(rowMeans(c.per), "%.4f"), fmt.Sprintf("%.4f", v)})
			cosSeries = append(cosSeries, episodeSeries(c.name, figure.Smooth(c.per, 10)))
		}
		p, err := figure.Curves(figure.Options{Title: fmt.Sprintf("Fig. 4 — %s: cosine of DP and non-DP traces (%d seeds)", d.Label, runs),
			XLabel: "episode", YLabel: "cosine similarity (10-episode average)", Band: figure.BandCI95}, cosSeries...)
		if err != nil {
			return err
		}
		if err := out.Figure(p); err != nil {
			return err
		}
		out.Markdown(fmt.Sprintf("**Table 4 — %s**: cosine similarity between a run's end-of-episode traces and those of the non-DP run "+
			"with the same seed: the mean over episodes per seed, mean [95%% CI] over seeds, and the variance over episodes of the "+
			"seed-averaged cosine. The references bound what the cosine can tell: two non-private runs with different seeds, and a "+
			"policy that never learns.", d.Label))
		out.Table([]string{"trace", "paper: mean (variance)", "ours: mean [95% CI]", "ours: variance over episodes"}, cosRows)

		diff, lo, hi := marginTest(lasts[1], lasts[0])
		dStd, sLo, sHi := experiment.DiffCI(stds[1], stds[0], 0.95)
		cosActor := absAll(rowMeans(conds[0].cosU))
		cm, cLo, cHi := experiment.MeanCI(cosActor, 0.95)
		refCos, _, _ := experiment.MeanCI(absAll(rowMeans(other.cosU)), 0.95)
		refNote := "so the test does separate DP-Actor from a change of seed"
		if refCos < 0.1 {
			refNote = "also below 0.1: the test cannot tell DP-Actor's noise from a change of seed"
		}
		nonLast, _, _ := experiment.MeanCI(lasts[0], 0.95)
		rndLast, _, _ := experiment.MeanCI(lasts[4], 0.95)
		actorStd, _, _ := experiment.MeanCI(stds[1], 0.95)
		nonStd, _, _ := experiment.MeanCI(stds[0], 0.95)
		repro.Record(out,
			repro.Tested(repro.Claim{Key: "fig2-" + d.Name, Claim: d.Label + ": DP-Actor at ε = 10 learns about as well as Non-DP (Fig. 2)",
				Paper: "comparable curves",
				Why: fmt.Sprintf("test: last-%d return of DP-Actor − 1.2 × Non-DP's (at most 20%% worse) > 0, Welch 95%% interval; "+
					"Non-DP %.1f, random policy %.1f", window, nonLast, rndLast)}, diff, lo, hi, runs, "%.1f", 0, true),
			repro.Tested(repro.Claim{Key: "tab3-" + d.Name, Claim: d.Label + ": DP-Actor's returns spread more than Non-DP's (Table 3)",
				Paper: fmt.Sprintf("std %.1f vs %.1f", paperStd[d.Name][1], paperStd[d.Name][0]),
				Why: fmt.Sprintf("test: per-seed std of the episode returns, DP-Actor − Non-DP > 0, Welch 95%% interval; "+
					"ours %.1f vs %.1f: the ordering holds, the spread is larger than the paper's", actorStd, nonStd)}, dStd, sLo, sHi, runs, "%.1f", 0, true),
			repro.Tested(repro.Claim{Key: "tab4-" + d.Name, Claim: d.Label + ": DP-Actor's traces are nearly orthogonal to the non-DP ones (Table 4)",
				Paper: paperCos[d.Name][0],
				Why: fmt.Sprintf("test: per seed |mean cosine over episodes| with the same-seed non-DP run, mean < 0.1, t 95%% interval; "+
					"two non-DP runs with different seeds give %.3f, %s", refCos, refNote)}, cm, cLo, cHi, runs, "%.4f", 0.1, false),
		)
	}
	if bar != nil {
		bar.Done()
	}
	return nil
}

// Fig3 reproduces Fig. 3: the final return (mean over the last 50 episodes) of DP-Actor and DP-Critic (and
// DP-Both with size.Both) for the per-step ε in size.Epsilons, size.Runs seeds each, against the Non-DP and
// random-policy references. A run whose weights overflowed counts with the lowest return an episode can have
// (Domain.Finals). Each setting is tested with Margin (stable, not stable, inconclusive); the claims test, per
// domain, DP-Actor and DP-Critic at the smallest ε the paper calls stable. With the merged sweeps SweepFig3
// and SweepFig2 present in the repository at root it shows their runs, on SweepFig3's grid of variants and ε, instead of running size.
func Fig3(out report.Sink, root string, size Sizes) error {
	full, refs, ok, seeds, episodes, err := withReferences(out, root, SweepFig3, "Fig. 3's", size)
	if err != nil {
		return err
	}
	if ok {
		if size, err = fig3Size(full); err != nil {
			return err
		}
	}
	runs := len(seeds.Seeds)
	window := min(Window, episodes)
	epsilons := size.Epsilons
	if len(epsilons) == 0 {
		return check.Missing("size.Epsilons", "at least one ε")
	}
	variants := []actorcritic.Variant{actorcritic.DPActor, actorcritic.DPCritic}
	if size.Both {
		variants = append(variants, actorcritic.DPBoth)
	}
	var bar report.Bar
	if !ok {
		bar = out.Bar("runs", len(Domains())*(2+len(variants)*len(epsilons))*runs)
	}
	for _, d := range Domains() {
		// finals are the last-window returns of a condition's runs at ε (Domain.Finals), from the sweeps or run.
		finals := func(cond string, eps float64) ([]float64, int, error) {
			var rs []*actorcritic.Result
			switch {
			case ok && (cond == NonDP || cond == Random):
				r, err := condition(refs, d, cond, nil, seeds, episodes)
				if err != nil {
					return nil, 0, err
				}
				rs = r.Results
			case ok:
				r, err := condition(full, d, cond, map[string]string{"epsilon": sweep.FormatValue(eps)}, seeds, episodes)
				if err != nil {
					return nil, 0, err
				}
				rs = r.Results
			default:
				cfg, err := d.Config(cond, eps, episodes)
				if err != nil {
					return nil, 0, err
				}
				if rs, err = d.RunMany(cfg, runs, Seed, bar); err != nil {
					return nil, 0, err
				}
			}
			return d.Finals(rs, window)
		}
		non, _, err := finals(NonDP, 0)
		if err != nil {
			return err
		}
		rnd, _, err := finals(Random, 0)
		if err != nil {
			return err
		}
		var series []figure.Series
		var rows [][]string
		var claims []repro.Claim
		for vi, v := range variants {
			y := make([][]float64, runs)
			for r := range y {
				y[r] = make([]float64, len(epsilons))
			}
			for k, eps := range epsilons {
				f, div, err := finals(variantCondition[v], eps)
				if err != nil {
					return err
				}
				for r, val := range f {
					y[r][k] = val
				}
				diff, lo, hi := marginTest(f, non)
				paper := "—"
				var stable []float64
				if vi < 2 {
					stable = paperStable[d.Name][vi]
					paper = "no"
					if slices.Contains(stable, eps) {
						paper = "yes"
					}
				}
				rows = append(rows, []string{v.String(), fmt.Sprint(eps), ci(f, "%.1f"), fmt.Sprintf("%.1f [%.1f, %.1f]", diff, lo, hi),
					stability(lo, hi), paper, fmt.Sprintf("%d/%d", div, runs)})
				if len(stable) > 0 && eps == slices.Min(stable) {
					mDP, _, _ := experiment.MeanCI(f, 0.95)
					mNon, _, _ := experiment.MeanCI(non, 0.95)
					mRnd, _, _ := experiment.MeanCI(rnd, 0.95)
					why := fmt.Sprintf("test at the smallest ε the paper calls stable: last-%d return − 1.2 × Non-DP's > 0, Welch 95%% interval; "+
						"%s %.1f, Non-DP %.1f, random policy %.1f", window, v, mDP, mNon, mRnd)
					if div > 0 {
						why += fmt.Sprintf("; %d/%d runs overflowed and count with the lowest possible return", div, runs)
					}
					claims = append(claims, repro.Tested(repro.Claim{Key: fmt.Sprintf("fig3-%s-%s", []string{"actor", "critic"}[vi], d.Name),
						Claim: fmt.Sprintf("%s: %s is stable down to ε = %g (Fig. 3)", d.Label, v, eps),
						Paper: fmt.Sprintf("stable for ε ∈ {%s}", joinFloats(stable)), Why: why}, diff, lo, hi, runs, "%.1f", 0, true))
				}
			}
			series = append(series, figure.Series{Name: v.String(), X: epsilons, Y: y})
		}
		for _, ref := range []struct {
			name string
			f    []float64
		}{{"Non-DP", non}, {"Random policy (θ = 0)", rnd}} {
			flat := make([][]float64, len(ref.f))
			for r, val := range ref.f {
				flat[r] = make([]float64, len(epsilons))
				for k := range flat[r] {
					flat[r][k] = val
				}
			}
			series = append(series, figure.Series{Name: ref.name, X: epsilons, Y: flat})
		}
		p, err := figure.Curves(figure.Options{Title: fmt.Sprintf("Fig. 3 — %s: final return vs ε (%d seeds)", d.Label, runs),
			XLabel: "ε (per step, as published)", YLabel: fmt.Sprintf("mean return, last %d episodes", window), LogX: true, LegendBottom: true,
			Band: figure.BandCI95}, series...)
		if err != nil {
			return err
		}
		if err := out.Figure(p); err != nil {
			return err
		}
		out.Markdown(fmt.Sprintf("%s Runs whose weights overflowed are drawn and tested at the lowest possible return (%.0f). "+
			"Non-DP: %s, random policy: %s (last-%d return, mean [95%% CI]).", seedNote(seeds), float64(d.MaxSteps)*d.MinReward,
			ci(non, "%.1f"), ci(rnd, "%.1f"), window))
		out.Table([]string{"algorithm", "ε per step", fmt.Sprintf("last-%d return", window), "− 1.2 × Non-DP [95% CI]", "ours", "paper: stable",
			"weights overflowed"}, rows)
		repro.Record(out, claims...)
	}
	if bar != nil {
		bar.Done()
	}
	return nil
}

// variantCondition names the published variants as Domain.Config and the sweep do.
var variantCondition = map[actorcritic.Variant]string{actorcritic.DPActor: DPActor, actorcritic.DPCritic: DPCritic, actorcritic.DPBoth: DPBoth}

// fig3Size is the grid of the merged sweep SweepFig3 as Sizes: its ε values in the spec's order, and Both
// when it ran DP-Both. It must have run DP-Actor and DP-Critic.
func fig3Size(r *sweep.Result) (Sizes, error) {
	values := func(key string) []any {
		if v, ok := r.Spec.Grid[key]; ok {
			return v
		}
		if v, ok := r.Spec.Params[key]; ok {
			return []any{v}
		}
		return nil
	}
	var size Sizes
	for _, v := range values("epsilon") {
		eps, err := strconv.ParseFloat(sweep.FormatValue(v), 64)
		if err != nil {
			return Sizes{}, fmt.Errorf("seoyang2020: sweep %s: epsilon %v: %w", r.Spec.Name, v, err)
		}
		size.Epsilons = append(size.Epsilons, eps)
	}
	if len(size.Epsilons) == 0 {
		return Sizes{}, fmt.Errorf("seoyang2020: sweep %s sets no epsilon", r.Spec.Name)
	}
	var conds []string
	for _, v := range values("variant") {
		conds = append(conds, sweep.FormatValue(v))
	}
	if !slices.Contains(conds, DPActor) || !slices.Contains(conds, DPCritic) {
		return Sizes{}, fmt.Errorf("seoyang2020: sweep %s ran the variants %v; Fig. 3 needs %s and %s", r.Spec.Name, conds, DPActor, DPCritic)
	}
	size.Both = slices.Contains(conds, DPBoth)
	return size, nil
}

// joinFloats lists x as "10, 5, 1".
func joinFloats(x []float64) string {
	s := ""
	for i, v := range x {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprint(v)
	}
	return s
}

func f2(x float64) string { return fmt.Sprintf("%.2f", x) }
