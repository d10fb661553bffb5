package accounting

import (
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

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

// explorerCalibrates lists the methods whose noise calibration is fast enough (well under a second) to
// redo on every move of a slider; the explorer prints their z.
var explorerCalibrates = map[Method]bool{RDP: true, MomentsAccountant: true, MomentsLemma3: true, RDPWithoutReplacement: true}

// ExplorerFigure is notebook 01's interactive figure for a DP-SGD-like workload: T steps of the Gaussian on
// samples drawn at rate q with target (eps, delta). The noise multiplier z is the one the RDP accountant
// calibrates for the target after T steps; the curves are ε after t ≤ T steps by every accountant at that z,
// and the legend gives each accountant's ε after T steps and, for the accountants that calibrate in well
// under a second (RDP, the moments accountant and its Lemma 3 bound, without replacement), the z it would
// need itself. A thin black line marks the target ε.
func ExplorerFigure(eps, delta, q float64, T int) (*plot.Plot, error) {
	if err := param.First(check.In("eps", eps, param.Positive), check.In("delta", delta, param.OpenUnit),
		check.In("q", q, param.Interval{Lo: 0, Hi: 1, HiClosed: true}), check.AtLeast("T", T, 1)); err != nil {
		return nil, err
	}
	base := Workload{Q: q, Z: 1, Steps: T, N: ExplorerN}
	z, err := NoiseFor(RDP, base, eps, delta)
	if err != nil {
		return nil, fmt.Errorf("accounting: the RDP accountant finds no noise for (ε, δ) = (%g, %g) after %d steps at q = %g: %w", eps, delta, T, q, err)
	}
	steps := ExplorerStepGrid(T, 7)
	xs := make([]float64, len(steps))
	for i, t := range steps {
		xs[i] = float64(t)
	}
	w := base
	w.Z = z
	curves := EpsilonVsSteps(Methods, w, steps, delta, 0, nil)
	series := make([]figure.Series, len(curves))
	for i, c := range curves {
		name := fmt.Sprintf("%s: ε(T) = %.3g", c.Method, c.Y[len(c.Y)-1])
		if explorerCalibrates[c.Method] {
			if zm, err := NoiseFor(c.Method, base, eps, delta); err == nil {
				name += fmt.Sprintf(", needs z = %.3g", zm)
			} else {
				name += ", no z ≤ 100"
			}
		}
		series[i] = figure.Series{Name: name, X: xs, Y: [][]float64{c.Y}}
	}
	p, err := figure.Curves(figure.Options{
		Title:  fmt.Sprintf("ε after t steps at z = σ/C = %.3g (RDP's noise for ε = %g, δ = %g after T = %d, q = %g)", z, eps, delta, T, q),
		XLabel: "steps t", YLabel: "ε at δ", LogX: true, LogY: true, Band: figure.BandNone,
	}, series...)
	if err != nil {
		return nil, err
	}
	target, err := plotter.NewLine(plotter.XYs{{X: 1, Y: eps}, {X: float64(T), Y: eps}})
	if err == nil {
		target.LineStyle = figure.LineStyle(6)
		target.Width /= 2
		p.Add(target)
		p.Legend.Add("target ε", target)
	}
	return p, nil
}
