package seoyang2020

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync"

	"github.com/dprl-project/dprl/dprl/actorcritic"
	"github.com/dprl-project/dprl/dprl/experiment"
	"github.com/dprl-project/dprl/dprl/report"
)

// Delta is the δ of every run and table (Table 2).
const Delta = 1e-6

// The seeds: run r of every evaluated condition draws from rand.NewPCG(Seed, r), so all conditions share
// their streams; OtherSeed gives the second set of Non-DP runs of the cosine reference, and TuneSeed the
// tuning runs, disjoint from both.
const (
	Seed      = 2020
	OtherSeed = 2021
	TuneSeed  = 2022
)

// Window is the number of final episodes whose mean return is a run's final return (the paper's last 50).
const Window = 50

// Sizes sizes the experiments: Runs seeds of Episodes episodes per condition, TuneRuns tuning runs per
// setting of the tuning grid; Fig. 3 sweeps DP-Actor and DP-Critic (and DP-Both when Both is set) over the
// per-step ε in Epsilons (ε = 10 is Fig. 2's runs); the corrected variant runs at each whole-run ε per
// patient in Corrected.
type Sizes struct {
	Runs, Episodes, TuneRuns int
	Epsilons                 []float64
	Both                     bool
	Corrected                []float64
}

// DefaultSizes is the paper's 10 seeds of 500 episodes, 3 tuning runs per setting, Fig. 3 at
// ε ∈ {5, 1, 0.5} for DP-Actor and DP-Critic (with ε = 10 from Fig. 2: every ε the paper calls stable;
// ε = 0.1, below all of them, and DP-Both, for which the paper states no range, are left out), and the
// corrected variant at ε = 100 per patient. Quick mode runs 2 seeds of 60 episodes and 1 tuning run.
// paperScale adds ε = 0.1 and DP-Both (the paper's whole Fig. 3 grid), tunes on the paper's 10 runs per
// setting and runs the corrected variant at ε = 10 per patient too.
func DefaultSizes(paperScale bool) Sizes {
	if paperScale {
		return Sizes{Runs: 10, Episodes: 500, TuneRuns: 10, Epsilons: []float64{5, 1, 0.5, 0.1}, Both: true, Corrected: []float64{100, 10}}
	}
	return Sizes{Runs: experiment.Size(10, 2), Episodes: experiment.Size(500, 60), TuneRuns: experiment.Size(3, 1),
		Epsilons: []float64{5, 1, 0.5}, Corrected: []float64{100}}
}

func (s Sizes) check() error {
	if err := check.AtLeast("Sizes.Runs", s.Runs, 2); err != nil {
		return err
	}
	if err := check.AtLeast("Sizes.Episodes", s.Episodes, 1); err != nil {
		return err
	}
	if err := check.AtLeast("Sizes.TuneRuns", s.TuneRuns, 1); err != nil {
		return err
	}
	if len(s.Epsilons) == 0 {
		return check.Missing("Sizes.Epsilons", "at least one per-step ε for Fig. 3")
	}
	if len(s.Corrected) == 0 {
		return check.Missing("Sizes.Corrected", "at least one ε per patient for the corrected variant")
	}
	for _, e := range append(slices.Clone(s.Epsilons), s.Corrected...) {
		if !(e > 0) || math.IsInf(e, 0) {
			return check.Errorf("Sizes.Epsilons", e, "a positive finite ε")
		}
	}
	return nil
}

