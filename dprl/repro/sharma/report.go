package sharma

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"sort"
	"strings"

	"gonum.org/v1/plot"

	"github.com/dprl-project/dprl/dprl/experiment"
	"github.com/dprl-project/dprl/dprl/expertdp"
	"github.com/dprl-project/dprl/dprl/figure"
)

// Fig3Jobs are the jobs of the paper's Fig. 3 on envs: for each learner and ε, ours (PaperSplit and
// PaperP) and expert-level DP-SGD, plus the non-private baseline, for seeds seeds.
func Fig3Jobs(envs []string, eps []float64, seeds int) []Job {
	var jobs []Job
	for _, env := range envs {
		for _, alg := range []expertdp.Algorithm{expertdp.CQL, expertdp.BCQ} {
			for s := range seeds {
				jobs = append(jobs, Job{Tag: "fig3", Env: env, Algorithm: alg, Method: NonPrivate, Seed: s})
				for _, e := range eps {
					jobs = append(jobs,
						Job{Tag: "fig3", Env: env, Algorithm: alg, Method: Ours, Epsilon: e, Split: PaperSplit(env, e, 1, false), P: PaperP(env, alg, e), Seed: s},
						Job{Tag: "fig3", Env: env, Algorithm: alg, Method: ExpertDPSGD, Epsilon: e, Seed: s})
				}
			}
		}
	}
	return jobs
}

// Fig4Jobs are the paper's Fig. 4: Acrobot, ε = 10, CQL, ours vs expert-level DP-SGD for m experts (the
// first m of the setup), with the non-private baseline at each m. At m = NumExperts they are Fig. 3's runs
// (Job.Setting), which Config.Jobs runs once.
func Fig4Jobs(ms []int, seeds int) []Job {
	var jobs []Job
	for _, m := range ms {
		for s := range seeds {
			jobs = append(jobs,
				Job{Tag: "fig4", Env: "acrobot", Algorithm: expertdp.CQL, Method: NonPrivate, Experts: m, Seed: s},
				Job{Tag: "fig4", Env: "acrobot", Algorithm: expertdp.CQL, Method: Ours, Epsilon: 10, Split: PaperSplit("acrobot", 10, 1, false), Experts: m, Seed: s},
				Job{Tag: "fig4", Env: "acrobot", Algorithm: expertdp.CQL, Method: ExpertDPSGD, Epsilon: 10, Experts: m, Seed: s})
		}
	}
	return jobs
}

// Table2Jobs are Table 2's ablations at reduced scale: CartPole at ε = 10 with p ∈ {0, Table 1's, 1}
// (CQL and BCQ), and the low-ε allocation ε1 = 3ε/4 (p = 0.5) against ε1 = 0 for Acrobot BCQ at ε = 2.5
// and CartPole BCQ at ε = 2.5 and 5.
func Table2Jobs(seeds int) []Job {
	var jobs []Job
	for s := range seeds {
		for _, alg := range []expertdp.Algorithm{expertdp.CQL, expertdp.BCQ} {
			for _, p := range []float64{0, PaperP("cartpole", alg, 10), 1} {
				jobs = append(jobs, Job{Tag: "table2-p", Env: "cartpole", Algorithm: alg, Method: Ours, Epsilon: 10, Split: PaperSplit("cartpole", 10, 1, false), P: p, Seed: s})
			}
		}
		for _, c := range []struct {
			env string
			eps float64
		}{{"acrobot", 2.5}, {"cartpole", 2.5}, {"cartpole", 5}} {
			low := PaperSplit("cartpole", c.eps, 1, true)
			low.T = PaperSplit(c.env, c.eps, 1, true).T
			jobs = append(jobs,
				Job{Tag: "table2-low", Env: c.env, Algorithm: expertdp.BCQ, Method: Ours, Epsilon: c.eps, Split: low, P: 0.5, Seed: s},
				Job{Tag: "table2-low", Env: c.env, Algorithm: expertdp.BCQ, Method: ExpertDPSGD, Epsilon: c.eps, Seed: s})
		}
	}
	return jobs
}

// PublishedJobs are the runs labelled "published accounting": CartPole at ε = 10 with Table 1's p (CQL 0.8,
// BCQ 0.5), the DP-SGD steps calibrated with the paper's q = p·b/m, so that they spend more than ε = 10
// (PrivacyRows says how much). They are compared only with the same setting under the exact accounting
// (CheckAccounting: what the exact accounting costs), never with another method.
func PublishedJobs(seeds int) []Job {
	var jobs []Job
	for s := range seeds {
		for _, alg := range []expertdp.Algorithm{expertdp.CQL, expertdp.BCQ} {
			jobs = append(jobs, Job{Tag: "published", Env: "cartpole", Algorithm: alg, Method: Ours, Epsilon: 10, Split: PaperSplit("cartpole", 10, 1, false),
				P: PaperP("cartpole", alg, 10), Seed: s, Accounting: expertdp.AccountingPaper})
		}
	}
	return jobs
}

