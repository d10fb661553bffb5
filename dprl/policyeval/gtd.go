package policyeval

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/dprl-project/dprl/dprl/param"
	"github.com/dprl-project/dprl/mechanisms"
	"github.com/dprl-project/dprl/trajectory"
)

// FeatureTrajectory is a trajectory seen through features and importance ratios: Phi[t] = φ(s_t) for
// t = 0 … H (Phi[H] = 0 when the episode terminated), Rho[t] = π(a_t|s_t)/b(a_t|s_t), R[t] = r_t.
type FeatureTrajectory struct {
	Phi [][]float64
	Rho []float64
	R   []float64
}

// Featurize converts trajectories with recorded behaviour probabilities into feature trajectories for the
// target policy target (nil: on-policy, ρ = 1).
func Featurize(trajs []trajectory.Trajectory, feats trajectory.Features, target trajectory.Policy) ([]FeatureTrajectory, error) {
	if feats == nil {
		return nil, check.Missing("feats", "a feature map")
	}
	d := feats.Dim()
	out := make([]FeatureTrajectory, len(trajs))
	var probs []float64
	if target != nil {
		probs = make([]float64, target.NumActions())
	}
	for i, tr := range trajs {
		if len(tr.Steps) == 0 {
			return nil, check.Missing(fmt.Sprintf("trajs[%d].Steps", i), "at least one step")
		}
		ft := FeatureTrajectory{Phi: make([][]float64, len(tr.Steps)+1), Rho: make([]float64, len(tr.Steps)), R: make([]float64, len(tr.Steps))}
		for t, st := range tr.Steps {
			ft.Phi[t] = feats.Into(make([]float64, d), st.Obs)
			ft.R[t] = st.Reward
			ft.Rho[t] = 1
			if target != nil {
				if st.Action < 0 || st.Action >= len(probs) {
					return nil, check.Errorf(fmt.Sprintf("trajectory %d step %d action", i, t), float64(st.Action), "[0, %d]", len(probs)-1)
				}
				if !(st.Prob > 0) {
					return nil, check.Errorf(fmt.Sprintf("trajs[%d].Steps[%d].Prob", i, t), st.Prob, "(0, 1]: the behaviour probability off-policy ratios divide by")
				}
				target.Probs(probs, st.Obs)
				ft.Rho[t] = probs[st.Action] / st.Prob
			}
		}
		last := tr.Steps[len(tr.Steps)-1]
		ft.Phi[len(tr.Steps)] = make([]float64, d)
		if !last.Terminated {
			feats.Into(ft.Phi[len(tr.Steps)], last.NextObs)
		}
		out[i] = ft
	}
	return out, nil
}

// Moments are the GTD quantities A = E[ρ φ(φ − γφ′)ᵀ], b = E[ρ r φ], C = E[φφᵀ].
type Moments struct {
	A, C *mat.Dense
	B    []float64
}

// SampleMoments estimates the moments from trajectories, weighting every transition equally.
func SampleMoments(trajs []FeatureTrajectory, gamma float64) (*Moments, error) {
	p, err := Prepare(trajs, gamma)
	if err != nil {
		return nil, err
	}
	return p.Moments(), nil
}

// TabularModel is a finite MDP with known dynamics as ModelMoments reads it; *envs.Model is one.
type TabularModel interface {
	// PolicyMatrices returns the state-transition matrix P_π under the policy table pi (rows of terminal
	// states zero) and the expected one-step rewards r_π.
	PolicyMatrices(pi [][]float64) (*mat.Dense, []float64, error)
	// StateDistribution returns the expected visits to each state before termination under pi, discounted
	// by gamma and normalised (terminal states 0).
	StateDistribution(pi [][]float64, gamma float64) ([]float64, error)
	// IsTerminal says whether state s is terminal (its value and features are 0).
	IsTerminal(s int) bool
}

