package fnq

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/floats"

	"github.com/dprl-project/dprl/dprl/nn"
	"github.com/dprl-project/dprl/dprl/param"
	"github.com/dprl-project/dprl/envs"
	"github.com/dprl-project/dprl/mechanisms"
)

// check rejects values on behalf of this package.
const check param.Checker = "fnq"

// Method selects the learner of Run.
type Method int

const (
	// NonPrivate is DQN as in the authors' code.
	NonPrivate Method = iota
	// FunctionalNoise adds an OU path per action to the policy network's and the target network's outputs
	// (each with its own paths), as the authors' code does.
	FunctionalNoise
	// InputPerturbation adds N(0, σ_r²) to every observed reward before it is stored (Venkitasubramaniam
	// 2013): T rewards of sensitivity 1, so the run is √T/σ_r-GDP and everything after is post-processing.
	InputPerturbation
	// DPSGD clips every example's gradient to Clip and adds noise for a sum sensitivity of 2·Batch·Clip: every
	// reward may differ, so no amplification by subsampling (Abadi et al. 2016 as Wang & Hegde apply it).
	DPSGD
)

// String names the method ("non-private DQN", "functional noise", …), or gives Method(n) for any other value.
func (m Method) String() string {
	switch m {
	case FunctionalNoise:
		return "functional noise"
	case InputPerturbation:
		return "input perturbation"
	case DPSGD:
		return "DP-SGD"
	case NonPrivate:
		return "non-private DQN"
	}
	return fmt.Sprintf("Method(%d)", int(m))
}

// Config is the DQN loop of Wang & Hegde's released code (package doc, "The released code") with the method's noise;
// zero fields take the code's values.
type Config struct {
	Method     Method
	Episodes   int     // 100 (50 samples each)
	Gamma      float64 // 0.999
	Hidden     []int   // {16, 16}, ReLU
	LR         float64 // RMSprop learning rate, 0.01
	Batch      int     // 128, sampled from the replay memory at every environment step
	ReplaySize int     // 10 000
	// ε-greedy exploration: EpsEnd + (EpsStart − EpsEnd)·exp(−steps/EpsDecay): 0.9, 0.05, 200.
	EpsStart, EpsEnd, EpsDecay float64
	TargetEvery                int     // episodes between target-network copies: 10
	GradClamp                  float64 // gradient entries clamped to ±GradClamp: 1
	// FunctionalNoise: path σ and β (the code: β = 1) and the episodes between path resets (the code: 1,
	// i.e. J = number of episodes; −1: never reset, J = 1).
	Sigma, Beta float64
	ResetEvery  int
	RewardSigma float64 // InputPerturbation's σ_r
	// DPSGD: per-example clip C_g and z, the noise multiplier relative to the sum's sensitivity 2·Batch·C_g.
	Clip, Z float64
	// MaxEpisodeLen cuts an episode after this many steps (treated as terminal, like the environment's own
	// time limit), so an environment without one cannot make a run endless: 50, the E.1 MDP's horizon.
	MaxEpisodeLen int
	Src           rand.Source
}