// SaveOutcomes writes outcomes as JSON (notebook cells share results through files).
func SaveOutcomes(path string, o []Outcome) error {
	b, err := json.Marshal(o)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

// LoadOutcomes reads what SaveOutcomes wrote.
func LoadOutcomes(path string) ([]Outcome, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var o []Outcome
	return o, json.Unmarshal(b, &o)
}

// MarshalJSON writes NaN returns (jobs that could not train) as null.
func (o Outcome) MarshalJSON() ([]byte, error) {
	type plain Outcome
	out := struct {
		plain
		Return, Normalized *float64
	}{plain: plain(o)}
	if !math.IsNaN(o.Return) {
		out.Return, out.Normalized = &o.Return, &o.Normalized
	}
	return json.Marshal(out)
}

// UnmarshalJSON reads null returns as NaN.
func (o *Outcome) UnmarshalJSON(b []byte) error {
	type plain Outcome
	in := struct {
		plain
		Return, Normalized *float64
	}{}
	if err := json.Unmarshal(b, &in); err != nil {
		return err
	}
	*o = Outcome(in.plain)
	o.Return, o.Normalized = math.NaN(), math.NaN()
	if in.Return != nil {
		o.Return, o.Normalized = *in.Return, *in.Normalized
	}
	return nil
}

// seedValues is the normalised return of every seed of a setting, indexed by seed (NaN for a seed that is
// missing).
func seedValues(all []Outcome, set Setting) []float64 {
	var v []float64
	for _, o := range all {
		if o.Setting() != set {
			continue
		}
		for len(v) <= o.Seed {
			v = append(v, math.NaN())
		}
		v[o.Seed] = o.Normalized
	}
	return v
}

// nonPrivate is the setting of the non-private baseline of env, alg and m experts (0: all).
func nonPrivate(env string, alg expertdp.Algorithm, m int) Setting {
	return Job{Env: env, Algorithm: alg, Method: NonPrivate, Experts: m}.Setting()
}

// npMean is the mean normalised return of the non-private runs of env and alg on m experts (0: all), or on
// all experts if there are none at m.
func npMean(all []Outcome, env string, alg expertdp.Algorithm, m int) float64 {
	v, _, _ := experiment.MeanCI(seedValues(all, nonPrivate(env, alg, m)), 0.95)
	if math.IsNaN(v) && m != 0 {
		v, _, _ = experiment.MeanCI(seedValues(all, nonPrivate(env, alg, 0)), 0.95)
	}
	return v
}

// Fraction is an outcome's normalised return as a fraction of the non-private learner's (mean over the
// seeds of the same environment, learner and m), the paper's y-axis.
func Fraction(all []Outcome, o Outcome) float64 {
	return o.Normalized / npMean(all, o.Env, o.Algorithm, o.Setting().Experts)
}

// MeanFraction is the mean Fraction of the outcomes keep says, skipping runs without a return (NaN if none
// has one).
func MeanFraction(all []Outcome, keep func(Outcome) bool) float64 {
	sum, n := 0.0, 0
	for _, o := range all {
		if keep(o) && !math.IsNaN(o.Normalized) {
			sum += Fraction(all, o)
			n++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return sum / float64(n)
}

// Select returns the outcomes that keep says.
func Select(all []Outcome, keep func(Outcome) bool) []Outcome {
	var out []Outcome
	for _, o := range all {
		if keep(o) {
			out = append(out, o)
		}
	}
	return out
}

// Settings lists the distinct settings of jobs in order of first appearance.
func Settings(jobs []Job) []Setting {
	var out []Setting
	seen := map[Setting]bool{}
	for _, j := range jobs {
		if s := j.Setting(); !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// curve is a figure series over xs: trial t at xs[i] is seed t's normalised return of setting set(xs[i])
// divided by scale(xs[i]).
func curve(name string, all []Outcome, xs []float64, set func(x float64) Setting, scale func(x float64) float64) figure.Series {
	var y [][]float64
	for i, x := range xs {
		for t, v := range seedValues(all, set(x)) {
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
		y = [][]float64{make([]float64, len(xs))}
		for k := range y[0] {
			y[0][k] = math.NaN()
		}
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

// oursSetting is Fig. 3's "ours" on env with alg at ε: the paper's split and Table 1's p, exact accounting.
func oursSetting(env string, alg expertdp.Algorithm, eps float64) Setting {
	return Job{Env: env, Algorithm: alg, Method: Ours, Epsilon: eps, Split: PaperSplit(env, eps, 1, false), P: PaperP(env, alg, eps)}.Setting()
}

// dpsgdSetting is expert-level DP-SGD on env with alg at ε on m experts (0: all).
func dpsgdSetting(env string, alg expertdp.Algorithm, eps float64, m int) Setting {
	return Job{Env: env, Algorithm: alg, Method: ExpertDPSGD, Epsilon: eps, Experts: m}.Setting()
}

// Fig3Plot is Fig. 3 for one environment and learner: the fraction of the non-private return against ε,
// ours and expert-level DP-SGD (both at the same ε, exact accounting), mean with a 95% confidence band over
// seeds, beside the non-private learner (1, its own band) and the uniform policy (0).
func Fig3Plot(all []Outcome, env string, alg expertdp.Algorithm) (*plot.Plot, error) {
	np := npMean(all, env, alg, 0)
	scale := func(float64) float64 { return np }
	return figure.Curves(figure.Options{Title: fmt.Sprintf("Fig. 3, %s %v: return vs ε (fraction of non-private)", env, alg),
		XLabel: "ε (δ = 1/m; exact accounting)", YLabel: "normalised return / non-private", Band: figure.BandCI95, LegendBottom: true},
		curve("ours", all, Epsilons, func(e float64) Setting { return oursSetting(env, alg, e) }, scale),
		curve("expert-level DP-SGD", all, Epsilons, func(e float64) Setting { return dpsgdSetting(env, alg, e, 0) }, scale),
		curve("non-private", all, Epsilons, func(float64) Setting { return nonPrivate(env, alg, 0) }, scale),
		flat("uniform policy", Epsilons, 0))
}

// fig4Setting is Fig. 4's ours (Acrobot, ε = 10, CQL, release only) on the first m experts.
func fig4Setting(m int) Setting {
	return Job{Env: "acrobot", Algorithm: expertdp.CQL, Method: Ours, Epsilon: 10, Split: PaperSplit("acrobot", 10, 1, false), Experts: m}.Setting()
}

func fig4Xs() []float64 {
	xs := make([]float64, len(Fig4M))
	for i, m := range Fig4M {
		xs[i] = float64(m)
	}
	return xs
}

// Fig4Plot is Fig. 4: Acrobot, ε = 10, CQL, fraction of the non-private return (at the same m) against m,
// with 95% confidence bands, the non-private learner and the uniform policy.
func Fig4Plot(all []Outcome) (*plot.Plot, error) {
	xs := fig4Xs()
	scale := func(x float64) float64 { return npMean(all, "acrobot", expertdp.CQL, int(x)) }
	return figure.Curves(figure.Options{Title: "Fig. 4: Acrobot, ε = 10, CQL", XLabel: "number of experts m (δ = 1/m)",
		YLabel: "normalised return / non-private", Band: figure.BandCI95, LegendBottom: true},
		curve("ours (DataRelease, p = 0)", all, xs, func(x float64) Setting { return fig4Setting(int(x)) }, scale),
		curve("expert-level DP-SGD", all, xs, func(x float64) Setting { return dpsgdSetting("acrobot", expertdp.CQL, 10, int(x)) }, scale),
		curve("non-private", all, xs, func(x float64) Setting { return nonPrivate("acrobot", expertdp.CQL, int(x)) }, scale),
		flat("uniform policy", xs, 0))
}

// gainAt is the gain of ours over expert-level DP-SGD at m (Fig. 4's setting): the difference of mean
// normalised returns with its Welch 95% interval, and the two samples.
func gainAt(all []Outcome, m int) (d, lo, hi float64, ours, dp []float64) {
	ours = seedValues(all, fig4Setting(m))
	dp = seedValues(all, dpsgdSetting("acrobot", expertdp.CQL, 10, m))
	d, lo, hi = experiment.DiffCI(ours, dp, 0.95)
	return d, lo, hi, ours, dp
}

// GainPlot is the gain of ours over expert-level DP-SGD against m (Fig. 4's runs): the difference of mean
// normalised returns with its Welch 95% interval at each m, beside zero.
func GainPlot(all []Outcome) (*plot.Plot, error) {
	xs := fig4Xs()
	g := figure.Series{Name: "ours − DP-SGD (95% Welch interval)", X: xs, Y: [][]float64{make([]float64, len(xs))}, Lo: make([]float64, len(xs)), Hi: make([]float64, len(xs))}
	for i, m := range Fig4M {
		g.Y[0][i], g.Lo[i], g.Hi[i], _, _ = gainAt(all, m)
	}
	return figure.Curves(figure.Options{Title: "Gain of ours over expert-level DP-SGD against m (Acrobot, ε = 10, CQL)",
		XLabel: "number of experts m", YLabel: "difference of normalised returns", LegendBottom: true}, g, flat("no gain", xs, 0))
}

// Summary aggregates outcomes over seeds: one row per setting with the mean |D_stable|, private steps and
// s, the ε the runs spend (exact; "∞" for the non-private learner), the mean normalised return and its
// fraction of the non-private learner's with 95% t-intervals, the seeds, and notes.
func Summary(all []Outcome, settings []Setting) [][]string {
	var rows [][]string
	for _, set := range settings {
		g := Select(all, func(o Outcome) bool { return o.Setting() == set })
		if len(g) == 0 {
			continue
		}
		var stable, private, s, eps, norm, frac []float64
		notes := map[string]int{}
		for _, o := range g {
			stable = append(stable, float64(o.Stable))
			private = append(private, float64(o.Private))
			s = append(s, o.S)
			eps = append(eps, o.Split.Eps1+o.Eps2Exact)
			norm = append(norm, o.Normalized)
			frac = append(frac, Fraction(all, o))
			if o.Note != "" {
				notes[o.Note]++
			}
		}
		mean := func(x []float64) float64 { v, _, _ := experiment.MeanCI(x, 0.95); return v }
		ci := func(x []float64) string {
			v, lo, hi := experiment.MeanCI(x, 0.95)
			return fmt.Sprintf("%.2f [%.2f, %.2f]", v, lo, hi)
		}
		split, p, e := "—", "—", "∞"
		if set.Method == Ours {
			split, p = fmt.Sprintf("ε1 = %.3g, ε2 = %.3g", set.Split.Eps1, set.Split.Eps2), fmt.Sprint(set.P)
		}
		if set.Method == ExpertDPSGD {
			split = fmt.Sprintf("ε2 = %g", set.Epsilon)
		}
		if set.Method != NonPrivate {
			e = fmt.Sprintf("%.3f", mean(eps))
		}
		m := set.Experts
		if m == 0 {
			m = NumExperts
		}
		var parts []string
		for k, n := range notes {
			parts = append(parts, fmt.Sprintf("%s in %d of %d", k, n, len(g)))
		}
		sort.Strings(parts)
		note := strings.Join(parts, "; ")
		rows = append(rows, []string{set.Env, set.Algorithm.String(), methodLabel(set.Method, set.Accounting == expertdp.AccountingPaper), fmt.Sprint(m),
			fmt.Sprint(set.Epsilon), split, p, fmt.Sprintf("%.0f", mean(stable)), fmt.Sprintf("%.0f", mean(private)), fmt.Sprintf("%.3g", mean(s)), e,
			ci(norm), ci(frac), fmt.Sprint(len(g)), note})
	}
	return rows
}

// SummaryHeader names Summary's columns.
var SummaryHeader = []string{"env", "learner", "method", "m", "ε", "split", "p", "|D_stable|", "private steps", "s", "ε (exact)",
	"normalised return [95% CI]", "÷ non-private [95% CI]", "seeds", "note"}

// OutcomeTable is the tidy table of every run, for CSV export and for the sharma/jobs sweep (which writes
// it without seed and fraction): every field of the job (the split's δ's as fractions of δ = 1/m, as
// Job.Split holds them, and its T) and of the outcome, so that OutcomesFromSweep reads the runs back.
func OutcomeTable(all []Outcome) *experiment.Table {
	t := &experiment.Table{Columns: []string{"tag", "env", "learner", "method", "epsilon", "eps1", "delta1_frac", "eps2", "delta2_frac", "release_t", "p", "m", "seed",
		"stable", "steps", "private_steps", "s", "eps2_spent", "return", "normalized", "fraction", "accounting", "eps2_exact", "fixed_log_delta", "note"}}
	for _, o := range all {
		t.Add(o.Tag, o.Env, o.Algorithm.String(), o.Method.String(), o.Epsilon, o.Split.Eps1, o.Split.Delta1, o.Split.Eps2, o.Split.Delta2, o.Split.T, o.P, o.Experts, o.Seed,
			o.Stable, o.Steps, o.Private, o.S, o.Eps2, o.Return, o.Normalized, Fraction(all, o), o.Accounting.String(), o.Eps2Exact, o.FixedLogDelta, o.Note)
	}
	return t
}
