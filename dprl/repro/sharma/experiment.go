package sharma

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"

	"github.com/dprl-project/dprl/dprl/experiment"
	"github.com/dprl-project/dprl/dprl/expertdp"
	"github.com/dprl-project/dprl/dprl/param"
)

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

// SetupSeed is the seed of env's setup (experts, log and references) in the notebook and the sweeps.
func SetupSeed(env string) uint64 {
	return map[string]uint64{"cartpole": 100, "acrobot": 101, "lunarlander": 102, "hiv": 103}[env]
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

// PT is p_T for a release examining T trajectories of the first m experts' log (expertdp.FixedLogDelta;
// 0 without a release).
func (s *Setup) PT(m, T int) (float64, error) {
	if T == 0 {
		return 0, nil
	}
	if s.PerExpert < 1 {
		return 0, check.AtLeast("Setup.PerExpert", s.PerExpert, 1)
	}
	return expertdp.FixedLogDelta(m*s.PerExpert, s.PerExpert, T)
}

// Certificate is the (ε, δ) a run of split sp certifies for expert-level neighbours, its δ's absolute:
// DataRelease on the fixed log it walks, (ε1 + ln(1/(1 − p_T)), δ1 + p_T) (expertdp.FixedLogGuarantee),
// composed with the DP-SGD budget (ε2, δ2). It holds whatever the run spends of ε2 (none at p = 0): a
// comparison holds every method it compares to one certificate.
func Certificate(sp Split, pT float64) (eps, delta float64) {
	if sp.Eps1 > 0 {
		eps, delta = expertdp.FixedLogGuarantee(sp.Eps1, sp.Delta1, pT)
	}
	return eps + sp.Eps2, delta + sp.Delta2
}

// Outcome is a job's result.
type Outcome struct {
	Job
	Stable  int     // |D_stable| in transitions (Ours)
	Steps   int     // gradient steps run
	Private int     // of which expert-level DP-SGD steps
	S       float64 // noise multiplier used (0: no DP-SGD step)
	Eps2    float64 // ε spent by the DP-SGD steps under the job's accounting (PLD)
	// Eps2Exact is that ε under the exact mixture accounting (equal to Eps2 for runs calibrated with it).
	Eps2Exact float64
	// PT is p_T, what the fixed log adds to DataRelease's δ1 (expertdp.FixedLogDelta; 0 without a release).
	PT float64
	// CertEps and CertDelta are the run's certified (ε, δ) (Certificate; for the baseline the budget it
	// was calibrated to; +Inf for the non-private learner, 0 for the untrained network).
	CertEps, CertDelta float64
	Return             float64 // mean evaluation return
	Normalized         float64
	FellBack           bool   // D_stable was empty and the run trained expert-level DP-SGD (Job.Fallback)
	Diverged           bool   // a parameter or an evaluation return became non-finite
	Note               string // what was special (e.g. D_stable empty, no DP-SGD budget: the initial network)
}

// ExperimentConfig is shared by every job.
type ExperimentConfig struct {
	Learner expertdp.LearnerConfig // Algorithm is set per job
	Batch   int                    // b (128)
	// Steps is the number of steps of a run with calibrated noise, and the step cap of a run in the
	// paper's regime.
	Steps    int
	Workers  int
	Seed     uint64
	Progress experiment.Progress // one unit per job
}

// trainConfig is job j's TrainConfig on m experts of setup s (learner and seed left to the caller), with
// batch b and steps steps, its split with absolute δ's (δ = 1/m), and its certificate. Expert-level DP-SGD
// runs at the certificate of j.Split (or at (ε, 1/m) for a zero Split); Ours spends (ε2, δ2) in its DP-SGD
// steps (none when ε2 = 0).
func trainConfig(j Job, s *Setup, m, batch, steps int) (tc expertdp.TrainConfig, sp Split, pT float64, err error) {
	delta := 1 / float64(m)
	tc = expertdp.TrainConfig{Batch: batch, MaxSteps: steps, Accounting: j.Accounting}
	sp = j.Split
	if err := param.First(check.In("Split.Eps1", sp.Eps1, param.NonNegative), check.In("Split.Eps2", sp.Eps2, param.NonNegative)); err != nil {
		return tc, sp, 0, err
	}
	sp.Delta1 *= delta
	sp.Delta2 *= delta
	if sp.Eps1 > 0 {
		if pT, err = s.PT(m, sp.T); err != nil {
			return tc, sp, 0, err
		}
	}
	switch j.Method {
	case NonPrivate:
		tc.NonPrivate = true
	case Untrained:
	case ExpertDPSGD:
		tc.P = 1
		if j.Split == (Split{}) {
			tc.Epsilon, tc.Delta = j.Epsilon, delta
		} else {
			tc.Epsilon, tc.Delta = Certificate(sp, pT)
		}
		if j.Noise == NoisePaper {
			tc.NoiseMultiplier = BaselineS
		}
	case Ours:
		// A zero ε1 or ε2 skips that part (no data release, or no private steps); neither releases
		// anything without noise.
		tc.P, tc.Epsilon, tc.Delta, tc.Fallback = j.P, sp.Eps2, sp.Delta2, j.Fallback && sp.Eps1 > 0
		if sp.Eps2 == 0 {
			tc.P, tc.Fallback = 0, false
		}
		if j.Noise == NoisePaper && (tc.P > 0 || tc.Fallback) {
			tc.NoiseMultiplier = PaperS(j.Env, j.Algorithm, j.Epsilon)
		}
	default:
		return tc, sp, 0, check.Errorf("Method", float64(j.Method), "one of Ours (0), ExpertDPSGD (1), NonPrivate (2), Untrained (3)")
	}
	return tc, sp, pT, nil
}

// certificate is the (ε, δ) job j certifies with its trainConfig's tc, split sp and p_T: ours' Certificate,
// the baseline's budget, +Inf for the non-private learner, (0, 0) for the untrained network.
func (j Job) certificate(tc expertdp.TrainConfig, sp Split, pT float64) (eps, delta float64) {
	switch j.Method {
	case NonPrivate:
		return math.Inf(1), 0
	case ExpertDPSGD:
		return tc.Epsilon, tc.Delta
	case Ours:
		return Certificate(sp, pT)
	}
	return 0, 0
}

// stream is the random stream of the runs of setting set and seed: the same in every list of jobs, so that
// a setting two figures share gives the same numbers in both.
func stream(set Setting, seed int) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%+v/%d", set, seed)
	return h.Sum64()
}

