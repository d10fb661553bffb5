package xie2019

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/dprl-project/dprl/dprl/experiment"
	"github.com/dprl-project/dprl/dprl/policyeval"
	"github.com/dprl-project/dprl/envs"
	"github.com/dprl-project/dprl/mechanisms"
	"github.com/dprl-project/dprl/trajectory"
)

// Domain is one of Xie et al.'s evaluation problems, ready for trials: how to draw n behaviour
// trajectories, their features, the population moments of the MSPBE, GPOPE's clip bound and, where the paper
// runs it, DP-LSW's public problem.
type Domain struct {
	Name      string
	Gamma     float64
	OffPolicy bool
	// RewardScale multiplies every reward as it is drawn: a public constant (1 − γ on Mountain Car, so that
	// every return lies in [−1, 0]).
	RewardScale float64
	// True holds the population moments: exact on the chain, estimated from an independent sample of
	// MomentTransitions transitions elsewhere.
	True              *policyeval.Moments
	MomentTransitions int
	// Clip is GPOPE's C: the largest per-trajectory gradient norm seen on a public sample (200 fresh
	// trajectories; HIV: the moments sample) at θ = w = 0 and at
	// the sample's LSTD solution, rounded up to two significant digits, so that (as the paper assumes)
	// gradients near the path of a non-private run are not clipped.
	Clip float64
	// MeanReward is the evaluated policy's average reward per step (after scaling); HIV's relative MSPBE is
	// MSPBE / MeanReward².
	MeanReward float64
	// LSW is DP-LSW's (and DP-LSL's) public problem over LSWStates first-visit states, nil where the paper
	// does not run output perturbation. LSL says whether DP-LSL runs too: its analysis needs finitely many
	// states, so the paper runs it on the chain only.
	LSW       *policyeval.Problem
	LSL       bool
	LSWStates int
	LSWState  func(obs []float64) int
	lswTheta  func(theta []float64) []float64 // LSW weights → the domain's feature weights

	draw func(n int, src rand.Source) ([]trajectory.Trajectory, error)
	// drawPublic draws the "similar public data" the step size is tuned on (nil: draw, whose fresh
	// simulations are independent of the private ones).
	drawPublic func(n int, src rand.Source) ([]trajectory.Trajectory, error)
	feats      func() trajectory.Features
	target     func() trajectory.Policy // a fresh evaluated policy (policies may keep scratch buffers); nil: on-policy
}

// Draw returns n behaviour trajectories (rewards scaled) and their feature view.
func (d *Domain) Draw(n int, src rand.Source) ([]trajectory.Trajectory, []policyeval.FeatureTrajectory, error) {
	return d.drawWith(d.draw, n, src)
}

// DrawPublic is Draw for the public tuning data: independent of every private sample.
func (d *Domain) DrawPublic(n int, src rand.Source) ([]trajectory.Trajectory, []policyeval.FeatureTrajectory, error) {
	if d.drawPublic == nil {
		return d.Draw(n, src)
	}
	return d.drawWith(d.drawPublic, n, src)
}

func (d *Domain) drawWith(draw func(int, rand.Source) ([]trajectory.Trajectory, error), n int, src rand.Source) ([]trajectory.Trajectory, []policyeval.FeatureTrajectory, error) {
	if n < 1 {
		return nil, nil, fmt.Errorf("xie2019: n = %d trajectories is outside the allowed range [1, ∞)", n)
	}
	tr, err := draw(n, src)
	if err != nil {
		return nil, nil, err
	}
	var target trajectory.Policy
	if d.target != nil {
		target = d.target()
	}
	ft, err := policyeval.Featurize(tr, d.feats(), target)
	return tr, ft, err
}

// Dim is the number of features.
func (d *Domain) Dim() int { return d.feats().Dim() }

// collectScaled collects n trajectories with newEnv and newPolicy on up to GOMAXPROCS goroutines, each
// chunk with its own environment, policy (policies such as envs.Greedy keep scratch buffers) and stream, so
// the result is deterministic; it multiplies the rewards by scale.
func collectScaled(newEnv func() envs.Env, newPolicy func() trajectory.Policy, n int, scale float64, src rand.Source) ([]trajectory.Trajectory, error) {
	const chunk = 100
	chunks := (n + chunk - 1) / chunk
	parts, err := experiment.Trials(chunks, 0, rand.New(src).Uint64(), nil, func(k int, s rand.Source) ([]trajectory.Trajectory, error) {
		return envs.Collect(newEnv(), newPolicy(), min(chunk, n-k*chunk), s, 0)
	})
	if err != nil {
		return nil, err
	}
	out := slices.Concat(parts...)
	if scale != 1 {
		for i := range out {
			for k := range out[i].Steps {
				out[i].Steps[k].Reward *= scale
			}
		}
	}
	return out, nil
}