// ModelMoments computes the exact on-policy moments of a tabular model under policy pi with state features
// phi (rows), weighting states by the undiscounted on-policy state distribution.
func ModelMoments(m TabularModel, pi [][]float64, phi *mat.Dense, gamma float64) (*Moments, error) {
	if m == nil {
		return nil, check.Missing("m", "a tabular model")
	}
	dist, err := m.StateDistribution(pi, 1)
	if err != nil {
		return nil, err
	}
	P, r, err := m.PolicyMatrices(pi)
	if err != nil {
		return nil, err
	}
	n, d := phi.Dims()
	A, C := mat.NewDense(d, d, nil), mat.NewDense(d, d, nil)
	b := make([]float64, d)
	for s := range n {
		if dist[s] == 0 {
			continue
		}
		fs := phi.RawRowView(s)
		// expected next features under π: Σ_s′ P(s, s′) φ(s′), terminal states having φ = 0
		next := make([]float64, d)
		for s2 := range n {
			if p := P.At(s, s2); p != 0 && !m.IsTerminal(s2) {
				for j, v := range phi.RawRowView(s2) {
					next[j] += p * v
				}
			}
		}
		for i := range d {
			b[i] += dist[s] * r[s] * fs[i]
			for j := range d {
				A.Set(i, j, A.At(i, j)+dist[s]*fs[i]*(fs[j]-gamma*next[j]))
				C.Set(i, j, C.At(i, j)+dist[s]*fs[i]*fs[j])
			}
		}
	}
	return &Moments{A: A, B: b, C: C}, nil
}

// residual is b − Aθ.
func (mo *Moments) residual(theta []float64) *mat.VecDense {
	res := mat.NewVecDense(len(theta), append([]float64(nil), mo.B...))
	var at mat.VecDense
	at.MulVec(mo.A, mat.NewVecDense(len(theta), theta))
	res.SubVec(res, &at)
	return res
}

// MSPBE is (b − Aθ)ᵀ C⁻¹ (b − Aθ) (C pseudo-inverted if singular).
func (mo *Moments) MSPBE(theta []float64) float64 {
	d := len(theta)
	res := mo.residual(theta)
	var x mat.VecDense
	if err := x.SolveVec(mo.C, res); err != nil {
		var svd mat.SVD
		svd.Factorize(mo.C, mat.SVDThin)
		var xd mat.Dense
		svd.SolveTo(&xd, mat.NewDense(d, 1, res.RawVector().Data), svd.Rank(1e-12))
		x.CloneFromVec(xd.ColView(0))
	}
	return math.Max(mat.Dot(res, &x), 0)
}

// Lagrangian is the GTD2 saddle-point objective L(θ, w) = wᵀ(b − Aθ) − ½ wᵀCw (Xie et al. (2.1)); its
// maximum over w, attained at w*(θ) = C⁻¹(b − Aθ), is ½ MSPBE(θ).
func (mo *Moments) Lagrangian(theta, w []float64) float64 {
	res := mo.residual(theta)
	wv := mat.NewVecDense(len(w), w)
	var cw mat.VecDense
	cw.MulVec(mo.C, wv)
	return mat.Dot(wv, res) - 0.5*mat.Dot(wv, &cw)
}

// DualOptimum is w*(θ) = C⁻¹(b − Aθ), the inner maximiser of the saddle-point objective.
func (mo *Moments) DualOptimum(theta []float64) ([]float64, error) {
	var x mat.VecDense
	if err := x.SolveVec(mo.C, mo.residual(theta)); err != nil {
		return nil, fmt.Errorf("policyeval: C is singular: %w", err)
	}
	return x.RawVector().Data, nil
}

// Solve returns the MSPBE minimiser θ* = A⁻¹b (minimum-norm if A is singular).
func (mo *Moments) Solve() []float64 {
	d := len(mo.B)
	var x mat.VecDense
	if err := x.SolveVec(mo.A, mat.NewVecDense(d, mo.B)); err == nil {
		return x.RawVector().Data
	}
	var svd mat.SVD
	svd.Factorize(mo.A, mat.SVDThin)
	var xd mat.Dense
	svd.SolveTo(&xd, mat.NewDense(d, 1, mo.B), svd.Rank(1e-12))
	return mat.Col(nil, 0, &xd)
}

