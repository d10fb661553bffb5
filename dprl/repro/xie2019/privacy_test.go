package xie2019

import (
	"math"
	"strings"
	"testing"

	"github.com/dprl-project/dprl/dprl/policyeval"
)

// ledgerDefault and ledgerQuick are the privacy of every GPOPE configuration the notebook runs at its default
// and quick sizes, as the ledger prints it: n | T | target ε | σ/C | certified replace-one ε (WBK Theorem 27) |
// add/remove ε (PLD; Poisson runs only).
var (
	ledgerDefault = []string{
		"500 | 500 | 0.1 | 8.23 | 0.075 | — (n public)",    // Fig. 1(a), paper (WBK Thm 9, replace-one)
		"500 | 500 | 1 | 1.84 | 1 | — (n public)",          // Fig. 1(a), paper (WBK Thm 9, replace-one)
		"1000 | 1000 | 0.1 | 5.18 | 0.0964 | — (n public)", // Fig. 1(a), paper (WBK Thm 9, replace-one)
		"1000 | 1000 | 1 | 1.73 | 1 | — (n public)",        // Fig. 1(a), paper (WBK Thm 9, replace-one)
		"2000 | 2000 | 0.1 | 4.5 | 0.0994 | — (n public)",  // Fig. 1(a), paper (WBK Thm 9, replace-one)
		"2000 | 2000 | 1 | 1.64 | 1 | — (n public)",        // Fig. 1(a), paper (WBK Thm 9, replace-one)
		"5000 | 5000 | 0.1 | 4.07 | 0.0999 | — (n public)", // Fig. 1(a), paper (WBK Thm 9, replace-one)
		"5000 | 5000 | 1 | 1.54 | 1 | — (n public)",        // Fig. 1(a), paper (WBK Thm 9, replace-one)
		"1000 | 1000 | 0.1 | 5.18 | 0.0964 | — (n public)", // Fig. 1(b), paper (WBK Thm 9, replace-one)
		"1000 | 1000 | 1 | 1.73 | 1 | — (n public)",        // Fig. 1(b), paper (WBK Thm 9, replace-one)
		"500 | 500 | 0.1 | 8.23 | 0.075 | — (n public)",    // Mountain Car (Fig. 2(a), 3), paper (WBK Thm 9, replace-one)
		"500 | 500 | 0.5 | 2.5 | 0.5 | — (n public)",       // Mountain Car (Fig. 2(a), 3), paper (WBK Thm 9, replace-one)
		"500 | 500 | 1 | 1.84 | 1 | — (n public)",          // Mountain Car (Fig. 2(a), 3), paper (WBK Thm 9, replace-one)
		"500 | 500 | 2 | 1.42 | 2 | — (n public)",          // Mountain Car (Fig. 2(a), 3), paper (WBK Thm 9, replace-one)
		"1000 | 1000 | 0.1 | 5.18 | 0.0964 | — (n public)", // Mountain Car (Fig. 2(a), 3), paper (WBK Thm 9, replace-one)
		"1000 | 1000 | 0.5 | 2.31 | 0.5 | — (n public)",    // Mountain Car (Fig. 2(a), 3), paper (WBK Thm 9, replace-one)
		"1000 | 1000 | 1 | 1.73 | 1 | — (n public)",        // Mountain Car (Fig. 2(a), 3), paper (WBK Thm 9, replace-one)
		"1000 | 1000 | 2 | 1.34 | 2 | — (n public)",        // Mountain Car (Fig. 2(a), 3), paper (WBK Thm 9, replace-one)
		"2000 | 2000 | 0.1 | 4.5 | 0.0994 | — (n public)",  // Mountain Car (Fig. 2(a), 3), paper (WBK Thm 9, replace-one)
		"2000 | 2000 | 0.5 | 2.19 | 0.5 | — (n public)",    // Mountain Car (Fig. 2(a), 3), paper (WBK Thm 9, replace-one)
		"2000 | 2000 | 1 | 1.64 | 1 | — (n public)",        // Mountain Car (Fig. 2(a), 3), paper (WBK Thm 9, replace-one)
		"2000 | 2000 | 2 | 1.27 | 2 | — (n public)",        // Mountain Car (Fig. 2(a), 3), paper (WBK Thm 9, replace-one)
		"1000 | 1000 | 1 | 1.73 | 1 | — (n public)",        // Fig. 2(b), paper (WBK Thm 9, replace-one)
		"100 | 100 | 0.5 | 3.82 | 0.462 | — (n public)",    // Fig. 4, paper (WBK Thm 9, replace-one)
		"100 | 100 | 1 | 2.42 | 1 | — (n public)",          // Fig. 4, paper (WBK Thm 9, replace-one)
		"100 | 100 | 2 | 1.77 | 2 | — (n public)",          // Fig. 4, paper (WBK Thm 9, replace-one)
		"250 | 250 | 0.5 | 2.8 | 0.5 | — (n public)",       // Fig. 4, paper (WBK Thm 9, replace-one)
		"250 | 250 | 1 | 2.02 | 1 | — (n public)",          // Fig. 4, paper (WBK Thm 9, replace-one)
		"250 | 250 | 2 | 1.53 | 2 | — (n public)",          // Fig. 4, paper (WBK Thm 9, replace-one)
		"500 | 500 | 0.5 | 2.5 | 0.5 | — (n public)",       // Fig. 4, paper (WBK Thm 9, replace-one)
		"500 | 500 | 1 | 1.84 | 1 | — (n public)",          // Fig. 4, paper (WBK Thm 9, replace-one)
		"500 | 500 | 2 | 1.42 | 2 | — (n public)",          // Fig. 4, paper (WBK Thm 9, replace-one)
		"1000 | 1000 | 1 | 1.73 | 1 | — (n public)",        // levers, paper (WBK Thm 9, replace-one)
		"1000 | 10000 | 1 | 2.06 | 1 | — (n public)",       // levers, paper (WBK Thm 9, replace-one)
		"1000 | 1000 | 10 | 0.884 | 10 | — (n public)",     // levers, paper (WBK Thm 9, replace-one)
		"1000 | 1000 | 1 | 0.641 | 43.4 | 1",               // levers, PLD (add/remove)
		"1000 | 10000 | 1 | 0.741 | 39.4 | 1",              // levers, PLD (add/remove)
		"100 | 100 | 1 | 2.42 | 1 | — (n public)",          // why GPOPE ≈ θ = 0 (plot), WBK Thm 27 (replace-one)
		"100 | 1000 | 1 | 5.42 | 1 | — (n public)",         // why GPOPE ≈ θ = 0 (plot), WBK Thm 27 (replace-one)
		"100 | 10000 | 1 | 16.3 | 1 | — (n public)",        // why GPOPE ≈ θ = 0 (plot), WBK Thm 27 (replace-one)
		"1000 | 1000 | 1 | 1.73 | 1 | — (n public)",        // why GPOPE ≈ θ = 0 (signal and noise), paper (WBK Thm 9, replace-one)
		"1000 | 10000 | 1 | 2.06 | 1 | — (n public)",       // why GPOPE ≈ θ = 0 (signal and noise), paper (WBK Thm 9, replace-one)
		"1000 | 1000000 | 1 | 16.3 | 1 | — (n public)",     // why GPOPE ≈ θ = 0 (signal and noise), WBK Thm 27 (replace-one)
	}
	ledgerQuick = []string{
		"500 | 500 | 0.1 | 8.23 | 0.075 | — (n public)",    // Fig. 1(a), paper (WBK Thm 9, replace-one)
		"500 | 500 | 1 | 1.84 | 1 | — (n public)",          // Fig. 1(a), paper (WBK Thm 9, replace-one)
		"1000 | 1000 | 0.1 | 5.18 | 0.0964 | — (n public)", // Fig. 1(a), paper (WBK Thm 9, replace-one)
		"1000 | 1000 | 1 | 1.73 | 1 | — (n public)",        // Fig. 1(a), paper (WBK Thm 9, replace-one)
		"2000 | 2000 | 0.1 | 4.5 | 0.0994 | — (n public)",  // Fig. 1(a), paper (WBK Thm 9, replace-one)
		"2000 | 2000 | 1 | 1.64 | 1 | — (n public)",        // Fig. 1(a), paper (WBK Thm 9, replace-one)
		"5000 | 5000 | 0.1 | 4.07 | 0.0999 | — (n public)", // Fig. 1(a), paper (WBK Thm 9, replace-one)
		"5000 | 5000 | 1 | 1.54 | 1 | — (n public)",        // Fig. 1(a), paper (WBK Thm 9, replace-one)
		"1000 | 1000 | 0.1 | 5.18 | 0.0964 | — (n public)", // Fig. 1(b), paper (WBK Thm 9, replace-one)
		"1000 | 1000 | 1 | 1.73 | 1 | — (n public)",        // Fig. 1(b), paper (WBK Thm 9, replace-one)
		"500 | 500 | 0.1 | 8.23 | 0.075 | — (n public)",    // Mountain Car (Fig. 2(a), 3), paper (WBK Thm 9, replace-one)
		"500 | 500 | 0.5 | 2.5 | 0.5 | — (n public)",       // Mountain Car (Fig. 2(a), 3), paper (WBK Thm 9, replace-one)
		"500 | 500 | 1 | 1.84 | 1 | — (n public)",          // Mountain Car (Fig. 2(a), 3), paper (WBK Thm 9, replace-one)
		"500 | 500 | 2 | 1.42 | 2 | — (n public)",          // Mountain Car (Fig. 2(a), 3), paper (WBK Thm 9, replace-one)
		"1000 | 1000 | 0.1 | 5.18 | 0.0964 | — (n public)", // Mountain Car (Fig. 2(a), 3), paper (WBK Thm 9, replace-one)
		"1000 | 1000 | 0.5 | 2.31 | 0.5 | — (n public)",    // Mountain Car (Fig. 2(a), 3), paper (WBK Thm 9, replace-one)
		"1000 | 1000 | 1 | 1.73 | 1 | — (n public)",        // Mountain Car (Fig. 2(a), 3), paper (WBK Thm 9, replace-one)
		"1000 | 1000 | 2 | 1.34 | 2 | — (n public)",        // Mountain Car (Fig. 2(a), 3), paper (WBK Thm 9, replace-one)
		"1000 | 1000 | 1 | 1.73 | 1 | — (n public)",        // Fig. 2(b), paper (WBK Thm 9, replace-one)
		"100 | 100 | 0.5 | 3.82 | 0.462 | — (n public)",    // Fig. 4, paper (WBK Thm 9, replace-one)
		"100 | 100 | 1 | 2.42 | 1 | — (n public)",          // Fig. 4, paper (WBK Thm 9, replace-one)
		"100 | 100 | 2 | 1.77 | 2 | — (n public)",          // Fig. 4, paper (WBK Thm 9, replace-one)
		"150 | 150 | 0.5 | 3.19 | 0.494 | — (n public)",    // Fig. 4, paper (WBK Thm 9, replace-one)
		"150 | 150 | 1 | 2.22 | 1 | — (n public)",          // Fig. 4, paper (WBK Thm 9, replace-one)
		"150 | 150 | 2 | 1.66 | 2 | — (n public)",          // Fig. 4, paper (WBK Thm 9, replace-one)
		"1000 | 1000 | 1 | 1.73 | 1 | — (n public)",        // levers, paper (WBK Thm 9, replace-one)
		"1000 | 10000 | 1 | 2.06 | 1 | — (n public)",       // levers, paper (WBK Thm 9, replace-one)
		"1000 | 1000 | 10 | 0.884 | 10 | — (n public)",     // levers, paper (WBK Thm 9, replace-one)
		"1000 | 1000 | 1 | 0.641 | 43.4 | 1",               // levers, PLD (add/remove)
		"1000 | 10000 | 1 | 0.741 | 39.4 | 1",              // levers, PLD (add/remove)
		"100 | 100 | 1 | 2.42 | 1 | — (n public)",          // why GPOPE ≈ θ = 0 (plot), WBK Thm 27 (replace-one)
		"100 | 1000 | 1 | 5.42 | 1 | — (n public)",         // why GPOPE ≈ θ = 0 (plot), WBK Thm 27 (replace-one)
		"100 | 10000 | 1 | 16.3 | 1 | — (n public)",        // why GPOPE ≈ θ = 0 (plot), WBK Thm 27 (replace-one)
		"1000 | 1000 | 1 | 1.73 | 1 | — (n public)",        // why GPOPE ≈ θ = 0 (signal and noise), paper (WBK Thm 9, replace-one)
		"1000 | 10000 | 1 | 2.06 | 1 | — (n public)",       // why GPOPE ≈ θ = 0 (signal and noise), paper (WBK Thm 9, replace-one)
		"1000 | 1000000 | 1 | 16.3 | 1 | — (n public)",     // why GPOPE ≈ θ = 0 (signal and noise), WBK Thm 27 (replace-one)
	}
)