// GradientNorms returns each trajectory's stacked-gradient norm at x = [θ; w] (before clipping).
func GradientNorms(ft []policyeval.FeatureTrajectory, gamma float64, theta, w []float64) []float64 {
	g := make([]float64, 2*len(theta))
	out := make([]float64, len(ft))
	for i, tr := range ft {
		policyeval.Gradient(g, tr, gamma, theta, w)
		out[i] = floats.Norm(g, 2)
	}
	return out
}

// clipBound is Domain.Clip's rule on a public sample.
func clipBound(ft []policyeval.FeatureTrajectory, gamma float64) (float64, error) {
	theta, err := policyeval.LSTD(ft, gamma, 1e-6)
	if err != nil {
		return 0, err
	}
	zero := make([]float64, len(theta))
	c := math.Max(floats.Max(GradientNorms(ft, gamma, zero, zero)), floats.Max(GradientNorms(ft, gamma, theta, zero)))
	if !(c > 0) || math.IsInf(c, 0) {
		return 0, fmt.Errorf("xie2019: public gradient norms give no usable clip bound (%v)", c)
	}
	p := math.Pow(10, math.Floor(math.Log10(c))-1)
	return math.Ceil(c/p) * p, nil
}

// Chain is the chain of Xie et al.'s Fig. 1, in Balle et al.'s configuration (envs.BalleEvaluation: 40 states,
// stay or advance with probability ½, reward 1 on reaching the absorbing state, γ = 0.99, start uniform,
// 200-step limit), with tabular features and exact moments; DP-LSW and DP-LSL use Balle's 39-state
// problem with the chain's tight public return bound F = 1.
func Chain() (*Domain, error) {
	chain := envs.NewBalleEvaluation()
	mo, err := policyeval.ModelMoments(envs.NewChain(envs.BalleChainParams()).Model(), chain.Policy.P, policyeval.StateAggregation(40, 1), chain.Gamma)
	if err != nil {
		return nil, err
	}
	d := &Domain{
		Name: "chain", Gamma: chain.Gamma, RewardScale: 1, True: mo,
		LSW: &policyeval.Problem{Phi: policyeval.StateAggregation(39, 1), Rho: policyeval.UniformWeights(39), FMax: 1, FRange: 1},
		LSL: true, LSWStates: 39,
		LSWState: func(o []float64) int { return int(o[0]) },
		lswTheta: func(th []float64) []float64 { return append(slices.Clone(th), 0) }, // V(absorbing) = 0
		draw: func(n int, src rand.Source) ([]trajectory.Trajectory, error) {
			d, err := chain.Collect(n, src)
			if err != nil {
				return nil, err
			}
			return d.Trajectories, nil
		},
		feats: func() trajectory.Features { return envs.TabularFeatures{N: 40} },
	}
	return d, d.finish(nil, rand.NewPCG(2019, 1))
}

// setMoments estimates the population moments from an independent sample.
func (d *Domain) setMoments(ft []policyeval.FeatureTrajectory) error {
	mo, err := policyeval.SampleMoments(ft, d.Gamma)
	if err != nil {
		return err
	}
	d.True, d.MomentTransitions = mo, 0
	for _, tr := range ft {
		d.MomentTransitions += len(tr.R)
	}
	return nil
}

// finish sets the clip bound and (if unset) the evaluated policy's mean reward from a public sample: pub, or
// 200 fresh draws if nil.
func (d *Domain) finish(pub []policyeval.FeatureTrajectory, src rand.Source) error {
	var err error
	if pub == nil {
		if _, pub, err = d.Draw(200, src); err != nil {
			return err
		}
	}
	if d.Clip, err = clipBound(pub, d.Gamma); err != nil {
		return err
	}
	if d.MeanReward == 0 {
		var sum float64
		var n int
		for _, tr := range pub {
			for k, r := range tr.R {
				sum += tr.Rho[k] * r
				n++
			}
		}
		d.MeanReward = sum / float64(n)
	}
	return nil
}

