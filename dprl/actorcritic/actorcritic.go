package actorcritic

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/floats"

	"github.com/dprl-project/dprl/dprl/param"
	"github.com/dprl-project/dprl/envs"
	"github.com/dprl-project/dprl/mechanisms"
	"github.com/dprl-project/dprl/trajectory"
)

// check rejects values on behalf of this package.
const check param.Checker = "actorcritic"

// Variant selects the algorithm.
type Variant int

const (
	NonDP     Variant = iota // Off-PAC without noise
	DPActor                  // published Algorithm 2: noised, normalised actor gradient
	DPCritic                 // published Algorithm 3: noised, normalised critic update
	DPBoth                   // published Algorithm 4: both
	Corrected                // clipped and noised joint update with whole-run accounting
)

// String names the variant as the paper's figures do ("Non-DP", "DP-Actor", …), or gives Variant(n) for any
// other value.
func (v Variant) String() string {
	if v >= NonDP && v <= Corrected {
		return [...]string{"Non-DP", "DP-Actor", "DP-Critic", "DP-Both", "Corrected"}[v]
	}
	return fmt.Sprintf("Variant(%d)", int(v))
}

// Acting selects how the behaviour action is chosen.
type Acting int

const (
	// EpsilonGreedy takes argmax_a u[s, a] with probability 1 − Explore (ρ = 1) and a uniform action with
	// probability Explore (ρ = π_u(a|s)·|A|): the paper's "e-greedy" mixing.
	EpsilonGreedy Acting = iota
	// Softmax samples the target policy π_u itself (on-policy, ρ = 1): the paper's Fig. 5 alternative.
	Softmax
)

// String names the acting rule ("ε-greedy", "softmax"), or gives Acting(n) for any other value.
func (a Acting) String() string {
	switch a {
	case EpsilonGreedy:
		return "ε-greedy"
	case Softmax:
		return "softmax"
	}
	return fmt.Sprintf("Acting(%d)", int(a))
}

// Config configures one run.
type Config struct {
	Variant                Variant
	Acting                 Acting
	Episodes               int
	Gamma, Lambda          float64
	AlphaV, AlphaW, AlphaU float64
	Explore                float64 // probability of a uniform behaviour action (EpsilonGreedy)
	// Epsilon, Delta: the published variants' per-step (ε, δ); σ = sqrt(2 ln(1.25/δ))/ε.
	Epsilon, Delta float64
	// Clip, NoiseMultiplier: the corrected variant's public clipping norm C and noise σ (std σ·C).
	Clip, NoiseMultiplier float64
	// MaxEpisodeLen is the corrected variant's H: every episode is ended after at most this many steps,
	// and an episode that ends sooner is padded with noise-only releases, so that every episode makes
	// exactly H noisy releases (Result.Releases). Required (≥ 1) for Corrected; for the other variants 0
	// means no limit besides the environment's.
	MaxEpisodeLen int
	// RecordTraces keeps the end-of-episode traces e_u and e_v of every episode (for the cosine study).
	RecordTraces bool
	Src          rand.Source
}

// Result is one run's record.
type Result struct {
	Returns        []float64   // undiscounted return of each episode
	Lengths        []int       // steps of each episode
	TraceU, TraceV [][]float64 // end-of-episode traces (RecordTraces)
	Sigma          float64     // noise multiplier used (0 for Non-DP)
	MaxLength      int         // the longest episode (H in the corrected accounting)
	// DivergedAt is the episode in which the weights became non-finite (NaN or ±Inf), or −1. The run stops
	// there and the remaining episodes' returns are NaN.
	DivergedAt int
	// Cut counts the episodes ended at MaxEpisodeLen steps before the environment ended them.
	Cut int
	// Dropped counts the corrected variant's per-step updates with a NaN or infinite entry, zeroed before
	// the noise.
	Dropped int
	// Releases counts the corrected variant's noisy releases: Episodes × MaxEpisodeLen, one per step plus
	// the padding of every episode shorter than MaxEpisodeLen (0 for the other variants).
	Releases int
	// V, W, U are the final critic, auxiliary and actor weights (the released model; audits read them).
	V, W, U []float64
}

