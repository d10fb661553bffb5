package adhoc

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"gonum.org/v1/plot"

	"github.com/dprl-project/dprl/dprl/figure"
	"github.com/dprl-project/dprl/mechanisms"
	"github.com/dprl-project/dprl/trajectory"
)

// EstimateFigure is notebook 07's interactive figure: the value of every state as method m estimates it
// privately at (eps, Setup.Delta) on d, over the given number of releases (independent noise, seeds
// seed, seed+1, …), drawn as the releases' median with the band holding the middle 95% of them (where one
// release is likely to land), beside the non-private reference (LSW on the whole file).
func (s *Setup) EstimateFigure(m Method, d *trajectory.Dataset, eps float64, releases int, seed uint64) (*plot.Plot, error) {
	if releases < 2 {
		return nil, &mechanisms.ParamError{Pkg: "adhoc", Param: "releases", Value: float64(releases), Allowed: "[2, ∞)"}
	}
	if err := s.Validate(d); err != nil {
		return nil, err
	}
	ref, err := s.Reference(d)
	if err != nil {
		return nil, err
	}
	refV := s.Values(ref)
	xs := make([]float64, len(refV))
	for i := range xs {
		xs[i] = float64(i)
	}
	vals := make([][]float64, releases)
	for r := range releases {
		rel, err := s.Estimate(m, d, eps, rand.NewPCG(seed, uint64(r)))
		if err != nil {
			return nil, fmt.Errorf("adhoc: %s at ε = %g: %w", m, eps, err)
		}
		vals[r] = s.Values(rel.Theta)
	}
	med, lo, hi := make([]float64, len(xs)), make([]float64, len(xs)), make([]float64, len(xs))
	col := make([]float64, releases)
	for i := range xs {
		for r := range releases {
			col[r] = vals[r][i]
		}
		sort.Float64s(col)
		med[i], lo[i], hi[i] = quantile(col, 0.5), quantile(col, 0.025), quantile(col, 0.975)
	}
	return figure.Curves(figure.Options{
		Title:  fmt.Sprintf("%s at ε = %g, δ = %g: %d releases (median, middle 95%%)", m, eps, s.Delta, releases),
		XLabel: "state s", YLabel: "value V(s)",
	},
		figure.Series{Name: m.String() + " (private)", X: xs, Y: [][]float64{med}, Lo: lo, Hi: hi},
		figure.Series{Name: "reference (non-private LSW)", X: xs, Y: [][]float64{refV}},
	)
}

// quantile is the p-quantile of sorted xs by linear interpolation between order statistics.
func quantile(sorted []float64, p float64) float64 {
	h := p * float64(len(sorted)-1)
	i := int(math.Floor(h))
	if i+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	return sorted[i] + (h-float64(i))*(sorted[i+1]-sorted[i])
}