// MountainCar is Mountain Car with the order-5 Fourier basis (36 features), γ = 0.99 and rewards scaled
// by 1 − γ. On-policy, the evaluated and behaviour policy is MountainCarEnergy (standing in for the paper's
// Q-learning policy) and DP-LSW runs on a 10 × 10 grid of the state box with the Fourier features of each
// cell's centre, weights the public visit frequencies and return bound F = 1. Off-policy, the behaviour is
// that policy with probability 0.1 on each other action and the evaluated policy is uniform, as in the
// paper. The population moments come from momentTrajs independent behaviour trajectories.
func MountainCar(offPolicy bool, momentTrajs int) (*Domain, error) {
	const gamma = 0.99
	behaviour := func() trajectory.Policy { return MountainCarEnergy() }
	var target func() trajectory.Policy
	if offPolicy {
		behaviour = func() trajectory.Policy { return Explore(MountainCarEnergy(), 0.1) }
		target = func() trajectory.Policy { return envs.Uniform{N: 3} }
	}
	four := envs.MountainCarFourier(5)
	newEnv := func() envs.Env { e, _ := envs.Make("mountaincar"); return e }
	d := &Domain{
		Name: "mountaincar", Gamma: gamma, OffPolicy: offPolicy, RewardScale: 1 - gamma,
		draw: func(n int, src rand.Source) ([]trajectory.Trajectory, error) {
			return collectScaled(newEnv, behaviour, n, 1-gamma, src)
		},
		feats:  func() trajectory.Features { return four.Clone() },
		target: target,
	}
	if offPolicy {
		d.Name = "mountaincar-off"
	}
	rng := rand.New(rand.NewPCG(2019, 2))
	raw, ft, err := d.Draw(momentTrajs, rand.NewPCG(rng.Uint64(), rng.Uint64()))
	if err != nil {
		return nil, err
	}
	if err := d.setMoments(ft); err != nil {
		return nil, err
	}
	if !offPolicy {
		const cells = 10
		box := newEnv().ObservationSpace()
		cell := func(o []float64) int {
			idx := 0
			for i := range 2 {
				k := int(float64(cells) * (o[i] - box.Low[i]) / (box.High[i] - box.Low[i]))
				idx = idx*cells + min(max(k, 0), cells-1)
			}
			return idx
		}
		phi := mat.NewDense(cells*cells, four.Dim(), nil)
		f := four.Clone()
		for c := range cells * cells {
			centre := []float64{
				box.Low[0] + (float64(c/cells)+0.5)*(box.High[0]-box.Low[0])/cells,
				box.Low[1] + (float64(c%cells)+0.5)*(box.High[1]-box.Low[1])/cells,
			}
			f.Into(phi.RawRowView(c), centre)
		}
		rho := make([]float64, cells*cells)
		for _, tr := range raw {
			for _, st := range tr.Steps {
				rho[cell(st.Obs)]++
			}
		}
		floats.Scale(1/floats.Sum(rho), rho)
		d.LSW = &policyeval.Problem{Phi: phi, Rho: rho, FMax: 1, FRange: 1, FMin: -1} // returns of −0.01 per step lie in [−1, 0]
		d.LSWStates, d.LSWState = cells*cells, cell
		d.lswTheta = slices.Clone[[]float64]
	}
	return d, d.finish(nil, rand.NewPCG(rng.Uint64(), rng.Uint64()))
}

// HIV is the HIV simulator off-policy (5 days per step, 200 steps, γ = 0.98, rewards divided by 1e8 as in
// the gym port): the evaluated policy is HIVThreshold (standing in for the paper's Q-learning policy), the
// behaviour gives each other action probability 0.1 (standing in for the paper's softmax of the optimal Q);
// features are the order-1 Fourier basis (64 features) of the log10 state min–max normalised over the
// moments sample. Simulating is slow (about 10 ms per trajectory), so trials draw without replacement from
// a pool of poolSize trajectories collected once, and the public tuning samples from the (independent)
// moments sample.
func HIV(poolSize, momentTrajs int) (*Domain, error) {
	const gamma = 0.98
	behaviour := func() trajectory.Policy { return Explore(HIVThreshold(), 0.1) }
	target := func() trajectory.Policy { return HIVThreshold() }
	newEnv := func() envs.Env {
		return &envs.TimeLimit{Env: envs.NewHIV(envs.HIVParams{Scaled: true}), MaxSteps: 200}
	}
	rng := rand.New(rand.NewPCG(2019, 3))
	moments, err := collectScaled(newEnv, behaviour, momentTrajs, 1, rand.NewPCG(rng.Uint64(), rng.Uint64()))
	if err != nil {
		return nil, err
	}
	low, high := slices.Clone(moments[0].Steps[0].Obs), slices.Clone(moments[0].Steps[0].Obs)
	for _, tr := range moments {
		for _, st := range tr.Steps {
			for i, v := range st.Obs {
				low[i], high[i] = math.Min(low[i], v), math.Max(high[i], v)
			}
		}
	}
	for i := range low {
		w := 0.05*(high[i]-low[i]) + 1e-3
		low[i], high[i] = low[i]-w, high[i]+w
	}
	four, err := envs.NewFourier(1, low, high)
	if err != nil {
		return nil, err
	}
	pool, err := collectScaled(newEnv, behaviour, poolSize, 1, rand.NewPCG(rng.Uint64(), rng.Uint64()))
	if err != nil {
		return nil, err
	}
	d := &Domain{
		Name: "hiv", Gamma: gamma, OffPolicy: true, RewardScale: 1,
		draw:       subsample(pool, "the HIV pool"),
		drawPublic: subsample(moments, "the HIV public sample"),
		feats:      func() trajectory.Features { return four.Clone() },
		target:     target,
	}
	ft, err := policyeval.Featurize(moments, four.Clone(), target())
	if err != nil {
		return nil, err
	}
	if err := d.setMoments(ft); err != nil {
		return nil, err
	}
	// The evaluated policy is deterministic and so is the simulator: one episode gives its mean reward.
	run, err := envs.Collect(newEnv(), target(), 1, rand.NewPCG(1, 1), 0)
	if err != nil {
		return nil, err
	}
	for _, st := range run[0].Steps {
		d.MeanReward += st.Reward / float64(len(run[0].Steps))
	}
	return d, d.finish(ft, nil) // the moments sample is public and independent of the pool
}

