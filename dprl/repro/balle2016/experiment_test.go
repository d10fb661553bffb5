package balle2016

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/dprl-project/dprl/dprl/report"
	"github.com/dprl-project/dprl/dprl/repro"
	"github.com/dprl-project/dprl/dprl/repro/claimtest"
	"github.com/dprl-project/dprl/dprl/sweep"
	"github.com/dprl-project/dprl/mechanisms"
)

// TestSetup: the last non-absorbing state's value is ½·1/(1 − 0.99·½) (advance and collect 1, or stay),
// pairs of 39 states give d = 20, and a batch has m trajectories.
func TestSetup(t *testing.T) {
	b, err := NewSetup()
	if err != nil {
		t.Fatal(err)
	}
	if len(b.V) != 39 || math.Abs(b.V[38]-0.5/(1-0.495)) > 1e-12 {
		t.Errorf("V(38) = %v", b.V[38])
	}
	p := b.Problem(2, 1)
	if _, d := p.Phi.Dims(); d != 20 || p.FRange != 1 || p.FMax != 1 {
		t.Errorf("aggregated problem d = %d, F = %v", d, p.FRange)
	}
	if r, c := b.Problem(1, 100).Phi.Dims(); r != 39 || c != 39 {
		t.Errorf("tabular features %d × %d", r, c)
	}
	sig, err := b.Batch(200, rand.NewPCG(1, 1))
	if err != nil || sig.M != 200 {
		t.Fatalf("batch: %v %v", sig, err)
	}
}

// TestGrids: the default grid is the paper's (20 seeds on m = 100, 500, …, 5000); quick mode runs 2 seeds
// on 6 sizes.
func TestGrids(t *testing.T) {
	t.Setenv("DPRL_QUICK", "")
	d, p := DefaultGrid(), PaperGrid()
	if p.Trials != 20 || len(p.M) != 11 || p.M[0] != 100 || p.M[1] != 500 || p.M[10] != 5000 {
		t.Errorf("paper grid %+v", p)
	}
	if d.Trials != p.Trials || len(d.M) != len(p.M) {
		t.Errorf("default grid %+v", d)
	}
	t.Setenv("DPRL_QUICK", "1")
	if q := DefaultGrid(); q.Trials != 2 || len(q.M) != 6 || q.M[5] != 5000 {
		t.Errorf("quick grid %+v", q)
	}
}

// claims fails the test on err and returns the claims rows r recorded, checked by the claim model's rules.
func claims(t *testing.T, r *report.Recorder, err error) []repro.Claim {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	c := r.ClaimRows()
	claimtest.Rows(t, c)
	return c
}

// TestPanel1Tiny: two trials on two small batches draw one figure and record the two p1 claims, each
// tested on both seeds against the largest m; every trial reaches the bar.
func TestPanel1Tiny(t *testing.T) {
	var r report.Recorder
	c := claims(t, &r, Panel1(&r, Grid{Trials: 2, M: []float64{100, 300}}))
	if r.Figures() != 1 || r.Tables() != 0 || r.Units != 2 {
		t.Errorf("%d figures, %d tables, %d units", r.Figures(), r.Tables(), r.Units)
	}
	if len(c) != 2 || c[0].Key != "p1" || c[1].Key != "p1-conv" {
		t.Fatalf("claims %+v", c)
	}
	for _, cl := range c {
		if cl.Seeds != 2 || !strings.Contains(cl.Why, "m = 300") || !strings.Contains(cl.Why, "above 0") || !(cl.CILow <= cl.CIHigh) {
			t.Errorf("claim %+v", cl)
		}
	}
}