func (c *Config) defaults() error {
	orDefault(&c.Episodes, 100)
	orDefault(&c.Gamma, 0.999)
	if c.Hidden == nil {
		c.Hidden = []int{16, 16}
	}
	orDefault(&c.LR, 0.01)
	orDefault(&c.Batch, 128)
	orDefault(&c.ReplaySize, 10000)
	orDefault(&c.EpsStart, 0.9)
	orDefault(&c.EpsEnd, 0.05)
	orDefault(&c.EpsDecay, 200)
	orDefault(&c.TargetEvery, 10)
	orDefault(&c.GradClamp, 1)
	orDefault(&c.Beta, 1)
	orDefault(&c.ResetEvery, 1)
	orDefault(&c.MaxEpisodeLen, 50)
	if c.Src == nil {
		return check.Missing("Src", "an explicit rand.Source for every run")
	}
	// A private method always adds noise: its noise level must be positive (NonPrivate is the noiseless
	// learner, selected explicitly).
	var err error
	switch c.Method {
	case NonPrivate:
	case FunctionalNoise:
		err = param.First(check.In("Sigma", c.Sigma, param.Positive), check.In("Beta", c.Beta, param.Positive))
	case InputPerturbation:
		err = check.In("RewardSigma", c.RewardSigma, param.Positive)
	case DPSGD:
		err = param.First(check.In("Clip", c.Clip, param.Positive), check.In("Z", c.Z, param.Positive))
		if err == nil && math.IsInf(2*float64(c.Batch)*c.Z, 1) { // the aggregation's noise multiplier
			err = check.Errorf("Z", c.Z, "(0, ∞) with 2·Batch·Z finite")
		}
	default:
		err = check.Errorf("Method", float64(c.Method), "{NonPrivate, FunctionalNoise, InputPerturbation, DPSGD}")
	}
	if err != nil {
		return err
	}
	return param.First(check.In("Gamma", c.Gamma, param.Probability),
		check.AtLeast("Episodes", c.Episodes, 1), check.AtLeast("MaxEpisodeLen", c.MaxEpisodeLen, 1), check.AtLeast("Batch", c.Batch, 1),
		check.AtLeast("ReplaySize", c.ReplaySize, c.Batch), check.AtLeast("TargetEvery", c.TargetEvery, 1),
		check.In("LR", c.LR, param.Positive), check.In("EpsDecay", c.EpsDecay, param.Positive),
		check.In("EpsStart", c.EpsStart, param.Probability), check.In("EpsEnd", c.EpsEnd, param.Probability),
		check.In("GradClamp", c.GradClamp, param.Positive), hiddenSizes(c.Hidden))
}

// hiddenSizes checks the hidden-layer widths.
func hiddenSizes(h []int) error {
	for i, s := range h {
		if err := check.AtLeast(fmt.Sprintf("Hidden[%d]", i), s, 1); err != nil {
			return err
		}
	}
	return nil
}

// orDefault sets *p to v if it is zero (a Config field left unset).
func orDefault[T int | float64](p *T, v T) {
	if *p == 0 {
		*p = v
	}
}

// Released is a noised value function Q̃_a(s) = Q_θ(s, a) + g_a(s): its paths are sampled lazily and kept,
// so any number of queries, repeated or not, are answered consistently. Its network and paths are fixed
// when the run makes it: no field can be set to drop the noise.
type Released struct {
	net   *nn.MLP
	paths []*mechanisms.OUPath // nil: no functional noise
	ws    *nn.Workspace
}

// Value is Q̃_a(s) for a one-dimensional state s.
func (q *Released) Value(s float64, a int) float64 {
	if q.ws == nil {
		q.ws = nn.NewWorkspace(q.net, 1)
	}
	v := q.ws.Forward(q.net, []float64{s})[a]
	if q.paths != nil {
		v += q.paths[a].At(s)
	}
	return v
}

// Noised reports whether the function carries functional noise (false for the methods that add none).
func (q *Released) Noised() bool { return q.paths != nil }

// Network is the trained network Q_θ without the functional noise. For the functional-noise method it is
// not private on its own (only Q_θ + g is): it is for audits, diagnostics and simulations.
func (q *Released) Network() *nn.MLP { return q.net }

// Path is action a's noise path g_a (nil when the function carries no noise). Querying it draws the same
// values Value adds.
func (q *Released) Path(a int) *mechanisms.OUPath {
	if q.paths == nil {
		return nil
	}
	return q.paths[a]
}

// Result is a run's episode returns (true rewards, whatever the method saw) and the released function.
type Result struct {
	Returns []float64
	Samples int // environment steps taken
	Updates int // gradient steps taken (DP-SGD's accounting counts these)
	// Dropped counts DP-SGD's per-example gradients left out for a NaN or infinite entry (each contributes
	// zero, which keeps the sensitivity).
	Dropped int
	// Diverged says the trained network has a parameter that is not finite (NaN or ±Inf): the run diverged,
	// whatever its returns (which count the environment's rewards and stay finite).
	Diverged bool
	Released *Released
}

// diverged reports whether a parameter of net is not finite.
func diverged(net *nn.MLP) bool {
	for _, blocks := range [][][]float64{net.W, net.B} {
		for _, b := range blocks {
			for _, v := range b {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return true
				}
			}
		}
	}
	return false
}

// noisyNet is a network plus optional OU paths added to its outputs.
type noisyNet struct {
	net   *nn.MLP
	paths []*mechanisms.OUPath
}