// subsample draws n of the trajectories without replacement.
func subsample(pool []trajectory.Trajectory, what string) func(n int, src rand.Source) ([]trajectory.Trajectory, error) {
	return func(n int, src rand.Source) ([]trajectory.Trajectory, error) {
		if n > len(pool) {
			return nil, fmt.Errorf("xie2019: n = %d trajectories is outside the allowed range [1, %d] (%s)", n, len(pool), what)
		}
		idx := rand.New(src).Perm(len(pool))[:n]
		out := make([]trajectory.Trajectory, n)
		for i, j := range idx {
			out[i] = pool[j]
		}
		return out, nil
	}
}

// Method names of the rows Experiment returns.
const (
	MethodGPOPE       = "GPOPE (tuned step)"
	MethodGPOPE10x    = "GPOPE (10× step)"
	MethodGPOPETenth  = "GPOPE (0.1× step)"
	MethodLSTD        = "LSTD (non-private)"
	MethodWISLSTD     = "WIS-LSTD (non-private)"
	MethodDPLSW       = "DP-LSW (V1)"
	MethodDPLSLPaper  = "DP-LSL (V2, paper bound)"
	MethodDPLSLSafe   = "DP-LSL (V2, safe bound)"
	MethodZero        = "θ = 0"
	MethodGTD2        = "GTD2 (non-private: σ = 0)"
	MethodGPOPEAtStep = "GPOPE"
	MethodGTD2AtStep  = "GTD2 (σ = 0, same clip and T)"
)

// Config configures Experiment and StepSweep.
type Config struct {
	N        []int     // dataset sizes (trajectories)
	Epsilons []float64 // privacy levels
	Delta    float64   // GPOPE's δ
	Trials   int
	Seed     uint64
	// Steps is the step-size grid searched on public data; TuneRuns public samples (each of size n) are
	// averaged per grid point, scored by the MSPBE under each sample's own moments.
	Steps    []float64
	TuneRuns int
	// IterationsPerTrajectory sets T = max(1, round(IterationsPerTrajectory·n)) (0: 1, one expected pass).
	IterationsPerTrajectory float64
	// Accounting calibrates σ; GPOPE runs the sampling it is about (Accounting.Sampling()): one trajectory
	// per step for the paper's and the tight accounting, Poisson sampling at rate 1/n for the Poisson ones.
	Accounting policyeval.GPOPEAccounting
	Orders     []float64 // RDP orders (nil: the integers 2…256, as in the paper's accounting here)
	// LSWDelta is DP-LSW's and DP-LSL's δ (Balle et al.'s 0.1); LSLC sets DP-LSL's λ schedule constant.
	// They run only at ε ≤ 1 (mechanisms.SmoothEpsilonRange): above, their constants give no guarantee.
	LSWDelta, LSLC float64
	// TunedOnly runs GPOPE at the tuned step only (no 10× and 0.1× runs, no DP-LSW, DP-LSL or GTD2, and no
	// GTD2 tuning); the other rows keep their random streams, so their values equal those of a full run.
	TunedOnly bool
	Workers   int
}

