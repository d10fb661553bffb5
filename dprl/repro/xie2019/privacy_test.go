package xie2019

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/dprl-project/dprl/dprl/policyeval"
	"github.com/dprl-project/dprl/dprl/repro"
)

// ledgerDefault and ledgerQuick are the privacy of every GPOPE configuration the notebook runs at its default
// and quick sizes, as the ledger prints it: n | T | target ε | σ/C | certified replace-one ε (WBK Theorem 27) |
// add/remove ε (PLD; Poisson runs only).
var (
	ledgerDefault = []string{
		"500 | 500 | 0.1 | 6.39 | 0.1 | — (n public)",   // Fig. 1(a), WBK Thm 27 (replace-one)
		"500 | 500 | 1 | 1.84 | 1 | — (n public)",       // Fig. 1(a), WBK Thm 27 (replace-one)
		"1000 | 1000 | 0.1 | 5.07 | 0.1 | — (n public)", // Fig. 1(a), WBK Thm 27 (replace-one)
		"1000 | 1000 | 1 | 1.73 | 1 | — (n public)",     // Fig. 1(a), WBK Thm 27 (replace-one)
		"2000 | 2000 | 0.1 | 4.49 | 0.1 | — (n public)", // Fig. 1(a), WBK Thm 27 (replace-one)
		"2000 | 2000 | 1 | 1.64 | 1 | — (n public)",     // Fig. 1(a), WBK Thm 27 (replace-one)
		"5000 | 5000 | 0.1 | 4.06 | 0.1 | — (n public)", // Fig. 1(a), WBK Thm 27 (replace-one)
		"5000 | 5000 | 1 | 1.54 | 1 | — (n public)",     // Fig. 1(a), WBK Thm 27 (replace-one)
		"1000 | 1000 | 0.1 | 5.07 | 0.1 | — (n public)", // Fig. 1(b), WBK Thm 27 (replace-one)
		"1000 | 1000 | 1 | 1.73 | 1 | — (n public)",     // Fig. 1(b), WBK Thm 27 (replace-one)
		"500 | 500 | 0.1 | 6.39 | 0.1 | — (n public)",   // Mountain Car (Fig. 2(a), 3), WBK Thm 27 (replace-one)
		"500 | 500 | 0.5 | 2.5 | 0.5 | — (n public)",    // Mountain Car (Fig. 2(a), 3), WBK Thm 27 (replace-one)
		"500 | 500 | 1 | 1.84 | 1 | — (n public)",       // Mountain Car (Fig. 2(a), 3), WBK Thm 27 (replace-one)
		"500 | 500 | 2 | 1.42 | 2 | — (n public)",       // Mountain Car (Fig. 2(a), 3), WBK Thm 27 (replace-one)
		"1000 | 1000 | 0.1 | 5.07 | 0.1 | — (n public)", // Mountain Car (Fig. 2(a), 3), WBK Thm 27 (replace-one)
		"1000 | 1000 | 0.5 | 2.31 | 0.5 | — (n public)", // Mountain Car (Fig. 2(a), 3), WBK Thm 27 (replace-one)
		"1000 | 1000 | 1 | 1.73 | 1 | — (n public)",     // Mountain Car (Fig. 2(a), 3), WBK Thm 27 (replace-one)
		"1000 | 1000 | 2 | 1.34 | 2 | — (n public)",     // Mountain Car (Fig. 2(a), 3), WBK Thm 27 (replace-one)
		"2000 | 2000 | 0.1 | 4.49 | 0.1 | — (n public)", // Mountain Car (Fig. 2(a), 3), WBK Thm 27 (replace-one)
		"2000 | 2000 | 0.5 | 2.19 | 0.5 | — (n public)", // Mountain Car (Fig. 2(a), 3), WBK Thm 27 (replace-one)
		"2000 | 2000 | 1 | 1.64 | 1 | — (n public)",     // Mountain Car (Fig. 2(a), 3), WBK Thm 27 (replace-one)
		"2000 | 2000 | 2 | 1.27 | 2 | — (n public)",     // Mountain Car (Fig. 2(a), 3), WBK Thm 27 (replace-one)
		"1000 | 1000 | 1 | 1.73 | 1 | — (n public)",     // Fig. 2(b), WBK Thm 27 (replace-one)
		"100 | 100 | 0.5 | 3.61 | 0.5 | — (n public)",   // Fig. 4, WBK Thm 27 (replace-one)
		"100 | 100 | 1 | 2.42 | 1 | — (n public)",       // Fig. 4, WBK Thm 27 (replace-one)
		"100 | 100 | 2 | 1.77 | 2 | — (n public)",       // Fig. 4, WBK Thm 27 (replace-one)
		"250 | 250 | 0.5 | 2.8 | 0.5 | — (n public)",    // Fig. 4, WBK Thm 27 (replace-one)
		"250 | 250 | 1 | 2.02 | 1 | — (n public)",       // Fig. 4, WBK Thm 27 (replace-one)
		"250 | 250 | 2 | 1.53 | 2 | — (n public)",       // Fig. 4, WBK Thm 27 (replace-one)
		"500 | 500 | 0.5 | 2.5 | 0.5 | — (n public)",    // Fig. 4, WBK Thm 27 (replace-one)
		"500 | 500 | 1 | 1.84 | 1 | — (n public)",       // Fig. 4, WBK Thm 27 (replace-one)
		"500 | 500 | 2 | 1.42 | 2 | — (n public)",       // Fig. 4, WBK Thm 27 (replace-one)
		"1000 | 1000 | 1 | 1.73 | 1 | — (n public)",     // levers, WBK Thm 27 (replace-one)
		"1000 | 10000 | 1 | 2.06 | 1 | — (n public)",    // levers, WBK Thm 27 (replace-one)
		"1000 | 1000 | 10 | 0.884 | 10 | — (n public)",  // levers, WBK Thm 27 (replace-one)
		"1000 | 1000 | 1 | 0.641 | 43.4 | 1",            // levers, PLD (add/remove)
		"1000 | 10000 | 1 | 0.741 | 39.4 | 1",           // levers, PLD (add/remove)
		"100 | 100 | 1 | 2.42 | 1 | — (n public)",       // long runs, WBK Thm 27 (replace-one)
		"100 | 1000 | 1 | 5.42 | 1 | — (n public)",      // long runs, WBK Thm 27 (replace-one)
		"100 | 10000 | 1 | 16.3 | 1 | — (n public)",     // long runs, WBK Thm 27 (replace-one)
		"1000 | 1000 | 1 | 1.73 | 1 | — (n public)",     // signal and noise, WBK Thm 27 (replace-one)
		"1000 | 10000 | 1 | 2.06 | 1 | — (n public)",    // signal and noise, WBK Thm 27 (replace-one)
		"1000 | 1000000 | 1 | 16.3 | 1 | — (n public)",  // signal and noise, WBK Thm 27 (replace-one)
	}
	// ledgerQuickOnly are the quick size's rows that the default size does not run (Fig. 4 at n = 150); every
	// other quick row is a row of ledgerDefault.
	ledgerQuickOnly = []string{
		"150 | 150 | 0.5 | 3.16 | 0.5 | — (n public)", // Fig. 4, WBK Thm 27 (replace-one)
		"150 | 150 | 1 | 2.22 | 1 | — (n public)",     // Fig. 4, WBK Thm 27 (replace-one)
		"150 | 150 | 2 | 1.66 | 2 | — (n public)",     // Fig. 4, WBK Thm 27 (replace-one)
	}
)