// Tables are every run behind the notebook's experiments, as tidy tables (Data).
//
// Tuning has one row per tuning run: domain, variant (a condition name), alpha_u, alpha_v, seed (run r of
// rand.NewPCG(TuneSeed, r)), score (the mean return over all episodes, an episode after the weights
// overflowed counting as the domain's lowest return) and diverged (1 if the weights overflowed).
//
// Runs has one row per evaluated run and episode: domain, variant, setting ("tuned", or "table2" for the
// robustness runs at Table 2's step sizes), epsilon (the nominal per-step ε of the published variants, see
// StepEpsilon; the corrected variant's ε per patient; empty for the non-private conditions), alpha_u,
// alpha_v, seed (run r; OtherSeed's for non-dp-other-seed), episode (1 …), return, length, diverged_at (the
// episode the weights overflowed in, −1 if never), releases (the corrected variant's noisy releases in the
// run), and for the conditions of Fig. 2 the cosines of the end-of-episode traces e_u and e_v with the Non-DP
// runs': cos_u and cos_v with the Non-DP run of the same seed (paired), avg_u and avg_v between the traces
// averaged over all runs per episode (Fig. 4's caption; the same in every seed's row), and avg_u_without and
// avg_v_without, the same average leaving this seed out (for the jackknife); NaN elsewhere.
type Tables struct {
	Tuning, Runs *experiment.Table
	Size         Sizes
}

// tuningColumns and runColumns are the columns of Tables.Tuning and Tables.Runs.
var (
	tuningColumns = []string{"domain", "variant", "alpha_u", "alpha_v", "seed", "score", "diverged"}
	runColumns    = []string{"domain", "variant", "setting", "epsilon", "alpha_u", "alpha_v", "seed", "episode", "return", "length",
		"diverged_at", "releases", "cos_u", "cos_v", "avg_u", "avg_v", "avg_u_without", "avg_v_without"}
)

// The settings of the Runs table.
const (
	Tuned  = "tuned"
	Table2 = "table2"
)

// TunedConditions are the conditions tuned each on its own, as the paper does ("We fixed the optimal
// parameter set from each case"): Non-DP, the three published variants at ε = 10 per step (DP-Both at its
// equal-privacy StepEpsilon) and DP-Actor acting by softmax (Fig. 5). The random policy and the corrected
// variant run at Table 2's step sizes.
func TunedConditions() []string { return []string{NonDP, DPActor, DPCritic, DPBoth, DPActorSoftmax} }

// Fig2Conditions are the conditions of Fig. 2 and the cosine study, in the order they are shown.
func Fig2Conditions() []string { return []string{NonDP, DPActor, DPCritic, DPBoth, Random} }

// arm is one evaluated condition: its runs are run r = 0 … Runs − 1 of rand.NewPCG(base, r).
type arm struct {
	d       Domain
	cond    string
	eps     float64 // NaN for the non-private conditions
	setting string
	s       Setting
	base    uint64
}

func (a arm) config(episodes int) (actorcritic.Config, error) {
	eps := a.eps
	if math.IsNaN(eps) {
		eps = a.d.Base.Epsilon
	}
	return a.d.Config(a.cond, eps, episodes, a.s)
}

// epsKey writes an ε as the tables do (empty for NaN: a non-private condition).
func epsKey(eps float64) string {
	if math.IsNaN(eps) {
		return ""
	}
	return strconv.FormatFloat(eps, 'g', -1, 64)
}

