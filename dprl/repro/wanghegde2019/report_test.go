package wanghegde2019

import (
	"fmt"
	"math"
	"reflect"
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
	if r.Tables() != 1 || len(r.Items) != 2 || !strings.Contains(r.Items[0].Markdown, "Worked settings (ours") {
		t.Fatalf("%d items, %d tables; want the worked settings (ours) named, then the table", len(r.Items), r.Tables())
	}
	rows := r.Items[1].Rows
	if len(rows) != 3 || len(rows[0]) != len(r.Items[1].Header) {
		t.Fatalf("%d rows of %d cells under %d columns", len(rows), len(rows[0]), len(r.Items[1].Header))
	}
	// Theorem 5's σ (column 7) and the second row's T′ = 5000/128 = 39.
	if rows[0][7] != "22.2" || rows[1][1] != "128 / 39" || rows[2][7] != "1.13" {
		t.Errorf("rows %v", rows)
	}
	// With L = 1 Theorem 5's precondition holds at all three settings.
	for _, row := range rows {
		if row[12] != "yes" {
			t.Errorf("row %v: Theorem 5 reported as not applying", row)
		}
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

// Theorem 5's σ at the three worked settings (ours; δ = 1e−4, T = 5000, L = 1).
func ExampleWorkedSigmas() {
	s, _ := WorkedSigmas()
	fmt.Printf("%.3g %.3g %.3g\n", s[0], s[1], s[2])
	// Output: 22.2 0.636 1.13
}

func TestDefaultProtocol(t *testing.T) {
	t.Setenv(experiment.QuickEnv, "1")
	if p := DefaultProtocol(); p != (Protocol{Seeds: 2, Episodes: 40}) {
		t.Errorf("quick: %+v", p)
	}
	t.Setenv(experiment.QuickEnv, "")
	if p := DefaultProtocol(); p != (Protocol{Seeds: 10, Episodes: 100}) {
		t.Errorf("default: %+v", p)
	}
}

func TestFifths(t *testing.T) {
	runs := [][]float64{{1, 2, 3, 4, 5}, {3, 4, 5, 6, 7}}
	if h, l := firstFifth(runs), lastFifth(runs); h[0] != 1 || h[1] != 3 || l[0] != 5 || l[1] != 7 {
		t.Errorf("first fifth %v, last fifth %v", h, l)
	}
	if d := paired([]float64{1, 2}, 1, []float64{1, 1}, 0.5); d[0] != 0.5 || d[1] != 1.5 {
		t.Errorf("paired %v", d)
	}
}

func TestEquivalent(t *testing.T) {
	for _, c := range []struct {
		d    []float64
		want string
	}{{[]float64{-0.5, 0.5, 0, 0.2}, repro.Reproduced}, {[]float64{5, 6, 5.5, 6.5}, repro.NotReproduced}, {[]float64{0, 4, 1, 3}, repro.Inconclusive}} {
		if got := equivalent(repro.Claim{}, c.d, 2, "").Verdict; got != c.want {
			t.Errorf("%v: %s, want %s", c.d, got, c.want)
		}
	}
}

// TestSamplesToReach: the first episode whose trailing mean over SampleWindow episodes reaches the target,
// in samples; a run that never reaches it is censored one episode past its end.
func TestSamplesToReach(t *testing.T) {
	run := []float64{0, 0, 0, 0, 10, 10, 10, 10, 10, 10}
	for _, c := range []struct{ target, want float64 }{{0, 250}, {2, 250}, {4, 300}, {10, 450}, {11, 550}} {
		if got := SamplesToReach(run, c.target); got != c.want {
			t.Errorf("target %g: %g samples, want %g", c.target, got, c.want)
		}
	}
	if s := slope([]float64{0, 1, 2}, []float64{1, 3, 5}); math.Abs(s-2) > 1e-12 {
		t.Errorf("slope %g, want 2", s)
	}
}

func TestNoisePaths(t *testing.T) {
	s, err := SamplePaths(1000)
	if err != nil {
		t.Fatal(err)
	}
	f, err := PathFigure(s)
	if err != nil || f.Plot == nil || !s.Consistent || !strings.HasSuffix(f.Note, "all equal to the first answer: true.") {
		t.Errorf("%v, note %q", err, f.Note)
	}
	again, _ := SamplePaths(10)
	if !reflect.DeepEqual(s.G, again.G) {
		t.Error("the paths differ between two draws from the same seeds")
	}
}

// TestLipschitzTable: the initial network's bound is ≈ 1.42 and training raises it; the table gives Theorem
// 5's constants at each bound.
func TestLipschitzTable(t *testing.T) {
	pts, err := TrainedLipschitz()
	if err != nil {
		t.Fatal(err)
	}
	if len(pts) != 3 || math.Abs(pts[0].L-1.42) > 0.01 || !(pts[2].L > pts[0].L) {
		t.Errorf("points %+v", pts)
	}
	h, rows, err := LipschitzTable(pts)
	if err != nil || len(rows) != 3 || len(rows[0]) != len(h) || rows[0][1] != "1.42" {
		t.Errorf("table %v %v (%v)", h, rows, err)
	}
}
