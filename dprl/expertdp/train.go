package expertdp

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"sync"

	"github.com/dprl-project/dprl/dprl/param"
	"github.com/dprl-project/dprl/envs"
	"github.com/dprl-project/dprl/mechanisms"
)

// Accounting says how Selective DP-SGD's privacy is accounted. The zero value is the exact mixture
// accounting, so a TrainConfig that does not choose gets a guarantee that holds; the paper's accounting
// must be asked for by name.
type Accounting int

const (
	// AccountingMixed is exact when every iterate is released (the usual DP-SGD threat model): with
	// probability p a step is a Poisson(b/m)-subsampled Gaussian, otherwise a noiseless step that reveals
	// it was not private (mechanisms.Mixed). It costs more than AccountingPaper for 0 < p < 1. It is the
	// zero value.
	AccountingMixed Accounting = iota
	// AccountingPaper is Sharma et al.'s: every step a Poisson-subsampled Gaussian with rate q = p·b/m.
	// For 0 < p < 1 it is optimistic (it treats the choice of private steps as amplification although the
	// iterates reveal it): a run calibrated with it spends more than its nominal ε2 (SpentEpsilon with
	// AccountingMixed says how much).
	AccountingPaper
)

// String describes the accounting, or gives Accounting(n) for any other value.
func (a Accounting) String() string {
	switch a {
	case AccountingPaper:
		return "q = p·b/m (paper)"
	case AccountingMixed:
		return "mixture (exact)"
	}
	return fmt.Sprintf("Accounting(%d)", int(a))
}

// TrainConfig configures Selective DP-SGD (Algorithm 3; P = 1 without stable data is expert-level DP-SGD,
// Algorithm 4) or the non-private baseline.
type TrainConfig struct {
	Learner LearnerConfig
	// P is the probability that a step is an expert-level DP-SGD step on D_unst; otherwise it is a plain
	// step on a uniform batch of Batch transitions from D_stable.
	P     float64
	Batch int // b: experts are Poisson-sampled at rate b/m; the stable batch size
	// NoiseMultiplier is s: noise N(0, s²C²) per coordinate on the sum of clipped gradients. 0 calibrates
	// it so that MaxSteps steps spend exactly (ε2, δ2): the reduced-compute analogue of the paper's "train
	// until the budget is spent", which at the paper's s runs to 10⁵–10⁶ steps.
	NoiseMultiplier float64
	Clip            float64    // C, 1 by default
	Epsilon, Delta  float64    // (ε2, δ2) the DP-SGD steps may spend
	Accounting      Accounting // AccountingMixed (exact) unless set
	// MaxSteps caps the number of steps (the accountant's budget can run to millions of steps at the paper's
	// noise; a cap of 10⁶ is a reasonable choice). With P = 0 or NonPrivate it is the number of steps.
	MaxSteps int
	// NonPrivate trains on uniform batches from the whole log without clipping or noise (the baseline the
	// paper normalises by).
	NonPrivate bool
	// Fallback makes a run whose release has an empty D_stable train as expert-level DP-SGD (P = 1) on the
	// whole log within the same (ε2, δ2), instead of leaving the stable steps out (0 < P < 1) or failing
	// with ErrNoStableData (P = 0): Sharma et al.'s "our algorithm defaults towards the baseline" (§6.1).
	// The choice depends only on the release's output, so the run is still (ε1 + ε2, δ1 + δ2)-DP; it needs
	// a budget (Epsilon, Delta) even at P = 0. TrainResult.FellBack says when it happened.
	Fallback     bool
	EvalEpisodes int // evaluation episodes, one at each of as many checkpoints over the last fifth (10)
	Seed         uint64

	batchHook func(private bool, trajs []int) // tests: the trajectories of each batch's transitions
}

// TrainResult is what a training run did and how well the learned policy performs.
type TrainResult struct {
	Steps, PrivateSteps, StableSteps int
	// BudgetSteps is the number of steps the accountant allows within (ε2, δ2) (MaxSteps if it allows more).
	BudgetSteps int
	// Epsilon is ε2 at δ2 for the steps run, under the configured accounting (0 without private steps).
	Epsilon float64
	// NoiseMultiplier is s as used (calibrated when the configuration left it 0).
	NoiseMultiplier float64
	Returns         []float64 // evaluation returns (unscaled)
	Return          float64   // their mean
	// Dropped counts per-example gradients left out of private steps for a NaN or infinite entry (each
	// contributes zero, which keeps the sensitivity; see nn.Workspace.PrivateGradient).
	Dropped int
	// FellBack reports that D_stable was empty and TrainConfig.Fallback made every step an expert-level
	// DP-SGD step.
	FellBack bool
	// Diverged reports that training broke down: a parameter of the network or an evaluation return is not
	// finite.
	Diverged bool
}