// pathCache keeps, per replay entry, the paths' values at one of its states (the state for the policy's
// paths, the next state for the target's) since the paths were last reset: a stored state is queried again
// and again while it is in the buffer, and a path returns the stored value for a point it has seen, so the
// cache returns exactly what the path would, without searching it (the path draws only at new points, so the
// noise stream is the same). An entry overwritten in the buffer is forgotten.
type pathCache struct {
	gen []uint32  // per entry: the generation of its values (0: none)
	z   []float64 // per entry: one value per path
	cur uint32    // the paths' generation: increased at every reset
}

func newPathCache(entries, m int) *pathCache {
	return &pathCache{gen: make([]uint32, entries), z: make([]float64, entries*m), cur: 1}
}

// forwardAt is forward for the batch x whose point i is (a state of) replay entry idx[i], reading the paths
// through c.
func (q noisyNet) forwardAt(ws *nn.Workspace, x []float64, idx []int, c *pathCache) []float64 {
	if q.paths == nil {
		return ws.Forward(q.net, x)
	}
	out := ws.Forward(q.net, x)
	m := len(q.paths)
	for i, j := range idx {
		z := c.z[j*m : (j+1)*m]
		if c.gen[j] != c.cur {
			for a, p := range q.paths {
				z[a] = p.At(x[i])
			}
			c.gen[j] = c.cur
		}
		for a := range z {
			out[i*m+a] += z[a]
		}
	}
	return out
}

// forward writes Q(s_i, ·) + g(s_i) for the batch x (1-D states) and returns the n × m outputs.
func (q noisyNet) forward(ws *nn.Workspace, x []float64) []float64 {
	out := ws.Forward(q.net, x)
	if q.paths != nil {
		m := len(q.paths)
		for i, s := range x {
			for a, p := range q.paths {
				out[i*m+a] += p.At(s)
			}
		}
	}
	return out
}

