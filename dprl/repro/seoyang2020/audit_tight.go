package seoyang2020

import (
	"math/rand/v2"

	"github.com/dprl-project/dprl/dprl/actorcritic"
	"github.com/dprl-project/dprl/dprl/audit"
	"github.com/dprl-project/dprl/envs"
)

// canaryBandit is a one-state, two-action environment with one-step episodes: every episode pays 0 except
// episode 0 of a run (the canary episode), which pays reward. Neighbouring inputs replace that one episode
// (one patient): reward 0 against 100.
type canaryBandit struct {
	reward float64
	ep     int
	obs    []float64
}

func (b *canaryBandit) Name() string { return "canary-bandit" }
func (b *canaryBandit) Reset(rand.Source) ([]float64, error) {
	b.ep++
	return b.obs, nil
}
func (b *canaryBandit) Step(int) (envs.StepResult, error) {
	r := 0.0
	if b.ep == 1 {
		r = b.reward
	}
	return envs.StepResult{Obs: b.obs, Reward: r, Terminated: true}, nil
}
func (b *canaryBandit) ObservationSpace() envs.Box {
	return envs.Box{Low: []float64{0}, High: []float64{0}}
}
func (b *canaryBandit) NumActions() int          { return 2 }
func (b *canaryBandit) State() []float64         { return []float64{0} }
func (b *canaryBandit) SetState([]float64) error { return nil }

// ActorCriticTargets audit Seo & Yang's actor–critic end to end (actorcritic.Run, 20 episodes, the released
// model is the final weights; the statistic is the critic's value v of the state) under replace-one-episode
// neighbours, at the claimed (1, 10⁻⁵):
//
//   - as published (DP-Both, eq. (3) σ per step): the noise is σ·|C| with |C| the median of the gradient's
//     own entries, so a zero gradient gets no noise. With rewards 0 in every episode of input 0 the critic
//     never moves and v = 0 exactly; one episode paying 100 makes v ≠ 0. The threshold test finds no error in
//     its test runs and reports the largest ε its run count can show: the erratum (data-dependent noise
//     scale, no bound on the raw TD error) is exposed.
//   - corrected (fixed clip C = 1, σ from CorrectedNoise for episodes of H = 1 step): the audit stays below.
func ActorCriticTargets() []audit.Target {
	const eps, delta, episodes = 1.0, 1e-5, 20
	run := func(v actorcritic.Variant) audit.Procedure {
		return audit.Procedure{Name: "actor-critic " + v.String(), Run: func(nb int, src rand.Source) (float64, error) {
			env := &canaryBandit{reward: 100 * float64(nb), obs: []float64{0}}
			cfg := actorcritic.Config{Variant: v, Episodes: episodes, Gamma: 0.9, Lambda: 0.5, AlphaV: 0.1, AlphaW: 0.01, AlphaU: 0.1,
				Explore: 0.2, Epsilon: eps, Delta: delta, Clip: 1, MaxEpisodeLen: 1, Src: src}
			if v == actorcritic.Corrected {
				s, err := actorcritic.CorrectedNoise(eps, delta, 1)
				if err != nil {
					return 0, err
				}
				cfg.NoiseMultiplier = s
			}
			r, err := actorcritic.Run(env, envs.TabularFeatures{N: 1}, cfg)
			if err != nil {
				return 0, err
			}
			return r.V[0], nil
		}}
	}
	nb := "replace one episode (one patient): reward 0 vs 100"
	return []audit.Target{
		{Mechanism: "DP actor–critic (Seo & Yang), corrected", Neighbours: nb, Variant: "corrected", Holds: true, Epsilon: eps, Delta: delta,
			Method: audit.MethodThreshold, Procedure: run(actorcritic.Corrected), Runs: 20_000,
			Note: "clipped joint update, whole-run GDP accounting: holds; the final weights are a weak view of one episode"},
		{Mechanism: "DP actor–critic (Seo & Yang), published DP-Both", Neighbours: nb, Variant: "published: noise σ·median|g|, raw TD error after the noise",
			Epsilon: eps, Delta: delta, Method: audit.MethodThreshold, Procedure: run(actorcritic.DPBoth), Runs: 10_000,
			Note: "a zero gradient gets zero noise: v = 0 exactly on input 0, so the two inputs separate perfectly"},
	}
}
