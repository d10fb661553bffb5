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
	rng := rand.New(cfg.Src)
	res = &Result{DivergedAt: -1}
	switch cfg.Variant {
	case DPActor, DPCritic, DPBoth:
		res.Sigma = PublishedSigma(cfg.Epsilon, cfg.Delta)
	case Corrected:
		res.Sigma = cfg.NoiseMultiplier
	}
	v, w := make([]float64, nS), make([]float64, nS)
	u := make([]float64, nS*nA)
	eV, eU := make([]float64, nS), make([]float64, nS*nA)
	z, dw, du := make([]float64, nS), make([]float64, nS), make([]float64, nS*nA)
	psi := make([]float64, nS*nA)
	probs, h := make([]float64, nA), make([]float64, nA)
	x, x2 := make([]float64, nS), make([]float64, nS)
	scratch := make([]float64, nS*nA)
	var medianBuf []float64
	gl := cfg.Gamma * cfg.Lambda
	actorDP := cfg.Variant == DPActor || cfg.Variant == DPBoth
	criticDP := cfg.Variant == DPCritic || cfg.Variant == DPBoth

	for ep := range cfg.Episodes {
		clear(eV)
		clear(eU)
		obs, err := env.Reset(rand.NewPCG(rng.Uint64(), rng.Uint64()))
		if err != nil {
			return nil, err
		}
		feats.Into(x, obs)
		ret, steps := 0.0, 0
		for {
			// Preferences h(s, b) = u·x(s, b) = Σ_i u[b·nS + i]·x_i.
			for b := range nA {
				h[b] = dot(u[b*nS:(b+1)*nS], x)
			}
			if !finite(h) {
				res.DivergedAt = ep
				break
			}
			softmaxRow(probs, h)
			var a int
			rho := 1.0
			switch cfg.Acting {
			case Softmax:
				a = envs.Sample(probs, rng)
			default:
				if rng.Float64() < cfg.Explore {
					a = rng.IntN(nA)
					rho = probs[a] * float64(nA)
				} else {
					a = floats.MaxIdx(h)
				}
			}
			r, err := env.Step(a)
			if err != nil {
				return nil, err
			}
			feats.Into(x2, r.Obs)
			ret += r.Reward
			steps++
			gNext := cfg.Gamma
			if r.Terminated {
				gNext = 0
			}
			delta := r.Reward + gNext*dot(v, x2) - dot(v, x)
			// The corrected variant drops a non-finite update instead (clipAndNoise): stopping would
			// reveal the data.
			if cfg.Variant != Corrected && (math.IsNaN(delta) || math.IsInf(delta, 0)) {
				res.DivergedAt = ep
				break
			}

			// Critic: GTD(λ).
			for i := range eV {
				eV[i] = rho * (x[i] + gl*eV[i])
			}
			we, wx := dot(w, eV), dot(w, x)
			for i := range z {
				z[i] = delta*eV[i] - gNext*(1-cfg.Lambda)*we*x2[i]
				dw[i] = cfg.AlphaW * (delta*eV[i] - wx*x[i])
			}

			// Actor: ψ = ∇ log π_u(a|s) = x(s, a) − Σ_b π_u(b|s) x(s, b).
			for b := range nA {
				c := -probs[b]
				if b == a {
					c += 1
				}
				for i, xi := range x {
					psi[b*nS+i] = c * xi
				}
			}
			g := psi
			if actorDP {
				g = scratch
				copy(g, psi)
				normaliseAndNoise(g, res.Sigma, rng, &medianBuf)
			}
			for i := range eU {
				eU[i] = rho * (g[i] + gl*eU[i])
			}
			if criticDP {
				normaliseAndNoise(z, res.Sigma, rng, &medianBuf)
			}
			for i := range du {
				du[i] = cfg.AlphaU * delta * eU[i]
			}
			for i := range z {
				z[i] *= cfg.AlphaV
			}
			if cfg.Variant == Corrected && !clipAndNoise(cfg.Clip, cfg.Clip*cfg.NoiseMultiplier, rng, z, dw, du) {
				res.Dropped++
			}
			axpy(v, z)
			axpy(w, dw)
			axpy(u, du)
			x, x2 = x2, x
			if r.Terminated || r.Truncated {
				break
			}
			if cfg.MaxEpisodeLen > 0 && steps >= cfg.MaxEpisodeLen {
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
				padNoise(cfg.Clip*cfg.NoiseMultiplier*math.Sqrt(float64(k)), rng, v, w, u)
			}
			res.Releases += cfg.MaxEpisodeLen
		}
		if testHookCritic != nil {
			testHookCritic(v)
		}
		res.Returns = append(res.Returns, ret)
		res.Lengths = append(res.Lengths, steps)
		res.MaxLength = max(res.MaxLength, steps)
		if cfg.RecordTraces {
			res.TraceU = append(res.TraceU, slices.Clone(eU))
			res.TraceV = append(res.TraceV, slices.Clone(eV))
		}
	}
	res.V, res.W, res.U = v, w, u
	return res, nil
}

