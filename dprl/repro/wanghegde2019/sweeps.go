package wanghegde2019

import (
	"fmt"
	"math"

	"github.com/dprl-project/dprl/dprl/figure"
	"github.com/dprl-project/dprl/dprl/fnq"
	"github.com/dprl-project/dprl/dprl/report"
)

// sweepPoint is Algorithm 1's calibration at one point of a sweep: Theorem 5 as printed (its σ at the worked
// setting's k, ours) and the corrected one.
type sweepPoint struct {
	pub, cor       fnq.Calibration
	pubK, corK     *fnq.Constants
	pubSigma, corS float64
}

// calibrate computes the printed and corrected calibrations of c.
func calibrate(c fnq.Calibration) (sweepPoint, error) {
	var p sweepPoint
	var err error
	p.pub = c
	if p.pubK, err = c.Compute(); err != nil {
		return p, err
	}
	if p.cor, err = Corrected(c); err != nil {
		return p, err
	}
	if p.corK, err = p.cor.Compute(); err != nil {
		return p, err
	}
	p.pubSigma, p.corS = p.pubK.SigmaThm5, p.corK.SigmaGDP
	return p, nil
}

// sigmaFigure draws σ against x for the sweep points: Theorem 5's printed σ where the theorem applies and
// where it does not (no guarantee), and the corrected σ.
func sigmaFigure(out report.Sink, title, xlabel string, logX bool, xs []float64, pts []sweepPoint) error {
	in, outside, cor := make([]float64, len(xs)), make([]float64, len(xs)), make([]float64, len(xs))
	for i, p := range pts {
		in[i], outside[i] = math.NaN(), math.NaN()
		if p.pubK.Covered {
			in[i] = p.pubSigma
		} else {
			outside[i] = p.pubSigma
		}
		cor[i] = p.corS
	}
	fig, err := figure.Curves(figure.Options{Title: title, XLabel: xlabel, YLabel: "path noise σ", LogX: logX, LogY: true, Band: figure.BandNone, LegendBottom: true},
		figure.Series{Name: fmt.Sprintf("Theorem 5's σ as printed at k = %g (worked setting, ours), where the theorem applies", pts[0].pub.K), X: xs, Y: [][]float64{in}},
		figure.Series{Name: fmt.Sprintf("Theorem 5's σ as printed at k = %g, outside the theorem [%s]", pts[0].pub.K, NoGuaranteeLabel), X: xs, Y: [][]float64{outside}},
		figure.Series{Name: "corrected: k raised to k*, exact σ for both outputs", X: xs, Y: [][]float64{cor}})
	if err != nil {
		return err
	}
	return out.Figure(fig)
}

// sweepRow is a table row for one sweep point.
func sweepRow(x string, p sweepPoint) []string {
	return []string{x, fmt.Sprint(p.pubK.Steps), fmt.Sprintf("%.3g", p.pubSigma), fmt.Sprintf("%.0f", p.pubK.TailMargin), yesNo(p.pubK.Covered),
		fmt.Sprintf("%g", p.cor.K), fmt.Sprintf("%.3g", p.corS), fmt.Sprintf("%.3g", p.corK.Beta)}
}

var sweepHeader = []string{"T′", "σ Thm 5 as printed (k of the worked setting)", "2k − 8.68√βσ", "Thm 5 applies", "k*", "σ corrected", "β corrected"}

// SampleGrid is the number of samples T of SigmaVsSamples, 10³ to 10⁶.
var SampleGrid = []int{1000, 2000, 5000, 10000, 20000, 50000, 100000, 200000, 500000, 1000000}

// SigmaVsSamples shows how Algorithm 1's σ grows with the number of samples T up to 10⁶ at the worked setting
// (ours) of ε = 0.9 (δ = 1e−4, B = 128, α = 7e−5, L = 2, a fresh path every step): Theorem 5's σ as printed
// at its k = 210, marked where the theorem's precondition fails, and the corrected σ with k raised to the
// smallest level the corrected tail allows (Corrected), with a table and the growth exponent of both.
func SigmaVsSamples(out report.Sink) error {
	w, k := WorkedConfig(0.9)
	xs := make([]float64, len(SampleGrid))
	pts := make([]sweepPoint, len(SampleGrid))
	var rows [][]string
	for i, T := range SampleGrid {
		c := w.Calibration(0.9, k)
		c.T, c.Resets = T, T/c.B
		p, err := calibrate(c)
		if err != nil {
			return err
		}
		xs[i], pts[i] = float64(T), p
		rows = append(rows, append([]string{fmt.Sprint(T)}, sweepRow(fmt.Sprint(p.pubK.Steps), p)[1:]...))
	}
	if err := sigmaFigure(out, "Algorithm 1's σ against the number of samples T (ε = 0.9, δ = 1e−4, L = 2)", "samples T", true, xs, pts); err != nil {
		return err
	}
	out.Table(append([]string{"T"}, sweepHeader...), rows)
	n := len(pts) - 1
	slope := func(a, b float64) float64 { return math.Log(b/a) / math.Log(xs[n]/xs[n-3]) }
	out.Markdown(fmt.Sprintf("From T = %g to %g, Theorem 5's σ at fixed k grows as T^%.2f, the corrected σ as T^%.2f: the precondition "+
		"2k > 8.68√β·σ needs k to grow like √T (8.68√β·σ hardly depends on k), and σ grows like √(k·T). The number of queries of the "+
		"released function never enters; the number of samples does.", xs[n-3], xs[n], slope(pts[n-3].pubSigma, pts[n].pubSigma), slope(pts[n-3].corS, pts[n].corS)))
	return nil
}

// EpsilonGrid and DeltaGrid are the privacy levels of SigmaVsPrivacy (Calibration needs ε < 1).
var (
	EpsilonGrid = []float64{0.1, 0.2, 0.3, 0.45, 0.6, 0.75, 0.9, 0.99}
	DeltaGrid   = []float64{1e-10, 1e-8, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2}
)

// SigmaVsPrivacy shows Algorithm 1's σ against ε (δ = 1e−4) and against δ (ε = 0.9) at the worked setting
// (ours) of ε = 0.9, printed and corrected as in SigmaVsSamples, with tables.
func SigmaVsPrivacy(out report.Sink) error {
	w, k := WorkedConfig(0.9)
	for _, s := range []struct {
		title, xlabel, col string
		logX               bool
		xs                 []float64
		set                func(c *fnq.Calibration, x float64)
	}{
		{"Algorithm 1's σ against ε (δ = 1e−4, T = 5000, L = 2)", "ε", "ε", false, EpsilonGrid, func(c *fnq.Calibration, x float64) { c.Epsilon = x }},
		{"Algorithm 1's σ against δ (ε = 0.9, T = 5000, L = 2)", "δ", "δ", true, DeltaGrid, func(c *fnq.Calibration, x float64) { c.Delta = x }},
	} {
		pts := make([]sweepPoint, len(s.xs))
		var rows [][]string
		for i, x := range s.xs {
			c := w.Calibration(0.9, k)
			s.set(&c, x)
			pt, err := calibrate(c)
			if err != nil {
				return err
			}
			pts[i] = pt
			rows = append(rows, append([]string{fmt.Sprintf("%g", x)}, sweepRow("", pt)[1:]...))
		}
		if err := sigmaFigure(out, s.title, s.xlabel, s.logX, s.xs, pts); err != nil {
			return err
		}
		out.Table(append([]string{s.col}, sweepHeader...), rows)
	}

	return nil
}
