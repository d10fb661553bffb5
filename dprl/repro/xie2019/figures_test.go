package xie2019

import (
	"math"
	"strings"
	"testing"

	"gonum.org/v1/plot"

	"github.com/dprl-project/dprl/dprl/experiment"
	"github.com/dprl-project/dprl/dprl/report"
	"github.com/dprl-project/dprl/dprl/repro"
	"github.com/dprl-project/dprl/dprl/repro/claimtest"
)

// TestProtocol: the default and paper protocols differ only in the trials, and Config carries the choices
// every figure shares: one δ for every compared method, σ by Theorem 27, the baselines also at Balle's δ.
func TestProtocol(t *testing.T) {
	t.Setenv("DPRL_QUICK", "")
	d, p := DefaultProtocol(), PaperProtocol()
	if d.Trials != 10 || p.Trials != 100 || d.TuneRuns != 3 || p.TuneRuns != 3 || len(d.Steps) != 14 || d.Steps[0] != 1e-6 || d.Steps[13] != 3 {
		t.Errorf("default %+v, paper %+v", d, p)
	}
	cfg := d.Config([]int{500}, []float64{0.1, 1})
	if cfg.Delta != 1e-5 || cfg.Seed != 2019 || cfg.BalleDelta != 0.1 || cfg.LSLC != 100 || cfg.Trials != 10 || cfg.TuneRuns != 3 ||
		cfg.Accounting != Calibration || len(cfg.N) != 1 || len(cfg.Epsilons) != 2 || cfg.Iterations(500) != 500 {
		t.Errorf("config %+v", cfg)
	}
	t.Setenv("DPRL_QUICK", "1")
	if q := DefaultProtocol(); q.Trials != 2 || q.TuneRuns != 1 {
		t.Errorf("quick protocol %+v", q)
	}
}

// TestRowHelpers: selection matches non-private rows at any ε and δ only when asked, per-trial values skip
// diverged runs, the tuning table reads the public choice and the clipped share, and the caption counts the
// diverged runs per point and names the seeds.
func TestRowHelpers(t *testing.T) {
	rows := []Row{
		{Method: MethodGPOPE, N: 10, Epsilon: 1, Delta: 1e-5, Trial: 0, Seed: 2019, Stream: 0, Schedule: "diminishing", Step: 0.1, Sigma: 2, MSPBE: 2, ClippedShare: 0.5},
		{Method: MethodGPOPE, N: 10, Epsilon: 1, Delta: 1e-5, Trial: 1, Seed: 2019, Stream: 1, Schedule: "diminishing", Step: 0.1, Sigma: 2, MSPBE: math.Inf(1), ClippedShare: 0.1},
		{Method: MethodGPOPEConstant, N: 10, Epsilon: 1, Trial: 0, Schedule: "constant", Step: 0.03, MSPBE: 3},
		{Method: MethodGPOPEDiminishing, N: 10, Epsilon: 1, Trial: 0, Schedule: "diminishing", Step: 0.1, MSPBE: 2},
		{Method: MethodDPLSW, N: 10, Epsilon: 1, Delta: 0.1, Trial: 0, MSPBE: 50},
		{Method: MethodDPLSW, N: 10, Epsilon: 1, Delta: 1e-5, Trial: 0, MSPBE: 70},
		{Method: MethodLSTD, N: 10, Trial: 1, MSPBE: 3},
		{Method: MethodGTD2, N: 10, Trial: 0, Schedule: "constant", Step: 1, MSPBE: 4},
	}
	if v := byTrial(rows, sel{method: MethodGPOPE, eps: 1}, 3); v[0] != 2 || !math.IsNaN(v[1]) || !math.IsNaN(v[2]) {
		t.Errorf("GPOPE per trial %v", v)
	}
	if v := byTrial(rows, sel{method: MethodLSTD, eps: 0.5}, 2); v[1] != 3 {
		t.Errorf("LSTD per trial %v", v)
	}
	if v := byTrial(rows, sel{method: MethodDPLSW, eps: 1, delta: 1e-5}, 1); v[0] != 70 {
		t.Errorf("DP-LSW at δ = 1e−5: %v", v)
	}
	if deltaText(1e-5) != "1e−5" || deltaText(0.1) != "0.1" {
		t.Errorf("δ written %q, %q", deltaText(1e-5), deltaText(0.1))
	}
	if trials(rows) != 2 {
		t.Errorf("%d trials", trials(rows))
	}
	header, cells := TuningTable(rows)
	if len(header) != 8 || len(cells) != 1 || strings.Join(cells[0], "|") != "10|1|2|0.03|0.1|diminishing|30%|1" {
		t.Errorf("tuning table %v", cells)
	}
	if note := divergedNote(rows); !strings.Contains(note, "GPOPE (tuned on public data), diminishing, ε = 1, n = 10: 1/2") || strings.Contains(note, "DP-LSW") {
		t.Errorf("diverged: %q", note)
	}
	if note := divergedNote(rows[2:]); note != "Diverged runs: none (of 6)." {
		t.Errorf("diverged: %q", note)
	}
	if note := seedsNote(rows[:2]); !strings.Contains(note, "over 2 trials; trial k draws from rand.NewPCG(2019, k), k = 0…1") {
		t.Errorf("seeds: %q", note)
	}
	var r report.Recorder
	if err := Show(&r, Table(DomainInfo{Name: "chain", Clip: 1}, rows), nil); err != nil || r.Tables() != 1 || !strings.Contains(strings.Join(r.Markdowns(), " "), "Diverged runs") {
		t.Errorf("Show: %v, %d tables, %q", err, r.Tables(), r.Markdowns())
	}
}

