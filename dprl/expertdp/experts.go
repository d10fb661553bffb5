package expertdp

import (
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/dprl-project/dprl/dprl/experiment"
	"github.com/dprl-project/dprl/dprl/param"
	"github.com/dprl-project/dprl/envs"
	"github.com/dprl-project/dprl/trajectory"
)

// Axis is one environment parameter varied between experts, with its grid of values (Sharma et al.,
// Appendix B).
type Axis struct {
	Name   string
	Values []float64
}

// Domain is one of the paper's four environments: how to build a variation, the expert policy class, the
// demonstration and evaluation lengths, and how base policies are trained.
type Domain struct {
	Name               string
	NumActions, ObsDim int
	DemoLen            int     // longest demonstration (L in DataRelease)
	EvalLen            int     // evaluation episode cap
	Axes               [3]Axis // the varied parameters; experts are trained on grid points
	Default            [3]float64
	// NumParams is the length of one expert's parameter vector.
	NumParams int
	// RewardScale multiplies rewards for the learners (returns are reported unscaled).
	RewardScale float64

	build   func(v [3]float64) envs.Env
	lander  bool      // experts are gains of the LunarLander heuristic rather than linear scores
	shift   []float64 // linear experts score actions on ((obs − shift) / scale, 1)
	scale   []float64
	init    []float64 // CEM starting mean (nil: zero) and spread
	initStd float64
	cem     cemParams
}

type cemParams struct{ pop, elite, iters, episodes int }

func grid(lo, hi float64, n int) []float64 {
	v := make([]float64, n)
	floats.Span(v, lo, hi)
	return v
}

// Domains returns the four environments with the paper's variation grids (10 values per axis; HIV: 50 and
// 20 drug-penalty values, the efficacy-noise axis replaced by the initial viral load, see HIVDomain).
func Domains() []*Domain {
	return []*Domain{CartPoleDomain(), AcrobotDomain(), LunarLanderDomain(), HIVDomain()}
}

// DomainByName returns the named domain: cartpole, acrobot, lunarlander or hiv.
func DomainByName(name string) (*Domain, error) {
	for _, d := range Domains() {
		if d.Name == name {
			return d, nil
		}
	}
	return nil, check.OneOf("name", name, "cartpole", "acrobot", "lunarlander", "hiv")
}

// CartPoleDomain: gravity ∈ [8.75, 11], force ∈ [9, 11.25], cart mass ∈ [0.8, 1.25]; demonstrations of at
// most 200 steps, evaluation episodes of up to 1000 (as in the paper); linear experts.
func CartPoleDomain() *Domain {
	return &Domain{Name: "cartpole", NumActions: 2, ObsDim: 4, DemoLen: 200, EvalLen: 1000,
		Axes:      [3]Axis{{"gravity", grid(8.75, 11, 10)}, {"force", grid(9, 11.25, 10)}, {"cart mass", grid(0.8, 1.25, 10)}},
		Default:   [3]float64{9.8, 10, 1},
		NumParams: 2 * 5, RewardScale: 1,
		build: func(v [3]float64) envs.Env {
			return envs.NewCartPole(envs.CartPoleParams{Gravity: v[0], ForceMag: v[1], CartMass: v[2]})
		},
		shift: make([]float64, 4), scale: []float64{2.4, 3, 0.21, 3}, initStd: 1,
		cem: cemParams{pop: 24, elite: 5, iters: 8, episodes: 2}}
}

// AcrobotDomain: link length (both links) ∈ [0.8, 1.2], masses ∈ [0.9, 1.1]; demonstrations and
// evaluations of at most 200 steps; linear experts.
func AcrobotDomain() *Domain {
	return &Domain{Name: "acrobot", NumActions: 3, ObsDim: 6, DemoLen: 200, EvalLen: 200,
		Axes:      [3]Axis{{"link length", grid(0.8, 1.2, 10)}, {"mass 1", grid(0.9, 1.1, 10)}, {"mass 2", grid(0.9, 1.1, 10)}},
		Default:   [3]float64{1, 1, 1},
		NumParams: 3 * 7, RewardScale: 1,
		build: func(v [3]float64) envs.Env {
			return envs.NewAcrobot(envs.AcrobotParams{LinkLength1: v[0], LinkLength2: v[0], LinkMass1: v[1], LinkMass2: v[2]})
		},
		shift: make([]float64, 6), scale: []float64{1, 1, 1, 1, 1, 1}, initStd: 1,
		cem: cemParams{pop: 32, elite: 6, iters: 20, episodes: 2}}
}