// TestPrivacyLedger asserts the ε of every GPOPE configuration the notebook runs (PrivacyTable, which the
// notebook's ledger shows) against hand-checked values, and the properties they must have: a run calibrated
// with the paper's Theorem 9 or with Theorem 27 certifiably spends at most its target ε under replace-one; a
// Poisson run is calibrated for add/remove ε = 1 by the PLD accountant and spends far more under replace-one
// (the table says so); the accounting's sampling is the one that runs.
func TestPrivacyLedger(t *testing.T) {
	for _, c := range []struct {
		quick bool
		want  []string
	}{{false, ledgerDefault}, {true, ledgerQuick}} {
		header, rows, err := PrivacyTable(c.quick)
		if err != nil {
			t.Fatal(err)
		}
		if len(header) != 9 || len(rows) != len(c.want) {
			t.Fatalf("quick = %v: %d rows, want %d", c.quick, len(rows), len(c.want))
		}
		runs := PrivacyRuns(c.quick)
		for i, r := range rows {
			got := strings.Join(r[3:], " | ")
			if got != c.want[i] {
				t.Errorf("quick = %v, row %d (%s): got %q, want %q", c.quick, i, r[0], got, c.want[i])
			}
			p, err := runs[i].Account()
			if err != nil {
				t.Fatal(err)
			}
			switch runs[i].Accounting {
			case policyeval.AccountingTheorem9, policyeval.AccountingTight:
				if !(p.ReplaceOne <= runs[i].Epsilon*(1+1e-9)) || !math.IsNaN(p.AddRemove) || r[1] != "one per step" {
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
