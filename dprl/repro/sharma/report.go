package sharma

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"

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
// first m of the setup), with the non-private baseline at each m.
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

// Fraction is an outcome's normalised return as a fraction of the non-private learner's (mean over the
// seeds of the same tag, environment, learner and m), the paper's y-axis.
func Fraction(all []Outcome, o Outcome) float64 {
	sum, n := 0.0, 0
	for _, b := range all {
		if b.Method == NonPrivate && b.Tag == o.Tag && b.Env == o.Env && b.Algorithm == o.Algorithm && b.Experts == o.Experts {
			sum += b.Normalized
			n++
		}
	}
	if n == 0 {
		// Tables without their own baseline use Fig. 3's.
		for _, b := range all {
			if b.Method == NonPrivate && b.Tag == "fig3" && b.Env == o.Env && b.Algorithm == o.Algorithm {
				sum += b.Normalized
				n++
			}
		}
	}
	return o.Normalized / (sum / float64(n))
}

// MeanFraction is the mean Fraction of the outcomes keep selects, skipping jobs that did not train (NaN if
// none did).
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

// series groups outcomes by seed into a figure.Series over x.
func series(name string, all, sel []Outcome, x func(Outcome) float64) figure.Series {
	var xs []float64
	for _, o := range sel {
		if !slices.Contains(xs, x(o)) {
			xs = append(xs, x(o))
		}
	}
	slices.Sort(xs)
	y := experiment.Gather(sel, xs, func(o Outcome) int { return o.Seed }, x, func(o Outcome) (float64, bool) { return Fraction(all, o), true })
	return figure.Series{Name: name, X: xs, Y: y}
}

// Fig3Plot is Fig. 3 for one environment: fraction of the non-private return against ε, ours and
// expert-level DP-SGD for both learners, mean ± std over seeds.
func Fig3Plot(all []Outcome, env string) (*plot.Plot, error) {
	var ss []figure.Series
	for _, alg := range []expertdp.Algorithm{expertdp.CQL, expertdp.BCQ} {
		for _, m := range []Method{Ours, ExpertDPSGD} {
			sel := Select(all, func(o Outcome) bool { return o.Tag == "fig3" && o.Env == env && o.Algorithm == alg && o.Method == m })
			ss = append(ss, series(fmt.Sprintf("%v %v", alg, m), all, sel, func(o Outcome) float64 { return o.Epsilon }))
		}
	}
	return figure.Curves(figure.Options{Title: fmt.Sprintf("Fig. 3, %s: return vs ε (fraction of non-private)", env),
		XLabel: "ε (δ = 1/m)", YLabel: "normalised return / non-private"}, ss...)
}

// Fig4Plot is Fig. 4: Acrobot, ε = 10, CQL, fraction of the non-private return against m.
func Fig4Plot(all []Outcome) (*plot.Plot, error) {
	var ss []figure.Series
	for _, m := range []Method{Ours, ExpertDPSGD} {
		sel := Select(all, func(o Outcome) bool { return o.Tag == "fig4" && o.Method == m })
		ss = append(ss, series(m.String(), all, sel, func(o Outcome) float64 { return float64(o.Experts) }))
	}
	return figure.Curves(figure.Options{Title: "Fig. 4: Acrobot, ε = 10, CQL", XLabel: "number of experts m",
		YLabel: "normalised return / non-private", LegendBottom: true}, ss...)
}

// Summary aggregates outcomes over seeds: one row per configuration with the mean fraction of the
// non-private return, its standard deviation, the mean |D_stable|, steps, s and ε2 spent.
func Summary(all, sel []Outcome) [][]string {
	type key struct {
		tag, env   string
		alg        expertdp.Algorithm
		method     Method
		eps, p, e1 float64
		m          int
	}
	var keys []key
	groups := map[key][]Outcome{}
	for _, o := range sel {
		k := key{o.Tag, o.Env, o.Algorithm, o.Method, o.Epsilon, o.P, o.Split.Eps1, o.Experts}
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], o)
	}
	var rows [][]string
	for _, k := range keys {
		g := groups[k]
		// One row per seed: fraction, normalised return, |D_stable|, private steps, s, ε2 spent.
		var per [][]float64
		note := ""
		for _, o := range g {
			per = append(per, []float64{Fraction(all, o), o.Normalized, float64(o.Stable), float64(o.Private), o.S, o.Eps2})
			if o.Note != "" {
				note = o.Note
			}
		}
		mu, sd, _ := figure.MeanStd(per)
		split, p := "—", "—"
		if k.method == Ours {
			split, p = fmt.Sprintf("ε1 = %.3g, ε2 = %.3g", k.e1, g[0].Split.Eps2), fmt.Sprint(k.p)
		}
		val, norm := fmt.Sprintf("%.2f ± %.2f", mu[0], sd[0]), fmt.Sprintf("%.2f ± %.2f", mu[1], sd[1])
		if note != "" {
			val, norm = "— ("+note+")", "—"
		}
		rows = append(rows, []string{k.env, k.alg.String(), k.method.String(), fmt.Sprint(k.eps), split, p,
			fmt.Sprintf("%.0f", mu[2]), fmt.Sprintf("%.0f", mu[3]), fmt.Sprintf("%.3g", mu[4]), fmt.Sprintf("%.3g", mu[5]), norm, val})
	}
	return rows
}

// SummaryHeader names Summary's columns.
var SummaryHeader = []string{"env", "learner", "method", "ε", "split", "p", "|D_stable|", "private steps", "s", "ε2 spent", "normalised return", "÷ non-private"}

// OutcomeTable is the tidy table of every run, for CSV export.
func OutcomeTable(all []Outcome) *experiment.Table {
	t := &experiment.Table{Columns: []string{"tag", "env", "learner", "method", "epsilon", "eps1", "eps2", "p", "m", "seed", "stable", "steps", "private_steps", "s", "eps2_spent", "return", "normalized", "fraction"}}
	for _, o := range all {
		t.Add(o.Tag, o.Env, o.Algorithm.String(), o.Method.String(), o.Epsilon, o.Split.Eps1, o.Split.Eps2, o.P, o.Experts, o.Seed,
			o.Stable, o.Steps, o.Private, o.S, o.Eps2, o.Return, o.Normalized, Fraction(all, o))
	}
	return t
}