// LunarLanderDomain: gravity ∈ [−11, −9], wind power ∈ [0, 5], turbulence ∈ [0, 0.5] (wind on);
// demonstrations and evaluations of up to 1000 steps (Gymnasium's limit; the paper does not state L).
// Experts are gains of Gymnasium's heuristic controller tuned per variation: linear scores do not fly the
// lander, and a PPO network per expert is beyond this machine's budget.
func LunarLanderDomain() *Domain {
	return &Domain{Name: "lunarlander", NumActions: 4, ObsDim: 8, DemoLen: 1000, EvalLen: 1000,
		Axes:      [3]Axis{{"gravity", grid(-11, -9, 10)}, {"wind power", grid(0, 5, 10)}, {"turbulence", grid(0, 0.5, 10)}},
		Default:   [3]float64{-10, 0, 0},
		NumParams: len(envs.LunarLanderGains), RewardScale: 0.01,
		build: func(v [3]float64) envs.Env {
			wind := v[1] > 0 || v[2] > 0
			// Zero wind and turbulence would take the defaults 15 and 1.5; a tiny value is off in effect.
			return envs.NewLunarLander(envs.LunarLanderParams{Gravity: v[0], EnableWind: wind,
				WindPower: math.Max(v[1], 1e-9), TurbulencePower: math.Max(v[2], 1e-9)})
		},
		lander: true, init: envs.LunarLanderGains, initStd: 0.15,
		cem: cemParams{pop: 8, elite: 3, iters: 3, episodes: 2}}
}

// HIVDomain: Ernst et al.'s simulator with 20 days per step and 50 steps (as in the paper); the RTI
// penalty ∈ [18750, 21250] (50 values) and the PI penalty ∈ [1850, 2150] (20 values) vary as in the paper.
// The paper's third axis (drug-efficacy noise) is not in our simulator; a single value stands in for it.
// Linear experts on the log10 state.
func HIVDomain() *Domain {
	shift := make([]float64, 6)
	for i, v := range envs.HIVStart {
		shift[i] = math.Log10(v)
	}
	return &Domain{Name: "hiv", NumActions: 4, ObsDim: 6, DemoLen: 50, EvalLen: 50,
		Axes:      [3]Axis{{"RTI penalty", grid(18750, 21250, 50)}, {"PI penalty", grid(1850, 2150, 20)}, {"efficacy noise", []float64{0}}},
		Default:   [3]float64{2e4, 2e3, 0},
		NumParams: 4 * 7, RewardScale: 1e-6,
		build: func(v [3]float64) envs.Env {
			return envs.NewHIV(envs.HIVParams{DaysPerStep: 20, RTIPenalty: v[0], PIPenalty: v[1]})
		},
		shift: shift, scale: []float64{1, 1, 1, 1, 1, 1}, initStd: 1,
		cem: cemParams{pop: 16, elite: 4, iters: 8, episodes: 1}}
}

// Env returns the domain's environment at parameter values v, with the time limit maxLen.
func (d *Domain) Env(v [3]float64, maxLen int) *envs.TimeLimit {
	return &envs.TimeLimit{Env: d.build(v), MaxSteps: maxLen}
}

// Act is the greedy action of the expert with parameters p at obs.
func (d *Domain) Act(p, obs []float64) int {
	if d.lander {
		return landerAct(p, obs)
	}
	k := d.ObsDim + 1
	best, bestV := 0, math.Inf(-1)
	for a := range d.NumActions {
		w := p[a*k : (a+1)*k]
		v := w[d.ObsDim]
		for j, o := range obs {
			v += w[j] * (o - d.shift[j]) / d.scale[j]
		}
		if v > bestV {
			best, bestV = a, v
		}
	}
	return best
}

func landerAct(g, s []float64) int { return envs.LunarLanderHeuristicGains(g, s) }