// TestPrivacyLedger asserts the ε of every GPOPE configuration the notebook runs (PrivacyTable, which the
// notebook's ledger shows) against hand-checked values, and the properties they must have: a run of one
// trajectory per step is calibrated with Theorem 27 and certifiably spends its target ε under replace-one, to
// within the equal-privacy tolerance of the claims (never above), so that it compares with DP-LSW and
// DP-LSL at the same (ε, δ); a Poisson run is calibrated for add/remove ε = 1 by the PLD accountant and
// spends far more under replace-one (the table says so); the accounting's sampling is the one that runs.
func TestPrivacyLedger(t *testing.T) {
	for _, quick := range []bool{false, true} {
		header, rows, err := PrivacyTable(quick)
		if err != nil {
			t.Fatal(err)
		}
		if len(header) != 9 || !quick && len(rows) != len(ledgerDefault) || quick && len(rows) != 36 {
			t.Fatalf("quick = %v: %d rows", quick, len(rows))
		}
		runs := PrivacyRuns(quick)
		for i, r := range rows {
			got := strings.Join(r[3:], " | ")
			switch {
			case !quick && got != ledgerDefault[i]:
				t.Errorf("row %d (%s): got %q, want %q", i, r[0], got, ledgerDefault[i])
			case quick && !slices.Contains(ledgerDefault, got) && !slices.Contains(ledgerQuickOnly, got):
				t.Errorf("quick size, row %d (%s): %q is not a row of the ledger", i, r[0], got)
			}
			p, err := runs[i].Account()
			if err != nil {
				t.Fatal(err)
			}
			switch runs[i].Accounting {
			case Calibration:
				if e := runs[i].Epsilon; !(p.ReplaceOne <= e && p.ReplaceOne >= e*(1-repro.PrivacyTolerance)) || !math.IsNaN(p.AddRemove) || r[1] != "one per step" {
					t.Errorf("%+v: %v, sampling %s", runs[i], p, r[1])
				}
			case policyeval.AccountingPoissonPLD:
				if !(p.AddRemove <= runs[i].Epsilon && p.AddRemove > 0.99*runs[i].Epsilon) || !(p.ReplaceOne > 10) || r[1] != "Poisson" {
					t.Errorf("%+v: %v, sampling %s", runs[i], p, r[1])
				}
			default:
				t.Errorf("%+v: an accounting the notebook should not run", runs[i])
			}
		}
	}
}