// Data runs every experiment of the notebook once, at size, and returns the runs as tidy tables: first the
// tuning of each condition on the tuning seeds (TunedConditions over each domain's TuningGrid, TuneRuns
// runs per setting; the environments are simulators, so the tuning reads no private data and costs no
// privacy), then, with each condition's chosen setting (Choose), the evaluated runs: Fig. 3's ε grid,
// Fig. 5's softmax DP-Actor, each tuned condition at Table 2's step sizes where its choice differs (the
// robustness check), and Fig. 2's conditions with their traces (DP-Actor, DP-Critic, DP-Both, the random
// policy and Non-DP on OtherSeed), each reduced to its cosines with the Non-DP runs' traces as soon as it has
// run; the corrected variant (at Table 2's step sizes) runs beside the tuning. Everything that does not
// wait for something else runs in parallel (experiment.Trials, the longest runs first); the results do not
// depend on the number of workers. out gets the progress bars.
func Data(out report.Sink, size Sizes) (*Tables, error) {
	if err := size.check(); err != nil {
		return nil, err
	}
	doms := Domains()
	var corrected []arm
	for _, d := range doms {
		for _, eps := range size.Corrected {
			corrected = append(corrected, arm{d, Corrected, eps, Table2, d.Table2(), Seed})
		}
	}
	tables := &Tables{Runs: &experiment.Table{Columns: runColumns}, Size: size}
	bar := out.Bar("tuning runs and the corrected variant", len(doms)*len(TunedConditions())*len(doms[0].TuningGrid())*size.TuneRuns+len(corrected)*size.Runs)
	var correctedRows [][]string
	err := parallel(func() (err error) {
		tables.Tuning, err = tune(size, bar)
		return err
	}, func() (err error) {
		correctedRows, err = tables.runPlain(corrected, bar)
		return err
	})
	bar.Done()
	if err != nil {
		return nil, err
	}
	chosen, err := Choose(tables.Tuning)
	if err != nil {
		return nil, err
	}
	var plain []arm
	for _, d := range doms {
		pick := func(cond string) Setting { return chosen[d.Name+"/"+cond] }
		variants := []string{DPActor, DPCritic}
		if size.Both {
			variants = append(variants, DPBoth)
		}
		for _, v := range variants {
			for _, eps := range size.Epsilons {
				plain = append(plain, arm{d, v, eps, Tuned, pick(v), Seed})
			}
		}
		plain = append(plain, arm{d, DPActorSoftmax, d.Base.Epsilon, Tuned, pick(DPActorSoftmax), Seed})
		for _, c := range TunedConditions() {
			if pick(c) != d.Table2() {
				eps := d.Base.Epsilon
				if c == NonDP {
					eps = math.NaN()
				}
				plain = append(plain, arm{d, c, eps, Table2, d.Table2(), Seed})
			}
		}
	}
	bar = out.Bar("runs", size.Runs*(len(plain)+len(doms)*(len(Fig2Conditions())+1)))
	defer bar.Done()
	parts := make([][][]string, 1+len(doms))
	jobs := []func() error{func() (err error) {
		parts[0], err = tables.runPlain(plain, bar)
		return err
	}}
	for k, d := range doms {
		jobs = append(jobs, func() (err error) {
			parts[1+k], err = tables.runTraced(d, chosen, bar)
			return err
		})
	}
	if err := parallel(jobs...); err != nil {
		return nil, err
	}
	for _, rows := range append([][][]string{correctedRows}, parts...) {
		tables.Runs.Rows = append(tables.Runs.Rows, rows...)
	}
	return tables, nil
}

