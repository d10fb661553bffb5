package wanghegde2019

import (
	"strings"
	"testing"

	"github.com/dprl-project/dprl/dprl/report"
	"github.com/dprl-project/dprl/dprl/repro/claimtest"
	"github.com/dprl-project/dprl/dprl/sweep"
)

// tinyChoice is a choice made on a two-configuration grid at two seeds (both feasible).
func tinyChoice(t *testing.T) *Choice {
	t.Helper()
	s, err := RunSelection(report.Discard, []Alg1Config{{B: 512, LR: 0.01, Gamma: 0.5}, {B: 512, LR: 0.1, Gamma: 0.5}}, 2)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Choose(s)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestFigures runs the data of every learning curve at a tiny size and checks what the figures, tables and
// claims read from it: every figure says its seeds and diverged runs, every claim row is complete
// (claimtest.Strict), and the claims are the ones the package documents.
func TestFigures(t *testing.T) {
	t.Setenv(sweep.SweepsEnv, "")
	var r report.Recorder
	p := Protocol{Seeds: 2, Episodes: 3}
	c, err := CurvesData(&r, t.TempDir(), p, tinyChoice(t)) // no merged sweeps there: the default size runs
	if err != nil {
		t.Fatal(err)
	}
	if n := len(c.Fig1.Settings) + len(c.Fig2.Settings) - 2; r.Units != n*p.Seeds {
		t.Errorf("%d runs for %d settings (the non-private DQN and the random policy shared)", r.Units, n)
	}
	var figs []Figure
	for _, f := range []func(*Curves) (Figure, error){Fig1a, Fig1b, EpsilonSweep} {
		fig, err := f(c)
		if err != nil {
			t.Fatal(err)
		}
		figs = append(figs, fig)
	}
	for _, eps := range Fig2Epsilons {
		f, err := Fig2(c, eps)
		if err != nil || len(f) != 2 {
			t.Fatalf("Fig. 2 at ε = %g: %d figures, %v", eps, len(f), err)
		}
		figs = append(figs, f...)
		for _, table := range []func(*Curves, float64) ([]string, [][]string, error){Fig2Table, Fig2Privacy} {
			h, rows, err := table(c, eps)
			if err != nil || len(rows) != 13 || len(rows[0]) != len(h) {
				t.Errorf("ε = %g: %d rows, %v", eps, len(rows), err)
			}
		}
	}
	for _, f := range figs {
		if f.Plot == nil || !strings.Contains(f.Note, "seed s = 0 … 1") || !strings.Contains(f.Note, "Diverged runs") {
			t.Errorf("figure note %q", f.Note)
		}
	}
	if _, rows, err := Fig1Table(c); err != nil || len(rows) != 9 {
		t.Errorf("Fig. 1 table: %d rows, %v", len(rows), err)
	}
	if _, err := Fig2(c, 0.5); err == nil {
		t.Error("a Fig. 2 panel at ε = 0.5")
	}

	if err := Claims(&r, c); err != nil {
		t.Fatal(err)
	}
	claims := r.ClaimRows()
	claimtest.Strict(t, claims)
	var keys []string
	for _, cl := range claims {
		keys = append(keys, cl.Key)
		if cl.Seeds != 2 || !(cl.CILow <= cl.CIHigh) || cl.Why == "" {
			t.Errorf("claim %+v", cl)
		}
	}
	want := "f1-samples f1 f1-04 f1-j f2-0.9-ip f2-0.9-code-ip f2-0.9-dp f2-0.9-code-dp f2-0.9-bgp f2-0.9-random " +
		"f2-0.45-ip f2-0.45-code-ip f2-0.45-dp f2-0.45-code-dp f2-0.45-bgp f2-0.45-random f2-flat-ip f2-flat-dp alg1-learns"
	if got := strings.Join(keys, " "); got != want {
		t.Errorf("claims recorded: %s", got)
	}
}
