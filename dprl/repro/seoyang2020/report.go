package seoyang2020

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/dprl-project/dprl/dprl/actorcritic"
	"github.com/dprl-project/dprl/dprl/experiment"
	"github.com/dprl-project/dprl/dprl/figure"
	"github.com/dprl-project/dprl/dprl/report"
	"github.com/dprl-project/dprl/dprl/repro"
	"github.com/dprl-project/dprl/mechanisms"
)

// Notebook names the notebook's claims file (repro.ClaimsFile).
const Notebook = "06-seo2020"

// Delta is the δ of every run and table (Table 2).
const Delta = 1e-6

// Seed is the seed of every experiment: all conditions share rand.NewPCG(Seed, run) streams.
const Seed = 2020

// Sizes sizes the experiments: Runs runs of Episodes episodes per condition.
type Sizes struct {
	Runs, Episodes int
}

// DefaultSizes is 5 runs of 500 episodes (2 of 60 in quick mode); paperScale selects the paper's 10 runs of
// 500 episodes.
func DefaultSizes(paperScale bool) Sizes {
	if paperScale {
		return Sizes{10, 500}
	}
	return Sizes{experiment.Size(5, 2), experiment.Size(500, 60)}
}

// The paper's numbers, by domain name: Table 3's performance standard deviation and Table 4's cosines
// (mean (variance)) for Non-DP, DP-Actor, DP-Critic, DP-Both; and Fig. 3's ε values at which DP-Actor and
// DP-Critic are called stable.
var (
	paperStd = map[string][]float64{"mdp100": {30.26, 68.04, 27.1, 66.63}, "taxi": {43.47, 57.21, 50.03, 52.72}}
	paperCos = map[string][]string{"mdp100": {"0.021 (0.0042)", "0.839 (0.006)", "0.014 (0.003)", "0.497 (0.006)"},
		"taxi": {"-0.0008 (0.0003)", "0.035 (0.001)", "-0.0001 (0.0003)", "0.0146 (0.0007)"}}
	paperStable = map[string][]string{"mdp100": {"10, 5, 1, 0.5", "10, 5, 1"}, "taxi": {"10, 5, 1", "10, 5"}}
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

// learningCurves plots the returns of several conditions, smoothed over 10 episodes, mean ± std over runs.
func learningCurves(out report.Sink, title string, names []string, results [][]*actorcritic.Result) error {
	var series []figure.Series
	for i, rs := range results {
		y := figure.Smooth(ReturnsByRun(rs), 10)
		x := make([]float64, len(y[0]))
		for k := range x {
			x[k] = float64(k + 1)
		}
		series = append(series, figure.Series{Name: names[i], X: x, Y: y})
	}
	p, err := figure.Curves(figure.Options{Title: title, XLabel: "episode", YLabel: "return (10-episode average)", LegendBottom: true}, series...)
	if err != nil {
		return err
	}
	return out.Figure(p)
}

func f2(x float64) string { return fmt.Sprintf("%.2f", x) }

// tracePair is a DP condition's traces and the non-DP traces they are compared with.
type tracePair struct {
	name  string
	dp    [][][]float64
	other [][][]float64
}

// Fig2 reproduces Fig. 2, Table 3, Fig. 4 and Table 4 at ε = 10 on each domain: the four variants
// (Non-DP, DP-Actor, DP-Critic, DP-Both) with the same seeds and recorded traces; their learning curves;
// the standard deviation of the returns and the mean return over the first and last 50 episodes beside the
// paper's; and the cosine between the run-averaged DP and non-DP end-of-episode traces per episode, plotted
// and summarised as mean (variance) beside the paper's. It records three claims per domain: DP-Actor's
// last-50 return is at least 1.2 × Non-DP's (for negative returns: at most 20% worse); the spread ordering
// of Table 3 (DP-Actor and DP-Both above Non-DP, DP-Actor above DP-Critic); and DP-Actor's mean cosine below
// 0.1 in absolute value.
func Fig2(out report.Sink, size Sizes) error {
	runs, episodes := size.Runs, size.Episodes
	claimsFile := repro.ClaimsFile(Notebook)
	variants := []actorcritic.Variant{actorcritic.NonDP, actorcritic.DPActor, actorcritic.DPCritic, actorcritic.DPBoth}
	bar := out.Bar("runs", len(Domains())*len(variants)*runs)
	for _, d := range Domains() {
		var results [][]*actorcritic.Result
		var names []string
		for _, v := range variants {
			cfg := d.Base
			cfg.Variant, cfg.Episodes, cfg.RecordTraces = v, episodes, true
			rs, err := d.RunMany(cfg, runs, Seed, bar)
			if err != nil {
				return err
			}
			results = append(results, rs)
			names = append(names, v.String())
		}
		if err := learningCurves(out, fmt.Sprintf("Fig. 2 — %s, ε = 10 (%d runs)", d.Label, runs), names, results); err != nil {
			return err
		}

		var rows [][]string
		var sums []Summary
		for i, rs := range results {
			s, err := Summarize(rs, min(50, episodes))
			if err != nil {
				return err
			}
			sums = append(sums, s)
			rows = append(rows, []string{names[i], f2(paperStd[d.Name][i]), f2(s.Std), f2(s.First), f2(s.Last)})
		}
		out.Markdown(fmt.Sprintf("**Table 3 — %s**: standard deviation of episode returns, and mean return over the first and last 50 episodes.", d.Label))
		out.Table([]string{"algorithm", "paper std", "our std", "first 50", "last 50"}, rows)

		nonU, nonV := Traces(results[0], true), Traces(results[0], false)
		pairs := []tracePair{
			{"DP-Actor e_u", Traces(results[1], true), nonU},
			{"DP-Critic e_v", Traces(results[2], false), nonV},
			{"DP-Both e_u", Traces(results[3], true), nonU},
			{"DP-Both e_v", Traces(results[3], false), nonV},
		}
		var cosRows [][]string
		var cosSeries []figure.Series
		for i, pr := range pairs {
			per, m, v := TraceSimilarity(pr.dp, pr.other)
			cosRows = append(cosRows, []string{pr.name, paperCos[d.Name][i], fmt.Sprintf("%.4f (%.4f)", m, v)})
			x := make([]float64, len(per))
			for k := range x {
				x[k] = float64(k + 1)
			}
			cosSeries = append(cosSeries, figure.Series{Name: pr.name, X: x, Y: [][]float64{per}})
		}
		p, err := figure.Curves(figure.Options{Title: "Fig. 4 — " + d.Label + ": cosine of DP and non-DP traces", XLabel: "episode", YLabel: "cosine similarity"}, cosSeries...)
		if err != nil {
			return err
		}
		if err := out.Figure(p); err != nil {
			return err
		}
		out.Markdown(fmt.Sprintf("**Table 4 — %s**: cosine similarity to the non-DP traces, mean (variance) over episodes.", d.Label))
		out.Table([]string{"trace", "paper", "ours"}, cosRows)

		verdict := "not reproduced"
		if sums[1].Last >= 1.2*sums[0].Last {
			verdict = "reproduced"
		}
		stdVerdict := "not reproduced"
		if sums[1].Std > sums[0].Std && sums[3].Std > sums[0].Std && sums[1].Std > sums[2].Std {
			stdVerdict = "partly: same ordering, larger spread"
		}
		_, cosActor, _ := TraceSimilarity(pairs[0].dp, pairs[0].other)
		cosVerdict := "not reproduced"
		if math.Abs(cosActor) < 0.1 {
			cosVerdict = "reproduced (|cosine| < 0.1)"
		}
		if err := repro.RecordClaims(claimsFile,
			repro.Claim{Key: "fig2-" + d.Name, Claim: d.Label + ": DP-Actor at ε = 10 learns about as well as Non-DP (Fig. 2)",
				Paper: "comparable curves", Measured: fmt.Sprintf("last-50 return %s vs Non-DP %s", f2(sums[1].Last), f2(sums[0].Last)), Verdict: verdict},
			repro.Claim{Key: "tab3-" + d.Name, Claim: d.Label + ": performance std Non-DP / DP-Actor / DP-Critic / DP-Both (Table 3)",
				Paper:    fmt.Sprintf("%.1f / %.1f / %.1f / %.1f", paperStd[d.Name][0], paperStd[d.Name][1], paperStd[d.Name][2], paperStd[d.Name][3]),
				Measured: fmt.Sprintf("%.1f / %.1f / %.1f / %.1f", sums[0].Std, sums[1].Std, sums[2].Std, sums[3].Std), Verdict: stdVerdict},
			repro.Claim{Key: "tab4-" + d.Name, Claim: d.Label + ": DP actor traces nearly orthogonal to non-DP (Table 4)",
				Paper: paperCos[d.Name][0], Measured: cosRows[0][2], Verdict: cosVerdict},
		); err != nil {
			return err
		}
	}
	bar.Done()
	return nil
}

// join lists s, or says "none".
func join(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}

// Fig3 reproduces Fig. 3: the final return (mean over the last 50 episodes) of DP-Actor, DP-Critic and
// DP-Both for ε ∈ {10, 5, 1, 0.5, 0.1} against the Non-DP reference, with 3/5 of size.Runs runs (at least
// one). A setting is stable when its mean final return is at least 1.2 × Non-DP's (for negative returns: at
// most 20% worse); runs whose weights overflowed are counted and reported, and their missing returns never
// make a setting stable. It records per domain whether DP-Actor's and DP-Critic's stable ε values are exactly
// the paper's.
func Fig3(out report.Sink, size Sizes) error {
	runs, episodes := size.Runs, size.Episodes
	runs = max(1, runs*3/5)
	claimsFile := repro.ClaimsFile(Notebook)
	epsilons := []float64{10, 5, 1, 0.5, 0.1}
	variants := []actorcritic.Variant{actorcritic.DPActor, actorcritic.DPCritic, actorcritic.DPBoth}
	bar := out.Bar("runs", len(Domains())*(1+len(variants)*len(epsilons))*runs)
	for _, d := range Domains() {
		window := min(50, episodes)
		// finals returns each run's mean return over the last episodes (NaN for a run that diverged) and how
		// many runs diverged.
		finals := func(v actorcritic.Variant, eps float64) ([]float64, int, error) {
			cfg := d.Base
			cfg.Variant, cfg.Episodes, cfg.Epsilon = v, episodes, eps
			rs, err := d.RunMany(cfg, runs, Seed, bar)
			if err != nil {
				return nil, 0, err
			}
			last := make([]float64, len(rs))
			div := 0
			for i, r := range rs {
				s, err := Summarize([]*actorcritic.Result{r}, window)
				if err != nil {
					return nil, 0, err
				}
				last[i] = s.Last
				div += s.Diverged
			}
			return last, div, nil
		}
		base, _, err := finals(actorcritic.NonDP, 10)
		if err != nil {
			return err
		}
		baseMean := 0.0
		for _, v := range base {
			baseMean += v / float64(len(base))
		}
		var series []figure.Series
		stable, diverged := map[actorcritic.Variant][]string{}, map[actorcritic.Variant][]string{}
		for _, v := range variants {
			y := make([][]float64, runs)
			for r := range y {
				y[r] = make([]float64, len(epsilons))
			}
			for k, eps := range epsilons {
				f, div, err := finals(v, eps)
				if err != nil {
					return err
				}
				if div > 0 {
					diverged[v] = append(diverged[v], fmt.Sprintf("%g (%d/%d runs)", eps, div, runs))
				}
				m := 0.0
				for r, val := range f {
					y[r][k] = val
					m += val / float64(len(f))
				}
				if m >= 1.2*baseMean {
					stable[v] = append(stable[v], fmt.Sprint(eps))
				}
			}
			series = append(series, figure.Series{Name: v.String(), X: epsilons, Y: y})
		}
		flat := make([][]float64, len(base))
		for r, val := range base {
			flat[r] = []float64{val, val, val, val, val}
		}
		series = append(series, figure.Series{Name: "Non-DP", X: epsilons, Y: flat})
		p, err := figure.Curves(figure.Options{Title: fmt.Sprintf("Fig. 3 — %s: final return vs ε (%d runs)", d.Label, runs),
			XLabel: "ε (per step, as published)", YLabel: "mean return, last 50 episodes", LogX: true, LegendBottom: true}, series...)
		if err != nil {
			return err
		}
		if err := out.Figure(p); err != nil {
			return err
		}
		out.Table([]string{"algorithm", "paper: stable for ε", "ours: stable for ε", "ours: weights overflowed at ε"}, [][]string{
			{"DP-Actor", paperStable[d.Name][0], join(stable[actorcritic.DPActor]), join(diverged[actorcritic.DPActor])},
			{"DP-Critic", paperStable[d.Name][1], join(stable[actorcritic.DPCritic]), join(diverged[actorcritic.DPCritic])},
			{"DP-Both", "—", join(stable[actorcritic.DPBoth]), join(diverged[actorcritic.DPBoth])},
		})
		verdictFor := func(got []string, paper string) string {
			if slices.Equal(got, strings.Split(paper, ", ")) {
				return "reproduced"
			}
			return "not reproduced"
		}
		if err := repro.RecordClaims(claimsFile,
			repro.Claim{Key: "fig3-actor-" + d.Name, Claim: d.Label + ": ε values at which DP-Actor is stable (Fig. 3)", Paper: paperStable[d.Name][0],
				Measured: join(stable[actorcritic.DPActor]), Verdict: verdictFor(stable[actorcritic.DPActor], paperStable[d.Name][0])},
			repro.Claim{Key: "fig3-critic-" + d.Name, Claim: d.Label + ": ε values at which DP-Critic is stable (Fig. 3)", Paper: paperStable[d.Name][1],
				Measured: join(stable[actorcritic.DPCritic]), Verdict: verdictFor(stable[actorcritic.DPCritic], paperStable[d.Name][1])},
		); err != nil {
			return err
		}
	}
	bar.Done()
	return nil
}

// RealEpsilon asks what ε the runs really have, per domain. It counts the steps of the first DP-Both run at
// ε = 10 (size.Runs runs are made), composes the published σ's releases over that many steps (DP-Actor: one
// noised vector per step) and twice as many (DP-Both) with ComposedPublishedEpsilon, and records that the
// published per-step (10, 1e−6) claim has no whole-run support. Then it runs the corrected variant calibrated
// for a whole-run ε of 100 and 10 per episode (actorcritic.CorrectedNoise with H = the domain's MaxSteps,
// clip 1) against Non-DP and plots the learning curves; the table of composed ε values comes last.
func RealEpsilon(out report.Sink, size Sizes) error {
	runs, episodes := size.Runs, size.Episodes
	claimsFile := repro.ClaimsFile(Notebook)
	const delta = Delta
	var rows [][]string
	bar := out.Bar("runs", len(Domains())*4*runs)
	for _, d := range Domains() {
		// The number of releases in a real run: steps of a DP-Both run at ε = 10 (two noised vectors per step).
		cfg := d.Base
		cfg.Variant, cfg.Episodes = actorcritic.DPBoth, episodes
		rs, err := d.RunMany(cfg, runs, Seed, bar)
		if err != nil {
			return err
		}
		steps := 0
		for _, l := range rs[0].Lengths {
			steps += l
		}
		sigma := actorcritic.PublishedSigma(10, delta)
		eActor, err := ComposedPublishedEpsilon(sigma, steps, delta)
		if err != nil {
			return err
		}
		eBoth, err := ComposedPublishedEpsilon(sigma, 2*steps, delta)
		if err != nil {
			return err
		}
		rows = append(rows, []string{d.Label, "10 per step", fmt.Sprintf("%d steps", steps), fmt.Sprintf("%.0f", eActor), fmt.Sprintf("%.0f", eBoth)})
		if err := repro.RecordClaims(claimsFile, repro.Claim{Key: "privacy-" + d.Name, Claim: d.Label + ": the run is (10, 1e-6)-DP",
			Paper: "ε = 10 (per step)", Measured: fmt.Sprintf("no whole-run guarantee; composing only the noised releases: ε ≈ %.0f (DP-Actor), %.0f (DP-Both)", eActor, eBoth),
			Verdict: "not supported"}); err != nil {
			return err
		}

		// The corrected variant at a whole-run ε of 10 and 100 (per patient), against Non-DP.
		names := []string{"Non-DP"}
		base := d.Base
		base.Episodes = episodes
		non, err := d.RunMany(base, runs, Seed, bar)
		if err != nil {
			return err
		}
		results := [][]*actorcritic.Result{non}
		for _, eps := range []float64{100, 10} {
			s, err := actorcritic.CorrectedNoise(eps, delta, d.MaxSteps)
			if err != nil {
				return err
			}
			c := d.Base
			c.Variant, c.Episodes, c.Clip, c.NoiseMultiplier = actorcritic.Corrected, episodes, 1, s
			rc, err := d.RunMany(c, runs, Seed, bar)
			if err != nil {
				return err
			}
			whole, err := actorcritic.CorrectedEpsilon(s, d.MaxSteps, delta)
			if err != nil {
				return err
			}
			names = append(names, fmt.Sprintf("Corrected, whole-run ε = %.3g (σ = %.1f)", whole, s))
			results = append(results, rc)
		}
		if err := learningCurves(out, "Corrected variant — "+d.Label, names, results); err != nil {
			return err
		}
	}
	bar.Done()
	out.Table([]string{"domain", "published ε", "run length", "composed ε, DP-Actor", "composed ε, DP-Both"}, rows)
	return nil
}