func (c Config) validate() error {
	if c.Episodes < 1 {
		return check.AtLeast("Episodes", c.Episodes, 1)
	}
	if c.Variant < NonDP || c.Variant > Corrected {
		return check.Errorf("Variant", float64(c.Variant), "{NonDP, DPActor, DPCritic, DPBoth, Corrected}")
	}
	if c.Acting != EpsilonGreedy && c.Acting != Softmax {
		return check.Errorf("Acting", float64(c.Acting), "{EpsilonGreedy, Softmax}")
	}
	if c.MaxEpisodeLen < 0 || c.Variant == Corrected && c.MaxEpisodeLen < 1 {
		return check.AtLeast("MaxEpisodeLen", c.MaxEpisodeLen, 1)
	}
	for _, p := range []struct {
		name string
		v    float64
	}{{"Gamma", c.Gamma}, {"Lambda", c.Lambda}, {"Explore", c.Explore}} {
		if err := check.In(p.name, p.v, param.Probability); err != nil {
			return err
		}
	}
	for _, p := range []struct {
		name string
		v    float64
	}{{"AlphaV", c.AlphaV}, {"AlphaW", c.AlphaW}, {"AlphaU", c.AlphaU}} {
		if err := check.In(p.name, p.v, param.NonNegative); err != nil {
			return err
		}
	}
	switch c.Variant {
	case DPActor, DPCritic, DPBoth:
		if err := param.First(check.In("Epsilon", c.Epsilon, param.Positive), check.In("Delta", c.Delta, param.OpenUnit)); err != nil {
			return err
		}
	case Corrected:
		if err := param.First(check.In("Clip", c.Clip, param.Positive), check.In("NoiseMultiplier", c.NoiseMultiplier, param.Positive)); err != nil {
			return err
		}
		// The noise scales the run uses, Clip·NoiseMultiplier per step and that times √MaxEpisodeLen for the
		// padding, must stay positive and finite (two valid factors can underflow or overflow).
		if sd := c.Clip * c.NoiseMultiplier; !(sd > 0 && sd*math.Sqrt(float64(c.MaxEpisodeLen)) <= math.MaxFloat64) {
			return check.Errorf("NoiseMultiplier", c.NoiseMultiplier, "(0, ∞) with Clip·NoiseMultiplier·√MaxEpisodeLen a positive finite noise scale (Clip = %g)", c.Clip)
		}
	}
	if c.Src == nil {
		return check.Missing("Src", "a rand.Source")
	}
	return nil
}

// PublishedSigma is the paper's eq. (3), σ = sqrt(2 ln(1.25/δ))/ε, applied at any ε as the paper does.
func PublishedSigma(eps, delta float64) float64 {
	return mechanisms.ClassicGaussianFormula(eps, delta, 1)
}