// LSTD is least-squares TD(0) (Bradtke & Barto 1996; off-policy with per-decision ratios): θ = (Â + εI)⁻¹b̂.
func LSTD(trajs []FeatureTrajectory, gamma, ridge float64) ([]float64, error) {
	if err := check.In("ridge", ridge, param.NonNegative); err != nil {
		return nil, err
	}
	p, err := Prepare(trajs, gamma)
	if err != nil {
		return nil, err
	}
	return p.LSTD(ridge)
}

// WISLSTD is Mahmood, van Hasselt & Sutton's (2014) weighted-importance-sampling LSTD(λ) with λ = 0, as in
// the first author's code: per episode, traces z and the correction terms u, V are reset; per transition
// z ← ρφ, b ← b + r z + (ρ−1)u, A ← A + z(φ − γ′φ′)ᵀ + (ρ−1)V, u ← γ′λ′(ρu + r z) = 0, V ← 0 at λ = 0; so at
// λ = 0 it is LSTD with the importance weight on the features only. ridge initialises A = ridge·I.
func WISLSTD(trajs []FeatureTrajectory, gamma, ridge float64) ([]float64, error) {
	if err := check.In("ridge", ridge, param.NonNegative); err != nil {
		return nil, err
	}
	p, err := Prepare(trajs, gamma)
	if err != nil {
		return nil, err
	}
	return p.WISLSTD(ridge)
}

// StepSize gives α_t.
type StepSize func(t int) float64

// Constant is a constant step size.
func Constant(alpha float64) StepSize { return func(int) float64 { return alpha } }

// Diminishing is α_t = α0/(1 + t/τ).
func Diminishing(alpha0, tau float64) StepSize {
	return func(t int) float64 { return alpha0 / (1 + float64(t)/tau) }
}

// GPOPESampling selects which trajectories a GPOPE step uses.
type GPOPESampling int

const (
	// SampleOne is Xie et al.'s Algorithm 1: each step draws one trajectory uniformly (independently across
	// steps) and adds N(0, σ²I) to its clipped gradient. AccountingTheorem9 and AccountingTight account for it.
	SampleOne GPOPESampling = iota
	// SamplePoisson includes every trajectory independently with probability Rate at each step (a Poisson
	// sample, possibly empty); the step's gradient is the sum of the included clipped gradients plus
	// N(0, σ²I), divided by the expected batch size Rate·n. AccountingPoisson and AccountingPoissonPLD
	// account for it (add/remove neighbours, Δ = C); at Rate = 1/n, AccountingTight bounds it under
	// replace-one too (see GPOPEAccounting).
	SamplePoisson
)

// String names the sampling ("one per step", "Poisson"), or gives GPOPESampling(n) for any other value.
func (s GPOPESampling) String() string {
	switch s {
	case SampleOne:
		return "one per step"
	case SamplePoisson:
		return "Poisson"
	}
	return fmt.Sprintf("GPOPESampling(%d)", int(s))
}

// GPOPEConfig configures Xie et al.'s Algorithm 1. Sigma must be positive: a zero Sigma is an error, not a
// non-private run. NonPrivate (with Sigma = 0) selects the explicitly non-private baseline, episodic GTD2
// (one trajectory per step, all of its transitions, clipped gradients, no noise).
type GPOPEConfig struct {
	Gamma      float64
	Iterations int      // T
	Step       StepSize // α_t
	Clip       float64  // C: the stacked primal–dual gradient is clipped to norm C
	Sigma      float64  // absolute noise standard deviation per coordinate (GPOPESigma computes it), in (0, ∞)
	NonPrivate bool     // run without noise (Sigma must then be 0): not private
	// Sampling selects the trajectories of a step (zero value: SampleOne, the paper's); Rate is the Poisson
	// inclusion probability q in (0, 1] (0: 1/n, an expected batch of exactly one trajectory, which treats n
	// as public, as DP-SGD practice does; under add/remove, a caller who keeps n private sets Rate and so the
	// divisor q·n from a public size). Rate must be 0 with SampleOne.
	Sampling GPOPESampling
	Rate     float64
	Src      rand.Source
	// Trace, if set, sees the norm of every sampled trajectory's gradient before clipping (e.g. to count
	// clipped gradients): once per step with SampleOne, once per included trajectory with SamplePoisson. The
	// data are checked finite; a gradient whose entries still overflow to ±Inf or NaN (a diverging iterate)
	// shows as a non-finite norm and is dropped: set to zero, the noise still added.
	Trace func(t int, gradNorm float64)
	// Iterate, if set, sees the iterate x_{t+1} = [θ; w] after every step (the privacy accounting covers
	// every iterate; auditing uses this). The slices are reused: copy what you keep.
	Iterate func(t int, theta, w []float64)
}

