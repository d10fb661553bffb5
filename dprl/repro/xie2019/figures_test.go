package xie2019

import (
	"math"
	"strings"
	"testing"

	"github.com/dprl-project/dprl/dprl/report"
	"github.com/dprl-project/dprl/dprl/repro"
	"github.com/dprl-project/dprl/dprl/repro/claimtest"
)

// TestProtocol: the default and paper protocols differ only in the trials, and Config carries the choices
// every figure shares.
func TestProtocol(t *testing.T) {
	t.Setenv("DPRL_QUICK", "")
	d, p := DefaultProtocol(), PaperProtocol()
	if d.Trials != 10 || p.Trials != 100 || d.TuneRuns != 3 || p.TuneRuns != 3 || len(d.Steps) != 14 || d.Steps[0] != 1e-6 || d.Steps[13] != 3 {
		t.Errorf("default %+v, paper %+v", d, p)
	}
	cfg := d.Config([]int{500}, []float64{0.1, 1})
	if cfg.Delta != 1e-5 || cfg.Seed != 2019 || cfg.LSWDelta != 0.1 || cfg.LSLC != 100 || cfg.Trials != 10 || cfg.TuneRuns != 3 ||
		len(cfg.N) != 1 || len(cfg.Epsilons) != 2 || cfg.Iterations(500) != 500 {
		t.Errorf("config %+v", cfg)
	}
	t.Setenv("DPRL_QUICK", "1")
	if q := DefaultProtocol(); q.Trials != 2 || q.TuneRuns != 1 {
		t.Errorf("quick protocol %+v", q)
	}
}

// TestRowSummaries: meanAt skips diverged runs and finds non-private rows at any ε; clippedShare averages
// the tuned GPOPE rows only.
func TestRowSummaries(t *testing.T) {
	rows := []Row{
		{Method: MethodGPOPE, N: 10, Epsilon: 1, MSPBE: 2, ClippedShare: 0.5},
		{Method: MethodGPOPE, N: 10, Epsilon: 1, MSPBE: math.Inf(1), ClippedShare: 0.1},
		{Method: MethodGPOPE, N: 10, Epsilon: 0.1, MSPBE: 7, ClippedShare: 1},
		{Method: MethodGPOPE10x, N: 10, Epsilon: 1, MSPBE: 5, ClippedShare: 1},
		{Method: MethodLSTD, N: 10, MSPBE: 3},
		{Method: MethodLSTD, N: 20, MSPBE: 4},
	}
	if m := meanAt(rows, MethodGPOPE, 10, 1); m != 2 {
		t.Errorf("GPOPE mean %v", m)
	}
	if m := meanAt(rows, MethodLSTD, 10, 1); m != 3 {
		t.Errorf("LSTD mean %v", m)
	}
	if c := clippedShare(rows, 10, 1); math.Abs(c-0.3) > 1e-15 {
		t.Errorf("clipped share %v", c)
	}
	if !nonPrivate(MethodZero) || nonPrivate(MethodDPLSW) {
		t.Error("nonPrivate")
	}
	var r report.Recorder
	if err := curves(&r, "t", "n", "MSPBE", rows, []string{MethodGPOPE, MethodLSTD}, []float64{0.1, 1}, []float64{10, 20}, byN, 1); err != nil {
		t.Fatal(err)
	}
	if r.Figures() != 1 {
		t.Errorf("%d figures", r.Figures())
	}
}

// TestFig1bTiny: one trial at two steps draws the two panels and records the step-range claim.
func TestFig1bTiny(t *testing.T) {
	var r report.Recorder
	if err := Fig1b(&r, Protocol{Trials: 1, TuneRuns: 1, Steps: []float64{1e-3, 0.1}}); err != nil {
		t.Fatal(err)
	}
	if r.Figures() != 2 || r.Units != 2 {
		t.Errorf("%d figures, %d units", r.Figures(), r.Units)
	}
	// One trial gives no interval: the claim says so and stays inconclusive.
	c := r.ClaimRows()
	claimtest.Rows(t, c)
	if len(c) != 1 || c[0].Key != "c1-steps" || !strings.Contains(c[0].Measured, "no interval: 1 seed") || c[0].Verdict != repro.Inconclusive {
		t.Errorf("claims %+v", c)
	}
}

// TestClaimHelpers: per-trial pairing skips missing or diverged runs, the step range counts decades within 2×
// of each trial's best, |x|'s interval follows x's, and a claim without an interval says so and stays
// inconclusive while one with an interval is decided by it.
func TestClaimHelpers(t *testing.T) {
	rows := []Row{
		{Method: MethodGPOPE, N: 10, Epsilon: 1, Trial: 0, MSPBE: 10}, {Method: MethodGPOPE, N: 10, Epsilon: 1, Trial: 1, MSPBE: math.Inf(1)},
		{Method: MethodZero, N: 10, Trial: 0, MSPBE: 1}, {Method: MethodZero, N: 10, Trial: 1, MSPBE: 1},
	}
	lr := logRatio(byTrial(rows, MethodGPOPE, 10, 1, 3), byTrial(rows, MethodZero, 10, 0, 3))
	if lr[0] != 1 || !math.IsNaN(lr[1]) || !math.IsNaN(lr[2]) || count(lr) != 1 {
		t.Errorf("log ratios %v", lr)
	}
	w := stepRange([][]float64{{4, 1, 1.5, 3}, {1, 2, 2, math.NaN()}}, []float64{1e-3, 1e-2, 1e-1, 1})
	if math.Abs(w[0]-1) > 1e-12 || math.Abs(w[1]-2) > 1e-12 {
		t.Errorf("step ranges %v, want [1 2]", w)
	}
	for _, c := range [][4]float64{{0.1, 0.3, 0.1, 0.3}, {-0.3, -0.1, 0.1, 0.3}, {-0.1, 0.3, 0, 0.3}, {-0.4, 0.2, 0, 0.4}} {
		if lo, hi := absInterval(c[0], c[1]); lo != c[2] || hi != c[3] {
			t.Errorf("|[%g, %g]| = [%g, %g]", c[0], c[1], lo, hi)
		}
	}
	one := tested(repro.Claim{Key: "k"}, []float64{0.5}, 1, false, "x: ", "%.2f")
	if one.Verdict != repro.Inconclusive || one.Measured != "x: 0.50 (no interval: 1 seed(s))" || one.Seeds != 1 {
		t.Errorf("one seed: %+v", one)
	}
	ten := tested(repro.Claim{Key: "k"}, []float64{0.5, 0.6, 0.4, 0.5, 0.55, 0.45, 0.5, 0.52, 0.48, 0.5}, 1, false, "", "%.2f")
	if ten.Verdict != repro.Reproduced || ten.Seeds != 10 || repro.CheckClaim(ten) != nil {
		t.Errorf("ten seeds: %+v", ten)
	}
}