// Run runs Off-PAC on env with state features feats for cfg.Episodes episodes. A panic in env or feats (a
// feature map too small for the environment's observations, say) is returned as an error.
//
// The run touches only what a step changes: the non-zero features of the current and next state (one of
// each with one-hot features), the traces' non-zero entries (all of them when γλ > 0), and the action blocks
// of the current state. Gaussian noise that goes straight into a weight vector (DP-Critic's noised update,
// the actor's noised gradient when γλ = 0, the corrected variant's noise on every coordinate, and its
// padding) is owed to every entry and drawn when the entry is next read, or at the end of the run: the sum
// of independent Gaussians is one Gaussian with the summed variance, so every weight has the distribution the
// step-by-step draws would give it, at the cost of the entries read rather than of all of them. Noise that
// enters a trace (DP-Actor with γλ > 0; the last step of an episode whose traces are recorded) is drawn on
// every entry as the algorithm states. The result is a deterministic function of cfg.Src.
func Run(env envs.Env, feats trajectory.Features, cfg Config) (res *Result, err error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, fmt.Errorf("actorcritic: the environment or the feature map failed: %v", r)
		}
	}()
	switch {
	case env == nil:
		return nil, check.Missing("env", "an environment")
	case feats == nil:
		return nil, check.Missing("feats", "a state feature map")
	}
	nA := env.NumActions()
	nS := feats.Dim() // number of state features
	if err := param.First(check.AtLeast("env.NumActions()", nA, 1), check.AtLeast("feats.Dim()", nS, 1)); err != nil {
		return nil, err
	}
	l := newLearner(nS, nA, cfg)
	res = &Result{DivergedAt: -1, Sigma: l.sigma}
	for ep := range cfg.Episodes {
		clear(l.eV)
		clear(l.eU)
		l.evs, l.eus = l.evs[:0], l.eus[:0]
		if l.gl != 0 {
			l.evs, l.eus = append(l.evs, l.all...), append(l.eus, l.allU...)
		}
		obs, err := env.Reset(rand.NewPCG(l.rng.Uint64(), l.rng.Uint64()))
		if err != nil {
			return nil, err
		}
		feats.Into(l.x, obs)
		l.xs = nonZeros(l.xs, l.x)
		ret, steps := 0.0, 0
		for {
			a, rho, ok := l.act()
			if !ok {
				res.DivergedAt = ep
				break
			}
			r, err := env.Step(a)
			if err != nil {
				return nil, err
			}
			feats.Into(l.x2, r.Obs)
			l.x2s = nonZeros(l.x2s, l.x2)
			ret += r.Reward
			steps++
			cut := cfg.MaxEpisodeLen > 0 && steps >= cfg.MaxEpisodeLen
			last := r.Terminated || r.Truncated || cut
			if !l.update(a, rho, r.Reward, r.Terminated, last && cfg.RecordTraces, res) {
				res.DivergedAt = ep
				break
			}
			l.x, l.x2, l.xs, l.x2s = l.x2, l.x, l.x2s, l.xs
			if r.Terminated || r.Truncated {
				break
			}
			if cut {
				res.Cut++
				break
			}
		}
		if res.DivergedAt >= 0 {
			for len(res.Returns) < cfg.Episodes {
				res.Returns = append(res.Returns, math.NaN())
				res.Lengths = append(res.Lengths, 0)
			}
			break
		}
		if cfg.Variant == Corrected {
			// Pad to H releases: the H − steps missing releases would each add N(0, (σC)²) to every
			// coordinate of a zero update, with nothing in between; their sum is one draw with variance
			// (H − steps)(σC)² per coordinate, the same distribution, and a post-processing of them.
			if k := cfg.MaxEpisodeLen - steps; k > 0 {
				l.noiseAll(float64(k) * l.sd * l.sd)
			}
			res.Releases += cfg.MaxEpisodeLen
		}
		if testHookCritic != nil {
			l.v.settleAll(l.rng)
			testHookCritic(l.v.x)
		}
		res.Returns = append(res.Returns, ret)
		res.Lengths = append(res.Lengths, steps)
		res.MaxLength = max(res.MaxLength, steps)
		if cfg.RecordTraces {
			res.TraceU = append(res.TraceU, slices.Clone(l.eU))
			res.TraceV = append(res.TraceV, slices.Clone(l.eV))
		}
	}
	for _, p := range []*noisy{&l.v, &l.w, &l.u} {
		p.settleAll(l.rng)
	}
	res.V, res.W, res.U = l.v.x, l.w.x, l.u.x
	return res, nil
}

// testHookCritic, when set by a test, sees the critic weights after every episode.
var testHookCritic func(v []float64)

// testDense, when set by a test, makes every support the full index range and draws every noise on every
// entry where the algorithm adds it, as a literal implementation of the updates would: the results must
// agree with the sparse run (exactly without noise, in distribution with it).
var testDense bool

// learner is the state of one run: weights, traces, the current and next features and the supports (the
// indices of the entries that may be non-zero) of the sparse vectors.
type learner struct {
	cfg               Config
	nS, nA            int
	rng               *rand.Rand
	sigma, sd, gl     float64 // noise multiplier; the corrected variant's noise std σC; γλ
	actorDP, criticDP bool
	v, w, u           noisy
	eV, eU            []float64
	evs, eus          []int // supports of eV and eU
	x, x2             []float64
	xs, x2s           []int
	z, dw, psi, g     []float64
	zs, psis          []int
	probs, h          []float64
	all, allU         []int // 0 … nS − 1 and 0 … nS·nA − 1
	seen              []bool
	medianBuf         []float64
	nonFinite         bool // a weight written by the last update is NaN or infinite
}

