package sharma

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/dprl-project/dprl/dprl/experiment"
	"github.com/dprl-project/dprl/dprl/expertdp"
	"github.com/dprl-project/dprl/dprl/param"
)

// Split is a privacy budget allocation between DataRelease (ε1, δ1, examining T trajectories) and the
// DP-SGD steps (ε2, δ2); the pipeline is (ε1 + ε2, δ1 + δ2)-DP for expert-level neighbours (Theorem 5.6).
type Split struct {
	Eps1, Delta1, Eps2, Delta2 float64
	T                          int
}

// PaperSplit is Sharma et al.'s allocation of (ε, δ) on env (§6.1 and Appendix B.3): Acrobot spends
// everything on the release (ε1 = ε); the others split 3ε/4 and ε/4, δ 9/10 and 1/10, for ε ≥ 7.5 and go
// pure DP-SGD (ε1 = 0) at ε = 5. HIV follows Appendix B.3: §6.1 groups it with Acrobot (ε1 = ε), but
// Table 1's BCQ p = 0.9 for HIV needs DP-SGD steps, hence ε2 > 0, which B.3's split gives. T is the
// paper's cutoff (Acrobot 25/20/20 for ε = 10/7.5/≤5, LunarLander 100/62, CartPole 25/20, HIV 50).
// lowAllocation forces the 3/4 split below ε = 7.5 (Table 2's comparison).
func PaperSplit(env string, eps, delta float64, lowAllocation bool) Split {
	cut := map[string][2]int{"acrobot": {25, 20}, "lunarlander": {100, 62}, "cartpole": {25, 20}, "hiv": {50, 50}}[env]
	T := cut[1]
	if eps >= 10 {
		T = cut[0]
	}
	switch {
	case env == "acrobot":
		return Split{Eps1: eps, Delta1: delta, T: T}
	case eps < 7.5 && !lowAllocation:
		return Split{Eps2: eps, Delta2: delta}
	}
	return Split{Eps1: 3 * eps / 4, Delta1: 0.9 * delta, Eps2: eps / 4, Delta2: 0.1 * delta, T: T}
}

// PaperP is Table 1's best p for env, learner and ε (pure DP-SGD, p = 1, when the split gives ε1 = 0;
// p = 0 when it gives ε2 = 0).
func PaperP(env string, alg expertdp.Algorithm, eps float64) float64 {
	table := map[string][2][3]float64{ // [CQL, BCQ][ε = 5, 7.5, 10]
		"lunarlander": {{1, 0.8, 0.8}, {1, 0.5, 0.5}},
		"acrobot":     {{0, 0, 0}, {0, 0, 0}},
		"cartpole":    {{1, 0.9, 0.8}, {1, 0.5, 0.5}},
		"hiv":         {{1, 0, 0}, {1, 0.9, 0.9}},
	}
	col := 0
	switch {
	case eps >= 10:
		col = 2
	case eps >= 7.5:
		col = 1
	}
	return table[env][alg][col]
}

// Setup is one domain's experts, log and normalisation references.
type Setup struct {
	Domain  *expertdp.Domain
	Experts *expertdp.Experts
	Data    *expertdp.Data
	PMin    float64
	// PerExpert is N, the number of trajectories each expert contributes: a public bound of the data
	// collection, which DataRelease's fixed-log δ term (expertdp.FixedLogDelta) needs.
	PerExpert int
	// RandomReturn is the uniform policy's mean return and ExpertReturn the best base policy's (greedy, on
	// the default environment), over the evaluation episode cap: normalised return 0 and 1.
	RandomReturn, ExpertReturn float64
}

// SetupConfig sizes a Setup.
type SetupConfig struct {
	Bases, Experts, PerExpert int
	PMin                      float64 // 0.02
	RefEpisodes               int     // episodes for each reference return (20)
	Workers                   int
	Seed                      uint64
	Progress                  experiment.Progress // bases + experts + reference policies
}

