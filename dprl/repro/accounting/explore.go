package accounting

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/dprl-project/dprl/dprl/figure"
	"github.com/dprl-project/dprl/dprl/param"
)

// ExplorerSize is the explorer figure's size: taller than figure.DefaultSize, for the legend below the data.
var ExplorerSize = figure.Size{Width: 18 * vg.Centimeter, Height: 14 * vg.Centimeter, DPI: 2 * figure.NominalDPI}

// ExplorerN is the dataset size the explorer assumes for the without-replacement method (batch q·N).
const ExplorerN = 10000

// ExplorerStepGrid returns about points step counts from 1 to steps, evenly spaced on a log axis.
func ExplorerStepGrid(steps, points int) []int {
	var out []int
	for i := range points {
		t := int(math.Round(math.Pow(float64(steps), float64(i)/float64(points-1))))
		if len(out) == 0 || t > out[len(out)-1] {
			out = append(out, max(1, t))
		}
	}
	return out
}

// ExplorerPrecision is the relative precision of the explorer's noise calibrations (it prints three digits).
const ExplorerPrecision = 1e-3

// ExplorerResult is what the explorer figure shows: the PLD accountant's multiplier Z for the target, the
// step counts, every method's ε after each of them at Z (Curves, in the order of Methods), and the
// multiplier each method needs itself (Needs, NaN where none in its range meets the target).
type ExplorerResult struct {
	Z      float64
	Steps  []int
	Curves []Curve
	Needs  []float64
}

// Explore computes ExplorerFigure's values for target (eps, delta) after T steps at sampling rate q.
func Explore(eps, delta, q float64, T int) (*ExplorerResult, error) {
	if err := param.First(check.In("eps", eps, param.Positive), check.In("delta", delta, param.OpenUnit),
		check.In("q", q, param.Interval{Lo: 0, Hi: 1, HiClosed: true}), check.AtLeast("T", T, 1)); err != nil {
		return nil, err
	}
	base := Workload{Q: q, Z: 1, Steps: T, N: ExplorerN}
	zr, err := NoiseFor(RDP, base, eps, delta)
	if err != nil {
		return nil, fmt.Errorf("accounting: the RDP accountant finds no noise for (ε, δ) = (%g, %g) after %d steps at q = %g: %w", eps, delta, T, q, err)
	}
	z, err := NoiseNear(PLD, base, eps, delta, zr, ExplorerPrecision)
	if err != nil {
		return nil, fmt.Errorf("accounting: the PLD accountant finds no noise for (ε, δ) = (%g, %g) after %d steps at q = %g: %w", eps, delta, T, q, err)
	}
	r := &ExplorerResult{Z: z, Steps: ExplorerStepGrid(T, 7)}
	w := base
	w.Z = z
	r.Curves = EpsilonVsSteps(Methods, w, r.Steps, delta, 0, nil)
	for _, c := range grid(Methods, 1, 0, nil, func(m Method, _ int) (float64, error) {
		if m == PLD {
			return z, nil
		}
		return NoiseNear(m, base, eps, delta, z, ExplorerPrecision)
	}) {
		r.Needs = append(r.Needs, c.Y[0])
	}
	return r, nil
}

// ExplorerFigure is notebook 01's interactive figure for a DP-SGD-like workload: T steps of the Gaussian on
// samples drawn at rate q (Poisson, add/remove neighbours, Δ = C) with target (eps, delta). The noise
// multiplier z is the one the PLD accountant (exact up to its pessimistic discretisation) calibrates for the
// target after T steps, found from RDP's calibration with NoiseNear to ExplorerPrecision; the curves are ε
// after t ≤ T steps by every accountant at that z (the without-replacement methods: a batch of q·ExplorerN
// under replace-one), and the legend gives each accountant's ε after T steps and the z it would need itself
// (calibrated the same way, the accountants in parallel). A thin black line marks the target ε. A method
// that does not apply (Lemma 3 outside z ≥ 1, q < 1/(16z)) is a gap, and its legend says so. Explore
// computes the values.
func ExplorerFigure(eps, delta, q float64, T int) (*plot.Plot, error) {
	r, err := Explore(eps, delta, q, T)
	if err != nil {
		return nil, err
	}
	z, curves, needs := r.Z, r.Curves, r.Needs
	xs := floats(r.Steps)
	series := make([]figure.Series, len(curves))
	for i, c := range curves {
		e, zm := c.Y[len(c.Y)-1], needs[i]
		name := fmt.Sprintf("%s: ε(T) = %.3g", c.Method, e)
		if math.IsNaN(e) {
			name = fmt.Sprintf("%s: ε(T) —", c.Method)
			if c.Method == MomentsLemma3 {
				name += " (the lemma needs z ≥ 1, q < 1/(16z))"
			}
		}
		if math.IsNaN(zm) {
			name += ", no z in range meets the target"
		} else {
			name += fmt.Sprintf(", needs z = %.3g", zm)
		}
		series[i] = figure.Series{Name: name, X: xs, Y: [][]float64{c.Y}}
	}
	p, err := figure.Curves(figure.Options{
		Title:  fmt.Sprintf("ε after t steps at z = σ/C = %.3g (PLD's noise for ε = %g, δ = %g after T = %d, q = %g)", z, eps, delta, T, q),
		XLabel: "steps t", YLabel: "ε at δ", LogX: true, LogY: true, Band: figure.BandNone,
	}, series...)
	if err != nil {
		return nil, err
	}
	target, err := plotter.NewLine(plotter.XYs{{X: 1, Y: eps}, {X: float64(T), Y: eps}})
	if err == nil {
		target.LineStyle = draw.LineStyle{Color: color.Black, Width: vg.Points(0.8)} // solid and thin, unlike every curve
		p.Add(target)
		p.Legend.Add("target ε", target)
	}
	return p, nil
}
