package wanghegde2019

import (
	"fmt"
	"math"

	"github.com/dprl-project/dprl/dprl/figure"
	"github.com/dprl-project/dprl/dprl/fnq"
	"github.com/dprl-project/dprl/dprl/report"
	"github.com/dprl-project/dprl/dprl/repro"
)

// sweepPoint is Algorithm 1's calibration at one point of a sweep: the published one (Theorem 5's σ at the
// paper's k) and the corrected one.
type sweepPoint struct {
	pub, cor       fnq.Calibration
	pubK, corK     *fnq.Constants
	pubSigma, corS float64
}

// calibrate computes the published and corrected calibrations of c.
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

// sigmaFigure draws σ against x for the sweep points: the published σ where Theorem 5 applies and where it
// does not (no guarantee), and the corrected σ.
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
		figure.Series{Name: fmt.Sprintf("Theorem 5's σ at the paper's k = %g, where the theorem applies", pts[0].pub.K), X: xs, Y: [][]float64{in}},
		figure.Series{Name: fmt.Sprintf("Theorem 5's σ at the paper's k = %g, outside the theorem [%s]", pts[0].pub.K, NoGuaranteeLabel), X: xs, Y: [][]float64{outside}},
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

var sweepHeader = []string{"T′", "σ Thm 5 (paper's k)", "2k − 8.68√βσ", "Thm 5 applies", "k*", "σ corrected", "β corrected"}

// SampleGrid is the number of samples T of SigmaVsSamples, 10³ to 10⁶.
var SampleGrid = []int{1000, 2000, 5000, 10000, 20000, 50000, 100000, 200000, 500000, 1000000}

// SigmaVsSamples shows how Algorithm 1's σ grows with the number of samples T up to 10⁶ at the first Fig. 2
// setting (ε = 0.9, δ = 1e−4, B = 128, α = 7e−5, L = 2, a fresh path every step): Theorem 5's σ at the
// paper's k = 210, marked where the theorem's precondition fails, and the corrected σ with k raised to the
// smallest level the corrected tail allows (Corrected), with a table and the growth exponent of both.
func SigmaVsSamples(out report.Sink) error {
	row := Fig2Rows()[0]
	xs := make([]float64, len(SampleGrid))
	pts := make([]sweepPoint, len(SampleGrid))
	var rows [][]string
	for i, T := range SampleGrid {
		c := Alg1Calibration(row.Epsilon, row.LR, row.K)
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

// EpsilonGrid and DeltaGrid are the privacy levels of EpsilonDeltaSweeps (Calibration needs ε < 1).
var (
	EpsilonGrid = []float64{0.1, 0.2, 0.3, 0.45, 0.6, 0.75, 0.9, 0.99}
	DeltaGrid   = []float64{1e-10, 1e-8, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2}
	// ReturnEpsilons are the ε at which EpsilonDeltaSweeps runs the corrected Algorithm 1.
	ReturnEpsilons = []float64{0.1, 0.2, 0.45, 0.7, 0.9, 0.99}
)

// SweepSettings are the learners of the ε sweep: Algorithm 1 with the corrected calibration at each ε of
// ReturnEpsilons (α = 7e−5, the paper's k as a start), then Algorithm 1 without noise and the random policy
// over 100 episodes.
func SweepSettings() ([]Setting, error) {
	row := Fig2Rows()[0]
	var s []Setting
	for _, eps := range ReturnEpsilons {
		cor, err := Corrected(Alg1Calibration(eps, row.LR, row.K))
		if err != nil {
			return nil, err
		}
		p, sigma, err := alg1Privacy(cor, true)
		if err != nil {
			return nil, err
		}
		if !p.Guarantee {
			return nil, fmt.Errorf("wanghegde2019: the corrected calibration at ε = %g has no guarantee: %s", eps, p.Basis)
		}
		s = append(s, alg1Setting(fmt.Sprintf("Algorithm 1, corrected, ε = %g (k = %g, σ = %.3g)", eps, cor.K, sigma), p,
			fnq.SpecifiedConfig{Calibration: cor, UseGDPSigma: true, Explore: 0.1}))
	}
	pub := Alg1Calibration(row.Epsilon, row.LR, row.K)
	return append(s, alg1Setting("Algorithm 1 without noise", nonPrivate("Algorithm 1's 39 SGD steps without paths"),
		fnq.SpecifiedConfig{Calibration: pub, Explore: 0.1, Noiseless: true}), RandomPolicy(100)), nil
}

// EpsilonDeltaSweeps shows Algorithm 1's σ against ε (δ = 1e−4) and against δ (ε = 0.9) at the first Fig. 2
// setting, published and corrected as in SigmaVsSamples, with tables; then the last-fifth return of the
// corrected Algorithm 1 against ε (p.Seeds seeds, 95% CI) beside Algorithm 1 without noise and the random
// policy, and the privacy of every learner run.
func EpsilonDeltaSweeps(out report.Sink, p Protocol) error {
	row := Fig2Rows()[0]
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
			c := Alg1Calibration(row.Epsilon, row.LR, row.K)
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

	settings, err := SweepSettings()
	if err != nil {
		return err
	}
	res, err := runCurves(out, "ε sweep", settings, p)
	if err != nil {
		return err
	}
	n := len(ReturnEpsilons)
	var series []figure.Series
	flat := func(name string, runs [][]float64) figure.Series {
		y := make([][]float64, len(runs))
		for s, v := range lastFifth(runs) {
			y[s] = make([]float64, n)
			for i := range y[s] {
				y[s][i] = v
			}
		}
		return figure.Series{Name: name, X: ReturnEpsilons, Y: y}
	}
	y := make([][]float64, p.Seeds)
	for s := range y {
		y[s] = make([]float64, n)
		for i := range n {
			y[s][i] = lastFifth(res[i])[s]
		}
	}
	series = append(series, figure.Series{Name: "Algorithm 1, corrected [ε on the axis]", X: ReturnEpsilons, Y: y},
		flat(settings[n].Legend(), res[n]), flat(settings[n+1].Legend(), res[n+1]))
	fig, err := figure.Curves(figure.Options{Title: "Corrected Algorithm 1: last-fifth return against ε (δ = 1e−4)", XLabel: "ε", YLabel: "mean return, last fifth",
		Band: figure.BandCI95, LegendBottom: true}, series...)
	if err != nil {
		return err
	}
	if err := out.Figure(fig); err != nil {
		return err
	}
	out.Markdown(seedCaption(repro.FirstRunSeeds(Seed, p.Seeds)))
	PrivacyTable(out, settings)
	return nil
}
