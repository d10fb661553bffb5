package sharma

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"

	"github.com/dprl-project/dprl/dprl/experiment"
	"github.com/dprl-project/dprl/dprl/expertdp"
	"github.com/dprl-project/dprl/dprl/report"
	"github.com/dprl-project/dprl/dprl/repro"
	"github.com/dprl-project/dprl/dprl/sweep"
)

// EnvSize is one environment of the experiments and the number N of trajectories each expert contributes.
type EnvSize struct {
	Env       string
	PerExpert int
}

// Config is the scale and the grids of the notebook's experiments: what two cores can pay by default, the
// paper's with NewConfig(true). Change a grid and call a data function again to re-plot.
type Config struct {
	Sizes    []EnvSize // environments that can be built, N each
	Fig3Envs []string  // environments trained for Fig. 3
	Epsilons []float64 // Fig. 3's ε grid and the |D_stable| table's (δ = 1/m)
	Fig4M    []int     // Fig. 4's grid of expert counts m (the first m of the 3000) and the |D_stable| table's
	// Steps is the number of gradient steps of a run with calibrated noise, and the step cap of a run in the
	// paper's regime.
	Steps    int
	Seeds    int                    // seeds per setting
	Releases int                    // DataRelease runs per cell of the |D_stable| table
	Learner  expertdp.LearnerConfig // network and optimiser
	Noise    Noise                  // how s and the number of steps are set
	Workers  int                    // parallel runs (0: one per core)
}

// NewConfig is the notebook's configuration. By default (a worked setting of ours, for two cores): N = 4
// trajectories per expert for CartPole and Acrobot, 1 for LunarLander and HIV, Fig. 3 on CartPole and
// Acrobot, 1000 steps per run with s calibrated to spend the budget in them (quick mode 150), 10 seeds per
// setting (quick 2), 10 releases per |D_stable| cell (quick 3) and 64×64 networks. paperScale switches to the
// paper's N = 20 everywhere, all four environments in Fig. 3, 256×256 networks and the paper's noise regime
// capped at 10⁵ steps per run (many hours on two cores; the full-size sweeps run it).
func NewConfig(paperScale bool) Config {
	c := Config{
		Sizes:    []EnvSize{{"cartpole", 4}, {"acrobot", 4}, {"lunarlander", 1}, {"hiv", 1}},
		Fig3Envs: []string{"cartpole", "acrobot"},
		Epsilons: []float64{5, 7.5, 10},
		Fig4M:    []int{1000, 2000, 3000},
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
		c.Noise = NoisePaper
	}
	return c
}

// perExpert is N for env (0 if env is not in Sizes).
func (c Config) perExpert(env string) int {
	for _, s := range c.Sizes {
		if s.Env == env {
			return s.PerExpert
		}
	}
	return 0
}

// learners are the two offline RL algorithms, in the order the figures show them.
var learners = []expertdp.Algorithm{expertdp.CQL, expertdp.BCQ}

// OursJob is Fig. 3's ours: the paper's split, Table 1's p, falling back to expert-level DP-SGD when
// D_stable is empty.
func OursJob(env string, alg expertdp.Algorithm, eps float64) Job {
	return Job{Env: env, Algorithm: alg, Method: Ours, Epsilon: eps, Split: PaperSplit(env, eps, 1), P: PaperP(env, alg, eps), Fallback: true}
}

// BaselineJob is expert-level DP-SGD at the certificate of split sp (ours' at ε).
func BaselineJob(env string, alg expertdp.Algorithm, eps float64, sp Split) Job {
	return Job{Env: env, Algorithm: alg, Method: ExpertDPSGD, Epsilon: eps, Split: sp}
}

// FallbackJob is Fig. 4's ours: App. B.3's 3/4 split with Table 1's p (0 on Acrobot), so that the paper's
// fallback to expert-level DP-SGD has a budget (ε/4, δ/10) when D_stable is empty.
func FallbackJob(env string, alg expertdp.Algorithm, eps float64) Job {
	return Job{Env: env, Algorithm: alg, Method: Ours, Epsilon: eps, Split: ThreeQuarterSplit(env, eps, 1), P: PaperP(env, alg, eps), Fallback: true}
}