// ErrNoStableData is returned when a configuration needs D_stable and it is empty (the paper's "inf" in
// Table 2).
var ErrNoStableData = errors.New("expertdp: D_stable is empty, so training on stable data alone is impossible")

// segSampler draws transitions uniformly from a list of segments.
type segSampler struct {
	segs []Segment
	cum  []int
}

func (s *segSampler) add(g Segment) {
	if g.To <= g.From {
		return
	}
	s.segs = append(s.segs, g)
	s.cum = append(s.cum, s.total()+g.To-g.From)
}

func (s *segSampler) total() int {
	if len(s.cum) == 0 {
		return 0
	}
	return s.cum[len(s.cum)-1]
}

func (s *segSampler) sample(rng *rand.Rand) [2]int {
	u := rng.IntN(s.total())
	i := sort.SearchInts(s.cum, u+1)
	lo := 0
	if i > 0 {
		lo = s.cum[i-1]
	}
	g := s.segs[i]
	return [2]int{g.Traj, g.From + u - lo}
}

func (c *TrainConfig) validate(m int) error {
	if c.Clip == 0 {
		c.Clip = 1
	}
	if c.EvalEpisodes == 0 {
		c.EvalEpisodes = 10
	}
	switch {
	case c.MaxSteps < 1:
		return check.AtLeast("MaxSteps", c.MaxSteps, 1)
	case c.Batch < 1 || c.Batch > m:
		return check.Int("Batch", c.Batch, 1, m)
	case c.EvalEpisodes < 1:
		return check.AtLeast("EvalEpisodes", c.EvalEpisodes, 1)
	case c.NonPrivate:
		return nil
	case !(c.P >= 0 && c.P <= 1):
		return check.In("P", c.P, param.Probability)
	case c.P == 0 && !c.Fallback:
		return nil
	case !(c.Epsilon > 0) || math.IsInf(c.Epsilon, 0):
		return &mechanisms.ParamError{Pkg: "expertdp", Param: "Epsilon", Value: c.Epsilon, Allowed: "(0, ∞)"}
	case !(c.Delta > 0 && c.Delta < 1):
		return &mechanisms.ParamError{Pkg: "expertdp", Param: "Delta", Value: c.Delta, Allowed: "(0, 1)"}
	case !(c.NoiseMultiplier >= 0) || math.IsInf(c.NoiseMultiplier, 0):
		return &mechanisms.ParamError{Pkg: "expertdp", Param: "NoiseMultiplier", Value: c.NoiseMultiplier, Allowed: "(0, ∞), or 0 to calibrate"}
	case !(c.Clip > 0) || math.IsInf(c.Clip, 0):
		return &mechanisms.ParamError{Pkg: "expertdp", Param: "Clip", Value: c.Clip, Allowed: "(0, ∞)"}
	}
	return nil
}

// StepEvent is one Selective DP-SGD step as the accounting sees it, for m experts: the exact mixture
// (mechanisms.Mixed) unless the configuration asks for AccountingPaper; with P = 1 both are the
// Poisson(b/m)-subsampled Gaussian.
func (c TrainConfig) StepEvent(m int) mechanisms.Event {
	g := mechanisms.GaussianEvent{NoiseMultiplier: c.NoiseMultiplier}
	q := float64(c.Batch) / float64(m)
	if c.Accounting != AccountingPaper && c.P < 1 {
		return mechanisms.Mixed{P: c.P, Event: mechanisms.PoissonSampled{Q: q, Event: g}}
	}
	return mechanisms.PoissonSampled{Q: c.P * q, Event: g}
}

