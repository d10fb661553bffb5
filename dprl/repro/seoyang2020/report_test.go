package seoyang2020

import (
	"fmt"
	"strings"
	"testing"

	"github.com/dprl-project/dprl/dprl/actorcritic"
	"github.com/dprl-project/dprl/dprl/experiment"
	"github.com/dprl-project/dprl/dprl/report"
	"github.com/dprl-project/dprl/dprl/repro"
)

func TestNoiseScaleTable(t *testing.T) {
	var r report.Recorder
	if err := NoiseScaleTable(&r); err != nil {
		t.Fatal(err)
	}
	if r.Tables() != 1 || len(r.Items) != 2 {
		t.Fatalf("%d items, %d tables", len(r.Items), r.Tables())
	}
	rows := r.Items[1].Rows
	// ε = 10: the typo's σ is ≈ 66.8, about 100× eq. (3)'s; replace-one doubles the analytic σ.
	if len(rows) != 5 || rows[0][0] != "10" || rows[0][2] != "66.8" || rows[4][0] != "0.1" {
		t.Errorf("rows %v", rows)
	}
	if ratio := TypoSigma(10, Delta) / actorcritic.PublishedSigma(10, Delta); ratio < 50 || ratio > 200 {
		t.Errorf("typo / eq. (3) = %g, want about 100", ratio)
	}
}

func TestDefaultSizes(t *testing.T) {
	t.Setenv(experiment.QuickEnv, "1")
	if s := DefaultSizes(false); s != (Sizes{2, 60}) {
		t.Errorf("quick: %+v", s)
	}
	if s := DefaultSizes(true); s != (Sizes{10, 500}) {
		t.Errorf("paper scale: %+v", s)
	}
}

func TestJoin(t *testing.T) {
	if join(nil) != "none" || join([]string{"10", "5"}) != "10, 5" {
		t.Error(join(nil), join([]string{"10", "5"}))
	}
}

// TestSections runs the three experiment sections at a tiny size and checks what they show and record.
func TestSections(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir()) // the claims file goes to os.TempDir
	var r report.Recorder
	size := Sizes{Runs: 1, Episodes: 1}
	if err := Fig2(&r, size); err != nil {
		t.Fatal(err)
	}
	// Per domain: learning curves, Table 3, the cosine figure, Table 4.
	if r.Figures() != 4 || r.Tables() != 4 || r.Units != 8 {
		t.Errorf("Fig. 2: %d figures, %d tables, %d runs", r.Figures(), r.Tables(), r.Units)
	}
	if err := Fig3(&r, size); err != nil {
		t.Fatal(err)
	}
	if r.Figures() != 6 || r.Tables() != 6 || r.Units != 8+2*16 {
		t.Errorf("Fig. 3: %d figures, %d tables, %d runs", r.Figures(), r.Tables(), r.Units)
	}
	if err := RealEpsilon(&r, size); err != nil {
		t.Fatal(err)
	}
	last := r.Items[len(r.Items)-1]
	if r.Figures() != 8 || len(last.Rows) != 2 || last.Rows[0][0] != "MDP-100" {
		t.Errorf("real ε: %d figures, last table %v", r.Figures(), last.Rows)
	}
	claims, err := repro.LoadClaims(repro.ClaimsFile(Notebook))
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, c := range claims {
		keys = append(keys, c.Key)
	}
	want := "fig2-mdp100 tab3-mdp100 tab4-mdp100 fig2-taxi tab3-taxi tab4-taxi fig3-actor-mdp100 fig3-critic-mdp100 " +
		"fig3-actor-taxi fig3-critic-taxi privacy-mdp100 privacy-taxi"
	if got := strings.Join(keys, " "); got != want {
		t.Errorf("claims recorded: %s", got)
	}
}

// The noise formula as the paper's §2.1 prints it, against eq. (3), at ε = 10 and δ = 1e−6.
func ExampleTypoSigma() {
	fmt.Printf("%.1f %.3f\n", TypoSigma(10, 1e-6), actorcritic.PublishedSigma(10, 1e-6))
	// Output: 66.8 0.530
}
