package sharma

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/stat"

	"github.com/dprl-project/dprl/dprl/experiment"
	"github.com/dprl-project/dprl/dprl/expertdp"
	"github.com/dprl-project/dprl/dprl/figure"
	"github.com/dprl-project/dprl/dprl/report"
	"github.com/dprl-project/dprl/dprl/repro"
)

// The scale every run here keeps: m = 3000 experts as in the paper, derived from B = 30 base policies (the
// paper trains an agent per expert), each playing every action with probability at least p_min = 0.02 (the
// paper's).
const (
	NumExperts = 3000 // m
	NumBases   = 30   // B
	PMin       = 0.02 // p_min
)

// Fig4M is the grid of expert counts m of Fig. 4 and of the |D_stable| table (the first m of the 3000).
var Fig4M = []int{1000, 2000, 3000}

// Epsilons is the grid of overall ε of Fig. 3 and of the |D_stable| table (δ = 1/m).
var Epsilons = []float64{5, 7.5, 10}

// tempFile names a file the notebook's cells share (GoNB runs every cell as a new program) in the system
// temporary folder: "outcomes.json" the training outcomes, "runs.csv" the export of every run.
func tempFile(name string) string { return filepath.Join(os.TempDir(), "dprl-05-sharma-"+name) }

// EnvSize is one environment of the experiments and the number N of trajectories each expert contributes.
type EnvSize struct {
	Env       string
	PerExpert int
}

// Config is the scale of the notebook's experiments: what two cores can pay by default, the paper's with
// NewConfig(true).
type Config struct {
	Sizes    []EnvSize              // environments built (all four: the |D_stable| table needs them), N each
	Fig3Envs []string               // environments trained for Fig. 3
	Steps    int                    // gradient steps per training run
	Seeds    int                    // seeds per setting
	Releases int                    // DataRelease runs per cell of the |D_stable| table
	Learner  expertdp.LearnerConfig // network and optimiser
}

// NewConfig is the notebook's configuration. By default: N = 4 trajectories per expert for CartPole and
// Acrobot, 1 for LunarLander and HIV, Fig. 3 on CartPole and Acrobot, 1000 steps per run (quick mode 150),
// 10 seeds per setting (quick 2), 10 releases per |D_stable| cell (quick 3) and 64×64 networks.
// paperScale switches to the paper's N = 20 everywhere, all four environments in Fig. 3, 256×256 networks
// and 10⁵ steps per run (many hours on two cores).
func NewConfig(paperScale bool) Config {
	c := Config{
		Sizes:    []EnvSize{{"cartpole", 4}, {"acrobot", 4}, {"lunarlander", 1}, {"hiv", 1}},
		Fig3Envs: []string{"cartpole", "acrobot"},
		Steps:    experiment.Size(1000, 150),
		Seeds:    experiment.Size(10, 2),
		Releases: experiment.Size(10, 3),
		Learner:  expertdp.LearnerConfig{}, // 64 × 64, Adam 1e−3, γ = 0.99, CQL α = 1, BCQ τ = 0.3, Polyak 0.005
	}
	if paperScale {
		c.Sizes = []EnvSize{{"cartpole", 20}, {"acrobot", 20}, {"lunarlander", 20}, {"hiv", 20}}
		c.Fig3Envs = []string{"cartpole", "acrobot", "lunarlander", "hiv"}
		c.Steps = 100000
		c.Learner = expertdp.LearnerConfig{Hidden: []int{256, 256}}
	}
	return c
}

// Jobs are every training run of Fig. 3, Fig. 4, Table 2 and the published-accounting runs at this
// configuration, in that order, each setting and seed once: a job whose Setting and seed an earlier one
// has (Fig. 4 at m = 3000 is Fig. 3's Acrobot CQL at ε = 10; Table 2's Table-1 p is Fig. 3's; ours at
// ε = 5 on CartPole is expert-level DP-SGD) is left out, and the figures find its runs by setting.
func (c Config) Jobs() []Job {
	jobs, _ := c.jobsWithout(nil)
	return jobs
}

// runKey is what makes two jobs the same run: their setting and seed.
type runKey struct {
	Setting
	seed int
}