// Run trains on a one-dimensional-state environment (Wang & Hegde's MDP: envs.NewWangHegde in a 50-step
// TimeLimit) with the configured method.
func Run(env envs.Env, cfg Config) (*Result, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	if env == nil {
		return nil, check.Missing("env", "an environment")
	}
	if d := len(env.ObservationSpace().Low); d != 1 {
		return nil, check.Errorf("env.ObservationSpace().Dim()", float64(d), "[1, 1]: the functional mechanism here needs one-dimensional states")
	}
	rng := rand.New(cfg.Src)
	// Separate streams for the network, the two path sets and the mechanisms' noise, drawn whatever the
	// method, so that every method sees the same network initialisation and exploration.
	netSrc := rand.NewPCG(rng.Uint64(), rng.Uint64())
	pathSrc := [2]rand.Source{rand.NewPCG(rng.Uint64(), rng.Uint64()), rand.NewPCG(rng.Uint64(), rng.Uint64())}
	noiseSrc := rand.NewPCG(rng.Uint64(), rng.Uint64())
	m := env.NumActions()
	sizes := append(append([]int{1}, cfg.Hidden...), m)
	net, err := nn.NewMLP(sizes, nn.ReLU, netSrc)
	if err != nil {
		return nil, err
	}
	policy, target := noisyNet{net: net}, noisyNet{net: net.Clone()}
	if cfg.Method == FunctionalNoise {
		if policy.paths, err = mechanisms.NewOUPaths(m, cfg.Sigma, cfg.Beta, pathSrc[0]); err != nil {
			return nil, err
		}
		if target.paths, err = mechanisms.NewOUPaths(m, cfg.Sigma, cfg.Beta, pathSrc[1]); err != nil {
			return nil, err
		}
	}
	buf, err := nn.NewReplay(cfg.ReplaySize, 1)
	if err != nil {
		return nil, err
	}
	opt := &nn.RMSprop{LR: cfg.LR}
	ws1, wsB, wsT := nn.NewWorkspace(net, 1), nn.NewWorkspace(net, cfg.Batch), nn.NewWorkspace(net, cfg.Batch)
	g := nn.NewGrads(net)
	idx := make([]int, cfg.Batch)
	xs, xs2 := make([]float64, cfg.Batch), make([]float64, cfg.Batch)
	acts, targets := make([]int, cfg.Batch), make([]float64, cfg.Batch)
	dOut := make([]float64, cfg.Batch*m)
	norms := make([]float64, cfg.Batch)
	// The private methods' noise, from noiseSrc: the rewards' Gaussian mechanism or DP-SGD's aggregation.
	var rewardNoise *mechanisms.Gaussian
	var dp *mechanisms.DPSGD
	switch cfg.Method {
	case InputPerturbation:
		if rewardNoise, err = mechanisms.NewGaussian(cfg.RewardSigma, noiseSrc); err != nil {
			return nil, err
		}
	case DPSGD:
		if dp, err = mechanisms.NewDPSGD(mechanisms.DPSGDParams{Clip: cfg.Clip, NoiseMultiplier: 2 * float64(cfg.Batch) * cfg.Z, Src: noiseSrc}); err != nil {
			return nil, err
		}
	}
	res := &Result{}
	state := []float64{0}
	atState, atNext := newPathCache(cfg.ReplaySize, m), newPathCache(cfg.ReplaySize, m)
	for ep := range cfg.Episodes {
		if policy.paths != nil && (ep == 0 || cfg.ResetEvery > 0 && ep%cfg.ResetEvery == 0) {
			for _, p := range append(append([]*mechanisms.OUPath(nil), policy.paths...), target.paths...) {
				p.Reset()
			}
			atState.cur++
			atNext.cur++
		}
		obs, err := env.Reset(rand.NewPCG(rng.Uint64(), rng.Uint64()))
		if err != nil {
			return nil, err
		}
		state[0] = obs[0]
		ret := 0.0
		for t := 1; ; t++ {
			thr := cfg.EpsEnd + (cfg.EpsStart-cfg.EpsEnd)*math.Exp(-float64(res.Samples)/cfg.EpsDecay)
			res.Samples++
			var a int
			if rng.Float64() > thr {
				a = floats.MaxIdx(policy.forward(ws1, state))
			} else {
				a = rng.IntN(m)
			}
			st, err := env.Step(a)
			if err != nil {
				return nil, err
			}
			ret += st.Reward
			r := st.Reward
			if rewardNoise != nil {
				r = rewardNoise.Release(r)
			}
			done := st.Terminated || st.Truncated || t >= cfg.MaxEpisodeLen // the code treats the 50-step limit as terminal
			buf.Add(state, a, r, st.Obs, done)
			w := (res.Samples - 1) % cfg.ReplaySize // the entry just written
			atState.gen[w], atNext.gen[w] = 0, 0
			state[0] = st.Obs[0]
			if buf.Len() >= cfg.Batch {
				buf.Sample(cfg.Batch, rng, idx)
				for i, j := range idx {
					xs[i], xs2[i], acts[i] = buf.State(j)[0], buf.Next(j)[0], buf.A[j]
				}
				next := target.forwardAt(wsT, xs2, idx, atNext)
				for i, j := range idx {
					targets[i] = buf.R[j]
					if !buf.Done[j] {
						targets[i] += cfg.Gamma * floats.Max(next[i*m:(i+1)*m])
					}
				}
				out := policy.forwardAt(wsB, xs, idx, atState)
				nn.SelectedLoss(nn.Huber{}, out, m, acts, targets, dOut)
				wsB.Backward(net, dOut)
				if dp != nil {
					_, dropped, err := wsB.PrivateGradient(net, dp, g, norms)
					if err != nil {
						return nil, err
					}
					res.Dropped += dropped
				} else {
					wsB.Gradient(net, nil, g)
					g.Scale(1 / float64(cfg.Batch))
				}
				g.ClampElements(cfg.GradClamp)
				opt.Step(net, g)
				res.Updates++
			}
			if done {
				break
			}
		}
		res.Returns = append(res.Returns, ret)
		if (ep+1)%cfg.TargetEvery == 0 {
			target.net.CopyFrom(net)
		}
	}
	res.Released = &Released{net: net, paths: policy.paths}
	res.Diverged = diverged(net)
	return res, nil
}