// testHookCritic, when set by a test, sees the critic weights after every episode.
var testHookCritic func(v []float64)

// normaliseAndNoise rescales g to norm |C| = the median of its non-zero absolute entries and adds
// N(0, σ²C²) to every entry (the published step). A zero g stays zero and gets no noise (C = 0). buf is
// scratch space for the median (grown as needed and returned, so a run allocates it once).
func normaliseAndNoise(g []float64, sigma float64, rng *rand.Rand, buf *[]float64) float64 {
	c := medianAbsNonZero(g, buf)
	n := math.Sqrt(dot(g, g))
	if n == 0 || c == 0 {
		clear(g)
		return 0
	}
	for i := range g {
		g[i] = mechanisms.AddGaussian(g[i]*c/n, sigma*c, rng)
	}
	return c
}

// medianAbsNonZero is the median of |g_i| over the non-zero entries (0 if none); buf is scratch space.
func medianAbsNonZero(g []float64, buf *[]float64) float64 {
	a := (*buf)[:0]
	defer func() { *buf = a }()
	for _, v := range g {
		if v != 0 {
			a = append(a, math.Abs(v))
		}
	}
	if len(a) == 0 {
		return 0
	}
	slices.Sort(a)
	if len(a)%2 == 1 {
		return a[len(a)/2]
	}
	return (a[len(a)/2-1] + a[len(a)/2]) / 2
}

// clipAndNoise scales the concatenation of parts to norm at most c and adds N(0, sd²) to every coordinate.
// An update with a NaN or infinite entry is set to zero before the noise (ok = false); the norm of huge
// finite entries is computed without overflow.
func clipAndNoise(c, sd float64, rng *rand.Rand, parts ...[]float64) (ok bool) {
	sq := 0.0
	for _, p := range parts {
		sq += dot(p, p)
	}
	scale, ok := 1.0, true
	if n := math.Sqrt(sq); n > c && !math.IsInf(n, 1) {
		scale = c / n
	} else if math.IsInf(n, 1) || math.IsNaN(n) {
		// overflow or non-finite: scale by the largest magnitude first
		mx := 0.0
		for _, p := range parts {
			for _, v := range p {
				mx = math.Max(mx, math.Abs(v))
			}
		}
		if math.IsNaN(n) || math.IsInf(mx, 1) || math.IsNaN(mx) {
			scale, ok = 0, false
		} else {
			s := 0.0
			for _, p := range parts {
				for _, v := range p {
					s += (v / mx) * (v / mx)
				}
			}
			scale = c / math.Sqrt(s) / mx // ‖update‖ = mx·√s > c
		}
	}
	for _, p := range parts {
		for i := range p {
			x := p[i] * scale
			if !ok {
				x = 0
			}
			p[i] = mechanisms.AddGaussian(x, sd, rng)
		}
	}
	return ok
}

// padNoise adds N(0, sd²) to every coordinate of parts.
func padNoise(sd float64, rng *rand.Rand, parts ...[]float64) {
	for _, p := range parts {
		for i := range p {
			p[i] = mechanisms.AddGaussian(p[i], sd, rng)
		}
	}
}

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

func dot(a, b []float64) float64 {
	s := 0.0
	for i, v := range a {
		s += v * b[i]
	}
	return s
}

func axpy(y, x []float64) {
	for i, v := range x {
		y[i] += v
	}
}
