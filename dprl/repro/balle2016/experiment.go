package balle2016

import (
	"fmt"
	"math/rand/v2"

	"github.com/dprl-project/dprl/dprl/experiment"
	"github.com/dprl-project/dprl/dprl/figure"
	"github.com/dprl-project/dprl/dprl/policyeval"
	"github.com/dprl-project/dprl/dprl/report"
	"github.com/dprl-project/dprl/dprl/repro"
)

// Grid sizes Fig. 1's runs: the trials per point and the batch sizes m.
type Grid struct {
	Trials int
	M      []float64
}

// DefaultGrid is PaperGrid (the paper's 20 trials on its batch grid); in quick mode 2 trials on
// m = 100, 500, 1000, 2000, 3500, 5000.
func DefaultGrid() Grid {
	if experiment.Quick() {
		return Grid{Trials: 2, M: []float64{100, 500, 1000, 2000, 3500, 5000}}
	}
	return PaperGrid()
}

// PaperGrid runs the paper's 20 trials on its batch grid m = 100, 500, 1000, 1500, …, 5000.
func PaperGrid() Grid {
	ms := []float64{100}
	for m := 500; m <= 5000; m += 500 {
		ms = append(ms, float64(m))
	}
	return Grid{Trials: 20, M: ms}
}

// estimates runs fn on a fresh batch of each size of the grid for every trial and returns nOut curves of
// values, each [trial][m]. Trial t's batches and fn's streams come from experiment.Trials' stream (seed 2016).
func estimates(g Grid, fn func(sig *policyeval.Signature, m int, src rand.Source) ([]float64, error), setup *Setup, nOut int, bar report.Bar) ([][][]float64, error) {
	out := make([][][]float64, nOut)
	for i := range out {
		out[i] = make([][]float64, g.Trials)
		for t := range out[i] {
			out[i][t] = make([]float64, len(g.M))
		}
	}
	res, err := experiment.Trials(g.Trials, 0, 2016, bar, func(t int, src rand.Source) ([][]float64, error) {
		rng := rand.New(src)
		r := make([][]float64, len(g.M))
		for k, mf := range g.M {
			sig, err := setup.Batch(int(mf), rand.NewPCG(rng.Uint64(), rng.Uint64()))
			if err != nil {
				return nil, err
			}
			if r[k], err = fn(sig, int(mf), rand.NewPCG(rng.Uint64(), rng.Uint64())); err != nil {
				return nil, err
			}
		}
		return r, nil
	})
	if err != nil {
		return nil, err
	}
	for t, r := range res {
		for k := range g.M {
			for i := range nOut {
				out[i][t][k] = r[k][i]
			}
		}
	}
	return out, nil
}

// paired is f(a[t][k], b[t][k]) for every trial t: a per-seed statistic of two curves at index k, both
// computed on the same batches.
func paired(a, b [][]float64, k int, f func(x, y float64) float64) []float64 {
	v := make([]float64, len(a))
	for t := range a {
		v[t] = f(a[t][k], b[t][k])
	}
	return v
}

func diff(x, y float64) float64  { return x - y }
func ratio(x, y float64) float64 { return x / y }

// tested decides c from the 95% Student-t interval of the mean of xs (one value per seed) against the test
// stated in c.Why: the paper's side is above boundary (above = true) or below it.
func tested(c repro.Claim, xs []float64, boundary float64, above bool) repro.Claim {
	m, lo, hi := experiment.MeanCI(xs, 0.95)
	return repro.Tested(c, m, lo, hi, len(xs), "%.3g", boundary, above)
}

// seeds lists the seeds of a grid's trials for the figures' captions.
func seeds(g Grid) string {
	return fmt.Sprintf("Bands: 95%% confidence interval of the mean over %d seeds (Student t); trial i draws its batches "+
		"and noise from the stream PCG(2016, i), i = 0, …, %d.", g.Trials, g.Trials-1)
}

// panel shows one log–log panel with 95% confidence bands: each series is a name and its [trial][x]
// values; refs are drawn after them (the θ = 0 references).
func panel(out report.Sink, title, xlabel, ylabel string, x []float64, names []string, ys [][][]float64, refs ...figure.Series) error {
	var series []figure.Series
	for i, n := range names {
		series = append(series, figure.Series{Name: n, X: x, Y: ys[i]})
	}
	p, err := figure.Curves(figure.Options{Title: title, XLabel: xlabel, YLabel: ylabel, LogX: true, LogY: true, Band: figure.BandCI95}, append(series, refs...)...)
	if err != nil {
		return err
	}
	return out.Figure(p)
}

// constant is a reference line at y over x (one trial, no band).
func constant(name string, x []float64, y float64) figure.Series {
	row := make([]float64, len(x))
	for i := range row {
		row[i] = y
	}
	return figure.Series{Name: name, X: x, Y: [][]float64{row}}
}