// TestClaimHelpers: the step range counts decades within 2× of each trial's best and their worst value,
// |x|'s interval follows x's, and a claim without an interval says so and stays inconclusive while one
// with an interval is decided by it.
func TestClaimHelpers(t *testing.T) {
	w, worst := stepRange([][]float64{{4, 1, 1.5, 3}, {1, 2, 2, math.NaN()}}, []float64{1e-3, 1e-2, 1e-1, 1})
	if math.Abs(w[0]-1) > 1e-12 || math.Abs(w[1]-2) > 1e-12 || worst[0] != 1.5 || worst[1] != 2 {
		t.Errorf("step ranges %v, worst %v; want [1 2], [1.5 2]", w, worst)
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

// TestSectionsTiny runs every section of the notebook in quick mode at a tiny protocol (two trials, two
// steps, one public sample), checks that each draws its figures and that every claims row is complete
// (claimtest.Strict: kind, the paper's words, a trivial reference and the privacy of every compared
// method), and that every comparison lists its methods at equal privacy.
func TestSectionsTiny(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every section")
	}
	t.Setenv(experiment.QuickEnv, "1")
	p := Protocol{Trials: 2, TuneRuns: 1, Steps: []float64{1e-3, 0.1}}
	rec := &report.Recorder{}
	for _, s := range []struct {
		name  string
		data  func() (*experiment.Table, error)
		plots func(*experiment.Table) ([]*plot.Plot, error)
		claim func(report.Sink, *experiment.Table) error
		figs  int
	}{
		{"Fig. 1(a)", func() (*experiment.Table, error) { return Fig1aData(rec, "", p) }, Fig1aPlots, Fig1aClaims, 4},
		{"Fig. 1(b)", func() (*experiment.Table, error) { return Fig1bData(rec, p) }, Fig1bPlots, Fig1bClaims, 2},
		{"Mountain Car", func() (*experiment.Table, error) { return MountainCarData(rec, "", p) }, MountainCarPlots, MountainCarClaims, 3},
		{"Fig. 2(b)", func() (*experiment.Table, error) { return Fig2bData(rec, p) }, Fig2bPlots, Fig2bClaims, 1},
		{"Fig. 4", func() (*experiment.Table, error) { return Fig4Data(rec, "", p) }, Fig4Plots, Fig4Claims, 1},
		{"long runs", func() (*experiment.Table, error) { return LongRunData(rec, p) }, LongRunPlots, LongRunClaims, 1},
	} {
		tab, err := s.data()
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		plots, err := s.plots(tab)
		if err != nil || len(plots) != s.figs {
			t.Fatalf("%s: %d plots, want %d (%v)", s.name, len(plots), s.figs, err)
		}
		if err := s.claim(rec, tab); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
	}
	rows := rec.ClaimRows()
	claimtest.Strict(t, rows)
	keys := map[string]bool{}
	for _, c := range rows {
		keys[c.Key] = true
		if c.Compare != nil && strings.Contains(c.Why, "unequal privacy") {
			t.Errorf("%s compares at unequal privacy: %s", c.Key, report.PrivacyList(c.Privacy))
		}
	}
	for _, k := range []string{"c1-v1", "c1-v2", "c1-mis", "c1-zero", "c1-steps", "m-v1", "m-lstd", "m-eps", "m-off", "m-steps", "h", "decay"} {
		if !keys[k] {
			t.Errorf("claim %s not recorded", k)
		}
	}
}