func (c *Config) check() error {
	if len(c.N) == 0 || len(c.Epsilons) == 0 || len(c.Steps) == 0 {
		return fmt.Errorf("xie2019: Config needs dataset sizes N, Epsilons and a step grid Steps")
	}
	for _, e := range c.Epsilons {
		if !(e > 0) || math.IsInf(e, 0) {
			return fmt.Errorf("xie2019: epsilon = %v is outside the allowed range (0, ∞)", e)
		}
	}
	if !(c.Delta > 0 && c.Delta < 1) {
		return fmt.Errorf("xie2019: Delta = %v is outside the allowed range (0, 1)", c.Delta)
	}
	if c.Trials < 1 {
		return fmt.Errorf("xie2019: Trials = %d is outside the allowed range [1, ∞)", c.Trials)
	}
	if c.TuneRuns == 0 {
		c.TuneRuns = 3
	}
	if c.IterationsPerTrajectory == 0 {
		c.IterationsPerTrajectory = 1
	}
	if c.Orders == nil {
		c.Orders = mechanisms.IntegerOrders(2, 256)
	}
	return nil
}

// Iterations is T for n trajectories.
func (c *Config) Iterations(n int) int {
	per := c.IterationsPerTrajectory
	if per == 0 {
		per = 1
	}
	return max(1, int(math.Round(per*float64(n))))
}

// Row is one estimate: its method, dataset size, ε (0 for non-private ones), trial, the GPOPE step, noise
// σ and share of clipped gradients, and the MSPBE under the domain's population moments.
type Row struct {
	Method       string
	N            int
	Epsilon      float64
	Trial        int
	Step, Sigma  float64
	ClippedShare float64
	MSPBE        float64
}

// Tuning is the public step-size search at one (n, ε): the grid's mean public MSPBE and the step chosen,
// and the same search for the noiseless GTD2 at that n (GTD2MSPBE, GTD2Best; independent of ε).
type Tuning struct {
	N         int
	Epsilon   float64
	Sigma     float64
	Steps     []float64
	MSPBE     []float64 // +Inf where GPOPE diverged
	Best      float64
	GTD2MSPBE []float64
	GTD2Best  float64
}

// runGPOPE runs GPOPE (constant step) with the given sampling and returns θ and the share of sampled
// gradients that were clipped (θ = nil if it diverged).
func runGPOPE(ft []policyeval.FeatureTrajectory, gamma float64, T int, step, clip, sigma float64, nonPrivate bool, sampling policyeval.GPOPESampling, src rand.Source) ([]float64, float64, error) {
	return runGPOPESchedule(ft, gamma, T, policyeval.Constant(step), clip, sigma, nonPrivate, sampling, src)
}

// runGPOPESchedule is runGPOPE with any step-size schedule.
func runGPOPESchedule(ft []policyeval.FeatureTrajectory, gamma float64, T int, step policyeval.StepSize, clip, sigma float64, nonPrivate bool, sampling policyeval.GPOPESampling, src rand.Source) ([]float64, float64, error) {
	clipped, seen := 0, 0
	th, err := policyeval.GPOPE(ft, policyeval.GPOPEConfig{Gamma: gamma, Iterations: T, Step: step, Clip: clip, Sigma: sigma, NonPrivate: nonPrivate,
		Sampling: sampling, Src: src,
		Trace: func(_ int, g float64) {
			seen++
			if g > clip {
				clipped++
			}
		}})
	return th, float64(clipped) / float64(max(seen, 1)), err
}

// sigmas memoises σ/C by (accounting, n, T, ε, δ) for AccountingPoissonPLD and for calibrations at C = 1:
// each calibration composes an accountant dozens of times, and σ/C does not depend on the domain. The key
// leaves out the RDP orders: every calibration in this package uses the integers 2…256.
var sigmas sync.Map

// sigmaFor is policyeval.GPOPESigma with the given orders, memoised for AccountingPoissonPLD (whose
// calibration is scale-free: σ(C) = C·σ(1)) and for C = 1. Other calibrations are computed afresh, exactly as
// GPOPESigma computes them.
func sigmaFor(acc policyeval.GPOPEAccounting, n, T int, eps, delta, clip float64, orders []float64) (float64, error) {
	if acc != policyeval.AccountingPoissonPLD && clip != 1 {
		return policyeval.GPOPESigma(acc, n, T, eps, delta, clip, orders)
	}
	key := [5]float64{float64(acc), float64(n), float64(T), eps, delta}
	if z, ok := sigmas.Load(key); ok {
		return z.(float64) * clip, nil
	}
	z, err := policyeval.GPOPESigma(acc, n, T, eps, delta, 1, orders)
	if err != nil {
		return 0, err
	}
	sigmas.Store(key, z)
	return z * clip, nil
}

