package badinput_test

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/plot"

	"github.com/dprl-project/dprl/dprl/actorcritic"
	"github.com/dprl-project/dprl/dprl/audit"
	"github.com/dprl-project/dprl/dprl/display"
	"github.com/dprl-project/dprl/dprl/experiment"
	"github.com/dprl-project/dprl/dprl/expertdp"
	"github.com/dprl-project/dprl/dprl/figure"
	"github.com/dprl-project/dprl/dprl/fnq"
	"github.com/dprl-project/dprl/dprl/nn"
	"github.com/dprl-project/dprl/dprl/param"
	"github.com/dprl-project/dprl/dprl/policyeval"
	"github.com/dprl-project/dprl/dprl/report"
	"github.com/dprl-project/dprl/dprl/repro/accounting"
	"github.com/dprl-project/dprl/dprl/repro/adhoc"
	"github.com/dprl-project/dprl/dprl/repro/balle2016"
	"github.com/dprl-project/dprl/dprl/repro/seoyang2020"
	"github.com/dprl-project/dprl/dprl/repro/sharma"
	"github.com/dprl-project/dprl/dprl/repro/xie2019"
	"github.com/dprl-project/dprl/dprl/session"
	"github.com/dprl-project/dprl/envs"
	"github.com/dprl-project/dprl/mechanisms"
	"github.com/dprl-project/dprl/trajectory"
)

// row is one bad-input case: call must return an error whose message contains param (the parameter's name
// as the caller spelled it) and, when value is not empty, value (as param.Format prints it, or the text of a
// file field).
type row struct {
	name  string
	param string
	value string
	call  func() error
}

// caseTimeout is how long a case may run before it counts as a hang.
const caseTimeout = 10 * time.Second

var (
	nan    = math.NaN()
	inf    = math.Inf(1)
	badEps = []float64{0, -1, nan, inf} // ε outside (0, ∞)
	badDel = []float64{0, 1, nan}       // δ outside (0, 1)
)

func src() rand.Source { return rand.NewPCG(1, 2) }

// fmtv prints a value as range messages do.
func fmtv(v float64) string { return param.Format(v) }

// released reports a result returned together with an error.
var errReleased = errors.New("badinput: a result was returned together with the error")

// rel turns (result, err) into err, or errReleased when the error came with a non-zero result.
func rel(v any, err error) error {
	if err != nil && v != nil {
		rv := reflect.ValueOf(v)
		if !rv.IsZero() {
			return fmt.Errorf("%w (%v): %w", errReleased, v, err)
		}
	}
	return err
}

func rel2(v any, _ any, err error) error { return rel(v, err) }

// epsDeltaRows makes the ε ∈ {0, −1, NaN, +Inf} and δ ∈ {0, 1, NaN} rows of a private entry point; the other
// argument is valid (δ = 1e−5 in the ε rows, ε = 0.5 in the δ rows), so only one input is bad per row.
func epsDeltaRows(name, epsName, deltaName string, f func(eps, delta float64) error) []row {
	var out []row
	for _, e := range badEps {
		out = append(out, row{fmt.Sprintf("%s/%s=%s", name, epsName, fmtv(e)), epsName, fmtv(e), func() error { return f(e, 1e-5) }})
	}
	if deltaName != "" {
		for _, d := range badDel {
			out = append(out, row{fmt.Sprintf("%s/%s=%s", name, deltaName, fmtv(d)), deltaName, fmtv(d), func() error { return f(0.5, d) }})
		}
	}
	return out
}

// run calls one case with a time limit, recovering a panic.
func run(call func() error) (panicked any, hung bool, err error) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() {
			if p := recover(); p != nil {
				panicked = p
			}
		}()
		err = call()
	}()
	select {
	case <-done:
		return panicked, false, err
	case <-time.After(caseTimeout):
		return nil, true, nil
	}
}

func TestBadInput(t *testing.T) {
	rows := table(t)
	if len(rows) < 150 {
		t.Errorf("the table has %d rows, want at least 150", len(rows))
	}
	seen := map[string]bool{}
	for _, r := range rows {
		if seen[r.name] {
			t.Fatalf("duplicate case name %q", r.name)
		}
		seen[r.name] = true
		t.Run(r.name, func(t *testing.T) {
			p, hung, err := run(r.call)
			switch {
			case hung:
				t.Fatalf("no answer within %v: hangs", caseTimeout)
			case p != nil:
				t.Fatalf("panicked: %v", p)
			case err == nil:
				t.Fatalf("accepted: want an error naming %q", r.param)
			case errors.Is(err, errReleased):
				t.Fatalf("released with the error: %v", err)
			case !strings.Contains(err.Error(), r.param):
				t.Fatalf("error %q does not name the parameter %q", err, r.param)
			case r.value != "" && !strings.Contains(err.Error(), r.value):
				t.Fatalf("error %q does not give the value %s", err, r.value)
			}
		})
	}
}

