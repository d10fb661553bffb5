package xie2019

import (
	"errors"
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

	draw func(n int, src rand.Source) (*Sample, error)
	// drawPublic draws the "similar public data" the step size is tuned on (nil: draw, whose fresh
	// simulations are independent of the private ones).
	drawPublic func(n int, src rand.Source) (*Sample, error)
	feats      func() trajectory.Features
	target     func() trajectory.Policy // a fresh evaluated policy (policies may keep scratch buffers); nil: on-policy
}

// Sample is n behaviour trajectories of a domain: as recorded (DP-LSW's first-visit statistics read them)
// and prepared for GTD2 and GPOPE (their features, importance ratios and per-trajectory moments).
type Sample struct {
	Raw  []trajectory.Trajectory
	Data *policyeval.Prepared
}

// Draw returns n behaviour trajectories (rewards scaled), prepared.
func (d *Domain) Draw(n int, src rand.Source) (*Sample, error) { return drawN(d.draw, n, src) }

// DrawPublic is Draw for the public tuning data: independent of every private sample.
func (d *Domain) DrawPublic(n int, src rand.Source) (*Sample, error) {
	if d.drawPublic == nil {
		return d.Draw(n, src)
	}
	return drawN(d.drawPublic, n, src)
}

// drawN checks n and draws.
func drawN(draw func(int, rand.Source) (*Sample, error), n int, src rand.Source) (*Sample, error) {
	if n < 1 {
		return nil, fmt.Errorf("xie2019: n = %d trajectories is outside the allowed range [1, ∞)", n)
	}
	return draw(n, src)
}

// prepare featurises trajectories with the domain's features and evaluated policy and prepares them.
func (d *Domain) prepare(raw []trajectory.Trajectory) (*Sample, error) {
	var target trajectory.Policy
	if d.target != nil {
		target = d.target()
	}
	ft, err := policyeval.Featurize(raw, d.feats(), target)
	if err != nil {
		return nil, err
	}
	p, err := policyeval.Prepare(ft, d.Gamma)
	if err != nil {
		return nil, err
	}
	return &Sample{Raw: raw, Data: p}, nil
}

// simulated is a draw that simulates fresh trajectories with collect and prepares them.
func (d *Domain) simulated(collect func(n int, src rand.Source) ([]trajectory.Trajectory, error)) func(int, rand.Source) (*Sample, error) {
	return func(n int, src rand.Source) (*Sample, error) {
		raw, err := collect(n, src)
		if err != nil {
			return nil, err
		}
		return d.prepare(raw)
	}
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
func GradientNorms(p *policyeval.Prepared, x []float64) []float64 {
	g := make([]float64, 2*p.Dim())
	out := make([]float64, p.Len())
	for i := range out {
		p.Gradient(g, i, x)
		out[i] = floats.Norm(g, 2)
	}
	return out
}

// clipBound is Domain.Clip's rule on a public sample.
func clipBound(p *policyeval.Prepared) (float64, error) {
	theta, err := p.LSTD(1e-6)
	if err != nil {
		return 0, err
	}
	x := make([]float64, 2*p.Dim())
	c := floats.Max(GradientNorms(p, x))
	copy(x, theta)
	c = math.Max(c, floats.Max(GradientNorms(p, x)))
	if !(c > 0) || math.IsInf(c, 0) {
		return 0, fmt.Errorf("xie2019: public gradient norms give no usable clip bound (%v)", c)
	}
	e := math.Pow(10, math.Floor(math.Log10(c))-1)
	return math.Ceil(c/e) * e, nil
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
		feats:    func() trajectory.Features { return envs.TabularFeatures{N: 40} },
	}
	d.draw = d.simulated(func(n int, src rand.Source) ([]trajectory.Trajectory, error) {
		set, err := chain.Collect(n, src)
		if err != nil {
			return nil, err
		}
		return set.Trajectories, nil
	})
	return d, d.finish(nil, rand.NewPCG(2019, 1))
}