// jobsWithout is Jobs less the runs only the figures in swept need (tags "fig3", "fig4": figures whose
// runs a full-size sweep replaces), each kept job with its index in Jobs, the stream it draws from there.
// A run that a figure in swept shares with one that is not (Fig. 4 at m = 3000 is Fig. 3's Acrobot run;
// Table 2's Table-1 p is Fig. 3's CartPole run) is kept, so the others run exactly as without the sweep.
func (c Config) jobsWithout(swept map[string]bool) (jobs []Job, streams []int) {
	groups := []struct {
		tag  string
		jobs []Job
	}{
		{"fig3", Fig3Jobs(c.Fig3Envs, Epsilons, c.Seeds)},
		{"fig4", Fig4Jobs(Fig4M, c.Seeds)},
		{"table2", Table2Jobs(c.Seeds)},
		{"published", PublishedJobs(c.Seeds)},
	}
	needed := map[runKey]bool{}
	for _, g := range groups {
		if !swept[g.tag] {
			for _, j := range g.jobs {
				needed[runKey{j.Setting(), j.Seed}] = true
			}
		}
	}
	seen := map[runKey]bool{}
	i := 0
	for _, g := range groups {
		for _, j := range g.jobs {
			k := runKey{j.Setting(), j.Seed}
			if seen[k] {
				continue
			}
			seen[k] = true
			if needed[k] {
				jobs = append(jobs, j)
				streams = append(streams, i)
			}
			i++
		}
	}
	return jobs, streams
}

// GroupPrivacy shows what a trajectory-level (ε, 10⁻⁵) guarantee says about an expert with N trajectories:
// by group privacy (Nε, N·e^{(N−1)ε}·δ), for ε ∈ {0.1, 0.5, 1} and N ∈ {1, 5, 20}.
func GroupPrivacy(out report.Sink) {
	rows := [][]string{}
	for _, eps := range []float64{0.1, 0.5, 1} {
		for _, n := range []int{1, 5, 20} {
			d := float64(n) * math.Exp(float64(n-1)*eps) * 1e-5
			rows = append(rows, []string{fmt.Sprint(eps), "1e−5", fmt.Sprint(n), fmt.Sprintf("%.3g", float64(n)*eps), fmt.Sprintf("%.3g", math.Min(d, 1))})
		}
	}
	out.Table([]string{"trajectory ε", "trajectory δ", "trajectories per expert N", "expert ε", "expert δ (capped at 1)"}, rows)
}

