package balle2016

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/dprl-project/dprl/dprl/experiment"
	"github.com/dprl-project/dprl/dprl/report"
	"github.com/dprl-project/dprl/dprl/repro"
	"github.com/dprl-project/dprl/dprl/repro/claimtest"
)

// claimKeys are the rows Claims records, in order: the paper's, our sanity check, the F = 100 sensitivity rows.
var claimKeys = []string{"p1", "p1-conv", "p3-lsw", "p3-lsl", "p3-small", "p3-large", "p-schedule", "p-noise-lsw", "p-noise-lsl",
	"p4-lsw", "p4-lsl", "s-lsl-zero", "p3-lsw-f100", "p3-lsl-f100"}

// TestClaims: Claims records every row complete (claimtest.Strict: kind, quote found in the paper's words,
// where, trivial reference, privacy of the compared methods, all private ones at the same certified (0.1,
// 0.1)); each paper row's Robust lists verdicts recomputed under the alternatives (the same as the rows of
// that setting, decided), and only alternatives that change what it depends on.
func TestClaims(t *testing.T) {
	d, ch := tinyData(t)
	var r report.Recorder
	if err := Claims(&r, d, ch); err != nil {
		t.Fatal(err)
	}
	rows := r.ClaimRows()
	claimtest.Strict(t, rows)
	if len(rows) != len(claimKeys) {
		t.Fatalf("%d rows, want %d", len(rows), len(claimKeys))
	}
	bound := map[string]Setting{}
	for _, a := range ch.Alternatives() {
		bound[a.Name] = a
	}
	for i, c := range rows {
		if c.Key != claimKeys[i] || c.Seeds != 2 {
			t.Errorf("row %d: key %q, %d seeds", i, c.Key, c.Seeds)
		}
		for _, p := range c.Privacy {
			if !p.NonPrivate && (math.Abs(p.Epsilon-0.1) > 1e-12 || p.Delta != 0.1) {
				t.Errorf("%s: %s certified (%v, %v)", c.Key, p.Method, p.Epsilon, p.Delta)
			}
		}
		if c.Kind != repro.KindPaper {
			continue
		}
		if c.Robust == nil || len(c.Robust.Alternatives) == 0 {
			t.Errorf("%s: robust %+v", c.Key, c.Robust)
			continue
		}
		for _, a := range c.Robust.Alternatives {
			name := a.Setting
			if strings.HasPrefix(name, "c = ") { // a non-private LSL row names the alternative by its c
				name = "LSL with " + name
			}
			s, ok := bound[name]
			if !ok {
				t.Fatalf("%s: alternative %q is not one of the choice's", c.Key, a.Setting)
			}
			alt, err := claimRows(d, s)
			if err != nil {
				t.Fatal(err)
			}
			if want := repro.Decide(alt[i].Claim).Verdict; a.Verdict != want {
				t.Errorf("%s under %s: robust says %s, its rows %s", c.Key, s.Name, a.Verdict, want)
			}
		}
	}
	for _, c := range rows[len(rows)-2:] {
		if c.Kind != repro.KindAnalysis || !strings.Contains(c.Claim, "F = 100") || c.Privacy[0].Delta != 0.1 {
			t.Errorf("sensitivity row %+v", c)
		}
	}
	// p1 depends on LSL's c only, p3-lsw on the arm only.
	for _, a := range rows[0].Robust.Alternatives {
		if !strings.HasPrefix(a.Setting, "c = ") {
			t.Errorf("p1: alternative %q", a.Setting)
		}
	}
	if n := len(rows[2].Robust.Alternatives); n != len(Arms())-1 {
		t.Errorf("p3-lsw: %d alternatives, want the other arms", n)
	}
}

// TestClaimMeasured: p3-lsw's interval is the 95% interval of RMSE(DP-LSW)/RMSE(LSW) at the largest m, pairs,
// primary arm, recomputed from the table's rows; its margin over θ = 0 likewise.
func TestClaimMeasured(t *testing.T) {
	d, ch := tinyData(t)
	rows, err := claimRows(d, ch.Main())
	if err != nil {
		t.Fatal(err)
	}
	get := func(estimator, arm string) []float64 {
		out := make([]float64, 2)
		for _, r := range d.Table.Rows {
			if r[1] == "1000" && r[2] == estimator && r[3] == FeaturesPairs && r[4] == arm {
				s, _ := strconv.Atoi(r[0])
				out[s], _ = strconv.ParseFloat(r[7], 64)
			}
		}
		return out
	}
	dw, w, z := get(EstimatorDPLSW, ArmPublic.Name), get(EstimatorLSW, ""), get(EstimatorZero, "")
	_, lo, hi := experiment.MeanCI([]float64{dw[0] / w[0], dw[1] / w[1]}, 0.95)
	c := rows[2].Claim
	if c.Key != "p3-lsw" || math.Abs(c.CILow-lo) > 1e-9*math.Abs(lo) || math.Abs(c.CIHigh-hi) > 1e-9*math.Abs(hi) {
		t.Errorf("p3-lsw [%v, %v], from the rows [%v, %v]", c.CILow, c.CIHigh, lo, hi)
	}
	if m := (z[0] - dw[0] + z[1] - dw[1]) / 2; math.Abs(c.Compare.Margin.Mean-m) > 1e-9*math.Abs(m) {
		t.Errorf("margin %v, from the rows %v", c.Compare.Margin.Mean, m)
	}
}

// TestSummary: the summary names the chosen constants and the 1/√m factor.
func TestSummary(t *testing.T) {
	d, ch := tinyData(t)
	s, err := Summary(d, ch)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"F = 1, δ = 0.1", "DP-LSL " + strconv.FormatFloat(ch.Of(ArmPublic, CodePower), 'g', -1, 64), "3.16 for 1/√m", "p = 0 (c = "} {
		if !strings.Contains(s, want) {
			t.Errorf("summary lacks %q:\n%s", want, s)
		}
	}
}