// parallel runs the jobs at the same time and returns their errors, joined in the jobs' order.
func parallel(jobs ...func() error) error {
	errs := make([]error, len(jobs))
	var wg sync.WaitGroup
	for i, j := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = j()
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// cost orders runs for the scheduler, the longest first: MDP-100's long episodes, then the conditions whose
// noise is drawn on every actor entry (λ > 0), softmax acting (which does not learn MDP-100) and small ε.
func cost(d Domain, cond string, eps float64) float64 {
	c := float64(d.MaxSteps)
	switch cond {
	case DPActorSoftmax:
		c *= 4
	case DPActor, DPBoth, Corrected:
		c *= 3
	}
	if eps > 0 && eps < 10 {
		c *= 1 + 1/eps
	}
	return c
}

// tune runs every tuning run, all in parallel, and tabulates them (Tables.Tuning).
func tune(size Sizes, bar experiment.Progress) (*experiment.Table, error) {
	type job struct {
		d    Domain
		cond string
		s    Setting
		r    int
	}
	var jobs []job
	for _, d := range Domains() {
		for _, c := range TunedConditions() {
			for _, s := range d.TuningGrid() {
				for r := range size.TuneRuns {
					jobs = append(jobs, job{d, c, s, r})
				}
			}
		}
	}
	order := byCost(len(jobs), func(i int) float64 { return cost(jobs[i].d, jobs[i].cond, 10) })
	res, err := experiment.Trials(len(jobs), 0, TuneSeed, bar, func(k int, _ rand.Source) (*actorcritic.Result, error) {
		j := jobs[order[k]]
		cfg, err := j.d.Config(j.cond, j.d.Base.Epsilon, size.Episodes, j.s)
		if err != nil {
			return nil, err
		}
		return j.d.Run(cfg, rand.NewPCG(TuneSeed, uint64(j.r)))
	})
	if err != nil {
		return nil, err
	}
	byJob := make([]*actorcritic.Result, len(jobs))
	for k, i := range order {
		byJob[i] = res[k]
	}
	t := &experiment.Table{Columns: tuningColumns}
	for i, j := range jobs {
		t.Add(j.d.Name, j.cond, j.s.AlphaU, j.s.AlphaV, j.r, j.d.Score(byJob[i].Returns, size.Episodes), btoi(byJob[i].DivergedAt >= 0))
	}
	return t, nil
}

// runPlain runs the arms without traces, all their runs in parallel, the longest first, and returns their
// rows.
func (t *Tables) runPlain(arms []arm, bar experiment.Progress) ([][]string, error) {
	n := t.Size.Runs
	order := byCost(len(arms)*n, func(i int) float64 { a := arms[i/n]; return cost(a.d, a.cond, a.eps) })
	res, err := experiment.Trials(len(arms)*n, 0, Seed, bar, func(k int, _ rand.Source) (*actorcritic.Result, error) {
		i := order[k]
		a := arms[i/n]
		cfg, err := a.config(t.Size.Episodes)
		if err != nil {
			return nil, err
		}
		return a.d.Run(cfg, rand.NewPCG(a.base, uint64(i%n)))
	})
	if err != nil {
		return nil, err
	}
	byRun := make([]*actorcritic.Result, len(res))
	for k, i := range order {
		byRun[i] = res[k]
	}
	var rows [][]string
	for k, a := range arms {
		r, err := t.rows(a, byRun[k*n:(k+1)*n], nil)
		if err != nil {
			return nil, err
		}
		rows = append(rows, r...)
	}
	return rows, nil
}

// byCost is the indices 0 … n − 1, the most costly first (stable).
func byCost(n int, cost func(i int) float64) []int {
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(cost(b), cost(a)) })
	return order
}

// runTraced runs Fig. 2's conditions on d with their traces and returns their rows: Non-DP first, whose
// traces stay in memory, then each other condition, reduced to its cosines with Non-DP's traces
// (traceCosines) before the next runs.
func (t *Tables) runTraced(d Domain, chosen map[string]Setting, bar experiment.Progress) ([][]string, error) {
	run := func(a arm) ([]*actorcritic.Result, error) {
		cfg, err := a.config(t.Size.Episodes)
		if err != nil {
			return nil, err
		}
		cfg.RecordTraces = true
		return d.RunMany(cfg, t.Size.Runs, a.base, bar)
	}
	nonArm := arm{d, NonDP, math.NaN(), Tuned, chosen[d.Name+"/"+NonDP], Seed}
	non, err := run(nonArm)
	if err != nil {
		return nil, err
	}
	rows, err := t.rows(nonArm, non, nil)
	if err != nil {
		return nil, err
	}
	for _, c := range []string{DPActor, DPCritic, DPBoth, Random, NonDPOtherSeed} {
		a := arm{d, c, d.Base.Epsilon, Tuned, chosen[d.Name+"/"+c], Seed}
		switch c {
		case Random:
			a.eps, a.setting, a.s = math.NaN(), Table2, d.Table2()
		case NonDPOtherSeed:
			a.eps, a.s, a.base = math.NaN(), chosen[d.Name+"/"+NonDP], OtherSeed
		}
		rs, err := run(a)
		if err != nil {
			return nil, err
		}
		cu, cv := traceCosines(rs, non, t.Size.Episodes, true), traceCosines(rs, non, t.Size.Episodes, false)
		for _, r := range rs {
			r.TraceU, r.TraceV = nil, nil
		}
		more, err := t.rows(a, rs, &[2]cosines{cu, cv})
		if err != nil {
			return nil, err
		}
		rows = append(rows, more...)
	}
	return rows, nil
}