// table builds every row; fixtures that fail to build fail the test.
func table(t *testing.T) []row {
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	var rows []row
	add := func(rs ...row) { rows = append(rows, rs...) }

	// ---- mechanisms: noise mechanisms and calibration formulas
	for _, v := range []float64{0, -1, nan, inf} {
		add(row{"NewGaussian/sigma=" + fmtv(v), "sigma", fmtv(v), func() error { return rel(mechanisms.NewGaussian(v, src())) }},
			row{"NewLaplaceScale/scale=" + fmtv(v), "scale", fmtv(v), func() error { return rel(mechanisms.NewLaplaceScale(v, src())) }},
			row{"NewLaplace/sensitivity=" + fmtv(v), "sensitivity", fmtv(v), func() error { return rel(mechanisms.NewLaplace(1, v, src())) }})
	}
	add(row{"NewGaussian/src=nil", "src", "", func() error { return rel(mechanisms.NewGaussian(1, nil)) }},
		row{"NewLaplace/src=nil", "src", "", func() error { return rel(mechanisms.NewLaplace(1, 1, nil)) }})
	add(epsDeltaRows("NewLaplace", "epsilon", "", func(e, _ float64) error { return rel(mechanisms.NewLaplace(e, 1, src())) })...)
	add(epsDeltaRows("AnalyticGaussianSigma", "epsilon", "delta", func(e, d float64) error { return rel(mechanisms.AnalyticGaussianSigma(e, d, 1)) })...)
	add(epsDeltaRows("ClassicGaussianSigma", "epsilon", "delta", func(e, d float64) error { return rel(mechanisms.ClassicGaussianSigma(e, d, 1)) })...)
	add(row{"ClassicGaussianSigma/epsilon=2 (needs ε < 1)", "epsilon", "2", func() error { return rel(mechanisms.ClassicGaussianSigma(2, 1e-5, 1)) }},
		row{"AnalyticGaussianSigma/sensitivity=NaN", "sensitivity", "NaN", func() error { return rel(mechanisms.AnalyticGaussianSigma(1, 1e-5, nan)) }},
		row{"AnalyticGaussianEpsilon/sigma=0", "sigma", "0", func() error { return rel(mechanisms.AnalyticGaussianEpsilon(0, 1e-5, 1)) }},
		row{"AnalyticGaussianEpsilon/delta=NaN", "delta", "NaN", func() error { return rel(mechanisms.AnalyticGaussianEpsilon(1, nan, 1)) }},
		row{"AnalyticGaussianDelta/epsilon=NaN", "epsilon", "NaN", func() error { return rel(mechanisms.AnalyticGaussianDelta(1, nan, 1)) }},
		row{"AnalyticGaussianDelta/sigma=-1", "sigma", "-1", func() error { return rel(mechanisms.AnalyticGaussianDelta(-1, 1, 1)) }},
		row{"GDPEpsilon/mu=NaN", "mu", "NaN", func() error { return rel(mechanisms.GDPEpsilon(nan, 1e-5)) }},
		row{"GDPEpsilon/delta=0", "delta", "0", func() error { return rel(mechanisms.GDPEpsilon(1, 0)) }},
		row{"KOVGaussianSigma/k=0", "k", "0", func() error { return rel(mechanisms.KOVGaussianSigma(0, 1, 1, 1e-5)) }},
		row{"KOVGaussianSigma/eps=NaN", "eps", "NaN", func() error { return rel(mechanisms.KOVGaussianSigma(10, 1, nan, 1e-5)) }},
		row{"KOVGaussianEpsilon/sigma=0", "sigma", "0", func() error { return rel(mechanisms.KOVGaussianEpsilon(10, 1, 0, 1e-5)) }},
		row{"KOVGaussianEpsilon/delta=1", "delta", "1", func() error { return rel(mechanisms.KOVGaussianEpsilon(10, 1, 1, 1)) }},
	)
	add(epsDeltaRows("SmoothGaussianConstants", "epsilon", "delta", func(e, d float64) error {
		return rel2(mechanisms.SmoothGaussianConstants(e, d, 2, mechanisms.SmoothLemma1))
	})...)
	add(row{"SmoothGaussianConstants/d=0", "d", "0", func() error { return rel2(mechanisms.SmoothGaussianConstants(1, 1e-5, 0, mechanisms.SmoothLemma1)) }},
		row{"SmoothGaussianConstants/epsilon=2 (needs ε ≤ 1)", "epsilon", "2", func() error { return rel2(mechanisms.SmoothGaussianConstants(2, 1e-5, 2, mechanisms.SmoothLemma1)) }},
		row{"SmoothGaussianConstants/epsilon=1.5 Appendix A (needs ε ≤ 1)", "epsilon", "1.5", func() error {
			return rel2(mechanisms.SmoothGaussianConstants(1.5, 1e-5, 2, mechanisms.SmoothAppendixA))
		}},
		row{"NewSmoothGaussian/epsilon=2 (needs ε ≤ 1)", "epsilon", "2", func() error { return rel(mechanisms.NewSmoothGaussian(2, 1e-5, 2, mechanisms.SmoothLemma1, src())) }},
		row{"NewSmoothGaussian/epsilon=NaN", "epsilon", "NaN", func() error { return rel(mechanisms.NewSmoothGaussian(nan, 1e-5, 2, mechanisms.SmoothLemma1, src())) }},
		row{"NewSmoothGaussian/v=7", "v", "7", func() error { return rel(mechanisms.NewSmoothGaussian(1, 1e-5, 2, 7, src())) }},
		row{"NewSmoothGaussian/src=nil", "src", "", func() error { return rel(mechanisms.NewSmoothGaussian(1, 1e-5, 2, mechanisms.SmoothLemma1, nil)) }},
		row{"SmoothGaussian.Release/smoothBound=NaN", "smoothBound", "NaN", func() error {
			m, err := mechanisms.NewSmoothGaussian(1, 1e-5, 2, mechanisms.SmoothLemma1, src())
			if err != nil {
				return err
			}
			return rel2(m.Release([]float64{1, 2}, nan))
		}},
		row{"SmoothGaussian.Release/value of dimension 3", "value", "3", func() error {
			m, err := mechanisms.NewSmoothGaussian(1, 1e-5, 2, mechanisms.SmoothLemma1, src())
			if err != nil {
				return err
			}
			return rel2(m.Release([]float64{1, 2, 3}, 1))
		}},
	)
	for _, v := range []float64{0, -1, nan, inf} {
		add(row{"NewSparseVector/Epsilon=" + fmtv(v), "Epsilon", fmtv(v), func() error {
			return rel(mechanisms.NewSparseVector(mechanisms.SparseVectorParams{Epsilon: v, Sensitivity: 1, Src: src()}))
		}},
			row{"NewSparseVector/Sensitivity=" + fmtv(v), "Sensitivity", fmtv(v), func() error {
				return rel(mechanisms.NewSparseVector(mechanisms.SparseVectorParams{Epsilon: 1, Sensitivity: v, Src: src()}))
			}},
			row{"NewOUPath/sigma=" + fmtv(v), "sigma", fmtv(v), func() error { return rel(mechanisms.NewOUPath(v, 1, src())) }},
			row{"NewOUPath/beta=" + fmtv(v), "beta", fmtv(v), func() error { return rel(mechanisms.NewOUPath(1, v, src())) }})
	}
	add(row{"NewSparseVector/Threshold=NaN", "Threshold", "NaN", func() error {
		return rel(mechanisms.NewSparseVector(mechanisms.SparseVectorParams{Epsilon: 1, Sensitivity: 1, Threshold: nan, Src: src()}))
	}},
		row{"NewSparseVector/Stop=5", "Stop", "5", func() error {
			return rel(mechanisms.NewSparseVector(mechanisms.SparseVectorParams{Epsilon: 1, Sensitivity: 1, Stop: 5, Src: src()}))
		}},
		row{"NewSparseVector/Src=nil", "Src", "", func() error {
			return rel(mechanisms.NewSparseVector(mechanisms.SparseVectorParams{Epsilon: 1, Sensitivity: 1}))
		}},
		row{"SparseVector.Above/value=NaN", "value", "NaN", func() error {
			s, err := mechanisms.NewSparseVector(mechanisms.SparseVectorParams{Epsilon: 1, Sensitivity: 1, Src: src()})
			if err != nil {
				return err
			}
			_, err = s.Above(nan)
			return err
		}},
		row{"NewOUPath/src=nil", "src", "", func() error { return rel(mechanisms.NewOUPath(1, 1, nil)) }},
		row{"NewOUPaths/m=-1", "m", "-1", func() error { return rel(mechanisms.NewOUPaths(-1, 1, 1, src())) }},
		row{"NewOUPaths/sigma=NaN", "sigma", "NaN", func() error { return rel(mechanisms.NewOUPaths(2, nan, 1, src())) }},
	)
	for _, v := range []float64{0, -1, nan, inf} {
		add(row{"NewDPSGD/Clip=" + fmtv(v), "Clip", fmtv(v), func() error {
			return rel(mechanisms.NewDPSGD(mechanisms.DPSGDParams{Clip: v, NoiseMultiplier: 1, Src: src()}))
		}},
			row{"NewDPSGD/NoiseMultiplier=" + fmtv(v), "NoiseMultiplier", fmtv(v), func() error {
				return rel(mechanisms.NewDPSGD(mechanisms.DPSGDParams{Clip: 1, NoiseMultiplier: v, Src: src()}))
			}})
	}
	add(row{"NewDPSGD/Src=nil", "Src", "", func() error {
		return rel(mechanisms.NewDPSGD(mechanisms.DPSGDParams{Clip: 1, NoiseMultiplier: 1}))
	}},
		row{"DPSGD.Aggregate/grads of another length", "grads", "", func() error {
			a, err := mechanisms.NewDPSGD(mechanisms.DPSGDParams{Clip: 1, NoiseMultiplier: 1, Src: src()})
			if err != nil {
				return err
			}
			_, _, err = a.Aggregate(make([]float64, 2), [][]float64{{1, 2, 3}})
			return err
		}},
	)

	// ---- mechanisms: derived noise scales must be positive and finite; releases must be finite (issue 31)
	add(row{"NewDPSGD/NoiseMultiplier·Clip underflows to 0", "NoiseMultiplier", "1e-200", func() error {
		return rel(mechanisms.NewDPSGD(mechanisms.DPSGDParams{Clip: 1e-200, NoiseMultiplier: 1e-200, Src: src()}))
	}},
		row{"NewDPSGD/NoiseMultiplier·Clip overflows", "NoiseMultiplier", "1e+200", func() error {
			return rel(mechanisms.NewDPSGD(mechanisms.DPSGDParams{Clip: 1e200, NoiseMultiplier: 1e200, Src: src()}))
		}},
		row{"NewSparseVector/4·Sensitivity/Epsilon overflows", "Epsilon", "1e-300", func() error {
			return rel(mechanisms.NewSparseVector(mechanisms.SparseVectorParams{Epsilon: 1e-300, Sensitivity: 1e300, Src: src()}))
		}},
		row{"NewSparseVector/2·Sensitivity/Epsilon underflows", "Epsilon", "1e+300", func() error {
			return rel(mechanisms.NewSparseVector(mechanisms.SparseVectorParams{Epsilon: 1e300, Sensitivity: 1e-300, Src: src()}))
		}},
		row{"SmoothGaussianConstants/epsilon=1e-320 (α overflows)", "epsilon", "1e-320", func() error {
			return rel2(mechanisms.SmoothGaussianConstants(1e-320, 1e-5, 2, mechanisms.SmoothLemma1))
		}},
		row{"SmoothGaussian.Release/α·smoothBound overflows", "smoothBound", "1e+308", func() error {
			m, err := mechanisms.NewSmoothGaussian(1, 1e-5, 2, mechanisms.SmoothLemma1, src())
			if err != nil {
				return err
			}
			return rel2(m.Release([]float64{1, 2}, 1e308))
		}},
		row{"DiscreteGaussian.Release/value=1e308 (value/g overflows: was +Inf)", "value", "1e+308", func() error {
			m, err := mechanisms.NewDiscreteGaussian(mechanisms.DiscreteGaussianParams{Sigma: 1, Src: src()})
			if err != nil {
				return err
			}
			return rel(m.Release(1e308))
		}},
		row{"DiscreteGaussian.AddNoise/x[1]=-1e308", "x[1]", "-1e+308", func() error {
			m, err := mechanisms.NewDiscreteGaussian(mechanisms.DiscreteGaussianParams{Sigma: 1, Src: src()})
			if err != nil {
				return err
			}
			return m.AddNoise([]float64{0, -1e308})
		}},
		row{"DiscreteLaplace.Release/value=1e300 (value/g overflows: was +Inf)", "value", "1e+300", func() error {
			m, err := mechanisms.NewDiscreteLaplace(mechanisms.DiscreteLaplaceParams{Scale: 1e-30, Src: src()})
			if err != nil {
				return err
			}
			return rel(m.Release(1e300))
		}},
		row{"NewDiscreteGaussian/Sigma=1e305 (default grid beyond 2⁹⁵⁸)", "Sigma", "1e+305", func() error {
			return rel(mechanisms.NewDiscreteGaussian(mechanisms.DiscreteGaussianParams{Sigma: 1e305, Src: src()}))
		}},
		row{"NewDiscreteLaplace/Granularity=2^1000 (noise g·Z can overflow)", "Granularity", fmtv(0x1p1000), func() error {
			return rel(mechanisms.NewDiscreteLaplace(mechanisms.DiscreteLaplaceParams{Scale: 0x1p1010, Granularity: 0x1p1000, Src: src()}))
		}},
	)

	// ---- mechanisms: calibrations used outside the validity condition of their theorem (issue 31)
	add(row{"KOVGaussianSigma/eps=20 (small-ε form: was (22.06, 1e-5)-DP)", "eps", "20", func() error {
		return rel(mechanisms.KOVGaussianSigma(1, 1, 20, 1e-5))
	}},
		row{"AdvancedCompositionEps0/eps=1 (Corollary 3.21 needs ε < 1)", "eps", "1", func() error {
			return rel(mechanisms.AdvancedCompositionEps0(1, 10, 1e-6))
		}},
		row{"AdvancedCompositionEps0/deltaSlack=0.9 (large slack: composed to 1.58)", "deltaSlack", "0.9", func() error {
			return rel(mechanisms.AdvancedCompositionEps0(0.9, 10, 0.9))
		}},
		row{"AnalyticGaussianSigma/sensitivity=1.7e308 (σ overflows)", "sensitivity", "1.7e+308", func() error {
			return rel(mechanisms.AnalyticGaussianSigma(0.01, 1e-10, 1.7e308))
		}},
	)

	// ---- mechanisms: budget and composition helpers
	add(epsDeltaRows("NewBudget", "epsilon", "", func(e, _ float64) error { return rel(mechanisms.NewBudget(e, 1e-5)) })...)
	add(row{"NewBudget/delta=NaN", "delta", "NaN", func() error { return rel(mechanisms.NewBudget(1, nan)) }},
		row{"NewBudget/delta=1", "delta", "1", func() error { return rel(mechanisms.NewBudget(1, 1)) }},
		row{"NewBudget/delta=-1", "delta", "-1", func() error { return rel(mechanisms.NewBudget(1, -1)) }},
		row{"Budget.Spend/epsilon=NaN", "epsilon", "NaN", func() error {
			b, err := mechanisms.NewBudget(1, 1e-5)
			if err != nil {
				return err
			}
			return b.Spend("x", nan, 0)
		}},
		row{"Budget.Spend/delta=-1", "delta", "-1", func() error {
			b, err := mechanisms.NewBudget(1, 1e-5)
			if err != nil {
				return err
			}
			return b.Spend("x", 0.1, -1)
		}},
		row{"Budget.Split/weights=NaN", "weights", "NaN", func() error {
			b, err := mechanisms.NewBudget(1, 1e-5)
			if err != nil {
				return err
			}
			return rel(b.Split(1, nan))
		}},
		row{"AdvancedComposition/k=-1", "k", "-1", func() error {
			_, _, err := mechanisms.AdvancedComposition(0.1, 1e-6, -1, 1e-5)
			return err
		}},
		row{"AdvancedComposition/eps0=NaN", "eps0", "NaN", func() error {
			_, _, err := mechanisms.AdvancedComposition(nan, 1e-6, 10, 1e-5)
			return err
		}},
		row{"AdvancedComposition/deltaSlack=0", "deltaSlack", "0", func() error {
			_, _, err := mechanisms.AdvancedComposition(0.1, 1e-6, 10, 0)
			return err
		}},
		row{"AdvancedCompositionEps0/eps=-1", "eps", "-1", func() error { return rel(mechanisms.AdvancedCompositionEps0(-1, 10, 1e-5)) }},
		row{"OptimalCompositionDelta/k=0", "k", "0", func() error { return rel(mechanisms.OptimalCompositionDelta(0.1, 0, 0, 1)) }},
		row{"OptimalCompositionDelta/k=MaxInt (bounded work)", "k", "", func() error { return rel(mechanisms.OptimalCompositionDelta(0.1, 0, math.MaxInt, 1)) }},
		row{"OptimalCompositionDelta/eps0=Inf", "eps0", "∞", func() error { return rel(mechanisms.OptimalCompositionDelta(inf, 0, 10, 1)) }},
		row{"OptimalCompositionEpsilon/delta=NaN", "delta", "NaN", func() error { return rel(mechanisms.OptimalCompositionEpsilon(0.1, 0, 10, nan)) }},
		row{"OptimalCompositionEpsilon/delta0=2", "delta0", "2", func() error { return rel(mechanisms.OptimalCompositionEpsilon(0.1, 2, 10, 1e-5)) }},
	)

	// ---- mechanisms: accountants, events, RDP functions, calibration
	accountants := map[string]func() (mechanisms.Accountant, error){
		"RDP": func() (mechanisms.Accountant, error) {
			o, err := mechanisms.Orders(mechanisms.DefaultOrders)
			if err != nil {
				return nil, err
			}
			return mechanisms.NewRDPAccountant(o, mechanisms.ConversionImproved)
		},
		"PLD": func() (mechanisms.Accountant, error) { return mechanisms.NewPLDAccountant(mechanisms.PLDParams{}) },
		"GDP": func() (mechanisms.Accountant, error) { return &mechanisms.GDPAccountant{}, nil },
	}
	for _, an := range []string{"RDP", "PLD", "GDP"} {
		newAcc := accountants[an]
		compose := func(e mechanisms.Event, count int) func() error {
			return func() error {
				a, err := newAcc()
				if err != nil {
					return err
				}
				return a.Compose(e, count)
			}
		}
		for _, v := range []float64{nan, inf, 0, -1} {
			add(row{fmt.Sprintf("%s.Compose/GaussianEvent.NoiseMultiplier=%s", an, fmtv(v)), "NoiseMultiplier", fmtv(v), compose(mechanisms.GaussianEvent{NoiseMultiplier: v}, 1)})
		}
		add(row{an + ".Compose/count=-1", "count", "-1", compose(mechanisms.GaussianEvent{NoiseMultiplier: 1}, -1)},
			row{an + ".Compose/nil event", "e", "", compose(nil, 1)})
		for _, d := range []float64{-1, nan, 1.5} {
			add(row{fmt.Sprintf("%s.Epsilon/delta=%s", an, fmtv(d)), "delta", fmtv(d), func() error {
				a, err := newAcc()
				if err != nil {
					return err
				}
				if err := a.Compose(mechanisms.GaussianEvent{NoiseMultiplier: 1}, 10); err != nil {
					return err
				}
				return rel(a.Epsilon(d))
			}})
		}
		add(row{an + ".Delta/epsilon=NaN", "epsilon", "NaN", func() error {
			a, err := newAcc()
			if err != nil {
				return err
			}
			if err := a.Compose(mechanisms.GaussianEvent{NoiseMultiplier: 1}, 10); err != nil {
				return err
			}
			return rel(a.Delta(nan))
		}})
	}
	for _, an := range []string{"RDP", "PLD"} {
		newAcc := accountants[an]
		compose := func(e mechanisms.Event) func() error {
			return func() error {
				a, err := newAcc()
				if err != nil {
					return err
				}
				return a.Compose(e, 1)
			}
		}
		for _, v := range []float64{nan, inf, 0, -1} {
			add(row{fmt.Sprintf("%s.Compose/LaplaceEvent.NoiseMultiplier=%s", an, fmtv(v)), "NoiseMultiplier", fmtv(v), compose(mechanisms.LaplaceEvent{NoiseMultiplier: v})})
		}
		for _, q := range []float64{nan, -0.1, 1.5} {
			add(row{fmt.Sprintf("%s.Compose/PoissonSampled.Q=%s", an, fmtv(q)), "Q", fmtv(q), compose(mechanisms.PoissonSampled{Q: q, Event: mechanisms.GaussianEvent{NoiseMultiplier: 1}})})
		}
		add(row{an + ".Compose/PoissonSampled with nil Event", "Event", "", compose(mechanisms.PoissonSampled{Q: 0.01})},
			row{an + ".Compose/PoissonSampled inner NoiseMultiplier=NaN", "NoiseMultiplier", "NaN", compose(mechanisms.PoissonSampled{Q: 0.01, Event: mechanisms.GaussianEvent{NoiseMultiplier: nan}})})
	}
	rdpCompose := func(e mechanisms.Event) func() error {
		return func() error {
			a, err := accountants["RDP"]()
			if err != nil {
				return err
			}
			return a.Compose(e, 1)
		}
	}
	pldCompose := func(e mechanisms.Event) func() error {
		return func() error {
			a, err := accountants["PLD"]()
			if err != nil {
				return err
			}
			return a.Compose(e, 1)
		}
	}
	g1 := mechanisms.GaussianEvent{NoiseMultiplier: 1}
	add(row{"RDP.Compose/SampledWithoutReplacement.Batch>N", "Batch", "20", rdpCompose(mechanisms.SampledWithoutReplacement{N: 10, Batch: 20, Event: g1})},
		row{"RDP.Compose/SampledWithoutReplacement.N=0", "N", "0", rdpCompose(mechanisms.SampledWithoutReplacement{N: 0, Batch: 1, Event: g1})},
		row{"RDP.Compose/SampledWithoutReplacement.Batch=-1", "Batch", "-1", rdpCompose(mechanisms.SampledWithoutReplacement{N: 10, Batch: -1, Event: g1})},
		row{"RDP.Compose/SampledWithoutReplacement nil Event", "Event", "", rdpCompose(mechanisms.SampledWithoutReplacement{N: 10, Batch: 2})},
		row{"PLD.Compose/Mixed.P=1.5", "P", "1.5", pldCompose(mechanisms.Mixed{P: 1.5, Event: g1})},
		row{"PLD.Compose/Mixed.P=NaN", "P", "NaN", pldCompose(mechanisms.Mixed{P: nan, Event: g1})},
		row{"PLD.Compose/Mixed nil Event", "Event", "", pldCompose(mechanisms.Mixed{P: 0.5})},
		row{"NewPLDAccountant/Discretization=NaN", "Discretization", "NaN", func() error { return rel(mechanisms.NewPLDAccountant(mechanisms.PLDParams{Discretization: nan})) }},
		row{"NewPLDAccountant/Discretization=-1", "Discretization", "-1", func() error { return rel(mechanisms.NewPLDAccountant(mechanisms.PLDParams{Discretization: -1})) }},
		row{"NewPLDAccountant/TailMass=2", "TailMass", "2", func() error { return rel(mechanisms.NewPLDAccountant(mechanisms.PLDParams{TailMass: 2})) }},
		row{"NewRDPAccountant/orders with 0.5", "orders", "0.5", func() error {
			return rel(mechanisms.NewRDPAccountant([]float64{0.5, 2}, mechanisms.ConversionImproved))
		}},
		row{"NewRDPAccountant/orders with NaN", "orders", "NaN", func() error {
			return rel(mechanisms.NewRDPAccountant([]float64{2, nan}, mechanisms.ConversionImproved))
		}},
		row{"NewRDPAccountant/conv=9", "conv", "9", func() error { return rel(mechanisms.NewRDPAccountant([]float64{2, 3}, 9)) }},
		row{"Orders/name=bogus", "name", "bogus", func() error { return rel(mechanisms.Orders("bogus")) }},
		row{"RDPPoissonGaussian/q=1.5", "q", "1.5", func() error { return rel(mechanisms.RDPPoissonGaussian(1.5, 1, 2)) }},
		row{"RDPPoissonGaussian/z=0", "z", "0", func() error { return rel(mechanisms.RDPPoissonGaussian(0.01, 0, 2)) }},
		row{"RDPPoissonGaussian/alpha=NaN", "alpha", "NaN", func() error { return rel(mechanisms.RDPPoissonGaussian(0.01, 1, nan)) }},
		row{"RDPSampledWithoutReplacementGaussian/q=-1", "q", "-1", func() error { return rel(mechanisms.RDPSampledWithoutReplacementGaussian(-1, 1, 2)) }},
		row{"RDPOf/orders with 0.5", "orders", "0.5", func() error { return rel(mechanisms.RDPOf(g1, []float64{0.5})) }},
		row{"RDPToEpsilon/rdp length", "rdp", "", func() error {
			return rel2(mechanisms.RDPToEpsilon([]float64{2, 3}, []float64{1}, 1e-5, mechanisms.ConversionImproved))
		}},
		row{"RDPToEpsilon/delta=0", "delta", "0", func() error {
			return rel2(mechanisms.RDPToEpsilon([]float64{2, 3}, []float64{1, 1}, 0, mechanisms.ConversionImproved))
		}},
		row{"RDPToDelta/epsilon=NaN", "epsilon", "NaN", func() error {
			return rel2(mechanisms.RDPToDelta([]float64{2, 3}, []float64{1, 1}, nan, mechanisms.ConversionImproved))
		}},
		row{"CalibrateNoise/target=NaN", "target", "NaN", func() error {
			return rel(mechanisms.CalibrateNoise(nan, 0.1, 10, func(z float64) (float64, error) { return 1 / z, nil }))
		}},
		row{"CalibrateNoise/lo>hi", "lo", "10", func() error {
			return rel(mechanisms.CalibrateNoise(1, 10, 0.1, func(z float64) (float64, error) { return 1 / z, nil }))
		}},
		row{"CalibrateNoise/epsAt=nil", "epsAt", "", func() error { return rel(mechanisms.CalibrateNoise(1, 0.1, 10, nil)) }},
		row{"MaxSteps/limit=-1", "limit", "-1", func() error { return rel(mechanisms.MaxSteps(accountants["RDP"], g1, 1, 1e-5, -1)) }},
		row{"MaxSteps/epsilon=NaN", "epsilon", "NaN", func() error { return rel(mechanisms.MaxSteps(accountants["RDP"], g1, nan, 1e-5, 10)) }},
		row{"MaxSteps/delta=1", "delta", "1", func() error { return rel(mechanisms.MaxSteps(accountants["RDP"], g1, 1, 1, 10)) }},
		row{"MaxSteps/newAccountant=nil", "newAccountant", "", func() error { return rel(mechanisms.MaxSteps(nil, g1, 1, 1e-5, 10)) }},
	)

	// ---- envs: constructors, options, policies
	reset := func(e envs.Env) error { _, err := e.Reset(src()); return err }
	add(row{"Make/name=nope", "name", "nope", func() error { return rel(envs.Make("nope")) }},
		row{"ValidateChain/N=1", "N", "1", func() error { p := envs.BalleChainParams(); p.N = 1; return envs.ValidateChain(p) }},
		row{"ValidateChain/AdvanceProb=0", "AdvanceProb", "0", func() error { p := envs.BalleChainParams(); p.AdvanceProb = 0; return envs.ValidateChain(p) }},
		row{"ValidateChain/AdvanceProb=NaN", "AdvanceProb", "NaN", func() error { p := envs.BalleChainParams(); p.AdvanceProb = nan; return envs.ValidateChain(p) }},
		row{"ValidateChain/StepReward=NaN", "StepReward", "NaN", func() error { p := envs.BalleChainParams(); p.StepReward = nan; return envs.ValidateChain(p) }},
		row{"ValidateChain/GoalReward=Inf", "GoalReward", "∞", func() error { p := envs.BalleChainParams(); p.GoalReward = inf; return envs.ValidateChain(p) }},
		row{"ValidateChain/Start length", "Start", "", func() error { p := envs.BalleChainParams(); p.Start = []float64{1}; return envs.ValidateChain(p) }},
		row{"NewChain/N=0 (no panic)", "N", "0", func() error { p := envs.BalleChainParams(); p.N = 0; return reset(envs.NewChain(p)) }},
		row{"NewCartPole/Gravity=NaN", "Gravity", "NaN", func() error { return reset(envs.NewCartPole(envs.CartPoleParams{Gravity: nan})) }},
		row{"NewCartPole/PoleMass=-1", "PoleMass", "-1", func() error { return reset(envs.NewCartPole(envs.CartPoleParams{PoleMass: -1})) }},
		row{"NewCartPole/Tau=Inf", "Tau", "∞", func() error { return reset(envs.NewCartPole(envs.CartPoleParams{Tau: inf})) }},
		row{"NewAcrobot/LinkMass1=NaN", "LinkMass1", "NaN", func() error { return reset(envs.NewAcrobot(envs.AcrobotParams{LinkMass1: nan})) }},
		row{"NewAcrobot/LinkLength2=-1", "LinkLength2", "-1", func() error { return reset(envs.NewAcrobot(envs.AcrobotParams{LinkLength2: -1})) }},
		row{"NewHIV/DaysPerStep=-1", "DaysPerStep", "-1", func() error { return reset(envs.NewHIV(envs.HIVParams{DaysPerStep: -1})) }},
		row{"NewHIV/RelTol=NaN", "RelTol", "NaN", func() error { return reset(envs.NewHIV(envs.HIVParams{RelTol: nan})) }},
		row{"NewLunarLander/Gravity=5", "Gravity", "5", func() error { return reset(envs.NewLunarLander(envs.LunarLanderParams{Gravity: 5})) }},
		row{"NewLunarLander/WindPower=NaN", "WindPower", "NaN", func() error {
			return reset(envs.NewLunarLander(envs.LunarLanderParams{EnableWind: true, WindPower: nan}))
		}},
		row{"TimeLimit/MaxSteps=-1", "MaxSteps", "-1", func() error {
			e, err := envs.Make("chain")
			if err != nil {
				return err
			}
			e.MaxSteps = -1
			return reset(e)
		}},
		row{"Env.Step/action=5", "action", "5", func() error {
			e, err := envs.Make("chain")
			if err != nil {
				return err
			}
			if err := reset(e); err != nil {
				return err
			}
			_, err = e.Step(5)
			return err
		}},
		row{"Env.Reset/src=nil", "src", "", func() error {
			e, err := envs.Make("cartpole")
			if err != nil {
				return err
			}
			return reset2(e)
		}},
		row{"NewFourier/order=-1", "order", "-1", func() error { return rel(envs.NewFourier(-1, []float64{0}, []float64{1})) }},
		row{"NewFourier/high length", "high", "", func() error { return rel(envs.NewFourier(3, []float64{0}, []float64{1, 2})) }},
		row{"NewTablePolicy/row sum", "p", "", func() error { return rel(envs.NewTablePolicy([][]float64{{0.5, 0.6}})) }},
		row{"ConstantTable/n=0", "n", "0", func() error { return rel(envs.ConstantTable(0, 0.5, 0.5)) }},
		row{"ConstantTable/probs NaN", "probs", "NaN", func() error { return rel(envs.ConstantTable(2, nan, 1)) }},
		row{"Collect/n=-1", "n", "-1", func() error {
			e, err := envs.Make("chain")
			if err != nil {
				return err
			}
			return rel(envs.Collect(e, envs.Uniform{N: 2}, -1, src(), 0))
		}},
		row{"Collect/env=nil", "env", "", func() error { return rel(envs.Collect(nil, envs.Uniform{N: 2}, 1, src(), 0)) }},
		row{"Collect/src=nil", "src", "", func() error {
			e, err := envs.Make("chain")
			if err != nil {
				return err
			}
			return rel(envs.Collect(e, envs.Uniform{N: 2}, 1, nil, 0))
		}},
		row{"BalleEvaluation.Episodes/n=-1", "n", "-1", func() error {
			_, _, err := envs.NewBalleEvaluation().Episodes(-1, src())
			return err
		}},
		row{"BalleEvaluation.Episodes/src=nil", "src", "", func() error {
			_, _, err := envs.NewBalleEvaluation().Episodes(1, nil)
			return err
		}},
		row{"CheckEnv/episodes=-1", "episodes", "-1", func() error {
			return envs.CheckEnv(func() envs.Env { return envs.NewMountainCar() }, -1, 10)
		}},
		row{"CheckEnv/newEnv=nil", "newEnv", "", func() error { return envs.CheckEnv(nil, 1, 10) }},
		row{"Dataset.FirstVisitReturns/gamma=2", "gamma", "2", func() error {
			d := &trajectory.Dataset{ObsDim: 1, NumActions: 1, Trajectories: []trajectory.Trajectory{{Steps: []trajectory.Step{{Obs: []float64{0}, NextObs: []float64{0}}}}}}
			_, _, err := d.FirstVisitReturns(2, 1, func([]float64) int { return 0 })
			return err
		}},
	)

	// ---- envs: loaders (issue 16 item 10 and the fields around it)
	head := "trajectory,expert,t,obs_0,action,reward,next_obs_0,terminated,truncated,prob\n"
	good := "0,0,0,3,1,0.5,4,0,0,0.5\n"
	csvRow := func(name, field, value, text string) row {
		return row{"ReadCSV/" + name, field, value, func() error { return rel(trajectory.ReadCSV(strings.NewReader(head+text), 2)) }}
	}
	add(csvRow("t=0.9", "t", "0.9", good+"0,0,0.9,4,1,0,5,0,0,0.5\n"),
		csvRow("trajectory=-0.5", "trajectory", "-0.5", "-0.5,0,0,3,1,0,4,0,0,0.5\n"),
		csvRow("terminated=7", "terminated", "7", "0,0,0,3,1,0,4,7,0,0.5\n"),
		csvRow("truncated=2", "truncated", "2", "0,0,0,3,1,0,4,0,2,0.5\n"),
		csvRow("rewards summing to +Inf", "reward", "1e308", "0,0,0,3,1,1e308,4,0,0,0.5\n0,0,1,3,1,1e308,4,0,0,0.5\n"),
		csvRow("obs_0=NaN", "obs_0", "NaN", "0,0,0,NaN,1,0,4,0,0,0.5\n"),
		csvRow("next_obs_0=Inf", "next_obs_0", "Inf", "0,0,0,3,1,0,Inf,0,0,0.5\n"),
		csvRow("action=2", "action", "2", "0,0,0,3,2,0,4,0,0,0.5\n"),
		csvRow("action=0.5", "action", "0.5", "0,0,0,3,0.5,0,4,0,0,0.5\n"),
		csvRow("prob=1.5", "prob", "1.5", "0,0,0,3,1,0,4,0,0,1.5\n"),
		csvRow("expert=-1", "expert", "-1", "0,-1,0,3,1,0,4,0,0,0.5\n"),
		csvRow("t skips", "t", "2", good+"0,0,2,3,1,0,4,0,0,0.5\n"),
		csvRow("duplicate trajectory", "trajectory", "0", good+"1,0,0,3,1,0,4,0,0,0.5\n0,0,1,3,1,0,4,0,0,0.5\n"),
		csvRow("empty file", "header", "", ""),
		row{"ReadCSV/numActions=0", "numActions", "0", func() error { return rel(trajectory.ReadCSV(strings.NewReader(head+good), 0)) }},
	)
	js := `{"obs_dim": 1, "num_actions": 2, "trajectories": [{"expert": 0, "steps": [{"obs": [1], "action": 0, "reward": 0.5, "next_obs": [2]}]}]}`
	jsonRow := func(name, field, value, text string) row {
		return row{"ReadJSON/" + name, field, value, func() error { return rel(trajectory.ReadJSON(strings.NewReader(text))) }}
	}
	add(jsonRow("trailing garbage", "data after the dataset", "", js+" garbage"),
		jsonRow("second dataset", "data after the dataset", "", js+js),
		jsonRow("action=5", "action", "5", strings.Replace(js, `"action": 0`, `"action": 5`, 1)),
		jsonRow("reward missing", "reward", "", strings.Replace(js, `"reward": 0.5, `, ``, 1)),
		jsonRow("repeated key", "action", "", strings.Replace(js, `"action": 0`, `"action": 0, "action": 1`, 1)),
		jsonRow("obs_dim=0", "obs_dim", "0", strings.Replace(js, `"obs_dim": 1`, `"obs_dim": 0`, 1)),
		jsonRow("empty input", "dataset", "", ""),
		jsonRow("a million nested arrays (was 164× its size in memory)", "dataset", "", strings.Repeat("[", 1<<20)),
		jsonRow("nested arrays for an observation value", "trajectories[0].steps[0].obs[0]", "", strings.Replace(js, `"obs": [1]`, `"obs": [[[[[[[[1]]]]]]]]`, 1)),
		jsonRow("observation longer than obs_dim", "trajectories[0].steps[0].obs", "3 values", strings.Replace(js, `"obs": [1]`, `"obs": [1, 2, 3]`, 1)),
		jsonRow("a 2000-digit number", "a number longer than 1024 characters", "", strings.Replace(js, `"reward": 0.5`, `"reward": `+strings.Repeat("9", 2000), 1)),
		jsonRow("observation of 70000 values before obs_dim", "trajectories[0].steps[0].obs", "70000 values",
			`{"num_actions": 2, "trajectories": [{"expert": 0, "steps": [{"obs": [`+strings.Repeat("0,", 69999)+`0], "action": 0, "reward": 0, "next_obs": [0]}]}], "obs_dim": 1}`),
	)

	// ---- dprl: experiment runner and tables
	okTrial := func(i int, _ rand.Source) (int, error) { return i, nil }
	add(row{"Trials/n=-1", "n", "-1", func() error { return rel(experiment.Trials(-1, 1, 0, nil, okTrial)) }},
		row{"Trials/workers=-1", "workers", "-1", func() error { return rel(experiment.Trials(3, -1, 0, nil, okTrial)) }},
		row{"Trials/trial=nil", "trial", "", func() error { return rel(experiment.Trials[int](3, 1, 0, nil, nil)) }},
		row{"Trials/a panicking trial", "trial 2 (seed 7", "", func() error {
			_, err := experiment.Trials(5, 2, 7, nil, func(i int, _ rand.Source) (int, error) {
				if i == 2 {
					panic("boom")
				}
				return i, nil
			})
			return err
		}},
		row{"Table.WriteCSV/ragged row", "Rows[0]", "1", func() error {
			tb := experiment.Table{Columns: []string{"a", "b"}}
			tb.Add(1.0)
			return tb.WriteCSV(&bytes.Buffer{})
		}},
	)

	// ---- figure and display
	okPlot := func() *plot.Plot {
		p, err := figure.Curves(figure.Options{}, figure.Series{Name: "s", X: []float64{1, 2}, Y: [][]float64{{1, 2}}})
		must(err)
		return p
	}()
	add(row{"figure.Curves/Y row length", "Y", "", func() error {
		return rel(figure.Curves(figure.Options{}, figure.Series{Name: "s", X: []float64{1, 2}, Y: [][]float64{{1}}}))
	}},
		row{"figure.Curves/no trials", "Y", "", func() error { return rel(figure.Curves(figure.Options{}, figure.Series{Name: "s", X: []float64{1}})) }},
		row{"figure.Curves/only NaN", "series", "", func() error {
			return rel(figure.Curves(figure.Options{}, figure.Series{Name: "s", X: []float64{1}, Y: [][]float64{{nan}}}))
		}},
		row{"figure.PNG/p=nil", "p", "", func() error { return rel(figure.PNG(nil, figure.DefaultSize)) }},
		row{"figure.PNG/Width=-1", "Width", "-1", func() error { return rel(figure.PNG(okPlot, figure.Size{Width: -1, Height: 100, DPI: 100})) }},
		row{"figure.PNG/DPI=0", "DPI", "0", func() error { return rel(figure.PNG(okPlot, figure.Size{Width: 100, Height: 100, DPI: 0})) }},
		row{"figure.PNG/Width=1e9 (memory)", "Width", "", func() error { return rel(figure.PNG(okPlot, figure.Size{Width: 1e9, Height: 1e9, DPI: 1000})) }},
		row{"display.PlotSize/p=nil", "p", "", func() error { return display.PlotSize(nil, figure.DefaultSize) }},
		row{"Display.PNG/png empty", "png", "", func() error { return (&display.Display{Dir: t.TempDir()}).PNG(nil, "x") }},
	)

	// ---- nn: DP-SGD's parameters are mechanisms.DPSGDParams, checked by NewDPSGD before PrivateGradient runs
	privateGradient := func(dp *mechanisms.DPSGD) error {
		m, err := nn.NewMLP([]int{2, 1}, nn.ReLU, src())
		must(err)
		ws := nn.NewWorkspace(m, 1)
		ws.Forward(m, []float64{1, 2})
		ws.Backward(m, []float64{1})
		_, _, err = ws.PrivateGradient(m, dp, nn.NewGrads(m), nil)
		return err
	}
	viaDPSGD := func(p mechanisms.DPSGDParams) error {
		dp, err := mechanisms.NewDPSGD(p)
		if err != nil {
			return rel(dp, err)
		}
		return privateGradient(dp)
	}
	for _, v := range []float64{0, -1, nan, inf} {
		add(row{"nn.PrivateGradient/Clip=" + fmtv(v), "Clip", fmtv(v), func() error {
			return viaDPSGD(mechanisms.DPSGDParams{Clip: v, NoiseMultiplier: 1, Src: src()})
		}},
			row{"nn.PrivateGradient/NoiseMultiplier=" + fmtv(v), "NoiseMultiplier", fmtv(v), func() error {
				return viaDPSGD(mechanisms.DPSGDParams{Clip: 1, NoiseMultiplier: v, Src: src()})
			}})
	}
	add(row{"nn.PrivateGradient/dp=nil", "dp", "", func() error { return privateGradient(nil) }})
	add(row{"nn.NewMLP/sizes={2}", "sizes", "", func() error { return rel(nn.NewMLP([]int{2}, nn.ReLU, src())) }},
		row{"nn.NewMLP/sizes with 0", "sizes", "0", func() error { return rel(nn.NewMLP([]int{2, 0, 1}, nn.ReLU, src())) }},
		row{"nn.NewMLP/src=nil", "src", "", func() error { return rel(nn.NewMLP([]int{2, 1}, nn.ReLU, nil)) }},
		row{"nn.NewReplay/capacity=0", "capacity", "0", func() error { return rel(nn.NewReplay(0, 2)) }},
		row{"nn.NewReplay/width=-1", "width", "-1", func() error { return rel(nn.NewReplay(10, -1)) }},
	)

	// ---- adhoc: Setup.Estimate on a chain dataset
	data, err := envs.NewBalleEvaluation().Collect(30, rand.NewPCG(1, 2))
	must(err)
	setup := func() *adhoc.Setup {
		return &adhoc.Setup{NumStates: 39, State: func(o []float64) int { return int(o[0]) }, Phi: policyeval.StateAggregation(39, 2),
			Rho: policyeval.UniformWeights(39), Gamma: 0.99,
			ReturnMax: 1, Delta: 1e-5, Clip: 1, Steps: 50, StepSize: 0.02, LambdaC: 4}
	}
	for _, m := range []adhoc.Method{adhoc.DPLSW, adhoc.DPLSL, adhoc.GPOPE} {
		add(epsDeltaRows("adhoc.Estimate/"+m.String(), "eps", "Delta", func(e, d float64) error {
			s := setup()
			s.Delta = d
			return rel(s.Estimate(m, data, e, src()))
		})...)
	}
	add(row{"adhoc.Estimate/ReturnMax=NaN", "ReturnMax", "NaN", func() error { s := setup(); s.ReturnMax = nan; return rel(s.Estimate(adhoc.DPLSW, data, 1, src())) }},
		row{"adhoc.Estimate/Gamma=1.5", "Gamma", "1.5", func() error { s := setup(); s.Gamma = 1.5; return rel(s.Estimate(adhoc.DPLSW, data, 1, src())) }},
		row{"adhoc.Estimate/GPOPE Clip=0", "Clip", "0", func() error { s := setup(); s.Clip = 0; return rel(s.Estimate(adhoc.GPOPE, data, 1, src())) }},
		row{"adhoc.Estimate/GPOPE Steps=-1", "Steps", "-1", func() error { s := setup(); s.Steps = -1; return rel(s.Estimate(adhoc.GPOPE, data, 1, src())) }},
		row{"adhoc.Estimate/GPOPE StepSize=NaN", "StepSize", "NaN", func() error { s := setup(); s.StepSize = nan; return rel(s.Estimate(adhoc.GPOPE, data, 1, src())) }},
		row{"adhoc.Estimate/src=nil", "src", "", func() error { return rel(setup().Estimate(adhoc.DPLSW, data, 1, nil)) }},
		row{"adhoc.Estimate/m=9", "m", "9", func() error { return rel(setup().Estimate(adhoc.Method(9), data, 1, src())) }},
		row{"adhoc.Estimate/d=nil", "d", "", func() error { return rel(setup().Estimate(adhoc.DPLSW, nil, 1, src())) }},
		row{"adhoc.Study/trials=-1", "trials", "-1", func() error {
			return rel(setup().Study(data, []adhoc.Method{adhoc.DPLSW}, []float64{1}, []int{10}, -1, 1, 1, nil))
		}},
		row{"adhoc.Study/epsilons=NaN", "epsilons", "NaN", func() error {
			return rel(setup().Study(data, []adhoc.Method{adhoc.DPLSW}, []float64{nan}, []int{10}, 1, 1, 1, nil))
		}},
	)

	for _, m := range []adhoc.Method{adhoc.DPLSW, adhoc.DPLSL, adhoc.GPOPE} {
		add(epsDeltaRows("adhoc.Setup.Charge/"+m.String(), "epsilon", "Delta", func(e, d float64) error {
			s := setup()
			s.Delta = d
			return rel(s.Charge(m, 30, e))
		})...)
	}
	add(row{"adhoc.Setup.Charge/DP-LSL epsilon=1.5", "epsilon", "1.5", func() error { return rel(setup().Charge(adhoc.DPLSL, 30, 1.5)) }},
		row{"adhoc.Setup.Charge/records=0", "records", "0", func() error { return rel(setup().Charge(adhoc.DPLSL, 0, 0.5)) }})

	// ---- session: budgets, charges, selection (nothing here touches a store)
	renyi := func(e, d float64) session.Total { return session.Total{Epsilon: e, Delta: d, Filter: session.Renyi} }
	charge := session.Charge{Mechanism: "m", Epsilon: 0.1, Delta: 1e-7}
	add(epsDeltaRows("session.Total.Capacity", "Epsilon", "Delta", func(e, d float64) error { return rel(renyi(e, d).Capacity(charge, 1)) })...)
	for _, e := range badEps {
		add(row{"session.Charge/Epsilon=" + fmtv(e), "Epsilon", fmtv(e), func() error {
			return rel(renyi(1, 1e-5).Capacity(session.Charge{Mechanism: "m", Epsilon: e}, 1))
		}})
	}
	for _, d := range []float64{-1, 1, nan} {
		add(row{"session.Charge/Delta=" + fmtv(d), "Delta", fmtv(d), func() error {
			return rel(renyi(1, 1e-5).Capacity(session.Charge{Mechanism: "m", Epsilon: 0.1, Delta: d}, 1))
		}})
	}
	add(row{"session.Charge/Mechanism empty", "Mechanism", "", func() error { return rel(renyi(1, 1e-5).Capacity(session.Charge{Epsilon: 0.1}, 1)) }},
		row{"session.Charge/RDP=NaN", "RDP", "NaN", func() error {
			return rel(renyi(1, 1e-5).Capacity(session.Charge{Mechanism: "m", Epsilon: 0.1, RDP: func(float64) float64 { return nan }}, 1))
		}},
		row{"session.Total/Filter=5", "Filter", "5", func() error { return rel(session.Total{Epsilon: 1, Delta: 1e-5, Filter: 5}.Capacity(charge, 1)) }},
		row{"session.Total/Orders[0]=1", "Orders[0]", "1", func() error {
			return rel(session.Total{Epsilon: 1, Delta: 1e-5, Filter: session.Renyi, Orders: []float64{1}}.Capacity(charge, 1))
		}},
		row{"session.Total/ApproxDelta=1e-5", "ApproxDelta", "1e-05", func() error {
			return rel(session.Total{Epsilon: 1, Delta: 1e-5, Filter: session.Renyi, ApproxDelta: 1e-5}.Capacity(charge, 1))
		}},
		row{"session.ParseFilter/pld", "filter", "pld", func() error { return rel(session.ParseFilter("pld")) }},
	)
	score := func(trajectory.Trajectory, int) float64 { return 0 }
	sel := func(mod func(*session.Selection)) session.Selection {
		s := session.Selection{Mechanism: "m", Epsilon: 1, Candidates: 2, Lo: 0, Hi: 1, Score: score}
		mod(&s)
		return s
	}
	for _, e := range badEps {
		add(row{"session.Exponential/Epsilon=" + fmtv(e), "Epsilon", fmtv(e), func() error {
			return rel(session.Exponential(data, sel(func(s *session.Selection) { s.Epsilon = e }), src()))
		}})
	}
	add(row{"session.Exponential/Candidates=0", "Candidates", "0", func() error {
		return rel(session.Exponential(data, sel(func(s *session.Selection) { s.Candidates = 0 }), src()))
	}},
		row{"session.Exponential/Hi=Lo", "Hi", "0", func() error {
			return rel(session.Exponential(data, sel(func(s *session.Selection) { s.Hi = 0 }), src()))
		}},
		row{"session.Exponential/Lo=-Inf", "Lo", "-∞", func() error {
			return rel(session.Exponential(data, sel(func(s *session.Selection) { s.Lo = math.Inf(-1) }), src()))
		}},
		row{"session.Exponential/Score=nil", "Score", "", func() error {
			return rel(session.Exponential(data, sel(func(s *session.Selection) { s.Score = nil }), src()))
		}},
		row{"session.Exponential/d=nil", "d", "", func() error { return rel(session.Exponential(nil, sel(func(*session.Selection) {}), src())) }},
		row{"session.Exponential/src=nil", "src", "", func() error { return rel(session.Exponential(data, sel(func(*session.Selection) {}), nil)) }},
	)

	// ---- policyeval: DP-LSW, DP-LSL, GPOPE and their calibrations
	prob, pair := balle2016.LSWAuditProblem()
	index := func(obs []float64) int { return int(obs[0]) }
	sig, err := policyeval.NewSignature(pair[0], 2, 0.9, index)
	must(err)
	add(epsDeltaRows("policyeval.DPLSW", "Epsilon", "Delta", func(e, d float64) error {
		return rel(policyeval.DPLSW(prob, sig, policyeval.PrivacyParams{Epsilon: e, Delta: d}, false, src()))
	})...)
	add(epsDeltaRows("policyeval.DPLSL", "Epsilon", "Delta", func(e, d float64) error {
		return rel(policyeval.DPLSL(prob, sig, 1, policyeval.PrivacyParams{Epsilon: e, Delta: d}, policyeval.LSLPaper, src()))
	})...)
	add(epsDeltaRows("policyeval.GPOPESigma", "eps", "delta", func(e, d float64) error {
		return rel(policyeval.GPOPESigma(policyeval.AccountingPoisson, 100, 100, e, d, 1, nil))
	})...)
	add(row{"policyeval.DPLSW/Epsilon=2 (Lemma 1 needs ε ≤ 1)", "Epsilon", "2", func() error {
		return rel(policyeval.DPLSW(prob, sig, policyeval.PrivacyParams{Epsilon: 2, Delta: 1e-5}, false, src()))
	}},
		row{"policyeval.DPLSL/Epsilon=2 (Lemma 1 needs ε ≤ 1)", "Epsilon", "2", func() error {
			return rel(policyeval.DPLSL(prob, sig, 1, policyeval.PrivacyParams{Epsilon: 2, Delta: 1e-5, Variant: mechanisms.SmoothAppendixA}, policyeval.LSLPaper, src()))
		}})
	add(row{"policyeval.DPLSL/lambda=-1", "lambda", "-1", func() error {
		return rel(policyeval.DPLSL(prob, sig, -1, policyeval.PrivacyParams{Epsilon: 1, Delta: 1e-5}, policyeval.LSLPaper, src()))
	}},
		row{"policyeval.DPLSW/src=nil", "src", "", func() error {
			return rel(policyeval.DPLSW(prob, sig, policyeval.PrivacyParams{Epsilon: 1, Delta: 1e-5}, false, nil))
		}},
		row{"policyeval.DPLSW/FMax=NaN", "FMax", "NaN", func() error {
			p := *prob
			p.FMax = nan
			return rel(policyeval.DPLSW(&p, sig, policyeval.PrivacyParams{Epsilon: 1, Delta: 1e-5}, false, src()))
		}},
		row{"policyeval.NewSignature/gamma=1.5", "gamma", "1.5", func() error { return rel(policyeval.NewSignature(pair[0], 2, 1.5, index)) }},
		row{"policyeval.NewSignature/numStates=0", "numStates", "0", func() error { return rel(policyeval.NewSignature(pair[0], 0, 0.9, index)) }},
		row{"policyeval.NewSignature/index=nil", "index", "", func() error { return rel(policyeval.NewSignature(pair[0], 2, 0.9, nil)) }},
		row{"policyeval.GPOPEEpsilon/sigma=0", "sigma", "0", func() error {
			return rel(policyeval.GPOPEEpsilon(policyeval.AccountingPoisson, 100, 100, 0, 1, 1e-5, nil))
		}},
		row{"policyeval.GPOPEEpsilon/n=0", "n", "0", func() error {
			return rel(policyeval.GPOPEEpsilon(policyeval.AccountingPoisson, 0, 100, 1, 1, 1e-5, nil))
		}},
		row{"policyeval.GPOPESigma/T=-1", "T", "-1", func() error {
			return rel(policyeval.GPOPESigma(policyeval.AccountingPoisson, 100, -1, 1, 1e-5, 1, nil))
		}},
		row{"policyeval.LambdaSchedule/c=-1", "c", "-1", func() error { return rel(policyeval.LambdaSchedule(prob, -1, 10)) }},
		row{"policyeval.ModelMoments/m=nil", "m", "", func() error { return rel(policyeval.ModelMoments(nil, nil, prob.Phi, 0.9)) }},
	)
	xc, err := xie2019.Chain()
	must(err)
	xs, err := xc.Draw(10, src())
	must(err)
	ft, err := policyeval.Featurize(xs.Raw, envs.TabularFeatures{N: 40}, nil)
	must(err)
	gcfg := func() policyeval.GPOPEConfig {
		return policyeval.GPOPEConfig{Gamma: xc.Gamma, Iterations: 20, Step: policyeval.Constant(0.01), Clip: 1, Sigma: 0.1, Src: src()}
	}
	add(row{"policyeval.GPOPE/Sigma=0 (no noise)", "Sigma", "0", func() error { c := gcfg(); c.Sigma = 0; return rel(policyeval.GPOPE(ft, c)) }},
		row{"policyeval.GPOPE/Sigma=NaN", "Sigma", "NaN", func() error { c := gcfg(); c.Sigma = nan; return rel(policyeval.GPOPE(ft, c)) }},
		row{"policyeval.GPOPE/Clip=0", "Clip", "0", func() error { c := gcfg(); c.Clip = 0; return rel(policyeval.GPOPE(ft, c)) }},
		row{"policyeval.GPOPE/Iterations=-1", "Iterations", "-1", func() error { c := gcfg(); c.Iterations = -1; return rel(policyeval.GPOPE(ft, c)) }},
		row{"policyeval.GPOPE/Gamma=NaN", "Gamma", "NaN", func() error { c := gcfg(); c.Gamma = nan; return rel(policyeval.GPOPE(ft, c)) }},
		row{"policyeval.GPOPE/Step=nil", "Step", "", func() error { c := gcfg(); c.Step = nil; return rel(policyeval.GPOPE(ft, c)) }},
		row{"policyeval.GPOPE/Src=nil", "Src", "", func() error { c := gcfg(); c.Src = nil; return rel(policyeval.GPOPE(ft, c)) }},
		row{"xie2019.Sigmas/Delta=0", "Delta", "0", func() error {
			return rel(xie2019.Sigmas(xc, xie2019.Config{N: []int{10}, Epsilons: []float64{1}, Steps: []float64{0.1}, Delta: 0, Trials: 1}))
		}},
		row{"policyeval.LSTD/ridge=-1", "ridge", "-1", func() error { return rel(policyeval.LSTD(ft, xc.Gamma, -1)) }},
	)

	// ---- fnq
	wh := func() envs.Env { return envs.NewWangHegde() }
	fcfg := func(m fnq.Method) fnq.Config {
		return fnq.Config{Method: m, Episodes: 2, Sigma: 1, Beta: 1, RewardSigma: 1, Clip: 1, Z: 1, Src: src()}
	}
	add(row{"fnq.Run/FunctionalNoise Sigma=0 (no noise)", "Sigma", "0", func() error { c := fcfg(fnq.FunctionalNoise); c.Sigma = 0; return rel(fnq.Run(wh(), c)) }},
		row{"fnq.Run/FunctionalNoise Sigma=NaN", "Sigma", "NaN", func() error { c := fcfg(fnq.FunctionalNoise); c.Sigma = nan; return rel(fnq.Run(wh(), c)) }},
		row{"fnq.Run/FunctionalNoise Beta=-1", "Beta", "-1", func() error { c := fcfg(fnq.FunctionalNoise); c.Beta = -1; return rel(fnq.Run(wh(), c)) }},
		row{"fnq.Run/InputPerturbation RewardSigma=0", "RewardSigma", "0", func() error {
			c := fcfg(fnq.InputPerturbation)
			c.RewardSigma = 0
			return rel(fnq.Run(wh(), c))
		}},
		row{"fnq.Run/DPSGD Z=0", "Z", "0", func() error { c := fcfg(fnq.DPSGD); c.Z = 0; return rel(fnq.Run(wh(), c)) }},
		row{"fnq.Run/DPSGD Z=1e308 (2·Batch·Z overflows)", "Z", "1e+308", func() error { c := fcfg(fnq.DPSGD); c.Z = 1e308; return rel(fnq.Run(wh(), c)) }},
		row{"fnq.Run/DPSGD Clip=NaN", "Clip", "NaN", func() error { c := fcfg(fnq.DPSGD); c.Clip = nan; return rel(fnq.Run(wh(), c)) }},
		row{"fnq.Run/Episodes=-1", "Episodes", "-1", func() error { c := fcfg(fnq.NonPrivate); c.Episodes = -1; return rel(fnq.Run(wh(), c)) }},
		row{"fnq.Run/Src=nil", "Src", "", func() error { c := fcfg(fnq.NonPrivate); c.Src = nil; return rel(fnq.Run(wh(), c)) }},
	)
	add(epsDeltaRows("fnq.RunBGP16", "Epsilon", "Delta", func(e, d float64) error {
		return rel(fnq.RunBGP16(wh(), fnq.BGPConfig{Episodes: 2, Bins: 4, Every: 1, Epsilon: e, Delta: d, ReturnBound: 25, Src: src()}))
	})...)
	cal := func(e, d float64) fnq.Calibration {
		return fnq.Calibration{Epsilon: e, Delta: d, T: 5000, B: 128, LR: 7e-5, L: 1, K: 210, Actions: 2, Resets: 39}
	}
	add(epsDeltaRows("fnq.Calibration.Validate", "Epsilon", "Delta", func(e, d float64) error { return cal(e, d).Validate() })...)
	add(epsDeltaRows("fnq.RunSpecified", "Epsilon", "Delta", func(e, d float64) error {
		return rel(fnq.RunSpecified(wh(), fnq.SpecifiedConfig{Calibration: cal(e, d), Src: src()}))
	})...)
	add(epsDeltaRows("fnq.DPSGDNoiseMultiplier", "eps", "delta", func(e, d float64) error { return rel(fnq.DPSGDNoiseMultiplier(100, e, d)) })...)
	add(row{"fnq.InputPerturbationSigma/T=0", "T", "0", func() error { return rel(fnq.InputPerturbationSigma(0, 1, 1e-5)) }},
		row{"fnq.RunBGP16/ReturnBound=0", "ReturnBound", "0", func() error {
			return rel(fnq.RunBGP16(wh(), fnq.BGPConfig{Episodes: 2, Bins: 4, Every: 1, Epsilon: 1, Delta: 1e-5, Src: src()}))
		}},
		// Algorithm 1 with L = 2 at the worked settings' k (ours): Theorem 5's precondition 2k > 8.68√β·σ fails (margins −94, −148).
		row{"fnq.RunSpecified/K=210 L=2 (outside Theorem 5)", "K", "210", func() error {
			c := cal(0.9, 1e-4)
			c.L = 2
			return rel(fnq.RunSpecified(wh(), fnq.SpecifiedConfig{Calibration: c, Src: src()}))
		}},
		row{"fnq.RunSpecified/K=420 L=2 eps=0.45 (outside Theorem 5)", "K", "420", func() error {
			c := cal(0.45, 1e-4)
			c.L, c.LR, c.K = 2, 3e-5, 420
			return rel(fnq.RunSpecified(wh(), fnq.SpecifiedConfig{Calibration: c, Src: src()}))
		}},
	)

	// ---- actorcritic
	dom := seoyang2020.Domains()[0]
	acRun := func(mod func(*actorcritic.Config)) error {
		env, err := envs.Make(dom.Name)
		if err != nil {
			return err
		}
		c := dom.Base
		c.Variant, c.Episodes, c.Clip, c.NoiseMultiplier, c.Src = actorcritic.Corrected, 2, 1, 1, src()
		c.MaxEpisodeLen = dom.MaxSteps // the corrected variant's required H, so each row tests only its own field
		mod(&c)
		return rel(actorcritic.Run(env, envs.TabularFeatures{N: dom.NumStates}, c))
	}
	add(epsDeltaRows("actorcritic.Run/DPActor", "Epsilon", "Delta", func(e, d float64) error {
		return acRun(func(c *actorcritic.Config) { c.Variant, c.Epsilon, c.Delta = actorcritic.DPActor, e, d })
	})...)
	add(row{"actorcritic.Run/Corrected NoiseMultiplier=0", "NoiseMultiplier", "0", func() error { return acRun(func(c *actorcritic.Config) { c.NoiseMultiplier = 0 }) }},
		row{"actorcritic.Run/Corrected Clip·NoiseMultiplier underflows", "NoiseMultiplier", "1e-200", func() error {
			return acRun(func(c *actorcritic.Config) { c.Clip, c.NoiseMultiplier = 1e-200, 1e-200 })
		}},
		row{"actorcritic.Run/Corrected Clip=NaN", "Clip", "NaN", func() error { return acRun(func(c *actorcritic.Config) { c.Clip = nan }) }},
		row{"actorcritic.Run/Gamma=1.5", "Gamma", "1.5", func() error { return acRun(func(c *actorcritic.Config) { c.Gamma = 1.5 }) }},
		row{"actorcritic.Run/Episodes=-1", "Episodes", "-1", func() error { return acRun(func(c *actorcritic.Config) { c.Episodes = -1 }) }},
		row{"actorcritic.Run/Src=nil", "Src", "", func() error { return acRun(func(c *actorcritic.Config) { c.Src = nil }) }},
		row{"actorcritic.RunMany/runs=-1", "runs", "-1", func() error { return rel(dom.RunMany(dom.Base, -1, 1, nil)) }},
		row{"actorcritic.CorrectedNoise/maxEpisodeLen=0", "maxEpisodeLen", "0", func() error { return rel(actorcritic.CorrectedNoise(1, 1e-5, 0)) }},
		row{"actorcritic.CorrectedEpsilon/noiseMultiplier=0", "noiseMultiplier", "0", func() error { return rel(actorcritic.CorrectedEpsilon(0, 10, 1e-5)) }},
		row{"seoyang2020.ComposedPublishedEpsilon/releases=-1", "releases", "-1", func() error { return rel(seoyang2020.ComposedPublishedEpsilon(1, -1, 1e-5)) }},
		row{"seoyang2020.Summarize/k=0", "k", "0", func() error {
			_, err := seoyang2020.Summarize([]*actorcritic.Result{{Returns: []float64{1, 2}, Lengths: []int{1, 1}}}, 0)
			return err
		}},
		row{"seoyang2020.Data/Sizes.Runs=1", "Sizes.Runs", "1", func() error {
			return rel(seoyang2020.Data(report.Discard, seoyang2020.Sizes{Runs: 1, Episodes: 2, TuneRuns: 1, Epsilons: []float64{1}, Corrected: []float64{10}}))
		}},
		row{"seoyang2020.Data/Sizes.Epsilons=NaN", "Sizes.Epsilons", "NaN", func() error {
			return rel(seoyang2020.Data(report.Discard, seoyang2020.Sizes{Runs: 2, Episodes: 2, TuneRuns: 1, Epsilons: []float64{nan}, Corrected: []float64{10}}))
		}},
	)
	add(epsDeltaRows("actorcritic.CorrectedNoise", "eps", "delta", func(e, d float64) error { return rel(actorcritic.CorrectedNoise(e, d, 10)) })...)

	// ---- expertdp
	add(epsDeltaRows("expertdp.Constants", "eps1", "delta1", func(e, d float64) error { return rel(expertdp.Constants(e, d, 0.02, 10, 10)) })...)
	tcfg := func(e, d float64) expertdp.TrainConfig {
		return expertdp.TrainConfig{P: 1, Batch: 10, NoiseMultiplier: 1, Epsilon: e, Delta: d, EvalEpisodes: 1}
	}
	add(epsDeltaRows("expertdp.TrainConfig.CalibrateNoise", "Epsilon", "Delta", func(e, d float64) error { return rel(tcfg(e, d).CalibrateNoise(100, 10)) })...)
	add(row{"expertdp.Constants/pMin=0", "pMin", "0", func() error { return rel(expertdp.Constants(1, 1e-5, 0, 10, 10)) }},
		row{"expertdp.Constants/T=0", "T", "0", func() error { return rel(expertdp.Constants(1, 1e-5, 0.02, 0, 10)) }},
		row{"expertdp.Constants/L=-1", "L", "-1", func() error { return rel(expertdp.Constants(1, 1e-5, 0.02, 10, -1)) }},
		row{"expertdp.TrainConfig.CalibrateNoise/m=0", "m", "0", func() error { return rel(tcfg(1, 1e-5).CalibrateNoise(0, 10)) }},
		row{"expertdp.TrainConfig.SpentEpsilon/steps=-1", "steps", "-1", func() error { return rel(tcfg(1, 1e-5).SpentEpsilon(100, -1)) }},
		row{"expertdp.TrainConfig.Budget/P=1.5", "P", "1.5", func() error { c := tcfg(1, 1e-5); c.P = 1.5; return rel(c.Budget(100, 10)) }},
		row{"expertdp.DataRelease/data=nil", "data", "", func() error {
			return rel(expertdp.DataRelease(nil, nil, expertdp.ReleaseParams{Epsilon: 1, Delta: 1e-5, PMin: 0.02, T: 1, Src: src()}))
		}},
		row{"expertdp.Train/data=nil", "data", "", func() error { return rel(expertdp.Train(nil, nil, expertdp.CartPoleDomain(), tcfg(1, 1e-5))) }},
		row{"expertdp.Train/rel of another log", "rel.Trajectories()", "0", func() error {
			data := &expertdp.Data{ObsDim: 4, NumActions: 2, Experts: 20, Trajs: []expertdp.Traj{{Obs: make([]float64, 8), Actions: []int{0}, Rewards: []float64{1}}}}
			c := tcfg(1, 1e-5)
			c.MaxSteps = 10
			return rel(expertdp.Train(data, &expertdp.Release{}, expertdp.CartPoleDomain(), c))
		}},
		row{"expertdp.DomainByName/name=nope", "name", "nope", func() error { return rel(expertdp.DomainByName("nope")) }},
		row{"sharma.NewSetup/env=nope", "env", "nope", func() error {
			return rel(sharma.NewSetup("nope", sharma.SetupConfig{Bases: 1, Experts: 1, PerExpert: 1}))
		}},
		row{"expertdp.NewExperts/Bases=0", "Bases", "0", func() error {
			return rel(expertdp.NewExperts(expertdp.CartPoleDomain(), expertdp.ExpertsConfig{Bases: 0, Experts: 2}))
		}},
		row{"expertdp.NewPrefixCounter/e=nil", "e", "", func() error { return rel(expertdp.NewPrefixCounter(nil, 0.02)) }},
		row{"expertdp.Data.Subset/m=-1", "m", "-1", func() error { return rel((&expertdp.Data{}).Subset(-1)) }},
	)

	// ---- audit
	proc := audit.Procedure{Name: "const", Run: func(n int, _ rand.Source) (float64, error) { return float64(n), nil }}
	add(row{"audit.Run/Runs=5", "Runs", "5", func() error { return rel(audit.Run(proc, audit.Config{Runs: 5}, nil)) }},
		row{"audit.Run/Runs=-1", "Runs", "-1", func() error { return rel(audit.Run(proc, audit.Config{Runs: -1}, nil)) }},
		row{"audit.Run/Runs=MaxInt (memory)", "Runs", "", func() error { return rel(audit.Run(proc, audit.Config{Runs: math.MaxInt}, nil)) }},
		row{"audit.Run/Delta=NaN", "Delta", "NaN", func() error { return rel(audit.Run(proc, audit.Config{Runs: 10, Delta: nan}, nil)) }},
		row{"audit.Run/Delta=1", "Delta", "1", func() error { return rel(audit.Run(proc, audit.Config{Runs: 10, Delta: 1}, nil)) }},
		row{"audit.Run/Confidence=1.5", "Confidence", "1.5", func() error { return rel(audit.Run(proc, audit.Config{Runs: 10, Confidence: 1.5}, nil)) }},
		row{"audit.Run/Workers=-1", "Workers", "-1", func() error { return rel(audit.Run(proc, audit.Config{Runs: 10, Workers: -1}, nil)) }},
		row{"audit.Run/Procedure.Run=nil", "Run", "", func() error { return rel(audit.Run(audit.Procedure{Name: "x"}, audit.Config{Runs: 10}, nil)) }},
		row{"audit.Run/a panicking procedure", "panicked", "", func() error {
			return rel(audit.Run(audit.Procedure{Name: "x", Run: func(int, rand.Source) (float64, error) { panic("boom") }}, audit.Config{Runs: 10}, nil))
		}},
	)

	// ---- accounting (the notebooks' tables)
	w := accounting.Workload{Q: 0.01, Z: 1, Steps: 100, N: 10000}
	add(row{"accounting.Epsilon/Q=1.5", "Q", "1.5", func() error { x := w; x.Q = 1.5; return rel(accounting.Epsilon(accounting.RDP, x, 1e-5)) }},
		row{"accounting.Epsilon/Z=0", "Z", "0", func() error { x := w; x.Z = 0; return rel(accounting.Epsilon(accounting.RDP, x, 1e-5)) }},
		row{"accounting.Epsilon/Steps=-1", "Steps", "-1", func() error { x := w; x.Steps = -1; return rel(accounting.Epsilon(accounting.RDP, x, 1e-5)) }},
		row{"accounting.Epsilon/delta=0", "delta", "0", func() error { return rel(accounting.Epsilon(accounting.RDP, w, 0)) }},
		row{"accounting.NoiseFor/eps=NaN", "eps", "NaN", func() error { return rel(accounting.NoiseFor(accounting.RDP, w, nan, 1e-5)) }},
		row{"accounting.GaussianTable/epsilons=-1", "epsilons", "-1", func() error { return rel(accounting.GaussianTable([]float64{-1}, 1e-5)) }},
		row{"accounting.CompositionTable/z=0", "z", "0", func() error { return rel(accounting.CompositionTable(0, []int{1}, 1e-5)) }},
		row{"accounting.CompositionTable/ks=-1", "ks", "-1", func() error { return rel(accounting.CompositionTable(1, []int{-1}, 1e-5)) }},
		row{"accounting.SharmaTable/Eps1=-1", "Eps1", "-1", func() error {
			return rel(accounting.SharmaTable([]accounting.SharmaRow{{Name: "x", Eps1: -1, Delta1: 1e-5, T: 10, L: 10, PMin: 0.02}}))
		}},
		row{"accounting.XieTable/N=0", "N", "0", func() error { return rel(accounting.XieTable([]accounting.XieRow{{N: 0, T: 10, Eps: 1}})) }},
		row{"accounting.WangHegdeTable/Epsilon=0", "Epsilon", "0", func() error { return rel(accounting.WangHegdeTable([]fnq.Calibration{cal(0, 1e-4)})) }},
	)

	// ---- sweep: specs, shards and the engines' jobs (sweep_test.go)
	add(sweepRows(t)...)
	return rows
}

// reset2 resets e with a nil source.
func reset2(e envs.Env) error { _, err := e.Reset(nil); return err }
