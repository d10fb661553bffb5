package wanghegde2019

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/dprl-project/dprl/dprl/figure"
	"github.com/dprl-project/dprl/dprl/report"
	"github.com/dprl-project/dprl/mechanisms"
)

// NoisePaths plots one lazily sampled OU path (σ = 0.637) at the code's β = 1 and one at the theory's
// β = 2167 (the second worked setting), each first queried at 2000 random points and then drawn on a grid
// of 501 states; then it measures the sampler's throughput on queries queries at new points and on as many
// repeats of one stored point, and says whether the stored point still returns its first answer.
func NoisePaths(out report.Sink, queries int) error {
	var series []figure.Series
	for i, beta := range []float64{1, 2167} {
		p, err := mechanisms.NewOUPath(0.637, beta, rand.NewPCG(4, uint64(i)))
		if err != nil {
			return err
		}
		rng := rand.New(rand.NewPCG(5, uint64(i)))
		for range 2000 {
			p.At(rng.Float64())
		}
		xs := make([]float64, 501)
		ys := make([]float64, 501)
		for k := range xs {
			xs[k] = float64(k) / 500
			ys[k] = p.At(xs[k])
		}
		series = append(series, figure.Series{Name: fmt.Sprintf("β = %g", beta), X: xs, Y: [][]float64{ys}})
	}
	fig, err := figure.Curves(figure.Options{Title: "OU sample paths, σ = 0.637", XLabel: "state s", YLabel: "g(s)", Band: figure.BandNone}, series...)
	if err != nil {
		return err
	}
	if err := out.Figure(fig); err != nil {
		return err
	}

	p, err := mechanisms.NewOUPath(0.637, 2167, rand.NewPCG(6, 6))
	if err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(7, 7))
	n := queries
	start := time.Now()
	for range n {
		p.At(rng.Float64())
	}
	fresh := time.Since(start)
	first := p.At(0.5)
	start = time.Now()
	for range n {
		p.At(0.5)
	}
	out.Markdown(fmt.Sprintf("%d new queries: %v (%.2g queries/s); %d repeats of one stored point: %v, all equal to the first answer: %v.",
		n, report.FormatDuration(fresh), float64(n)/fresh.Seconds(), n, report.FormatDuration(time.Since(start)), p.At(0.5) == first))
	return nil
}