// Gradient writes the stacked primal–dual gradient of one trajectory at x = [θ; w] into g (length 2d):
// g = [−Âᵀw; Âθ − b̂ + Ĉw] with Â, b̂, Ĉ the averages over the trajectory's transitions (Xie et al. (2.2),
// (4.1)).
func Gradient(g []float64, tr FeatureTrajectory, gamma float64, theta, w []float64) {
	d := len(theta)
	H := float64(len(tr.R))
	clear(g)
	gt, gw := g[:d], g[d:]
	for k := range tr.R {
		phi, next := tr.Phi[k], tr.Phi[k+1]
		rho := tr.Rho[k]
		// (φ − γφ′)ᵀθ, φᵀw
		var dt, pw float64
		for i, p := range phi {
			dt += (p - gamma*next[i]) * theta[i]
			pw += p * w[i]
		}
		for i, p := range phi {
			// −Âᵀw = −(1/H) Σ ρ (φ − γφ′)(φᵀw)
			gt[i] -= rho * (p - gamma*next[i]) * pw / H
			// Âθ − b̂ + Ĉw = (1/H) Σ [ρ φ (φ − γφ′)ᵀθ − ρ r φ + φ φᵀw]
			gw[i] += (rho*p*dt - rho*tr.R[k]*p + p*pw) / H
		}
	}
}

// GPOPE runs Algorithm 1 on n trajectories: at each step one trajectory is drawn uniformly (with
// replacement across steps), its per-trajectory estimates Â, b̂, Ĉ (averages over its transitions) give the
// stacked gradient g = [−Âᵀw; Âθ − b̂ + Ĉw], which is clipped to norm C, noised with N(0, σ²I_{2d}) and
// descended: x ← x − α_t g̃. It returns θ_T (the last iterate). With Sampling = SamplePoisson a step uses the
// trajectories of a Poisson sample instead: g̃ = (Σ_{i∈B} clip(g_i) + N(0, σ²I_{2d}))/(q·n). GPOPE prepares
// the data (Prepare) and runs Prepared.GPOPE; to run several configurations on the same data, prepare once.
func GPOPE(trajs []FeatureTrajectory, cfg GPOPEConfig) ([]float64, error) {
	if len(trajs) == 0 {
		return nil, check.Missing("trajs", "at least one trajectory")
	}
	if err := cfg.check(); err != nil {
		return nil, err
	}
	p, err := Prepare(trajs, cfg.Gamma)
	if err != nil {
		return nil, err
	}
	return p.GPOPE(cfg)
}

