package expertdp

import (
	"math/rand/v2"
	"testing"
)

func benchSetup(b *testing.B, m int) (*Experts, *Data) {
	b.Helper()
	e, err := NewExperts(CartPoleDomain(), ExpertsConfig{Bases: 30, Experts: m, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	data, err := GenerateData(e, DataConfig{PerExpert: 1, PMin: 0.02, Seed: 2})
	if err != nil {
		b.Fatal(err)
	}
	return e, data
}

// DataRelease at m = 3000 on CartPole with the paper's ε1 = 7.5 constants, examining every trajectory:
// the throughput the issue asks for (trajectories examined per second, early stops included).
func BenchmarkDataRelease3000(b *testing.B) {
	e, data := benchSetup(b, 3000)
	b.ResetTimer()
	for i := range b.N {
		r, err := DataRelease(data, e, ReleaseParams{Epsilon: 7.5, Delta: 0.9 / 3000, PMin: 0.02, T: len(data.Trajs), Src: rand.NewPCG(uint64(i), 1)})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(r.Queries())/float64(len(data.Trajs)), "queries/traj")
	}
	b.ReportMetric(float64(b.N*len(data.Trajs))/b.Elapsed().Seconds(), "traj/s")
}

// Counting every prefix of full-length (200-step) trajectories over 3000 experts: the worst case, when no
// query stops early.
func BenchmarkPrefixCountFull3000(b *testing.B) {
	e, data := benchSetup(b, 3000)
	c, _ := NewPrefixCounter(e, 0.02)
	n := 0
	b.ResetTimer()
	for i := range b.N {
		t := &data.Trajs[i%len(data.Trajs)]
		c.Start(t)
		for {
			if _, ok := c.Next(); !ok {
				break
			}
			n++
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "traj/s")
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "prefixes/s")
}

// One expert-level DP-SGD step (Poisson sampling over 3000 experts, b = 128, the 64×64 CQL network)
// against one plain step on a batch of 128.
func BenchmarkTrainStep(b *testing.B) {
	e, data := benchSetup(b, 3000)
	for _, c := range []struct {
		name string
		cfg  TrainConfig
	}{
		{"private", TrainConfig{P: 1, Batch: 128, NoiseMultiplier: 1, Epsilon: 1e6, Delta: 1e-3, EvalEpisodes: 1}},
		{"plain", TrainConfig{NonPrivate: true, Batch: 128, EvalEpisodes: 1}},
	} {
		b.Run(c.name, func(b *testing.B) {
			c.cfg.MaxSteps = b.N
			if _, err := Train(data, nil, e.Domain, c.cfg); err != nil {
				b.Fatal(err)
			}
		})
	}
}