func newLearner(nS, nA int, cfg Config) *learner {
	l := &learner{cfg: cfg, nS: nS, nA: nA, rng: rand.New(cfg.Src), gl: cfg.Gamma * cfg.Lambda,
		actorDP: cfg.Variant == DPActor || cfg.Variant == DPBoth, criticDP: cfg.Variant == DPCritic || cfg.Variant == DPBoth,
		v: newNoisy(nS), w: newNoisy(nS), u: newNoisy(nS * nA),
		eV: make([]float64, nS), eU: make([]float64, nS*nA), x: make([]float64, nS), x2: make([]float64, nS),
		z: make([]float64, nS), dw: make([]float64, nS), psi: make([]float64, nS*nA), g: make([]float64, nS*nA),
		probs: make([]float64, nA), h: make([]float64, nA), all: indices(nS), allU: indices(nS * nA), seen: make([]bool, nS)}
	switch cfg.Variant {
	case DPActor, DPCritic, DPBoth:
		l.sigma = PublishedSigma(cfg.Epsilon, cfg.Delta)
	case Corrected:
		l.sigma, l.sd = cfg.NoiseMultiplier, cfg.Clip*cfg.NoiseMultiplier
	}
	return l
}

// act computes the preferences of the current state's actions and chooses the behaviour action a with its
// importance ratio ρ; ok is false when a weight or a preference is not finite (the weights overflowed).
func (l *learner) act() (a int, rho float64, ok bool) {
	if l.nonFinite || !finiteScalar(l.v.owed) || !finiteScalar(l.w.owed) || !finiteScalar(l.u.owed) {
		return 0, 0, false
	}
	// Preferences h(s, b) = u·x(s, b) = Σ_i u[b·nS + i]·x_i.
	for b := range l.nA {
		s := 0.0
		for _, i := range l.xs {
			j := b*l.nS + i
			l.u.settle(j, l.rng)
			s += l.u.x[j] * l.x[i]
		}
		l.h[b] = s
	}
	if !finite(l.h) {
		return 0, 0, false
	}
	softmaxRow(l.probs, l.h)
	rho = 1.0
	switch l.cfg.Acting {
	case Softmax:
		a = envs.Sample(l.probs, l.rng)
	default:
		if l.rng.Float64() < l.cfg.Explore {
			a = l.rng.IntN(l.nA)
			rho = l.probs[a] * float64(l.nA)
		} else {
			a = floats.MaxIdx(l.h)
		}
	}
	return a, rho, true
}