// check validates everything in the configuration but the data.
func (cfg *GPOPEConfig) check() error {
	switch {
	case cfg.Iterations < 0:
		return check.AtLeast("Iterations", cfg.Iterations, 0)
	case !(cfg.Gamma >= 0 && cfg.Gamma <= 1):
		return check.In("Gamma", cfg.Gamma, param.Probability)
	case !(cfg.Clip > 0) || math.IsInf(cfg.Clip, 1):
		return check.In("Clip", cfg.Clip, param.Positive)
	case cfg.NonPrivate && cfg.Sigma != 0:
		return check.Errorf("Sigma", cfg.Sigma, "{0} with NonPrivate")
	case !cfg.NonPrivate && !param.Positive.Contains(cfg.Sigma):
		return check.Errorf("Sigma", cfg.Sigma, "(0, ∞) (set NonPrivate for the noiseless baseline)")
	case cfg.Step == nil:
		return check.Missing("Step", "a step-size schedule")
	case cfg.Src == nil:
		return check.Missing("Src", "a rand.Source")
	case cfg.Sampling != SampleOne && cfg.Sampling != SamplePoisson:
		return check.Int("Sampling", int(cfg.Sampling), int(SampleOne), int(SamplePoisson))
	case cfg.Sampling == SampleOne && cfg.Rate != 0:
		return check.Errorf("Rate", cfg.Rate, "{0} with SampleOne (a rate is for SamplePoisson)")
	case cfg.Sampling == SamplePoisson && cfg.Rate != 0 && !samplingRate.Contains(cfg.Rate):
		return check.In("Rate", cfg.Rate, samplingRate)
	}
	return nil
}

// GPOPE runs Algorithm 1 (see the function GPOPE) on the prepared data; cfg.Gamma must be the data's
// discount (Prepared.Gamma). A step draws the trajectory index, then the noise of θ's d coordinates and of
// w's, from one stream: x ← x − α_t·(clip(g_i(x)) + z) with x = [θ; w].
func (p *Prepared) GPOPE(cfg GPOPEConfig) ([]float64, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	if cfg.Gamma != p.gamma {
		return nil, check.Errorf("Gamma", cfg.Gamma, "{%g}: the discount the data were prepared with", p.gamma)
	}
	d, n := p.d, len(p.trajs)
	rng := rand.New(cfg.Src)
	x := make([]float64, 2*d) // [θ; w]
	g := make([]float64, 2*d)
	var sum []float64 // SamplePoisson: the sum of the included clipped gradients
	q, batch := cfg.Rate, 1.0
	if cfg.Sampling == SamplePoisson {
		if q == 0 {
			q = 1 / float64(n) // the expected batch is 1 exactly
		} else {
			batch = q * float64(n)
		}
		sum = make([]float64, 2*d)
	}
	for t := range cfg.Iterations {
		if cfg.Sampling == SampleOne {
			p.Gradient(g, rng.IntN(n), x)
			norm := mechanisms.ClipToNorm(g, cfg.Clip) // a non-finite g (overflow) is zeroed: the step is noise only
			if cfg.Trace != nil {
				cfg.Trace(t, norm)
			}
		} else {
			clear(sum)
			for i := poissonNext(rng, -1, q); i < n; i = poissonNext(rng, i, q) {
				p.Gradient(g, i, x)
				norm := mechanisms.ClipToNorm(g, cfg.Clip)
				if cfg.Trace != nil {
					cfg.Trace(t, norm)
				}
				floats.Add(sum, g)
			}
			copy(g, sum)
		}
		// The Gaussian mechanism on the clipped g or the clipped sum (one trajectory's part has norm ≤ C:
		// Δ = 2C replace-one or C add/remove, as GPOPEEpsilon accounts), on the stream that also samples the
		// trajectories (NonPrivate: σ = 0, the same draws).
		a := cfg.Step(t) / batch
		for j := range x {
			x[j] -= a * mechanisms.AddGaussian(g[j], cfg.Sigma, rng)
		}
		if math.IsNaN(x[0]) || math.IsInf(x[0], 0) {
			return nil, fmt.Errorf("policyeval: GPOPE diverged at iteration %d (step size too large)", t)
		}
		if cfg.Iterate != nil {
			cfg.Iterate(t, x[:d], x[d:])
		}
	}
	return x[:d:d], nil
}

// poissonNext is the next index after i included by independent coin flips with probability q (a geometric
// skip, one uniform draw per included index plus one that ends the step).
func poissonNext(rng *rand.Rand, i int, q float64) int {
	if q >= 1 {
		return i + 1
	}
	skip := math.Floor(math.Log(1-rng.Float64()) / math.Log1p(-q))
	if skip > math.MaxInt32 {
		return math.MaxInt
	}
	return i + 1 + int(skip)
}