// setMoments estimates the population moments from an independent sample.
func (d *Domain) setMoments(s *Sample) {
	d.True, d.MomentTransitions = s.Data.Moments(), 0
	for i := range s.Data.Len() {
		d.MomentTransitions += s.Data.Transitions(i)
	}
}

// finish sets the clip bound and (if unset) the evaluated policy's mean reward ρ-weighted over the
// transitions of a public sample: pub, or 200 fresh draws if nil.
func (d *Domain) finish(pub *Sample, src rand.Source) error {
	var err error
	if pub == nil {
		if pub, err = d.Draw(200, src); err != nil {
			return err
		}
	}
	if d.Clip, err = clipBound(pub.Data); err != nil {
		return err
	}
	if d.MeanReward == 0 {
		var target trajectory.Policy
		var probs []float64
		if d.target != nil {
			target = d.target()
			probs = make([]float64, target.NumActions())
		}
		var sum float64
		var n int
		for _, tr := range pub.Raw {
			for _, st := range tr.Steps {
				rho := 1.0
				if target != nil {
					target.Probs(probs, st.Obs)
					rho = probs[st.Action] / st.Prob
				}
				sum += rho * st.Reward
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
		feats:  func() trajectory.Features { return four.Clone() },
		target: target,
	}
	d.draw = d.simulated(func(n int, src rand.Source) ([]trajectory.Trajectory, error) {
		return collectScaled(newEnv, behaviour, n, 1-gamma, src)
	})
	if offPolicy {
		d.Name = "mountaincar-off"
	}
	rng := rand.New(rand.NewPCG(2019, 2))
	moments, err := d.Draw(momentTrajs, rand.NewPCG(rng.Uint64(), rng.Uint64()))
	if err != nil {
		return nil, err
	}
	d.setMoments(moments)
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
		for _, tr := range moments.Raw {
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
		feats:  func() trajectory.Features { return four.Clone() },
		target: target,
	}
	// Both samples are prepared once; a draw picks trajectories of one of them.
	public, err := d.prepare(moments)
	if err != nil {
		return nil, err
	}
	private, err := d.prepare(pool)
	if err != nil {
		return nil, err
	}
	d.draw, d.drawPublic = subsample(private, "the HIV pool"), subsample(public, "the HIV public sample")
	d.setMoments(public)
	// The evaluated policy is deterministic and so is the simulator: one episode gives its mean reward.
	run, err := envs.Collect(newEnv(), target(), 1, rand.NewPCG(1, 1), 0)
	if err != nil {
		return nil, err
	}
	for _, st := range run[0].Steps {
		d.MeanReward += st.Reward / float64(len(run[0].Steps))
	}
	return d, d.finish(public, nil) // the moments sample is public and independent of the pool
}

// subsample draws n of a prepared sample's trajectories without replacement.
func subsample(s *Sample, what string) func(n int, src rand.Source) (*Sample, error) {
	return func(n int, src rand.Source) (*Sample, error) {
		if n > len(s.Raw) {
			return nil, fmt.Errorf("xie2019: n = %d trajectories is outside the allowed range [1, %d] (%s)", n, len(s.Raw), what)
		}
		idx := rand.New(src).Perm(len(s.Raw))[:n]
		raw := make([]trajectory.Trajectory, n)
		for i, j := range idx {
			raw[i] = s.Raw[j]
		}
		return &Sample{Raw: raw, Data: s.Data.Subset(idx)}, nil
	}
}

// Method names of the rows Experiment and StepSweep return.
const (
	MethodGPOPE            = "GPOPE (tuned on public data)" // the schedule and step with the lowest public MSPBE
	MethodGPOPEConstant    = "GPOPE (constant step)"        // the best constant step on public data
	MethodGPOPEDiminishing = "GPOPE (diminishing step)"     // the best diminishing schedule on public data
	MethodGPOPE10x         = "GPOPE (10× step)"             // MethodGPOPE's schedule with 10× its step
	MethodGPOPETenth       = "GPOPE (0.1× step)"            // and with 0.1× its step
	MethodLSTD             = "LSTD (non-private)"
	MethodWISLSTD          = "WIS-LSTD (non-private)"
	MethodDPLSW            = "DP-LSW (V1)"
	MethodDPLSLPaper       = "DP-LSL (V2, paper bound)"
	MethodDPLSLSafe        = "DP-LSL (V2, safe bound)"
	MethodZero             = "θ = 0"
	MethodGTD2             = "GTD2 (non-private: σ = 0)"
	MethodGPOPEAtStep      = "GPOPE"                         // StepSweep: GPOPE at one step of the grid
	MethodGTD2AtStep       = "GTD2 (σ = 0, same clip and T)" // StepSweep: the same without noise
)

// Schedule is a family of step sizes: a constant α, or the diminishing α_t = α/(1 + 10t/T), which falls to
// α/11 by the last of T steps (the paper's §6 analyses diminishing steps α_t ∝ 1/t without fixing a form;
// this one is a worked setting of ours).
type Schedule int

const (
	Constant Schedule = iota
	Diminishing
)

// Schedules are the schedule families the public tuning searches.
var Schedules = []Schedule{Constant, Diminishing}

// String is "constant" or "diminishing".
func (s Schedule) String() string {
	if s == Diminishing {
		return "diminishing"
	}
	return "constant"
}

// StepSize is the schedule with initial step alpha over T steps.
func (s Schedule) StepSize(alpha float64, T int) policyeval.StepSize {
	if s == Diminishing {
		return policyeval.Diminishing(alpha, float64(T)/10)
	}
	return policyeval.Constant(alpha)
}

// method is the name of the GPOPE row tuned within schedule s.
func (s Schedule) method() string {
	if s == Diminishing {
		return MethodGPOPEDiminishing
	}
	return MethodGPOPEConstant
}

// Config configures Tune, Experiment and StepSweep.
type Config struct {
	N        []int     // dataset sizes (trajectories)
	Epsilons []float64 // privacy levels
	// Delta is the δ of every private method compared: GPOPE's, and DP-LSW's and DP-LSL's (the paper fixes
	// one δ for all its experiments).
	Delta  float64
	Trials int
	Seed   uint64
	// Steps is the step-size grid searched on public data for each schedule; TuneRuns public samples (each
	// of size n) are averaged per grid point, scored by the MSPBE under each sample's own moments.
	Steps    []float64
	TuneRuns int
	// IterationsPerTrajectory sets T = max(1, round(IterationsPerTrajectory·n)) (0: 1, one expected pass).
	IterationsPerTrajectory float64
	// Accounting calibrates σ; GPOPE runs the sampling it is about (Accounting.Sampling()): one trajectory
	// per step for AccountingTight and AccountingTheorem9, Poisson sampling at rate 1/n for the Poisson ones.
	Accounting policyeval.GPOPEAccounting
	Orders     []float64 // RDP orders (nil: the integers 2…256)
	// BalleDelta, when positive, runs DP-LSW and DP-LSL a second time at that δ (Balle et al.'s 0.1): rows at
	// another privacy level than GPOPE's, shown for what the choice of δ does to the baselines and never
	// compared with GPOPE. LSLC is DP-LSL's λ schedule constant. The baselines run at ε ≤ 1 only
	// (mechanisms.SmoothEpsilonRange): above, their constants give no guarantee.
	BalleDelta, LSLC float64
	Workers          int
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
	if !(c.BalleDelta >= 0 && c.BalleDelta < 1) {
		return fmt.Errorf("xie2019: BalleDelta = %v is outside the allowed range [0, 1)", c.BalleDelta)
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
		c.Orders = orders
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

// Row is one estimate: its method, dataset size n, iterations T (0 for closed forms), privacy (ε, δ; 0 for
// non-private methods), trial and the stream it drew from (rand.NewPCG(Seed, Stream)), the step-size
// schedule, initial step, noise σ and share of clipped gradients (GPOPE and GTD2), and the MSPBE under the
// domain's population moments (+Inf where the run diverged).
type Row struct {
	Method       string
	N, T         int
	Epsilon      float64
	Delta        float64
	Trial        int
	Seed, Stream uint64
	Schedule     string
	Step, Sigma  float64
	ClippedShare float64
	MSPBE        float64
}

// Diverged reports whether the row's run diverged.
func (r Row) Diverged() bool { return math.IsInf(r.MSPBE, 0) || math.IsNaN(r.MSPBE) }

// Tuning is the public step-size search at one (n, ε): per schedule the grid's mean public MSPBE and its
// best step, the schedule with the lower best (Choice), and the same search for the noiseless GTD2 with a
// constant step at that n (GTD2MSPBE, GTD2Best; independent of ε).
type Tuning struct {
	N         int
	Epsilon   float64
	Sigma     float64
	Steps     []float64
	MSPBE     [2][]float64 // by Schedule; +Inf where GPOPE diverged
	Best      [2]float64   // by Schedule
	Choice    Schedule
	GTD2MSPBE []float64
	GTD2Best  float64
}

// run is one GPOPE (or, with sigma = 0, noiseless GTD2) run: θ (nil if it diverged) and the share of
// sampled gradients that were clipped.
func run(p *policyeval.Prepared, T int, step policyeval.StepSize, clip, sigma float64, sampling policyeval.GPOPESampling, src rand.Source) ([]float64, float64) {
	clipped, seen := 0, 0
	th, err := p.GPOPE(policyeval.GPOPEConfig{Gamma: p.Gamma(), Iterations: T, Step: step, Clip: clip, Sigma: sigma, NonPrivate: sigma == 0,
		Sampling: sampling, Src: src,
		Trace: func(_ int, g float64) {
			seen++
			if !(g <= clip) {
				clipped++
			}
		}})
	if err != nil {
		th = nil // diverged: the configuration was checked by the caller
	}
	return th, float64(clipped) / float64(max(seen, 1))
}

// mspbe is mo's MSPBE at θ, +Inf for a diverged run (θ = nil).
func mspbe(mo *policyeval.Moments, theta []float64) float64 {
	if theta == nil {
		return math.Inf(1)
	}
	return mo.MSPBE(theta)
}

// sigmas memoises σ/C by (accounting, n, T, ε, δ): each calibration composes an accountant a dozen times,
// and σ/C does not depend on the domain. It lives as long as the process (a notebook cell), so nothing it
// keeps outlives a change of code. The key leaves out the RDP orders: every calibration in this package uses
// the integers 2…256.
var sigmas sync.Map

// sigmaOverC is policyeval.GPOPESigma at C = 1 (σ/C, the same for every C) with the integer orders 2…256,
// memoised.
func sigmaOverC(acc policyeval.GPOPEAccounting, n, T int, eps, delta float64) (float64, error) {
	key := [5]float64{float64(acc), float64(n), float64(T), eps, delta}
	if z, ok := sigmas.Load(key); ok {
		return z.(float64), nil
	}
	z, err := policyeval.GPOPESigma(acc, n, T, eps, delta, 1, orders)
	if err != nil {
		return 0, fmt.Errorf("xie2019: n = %d, T = %d, ε = %v: %w", n, T, eps, err)
	}
	sigmas.Store(key, z)
	return z, nil
}

// Sigmas calibrates GPOPE's σ for every (n, ε) of the configuration (keys [n index][ε index]), the
// calibrations in parallel.
func Sigmas(d *Domain, cfg Config) ([][]float64, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	k := len(cfg.Epsilons)
	flat, err := experiment.Trials(len(cfg.N)*k, cfg.Workers, 0, nil, func(i int, _ rand.Source) (float64, error) {
		n := cfg.N[i/k]
		return sigmaOverC(cfg.Accounting, n, cfg.Iterations(n), cfg.Epsilons[i%k], cfg.Delta)
	})
	if err != nil {
		return nil, unwrapTrial(err)
	}
	out := make([][]float64, len(cfg.N))
	for i := range out {
		out[i] = make([]float64, k)
		for j := range out[i] {
			out[i][j] = flat[i*k+j] * d.Clip
		}
	}
	return out, nil
}

// unwrapTrial is the error of a failed trial of experiment.Trials without the trial's number and seed, for
// errors that do not depend on them (a configuration the accountant cannot meet).
func unwrapTrial(err error) error {
	var te *experiment.TrialError
	if errors.As(err, &te) && te.Panic == nil {
		return te.Err
	}
	return err
}

// Tune searches the step grid on public data for every (n, ε) and schedule: each of TuneRuns public samples
// of size n (drawn from streams independent of the trials') runs GPOPE with the calibrated σ at every grid
// step of each schedule, and the noiseless GTD2 with a constant step at every grid step. The public samples
// run in parallel, the largest n first.
func Tune(d *Domain, cfg Config, progress experiment.Progress) ([]Tuning, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	sig, err := Sigmas(d, cfg)
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
	// The largest samples first: the last jobs to finish are then the short ones. Each job's stream is its
	// own (rand.NewPCG(seed, k) for job k of this order).
	slices.SortStableFunc(jobs, func(a, b job) int { return cfg.N[b.n] - cfg.N[a.n] })
	sampling := cfg.Accounting.Sampling()
	// scores[job][ε·2 + schedule][step], and [2·len(ε)][step] for GTD2
	scores, err := experiment.Trials(len(jobs), cfg.Workers, cfg.Seed^0x7475_6e65, progress, func(k int, src rand.Source) ([][]float64, error) {
		j := jobs[k]
		n, T := cfg.N[j.n], cfg.Iterations(cfg.N[j.n])
		rng := rand.New(src)
		pub, err := d.DrawPublic(n, rand.NewPCG(rng.Uint64(), rng.Uint64()))
		if err != nil {
			return nil, err
		}
		mo := pub.Data.Moments()
		var out [][]float64
		for e := range cfg.Epsilons {
			for _, sc := range Schedules {
				row := make([]float64, len(cfg.Steps))
				for s, a := range cfg.Steps {
					th, _ := run(pub.Data, T, sc.StepSize(a, T), d.Clip, sig[j.n][e], sampling, rand.NewPCG(rng.Uint64(), rng.Uint64()))
					row[s] = mspbe(mo, th)
				}
				out = append(out, row)
			}
		}
		row := make([]float64, len(cfg.Steps))
		for s, a := range cfg.Steps {
			th, _ := run(pub.Data, T, policyeval.Constant(a), d.Clip, 0, policyeval.SampleOne, rand.NewPCG(rng.Uint64(), rng.Uint64()))
			row[s] = mspbe(mo, th)
		}
		return append(out, row), nil
	})
	if err != nil {
		return nil, err
	}
	// mean over the public samples of n's scores at index e, and the step with the smallest mean
	mean := func(i, e int) ([]float64, float64, float64) {
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
		return m, arg, best
	}
	var res []Tuning
	for i, n := range cfg.N {
		gm, gb, low := mean(i, 2*len(cfg.Epsilons))
		if math.IsInf(low, 1) {
			return nil, fmt.Errorf("xie2019: n = %d: GTD2 diverged at every step of the grid", n)
		}
		for e, eps := range cfg.Epsilons {
			t := Tuning{N: n, Epsilon: eps, Sigma: sig[i][e], Steps: cfg.Steps, GTD2MSPBE: gm, GTD2Best: gb}
			var low [2]float64
			for _, sc := range Schedules {
				t.MSPBE[sc], t.Best[sc], low[sc] = mean(i, 2*e+int(sc))
			}
			if math.IsInf(low[Constant], 1) && math.IsInf(low[Diminishing], 1) {
				return nil, fmt.Errorf("xie2019: n = %d, ε = %v: GPOPE diverged at every step of the grid", n, eps)
			}
			if low[Diminishing] < low[Constant] {
				t.Choice = Diminishing
			}
			res = append(res, t)
		}
	}
	return res, nil
}

// Experiment runs the trials of Xie et al.'s "MSPBE vs n" figures on a domain: for each trial and n, a
// fresh private sample; for every ε GPOPE with each schedule at its publicly tuned step, the public choice
// among them (a copy of that run's row, MethodGPOPE) and that choice at 10× and 0.1× of its step; the
// non-private LSTD (on-policy) or WIS-LSTD (off-policy) and GTD2 (σ = 0, same clip and T, its own publicly
// tuned constant step); DP-LSW and DP-LSL (paper and safe bounds) where the domain has an LSW problem, at
// ε ≤ 1 only (their constants give no guarantee above), at GPOPE's δ and, if BalleDelta is set, at that δ;
// and θ = 0 as the trivial reference. Trial k draws from rand.NewPCG(Seed, k); GTD2 from
// rand.NewPCG(Seed ^ 0x67746432, k·2²⁰ + n).
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
	deltas := []float64{cfg.Delta}
	if cfg.BalleDelta > 0 {
		deltas = append(deltas, cfg.BalleDelta)
	}
	res, err := experiment.Trials(cfg.Trials, cfg.Workers, cfg.Seed, progress, func(trial int, src rand.Source) ([]Row, error) {
		rng := rand.New(src)
		var rows []Row
		add := func(r Row) {
			r.Trial, r.Seed, r.Stream = trial, cfg.Seed, uint64(trial)
			rows = append(rows, r)
		}
		for _, n := range cfg.N {
			T := cfg.Iterations(n)
			s, err := d.Draw(n, rand.NewPCG(rng.Uint64(), rng.Uint64()))
			if err != nil {
				return nil, err
			}
			add(Row{Method: MethodZero, N: n, MSPBE: zero})
			ls, method := s.Data.LSTD, MethodLSTD
			if d.OffPolicy {
				ls, method = s.Data.WISLSTD, MethodWISLSTD
			}
			th, err := ls(1e-6)
			if err != nil {
				return nil, err
			}
			add(Row{Method: method, N: n, MSPBE: d.True.MSPBE(th)})
			if tu, ok := best[[2]float64{float64(n), cfg.Epsilons[0]}]; ok {
				th, clipped := run(s.Data, T, policyeval.Constant(tu.GTD2Best), d.Clip, 0, policyeval.SampleOne,
					rand.NewPCG(cfg.Seed^0x6774_6432, uint64(trial)<<20|uint64(n)))
				add(Row{Method: MethodGTD2, N: n, T: T, Schedule: Constant.String(), Step: tu.GTD2Best, ClippedShare: clipped, MSPBE: mspbe(d.True, th)})
			}
			var sig *policyeval.Signature
			if d.LSW != nil {
				obsDim := len(s.Raw[0].Steps[0].Obs)
				sig, err = policyeval.NewSignature(&trajectory.Dataset{ObsDim: obsDim, NumActions: 1, Trajectories: s.Raw}, d.LSWStates, d.Gamma, d.LSWState)
				if err != nil {
					return nil, err
				}
			}
			for _, eps := range cfg.Epsilons {
				tu, ok := best[[2]float64{float64(n), eps}]
				if !ok {
					return nil, fmt.Errorf("xie2019: no step-size tuning for n = %d, ε = %v", n, eps)
				}
				gpope := func(method string, sc Schedule, step float64) Row {
					th, clipped := run(s.Data, T, sc.StepSize(step, T), d.Clip, tu.Sigma, sampling, rand.NewPCG(rng.Uint64(), rng.Uint64()))
					r := Row{Method: method, N: n, T: T, Epsilon: eps, Delta: cfg.Delta, Schedule: sc.String(), Step: step, Sigma: tu.Sigma,
						ClippedShare: clipped, MSPBE: mspbe(d.True, th)}
					add(r)
					return r
				}
				for _, sc := range Schedules {
					r := gpope(sc.method(), sc, tu.Best[sc])
					if sc == tu.Choice {
						r.Method = MethodGPOPE
						add(r)
					}
				}
				gpope(MethodGPOPE10x, tu.Choice, 10*tu.Best[tu.Choice])
				gpope(MethodGPOPETenth, tu.Choice, 0.1*tu.Best[tu.Choice])
				if d.LSW == nil {
					continue
				}
				for _, delta := range deltas {
					// Every release's stream is drawn even when it does not run, so the others keep theirs.
					streams := []rand.Source{rand.NewPCG(rng.Uint64(), rng.Uint64())}
					if d.LSL {
						streams = append(streams, rand.NewPCG(rng.Uint64(), rng.Uint64()), rand.NewPCG(rng.Uint64(), rng.Uint64()))
					}
					if !mechanisms.SmoothEpsilonRange.Contains(eps) {
						continue // ε > 1: Lemma 1's constants give no guarantee, so DP-LSW and DP-LSL do not run
					}
					priv := policyeval.PrivacyParams{Epsilon: eps, Delta: delta}
					r, err := policyeval.DPLSW(d.LSW, sig, priv, false, streams[0])
					if err != nil {
						return nil, err
					}
					add(Row{Method: MethodDPLSW, N: n, Epsilon: eps, Delta: delta, Sigma: r.Sigma, MSPBE: d.True.MSPBE(d.lswTheta(r.Theta))})
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
						add(Row{Method: b.name, N: n, Epsilon: eps, Delta: delta, Sigma: r.Sigma, MSPBE: d.True.MSPBE(d.lswTheta(r.Theta))})
					}
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

// StepSweep runs GPOPE at every step of cfg.Steps with each schedule on each trial's fresh private sample of
// size n at privacy ε (the step-size robustness panels): rows with Method MethodGPOPEAtStep, and the
// constant-step runs without noise (MethodGTD2AtStep, recorded at the same ε so Curve finds them) to separate
// the noise's cost from the optimisation's; and per trial the non-private LSTD (WIS-LSTD off-policy) and
// θ = 0. Trial k draws from rand.NewPCG(Seed ^ 0x73776565, k).
func StepSweep(d *Domain, cfg Config, n int, eps float64, progress experiment.Progress) ([]Row, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	T := cfg.Iterations(n)
	z, err := sigmaOverC(cfg.Accounting, n, T, eps, cfg.Delta)
	if err != nil {
		return nil, err
	}
	sigma, seed := z*d.Clip, cfg.Seed^0x7377_6565
	sampling := cfg.Accounting.Sampling()
	res, err := experiment.Trials(cfg.Trials, cfg.Workers, seed, progress, func(trial int, src rand.Source) ([]Row, error) {
		rng := rand.New(src)
		s, err := d.Draw(n, rand.NewPCG(rng.Uint64(), rng.Uint64()))
		if err != nil {
			return nil, err
		}
		var rows []Row
		add := func(r Row) {
			r.N, r.Trial, r.Seed, r.Stream = n, trial, seed, uint64(trial)
			rows = append(rows, r)
		}
		add(Row{Method: MethodZero, MSPBE: d.True.MSPBE(make([]float64, d.Dim()))})
		ls, method := s.Data.LSTD, MethodLSTD
		if d.OffPolicy {
			ls, method = s.Data.WISLSTD, MethodWISLSTD
		}
		th, err := ls(1e-6)
		if err != nil {
			return nil, err
		}
		add(Row{Method: method, MSPBE: d.True.MSPBE(th)})
		for _, a := range cfg.Steps {
			for _, sc := range Schedules {
				th, clipped := run(s.Data, T, sc.StepSize(a, T), d.Clip, sigma, sampling, rand.NewPCG(rng.Uint64(), rng.Uint64()))
				add(Row{Method: MethodGPOPEAtStep, T: T, Epsilon: eps, Delta: cfg.Delta, Schedule: sc.String(), Step: a, Sigma: sigma,
					ClippedShare: clipped, MSPBE: mspbe(d.True, th)})
			}
			th, clipped := run(s.Data, T, policyeval.Constant(a), d.Clip, 0, policyeval.SampleOne, rand.NewPCG(rng.Uint64(), rng.Uint64()))
			add(Row{Method: MethodGTD2AtStep, T: T, Epsilon: eps, Schedule: Constant.String(), Step: a, ClippedShare: clipped, MSPBE: mspbe(d.True, th)})
		}
		return rows, nil
	})
	return slices.Concat(res...), err
}
