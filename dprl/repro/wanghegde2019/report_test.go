package wanghegde2019

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/dprl-project/dprl/dprl/experiment"
	"github.com/dprl-project/dprl/dprl/report"
	"github.com/dprl-project/dprl/dprl/repro"
	"github.com/dprl-project/dprl/dprl/repro/claimtest"
	"github.com/dprl-project/dprl/dprl/sweep"
)

func TestCalibrationTable(t *testing.T) {
	var r report.Recorder
	if err := CalibrationTable(&r); err != nil {
		t.Fatal(err)
	}
	if r.Tables() != 1 || len(r.Items) != 3 {
		t.Fatalf("%d items, %d tables; want a sentence, one table and a sentence", len(r.Items), r.Tables())
	}
	rows := r.Items[1].Rows
	if len(rows) != 3 || len(rows[0]) != len(r.Items[1].Header) {
		t.Fatalf("%d rows of %d cells under %d columns", len(rows), len(rows[0]), len(r.Items[1].Header))
	}
	// Theorem 5's σ (column 7) and the second row's T′ = 5000/128 = 39.
	if rows[0][7] != "22.2" || rows[1][1] != "128 / 39" || rows[2][7] != "1.13" {
		t.Errorf("rows %v", rows)
	}
	// With L = 1 Theorem 5's precondition holds at all three settings.
	for _, row := range rows {
		if row[12] != "yes" {
			t.Errorf("row %v: Theorem 5 reported as not applying", row)
		}
	}
	if !strings.Contains(r.Items[2].Markdown, "22.2, 0.636, 1.13; the paper gives 22.2, 0.637, 1.13: reproduced") {
		t.Errorf("σ check: %q", r.Items[2].Markdown)
	}
}

func TestWorkedSigmas(t *testing.T) {
	got, err := WorkedSigmas()
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []float64{22.2, 0.637, 1.13} {
		if math.Abs(got[i]-want) > 0.01*want {
			t.Errorf("setting %d: σ = %g, want ≈ %g", i, got[i], want)
		}
	}
}

func TestDefaultProtocol(t *testing.T) {
	t.Setenv(experiment.QuickEnv, "1")
	if p := DefaultProtocol(); p != (Protocol{Seeds: 2, Episodes: 40}) {
		t.Errorf("quick: %+v", p)
	}
	t.Setenv(experiment.QuickEnv, "")
	if p := DefaultProtocol(); p != (Protocol{Seeds: 10, Episodes: 100}) {
		t.Errorf("default: %+v", p)
	}
}

func TestFig2Settings(t *testing.T) {
	s, err := Fig2Settings(Fig2Rows()[0], 100)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, x := range s {
		names = append(names, x.Legend())
	}
	// σ_r for 5000 rewards at ε = 0.9, δ = 1e−4 is ≈ 247; the code configuration uses σ = 0.637.
	if len(s) != 9 || !strings.Contains(names[F2Code], "σ = 0.637") || names[F2Input] != "input perturbation (σ_r = 247) [ε = 0.9]" {
		t.Errorf("settings %q", names)
	}
	for _, i := range []int{F2Code, F2Alg1Paper, F2BGP} {
		if !strings.HasSuffix(names[i], "["+NoGuaranteeLabel+"]") {
			t.Errorf("%q is not labelled %q", names[i], NoGuaranteeLabel)
		}
	}
	for _, i := range []int{F2Alg1Noiseless, F2NonPrivate} {
		if !strings.HasSuffix(names[i], "["+NonPrivateLabel+"]") {
			t.Errorf("%q is not labelled %q", names[i], NonPrivateLabel)
		}
	}
	if !strings.HasSuffix(names[F2Alg1], "[ε = 0.9]") || !strings.HasSuffix(names[F2Random], "[ε = 0]") {
		t.Errorf("corrected Algorithm 1 %q, random policy %q", names[F2Alg1], names[F2Random])
	}
	if _, err := Fig2Settings(Fig2Row{Epsilon: 0.9, Sigma: 0.637, LR: 7e-5, K: 210}, 2); err == nil {
		t.Error("2 episodes (no DP-SGD update step) accepted")
	}
}