// StableOnlyJob trains on D_stable alone with the whole budget released (StableOnlySplit, p = 0): the
// paper's Acrobot split, and §6.1's for HIV.
func StableOnlyJob(env string, alg expertdp.Algorithm, eps float64) Job {
	return Job{Env: env, Algorithm: alg, Method: Ours, Epsilon: eps, Split: StableOnlySplit(env, eps, 1)}
}

// withSeeds repeats each job for seeds 0 … seeds−1, with tag, noise and m set, seed by seed.
func withSeeds(seeds int, tag string, noise Noise, m int, jobs ...Job) []Job {
	var out []Job
	for s := range seeds {
		for _, j := range jobs {
			j.Tag, j.Seed, j.Noise, j.Experts = tag, s, noise, m
			out = append(out, j)
		}
	}
	return out
}

// Fig3Jobs are the jobs of the paper's Fig. 3 on envs: for each learner, the untrained network and the
// non-private learner, and for each ε ours (PaperSplit, Table 1's p, the fallback) and expert-level DP-SGD
// at ours' certified (ε, δ); seeds seeds each.
func Fig3Jobs(envs []string, eps []float64, seeds int, noise Noise) []Job {
	var per []Job
	for _, env := range envs {
		for _, alg := range learners {
			per = append(per, Job{Env: env, Algorithm: alg, Method: Untrained}, Job{Env: env, Algorithm: alg, Method: NonPrivate})
			for _, e := range eps {
				o := OursJob(env, alg, e)
				per = append(per, o, BaselineJob(env, alg, e, o.Split))
			}
		}
	}
	return withSeeds(seeds, "fig3", noise, 0, per...)
}

// Fig4Jobs are the paper's Fig. 4, Acrobot, ε = 10, CQL, on the first m experts for each m of ms: the
// non-private learner, ours with the fallback (FallbackJob, the claim's), ours on D_stable alone with the
// paper's Acrobot split (StableOnlyJob, its alternative) and expert-level DP-SGD at their certificate
// (the two splits certify the same (ε, δ)); the untrained network once.
func Fig4Jobs(ms []int, seeds int, noise Noise) []Job {
	const env, eps = "acrobot", 10.0
	alg := expertdp.CQL
	jobs := withSeeds(seeds, "fig4", noise, 0, Job{Env: env, Algorithm: alg, Method: Untrained})
	for _, m := range ms {
		f := FallbackJob(env, alg, eps)
		jobs = append(jobs, withSeeds(seeds, "fig4", noise, m, Job{Env: env, Algorithm: alg, Method: NonPrivate}, f, StableOnlyJob(env, alg, eps),
			BaselineJob(env, alg, eps, f.Split))...)
	}
	return jobs
}

// lowCases are Table 2's low-ε rows (BCQ): the 3/4 split with p = 0.5 against ε1 = 0 (pure DP-SGD).
var lowCases = []struct {
	env   string
	eps   float64
	paper string
}{{"acrobot", 2.5, "0.74 vs 0.95"}, {"cartpole", 2.5, "0.28 vs 0.58"}, {"cartpole", 5, "0.56 vs 0.60"}}

// lowJob is a low-ε row's split run: the 3/4 split, p = 0.5, the fallback.
func lowJob(env string, eps float64) Job {
	return Job{Env: env, Algorithm: expertdp.BCQ, Method: Ours, Epsilon: eps, Split: ThreeQuarterSplit(env, eps, 1), P: 0.5, Fallback: true}
}

// table2Ps are Table 2's mixing probabilities at ε = 10 for alg: 0, Table 1's, 1.
func table2Ps(alg expertdp.Algorithm) []float64 { return []float64{0, PaperP("cartpole", alg, 10), 1} }

// table2Job is Table 2's ours on CartPole at ε = 10 with mixing probability p: the paper's split, the
// fallback but at p = 0 (Table 2: "inf" when D_stable is empty).
func table2Job(alg expertdp.Algorithm, p float64) Job {
	j := OursJob("cartpole", alg, 10)
	j.P, j.Fallback = p, p > 0
	return j
}