// samplingRate is (0, 1], the range of a Poisson inclusion probability.
var samplingRate = param.Interval{Lo: 0, Hi: 1, HiClosed: true}

// featureDim checks the feature trajectories (checkFeatureTrajectories) and returns their dimension.
func featureDim(trajs []FeatureTrajectory) (int, error) {
	if len(trajs) == 0 {
		return 0, check.Missing("trajs", "at least one trajectory")
	}
	if len(trajs[0].Phi) == 0 || len(trajs[0].Phi[0]) == 0 {
		return 0, check.Missing("trajs[0].Phi", "feature vectors with at least one entry")
	}
	d := len(trajs[0].Phi[0])
	return d, checkFeatureTrajectories(trajs, d)
}

// checkFeatureTrajectories refuses ragged or non-finite data, naming the trajectory: a NaN reward would
// otherwise reach the private iterate through the clipping.
func checkFeatureTrajectories(trajs []FeatureTrajectory, d int) error {
	for i, tr := range trajs {
		if len(tr.Phi) != len(tr.R)+1 || len(tr.Rho) != len(tr.R) || len(tr.R) == 0 {
			return check.Errorf(fmt.Sprintf("len(trajs[%d].Phi)", i), float64(len(tr.Phi)),
				"H+1 with len(Rho) = len(R) = H ≥ 1 (here len(Rho) = %d, len(R) = %d)", len(tr.Rho), len(tr.R))
		}
		for t, r := range tr.R {
			if math.IsNaN(r) || math.IsInf(r, 0) || math.IsNaN(tr.Rho[t]) || math.IsInf(tr.Rho[t], 0) {
				return check.Errorf(fmt.Sprintf("trajectory %d step %d reward/ratio", i, t), r+tr.Rho[t], "finite")
			}
		}
		for t, phi := range tr.Phi {
			if len(phi) != d {
				return check.Int(fmt.Sprintf("len(trajectory %d Phi[%d])", i, t), len(phi), d, d)
			}
			for _, v := range phi {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return check.Errorf(fmt.Sprintf("trajectory %d Phi[%d]", i, t), v, "finite")
				}
			}
		}
	}
	return nil
}

// GPOPEAccounting selects how GPOPE's noise is calibrated. Each accounting is about one sampling scheme and
// one neighbouring relation; it states the privacy of a run only when the run uses that sampling
// (GPOPEConfig.Sampling, as Sampling reports).
type GPOPEAccounting int

const (
	// AccountingTheorem9 is a conservative bound: one trajectory of n per step sampled without replacement
	// (SampleOne), replace-one neighbours, sensitivity Δ = 2C; RDP by Wang, Balle & Kasiviswanathan's
	// general Theorem 9, which Xie et al.'s proof cites, with all its terms (their Lemma 1 drops the O(q³)
	// ones). Valid, but it has a noise-independent floor for the Gaussian and is never below AccountingTight.
	AccountingTheorem9 GPOPEAccounting = iota
	// AccountingPoisson is the common alternative: Poisson sampling with rate 1/n (SamplePoisson), add/remove
	// neighbours, sensitivity Δ = C; RDP of the subsampled Gaussian (Mironov et al. 2019).
	AccountingPoisson
	// AccountingTight is the same run as AccountingTheorem9 (SampleOne, replace-one, Δ = 2C) with the tightest
	// valid bound the library has for it: Wang, Balle & Kasiviswanathan's Theorem 27 for the subsampled Gaussian
	// (no floor). It also bounds SamplePoisson at rate 1/n under replace-one: conditioned on the other
	// trajectories' sum s, the two outputs are (1 − q)N(s, σ²) + qN(s + g, σ²) and the same with g′, and by
	// the joint convexity of exp((α − 1)D_α) the Rényi divergence is at most that of one step of SampleOne
	// on a dataset whose other gradients are 0.
	AccountingTight
	// AccountingPoissonPLD is AccountingPoisson's run (SamplePoisson at rate 1/n, add/remove, Δ = C) with the
	// privacy-loss-distribution accountant (mechanisms.PLDAccountant, default grid): exact up to its
	// pessimistic discretisation, and far below the RDP bound at small noise multipliers.
	AccountingPoissonPLD
)

