package fnq

import (
	"math"
	"strings"
	"testing"

	"github.com/dprl-project/dprl/mechanisms"
)

func near(t *testing.T, what string, got, want, rel float64) {
	t.Helper()
	if math.Abs(got-want) > rel*math.Abs(want) {
		t.Errorf("%s = %.6g, want %.6g (±%g relative)", what, got, want, rel)
	}
}

// TestTheorem5WorkedExample reproduces the three rows of the calibration table (package doc, "Reference
// values") from Theorem 5's inputs.
func TestTheorem5WorkedExample(t *testing.T) {
	for _, r := range []struct {
		eps      float64
		B        int
		lr, k    float64
		v, c     float64
		sigma    float64
		margin   float64
		gdp, kov float64
	}{
		{0.9, 50, 0.01, 230, 0.185, 0.219, 22.2, 12, 0.639, 0.848},
		{0.9, 128, 7e-5, 210, 4.6e-4, 4.6e-4, 0.637, 163, 0.639, 0.848},
		{0.45, 128, 3e-5, 420, 3.9e-4, 3.9e-4, 1.13, 345, 0.306, 0.417},
	} {
		k, err := Calibration{Epsilon: r.eps, Delta: 1e-4, T: 5000, B: r.B, LR: r.lr, L: 1, K: r.k, Actions: 2, Resets: 100}.Compute()
		if err != nil {
			t.Fatal(err)
		}
		near(t, "v", k.V, r.v, 0.02)
		near(t, "C", k.NormSq, r.c, 0.02)
		near(t, "σ (Thm 5)", k.SigmaThm5, r.sigma, 0.01)
		near(t, "tail margin", k.TailMargin, r.margin, 0.02)
		near(t, "exact GDP ε", k.EpsilonGDP, r.gdp, 0.01)
		near(t, "KOV ε", k.EpsilonKOV, r.kov, 0.01)
		if !(k.SigmaGDP < k.SigmaThm5) {
			t.Errorf("exact σ %g is not below Theorem 5's %g", k.SigmaGDP, k.SigmaThm5)
		}
		if !(math.Abs(k.Beta*k.V-1) < 1e-12) {
			t.Error("β ≠ 1/v")
		}
		if !k.Covered {
			t.Errorf("ε = %g, B = %d: Theorem 5's precondition reported as failing at margin %g", r.eps, r.B, k.TailMargin)
		}
	}
	// The first row's paper tail with J = 100: ≈ 4e−30.
	k, _ := Calibration{Epsilon: 0.9, Delta: 1e-4, T: 5000, B: 50, LR: 0.01, L: 1, K: 230, Actions: 2, Resets: 100}.Compute()
	if !(k.TailPaper > 1e-31 && k.TailPaper < 1e-28) {
		t.Errorf("paper tail %g, want ≈ 4e−30", k.TailPaper)
	}
	// The m-action correction multiplies σ by √m.
	c := Calibration{Epsilon: 0.9, Delta: 1e-4, T: 5000, B: 128, LR: 7e-5, L: 1, K: 210, Actions: 2, Resets: 1}
	a, _ := c.Compute()
	c.MActionCorrection = true
	b, _ := c.Compute()
	near(t, "σ with the m-action correction", b.SigmaThm5, a.SigmaThm5*math.Sqrt2, 1e-12)
}

// TestConservativeTail: the corrected tail's reference values (package doc, "Corrections"): at ε = 0.9,
// δ = 1e−4, T′ = 100, B = 128,
// α = 7e−5, L = 1, m = 2, J = 1 the corrected tail is 3e−7 at k = 420 and 3e−18 at k = 425, while at the paper's
// k = 210 it says nothing.
func TestConservativeTail(t *testing.T) {
	tail := func(k float64) float64 {
		c, err := Calibration{Epsilon: 0.9, Delta: 1e-4, T: 12800, B: 128, LR: 7e-5, L: 1, K: k, Actions: 2, Resets: 1}.Compute()
		if err != nil {
			t.Fatal(err)
		}
		return c.TailConservative
	}
	if v := tail(210); v != 1 {
		t.Errorf("k = 210: conservative tail %g, want no bound (1)", v)
	}
	for _, c := range []struct{ k, want float64 }{{420, 3e-7}, {425, 3e-18}} {
		if v := tail(c.k); math.Abs(math.Log10(v/c.want)) > 0.5 {
			t.Errorf("k = %v: conservative tail %g, want ≈ %g", c.k, v, c.want)
		}
	}
}