// rows are the rows of arm a's runs (one per run and episode), with their cosines when cos is not nil.
func (t *Tables) rows(a arm, rs []*actorcritic.Result, cos *[2]cosines) ([][]string, error) {
	episodes := make([]string, t.Size.Episodes)
	for i := range episodes {
		episodes[i] = strconv.Itoa(i + 1)
	}
	nan := "NaN"
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	eps, au, av := epsKey(a.eps), f(a.s.AlphaU), f(a.s.AlphaV)
	var out [][]string
	for r, res := range rs {
		if len(res.Returns) != t.Size.Episodes {
			return nil, fmt.Errorf("seoyang2020: %s on %s, run %d: %d episodes, want %d", a.cond, a.d.Name, r, len(res.Returns), t.Size.Episodes)
		}
		if a.cond == Corrected && res.Releases != t.Size.Episodes*a.d.MaxSteps {
			return nil, fmt.Errorf("seoyang2020: corrected run %d on %s made %d releases, the accounting assumes %d", r, a.d.Label, res.Releases, t.Size.Episodes*a.d.MaxSteps)
		}
		seed, div, rel := strconv.Itoa(r), strconv.Itoa(res.DivergedAt), strconv.Itoa(res.Releases)
		for ep, ret := range res.Returns {
			row := []string{a.d.Name, a.cond, a.setting, eps, au, av, seed, episodes[ep], f(ret), strconv.Itoa(res.Lengths[ep]), div, rel,
				nan, nan, nan, nan, nan, nan}
			if cos != nil {
				u, v := cos[0], cos[1]
				row[12], row[13], row[14], row[15] = f(u.paired[r][ep]), f(v.paired[r][ep]), f(u.avg[ep]), f(v.avg[ep])
				row[16], row[17] = f(u.without[r][ep]), f(v.without[r][ep])
			}
			out = append(out, row)
		}
	}
	return out, nil
}

// Choose picks each tuned condition's setting on each domain from the tuning table by the paper's criterion
// (Fig. 2's caption: the best return "after averaging 10 runs for each parameter setting"): the highest
// mean over the tuning runs of the mean return over all episodes; ties go to the earlier setting of the
// grid (Table 2's first). Keys are "domain/condition".
func Choose(t *experiment.Table) (map[string]Setting, error) {
	cols, err := columns(t, tuningColumns...)
	if err != nil {
		return nil, err
	}
	type acc struct {
		s   Setting
		sum float64
		n   int
	}
	byKey := map[string][]*acc{}
	for _, row := range t.Rows {
		key := row[cols[0]] + "/" + row[cols[1]]
		au, err1 := strconv.ParseFloat(row[cols[2]], 64)
		av, err2 := strconv.ParseFloat(row[cols[3]], 64)
		score, err3 := strconv.ParseFloat(row[cols[5]], 64)
		if err1 != nil || err2 != nil || err3 != nil {
			return nil, fmt.Errorf("seoyang2020: tuning row %v: not a number", row)
		}
		s := Setting{au, av}
		i := slices.IndexFunc(byKey[key], func(a *acc) bool { return a.s == s })
		if i < 0 {
			byKey[key] = append(byKey[key], &acc{s: s})
			i = len(byKey[key]) - 1
		}
		byKey[key][i].sum += score
		byKey[key][i].n++
	}
	out := map[string]Setting{}
	for key, accs := range byKey {
		best := accs[0]
		for _, a := range accs[1:] {
			if a.sum/float64(a.n) > best.sum/float64(best.n) {
				best = a
			}
		}
		out[key] = best.s
	}
	return out, nil
}

// columns is the index of each named column of t, or an error naming the one missing.
func columns(t *experiment.Table, names ...string) ([]int, error) {
	out := make([]int, len(names))
	for k, n := range names {
		if out[k] = slices.Index(t.Columns, n); out[k] < 0 {
			return nil, fmt.Errorf("seoyang2020: the table has no column %q (columns %v)", n, t.Columns)
		}
	}
	return out, nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