// Sigmas calibrates GPOPE's σ for every (n, ε) of the configuration (keys [n index][ε index]).
func Sigmas(d *Domain, cfg Config) ([][]float64, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	out := make([][]float64, len(cfg.N))
	for i, n := range cfg.N {
		out[i] = make([]float64, len(cfg.Epsilons))
		for j, eps := range cfg.Epsilons {
			s, err := sigmaFor(cfg.Accounting, n, cfg.Iterations(n), eps, cfg.Delta, d.Clip, cfg.Orders)
			if err != nil {
				return nil, fmt.Errorf("xie2019: n = %d, T = %d, ε = %v: %w", n, cfg.Iterations(n), eps, err)
			}
			out[i][j] = s
		}
	}
	return out, nil
}

// Tune searches the step grid on public data for every (n, ε): each of TuneRuns public samples of size n
// (drawn from streams independent of the trials') runs GPOPE with the calibrated σ at every grid step, and
// the noiseless GTD2 at every grid step (after the private runs, on further streams of the same sample).
func Tune(d *Domain, cfg Config, progress experiment.Progress) ([]Tuning, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	sigmas, err := Sigmas(d, cfg)
	if err != nil {
		return nil, err
	}
	type job struct{ n, run int }
	var jobs []job
	for i := range cfg.N {
		for r := range cfg.TuneRuns {
			jobs = append(jobs, job{i, r})
		}
	}
	// scores[job][ε][step]
	scores, err := experiment.Trials(len(jobs), cfg.Workers, cfg.Seed^0x7475_6e65, progress, func(k int, src rand.Source) ([][]float64, error) {
		j := jobs[k]
		n := cfg.N[j.n]
		rng := rand.New(src)
		_, pub, err := d.DrawPublic(n, rand.NewPCG(rng.Uint64(), rng.Uint64()))
		if err != nil {
			return nil, err
		}
		mo, err := policyeval.SampleMoments(pub, d.Gamma)
		if err != nil {
			return nil, err
		}
		// out[ε][step], and out[len(ε)][step] for GTD2 (not with TunedOnly)
		out := make([][]float64, len(cfg.Epsilons)+1)
		if cfg.TunedOnly {
			out = out[:len(cfg.Epsilons)]
		}
		for e := range out {
			out[e] = make([]float64, len(cfg.Steps))
			for s, a := range cfg.Steps {
				sigma, nonPrivate, sampling := 0.0, true, policyeval.SampleOne
				if e < len(cfg.Epsilons) {
					sigma, nonPrivate, sampling = sigmas[j.n][e], false, cfg.Accounting.Sampling()
				}
				th, _, err := runGPOPE(pub, d.Gamma, cfg.Iterations(n), a, d.Clip, sigma, nonPrivate, sampling, rand.NewPCG(rng.Uint64(), rng.Uint64()))
				if err != nil {
					out[e][s] = math.Inf(1)
					continue
				}
				out[e][s] = mo.MSPBE(th)
			}
		}
		return out, nil
	})
	if err != nil {
		return nil, err
	}
	// mean over the public samples of n's scores at index e, and the step with the smallest mean
	mean := func(i, e int) ([]float64, float64, bool) {
		m := make([]float64, len(cfg.Steps))
		for k, j := range jobs {
			if j.n == i {
				floats.Add(m, scores[k][e])
			}
		}
		best, arg := math.Inf(1), 0.0
		for s := range m {
			m[s] /= float64(cfg.TuneRuns)
			if m[s] < best {
				best, arg = m[s], cfg.Steps[s]
			}
		}
		return m, arg, !math.IsInf(best, 1)
	}
	var res []Tuning
	for i, n := range cfg.N {
		var gm []float64
		var gb float64
		if !cfg.TunedOnly {
			var ok bool
			if gm, gb, ok = mean(i, len(cfg.Epsilons)); !ok {
				return nil, fmt.Errorf("xie2019: n = %d: GTD2 diverged at every step of the grid", n)
			}
		}
		for e, eps := range cfg.Epsilons {
			m, b, ok := mean(i, e)
			if !ok {
				return nil, fmt.Errorf("xie2019: n = %d, ε = %v: GPOPE diverged at every step of the grid", n, eps)
			}
			res = append(res, Tuning{N: n, Epsilon: eps, Sigma: sigmas[i][e], Steps: cfg.Steps, MSPBE: m, Best: b, GTD2MSPBE: gm, GTD2Best: gb})
		}
	}
	return res, nil
}