// TestTailAt: Compute's tail fields are TailAt at Theorem 5's σ, a smaller σ widens the margin, and where
// the precondition fails both tail terms are 1 and Covered is false.
func TestTailAt(t *testing.T) {
	c := Calibration{Epsilon: 0.45, Delta: 1e-4, T: 5000, B: 128, LR: 3e-5, L: 2, K: 420, Actions: 2, Resets: 39}
	k, err := c.Compute()
	if err != nil {
		t.Fatal(err)
	}
	at := c.TailAt(k.Beta, k.SigmaThm5)
	if at.Margin != k.TailMargin || at.Paper != k.TailPaper || at.Conservative != k.TailConservative || at.Covered != k.Covered {
		t.Errorf("TailAt %+v, Compute margin %g paper %g conservative %g covered %v", at, k.TailMargin, k.TailPaper, k.TailConservative, k.Covered)
	}
	// ε = 0.45 with L = 2 at the worked setting's k = 420 (ours): margin ≈ −148, outside the theorem.
	if k.Covered || math.Abs(k.TailMargin+148) > 1 || k.TailPaper != 1 || k.TailConservative != 1 {
		t.Errorf("covered %v, margin %g, tails %g %g", k.Covered, k.TailMargin, k.TailPaper, k.TailConservative)
	}
	if s := c.TailAt(k.Beta, k.SigmaThm5/2); !(s.Margin > at.Margin) || math.Abs(s.Level-at.Level/2) > 1e-9*at.Level {
		t.Errorf("half σ: %+v vs %+v", s, at)
	}
}

// TestBaselineNoise: the input-perturbation reference values (package doc, "Baselines"; T = 5000, δ = 1e−4:
// σ_r ≈ 247 at ε = 0.9 and 458
// at ε = 0.45) and DP-SGD's multiplier without amplification (√steps/z-GDP meets ε exactly).
func TestBaselineNoise(t *testing.T) {
	s, _ := InputPerturbationSigma(5000, 0.9, 1e-4)
	near(t, "σ_r at ε = 0.9", s, 247, 0.01)
	s, _ = InputPerturbationSigma(5000, 0.45, 1e-4)
	near(t, "σ_r at ε = 0.45", s, 458, 0.01)
	z, err := DPSGDNoiseMultiplier(39, 0.9, 1e-4)
	if err != nil {
		t.Fatal(err)
	}
	e, _ := mechanisms.GDPEpsilon(math.Sqrt(39)/z, 1e-4)
	near(t, "ε of 39 unamplified DP-SGD steps at the calibrated z", e, 0.9, 1e-6)
	// the input-perturbation example's μ: 0.286 for σ_r = 247 over 5000 rewards
	near(t, "μ", math.Sqrt(5000)/247, 0.286, 0.01)
	if _, err := InputPerturbationSigma(0, 0.9, 1e-4); err == nil || !strings.Contains(err.Error(), "T = 0") {
		t.Errorf("T = 0: %v", err)
	}
	if _, err := (Calibration{Epsilon: 1.2, Delta: 1e-4, T: 10, B: 1, LR: 1, L: 1, K: 1, Actions: 1, Resets: 1}).Compute(); err == nil || !strings.Contains(err.Error(), "Epsilon = 1.2") {
		t.Errorf("ε = 1.2: %v", err)
	}
}