// ReleaseConstants shows DataRelease's constants (ε', δ', c_min, θ, E[θ̂] and the noise scales, the ε
// advanced composition certifies, the longest prefix all-agreeing experts could pass) for the paper's
// settings at m = 3000, δ = 1/m, with the ε split and T of PaperSplit and each domain's public bound L
// (Domain.DemoLen); then plots that agreeing prefix against m for CartPole at ε = 5, 7.5 and 10 (the 3/4
// split throughout), and says whether the worked example (Acrobot, ε1 = 10, δ1 = 1/3000, T = 25, L = 200)
// matches the paper's numbers (a deterministic check, asserted by the package's tests, not a claim row).
func ReleaseConstants(out report.Sink) error {
	rows := [][]string{}
	for _, s := range []struct {
		env string
		eps float64
	}{{"acrobot", 10}, {"acrobot", 7.5}, {"cartpole", 10}, {"cartpole", 7.5}, {"lunarlander", 10}, {"lunarlander", 7.5}, {"hiv", 10}} {
		d, err := expertdp.DomainByName(s.env)
		if err != nil {
			return err
		}
		sp := PaperSplit(s.env, s.eps, 1.0/NumExperts, false)
		c, err := expertdp.Constants(sp.Eps1, sp.Delta1, PMin, sp.T, d.DemoLen)
		if err != nil {
			return err
		}
		rows = append(rows, []string{s.env, fmt.Sprint(s.eps), fmt.Sprintf("%.3g / %.2g", sp.Eps1, sp.Delta1), fmt.Sprint(sp.T), fmt.Sprint(d.DemoLen),
			fmt.Sprintf("%.3f", c.EpsPrime), fmt.Sprintf("%.2g", c.DeltaPrime), fmt.Sprintf("%.2f", c.CMin), fmt.Sprintf("%.0f", c.Theta),
			fmt.Sprintf("%.0f (%.1f / %.1f)", c.MeanThreshold(), c.ThresholdScale, c.QueryScale), fmt.Sprintf("%.2f", c.CompositionEpsilon),
			fmt.Sprint(max(c.AgreeingPrefix(NumExperts, d.NumActions), 0))})
	}
	out.Table([]string{"env", "ε", "ε1 / δ1", "T", "L (public)", "ε'", "δ'", "c_min", "θ", "E[θ̂] (noise scales)", "composition", "agreeing prefix"}, rows)

	// How long can stable prefixes be? Agreeing prefix against m, CartPole's constants.
	cp := expertdp.CartPoleDomain()
	ms := []float64{}
	for m := 1000.0; m <= 10000; m += 250 {
		ms = append(ms, m)
	}
	var series []figure.Series
	for _, eps := range Epsilons {
		sp := PaperSplit("cartpole", eps, 1, true)
		y := make([]float64, len(ms))
		for i, m := range ms {
			c, _ := expertdp.Constants(sp.Eps1, 0.9/m, PMin, sp.T, cp.DemoLen)
			y[i] = float64(c.AgreeingPrefix(int(m), cp.NumActions))
			if y[i] < 0 {
				y[i] = math.NaN()
			}
		}
		series = append(series, figure.Series{Name: fmt.Sprintf("ε = %g (ε1 = %g)", eps, sp.Eps1), X: ms, Y: [][]float64{y}})
	}
	p, err := figure.Curves(figure.Options{Title: "Longest stable prefix if all experts agree (CartPole, p_min = 0.02, δ = 1/m)",
		XLabel: "number of experts m", YLabel: "prefix length (steps)", LegendBottom: true}, series...)
	if err != nil {
		return err
	}
	if err := out.Figure(p); err != nil {
		return err
	}
	c, _ := expertdp.Constants(10, 1.0/NumExperts, PMin, 25, 200)
	got := fmt.Sprintf("ε' %.3f, c_min %.2f, θ %.0f, E[θ̂] %.0f", c.EpsPrime, c.CMin, c.Theta, c.MeanThreshold())
	verdict := "matches"
	if got != WorkedExample {
		verdict = "does not match"
	}
	out.Markdown(fmt.Sprintf("The paper's worked example (Acrobot, ε1 = 10, δ1 = 1/3000, T = 25, L = 200): %s; computed here: %s (%s; a deterministic check, asserted by the package's tests).",
		WorkedExample, got, verdict))
	return nil
}

// WorkedExample is the paper's worked example of DataRelease's constants (Acrobot, ε1 = 10, δ1 = 1/3000,
// T = 25, L = 200).
const WorkedExample = "ε' 0.120, c_min 8.85, θ 443, E[θ̂] 1017"

// stableRow is the |D_stable| measurement of one environment, ε and m: the stable transitions and the
// longest stable prefix of each release.
type stableRow struct {
	Env            string
	Eps            float64
	M              int
	Stable, Prefix []float64
}

// Experiments first looks for the full-size sweeps of Fig. 3 and Fig. 4 in the repository at root (Sweeps;
// repro.FullSize says for each whether its merged result is there) and saves the runs of those merged for
// the figures' cells. It then builds every environment's experts, log and references (a table of the logs),
// times one DataRelease over all of CartPole's trajectories, measures |D_stable| over ε and m (a table, a
// plot and the claims about stable data),
// runs every training job of Fig. 3, Fig. 4, Table 2 and the published-accounting runs at cfg's size but
// those only a swept figure needs (each job that runs draws the stream it draws without any sweep, so its
// numbers do not depend on which sweeps are there), and accounts every private setting run (PrivacyRows,
// while the noise calibrations are cached), saving the outcomes and the privacy rows for the later cells.
func Experiments(out report.Sink, root string, cfg Config) error {
	start := time.Now()
	swept, err := fullSizeRuns(out, root)
	if err != nil {
		return err
	}
	setups, err := buildSetups(out, cfg.Sizes)
	if err != nil {
		return err
	}
	if err := releaseThroughput(out, setups["cartpole"]); err != nil {
		return err
	}
	if err := stableSizes(out, setups, cfg.Releases); err != nil {
		return err
	}
	jobs, streams := cfg.jobsWithout(swept)
	tbar := out.Bar(fmt.Sprintf("%d training runs of %d steps (%d settings × %d seeds)", len(jobs), cfg.Steps, len(Settings(jobs)), cfg.Seeds), len(jobs))
	all, err := runJobs(setups, jobs, streams, ExperimentConfig{Learner: cfg.Learner, Batch: 128, Steps: cfg.Steps, Seed: 5, Progress: tbar})
	if err != nil {
		return err
	}
	tbar.Done()
	if err := SaveOutcomes(tempFile("outcomes.json"), all); err != nil {
		return err
	}
	rows, err := privacyRows(cfg, jobs)
	if err != nil {
		return err
	}
	if err := writeJSON(privacyFile(), rows); err != nil {
		return err
	}
	out.Markdown(fmt.Sprintf("Everything above: %s.", report.FormatDuration(time.Since(start))))
	return nil
}