// String describes the accounting, or gives GPOPEAccounting(n) for any other value.
func (a GPOPEAccounting) String() string {
	switch a {
	case AccountingTheorem9:
		return "without replacement, replace-one, Δ = 2C (WBK Theorem 9, conservative bound)"
	case AccountingPoisson:
		return "Poisson, add/remove, Δ = C (RDP)"
	case AccountingTight:
		return "without replacement, replace-one, Δ = 2C (WBK Theorem 27)"
	case AccountingPoissonPLD:
		return "Poisson, add/remove, Δ = C (PLD)"
	}
	return fmt.Sprintf("GPOPEAccounting(%d)", int(a))
}

// Sampling is the GPOPEConfig.Sampling whose runs the accounting is about.
func (a GPOPEAccounting) Sampling() GPOPESampling {
	if a == AccountingPoisson || a == AccountingPoissonPLD {
		return SamplePoisson
	}
	return SampleOne
}

// GPOPEEpsilon is the ε at δ of T steps with noise σ (absolute) and clip C on n trajectories: improved RDP
// conversion over the orders given (nil: dpa_default), or the PLD accountant for AccountingPoissonPLD
// (orders unused).
func GPOPEEpsilon(acc GPOPEAccounting, n, T int, sigma, clip, delta float64, orders []float64) (float64, error) {
	if err := param.First(check.AtLeast("n", n, 1), check.AtLeast("T", T, 0), check.In("sigma", sigma, param.Positive),
		check.In("clip", clip, param.Positive), check.In("delta", delta, param.OpenUnit),
		check.Int("acc", int(acc), int(AccountingTheorem9), int(AccountingPoissonPLD))); err != nil {
		return 0, err
	}
	if acc == AccountingPoissonPLD {
		a, err := mechanisms.NewPLDAccountant(mechanisms.PLDParams{})
		if err != nil {
			return 0, err
		}
		if err := a.Compose(mechanisms.PoissonSampled{Q: 1 / float64(n), Event: mechanisms.GaussianEvent{NoiseMultiplier: sigma / clip}}, T); err != nil {
			return 0, err
		}
		return a.Epsilon(delta)
	}
	a, err := mechanisms.NewRDPAccountant(orders, mechanisms.ConversionImproved)
	if err != nil {
		return 0, err
	}
	var ev mechanisms.Event
	switch acc {
	case AccountingTheorem9, AccountingTight:
		ev = mechanisms.SampledWithoutReplacement{N: n, Batch: 1, Event: mechanisms.GaussianEvent{NoiseMultiplier: sigma / (2 * clip)},
			GeneralBound: acc == AccountingTheorem9}
	default:
		ev = mechanisms.PoissonSampled{Q: 1 / float64(n), Event: mechanisms.GaussianEvent{NoiseMultiplier: sigma / clip}}
	}
	if err := a.Compose(ev, T); err != nil {
		return 0, err
	}
	return a.Epsilon(delta)
}