// NewSetup trains the bases, derives the experts, generates the log and measures the references.
func NewSetup(env string, cfg SetupConfig) (*Setup, error) {
	d, err := expertdp.DomainByName(env)
	if err != nil {
		return nil, fmt.Errorf("expertdp: env = %q is not a known environment (allowed: cartpole, acrobot, lunarlander, hiv)", env)
	}
	if cfg.PMin == 0 {
		cfg.PMin = 0.02
	}
	if cfg.RefEpisodes == 0 {
		cfg.RefEpisodes = 20
	}
	e, err := expertdp.NewExperts(d, expertdp.ExpertsConfig{Bases: cfg.Bases, Experts: cfg.Experts, Workers: cfg.Workers, Seed: cfg.Seed, Progress: cfg.Progress})
	if err != nil {
		return nil, err
	}
	data, err := expertdp.GenerateData(e, expertdp.DataConfig{PerExpert: cfg.PerExpert, PMin: cfg.PMin, Workers: cfg.Workers, Seed: cfg.Seed + 1, Progress: cfg.Progress})
	if err != nil {
		return nil, err
	}
	s := &Setup{Domain: d, Experts: e, Data: data, PMin: cfg.PMin, PerExpert: cfg.PerExpert}
	// References: index 0 the uniform policy, 1… the base policies.
	refs, err := experiment.Trials(1+cfg.Bases, cfg.Workers, cfg.Seed+2, cfg.Progress, func(i int, src rand.Source) (float64, error) {
		rng := rand.New(src)
		env := d.Env(d.Default, d.EvalLen)
		act := func([]float64) int { return rng.IntN(d.NumActions) }
		if i > 0 {
			p := e.BaseParams[i-1]
			act = func(o []float64) int { return d.Act(p, o) }
		}
		total := 0.0
		for range cfg.RefEpisodes {
			r, err := expertdp.EpisodeReturn(env, rand.NewPCG(rng.Uint64(), rng.Uint64()), act)
			if err != nil {
				return 0, err
			}
			total += r
		}
		return total / float64(cfg.RefEpisodes), nil
	})
	if err != nil {
		return nil, err
	}
	s.RandomReturn, s.ExpertReturn = refs[0], math.Inf(-1)
	for _, r := range refs[1:] {
		s.ExpertReturn = math.Max(s.ExpertReturn, r)
	}
	return s, nil
}

// Normalize maps a return to the paper's scale: 0 for the uniform policy, 1 for the best expert.
func (s *Setup) Normalize(r float64) float64 {
	return (r - s.RandomReturn) / (s.ExpertReturn - s.RandomReturn)
}

// Method is what a job trains.
type Method int

const (
	// Ours is DataRelease with (ε1, δ1) followed by Selective DP-SGD with (ε2, δ2).
	Ours Method = iota
	// ExpertDPSGD is the baseline: expert-level DP-SGD on the whole log with all of (ε, δ).
	ExpertDPSGD
	// NonPrivate is full-data CQL/BCQ without clipping or noise.
	NonPrivate
)

func (m Method) String() string {
	return [...]string{"ours", "expert-level DP-SGD", "non-private"}[m]
}

// Job is one training run of an experiment.
type Job struct {
	Tag       string // the figure or table the job was first generated for
	Env       string
	Algorithm expertdp.Algorithm
	Method    Method
	Epsilon   float64 // overall ε (δ = 1/m)
	Split     Split   // Ours only; its δ1 and δ2 are fractions of δ = 1/m (PaperSplit with δ = 1)
	P         float64 // Ours only
	Experts   int     // m: the first m experts of the setup (0: all)
	Seed      int
	// Accounting calibrates Ours' DP-SGD steps: the exact mixture (the zero value) for every run that is
	// compared with another; expertdp.AccountingPaper only for runs labelled "published accounting",
	// which spend more than their nominal ε.
	Accounting expertdp.Accounting
}

// Setting is what a job runs, without its tag and seed: jobs of equal settings are runs of the same
// experiment (seeds apart). Ours without a release (ε1 = 0) on the whole budget with p = 1 is
// expert-level DP-SGD and has its setting; m = NumExperts is written 0; fields a method does not read are
// zero.
type Setting struct {
	Env        string
	Algorithm  expertdp.Algorithm
	Method     Method
	Epsilon    float64
	Split      Split
	P          float64
	Experts    int
	Accounting expertdp.Accounting
}

// Setting is the job's Setting.
func (j Job) Setting() Setting {
	c := Setting{Env: j.Env, Algorithm: j.Algorithm, Method: j.Method, Epsilon: j.Epsilon, Split: j.Split, P: j.P, Experts: j.Experts, Accounting: j.Accounting}
	if c.Experts == NumExperts {
		c.Experts = 0
	}
	switch {
	case j.Method == Ours && j.Split == (Split{Eps2: j.Epsilon, Delta2: 1}) && j.P == 1:
		c.Method, c.Split, c.P, c.Accounting = ExpertDPSGD, Split{}, 0, 0
	case j.Method == NonPrivate:
		c.Epsilon, c.Split, c.P, c.Accounting = 0, Split{}, 0, 0
	case j.Method == ExpertDPSGD:
		c.Split, c.P, c.Accounting = Split{}, 0, 0
	case j.P == 0 || j.P == 1 || j.Split.Eps2 == 0:
		c.Accounting = 0 // no mixing: both accountings agree
	}
	return c
}

