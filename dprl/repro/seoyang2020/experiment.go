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

// RandomPolicy is the random-policy reference of the domain (θ = 0): Off-PAC without noise with α_u = 0,
// acting by sampling π_u, which then stays uniform over the actions for the whole run.
func (d Domain) RandomPolicy() actorcritic.Config {
	c := d.Base
	c.Variant, c.Acting, c.AlphaU = actorcritic.NonDP, actorcritic.Softmax, 0
	return c
}

// Finals is each run's mean return over its last `window` episodes. A run whose weights overflowed
// (DivergedAt ≥ 0) has no final return; it gets the lowest return an episode can have
// (MaxSteps·MinReward), so that it never counts in favour of a claim that a setting is stable, and is
// counted in diverged.
func (d Domain) Finals(rs []*actorcritic.Result, window int) (finals []float64, diverged int, err error) {
	finals = make([]float64, len(rs))
	for i, r := range rs {
		s, err := Summarize([]*actorcritic.Result{r}, window)
		if err != nil {
			return nil, 0, err
		}
		finals[i] = s.Last
		if s.Diverged > 0 {
			finals[i] = float64(d.MaxSteps) * d.MinReward
			diverged++
		}
	}
	return finals, diverged, nil
}

// RunMany runs `runs` independent runs of cfg (with cfg.Src replaced by trial streams from seed) in
// parallel, deterministically. A corrected configuration without MaxEpisodeLen gets the domain's MaxSteps,
// the H its accounting uses.
func (d Domain) RunMany(cfg actorcritic.Config, runs int, seed uint64, progress experiment.Progress) ([]*actorcritic.Result, error) {
	if err := check.AtLeast("runs", runs, 1); err != nil {
		return nil, err
	}
	return experiment.Trials(runs, 0, seed, progress, func(_ int, src rand.Source) (*actorcritic.Result, error) {
		return d.Run(cfg, src)
	})
}

// Run is one run of cfg on a fresh environment of the domain, drawing from src (cfg.Src is replaced), as
// each run of RunMany: a corrected configuration without MaxEpisodeLen gets the domain's MaxSteps, the H its
// accounting uses, so that every episode makes exactly H releases.
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

// The conditions the notebook runs, by the names the sweep experiment seoyang2020/returns gives them (its
// parameter variant): Non-DP, the three published DP variants, the random policy and the corrected variant;
// and Non-DP on the other seeds (OtherSeed), the reference of the cosine study, which is Non-DP's
// configuration drawn from other streams.
const (
	NonDP          = "non-dp"
	DPActor        = "dp-actor"
	DPCritic       = "dp-critic"
	DPBoth         = "dp-both"
	Random         = "random"
	Corrected      = "corrected"
	NonDPOtherSeed = "non-dp-other-seed"
)

// Conditions lists the condition names in the order above.
func Conditions() []string {
	return []string{NonDP, DPActor, DPCritic, DPBoth, Random, Corrected, NonDPOtherSeed}
}

// Config is the configuration of a condition on the domain for `episodes` episodes, as Fig2, Fig3 and
// RealEpsilon run it: the domain's Base (Table 2) with the variant; epsilon is the published variants'
// per-step ε (ignored by Non-DP and the random policy), and the corrected variant's whole-run ε per
// patient at Delta, for which it gets clip 1, actorcritic.CorrectedNoise's σ and H = MaxSteps.
func (d Domain) Config(condition string, epsilon float64, episodes int) (actorcritic.Config, error) {
	c := d.Base
	switch condition {
	case NonDP, NonDPOtherSeed:
	case DPActor:
		c.Variant, c.Epsilon = actorcritic.DPActor, epsilon
	case DPCritic:
		c.Variant, c.Epsilon = actorcritic.DPCritic, epsilon
	case DPBoth:
		c.Variant, c.Epsilon = actorcritic.DPBoth, epsilon
	case Random:
		c = d.RandomPolicy()
	case Corrected:
		s, err := actorcritic.CorrectedNoise(epsilon, Delta, d.MaxSteps)
		if err != nil {
			return actorcritic.Config{}, err
		}
		c.Variant, c.Clip, c.NoiseMultiplier, c.MaxEpisodeLen = actorcritic.Corrected, 1, s, d.MaxSteps
	default:
		return actorcritic.Config{}, check.OneOf("condition", condition, Conditions()...)
	}
	c.Episodes = episodes
	return c, nil
}

// ReturnsByRun collects the per-episode returns of each run (rows: runs), for figure.Series.
func ReturnsByRun(rs []*actorcritic.Result) [][]float64 {
	out := make([][]float64, len(rs))
	for i, r := range rs {
		out[i] = r.Returns
	}
	return out
}

// ReturnStds is the standard deviation of each run's finite episode returns (one value per seed).
func ReturnStds(rs []*actorcritic.Result) []float64 {
	out := make([]float64, len(rs))
	for i, r := range rs {
		x := appendFinite(nil, r.Returns)
		m := mean(x)
		s := 0.0
		for _, v := range x {
			s += (v - m) * (v - m)
		}
		out[i] = math.Sqrt(s / float64(len(x)-1))
	}
	return out
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
		return Summary{}, fmt.Errorf("actorcritic: no runs to summarize")
	}
	if err := check.AtLeast("k", k, 1); err != nil {
		return Summary{}, err
	}
	var s Summary
	var first, last, all []float64
	for _, r := range rs {
		if len(r.Returns) < k {
			return Summary{}, fmt.Errorf("actorcritic: a run has %d episodes, fewer than the window %d", len(r.Returns), k)
		}
		if r.DivergedAt >= 0 {
			s.Diverged++
		}
		first = appendFinite(first, r.Returns[:k])
		last = appendFinite(last, r.Returns[len(r.Returns)-k:])
		all = appendFinite(all, r.Returns)
	}
	s.First, s.Last = mean(first), mean(last)
	m := mean(all)
	for _, v := range all {
		s.Std += (v - m) * (v - m)
	}
	s.Std = math.Sqrt(s.Std / float64(len(all)-1))
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
