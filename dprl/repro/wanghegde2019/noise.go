package wanghegde2019

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/dprl-project/dprl/dprl/figure"
	"github.com/dprl-project/dprl/dprl/report"
	"github.com/dprl-project/dprl/mechanisms"
)

// PathSamples is the data of the noise figure: one lazily sampled OU path (σ = 0.637) per kernel rate, drawn
// on a grid of states after 2000 random queries, and the sampler's throughput on Queries new points and on
// as many repeats of one stored point, which must all return its first answer (Consistent).
type PathSamples struct {
	Betas          []float64
	X              []float64
	G              [][]float64 // [rate][grid point]
	Queries        int
	Fresh, Repeats time.Duration
	Consistent     bool
}

// SamplePaths draws the paths at the code's β = 1 and the theory's β = 2167 (the second worked setting,
// ours), each first queried at 2000 random points and then on a grid of 501 states, and times queries
// queries at new points and as many repeats of one stored point.
func SamplePaths(queries int) (*PathSamples, error) {
	s := &PathSamples{Betas: []float64{1, 2167}, X: make([]float64, 501), Queries: queries}
	for k := range s.X {
		s.X[k] = float64(k) / 500
	}
	for i, beta := range s.Betas {
		p, err := mechanisms.NewOUPath(0.637, beta, rand.NewPCG(4, uint64(i)))
		if err != nil {
			return nil, err
		}
		rng := rand.New(rand.NewPCG(5, uint64(i)))
		for range 2000 {
			p.At(rng.Float64())
		}
		g := make([]float64, len(s.X))
		for k, x := range s.X {
			g[k] = p.At(x)
		}
		s.G = append(s.G, g)
	}
	p, err := mechanisms.NewOUPath(0.637, 2167, rand.NewPCG(6, 6))
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(7, 7))
	start := time.Now()
	for range queries {
		p.At(rng.Float64())
	}
	s.Fresh = time.Since(start)
	first := p.At(0.5)
	s.Consistent = true
	start = time.Now()
	for range queries {
		s.Consistent = s.Consistent && p.At(0.5) == first
	}
	s.Repeats = time.Since(start)
	return s, nil
}

// PathFigure draws the sampled paths; its note gives the throughput and whether repeated queries agreed.
func PathFigure(s *PathSamples) (Figure, error) {
	var series []figure.Series
	for i, beta := range s.Betas {
		series = append(series, figure.Series{Name: fmt.Sprintf("β = %g", beta), X: s.X, Y: [][]float64{s.G[i]}})
	}
	p, err := figure.Curves(figure.Options{Title: "OU sample paths, σ = 0.637", XLabel: "state s", YLabel: "g(s)", Band: figure.BandNone}, series...)
	if err != nil {
		return Figure{}, err
	}
	return Figure{Plot: p, Note: fmt.Sprintf("%d new queries: %v (%.2g queries/s); %d repeats of one stored point: %v, all equal to the first answer: %v.",
		s.Queries, report.FormatDuration(s.Fresh), float64(s.Queries)/s.Fresh.Seconds(), s.Queries, report.FormatDuration(s.Repeats), s.Consistent)}, nil
}