// TestPanels34Tiny: panels 3 and 4 are two figures and six tested claims, at the grid's ends.
func TestPanels34Tiny(t *testing.T) {
	t.Setenv(sweep.SweepsEnv, t.TempDir()) // no merged full-size sweep: the grid's run
	var r report.Recorder
	c := claims(t, &r, Panels34(&r, "", Grid{Trials: 2, M: []float64{100, 200}}))
	keys := []string{"p3-lsw", "p3-lsl", "p3-small", "p3-large", "p4-lsw", "p4-lsl"}
	if r.Figures() != 2 || len(c) != len(keys) {
		t.Fatalf("%d figures, claims %+v", r.Figures(), c)
	}
	for i, k := range keys {
		if c[i].Key != k || c[i].Seeds != 2 || c[i].Verdict == "" {
			t.Errorf("claim %d: %+v", i, c[i])
		}
	}
	if !strings.Contains(c[2].Why, "m = 100") || !strings.Contains(c[3].Why, "m = 200") {
		t.Errorf("small/large tests at %q, %q", c[2].Why, c[3].Why)
	}
}

// TestPanel2Tiny: two seeds draw one figure per batch size, the window table, and the two p2 claims, each
// comparing c = 10⁶ with c = 10³.
func TestPanel2Tiny(t *testing.T) {
	if testing.Short() {
		t.Skip("collects 5000-trajectory batches")
	}
	var r report.Recorder
	c := claims(t, &r, Panel2(&r, Grid{Trials: 2}))
	if r.Figures() != 2 || r.Tables() != 1 || len(c) != 2 || c[0].Key != "p2-1000" || c[1].Key != "p2-5000" {
		t.Fatalf("%d figures, %d tables, claims %+v", r.Figures(), r.Tables(), c)
	}
	if !strings.Contains(c[0].Why, "c = 1e+06 minus at c = 1000") {
		t.Errorf("p2 test: %q", c[0].Why)
	}
}

// TestRegularisationWindow: at m = 1000 LSL loses half of its accuracy to shrinkage below c = 10, while the
// paper bound's noise (F = 100) reaches θ = 0's error only above c = 1000; the safe bound and F = 1 need
// less c, and F = 1 exactly 100 times less noise.
func TestRegularisationWindow(t *testing.T) {
	s, err := NewSetup()
	if err != nil {
		t.Fatal(err)
	}
	w, err := regularisationWindow(s, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if !(w.CHalf < 10) || !(w.CNoise[0][0] > 1000) || !(w.CNoise[1][0] < w.CNoise[0][0]) || !(w.CNoise[0][1] < w.CNoise[0][0]) {
		t.Errorf("window %+v", w)
	}
	if math.Abs(w.Zero-zeroRMSE(s)) > 0 || w.Zero < 0.5 || w.Zero > 1 {
		t.Errorf("θ = 0 RMSE %v", w.Zero)
	}
}

// TestNoiseScales: two tables and a figure; DP-LSW's α at ε = δ = 0.1 is 5√(2 ln 20)/0.1 ≈ 122 in every
// row, the F = 1 column is the F = 100 column divided by 100, and DP-LSL's λ at c = 1, m = 1000 is
// 1 + 1000^0.4 ≈ 16.8.
func TestNoiseScales(t *testing.T) {
	if testing.Short() {
		t.Skip("collects 5000-trajectory batches")
	}
	var r report.Recorder
	if err := NoiseScales(&r); err != nil {
		t.Fatal(err)
	}
	if r.Tables() != 2 || r.Figures() != 1 {
		t.Fatalf("%d tables, %d figures", r.Tables(), r.Figures())
	}
	lsw := r.Items[1].Rows
	if len(lsw) != 6 {
		t.Fatalf("%d DP-LSW rows", len(lsw))
	}
	for _, row := range lsw {
		if row[5] != "122" {
			t.Errorf("α = %s", row[5])
		}
	}
	if lsl := r.Items[3].Rows; lsl[0][1] != "16.8" {
		t.Errorf("λ(c = 1) = %s", lsl[0][1])
	}
}

// TestPrivacy: ε = δ = 0.1 with Lemma 1 constants (the zero variant).
func TestPrivacy(t *testing.T) {
	if p := Privacy(); p.Epsilon != 0.1 || p.Delta != 0.1 || p.Variant != mechanisms.SmoothLemma1 {
		t.Errorf("%+v", p)
	}
}