// GPOPESigma is the smallest absolute noise σ for which T steps on n trajectories are (ε, δ)-DP under the
// chosen accounting, to within a relative 1e−9 of ε (the PLD accountant, whose every evaluation composes T
// distributions: 0.1%), never above it. It fails when no σ ≤ 10⁴·C reaches ε: Wang, Balle &
// Kasiviswanathan's Theorem 9 (AccountingTheorem9) has a noise-independent floor for the Gaussian (its
// min{2, (e^{ε(∞)} − 1)^j} terms are 2 since ε(∞) = ∞), e.g. ε ≥ 0.22 for n = T = 100 and ε ≥ 0.10 for
// n = 1000, T = 10⁴ at δ = 1e−5.
func GPOPESigma(acc GPOPEAccounting, n, T int, eps, delta, clip float64, orders []float64) (float64, error) {
	if err := param.First(check.In("epsilon", eps, param.Positive), check.In("clip", clip, param.Positive),
		check.AtLeast("n", n, 1), check.AtLeast("T", T, 1), check.In("delta", delta, param.OpenUnit),
		check.Int("acc", int(acc), int(AccountingTheorem9), int(AccountingPoissonPLD))); err != nil {
		return 0, err
	}
	epsAt := func(z float64) (float64, error) {
		e, err := GPOPEEpsilon(acc, n, T, z, 1, delta, orders)
		var g *mechanisms.GridError
		if errors.As(err, &g) {
			return math.Inf(1), nil // too little noise for the PLD grid: above any target
		}
		return e, err
	}
	start, tol := 1.0, 1e-9
	if acc == AccountingPoissonPLD {
		// The RDP calibration of the same run is an upper bound on the PLD one, and close to it.
		z, err := GPOPESigma(AccountingPoisson, n, T, eps, delta, 1, orders)
		if err != nil {
			return 0, err
		}
		start, tol = z, 1e-3
	}
	z, err := calibrateLog(epsAt, eps, start, 1e-4, 1e4, tol)
	if err != nil {
		return 0, check.Errorf("epsilon", eps, "a target the %s accountant reaches with σ ≤ 1e4·C (n = %d, T = %d): %v", acc, n, T, err)
	}
	return z * clip, nil
}

// calibrateLog returns the smallest z in [lo, hi] with epsAt(z) ≤ target, to within a relative tol of
// the target from below (or lo when epsAt(lo) ≤ target), for a decreasing epsAt: it brackets the root of
// f(z) = log epsAt(z) − log target from start by doubling and halving, then runs regula falsi with the
// Illinois modification on (log z, f), which converges in a few evaluations where ε is close to a power
// of σ. The z returned always has f(z) ≤ 0: ε at most the target.
func calibrateLog(epsAt func(z float64) (float64, error), target, start, lo, hi, tol float64) (float64, error) {
	f := func(z float64) (float64, error) {
		e, err := epsAt(z)
		return math.Log(e) - math.Log(target), err
	}
	b := math.Min(math.Max(start, lo), hi)
	fb, err := f(b)
	for ; err == nil && fb > 0; fb, err = f(b) {
		if b == hi {
			return 0, fmt.Errorf("ε = %g at σ/C = %g", target*math.Exp(fb), hi)
		}
		b = math.Min(2*b, hi)
	}
	if err != nil {
		return 0, err
	}
	a := b / 2
	fa, err := f(a)
	for ; err == nil && fa <= 0; fa, err = f(a) {
		if b, fb = a, fa; a == lo {
			return lo, nil
		}
		a = math.Max(a/2, lo)
	}
	if err != nil {
		return 0, err
	}
	// f(a) > 0 ≥ f(b), a < b; stop once ε(b) is within tol below the target or the bracket cannot shrink.
	// wa and wb are the ends' weights in the interpolation: f there, halved by the Illinois rule when the
	// same end has stayed twice.
	wa, wb, side := fa, fb, 0
	for fb < math.Log1p(-tol) && b/a > 1+1e-13 {
		mid := math.Sqrt(a * b)
		if !math.IsInf(wa, 1) {
			mid = math.Exp((math.Log(a)*wb - math.Log(b)*wa) / (wb - wa))
		}
		if !(mid > a && mid < b) {
			mid = math.Sqrt(a * b)
		}
		fm, err := f(mid)
		if err != nil {
			return 0, err
		}
		if fm <= 0 {
			b, fb, wb = mid, fm, fm
			if side == -1 {
				wa /= 2
			}
			side = -1
		} else {
			a, wa = mid, fm
			if side == 1 {
				wb /= 2
			}
			side = 1
		}
	}
	return b, nil
}
