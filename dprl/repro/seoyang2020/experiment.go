package seoyang2020

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/dprl-project/dprl/dprl/actorcritic"
	"github.com/dprl-project/dprl/dprl/experiment"
	"github.com/dprl-project/dprl/envs"
)

// Domain is one of the paper's environments with its best DP-Actor hyper-parameters (Table 2).
type Domain struct {
	Name      string // registry name
	Label     string
	NumStates int
	MaxSteps  int // the time limit, H in the corrected accounting
	// MinReward is the lowest reward of one step (MDP-100: −1; Taxi: −10 for an illegal pick-up or
	// drop-off), so MaxSteps·MinReward is the lowest return an episode can have.
	MinReward float64
	Base      actorcritic.Config
}

// Domains returns MDP-100 and Taxi with Table 2's step sizes and λ, γ = 0.99, δ = 1e−6, ε = 10 and
// exploration 0.1 (the behaviour takes the greedy action with probability 0.9, as the paper describes), 500
// episodes. MDP-100 episodes are cut at 1000 steps, Taxi's at 200.
func Domains() []Domain {
	common := actorcritic.Config{Episodes: 500, Gamma: 0.99, Explore: 0.1, Epsilon: 10, Delta: 1e-6}
	mdp := common
	mdp.AlphaV, mdp.AlphaW, mdp.AlphaU, mdp.Lambda = 0.01, 0.5, 0.5, 0.8
	taxi := common
	taxi.AlphaV, taxi.AlphaW, taxi.AlphaU, taxi.Lambda = 0.05, 0.05, 0.5, 0
	return []Domain{
		{Name: "mdp100", Label: "MDP-100", NumStates: 100, MaxSteps: 1000, MinReward: -1, Base: mdp},
		{Name: "taxi", Label: "Taxi", NumStates: 500, MaxSteps: 200, MinReward: -10, Base: taxi},
	}
}

// DomainNamed is the domain of Domains with the given registry name (mdp100, taxi).
func DomainNamed(name string) (Domain, error) {
	var names []string
	for _, d := range Domains() {
		if d.Name == name {
			return d, nil
		}
		names = append(names, d.Name)
	}
	return Domain{}, check.OneOf("domain", name, names...)
}

// Setting is what the tuning chooses for a condition: the actor's and the critic's step sizes α_u and α_v,
// the two through which the DP variants' noise reaches the weights. α_w, λ, γ and the exploration stay
// Table 2's.
type Setting struct{ AlphaU, AlphaV float64 }

func (s Setting) String() string { return fmt.Sprintf("α_u = %g, α_v = %g", s.AlphaU, s.AlphaV) }

// Table2 is the domain's setting in the paper's Table 2 (DP-Actor's optimum).
func (d Domain) Table2() Setting { return Setting{AlphaU: d.Base.AlphaU, AlphaV: d.Base.AlphaV} }

// TuningGrid is the grid each condition is tuned over, Table 2's setting first: α_u ∈ {0.5, 0.1} ×
// α_v ∈ {Table 2's, the next lower value of Table 1} (MDP-100: {0.01, 0.005}; Taxi: {0.05, 0.01}). Table 1
// has 6⁴ step-size combinations and 6 λ per domain; we keep the two step sizes that scale the noise, at
// Table 2's values and one step towards less noise each (lower α_v shrinks DP-Critic's noise in v, lower
// α_u DP-Actor's in u), where the other conditions' optima would move if DP-Actor's were not theirs.
func (d Domain) TuningGrid() []Setting {
	t2 := d.Table2()
	lower := map[float64]float64{0.5: 0.1, 0.1: 0.05, 0.05: 0.01, 0.01: 0.005, 0.005: 0.001}
	var grid []Setting
	for _, au := range []float64{t2.AlphaU, lower[t2.AlphaU]} {
		for _, av := range []float64{t2.AlphaV, lower[t2.AlphaV]} {
			grid = append(grid, Setting{AlphaU: au, AlphaV: av})
		}
	}
	return grid
}