// newPLD is the accountant of this package: PLD on a 10⁻³ grid. Its discretisation is pessimistic at any
// width, so the coarser grid (ten times faster than the default) only loosens ε, by a certified amount
// that grows like h·√steps: at 10³ steps the calibrated ε2 is within about 0.002 of the true one (a finer
// grid certifies it), while at 10⁶ steps the 10⁻³ grid is far too coarse (PLDAccountant.EpsilonBounds
// says by how much), so budgets of that many steps need a finer accountant.
func newPLD() (mechanisms.Accountant, error) {
	return mechanisms.NewPLDAccountant(mechanisms.PLDParams{Discretization: 1e-3})
}

type calibrationKey struct {
	p, q, eps, delta float64
	acc              Accounting
	steps            int
}

var (
	calibrationMu    sync.Mutex
	calibrationCache = map[calibrationKey]float64{}
)

// checkAccounting checks the fields the accounting methods read, so that their errors name the
// TrainConfig's fields rather than the mechanisms' arguments: m ≥ 1, P ∈ (0, 1] (or [0, 1] without
// withEpsilon), Batch ∈ [1, m], Delta ∈ (0, 1) and, withEpsilon, Epsilon ∈ (0, ∞).
func (c TrainConfig) checkAccounting(m int, withEpsilon bool) error {
	pRange := param.Probability
	var eps error
	if withEpsilon {
		pRange = param.Interval{Lo: 0, Hi: 1, HiClosed: true}
		eps = check.In("Epsilon", c.Epsilon, param.Positive)
	}
	return param.First(check.AtLeast("m", m, 1), check.In("P", c.P, pRange), check.Int("Batch", c.Batch, 1, max(m, 1)),
		eps, check.In("Delta", c.Delta, param.OpenUnit), checkAccountingKind(c.Accounting))
}

// checkAccountingKind rejects an Accounting value that is not one of the constants.
func checkAccountingKind(a Accounting) error {
	return check.Int("Accounting", int(a), int(AccountingMixed), int(AccountingPaper))
}

// CalibrateNoise returns the smallest s (to 10⁻³ relative) with which steps steps spend at most
// (ε2, δ2) for m experts. Results are cached, since experiments repeat configurations over seeds.
func (c TrainConfig) CalibrateNoise(m, steps int) (float64, error) {
	if err := c.checkAccounting(m, true); err != nil {
		return 0, err
	}
	if err := check.AtLeast("steps", steps, 0); err != nil {
		return 0, err
	}
	key := calibrationKey{c.P, float64(c.Batch) / float64(m), c.Epsilon, c.Delta, c.Accounting, steps}
	calibrationMu.Lock()
	s, ok := calibrationCache[key]
	calibrationMu.Unlock()
	if ok {
		return s, nil
	}
	s, err := mechanisms.CalibrateNoise(c.Epsilon, 0.3, 1000, func(z float64) (float64, error) {
		c.NoiseMultiplier = z
		return c.SpentEpsilon(m, steps)
	})
	if err != nil {
		return 0, err
	}
	calibrationMu.Lock()
	calibrationCache[key] = s
	calibrationMu.Unlock()
	return s, nil
}

// Budget returns the number of steps (ε2, δ2) allows under the configured accounting, up to limit.
func (c TrainConfig) Budget(m, limit int) (int, error) {
	if err := c.checkAccounting(m, true); err != nil {
		return 0, err
	}
	return mechanisms.MaxSteps(newPLD, c.StepEvent(m), c.Epsilon, c.Delta, limit)
}

// SpentEpsilon is ε at δ2 after steps steps (0 with P = 0: no step is private). Results are cached (Train
// ends every run with this accounting, and experiments and audits repeat configurations).
func (c TrainConfig) SpentEpsilon(m, steps int) (float64, error) {
	if err := param.First(c.checkAccounting(m, false), check.AtLeast("steps", steps, 0)); err != nil {
		return 0, err
	}
	if c.P == 0 {
		return 0, nil
	}
	key := spentKey{c.P, float64(c.Batch) / float64(m), c.NoiseMultiplier, c.Delta, c.Accounting, steps}
	if e, ok := spentCache.get(key); ok {
		return e, nil
	}
	a, _ := newPLD()
	if err := a.Compose(c.StepEvent(m), steps); err != nil {
		return 0, err
	}
	e, err := a.Epsilon(c.Delta)
	if err == nil {
		spentCache.put(key, e)
	}
	return e, err
}

