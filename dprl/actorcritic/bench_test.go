package actorcritic

import (
	"math/rand/v2"
	"testing"

	"github.com/dprl-project/dprl/envs"
)

// benchRun times one run of 50 episodes of variant v on Taxi (500 one-hot states, 6 actions, λ = 0) and on
// the 100-state chain (2 actions, λ = 0.8), the paper's two domains.
func benchRun(b *testing.B, name string, nS int, v Variant, lambda float64) {
	cfg := Config{Variant: v, Episodes: 50, Gamma: 0.99, Lambda: lambda, AlphaV: 0.05, AlphaW: 0.05, AlphaU: 0.5,
		Explore: 0.1, Epsilon: 10, Delta: 1e-6, Clip: 1, NoiseMultiplier: 10, MaxEpisodeLen: 200}
	steps := 0
	for i := 0; b.Loop(); i++ {
		env, err := envs.Make(name)
		if err != nil {
			b.Fatal(err)
		}
		cfg.Src = rand.NewPCG(1, uint64(i))
		r, err := Run(env, envs.TabularFeatures{N: nS}, cfg)
		if err != nil {
			b.Fatal(err)
		}
		for _, l := range r.Lengths {
			steps += l
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(steps), "ns/step")
}

func BenchmarkRunTaxi(b *testing.B) {
	for _, v := range []Variant{NonDP, DPActor, DPCritic, DPBoth, Corrected} {
		b.Run(v.String(), func(b *testing.B) { benchRun(b, "taxi", 500, v, 0) })
	}
}

func BenchmarkRunChain(b *testing.B) {
	for _, v := range []Variant{NonDP, DPActor, DPCritic, DPBoth, Corrected} {
		b.Run(v.String(), func(b *testing.B) { benchRun(b, "mdp100", 100, v, 0.8) })
	}
}
