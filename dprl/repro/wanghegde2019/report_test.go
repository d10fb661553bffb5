package wanghegde2019

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/dprl-project/dprl/dprl/experiment"
	"github.com/dprl-project/dprl/dprl/report"
	"github.com/dprl-project/dprl/dprl/repro"
)

func TestCalibrationTable(t *testing.T) {
	var r report.Recorder
	if err := CalibrationTable(&r); err != nil {
		t.Fatal(err)
	}
	if r.Tables() != 1 || len(r.Items) != 2 {
		t.Fatalf("%d items, %d tables; want a sentence and one table", len(r.Items), r.Tables())
	}
	rows := r.Items[1].Rows
	if len(rows) != 3 || len(rows[0]) != len(r.Items[1].Header) {
		t.Fatalf("%d rows of %d cells under %d columns", len(rows), len(rows[0]), len(r.Items[1].Header))
	}
	// Theorem 5's σ (column 7) and the second row's T′ = 5000/128 = 39.
	if rows[0][7] != "22.2" || rows[1][1] != "128 / 39" || rows[2][7] != "1.13" {
		t.Errorf("rows %v", rows)
	}
}

func TestWorkedSigmas(t *testing.T) {
	got, err := WorkedSigmas()
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []float64{22.2, 0.637, 1.13} {
		if math.Abs(got[i]-want) > 0.01*want {
			t.Errorf("setting %d: σ = %g, want ≈ %g", i, got[i], want)
		}
	}
}

func TestDefaultProtocol(t *testing.T) {
	t.Setenv(experiment.QuickEnv, "1")
	if p := DefaultProtocol(false); p != (Protocol{Seeds: 2, Episodes: 40}) {
		t.Errorf("quick: %+v", p)
	}
	t.Setenv(experiment.QuickEnv, "")
	if p := DefaultProtocol(false); p != (Protocol{Seeds: 5, Episodes: 100}) {
		t.Errorf("default: %+v", p)
	}
	if p := DefaultProtocol(true); p.Seeds != 10 {
		t.Errorf("paper scale: %+v", p)
	}
}

func TestFig2Settings(t *testing.T) {
	s, err := Fig2Settings(Fig2Rows()[0], 100)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, x := range s {
		names = append(names, x.Name)
	}
	// σ_r for 5000 rewards at ε = 0.9, δ = 1e−4 is ≈ 247; the code configuration uses σ = 0.637.
	if len(s) != 6 || !strings.Contains(names[0], "σ = 0.637") || names[2] != "input perturbation (σ_r = 247)" {
		t.Errorf("settings %q", names)
	}
	if _, err := Fig2Settings(Fig2Row{Epsilon: 0.9, Sigma: 0.637, LR: 7e-5, K: 210}, 2); err == nil {
		t.Error("2 episodes (no DP-SGD update step) accepted")
	}
}

func TestMeans(t *testing.T) {
	runs := [][]float64{{1, 2, 3, 4, 5}, {3, 4, 5, 6, 7}}
	if h, l := headMean(runs), tailMean(runs); h != 2 || l != 6 {
		t.Errorf("first fifth %g, last fifth %g; want 2 and 6", h, l)
	}
}

// TestFigures runs both figures at a tiny size and checks what they show and record.
func TestFigures(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir()) // the claims file goes to os.TempDir
	var r report.Recorder
	p := Protocol{Seeds: 1, Episodes: 3}
	if err := Fig1(&r, p); err != nil {
		t.Fatal(err)
	}
	if r.Figures() != 2 || r.Tables() != 1 || r.Units != 9 {
		t.Errorf("Fig. 1: %d figures, %d tables, %d runs", r.Figures(), r.Tables(), r.Units)
	}
	if err := Fig2(&r, p); err != nil {
		t.Fatal(err)
	}
	if r.Figures() != 4 || r.Units != 9+12 {
		t.Errorf("Fig. 1 and 2: %d figures, %d runs", r.Figures(), r.Units)
	}
	if err := RecordCalibrationClaim(); err != nil {
		t.Fatal(err)
	}
	claims, err := repro.LoadClaims(repro.ClaimsFile(Notebook))
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, c := range claims {
		keys = append(keys, c.Key)
	}
	if got := strings.Join(keys, " "); got != "f1 f1-j f2-0.9 f2-0.9-bgp f2-0.45 f2-0.45-bgp f2-flat calib" {
		t.Errorf("claims recorded: %s", got)
	}
	if claims[len(claims)-1].Verdict != "reproduced" {
		t.Errorf("calibration claim %+v", claims[len(claims)-1])
	}
}

// Theorem 5's σ at the three worked settings (δ = 1e−4, T = 5000, L = 1).
func ExampleWorkedSigmas() {
	s, _ := WorkedSigmas()
	fmt.Printf("%.3g %.3g %.3g\n", s[0], s[1], s[2])
	// Output: 22.2 0.636 1.13
}

func TestNoisePaths(t *testing.T) {
	var r report.Recorder
	if err := NoisePaths(&r, 1000); err != nil {
		t.Fatal(err)
	}
	if r.Figures() != 1 || len(r.Items) != 2 || !strings.HasSuffix(r.Items[1].Markdown, "all equal to the first answer: true.") {
		t.Errorf("%d figures, items %+v", r.Figures(), r.Items)
	}
}