// buildSetups builds the environments' setups (30 bases, 3000 experts, seed 100 + i for the i-th) and
// shows the size of each log, its references and the spread of the experts' returns.
func buildSetups(out report.Sink, sizes []EnvSize) (map[string]*Setup, error) {
	bar := out.Bar("experts, references and logs", len(sizes)*(NumBases+NumExperts+NumBases+1))
	setups := map[string]*Setup{}
	rows := [][]string{}
	for i, s := range sizes {
		t0 := time.Now()
		st, err := NewSetup(s.Env, SetupConfig{Bases: NumBases, Experts: NumExperts, PerExpert: s.PerExpert, Seed: uint64(100 + i), Progress: bar})
		if err != nil {
			return nil, err
		}
		setups[s.Env] = st
		r := st.Data.ExpertReturns()
		q := func(f float64) float64 { return quantile(r, f) }
		rows = append(rows, []string{s.Env, fmt.Sprint(s.PerExpert), fmt.Sprint(st.Data.Transitions()), fmt.Sprint(st.Domain.DemoLen), fmt.Sprint(st.Data.MaxLen()),
			fmt.Sprintf("%.4g", st.RandomReturn), fmt.Sprintf("%.4g", st.ExpertReturn),
			fmt.Sprintf("%.4g / %.4g / %.4g", q(0.05), q(0.5), q(0.95)), report.FormatDuration(time.Since(t0))})
	}
	bar.Done()
	out.Table([]string{"env", "N per expert", "transitions", "L (public bound)", "longest demonstration (data, display only)", "random return (0)", "best expert (1)",
		"expert returns 5% / 50% / 95% (data)", "build time"}, rows)
	return setups, nil
}

// releaseThroughput times DataRelease at m = 3000 examining every trajectory of the log of cp.
func releaseThroughput(out report.Sink, cp *Setup) error {
	if cp == nil {
		return fmt.Errorf("sharma: the experiments need the cartpole environment in Config.Sizes")
	}
	t0 := time.Now()
	rel, err := expertdp.DataRelease(cp.Data, cp.Experts, expertdp.ReleaseParams{Epsilon: 7.5, Delta: 0.9 / NumExperts, PMin: PMin, T: len(cp.Data.Trajs),
		L: cp.Domain.DemoLen, Src: rand.NewPCG(1, 2)})
	if err != nil {
		return err
	}
	el := time.Since(t0)
	out.Markdown(fmt.Sprintf("DataRelease over all %d CartPole trajectories at m = 3000: %s, **%.0f trajectories/s** (%d prefix queries).",
		len(cp.Data.Trajs), report.FormatDuration(el), float64(len(cp.Data.Trajs))/el.Seconds(), rel.Queries()))
	return nil
}