// Experts is a set of m deterministic expert policies of one domain, one parameter vector each. Expert i
// plays its greedy action; MixedPolicy gives the p_min-mixed version that generates the data.
type Experts struct {
	Domain *Domain
	Params *mat.Dense // m × Domain.NumParams
	// Base is the base policy each expert derives from, and BaseVariation the variation that base was
	// trained on.
	Base          []int
	BaseVariation [][3]float64
	BaseParams    [][]float64
}

// Len is the number of experts m.
func (e *Experts) Len() int { r, _ := e.Params.Dims(); return r }

// Act is expert i's greedy action at obs.
func (e *Experts) Act(i int, obs []float64) int { return e.Domain.Act(e.Params.RawRowView(i), obs) }

// ActAll writes every expert's greedy action at each of the n observations in obs (n × ObsDim,
// row-major) to dst (n × m, row t holding the m experts' actions at observation t). For linear experts
// it is one matrix product.
func (e *Experts) ActAll(obs []float64, n int, dst []int) { e.actAll(obs, n, dst, &actScratch{}) }

// actScratch holds ActAll's matrices between calls.
type actScratch struct{ feat, scores []float64 }

func (e *Experts) actAll(obs []float64, n int, dst []int, sc *actScratch) {
	m, d := e.Len(), e.Domain
	if d.lander {
		for t := range n {
			o := obs[t*d.ObsDim : (t+1)*d.ObsDim]
			for i := range m {
				dst[t*m+i] = landerAct(e.Params.RawRowView(i), o)
			}
		}
		return
	}
	k, A := d.ObsDim+1, d.NumActions
	if cap(sc.feat) < n*k {
		sc.feat = make([]float64, n*k)
	}
	if cap(sc.scores) < n*m*A {
		sc.scores = make([]float64, n*m*A)
	}
	feat := mat.NewDense(n, k, sc.feat[:n*k])
	for t := range n {
		row := feat.RawRowView(t)
		for j := range d.ObsDim {
			row[j] = (obs[t*d.ObsDim+j] - d.shift[j]) / d.scale[j]
		}
		row[d.ObsDim] = 1
	}
	raw := e.Params.RawMatrix()
	w := mat.NewDense(m*A, k, raw.Data[:m*raw.Stride]) // Params rows are contiguous (stride = NumParams)
	scores := mat.NewDense(n, m*A, sc.scores[:n*m*A])
	scores.Mul(feat, w.T())
	for t := range n {
		row := scores.RawRowView(t)
		for i := range m {
			dst[t*m+i] = floats.MaxIdx(row[i*A : (i+1)*A])
		}
	}
}

// MixedPolicy is expert i with p_min mixing: the greedy action gets 1 − (|A|−1)·pMin, every other pMin.
func (e *Experts) MixedPolicy(i int, pMin float64) trajectory.Policy {
	return envs.MixMin{Base: greedyPolicy{e, i}, PMin: pMin}
}

type greedyPolicy struct {
	e *Experts
	i int
}

func (g greedyPolicy) NumActions() int { return g.e.Domain.NumActions }
func (g greedyPolicy) Probs(dst, obs []float64) []float64 {
	for a := range dst {
		dst[a] = 0
	}
	dst[g.e.Act(g.i, obs)] = 1
	return dst
}

// ExpertsConfig says how to build an expert set: Bases base policies, each trained by the cross-entropy
// method on a variation drawn uniformly from the domain's grid, then Experts experts derived from them
// (expert i from base i mod Bases, its parameters jittered multiplicatively by 1 + Jitter·N(0, 1)).
type ExpertsConfig struct {
	Bases, Experts int
	Jitter         float64 // 0: 0.1
	Workers        int
	Seed           uint64
	Progress       experiment.Progress // one unit per base policy
}