// Table2Jobs are Table 2's ablations: CartPole at ε = 10 with p ∈ {0, Table 1's, 1} per learner, and the
// low-ε rows (BCQ: Acrobot at ε = 2.5, CartPole at 2.5 and 5), the 3/4 split with p = 0.5 against expert-level
// DP-SGD (ε1 = 0) at the split's certificate; each with its environment's untrained network (the
// non-private learners are Fig. 3's).
func Table2Jobs(seeds int, noise Noise) []Job {
	var per []Job
	for _, alg := range learners {
		per = append(per, Job{Env: "cartpole", Algorithm: alg, Method: Untrained})
		for _, p := range table2Ps(alg) {
			per = append(per, table2Job(alg, p))
		}
	}
	per = append(per, Job{Env: "acrobot", Algorithm: expertdp.BCQ, Method: Untrained})
	for _, c := range lowCases {
		l := lowJob(c.env, c.eps)
		per = append(per, l, BaselineJob(c.env, expertdp.BCQ, c.eps, l.Split))
	}
	return withSeeds(seeds, "table2", noise, 0, per...)
}

// HIVJobs are HIV's runs for "D_stable suffices" (CQL, ε = 10): the untrained network, the non-private
// learner, and ours on D_stable alone under both of the paper's splits: §6.1's (the whole budget released,
// StableOnlyJob) and App. B.3's (3/4 to the release, Table 1's p = 0, the fallback's budget ε/4).
func HIVJobs(seeds int, noise Noise) []Job {
	const env, eps = "hiv", 10.0
	alg := expertdp.CQL
	return withSeeds(seeds, "dstable", noise, 0, Job{Env: env, Algorithm: alg, Method: Untrained}, Job{Env: env, Algorithm: alg, Method: NonPrivate},
		StableOnlyJob(env, alg, eps), OursJob(env, alg, eps))
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

// unique is jobs with each setting and seed once (the first).
func unique(jobs []Job) []Job {
	type key struct {
		Setting
		seed int
	}
	seen := map[key]bool{}
	var out []Job
	for _, j := range jobs {
		if k := (key{j.Setting(), j.Seed}); !seen[k] {
			seen[k] = true
			out = append(out, j)
		}
	}
	return out
}

// setups builds envs' setups (NumBases bases, NumExperts experts, N of cfg, SetupSeed).
func (c Config) setups(out report.Sink, envs []string) (map[string]*Setup, error) {
	bar := out.Bar(fmt.Sprintf("experts, logs and references of %v", envs), len(envs)*(NumBases+NumExperts+NumBases+1))
	defer bar.Done()
	setups := map[string]*Setup{}
	for _, env := range envs {
		n := c.perExpert(env)
		if n < 1 {
			return nil, fmt.Errorf("sharma: environment %q has no EnvSize in Config.Sizes (trajectories per expert)", env)
		}
		st, err := NewSetup(env, SetupConfig{Bases: NumBases, Experts: NumExperts, PerExpert: n, Workers: c.Workers, Seed: SetupSeed(env), Progress: bar})
		if err != nil {
			return nil, err
		}
		setups[env] = st
	}
	return setups, nil
}

// run runs jobs (each setting and seed once) on setups with a progress bar, as a runs table.
func (c Config) run(out report.Sink, setups map[string]*Setup, jobs []Job) (*experiment.Table, error) {
	jobs = unique(jobs)
	bar := out.Bar(fmt.Sprintf("%d runs of %d steps (%d settings × %d seeds)", len(jobs), c.Steps, len(Settings(jobs)), c.Seeds), len(jobs))
	defer bar.Done()
	all, err := RunJobs(setups, jobs, ExperimentConfig{Learner: c.Learner, Batch: 128, Steps: c.Steps, Workers: c.Workers, Seed: 5, Progress: bar})
	if err != nil {
		return nil, err
	}
	return OutcomeTable(all), nil
}

// jobEnvs are the environments jobs run on, in order of first appearance.
func jobEnvs(jobs []Job) []string {
	var envs []string
	for _, j := range jobs {
		if !slices.Contains(envs, j.Env) {
			envs = append(envs, j.Env)
		}
	}
	return envs
}

// runFresh builds the setups jobs need and runs them, then what the claims of tests need for their
// robust column (withAlternatives; tests nil: nothing more).
func (c Config) runFresh(out report.Sink, jobs []Job, tests func(*runSet) []test) (*experiment.Table, error) {
	setups, err := c.setups(out, jobEnvs(jobs))
	if err != nil {
		return nil, err
	}
	t, err := c.run(out, setups, jobs)
	if err != nil || tests == nil {
		return t, err
	}
	return c.withAlternatives(out, t, setups, jobs[0].Tag, tests)
}

// Fig3Data is the data of Fig. 3: every run of Fig3Jobs at cfg's size, and the runs its claims' robust
// column needs (withAlternatives), or, when the full-size sweep sharma-fig3 has been merged in the
// repository at root, its runs (repro.FullSize says which on out).
func Fig3Data(out report.Sink, root string, cfg Config) (*experiment.Table, error) {
	if t, ok, err := fullSizeRuns(out, root, "sharma-fig3"); ok || err != nil {
		return t, err
	}
	return cfg.runFresh(out, Fig3Jobs(cfg.Fig3Envs, cfg.Epsilons, cfg.Seeds, cfg.Noise), (*runSet).fig3Tests)
}

// Fig4Data is the data of Fig. 4: every run of Fig4Jobs at cfg's size, or the merged full-size sweep
// sharma-fig4's runs.
func Fig4Data(out report.Sink, root string, cfg Config) (*experiment.Table, error) {
	if t, ok, err := fullSizeRuns(out, root, "sharma-fig4"); ok || err != nil {
		return t, err
	}
	return cfg.runFresh(out, Fig4Jobs(cfg.Fig4M, cfg.Seeds, cfg.Noise), (*runSet).fig4Tests)
}

// Table2Data is the data of Table 2: every run of Table2Jobs at cfg's size, and the runs its claims'
// robust column needs.
func Table2Data(out report.Sink, cfg Config) (*experiment.Table, error) {
	return cfg.runFresh(out, Table2Jobs(cfg.Seeds, cfg.Noise), (*runSet).table2Tests)
}

// DStable is the data of the stable set's section: the logs, the releases and HIV's runs.
type DStable struct {
	// Logs has one row per environment: its N, transitions, public bound L, longest demonstration, the
	// reference returns and the spread of the experts' returns.
	Logs *experiment.Table
	// Releases has one row per DataRelease run: env, epsilon, m, L, release, stable (transitions) and
	// longest (stable prefix), at the paper's ε split (the 3/4 split below ε = 7.5 but on Acrobot) and T.
	Releases *experiment.Table
	// Runs are HIVJobs' runs (OutcomeTable's columns).
	Runs *experiment.Table
}

// altL is the alternative public bound on LunarLander's demonstrations (the paper states none; ours is
// Gymnasium's 1000): a shorter bound lowers the threshold.
const altL = 500

// DStableData builds every environment of cfg.Sizes and measures |D_stable| over cfg.Epsilons and cfg.Fig4M
// (cfg.Releases releases each, also with LunarLander's alternative bound L = 500 at ε = 10 and m = 3000),
// and runs HIVJobs.
func DStableData(out report.Sink, cfg Config) (*DStable, error) {
	envs := make([]string, len(cfg.Sizes))
	for i, s := range cfg.Sizes {
		envs[i] = s.Env
	}
	setups, err := cfg.setups(out, envs)
	if err != nil {
		return nil, err
	}
	d := &DStable{Logs: &experiment.Table{Columns: []string{"env", "per_expert", "transitions", "L", "longest", "random_return", "expert_return", "q05", "q50", "q95"}},
		Releases: &experiment.Table{Columns: []string{"env", "epsilon", "m", "L", "release", "stable", "longest"}}}
	type cell struct {
		env    string
		eps    float64
		m, L   int
		seedAt int
	}
	var cells []cell
	for _, env := range envs {
		st := setups[env]
		r := st.Data.ExpertReturns()
		d.Logs.Add(env, st.PerExpert, st.Data.Transitions(), st.Domain.DemoLen, st.Data.MaxLen(), st.RandomReturn, st.ExpertReturn,
			quantile(r, 0.05), quantile(r, 0.5), quantile(r, 0.95))
		for _, eps := range cfg.Epsilons {
			for _, m := range cfg.Fig4M {
				cells = append(cells, cell{env, eps, m, st.Domain.DemoLen, 0})
			}
		}
		if env == "lunarlander" {
			cells = append(cells, cell{env, 10, NumExperts, altL, 0})
		}
	}
	type rel struct{ stable, longest int }
	res, err := experiment.Trials(len(cells)*cfg.Releases, cfg.Workers, 7, nil, func(i int, _ rand.Source) (rel, error) {
		c, k := cells[i/cfg.Releases], i%cfg.Releases
		st := setups[c.env]
		data, err := st.Data.Subset(c.m)
		if err != nil {
			return rel{}, err
		}
		ex, err := st.Experts.Subset(c.m)
		if err != nil {
			return rel{}, err
		}
		sp := releaseSplit(c.env, c.eps, 1/float64(c.m))
		r, err := expertdp.DataRelease(data, ex, expertdp.ReleaseParams{Epsilon: sp.Eps1, Delta: sp.Delta1, PMin: PMin, T: sp.T, L: c.L, Src: rand.NewPCG(uint64(k), 7)})
		if err != nil {
			return rel{}, err
		}
		return rel{r.StableTransitions(), slices.Max(r.StableLen())}, nil
	})
	if err != nil {
		return nil, err
	}
	for i, r := range res {
		c := cells[i/cfg.Releases]
		d.Releases.Add(c.env, c.eps, c.m, c.L, i%cfg.Releases, r.stable, r.longest)
	}
	if _, ok := setups["hiv"]; ok {
		if d.Runs, err = cfg.run(out, setups, HIVJobs(cfg.Seeds, cfg.Noise)); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// releaseSplit is the split whose release the |D_stable| table measures at ε: the paper's, but the 3/4 split
// where the paper runs no release (ε < 7.5 but on Acrobot; Table 2's low-ε rows).
func releaseSplit(env string, eps, delta float64) Split {
	if sp := PaperSplit(env, eps, delta); sp.Eps1 > 0 {
		return sp
	}
	return ThreeQuarterSplit(env, eps, delta)
}

// quantile is the f-quantile of x (the element at index ⌊f·(n−1)⌋ of the sorted values; NaN for none).
func quantile(x []float64, f float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), x...)
	sort.Float64s(s)
	return s[int(f*float64(len(s)-1))]
}

// OutcomeTable is the tidy table of runs: every field of the job (the split's δ's as fractions of δ = 1/m,
// as Job.Split holds them, and its T) and of the outcome; Outcomes reads it back. The sweep sharma/jobs
// writes it without seed.
func OutcomeTable(all []Outcome) *experiment.Table {
	t := &experiment.Table{Columns: outcomeColumns}
	for _, o := range all {
		t.Add(o.Tag, o.Env, o.Algorithm.String(), o.Method.String(), o.Epsilon, o.Split.Eps1, o.Split.Delta1, o.Split.Eps2, o.Split.Delta2, o.Split.T,
			o.P, strconv.FormatBool(o.Fallback), o.Experts, o.Seed, o.Accounting.String(), o.Noise.String(),
			o.Stable, o.Steps, o.Private, o.S, o.Eps2, o.Eps2Exact, o.PT, o.CertEps, o.CertDelta, o.Return, o.Normalized,
			strconv.FormatBool(o.FellBack), strconv.FormatBool(o.Diverged), o.Note)
	}
	return t
}

var outcomeColumns = []string{"tag", "env", "learner", "method", "epsilon", "eps1", "delta1_frac", "eps2", "delta2_frac", "release_t",
	"p", "fallback", "m", "seed", "accounting", "noise",
	"stable", "steps", "private_steps", "s", "eps2_spent", "eps2_exact", "p_t", "cert_eps", "cert_delta", "return", "normalized",
	"fell_back", "diverged", "note"}

// Outcomes reads a runs table (OutcomeTable's columns) back.
func Outcomes(t *experiment.Table) ([]Outcome, error) { return readOutcomes(t, false) }

// readOutcomes reads OutcomeTable's columns; with ranks, Job.Seed is the rank of the row's seed among the
// table's seeds (a merged sweep's seeds are its tasks'), and a run the table holds twice (the same setting
// and seed) is kept once, the first.
func readOutcomes(t *experiment.Table, ranks bool) ([]Outcome, error) {
	if t == nil {
		return nil, check.Missing("t", "a runs table")
	}
	c, err := sweep.NewReader(t, outcomeColumns...)
	if err != nil {
		return nil, err
	}
	var seed map[string]int
	if ranks {
		seed = c.SeedRanks("seed")
	}
	methods := map[string]Method{}
	for m := range Method(len(methodNames)) {
		methods[m.String()] = m
	}
	learnersByName := map[string]expertdp.Algorithm{expertdp.CQL.String(): expertdp.CQL, expertdp.BCQ.String(): expertdp.BCQ}
	accountings := map[string]expertdp.Accounting{expertdp.AccountingMixed.String(): expertdp.AccountingMixed, expertdp.AccountingPaper.String(): expertdp.AccountingPaper}
	noises := map[string]Noise{NoiseCalibrated.String(): NoiseCalibrated, NoisePaper.String(): NoisePaper}
	bools := map[string]bool{"true": true, "false": false}
	var out []Outcome
	seen := map[runKey]bool{}
	for r := range c.Len() {
		m, okM := methods[c.String(r, "method")]
		alg, okA := learnersByName[c.String(r, "learner")]
		acc, okAcc := accountings[c.String(r, "accounting")]
		noise, okN := noises[c.String(r, "noise")]
		fb, okF := bools[c.String(r, "fallback")]
		fell, okFB := bools[c.String(r, "fell_back")]
		div, okD := bools[c.String(r, "diverged")]
		switch {
		case !okM:
			return nil, fmt.Errorf("sharma: runs row %d: method %q is not one of %q", r, c.String(r, "method"), methodNames)
		case !okA:
			return nil, fmt.Errorf("sharma: runs row %d: learner %q is not CQL or BCQ", r, c.String(r, "learner"))
		case !okAcc:
			return nil, fmt.Errorf("sharma: runs row %d: accounting %q is not %q or %q", r, c.String(r, "accounting"), expertdp.AccountingMixed, expertdp.AccountingPaper)
		case !okN:
			return nil, fmt.Errorf("sharma: runs row %d: noise %q is not %q or %q", r, c.String(r, "noise"), NoiseCalibrated, NoisePaper)
		case !okF || !okFB || !okD:
			return nil, fmt.Errorf("sharma: runs row %d: fallback, fell_back and diverged must be true or false", r)
		}
		sp := Split{Eps1: c.Float(r, "eps1"), Delta1: c.Float(r, "delta1_frac"), Eps2: c.Float(r, "eps2"), Delta2: c.Float(r, "delta2_frac"), T: c.Int(r, "release_t")}
		job := Job{Tag: c.String(r, "tag"), Env: c.String(r, "env"), Algorithm: alg, Method: m, Epsilon: c.Float(r, "epsilon"), Split: sp, P: c.Float(r, "p"),
			Fallback: fb, Experts: c.Int(r, "m"), Accounting: acc, Noise: noise}
		if ranks {
			job.Seed = seed[c.String(r, "seed")]
		} else {
			job.Seed = c.Int(r, "seed")
		}
		o := Outcome{Job: job, Stable: c.Int(r, "stable"), Steps: c.Int(r, "steps"), Private: c.Int(r, "private_steps"), S: c.Float(r, "s"),
			Eps2: c.Float(r, "eps2_spent"), Eps2Exact: c.Float(r, "eps2_exact"), PT: c.Float(r, "p_t"), CertEps: c.Float(r, "cert_eps"),
			CertDelta: c.Float(r, "cert_delta"), Return: c.Float(r, "return"), Normalized: c.Float(r, "normalized"), FellBack: fell, Diverged: div,
			Note: c.String(r, "note")}
		if k := (runKey{o.Setting(), o.Seed}); !seen[k] || !ranks {
			seen[k] = true
			out = append(out, o)
		}
	}
	return out, c.Err()
}

// runKey is what makes two runs the same: their setting and seed.
type runKey struct {
	Setting
	seed int
}

// fullSizeRuns reads the merged sweep name in the repository at root when there is one (repro.FullSize
// writes the note): its runs as a runs table, Job.Seed the rank of the task's seed. The runs must be
// comparable as the notebook's are: every private run calibrated with the exact mixture accounting and
// spending at most its certificate, on a setup of NumExperts experts; a sweep whose runs are not is an
// error.
func fullSizeRuns(out report.Sink, root, name string) (*experiment.Table, bool, error) {
	r, ok, err := repro.FullSize(out, root, name)
	if !ok || err != nil {
		return nil, false, err
	}
	if err := checkExperts(r.Spec); err != nil {
		return nil, false, fmt.Errorf("%s: %w", r.Describe(), err)
	}
	all, err := readOutcomes(r.Table, true)
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", r.Describe(), err)
	}
	if len(all) == 0 {
		return nil, false, fmt.Errorf("sharma: %s has no runs", r.Describe())
	}
	if err := checkComparable(all); err != nil {
		return nil, false, fmt.Errorf("%s: %w", r.Describe(), err)
	}
	return OutcomeTable(all), true, nil
}