// update makes the step's critic and actor updates after action a (ratio rho) gave reward with next
// features x2; terminated ends the return (γ(s′) = 0), and recording says the traces are kept after this
// step, so the actor's noise goes into its trace in full. ok is false when the TD error is not finite
// (except for the corrected variant, which drops such an update and counts it in res.Dropped).
func (l *learner) update(a int, rho, reward float64, terminated, recording bool, res *Result) (ok bool) {
	cfg := l.cfg
	gNext := cfg.Gamma
	if terminated {
		gNext = 0
	}
	delta := reward + gNext*l.v.dot(l.x2, l.x2s, l.rng) - l.v.dot(l.x, l.xs, l.rng)
	// The corrected variant drops a non-finite update instead (the clip): stopping would reveal the data.
	if cfg.Variant != Corrected && (math.IsNaN(delta) || math.IsInf(delta, 0)) {
		return false
	}

	// Critic: GTD(λ).
	if l.gl == 0 {
		clearAt(l.eV, l.evs)
		l.evs = append(l.evs[:0], l.xs...)
	}
	for _, i := range l.evs {
		l.eV[i] = rho * (l.x[i] + l.gl*l.eV[i])
	}
	we, wx := l.w.dot(l.eV, l.evs, l.rng), l.w.dot(l.x, l.xs, l.rng)
	l.zs = l.union(l.zs, l.evs, l.x2s)
	c := gNext * (1 - cfg.Lambda) * we
	for _, i := range l.zs {
		l.z[i] = delta*l.eV[i] - c*l.x2[i]
	}
	for _, i := range l.evs { // ⊇ the support of x
		l.dw[i] = cfg.AlphaW * (delta*l.eV[i] - wx*l.x[i])
	}

	// Actor: ψ = ∇ log π_u(a|s) = x(s, a) − Σ_b π_u(b|s) x(s, b), non-zero on the current state's blocks.
	clearAt(l.psi, l.psis)
	l.psis = l.psis[:0]
	for b := range l.nA {
		cb := -l.probs[b]
		if b == a {
			cb += 1
		}
		for _, i := range l.xs {
			l.psi[b*l.nS+i] = cb * l.x[i]
			l.psis = append(l.psis, b*l.nS+i)
		}
	}
	g, gs := l.psi, l.psis
	noiseU := 0.0 // the variance of the actor noise owed to u (the lazy case)
	if l.actorDP {
		for _, i := range l.psis { // l.g is zero outside ψ's support, as ψ is
			l.g[i] = l.psi[i]
		}
		g = l.g
		if sc := normalise(g, gs, &l.medianBuf); sc > 0 {
			if l.gl != 0 || recording || testDense {
				// The noise enters the trace: draw it on every entry now.
				for i := range g {
					g[i] = mechanisms.AddGaussian(g[i], l.sigma*sc, l.rng)
				}
				gs = l.allU
			} else {
				// γλ = 0: the trace is ρg and u moves by α_u·δ·ρ·g, so the noise goes straight into u.
				noiseU = sq(cfg.AlphaU * delta * rho * l.sigma * sc)
			}
		}
	}
	if l.gl == 0 {
		clearAt(l.eU, l.eus)
		l.eus = append(l.eus[:0], gs...)
	}
	for _, i := range l.eus {
		l.eU[i] = rho * (g[i] + l.gl*l.eU[i])
	}
	if l.actorDP {
		clearAt(l.g, gs) // ready for the next copy of ψ
	}
	noiseV := 0.0
	if l.criticDP {
		if sc := normalise(l.z, l.zs, &l.medianBuf); sc > 0 {
			if testDense { // literally: on every entry of the update (the support is every entry)
				for _, i := range l.zs {
					l.z[i] = mechanisms.AddGaussian(l.z[i], l.sigma*sc, l.rng)
				}
			} else { // v moves by α_v·z, so the noise goes straight into v
				noiseV = sq(cfg.AlphaV * l.sigma * sc)
			}
		}
	}
	for _, i := range l.zs {
		l.z[i] *= cfg.AlphaV
	}
	scale := cfg.AlphaU * delta // du = scale·eU
	if cfg.Variant == Corrected {
		sc, fine := clipScale(cfg.Clip, l.z, l.zs, l.dw, l.evs, l.eU, l.eus, scale)
		if !fine { // a NaN or infinite update: only the noise is released
			res.Dropped++
			clearAt(l.z, l.zs)
			clearAt(l.dw, l.evs)
			scale = 0
		}
		for _, i := range l.zs {
			l.z[i] *= sc
		}
		for _, i := range l.evs {
			l.dw[i] *= sc
		}
		scale *= sc
		l.noiseAll(l.sd * l.sd)
	}
	l.v.owe(noiseV)
	l.u.owe(noiseU)
	l.nonFinite = !l.v.addAt(l.z, l.zs) || !l.w.addAt(l.dw, l.evs) || !l.u.addScaledAt(scale, l.eU, l.eus)
	clearAt(l.z, l.zs)
	clearAt(l.dw, l.evs)
	return true
}

// noiseAll adds independent N(0, variance) to every coordinate of v, w and u: owed (drawn when read), or
// drawn now with testDense.
func (l *learner) noiseAll(variance float64) {
	for _, p := range []*noisy{&l.v, &l.w, &l.u} {
		if testDense {
			for i := range p.x {
				p.x[i] = mechanisms.AddGaussian(p.x[i], math.Sqrt(variance), l.rng)
			}
		} else {
			p.owe(variance)
		}
	}
}