// NewExperts trains the base policies and derives the experts. The same seed gives the same experts
// whatever the number of workers.
func NewExperts(d *Domain, cfg ExpertsConfig) (*Experts, error) {
	if err := param.First(check.AtLeast("Bases", cfg.Bases, 1), check.AtLeast("Experts", cfg.Experts, 1),
		check.In("Jitter", cfg.Jitter, param.NonNegative)); err != nil {
		return nil, err
	}
	if cfg.Jitter == 0 {
		cfg.Jitter = 0.1
	}
	type base struct {
		v [3]float64
		p []float64
	}
	bases, err := experiment.Trials(cfg.Bases, cfg.Workers, cfg.Seed, cfg.Progress, func(_ int, src rand.Source) (base, error) {
		rng := rand.New(src)
		var v [3]float64
		for j, ax := range d.Axes {
			v[j] = ax.Values[rng.IntN(len(ax.Values))]
		}
		p, err := d.trainBase(v, rng)
		return base{v, p}, err
	})
	if err != nil {
		return nil, err
	}
	e := &Experts{Domain: d, Params: mat.NewDense(cfg.Experts, d.NumParams, nil), Base: make([]int, cfg.Experts)}
	for _, b := range bases {
		e.BaseVariation = append(e.BaseVariation, b.v)
		e.BaseParams = append(e.BaseParams, b.p)
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, math.MaxUint64))
	for i := range cfg.Experts {
		b := i % cfg.Bases
		e.Base[i] = b
		row := e.Params.RawRowView(i)
		for j, w := range bases[b].p {
			row[j] = w * (1 + cfg.Jitter*rng.NormFloat64())
		}
	}
	return e, nil
}

// trainBase runs the cross-entropy method on variation v: a Gaussian over parameter vectors, each
// candidate scored by its mean return over the same episodes (common random numbers), the mean and spread
// refitted to the elite.
func (d *Domain) trainBase(v [3]float64, rng *rand.Rand) ([]float64, error) {
	c := d.cem
	mean := make([]float64, d.NumParams)
	std := make([]float64, d.NumParams)
	for j := range mean {
		if d.init != nil {
			mean[j] = d.init[j]
			std[j] = d.initStd * math.Abs(d.init[j])
		} else {
			std[j] = d.initStd
		}
	}
	env := d.Env(v, d.DemoLen)
	cand := make([][]float64, c.pop)
	score := make([]float64, c.pop)
	idx := make([]int, c.pop)
	best, bestScore := slices.Clone(mean), math.Inf(-1)
	for range c.iters {
		seeds := make([]uint64, c.episodes)
		for k := range seeds {
			seeds[k] = rng.Uint64()
		}
		for i := range cand {
			cand[i] = make([]float64, d.NumParams)
			for j := range cand[i] {
				cand[i][j] = mean[j] + std[j]*rng.NormFloat64()
			}
			s, err := d.returnOf(env, cand[i], seeds)
			if err != nil {
				return nil, err
			}
			score[i] = s
			idx[i] = i
		}
		slices.SortStableFunc(idx, func(a, b int) int { return -cmpFloat(score[a], score[b]) })
		if score[idx[0]] > bestScore {
			best, bestScore = slices.Clone(cand[idx[0]]), score[idx[0]]
		}
		for j := range mean {
			var mu, sq float64
			for _, i := range idx[:c.elite] {
				mu += cand[i][j]
			}
			mu /= float64(c.elite)
			for _, i := range idx[:c.elite] {
				sq += (cand[i][j] - mu) * (cand[i][j] - mu)
			}
			mean[j] = mu
			std[j] = math.Sqrt(sq/float64(c.elite)) + 0.02*d.initStd
		}
	}
	return best, nil
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// returnOf is the mean undiscounted return of the greedy policy with parameters p over episodes reset
// from seeds.
func (d *Domain) returnOf(env envs.Env, p []float64, seeds []uint64) (float64, error) {
	total := 0.0
	for _, s := range seeds {
		r, err := EpisodeReturn(env, rand.NewPCG(s, 1), func(obs []float64) int { return d.Act(p, obs) })
		if err != nil {
			return 0, err
		}
		total += r
	}
	return total / float64(len(seeds)), nil
}

// Subset is the first m experts (sharing parameter storage with e).
func (e *Experts) Subset(m int) (*Experts, error) {
	if err := check.Int("m", m, 1, e.Len()); err != nil {
		return nil, err
	}
	return &Experts{Domain: e.Domain, Params: e.Params.Slice(0, m, 0, e.Domain.NumParams).(*mat.Dense),
		Base: e.Base[:m], BaseVariation: e.BaseVariation, BaseParams: e.BaseParams}, nil
}
