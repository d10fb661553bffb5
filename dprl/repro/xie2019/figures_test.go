package xie2019

import (
	"math"
	"strings"
	"testing"

	"github.com/dprl-project/dprl/dprl/report"
	"github.com/dprl-project/dprl/dprl/repro"
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
	t.Setenv("TMPDIR", t.TempDir())
	var r report.Recorder
	if err := Fig1b(&r, Protocol{Trials: 1, TuneRuns: 1, Steps: []float64{1e-3, 0.1}}); err != nil {
		t.Fatal(err)
	}
	if r.Figures() != 2 || r.Units != 2 {
		t.Errorf("%d figures, %d units", r.Figures(), r.Units)
	}
	// One trial gives no interval: the claim says so and stays inconclusive.
	c, err := repro.LoadClaims(repro.ClaimsFile(Notebook))
	if err != nil || len(c) != 1 || c[0].Key != "c1-steps" || !strings.Contains(c[0].Measured, "no interval: 1 seed") || c[0].Verdict != repro.Inconclusive {
		t.Errorf("claims %+v, %v", c, err)
	}
}