// stableSizes measures |D_stable| against ε and m (nrel releases each, the 3/4 split at every ε), shows
// the measurements as a table and, for CartPole and Acrobot, a plot, and records the claims about them
// (stableClaims).
func stableSizes(out report.Sink, setups map[string]*Setup, nrel int) error {
	envs := []string{"cartpole", "acrobot", "lunarlander", "hiv"}
	var stable []stableRow
	for _, env := range envs {
		st, ok := setups[env]
		if !ok {
			return fmt.Errorf("sharma: the |D_stable| table needs environment %q in Config.Sizes", env)
		}
		for _, eps := range Epsilons {
			for _, m := range Fig4M {
				data, _ := st.Data.Subset(m)
				ex, _ := st.Experts.Subset(m)
				sp := PaperSplit(env, eps, 1/float64(m), true)
				row := stableRow{Env: env, Eps: eps, M: m}
				for k := range nrel {
					r, err := expertdp.DataRelease(data, ex, expertdp.ReleaseParams{Epsilon: sp.Eps1, Delta: sp.Delta1, PMin: PMin, T: sp.T, L: st.Domain.DemoLen,
						Src: rand.NewPCG(uint64(k), 7)})
					if err != nil {
						return err
					}
					best := 0
					for _, l := range r.StableLen() {
						best = max(best, l)
					}
					row.Stable = append(row.Stable, float64(r.StableTransitions()))
					row.Prefix = append(row.Prefix, float64(best))
				}
				stable = append(stable, row)
			}
		}
	}
	var ss []figure.Series
	trows := [][]string{}
	for _, env := range envs {
		for _, eps := range Epsilons {
			var xs []float64
			var ys [][]float64
			cells := []string{env, fmt.Sprint(eps)}
			for _, r := range stable {
				if r.Env == env && r.Eps == eps {
					xs = append(xs, float64(r.M))
					for k, v := range r.Stable {
						if len(ys) <= k {
							ys = append(ys, nil)
						}
						ys[k] = append(ys[k], v)
					}
					cells = append(cells, fmt.Sprintf("%.0f (longest %.0f)", stat.Mean(r.Stable, nil), floats.Max(r.Prefix)))
				}
			}
			trows = append(trows, cells)
			if env == "cartpole" || env == "acrobot" {
				ss = append(ss, figure.Series{Name: fmt.Sprintf("%s ε = %g", env, eps), X: xs, Y: ys})
			}
		}
	}
	out.Markdown(fmt.Sprintf("|D_stable| in transitions, mean over %d releases (ε1 from the paper's split; at ε = 5 the 3/4 split of Table 2's low-ε rows; Acrobot ε1 = ε), and the longest stable prefix:", nrel))
	out.Table([]string{"env", "ε", "m = 1000", "m = 2000", "m = 3000"}, trows)
	p, err := figure.Curves(figure.Options{Title: "Size of D_stable (T examined trajectories; 95% CI over releases)", XLabel: "number of experts m",
		YLabel: "stable transitions", Band: figure.BandCI95}, ss...)
	if err != nil {
		return err
	}
	if err := out.Figure(p); err != nil {
		return err
	}
	repro.Record(out, stableClaims(stable)...)
	return nil
}

// ExportRuns writes every run of the notebook's own as CSV (OutcomeTable) to the system temporary folder
// and says where; for a figure read from a merged sweep it names the sweep's table, which holds its runs.
func ExportRuns(out report.Sink) error {
	all, err := LoadOutcomes(tempFile("outcomes.json"))
	if err != nil {
		return err
	}
	path := tempFile("runs.csv")
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := OutcomeTable(all).WriteCSV(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	var swept []string
	for _, s := range Sweeps {
		sw, ok, err := loadSwept(s.Tag)
		if err != nil {
			return err
		}
		if ok {
			swept = append(swept, fmt.Sprintf("The full-size runs of %s (%d) are in the %s: its `merged.csv`.", figureName(s.Tag), len(sw.Outcomes), sw.Source))
		}
	}
	if len(swept) == 0 {
		out.Markdown(fmt.Sprintf("Every run (%d rows) is in `%s`.", len(all), path))
		return nil
	}
	out.Markdown(fmt.Sprintf("Every run made here (%d rows) is in `%s`. %s", len(all), path, strings.Join(swept, " ")))
	return nil
}

// figureName is how the text names the figure tagged tag ("Fig. 3").
func figureName(tag string) string {
	return map[string]string{"fig3": "Fig. 3", "fig4": "Fig. 4"}[tag]
}

// quantile is the f-quantile of x (the element at index ⌊f·(n−1)⌋ of the sorted values).
func quantile(x []float64, f float64) float64 {
	s := append([]float64(nil), x...)
	sort.Float64s(s)
	return s[int(f*float64(len(s)-1))]
}

func writeJSON(path string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}