// SpecifiedConfig is Algorithm 1 as written (package doc, "Algorithm 1", with its typo fixes: t = jB + b, a descent
// step, the released function is Q + g): T′ = T/B plain SGD steps, each on the B fresh samples just taken,
// no replay memory and no target network, one OU path per action with β = 1/v from the calibration, reset
// every T′/J steps, σ from Theorem 5 (or the exact GDP σ).
type SpecifiedConfig struct {
	Calibration
	UseGDPSigma bool    // σ = Constants.SigmaGDP instead of Theorem 5's
	Gamma       float64 // 0 means 0.999
	Hidden      []int   // nil means {16, 16}
	Explore     float64 // probability of a uniformly random action (post-processing of Q̃)
	// NoGuarantee runs a configuration that has no privacy guarantee at the σ used (see
	// SpecifiedResult.Guaranteed); the result then says Guaranteed = false. Without it RunSpecified refuses
	// such a configuration with an error naming the parameter at fault (K, or Epsilon).
	NoGuarantee bool
	// Noiseless runs the same algorithm without paths (σ = 0): the non-private reference, never
	// Guaranteed. The random draws are those of the noisy run, so both start from the same network.
	Noiseless bool
	Src       rand.Source
}

// SpecifiedResult adds the calibration and the Lipschitz bound of the trained network. Theorem 5 assumes the
// network stays L-Lipschitz, which the paper's algorithm does not enforce; RunSpecified enforces it: after
// every SGD step whose network's spectral-norm product bound exceeds L, every weight matrix is scaled by
// (L/bound)^(1/layers), which brings the bound back to L (Projected counts these steps; a run that never
// leaves the bound is unchanged).
type SpecifiedResult struct {
	Result
	Constants *Constants
	Sigma     float64
	FinalL    float64 // spectral-norm product bound of the released network
	// WithinL says whether the released network is inside the calibration's Lipschitz bound (always true
	// now that the bound is enforced, up to rounding).
	WithinL bool
	// Projected counts the steps after which the weights were scaled back to the Lipschitz bound L.
	Projected int
	// Tail is Theorem 5's tail at Sigma (its precondition, the printed and the corrected tail term).
	Tail Tail
	// EpsilonExact is the exact ε at Delta of the T′ releases as μ-GDP with μ = √(m·T′·C₁)/σ, where C₁ =
	// (v² + v)L² is one action's squared RKHS sensitivity and all m noised outputs move at every step
	// (package doc, "Corrections"); +Inf for a Noiseless run.
	EpsilonExact float64
	// Guaranteed says the run is (Epsilon, Delta + Tail.Conservative)-DP: paths were added, Theorem 5's
	// precondition holds at Sigma (Tail.Covered), the corrected tail leaves Delta + Tail.Conservative below
	// 1, and EpsilonExact ≤ Epsilon. When false the run certifies nothing.
	Guaranteed bool
}