// RunJobs runs the jobs in parallel, deterministically: job j draws from the stream (cfg.Seed,
// stream(j.Setting(), j.Seed)), whatever list it is in. A job of Ours whose release is empty and that has
// no DP-SGD budget to fall back on (p = 0, ε2 = 0) has nothing to train on: Selective DP-SGD then returns
// its initial network, which is evaluated like a trained one (Note says so).
func RunJobs(setups map[string]*Setup, jobs []Job, cfg ExperimentConfig) ([]Outcome, error) {
	if cfg.Batch == 0 {
		cfg.Batch = 128
	}
	return experiment.Trials(len(jobs), cfg.Workers, cfg.Seed, cfg.Progress, func(i int, _ rand.Source) (Outcome, error) {
		j := jobs[i]
		s, ok := setups[j.Env]
		if !ok {
			return Outcome{}, fmt.Errorf("sharma: no setup for environment %q", j.Env)
		}
		rng := rand.New(rand.NewPCG(cfg.Seed, stream(j.Setting(), j.Seed)))
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
		learner := cfg.Learner
		learner.Algorithm = j.Algorithm
		tc, sp, pT, err := trainConfig(j, s, m, cfg.Batch, cfg.Steps)
		if err != nil {
			return Outcome{}, err
		}
		tc.Learner, tc.Seed = learner, rng.Uint64()
		out := Outcome{Job: j, PT: pT}
		out.CertEps, out.CertDelta = j.certificate(tc, sp, pT)
		if j.Method == Untrained {
			return out, out.evaluateInitial(s, learner, tc.Seed)
		}
		var rel *expertdp.Release
		if j.Method == Ours && sp.Eps1 > 0 {
			rel, err = expertdp.DataRelease(data, experts, expertdp.ReleaseParams{Epsilon: sp.Eps1, Delta: sp.Delta1, PMin: s.PMin, T: sp.T,
				L: s.Domain.DemoLen, Src: rand.NewPCG(rng.Uint64(), rng.Uint64())})
			if err != nil {
				return Outcome{}, err
			}
			out.Stable = rel.StableTransitions()
		}
		res, err := expertdp.Train(data, rel, s.Domain, tc)
		if errors.Is(err, expertdp.ErrNoStableData) {
			out.Note = "D_stable empty, no DP-SGD budget: initial network"
			return out, out.evaluateInitial(s, learner, tc.Seed)
		}
		if err != nil {
			return Outcome{}, err
		}
		out.Steps, out.Private, out.S, out.Eps2, out.Return = res.Steps, res.PrivateSteps, res.NoiseMultiplier, res.Epsilon, res.Return
		out.FellBack, out.Diverged, out.Eps2Exact = res.FellBack, res.Diverged, res.Epsilon
		if res.FellBack {
			out.Note = "D_stable empty: fell back to expert-level DP-SGD"
		}
		if tc.Accounting != expertdp.AccountingMixed && tc.P > 0 && tc.P < 1 && !res.FellBack {
			exact := tc
			exact.Accounting, exact.NoiseMultiplier = expertdp.AccountingMixed, res.NoiseMultiplier
			if out.Eps2Exact, err = exact.SpentEpsilon(m, res.Steps); err != nil {
				return Outcome{}, err
			}
		}
		out.Normalized = s.Normalize(res.Return)
		return out, nil
	})
}

// evaluateInitial sets o's return to that of the learner's initial network (what Selective DP-SGD returns
// with no step to take), evaluated as expertdp.Train evaluates a trained one: 10 greedy episodes on the
// default environment.
func (o *Outcome) evaluateInitial(s *Setup, cfg expertdp.LearnerConfig, seed uint64) error {
	l, err := expertdp.NewLearner(s.Domain, cfg, 1, seed)
	if err != nil {
		return err
	}
	const episodes = 10
	rng := rand.New(rand.NewPCG(seed, 3))
	env := s.Domain.Env(s.Domain.Default, s.Domain.EvalLen)
	total := 0.0
	for range episodes {
		r, err := expertdp.EpisodeReturn(env, rand.NewPCG(rng.Uint64(), rng.Uint64()), l.Act)
		if err != nil {
			return err
		}
		total += r
	}
	o.Return = total / episodes
	o.Normalized = s.Normalize(o.Return)
	return nil
}