// Outcome is a job's result.
type Outcome struct {
	Job
	Stable     int     `json:",omitempty"` // |D_stable| in transitions (Ours)
	Steps      int     // gradient steps run
	Private    int     // of which expert-level DP-SGD steps
	S          float64 // noise multiplier used
	Eps2       float64 // ε2 spent by the DP-SGD steps under the job's accounting (PLD)
	Return     float64 // mean evaluation return
	Normalized float64
	Note       string // what was special (e.g. D_stable empty: the initial network was evaluated)
	// Eps2Exact is ε2 at δ2 under the exact mixture accounting at the s and steps used (equal to Eps2 for
	// runs calibrated with it; larger for "published accounting" runs).
	Eps2Exact float64 `json:",omitempty"`
	// FixedLogDelta is p_T, what the fixed log adds to DataRelease's δ1 (expertdp.FixedLogDelta; Ours
	// with a release).
	FixedLogDelta float64 `json:",omitempty"`
}

// ExperimentConfig is shared by every job.
type ExperimentConfig struct {
	Learner  expertdp.LearnerConfig // Algorithm is set per job
	Batch    int                    // b (128)
	Steps    int                    // steps per run; private runs calibrate s to spend ε2 in exactly these steps
	Workers  int
	Seed     uint64
	Progress experiment.Progress // one unit per job
}

// trainConfig is job j's TrainConfig on m experts (learner and seed left to the caller), with batch b and
// steps steps, and its split with absolute δ's (δ = 1/m). Expert-level DP-SGD is p = 1 on all of (ε, δ);
// Ours spends (ε2, δ2) in its DP-SGD steps (none when ε2 = 0).
func trainConfig(j Job, m, batch, steps int) (expertdp.TrainConfig, Split, error) {
	delta := 1 / float64(m)
	tc := expertdp.TrainConfig{Batch: batch, MaxSteps: steps, Accounting: j.Accounting}
	var sp Split
	switch j.Method {
	case NonPrivate:
		tc.NonPrivate = true
	case ExpertDPSGD:
		tc.P, tc.Epsilon, tc.Delta = 1, j.Epsilon, delta
		sp = Split{Eps2: j.Epsilon, Delta2: delta}
	case Ours:
		sp = j.Split
		// A zero ε1 or ε2 skips that part (no data release, or no private steps); neither releases
		// anything without noise. Negative or NaN budgets are errors.
		if err := param.First(check.In("Split.Eps1", sp.Eps1, param.NonNegative), check.In("Split.Eps2", sp.Eps2, param.NonNegative)); err != nil {
			return tc, sp, err
		}
		sp.Delta1 *= delta
		sp.Delta2 *= delta
		tc.P, tc.Epsilon, tc.Delta = j.P, sp.Eps2, sp.Delta2
		if sp.Eps2 == 0 {
			tc.P = 0
		}
	default:
		return tc, sp, check.Errorf("Method", float64(j.Method), "one of Ours (0), ExpertDPSGD (1), NonPrivate (2)")
	}
	return tc, sp, nil
}

// RunJobs runs the jobs in parallel, deterministically per seed (job i gets the stream (Seed, i)). A job of
// Ours with p = 0 whose release is empty has nothing to train on: Selective DP-SGD then returns its
// initial network, which is evaluated like a trained one (Note says so).
func RunJobs(setups map[string]*Setup, jobs []Job, cfg ExperimentConfig) ([]Outcome, error) {
	return runJobs(setups, jobs, nil, cfg)
}