// Experiment runs the trials of Xie et al.'s "MSPBE vs n" figures on a domain: for each trial and n, a
// fresh private sample; GPOPE at the tuned step and at 10× and 0.1× of it for every ε; the non-private
// LSTD (on-policy) or WIS-LSTD (off-policy) and GTD2 (σ = 0, same clip and T, its own publicly tuned step);
// DP-LSW and DP-LSL (paper and safe bounds) where the domain has an LSW problem, at ε ≤ 1 only (their
// constants give no guarantee above); and θ = 0 as the trivial reference. Trial k draws from
// rand.NewPCG(Seed, k); GTD2 from rand.NewPCG(Seed ^ 0x67746432, k·2²⁰ + n), so adding it left the other
// rows' streams as they were.
func Experiment(d *Domain, cfg Config, tuning []Tuning, progress experiment.Progress) ([]Row, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	best := map[[2]float64]Tuning{}
	for _, t := range tuning {
		best[[2]float64{float64(t.N), t.Epsilon}] = t
	}
	zero := d.True.MSPBE(make([]float64, d.Dim()))
	sampling := cfg.Accounting.Sampling()
	res, err := experiment.Trials(cfg.Trials, cfg.Workers, cfg.Seed, progress, func(trial int, src rand.Source) ([]Row, error) {
		rng := rand.New(src)
		var rows []Row
		add := func(method string, n int, eps, step, sigma, clipped float64, theta []float64) {
			v := math.Inf(1) // diverged
			if theta != nil {
				v = d.True.MSPBE(theta)
			}
			rows = append(rows, Row{method, n, eps, trial, step, sigma, clipped, v})
		}
		for _, n := range cfg.N {
			raw, ft, err := d.Draw(n, rand.NewPCG(rng.Uint64(), rng.Uint64()))
			if err != nil {
				return nil, err
			}
			rows = append(rows, Row{Method: MethodZero, N: n, Trial: trial, MSPBE: zero})
			if d.OffPolicy {
				th, err := policyeval.WISLSTD(ft, d.Gamma, 1e-6)
				if err != nil {
					return nil, err
				}
				add(MethodWISLSTD, n, 0, 0, 0, 0, th)
			} else {
				th, err := policyeval.LSTD(ft, d.Gamma, 1e-6)
				if err != nil {
					return nil, err
				}
				add(MethodLSTD, n, 0, 0, 0, 0, th)
			}
			if tu, ok := best[[2]float64{float64(n), cfg.Epsilons[0]}]; ok && !cfg.TunedOnly {
				th, clipped, _ := runGPOPE(ft, d.Gamma, cfg.Iterations(n), tu.GTD2Best, d.Clip, 0, true, policyeval.SampleOne,
					rand.NewPCG(cfg.Seed^0x6774_6432, uint64(trial)<<20|uint64(n)))
				add(MethodGTD2, n, 0, tu.GTD2Best, 0, clipped, th)
			}
			var sig *policyeval.Signature
			if d.LSW != nil && !cfg.TunedOnly {
				obsDim := len(raw[0].Steps[0].Obs)
				sig, err = policyeval.NewSignature(&trajectory.Dataset{ObsDim: obsDim, NumActions: 1, Trajectories: raw}, d.LSWStates, d.Gamma, d.LSWState)
				if err != nil {
					return nil, err
				}
			}
			for _, eps := range cfg.Epsilons {
				tu, ok := best[[2]float64{float64(n), eps}]
				if !ok {
					return nil, fmt.Errorf("xie2019: no step-size tuning for n = %d, ε = %v", n, eps)
				}
				for _, v := range []struct {
					name string
					mult float64
				}{{MethodGPOPE, 1}, {MethodGPOPE10x, 10}, {MethodGPOPETenth, 0.1}} {
					step := v.mult * tu.Best
					stream := rand.NewPCG(rng.Uint64(), rng.Uint64())
					if cfg.TunedOnly && v.mult != 1 {
						continue
					}
					th, clipped, _ := runGPOPE(ft, d.Gamma, cfg.Iterations(n), step, d.Clip, tu.Sigma, false, sampling, stream)
					add(v.name, n, eps, step, tu.Sigma, clipped, th)
				}
				if d.LSW == nil {
					continue
				}
				// Every release's stream is drawn even when it does not run, so the others keep theirs.
				streams := []rand.Source{rand.NewPCG(rng.Uint64(), rng.Uint64())}
				if d.LSL {
					streams = append(streams, rand.NewPCG(rng.Uint64(), rng.Uint64()), rand.NewPCG(rng.Uint64(), rng.Uint64()))
				}
				if cfg.TunedOnly || !mechanisms.SmoothEpsilonRange.Contains(eps) {
					continue // ε > 1: Lemma 1's constants give no guarantee, so DP-LSW and DP-LSL do not run
				}
				priv := policyeval.PrivacyParams{Epsilon: eps, Delta: cfg.LSWDelta}
				r, err := policyeval.DPLSW(d.LSW, sig, priv, false, streams[0])
				if err != nil {
					return nil, err
				}
				add(MethodDPLSW, n, eps, 0, r.Sigma, 0, d.lswTheta(r.Theta))
				if !d.LSL {
					continue
				}
				lambda, err := policyeval.LambdaSchedule(d.LSW, cfg.LSLC, n)
				if err != nil {
					return nil, err
				}
				for k, b := range []struct {
					name  string
					bound policyeval.LSLBound
				}{{MethodDPLSLPaper, policyeval.LSLPaper}, {MethodDPLSLSafe, policyeval.LSLSafe}} {
					r, err := policyeval.DPLSL(d.LSW, sig, lambda, priv, b.bound, streams[1+k])
					if err != nil {
						return nil, err
					}
					add(b.name, n, eps, 0, r.Sigma, 0, d.lswTheta(r.Theta))
				}
			}
		}
		return rows, nil
	})
	if err != nil {
		return nil, err
	}
	return slices.Concat(res...), nil
}