// The conditions the notebook runs, by the names its tables give them (column variant): Non-DP, the three
// published DP variants, DP-Actor acting by softmax (Fig. 5), the random policy and the corrected variant;
// and Non-DP on the other seeds (OtherSeed), the reference of the cosine study.
const (
	NonDP          = "non-dp"
	DPActor        = "dp-actor"
	DPCritic       = "dp-critic"
	DPBoth         = "dp-both"
	DPActorSoftmax = "dp-actor-softmax"
	Random         = "random"
	Corrected      = "corrected"
	NonDPOtherSeed = "non-dp-other-seed"
)

// Conditions lists the condition names in the order above.
func Conditions() []string {
	return []string{NonDP, DPActor, DPCritic, DPBoth, DPActorSoftmax, Random, Corrected, NonDPOtherSeed}
}

// Label is how figures and claims name a condition ("Non-DP", "DP-Actor", …).
func Label(condition string) string {
	switch condition {
	case NonDP:
		return "Non-DP"
	case DPActor:
		return "DP-Actor"
	case DPCritic:
		return "DP-Critic"
	case DPBoth:
		return "DP-Both"
	case DPActorSoftmax:
		return "DP-Actor (softmax)"
	case Random:
		return "Random policy (θ = 0)"
	case Corrected:
		return "Corrected"
	case NonDPOtherSeed:
		return "Non-DP, other seeds"
	}
	return condition
}

// StepEpsilon is the per-step ε a published variant runs at for the nominal per-step ε eps of DP-Actor and
// DP-Critic: eps itself, and eps/√2 for DP-Both, which releases two noised vectors per step, so that its
// composed ε per patient equals theirs (ComposedPublishedEpsilon).
func StepEpsilon(condition string, eps float64) float64 {
	if condition == DPBoth {
		return eps / math.Sqrt2
	}
	return eps
}

// Config is the configuration of a condition on the domain for `episodes` episodes with step sizes s: the
// domain's Base (Table 2) with the variant; epsilon is the published variants' nominal per-step ε
// (StepEpsilon; ignored by Non-DP and the random policy), and the corrected variant's whole-run ε per
// patient at Delta, for which it gets clip 1, actorcritic.CorrectedNoise's σ and H = MaxSteps. The random
// policy (θ = 0) is Non-DP with α_u = 0, acting by sampling π_u, which stays uniform.
func (d Domain) Config(condition string, epsilon float64, episodes int, s Setting) (actorcritic.Config, error) {
	c := d.Base
	c.AlphaU, c.AlphaV = s.AlphaU, s.AlphaV
	switch condition {
	case NonDP, NonDPOtherSeed:
	case DPActor:
		c.Variant = actorcritic.DPActor
	case DPActorSoftmax:
		c.Variant, c.Acting = actorcritic.DPActor, actorcritic.Softmax
	case DPCritic:
		c.Variant = actorcritic.DPCritic
	case DPBoth:
		c.Variant = actorcritic.DPBoth
	case Random:
		c.Variant, c.Acting, c.AlphaU = actorcritic.NonDP, actorcritic.Softmax, 0
	case Corrected:
		sigma, err := actorcritic.CorrectedNoise(epsilon, Delta, d.MaxSteps)
		if err != nil {
			return actorcritic.Config{}, err
		}
		c.Variant, c.Clip, c.NoiseMultiplier, c.MaxEpisodeLen = actorcritic.Corrected, 1, sigma, d.MaxSteps
	default:
		return actorcritic.Config{}, check.OneOf("condition", condition, Conditions()...)
	}
	if c.Variant != actorcritic.NonDP && c.Variant != actorcritic.Corrected {
		c.Epsilon = StepEpsilon(condition, epsilon)
	}
	c.Episodes = episodes
	return c, nil
}

