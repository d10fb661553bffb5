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
	if cfg.Variant == actorcritic.Corrected && cfg.MaxEpisodeLen == 0 {
		cfg.MaxEpisodeLen = d.MaxSteps
	}
	return experiment.Trials(runs, 0, seed, progress, func(_ int, src rand.Source) (*actorcritic.Result, error) {
		env, err := envs.Make(d.Name)
		if err != nil {
			return nil, err
		}
		c := cfg
		c.Src = src
		return actorcritic.Run(env, envs.TabularFeatures{N: d.NumStates}, c)
	})
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