// TestCalibrations: the paper's Lemma 1 as published understates what its σ spends (its true ε by
// Theorem 27 is above the target at every ε ≥ 1 the figures run, several times over), the conservative
// Theorem 9 bound never calibrates less noise than Theorem 27, and both Theorem 9 and 27 σ spend at most their
// target; Lemma1Epsilon is the classic conversion of T times Lemma1RDP.
func TestCalibrations(t *testing.T) {
	cal, err := Calibrations(calibrationConfigs(false))
	if err != nil {
		t.Fatal(err)
	}
	if len(cal) != 21 {
		t.Fatalf("%d calibrations", len(cal))
	}
	for _, c := range cal {
		if !(c.Theorem9 >= c.Tight*(1-1e-9)) || !(c.Theorem9True <= c.Epsilon) || !(c.TightTrue <= c.Epsilon) {
			t.Errorf("%+v: Theorem 9 below Theorem 27, or a valid calibration above its target", c)
		}
		if c.Epsilon >= 1 && !(c.Lemma1True > 1.1*c.Epsilon) {
			t.Errorf("%+v: Lemma 1's σ within its target", c)
		}
	}
	if c := cal[3]; c.N != 1000 || c.Epsilon != 1 || math.Abs(c.Lemma1-1.147) > 1e-3 || math.Abs(c.Lemma1True-3.25) > 0.01 {
		t.Errorf("n = 1000, ε = 1: Lemma 1 σ/C = %.4g, true ε = %.4g; want 1.147 and 3.25", c.Lemma1, c.Lemma1True)
	}
	// ε at one order by hand: q = 1/100, z = 2, α = 2: ln(1 + q²·1·min{4(e¹ − 1), 2e¹})/1.
	if got, want := Lemma1RDP(100, 2, 2), math.Log1p(1e-4*math.Min(4*math.Expm1(1), 2*math.E)); math.Abs(got-want) > 1e-15 {
		t.Errorf("Lemma1RDP = %g, want %g", got, want)
	}
}