// RunMany runs `runs` independent runs of cfg (with cfg.Src replaced by the streams rand.NewPCG(seed, r))
// in parallel, deterministically.
func (d Domain) RunMany(cfg actorcritic.Config, runs int, seed uint64, progress experiment.Progress) ([]*actorcritic.Result, error) {
	if err := check.AtLeast("runs", runs, 1); err != nil {
		return nil, err
	}
	return experiment.Trials(runs, 0, seed, progress, func(_ int, src rand.Source) (*actorcritic.Result, error) {
		return d.Run(cfg, src)
	})
}

// Run is one run of cfg on a fresh environment of the domain, drawing from src (cfg.Src is replaced). A
// corrected configuration without MaxEpisodeLen gets the domain's MaxSteps, the H its accounting uses, so
// that every episode makes exactly H releases.
func (d Domain) Run(cfg actorcritic.Config, src rand.Source) (*actorcritic.Result, error) {
	if cfg.Variant == actorcritic.Corrected && cfg.MaxEpisodeLen == 0 {
		cfg.MaxEpisodeLen = d.MaxSteps
	}
	env, err := envs.Make(d.Name)
	if err != nil {
		return nil, err
	}
	cfg.Src = src
	return actorcritic.Run(env, envs.TabularFeatures{N: d.NumStates}, cfg)
}

// Lowest is the lowest return an episode of the domain can have, MaxSteps·MinReward: what an episode
// after the weights overflowed counts as.
func (d Domain) Lowest() float64 { return float64(d.MaxSteps) * d.MinReward }

// Score is a run's mean return over its last `window` episodes (all of them when window ≥ its length),
// each episode after the weights overflowed (a NaN return) counted as Lowest, so that a diverged run never
// counts in favour of a claim.
func (d Domain) Score(returns []float64, window int) float64 {
	window = min(window, len(returns))
	s := 0.0
	for _, r := range returns[len(returns)-window:] {
		if math.IsNaN(r) || math.IsInf(r, 0) {
			r = d.Lowest()
		}
		s += r
	}
	return s / float64(window)
}

// ReturnStd is the standard deviation of a run's finite episode returns.
func ReturnStd(returns []float64) float64 {
	x := appendFinite(nil, returns)
	m := mean(x)
	s := 0.0
	for _, v := range x {
		s += (v - m) * (v - m)
	}
	return math.Sqrt(s / float64(len(x)-1))
}

// Summary is the mean return over the first and the last k episodes (averaged over runs) and the standard
// deviation of all episode returns over all runs (our reading of the paper's "performance standard
// deviation", Table 3), over finite returns. Diverged counts the runs whose weights became non-finite; a
// window in which every run diverged has a NaN mean.
type Summary struct {
	First, Last, Std float64
	Diverged         int
}

// Summarize computes a Summary over the runs with window k.
func Summarize(rs []*actorcritic.Result, k int) (Summary, error) {
	if len(rs) == 0 {
		return Summary{}, fmt.Errorf("seoyang2020: no runs to summarize")
	}
	if err := check.AtLeast("k", k, 1); err != nil {
		return Summary{}, err
	}
	var s Summary
	var first, last, all []float64
	for _, r := range rs {
		if len(r.Returns) < k {
			return Summary{}, fmt.Errorf("seoyang2020: a run has %d episodes, fewer than the window %d", len(r.Returns), k)
		}
		if r.DivergedAt >= 0 {
			s.Diverged++
		}
		first = appendFinite(first, r.Returns[:k])
		last = appendFinite(last, r.Returns[len(r.Returns)-k:])
		all = appendFinite(all, r.Returns)
	}
	s.First, s.Last = mean(first), mean(last)
	s.Std = ReturnStd(all)
	return s, nil
}

func appendFinite(dst, x []float64) []float64 {
	for _, v := range x {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			dst = append(dst, v)
		}
	}
	return dst
}

// mean is the average of x (NaN for an empty x).
func mean(x []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}
