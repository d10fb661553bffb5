package balle2016

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/dprl-project/dprl/dprl/report"
	"github.com/dprl-project/dprl/dprl/repro"
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

func TestGrids(t *testing.T) {
	t.Setenv("DPRL_QUICK", "")
	d, p := DefaultGrid(), PaperGrid()
	if d.Trials != 10 || len(d.M) != 6 || d.M[len(d.M)-1] != 5000 {
		t.Errorf("default grid %+v", d)
	}
	if p.Trials != 20 || len(p.M) != 11 || p.M[0] != 100 || p.M[1] != 500 || p.M[10] != 5000 {
		t.Errorf("paper grid %+v", p)
	}
	t.Setenv("DPRL_QUICK", "1")
	if q := DefaultGrid(); q.Trials != 2 {
		t.Errorf("quick grid %+v", q)
	}
}

// claims runs f with the claims file in a fresh temporary folder and returns the claims it recorded.
func claims(t *testing.T, f func() error) []repro.Claim {
	t.Helper()
	t.Setenv("TMPDIR", t.TempDir())
	if err := f(); err != nil {
		t.Fatal(err)
	}
	c, err := repro.LoadClaims(repro.ClaimsFile(Notebook))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestPanel1Tiny: one trial on two small batches draws one figure and records the p1 claim; the trial's
// progress reaches the bar.
func TestPanel1Tiny(t *testing.T) {
	var r report.Recorder
	c := claims(t, func() error { return Panel1(&r, Grid{Trials: 1, M: []float64{100, 300}}) })
	if r.Figures() != 1 || r.Tables() != 0 || r.Units != 1 {
		t.Errorf("%d figures, %d tables, %d units", r.Figures(), r.Tables(), r.Units)
	}
	if len(c) != 1 || c[0].Key != "p1" || !strings.Contains(c[0].Measured, "m = 300") {
		t.Errorf("claims %+v", c)
	}
}

// TestPanels34Tiny: panels 3 and 4 are two figures and three claims.
func TestPanels34Tiny(t *testing.T) {
	var r report.Recorder
	c := claims(t, func() error { return Panels34(&r, Grid{Trials: 1, M: []float64{100, 200}}) })
	if r.Figures() != 2 || len(c) != 3 || c[0].Key != "p3" || c[2].Key != "p4" {
		t.Errorf("%d figures, claims %+v", r.Figures(), c)
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