// runJobs is RunJobs with job i drawing from the stream (Seed, streams[i]) (nil streams: (Seed, i)), so a
// subset of a job list runs each job exactly as the whole list would; an error's TrialError names the job
// by streams[i], its index in the whole list.
func runJobs(setups map[string]*Setup, jobs []Job, streams []int, cfg ExperimentConfig) ([]Outcome, error) {
	if cfg.Batch == 0 {
		cfg.Batch = 128
	}
	if streams != nil && len(streams) != len(jobs) {
		return nil, check.Errorf("len(streams)", float64(len(streams)), "%d (one per job)", len(jobs))
	}
	out, err := experiment.Trials(len(jobs), cfg.Workers, cfg.Seed, cfg.Progress, func(i int, src rand.Source) (Outcome, error) {
		if streams != nil {
			src = rand.NewPCG(cfg.Seed, uint64(streams[i]))
		}
		j := jobs[i]
		s, ok := setups[j.Env]
		if !ok {
			return Outcome{}, fmt.Errorf("expertdp: no setup for environment %q", j.Env)
		}
		data, experts := s.Data, s.Experts
		if j.Experts > 0 && j.Experts < experts.Len() {
			var err error
			if data, err = data.Subset(j.Experts); err != nil {
				return Outcome{}, err
			}
			if experts, err = experts.Subset(j.Experts); err != nil {
				return Outcome{}, err
			}
		}
		m := experts.Len()
		rng := rand.New(src)
		learner := cfg.Learner
		learner.Algorithm = j.Algorithm
		tc, sp, err := trainConfig(j, m, cfg.Batch, cfg.Steps)
		if err != nil {
			return Outcome{}, err
		}
		tc.Learner, tc.Seed = learner, rng.Uint64()
		out := Outcome{Job: j}
		var rel *expertdp.Release
		if j.Method == Ours && sp.Eps1 > 0 {
			if s.PerExpert < 1 {
				return Outcome{}, check.AtLeast("Setup.PerExpert", s.PerExpert, 1)
			}
			rel, err = expertdp.DataRelease(data, experts, expertdp.ReleaseParams{Epsilon: sp.Eps1, Delta: sp.Delta1, PMin: s.PMin, T: sp.T,
				L: s.Domain.DemoLen, Src: rand.NewPCG(rng.Uint64(), rng.Uint64())})
			if err != nil {
				return Outcome{}, err
			}
			out.Stable = rel.StableTransitions()
			if out.FixedLogDelta, err = expertdp.FixedLogDelta(m*s.PerExpert, s.PerExpert, sp.T); err != nil {
				return Outcome{}, err
			}
		}
		if j.Method == Ours && tc.P == 0 && out.Stable == 0 {
			out.Note = "D_stable empty: initial network"
			if out.Return, err = initialReturn(s.Domain, learner, tc.Seed); err != nil {
				return Outcome{}, err
			}
			out.Normalized = s.Normalize(out.Return)
			return out, nil
		}
		res, err := expertdp.Train(data, rel, s.Domain, tc)
		if err != nil {
			return Outcome{}, err
		}
		out.Steps, out.Private, out.S, out.Eps2, out.Return = res.Steps, res.PrivateSteps, res.NoiseMultiplier, res.Epsilon, res.Return
		out.Eps2Exact = res.Epsilon
		if tc.Accounting != expertdp.AccountingMixed && tc.P > 0 && tc.P < 1 {
			exact := tc
			exact.Accounting, exact.NoiseMultiplier = expertdp.AccountingMixed, res.NoiseMultiplier
			if out.Eps2Exact, err = exact.SpentEpsilon(m, res.Steps); err != nil {
				return Outcome{}, err
			}
		}
		out.Normalized = s.Normalize(res.Return)
		return out, nil
	})
	var te *experiment.TrialError
	if streams != nil && errors.As(err, &te) {
		te.Trial = streams[te.Trial] // the job's index in the whole list: the stream it drew from
	}
	return out, err
}

// initialReturn evaluates the learner's initial network (what Selective DP-SGD returns with no step to
// take) as expertdp.Train evaluates a trained one: 10 greedy episodes on the default environment.
func initialReturn(d *expertdp.Domain, cfg expertdp.LearnerConfig, seed uint64) (float64, error) {
	l, err := expertdp.NewLearner(d, cfg, 1, seed)
	if err != nil {
		return 0, err
	}
	const episodes = 10
	rng := rand.New(rand.NewPCG(seed, 3))
	out := make([]float64, 2*d.NumActions)
	env := d.Env(d.Default, d.EvalLen)
	total := 0.0
	for range episodes {
		r, err := expertdp.EpisodeReturn(env, rand.NewPCG(rng.Uint64(), rng.Uint64()), func(obs []float64) int { return l.Act(obs, out) })
		if err != nil {
			return 0, err
		}
		total += r
	}
	return total / episodes, nil
}
