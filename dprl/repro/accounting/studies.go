package accounting

import (
	"github.com/dprl-project/dprl/dprl/param"

	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/plot"

	"github.com/dprl-project/dprl/dprl/experiment"
	"github.com/dprl-project/dprl/dprl/figure"
	"github.com/dprl-project/dprl/mechanisms"
)

// Curve is one method's values at the study's x values (NaN where the method failed or does not apply).
type Curve struct {
	Method Method
	Y      []float64
}

// grid evaluates f for every method and x on up to workers goroutines; progress sees every point.
func grid(methods []Method, n, workers int, progress experiment.Progress, f func(m Method, i int) (float64, error)) []Curve {
	vals, err := experiment.Trials(len(methods)*n, max(workers, 0), 0, progress, func(k int, _ rand.Source) (v float64, _ error) {
		defer func() {
			if recover() != nil {
				v = math.NaN() // a method that fails on this point is a gap, never a value
			}
		}()
		v, err := f(methods[k/n], k%n)
		if err != nil {
			return math.NaN(), nil // e.g. a calibration that no σ in range meets: drawn as a gap
		}
		return v, nil
	})
	if err != nil || len(vals) != len(methods)*n {
		vals = make([]float64, len(methods)*n)
		for i := range vals {
			vals[i] = math.NaN()
		}
	}
	out := make([]Curve, len(methods))
	for j, m := range methods {
		out[j] = Curve{Method: m, Y: vals[j*n : (j+1)*n]}
	}
	return out
}

// EpsilonVsSteps is ε at δ after each number of steps of the workload w (its Steps ignored), by every method.
func EpsilonVsSteps(methods []Method, w Workload, steps []int, delta float64, workers int, progress experiment.Progress) []Curve {
	return grid(methods, len(steps), workers, progress, func(m Method, i int) (float64, error) {
		w := w
		w.Steps = steps[i]
		return Epsilon(m, w, delta)
	})
}

// NoiseVsSize is the multiplier z each method needs for (eps, delta) when a dataset of n records is trained
// for the given epochs with batches of the given expected size: q = batch/n, T = epochs·n/batch. The PLD
// accountant's z is searched from RDP's (NoiseNear, to 1e−6 relative: a few PLD evaluations instead of
// NoiseFor's forty); every other method's by NoiseFor.
func NoiseVsSize(methods []Method, sizes []int, batch, epochs int, eps, delta float64, workers int, progress experiment.Progress) []Curve {
	return grid(methods, len(sizes), workers, progress, func(m Method, i int) (float64, error) {
		n := sizes[i]
		w := Workload{Q: float64(batch) / float64(n), Steps: epochs * n / batch, N: n}
		if m == PLD {
			zr, err := NoiseFor(RDP, w, eps, delta)
			if err != nil {
				return NoiseFor(m, w, eps, delta)
			}
			return NoiseNear(m, w, eps, delta, zr, 1e-6)
		}
		return NoiseFor(m, w, eps, delta)
	})
}

// Plot draws curves against xs with the labels and legend placement of opt, on log axes.
func Plot(opt figure.Options, xs []float64, curves []Curve) (*plot.Plot, error) {
	series := make([]figure.Series, len(curves))
	for i, c := range curves {
		series[i] = figure.Series{Name: c.Method.String(), X: xs, Y: [][]float64{c.Y}}
	}
	opt.LogX, opt.LogY, opt.Band = true, true, figure.BandNone
	return figure.Curves(opt, series...)
}

// CurveTable lays curves out with one row per x value.
func CurveTable(xname string, xs []float64, curves []Curve) *experiment.Table {
	t := &experiment.Table{Columns: []string{xname}}
	for _, c := range curves {
		t.Columns = append(t.Columns, c.Method.String())
	}
	for i, x := range xs {
		row := []any{x}
		for _, c := range curves {
			row = append(row, sig4(c.Y[i]))
		}
		t.Add(row...)
	}
	return t
}

// sig4 keeps four significant digits (NaN as "—").
func sig4(v float64) any {
	if math.IsNaN(v) {
		return "—"
	}
	return fmt.Sprintf("%.4g", v)
}

// GaussianTable compares the noise of the classic Gaussian mechanism (σ = Δ√(2 ln(1.25/δ))/ε, proved only
// for ε < 1) with the analytic one (Balle & Wang 2018, exact) for sensitivity 1, gives the exact ε of the
// classic σ (so whether the classic formula delivers its ε where it is unproven), and the Laplace scale and
// the SVT noise scales at the same ε.
func GaussianTable(epsilons []float64, delta float64) (*experiment.Table, error) {
	t := &experiment.Table{Columns: []string{"ε", "classic σ", "classic valid?", "exact ε of classic σ", "analytic σ", "classic/analytic",
		"Laplace b", "SVT threshold b", "SVT query b"}}
	if err := checkList("epsilons", epsilons, param.Positive, delta); err != nil {
		return nil, err
	}
	for _, e := range epsilons {
		classic := mechanisms.ClassicGaussianFormula(e, delta, 1)
		analytic, err := mechanisms.AnalyticGaussianSigma(e, delta, 1)
		if err != nil {
			return nil, err
		}
		exact, err := mechanisms.AnalyticGaussianEpsilon(classic, delta, 1)
		if err != nil {
			return nil, err
		}
		valid := "yes"
		switch _, err := mechanisms.ClassicGaussianSigma(e, delta, 1); {
		case err == nil:
		case exact <= e:
			valid = "unproven (ε ≥ 1), holds"
		default:
			valid = "no: ε ≥ 1 and too little noise"
		}
		t.Add(e, sig4(classic), valid, sig4(exact), sig4(analytic), sig4(classic/analytic), sig4(1/e), sig4(2/e), sig4(4/e))
	}
	return t, nil
}

// CompositionTable is k-fold composition of the Gaussian mechanism with multiplier z (no sampling): μ-GDP
// (exact, μ = √k/z), PLD, RDP, and advanced and optimal composition of the single step's (ε0, δ/(2k)).
func CompositionTable(z float64, ks []int, delta float64) (*experiment.Table, error) {
	t := &experiment.Table{Columns: []string{"k", "μ-GDP (exact)", "PLD", "RDP", "advanced composition", "optimal composition (KOV)"}}
	if err := param.First(check.In("z", z, param.Positive), check.In("delta", delta, param.OpenUnit)); err != nil {
		return nil, err
	}
	for i, k := range ks {
		if err := check.AtLeast(fmt.Sprintf("ks[%d]", i), k, 1); err != nil {
			return nil, err
		}
	}
	for _, k := range ks {
		w := Workload{Q: 1, Z: z, Steps: k}
		gdp, err := mechanisms.GDPEpsilon(math.Sqrt(float64(k))/z, delta)
		if err != nil {
			return nil, err
		}
		row := []any{k, sig4(gdp)}
		for _, m := range []Method{PLD, RDP, AdvancedComposition, OptimalComposition} {
			e, err := Epsilon(m, w, delta)
			if err != nil {
				return nil, fmt.Errorf("accounting: k = %d, %v: %w", k, m, err)
			}
			row = append(row, sig4(e))
		}
		t.Add(row...)
	}
	return t, nil
}

// checkList checks every xs[i] against iv, naming it name[i], and δ ∈ (0, 1).
func checkList(name string, xs []float64, iv param.Interval, delta float64) error {
	for i, x := range xs {
		if err := check.In(fmt.Sprintf("%s[%d]", name, i), x, iv); err != nil {
			return err
		}
	}
	return check.In("delta", delta, param.OpenUnit)
}