// union is the sorted union of the sorted index lists a and b, in dst.
func (l *learner) union(dst, a, b []int) []int {
	dst = dst[:0]
	if len(a) == l.nS { // every index
		return append(dst, a...)
	}
	for _, s := range [][]int{a, b} {
		for _, i := range s {
			if !l.seen[i] {
				l.seen[i] = true
				dst = append(dst, i)
			}
		}
	}
	sorted := true
	for k, i := range dst {
		l.seen[i] = false
		sorted = sorted && (k == 0 || dst[k-1] < i)
	}
	if !sorted {
		slices.Sort(dst)
	}
	return dst
}

// noisy is a weight vector to which Gaussian noise is owed: every entry has been promised the same total
// variance, owed, of which paid[i] has been drawn into x[i]. An entry is settled (its debt drawn as one
// Gaussian) before it is read.
type noisy struct {
	x, paid []float64
	owed    float64
}

func newNoisy(n int) noisy { return noisy{x: make([]float64, n), paid: make([]float64, n)} }

// owe promises every entry another independent N(0, variance).
func (p *noisy) owe(variance float64) { p.owed += variance }

// settle draws what entry i is owed.
func (p *noisy) settle(i int, rng *rand.Rand) {
	if d := p.owed - p.paid[i]; d > 0 {
		p.x[i] = mechanisms.AddGaussian(p.x[i], math.Sqrt(d), rng)
		p.paid[i] = p.owed
	}
}

// settleAll draws what every entry is owed, in index order.
func (p *noisy) settleAll(rng *rand.Rand) {
	for i := range p.x {
		p.settle(i, rng)
	}
}

// dot is Σ_{i ∈ support} p_i·y_i, settling the entries it reads; y is zero outside support.
func (p *noisy) dot(y []float64, support []int, rng *rand.Rand) float64 {
	s := 0.0
	if p.owed == 0 { // no noise owed to any entry
		for _, i := range support {
			s += p.x[i] * y[i]
		}
		return s
	}
	for _, i := range support {
		p.settle(i, rng)
		s += p.x[i] * y[i]
	}
	return s
}

// addAt adds y to p on support (y is zero elsewhere) and reports whether the entries written are finite.
func (p *noisy) addAt(y []float64, support []int) bool {
	ok := true
	for _, i := range support {
		x := p.x[i] + y[i]
		p.x[i] = x
		if x-x != 0 { // NaN for a NaN or infinite x
			ok = false
		}
	}
	return ok
}

// addScaledAt adds a·y to p on support (nothing when a = 0) and reports whether the entries written are
// finite.
func (p *noisy) addScaledAt(a float64, y []float64, support []int) bool {
	if a == 0 {
		return true
	}
	ok := true
	for _, i := range support {
		x := p.x[i] + a*y[i]
		p.x[i] = x
		if x-x != 0 {
			ok = false
		}
	}
	return ok
}

// Normalise rescales g in place to norm |C|, the median of its non-zero absolute entries, and returns C: the
// first half of the published noised step, g/(‖g‖/|C|) (the paper's Algorithms 2–4); the second adds
// N(0, σ²C²) to every entry. A zero g stays zero and C = 0: the step then adds no noise.
func Normalise(g []float64) float64 {
	var buf []float64
	return normalise(g, indices(len(g)), &buf)
}

// normalise rescales g (zero outside support) to norm |C| = the median of its non-zero absolute entries
// and returns C, the published step without its noise (N(0, σ²C²) on every entry, which the caller adds or
// owes). A zero g stays zero and the step adds no noise: C = 0. buf is scratch space for the median.
func normalise(g []float64, support []int, buf *[]float64) float64 {
	a := (*buf)[:0]
	n := 0.0
	for _, i := range support {
		if v := g[i]; v != 0 {
			a = append(a, math.Abs(v))
		}
		n += g[i] * g[i]
	}
	*buf = a
	c := median(a)
	n = math.Sqrt(n)
	if n == 0 || c == 0 {
		clearAt(g, support)
		return 0
	}
	for _, i := range support {
		g[i] = g[i] * c / n
	}
	return c
}