// RunSpecified runs Algorithm 1 on a one-dimensional-state environment. It refuses a configuration without a
// privacy guarantee (SpecifiedResult.Guaranteed: Theorem 5's precondition 2k > 8.68√β·σ, the corrected tail,
// the exact ε with all m outputs) with an error naming K or Epsilon, unless NoGuarantee or Noiseless is set;
// the result then says Guaranteed = false.
func RunSpecified(env envs.Env, cfg SpecifiedConfig) (*SpecifiedResult, error) {
	k, err := cfg.Calibration.Compute()
	if err != nil {
		return nil, err
	}
	if cfg.Src == nil {
		return nil, check.Missing("Src", "an explicit rand.Source for every run")
	}
	if env == nil {
		return nil, check.Missing("env", "an environment")
	}
	orDefault(&cfg.Gamma, 0.999)
	if cfg.Hidden == nil {
		cfg.Hidden = []int{16, 16}
	}
	if err := param.First(check.In("Gamma", cfg.Gamma, param.Probability), check.In("Explore", cfg.Explore, param.Probability),
		hiddenSizes(cfg.Hidden)); err != nil {
		return nil, err
	}
	if d := len(env.ObservationSpace().Low); d != 1 {
		return nil, check.Errorf("env.ObservationSpace().Dim()", float64(d), "[1, 1]: the functional mechanism here needs one-dimensional states")
	}
	if m := env.NumActions(); m != cfg.Actions {
		return nil, check.Errorf("Actions", float64(cfg.Actions), "[%d, %d] (the environment's actions)", m, m)
	}
	sigma := k.SigmaThm5
	if cfg.UseGDPSigma {
		sigma = k.SigmaGDP
	}
	out := &SpecifiedResult{Constants: k, Sigma: sigma, Tail: cfg.TailAt(k.Beta, sigma), EpsilonExact: math.Inf(1)}
	if cfg.Noiseless {
		out.Sigma = 0
	} else {
		oneC := (k.V*k.V + k.V) * cfg.L * cfg.L
		if out.EpsilonExact, err = mechanisms.GDPEpsilon(math.Sqrt(float64(cfg.Actions*k.Steps)*oneC)/sigma, cfg.Delta); err != nil {
			return nil, err
		}
		out.Guaranteed = out.Tail.Covered && cfg.Delta+out.Tail.Conservative < 1 && out.EpsilonExact <= cfg.Epsilon*(1+1e-9)
		if !out.Guaranteed && !cfg.NoGuarantee {
			if !out.Tail.Covered || cfg.Delta+out.Tail.Conservative >= 1 {
				return nil, check.Errorf("K", cfg.K, "(%.4g, ∞): Theorem 5 needs 2k > 8.68√β·σ = %.4g and its corrected tail k > 8.68√β·σ "+
					"(and δ + tail < 1); set NoGuarantee to run without a privacy guarantee", out.Tail.Level, out.Tail.Level)
			}
			return nil, check.Errorf("Epsilon", cfg.Epsilon, "a target the run meets: it is only %.4g-DP at δ, all %d outputs moving "+
				"(set MActionCorrection, or NoGuarantee to run without a privacy guarantee)", out.EpsilonExact, cfg.Actions)
		}
	}
	rng := rand.New(cfg.Src)
	m, B := cfg.Actions, cfg.B
	net, err := nn.NewMLP(append(append([]int{1}, cfg.Hidden...), m), nn.ReLU, rand.NewPCG(rng.Uint64(), rng.Uint64()))
	if err != nil {
		return nil, err
	}
	paths, err := mechanisms.NewOUPaths(m, sigma, k.Beta, rand.NewPCG(rng.Uint64(), rng.Uint64()))
	if err != nil {
		return nil, err
	}
	if cfg.Noiseless {
		paths = nil
	}
	q := noisyNet{net: net, paths: paths}
	// project scales the weights back to the Lipschitz bound L when they leave it (before the first step too).
	project := func() {
		if net.ProjectLipschitz(cfg.L) {
			out.Projected++
		}
	}
	project()
	ws1, wsB := nn.NewWorkspace(net, 1), nn.NewWorkspace(net, B)
	g := nn.NewGrads(net)
	opt := &nn.SGD{LR: cfg.LR}
	xs, acts, targets := make([]float64, B), make([]int, B), make([]float64, B)
	dOut := make([]float64, B*m)
	every := max(1, k.Steps/cfg.Resets)
	state := []float64{0}
	ret, inEpisode := 0.0, false
	for j := range k.Steps {
		if j%every == 0 {
			for _, p := range paths {
				p.Reset()
			}
		}
		for b := range B {
			if !inEpisode {
				obs, err := env.Reset(rand.NewPCG(rng.Uint64(), rng.Uint64()))
				if err != nil {
					return nil, err
				}
				state[0], ret, inEpisode = obs[0], 0, true
			}
			a := 0
			if rng.Float64() < cfg.Explore {
				a = rng.IntN(m)
			} else {
				a = floats.MaxIdx(q.forward(ws1, state))
			}
			st, err := env.Step(a)
			if err != nil {
				return nil, err
			}
			out.Samples++
			ret += st.Reward
			xs[b], acts[b], targets[b] = state[0], a, st.Reward
			if !st.Terminated {
				targets[b] += cfg.Gamma * floats.Max(q.forward(ws1, st.Obs))
			}
			state[0] = st.Obs[0]
			if st.Terminated || st.Truncated {
				out.Returns = append(out.Returns, ret)
				inEpisode = false
			}
		}
		pred := q.forward(wsB, xs)
		nn.SelectedLoss(nn.Squared{}, pred, m, acts, targets, dOut)
		wsB.Backward(net, dOut)
		wsB.Gradient(net, nil, g)
		g.Scale(1 / float64(B))
		opt.Step(net, g)
		project()
		out.Updates++
	}
	out.Released = &Released{net: net, paths: paths}
	out.Diverged = diverged(net)
	out.FinalL = net.Lipschitz()
	out.WithinL = out.FinalL <= cfg.L*(1+1e-9)
	return out, nil
}