func TestFifths(t *testing.T) {
	runs := [][]float64{{1, 2, 3, 4, 5}, {3, 4, 5, 6, 7}}
	if h, l := firstFifth(runs), lastFifth(runs); h[0] != 1 || h[1] != 3 || l[0] != 5 || l[1] != 7 {
		t.Errorf("first fifth %v, last fifth %v", h, l)
	}
	if d := paired([]float64{1, 2}, 1, []float64{1, 1}, 0.5); d[0] != 0.5 || d[1] != 1.5 {
		t.Errorf("paired %v", d)
	}
}

func TestEquivalent(t *testing.T) {
	for _, c := range []struct {
		d    []float64
		want string
	}{{[]float64{-0.5, 0.5, 0, 0.2}, repro.Reproduced}, {[]float64{5, 6, 5.5, 6.5}, repro.NotReproduced}, {[]float64{0, 4, 1, 3}, repro.Inconclusive}} {
		if got := equivalent(repro.Claim{}, c.d, 2, "").Verdict; got != c.want {
			t.Errorf("%v: %s, want %s", c.d, got, c.want)
		}
	}
}

// TestFigures runs both figures and the sweeps at a tiny size and checks what they show and record.
func TestFigures(t *testing.T) {
	t.Setenv(sweep.SweepsEnv, "")
	var r report.Recorder
	p := Protocol{Seeds: 2, Episodes: 3}
	if err := Fig1(&r, t.TempDir(), p); err != nil { // no merged sweeps there: the default size runs
		t.Fatal(err)
	}
	if r.Figures() != 2 || r.Tables() != 2 || r.Units != 9*2 {
		t.Errorf("Fig. 1: %d figures, %d tables, %d runs", r.Figures(), r.Tables(), r.Units)
	}
	if err := Fig2(&r, p); err != nil {
		t.Fatal(err)
	}
	if r.Figures() != 6 || r.Tables() != 6 || r.Units != 9*2+16*2 {
		t.Errorf("Fig. 1 and 2: %d figures, %d tables, %d runs", r.Figures(), r.Tables(), r.Units)
	}
	claims := r.ClaimRows()
	claimtest.Rows(t, claims)
	var keys []string
	for _, c := range claims {
		keys = append(keys, c.Key)
		if c.Seeds != 2 || !(c.CILow <= c.CIHigh) || c.Why == "" {
			t.Errorf("claim %+v", c)
		}
	}
	want := "f1 f1-04 f1-j f2-0.9-ip f2-0.9-dp f2-0.9-bgp f2-0.9-random f2-0.45-ip f2-0.45-dp f2-0.45-bgp f2-0.45-random f2-flat-ip f2-flat-dp"
	if got := strings.Join(keys, " "); got != want {
		t.Errorf("claims recorded: %s", got)
	}
	var s report.Recorder
	if err := EpsilonDeltaSweeps(&s, p); err != nil {
		t.Fatal(err)
	}
	if s.Figures() != 3 || s.Tables() != 3 {
		t.Errorf("sweeps: %d figures, %d tables", s.Figures(), s.Tables())
	}
}

// Theorem 5's σ at the three worked settings (δ = 1e−4, T = 5000, L = 1).
func ExampleWorkedSigmas() {
	s, _ := WorkedSigmas()
	fmt.Printf("%.3g %.3g %.3g\n", s[0], s[1], s[2])
	// Output: 22.2 0.636 1.13
}

func TestNoisePaths(t *testing.T) {
	var r report.Recorder
	if err := NoisePaths(&r, 1000); err != nil {
		t.Fatal(err)
	}
	if r.Figures() != 1 || len(r.Items) != 2 || !strings.HasSuffix(r.Items[1].Markdown, "all equal to the first answer: true.") {
		t.Errorf("%d figures, items %+v", r.Figures(), r.Items)
	}
}