// median is the median of a (0 for an empty a): the middle value, or the mean of the two middle values. It
// reorders a.
func median(a []float64) float64 {
	n := len(a)
	if n == 0 {
		return 0
	}
	hi := selectKth(a, n/2)
	if n%2 == 1 {
		return hi
	}
	return (slices.Max(a[:n/2]) + hi) / 2 // after selectKth, a[:n/2] holds the n/2 smallest
}

// selectKth reorders a so that a[k] is the value sorted order would put there, with no larger value before
// it and no smaller one after, and returns a[k] (Hoare's selection, median-of-three pivots; deterministic).
func selectKth(a []float64, k int) float64 {
	lo, hi := 0, len(a)-1
	for hi-lo > 16 {
		m := lo + (hi-lo)/2
		if a[m] < a[lo] {
			a[m], a[lo] = a[lo], a[m]
		}
		if a[hi] < a[lo] {
			a[hi], a[lo] = a[lo], a[hi]
		}
		if a[hi] < a[m] {
			a[hi], a[m] = a[m], a[hi]
		}
		pivot, i, j := a[m], lo, hi
		for i <= j {
			for a[i] < pivot {
				i++
			}
			for a[j] > pivot {
				j--
			}
			if i <= j {
				a[i], a[j] = a[j], a[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return a[k]
		}
	}
	slices.Sort(a[lo : hi+1])
	return a[k]
}

// clipScale is the factor that brings the joint update [z; dw; a·eU] (each zero outside its support) to
// norm at most c, the corrected variant's clip. An update with a NaN or infinite entry gets factor 0
// (fine = false); the norm of huge finite entries is computed without overflow.
func clipScale(c float64, z []float64, zs []int, dw []float64, dws []int, eU []float64, eus []int, a float64) (scale float64, fine bool) {
	parts := [3]struct {
		x []float64
		s []int
		a float64
	}{{z, zs, 1}, {dw, dws, 1}, {eU, eus, a}}
	sum := func(div float64) float64 {
		s := 0.0
		for _, p := range parts {
			for _, i := range p.s {
				v := p.a * p.x[i] / div
				s += v * v
			}
		}
		return s
	}
	n := math.Sqrt(sum(1))
	switch {
	case n <= c:
		return 1, true
	case !math.IsInf(n, 1) && !math.IsNaN(n):
		return c / n, true
	}
	mx := 0.0 // overflow or a non-finite entry: scale by the largest magnitude first
	for _, p := range parts {
		for _, i := range p.s {
			mx = math.Max(mx, math.Abs(p.a*p.x[i]))
		}
	}
	if math.IsNaN(n) || math.IsInf(mx, 1) || math.IsNaN(mx) {
		return 0, false
	}
	return c / math.Sqrt(sum(mx)) / mx, true // ‖update‖ = mx·√s > c
}

// nonZeros is the indices of x's non-zero entries, in dst (every index when testDense is set).
func nonZeros(dst []int, x []float64) []int {
	dst = dst[:0]
	if testDense {
		return append(dst, indices(len(x))...)
	}
	for i, v := range x {
		if v != 0 {
			dst = append(dst, i)
		}
	}
	return dst
}

// clearAt zeroes x on support.
func clearAt(x []float64, support []int) {
	if len(support) == len(x) {
		clear(x)
		return
	}
	for _, i := range support {
		x[i] = 0
	}
}

func indices(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

func sq(x float64) float64 { return x * x }

func finiteScalar(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

func softmaxRow(dst, h []float64) {
	mx := math.Inf(-1)
	for _, v := range h {
		mx = math.Max(mx, v)
	}
	sum := 0.0
	for i, v := range h {
		dst[i] = math.Exp(v - mx)
		sum += dst[i]
	}
	for i := range dst {
		dst[i] /= sum
	}
}

func finite(x []float64) bool {
	for _, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}