// Train runs Selective DP-SGD on the release rel of the log data (rel nil: no stable data, every
// trajectory unstable), or the non-private baseline, and evaluates the learned policy on the domain's
// default environment. When rel's D_stable is empty, a configuration with Fallback trains expert-level
// DP-SGD (P = 1) within the same budget; without it P = 0 fails with ErrNoStableData. Private steps Poisson-sample experts at rate b/m and take one uniformly chosen
// unstable transition from each sampled expert (Algorithm 4), so an expert's data enters a step only through
// one clipped gradient; the sum gets N(0, s²C²) noise and is divided by b.
func Train(data *Data, rel *Release, d *Domain, cfg TrainConfig) (*TrainResult, error) {
	if err := checkLog(data, d); err != nil {
		return nil, err
	}
	m := data.Experts
	if err := cfg.validate(m); err != nil {
		return nil, err
	}
	var all, stable segSampler
	perExpert := make([]segSampler, m)
	if cfg.NonPrivate {
		for i, t := range data.Trajs {
			all.add(Segment{i, 0, t.Len()})
		}
	} else if rel == nil {
		for i, t := range data.Trajs {
			perExpert[t.Expert].add(Segment{i, 0, t.Len()})
		}
	} else {
		if rel.trajs != len(data.Trajs) {
			return nil, check.Int("rel.Trajectories()", rel.trajs, len(data.Trajs), len(data.Trajs))
		}
		for _, g := range rel.stable {
			stable.add(g)
		}
		for _, g := range rel.unstable {
			perExpert[data.Trajs[g.Traj].Expert].add(g)
		}
	}
	res := &TrainResult{Steps: cfg.MaxSteps, BudgetSteps: cfg.MaxSteps}
	if !cfg.NonPrivate && stable.total() == 0 {
		switch {
		case rel != nil && cfg.Fallback:
			cfg.P, res.FellBack = 1, true
		case cfg.P == 0:
			return nil, ErrNoStableData
		}
	}
	private := !cfg.NonPrivate && cfg.P > 0
	calibrated := private && cfg.NoiseMultiplier == 0
	if calibrated {
		s, err := cfg.CalibrateNoise(m, cfg.MaxSteps)
		if err != nil {
			return nil, err
		}
		cfg.NoiseMultiplier = s // spends at most (ε2, δ2) in MaxSteps steps: the budget is the cap
	}
	res.NoiseMultiplier = cfg.NoiseMultiplier
	if private && !calibrated {
		n, err := cfg.Budget(m, cfg.MaxSteps)
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return nil, check.Errorf("Epsilon", cfg.Epsilon, "a budget (ε2, δ2) = (Epsilon, %g) that allows at least one step with s = %g, q = %g",
				cfg.Delta, cfg.NoiseMultiplier, cfg.P*float64(cfg.Batch)/float64(m))
		}
		res.BudgetSteps, res.Steps = n, n
	}
	maxBatch := cfg.Batch
	if private {
		// A Poisson batch exceeds b rarely; m bounds it.
		maxBatch = min(m, cfg.Batch+8*int(math.Sqrt(float64(cfg.Batch)))+16)
	}
	l, err := NewLearner(d, cfg.Learner, maxBatch, cfg.Seed)
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 1))
	noiseSrc := rand.NewPCG(cfg.Seed, 2)
	evalRng := rand.New(rand.NewPCG(cfg.Seed, 3))
	b := newBatch(maxBatch, d.ObsDim)
	q := float64(cfg.Batch) / float64(m)
	var dp *mechanisms.DPSGD
	if private {
		// One noise stream for every private step, empty batches (privateStep) included.
		if dp, err = mechanisms.NewDPSGD(mechanisms.DPSGDParams{Clip: cfg.Clip, NoiseMultiplier: cfg.NoiseMultiplier, Src: noiseSrc}); err != nil {
			return nil, err
		}
	}
	noise := rand.New(noiseSrc)
	last := res.Steps / 5
	evalAt := map[int]bool{}
	for k := range cfg.EvalEpisodes {
		evalAt[res.Steps-1-k*last/cfg.EvalEpisodes] = true
	}
	for step := range res.Steps {
		switch {
		case cfg.NonPrivate:
			for range cfg.Batch {
				b.put(data, all.sample(rng), d)
			}
			l.plainStep(b)
		case rng.Float64() < cfg.P:
			for e := range m {
				if rng.Float64() < q && perExpert[e].total() > 0 && b.n < maxBatch {
					b.put(data, perExpert[e].sample(rng), d)
				}
			}
			b.private = true
			dropped, err := l.privateStep(b, dp, cfg.Batch, noise)
			if err != nil {
				return nil, err
			}
			res.Dropped += dropped
			res.PrivateSteps++
		case stable.total() > 0:
			for range cfg.Batch {
				b.put(data, stable.sample(rng), d)
			}
			l.plainStep(b)
			res.StableSteps++
		}
		if cfg.batchHook != nil {
			cfg.batchHook(b.private, b.traj[:b.n])
		}
		b.n, b.private = 0, false
		if evalAt[step] {
			r, err := l.evaluate(evalRng)
			if err != nil {
				return nil, err
			}
			res.Returns = append(res.Returns, r)
		}
	}
	for _, r := range res.Returns {
		res.Return += r / float64(len(res.Returns))
	}
	res.Diverged = !finite(res.Return) || !l.finite()
	if private {
		if res.Epsilon, err = cfg.SpentEpsilon(m, res.Steps); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// finite reports whether x is neither NaN nor infinite.
func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// put appends transition (traj, step) of data to the batch.
func (b *batch) put(data *Data, at [2]int, d *Domain) {
	t := &data.Trajs[at[0]]
	j, k := at[1], b.n
	d.normalize(t.Obs[j*b.dim:(j+1)*b.dim], b.s[k*b.dim:(k+1)*b.dim])
	d.normalize(t.Obs[(j+1)*b.dim:(j+2)*b.dim], b.s2[k*b.dim:(k+1)*b.dim])
	b.a[k] = t.Actions[j]
	b.r[k] = t.Rewards[j] * d.RewardScale
	b.term[k] = j == t.Len()-1 && t.Terminated
	b.traj[k] = at[0]
	b.n++
}

func (l *Learner) plainStep(b *batch) {
	l.backward(b)
	l.ws.Gradient(l.Net, nil, l.grads)
	l.grads.Scale(1 / float64(b.n))
	l.update()
}

// privateStep is Algorithm 4's update: clipped per-example gradients, summed, plus N(0, s²C²), over b. An
// empty Poisson batch releases the noise alone: N(0, (sC/b)²) per coordinate, drawn from noise, which wraps
// dp's Source (the same stream).
func (l *Learner) privateStep(b *batch, dp *mechanisms.DPSGD, expected int, noise *rand.Rand) (dropped int, err error) {
	if b.n == 0 {
		p := dp.Params()
		std := p.NoiseMultiplier * p.Clip / float64(expected)
		if !(std > 0) {
			return 0, check.Errorf("NoiseMultiplier", p.NoiseMultiplier, "(0, ∞) with NoiseMultiplier·Clip/b a positive noise scale (Clip = %g, b = %d)", p.Clip, expected)
		}
		l.grads.Each(func(g []float64) {
			for i := range g {
				g[i] = mechanisms.AddGaussian(0, std, noise)
			}
		})
	} else {
		l.backward(b)
		if _, dropped, err = l.ws.PrivateGradient(l.Net, dp, l.grads, l.norms); err != nil {
			return 0, err
		}
		l.grads.Scale(float64(b.n) / float64(expected)) // PrivateGradient divides by the batch; Algorithm 4 by b
	}
	l.update()
	return dropped, nil
}

// evaluate runs one greedy episode on the default environment and returns its undiscounted return.
func (l *Learner) evaluate(rng *rand.Rand) (float64, error) {
	env := l.dom.Env(l.dom.Default, l.dom.EvalLen)
	return EpisodeReturn(env, rand.NewPCG(rng.Uint64(), rng.Uint64()), l.Act)
}

// EpisodeReturn runs one episode of env, reset from src, under act and returns its undiscounted return.
func EpisodeReturn(env envs.Env, src rand.Source, act func([]float64) int) (float64, error) {
	obs, err := env.Reset(src)
	if err != nil {
		return 0, err
	}
	total := 0.0
	for {
		r, err := env.Step(act(obs))
		if err != nil {
			return 0, err
		}
		total += r.Reward
		obs = r.Obs
		if r.Terminated || r.Truncated {
			return total, nil
		}
	}
}