// StepSweep runs GPOPE at every step of cfg.Steps on each trial's fresh private sample of size n at
// privacy ε (the step-size robustness panels): rows with Method MethodGPOPEAtStep, and the same runs without
// noise (MethodGTD2AtStep, recorded at the same ε so Curve finds them) to separate the noise's cost from
// the optimisation's; and per trial the non-private LSTD (WIS-LSTD off-policy) and θ = 0, with Step 0.
// Trial k draws from rand.NewPCG(Seed ^ 0x73776565, k).
func StepSweep(d *Domain, cfg Config, n int, eps float64, progress experiment.Progress) ([]Row, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	T := cfg.Iterations(n)
	sigma, err := sigmaFor(cfg.Accounting, n, T, eps, cfg.Delta, d.Clip, cfg.Orders)
	if err != nil {
		return nil, err
	}
	res, err := experiment.Trials(cfg.Trials, cfg.Workers, cfg.Seed^0x7377_6565, progress, func(trial int, src rand.Source) ([]Row, error) {
		rng := rand.New(src)
		_, ft, err := d.Draw(n, rand.NewPCG(rng.Uint64(), rng.Uint64()))
		if err != nil {
			return nil, err
		}
		rows := []Row{{Method: MethodZero, N: n, Trial: trial, MSPBE: d.True.MSPBE(make([]float64, d.Dim()))}}
		ls, method := policyeval.LSTD, MethodLSTD
		if d.OffPolicy {
			ls, method = policyeval.WISLSTD, MethodWISLSTD
		}
		th, err := ls(ft, d.Gamma, 1e-6)
		if err != nil {
			return nil, err
		}
		rows = append(rows, Row{Method: method, N: n, Trial: trial, MSPBE: d.True.MSPBE(th)})
		for _, a := range cfg.Steps {
			for _, v := range []struct {
				name  string
				sigma float64
			}{{MethodGPOPEAtStep, sigma}, {MethodGTD2AtStep, 0}} {
				sampling := cfg.Accounting.Sampling()
				if v.sigma == 0 {
					sampling = policyeval.SampleOne
				}
				th, clipped, _ := runGPOPE(ft, d.Gamma, T, a, d.Clip, v.sigma, v.name == MethodGTD2AtStep, sampling, rand.NewPCG(rng.Uint64(), rng.Uint64()))
				mspbe := math.Inf(1)
				if th != nil {
					mspbe = d.True.MSPBE(th)
				}
				rows = append(rows, Row{v.name, n, eps, trial, a, v.sigma, clipped, mspbe})
			}
		}
		return rows, nil
	})
	return slices.Concat(res...), err
}

// Curve gathers the MSPBE of one method at ε (any ε for non-private methods, which record 0) as
// [trial][x] over the x values, x(row) picking the abscissa (N or Step); missing or diverged entries are NaN
// (figure.MeanStd skips them).
func Curve(rows []Row, method string, eps float64, xs []float64, x func(Row) float64) [][]float64 {
	return experiment.Gather(rows, xs, func(r Row) int { return r.Trial }, x, func(r Row) (float64, bool) {
		return r.MSPBE, r.Method == method && (r.Epsilon == 0 || r.Epsilon == eps) && !math.IsInf(r.MSPBE, 0)
	})
}

// Table turns rows into a tidy table (one row per estimate) for CSV export.
func Table(rows []Row) *experiment.Table {
	t := &experiment.Table{Columns: []string{"method", "n", "epsilon", "trial", "step", "sigma", "clipped_share", "mspbe"}}
	for _, r := range rows {
		t.Add(r.Method, r.N, r.Epsilon, r.Trial, r.Step, r.Sigma, r.ClippedShare, r.MSPBE)
	}
	return t
}
