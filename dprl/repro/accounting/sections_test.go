package accounting

import (
	"math"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dprl-project/dprl/dprl/audit"
	"github.com/dprl-project/dprl/dprl/fnq"
	"github.com/dprl-project/dprl/dprl/report"
)

// recorder is a report.Recorder whose bars count under a lock: the studies and the auditor add progress from
// several goroutines, and report.Recorder's bars are not safe for that.
type recorder struct {
	report.Recorder
	mu sync.Mutex
}

func (r *recorder) Bar(string, int) report.Bar { return lockedBar{r} }

type lockedBar struct{ r *recorder }

func (b lockedBar) Add(n int) {
	b.r.mu.Lock()
	b.r.Units += n
	b.r.mu.Unlock()
}

func (b lockedBar) Done() time.Duration { return 0 }

func TestNum(t *testing.T) {
	for x, want := range map[float64]string{1e-5: "1e−5", 0.01: "0.01", 1.1: "1.1", 1: "1", -2e-7: "−2e−7", 1e21: "1e21", -0.5: "−0.5"} {
		if got := num(x); got != want {
			t.Errorf("num(%g) = %q, want %q", x, got, want)
		}
	}
}

// TestSections: each table section shows exactly one table on success and nothing but the error on bad input.
func TestSections(t *testing.T) {
	for name, c := range map[string]struct {
		ok, bad func(report.Sink) error
		rows    int
	}{
		"GaussianNoise": {func(o report.Sink) error { return GaussianNoise(o, []float64{0.5, 2}, 1e-5) },
			func(o report.Sink) error { return GaussianNoise(o, []float64{-1}, 1e-5) }, 2},
		"SmoothConstants": {func(o report.Sink) error { return SmoothConstants(o, [][2]float64{{0.1, 0.1}}, []int{39}) },
			func(o report.Sink) error { return SmoothConstants(o, [][2]float64{{0.1, 0.1}}, []int{0}) }, 2},
		"Composition": {func(o report.Sink) error { return Composition(o, 2, []int{1, 10}, 1e-5) },
			func(o report.Sink) error { return Composition(o, 0, []int{1}, 1e-5) }, 2},
		"XieConstants": {func(o report.Sink) error { return XieConstants(o, []XieRow{{1000, 1000, 1}}) },
			func(o report.Sink) error { return XieConstants(o, []XieRow{{0, 1000, 1}}) }, 1},
		"SharmaConstants": {func(o report.Sink) error {
			return SharmaConstants(o, []SharmaRow{{"a", 10, 1.0 / 3000, 25, 200, 0.02}})
		},
			func(o report.Sink) error { return SharmaConstants(o, []SharmaRow{{"a", 0, 1.0 / 3000, 25, 200, 0.02}}) }, 1},
		"SharmaPaperConstants": {func(o report.Sink) error { return SharmaPaperConstants(o, 10) },
			func(o report.Sink) error { return SharmaPaperConstants(o, -1) }, 4},
		"WangHegdeConstants": {func(o report.Sink) error { return WangHegdeConstants(o, WangHegdeCalibrations[:1]) },
			func(o report.Sink) error { return WangHegdeConstants(o, []fnq.Calibration{{Epsilon: 2}}) }, 1},
		"SeoYangConstants": {func(o report.Sink) error { return SeoYangConstants(o, []float64{1}, 1e-6) },
			func(o report.Sink) error { return SeoYangConstants(o, []float64{1}, 0) }, 1},
	} {
		var r report.Recorder
		if err := c.ok(&r); err != nil {
			t.Errorf("%s: %v", name, err)
		} else if r.Tables() != 1 || len(r.Items[0].Rows) != c.rows {
			t.Errorf("%s: %d tables, items %+v; want one table of %d rows", name, r.Tables(), r.Items, c.rows)
		}
		var b report.Recorder
		if err := c.bad(&b); err == nil || len(b.Items) != 0 {
			t.Errorf("%s: bad input gave error %v and %d items", name, err, len(b.Items))
		}
	}
}

// TestStudyFigures: the two curve studies on tiny grids show a figure titled by their parameters and a table
// with one row per x, and their bars see every point.
func TestStudyFigures(t *testing.T) {
	var r recorder
	s := StepsStudy{Methods: []Method{RDP, MomentsAccountant}, Workload: Workload{Q: 0.01, Z: 1.1, N: 10000}, Steps: []int{1, 10, 100}, Delta: 1e-5}
	if err := EpsilonVsStepsFigure(&r, s); err != nil {
		t.Fatal(err)
	}
	if r.Figures() != 1 || r.Tables() != 1 || len(r.Items[1].Rows) != 3 || r.Units != 6 {
		t.Fatalf("steps study: %d figures, %d tables, %d units", r.Figures(), r.Tables(), r.Units)
	}
	if got, want := r.Items[0].Plot.Title.Text, "ε after T steps (q = 0.01, z = 1.1, δ = 1e−5)"; got != want {
		t.Errorf("title %q, want %q", got, want)
	}
	r = recorder{}
	z := SizeStudy{Methods: []Method{RDP}, Sizes: []int{1000, 10000}, Batch: 100, Epochs: 10, Eps: 1, Delta: 1e-5}
	if err := NoiseVsSizeFigure(&r, z); err != nil {
		t.Fatal(err)
	}
	if got, want := r.Items[0].Plot.Title.Text, "noise multiplier for (1, 1e−5): 10 epochs, batch 100"; got != want {
		t.Errorf("title %q, want %q", got, want)
	}
	if rows := r.Items[1].Rows; len(rows) != 2 || rows[1][0] != "10000" {
		t.Errorf("size table %v", rows)
	}
	if d := DefaultStepsStudy(); len(d.Methods) != len(Methods) || d.Delta != 1e-5 || d.Workload.Q != 0.01 {
		t.Errorf("default steps study %+v", d)
	}
}

func TestExplorerDraw(t *testing.T) {
	if len(ExplorerDeltas) != len(ExplorerDeltaLabels) {
		t.Fatalf("%d deltas, %d labels", len(ExplorerDeltas), len(ExplorerDeltaLabels))
	}
	for i, d := range ExplorerDeltas {
		if v, err := strconv.ParseFloat(strings.Replace(ExplorerDeltaLabels[i], "−", "-", 1), 64); err != nil || v != d {
			t.Errorf("label %q for δ = %g", ExplorerDeltaLabels[i], d)
		}
	}
	p, err := ExplorerDraw([]float64{1, 2, 0.1, 10})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p.Title.Text, "δ = 1e-05") || !strings.Contains(p.Title.Text, "T = 10") {
		t.Errorf("title %q does not carry δ = 1e−5 and T = 10", p.Title.Text)
	}
	for _, v := range [][]float64{{1, 4, 0.01, 100}, {1, 2, 0.01}} {
		if _, err := ExplorerDraw(v); err == nil {
			t.Errorf("ExplorerDraw(%v) accepted", v)
		}
	}
}

// TestAuditTable: a short audit of the whole catalogue shows one row per case and counts every run.
func TestAuditTable(t *testing.T) {
	if testing.Short() {
		t.Skip("audits every case")
	}
	var r recorder
	if err := AuditTable(&r, audit.Config{Runs: 200, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	if n := len(Catalog()); r.Tables() != 1 || len(r.Items[0].Rows) != n || r.Units != n*2*4*200 {
		t.Errorf("%d tables, %d units", r.Tables(), r.Units)
	}
}

func TestPrivateMean(t *testing.T) {
	var r report.Recorder
	s := MeanStudy{Delta: 1e-5, Ns: []float64{10, 100}, Epsilons: []float64{0.5, 0}, Trials: 3, At: 100}
	if err := PrivateMean(&r, s); err != nil {
		t.Fatal(err)
	}
	if r.Figures() != 1 || r.Tables() != 1 || r.Units != 6 {
		t.Fatalf("%d figures, %d tables, %d units", r.Figures(), r.Tables(), r.Units)
	}
	rows := r.Items[1].Rows
	if len(rows) != 2 || rows[0][0] != "ε = 0.5" || rows[1][0] != "not private" || rows[1][1] != "0" || r.Items[1].Header[1] != "σ at n = 100" {
		t.Errorf("table %v %v", r.Items[1].Header, rows)
	}
	// the private error at n = 100 exceeds the non-private one on average: the noise σ ≈ 0.097 dominates
	a, _ := PrivateMeanErrors(s.Ns, 0.5, 1e-5, 50, nil)
	b, _ := PrivateMeanErrors(s.Ns, 0, 1e-5, 50, nil)
	sa, sb := 0.0, 0.0
	for i := range a {
		sa, sb = sa+a[i][1], sb+b[i][1]
	}
	if !(sa > 2*sb) {
		t.Errorf("mean private error %g not above twice the non-private %g", sa/50, sb/50)
	}
	for _, bad := range []MeanStudy{{Delta: 1e-5, Ns: []float64{10}, Epsilons: []float64{0.5}, Trials: 1, At: 1000},
		{Delta: 1e-5, Ns: []float64{10}, Epsilons: []float64{2}, Trials: 1, At: 10},
		{Delta: 0, Ns: []float64{10}, Epsilons: []float64{0.5}, Trials: 1, At: 10}} {
		if err := PrivateMean(report.Discard, bad); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}

// TestAuditSummary: the summary counts valid variants below and broken ones above their claims, orders the
// audited fractions, and lists the pairs' exact ε where known, from the results alone.
func TestAuditSummary(t *testing.T) {
	res := func(lo float64) *audit.Result { return &audit.Result{EpsilonLower: lo, Confidence: 0.95} }
	rs := []audit.CaseResult{
		{Case: audit.Case{Name: "A", Epsilon: 1, PairEpsilon: 0.5}, Valid: res(0.2), Broken: res(3)},
		{Case: audit.Case{Name: "B", Epsilon: 2}, Valid: res(2.5), Broken: res(1)},
	}
	got := AuditSummary(rs)
	for _, want := range []string{"1 of 2 valid implementations audit below their claim", "1 of 2 broken variants are caught",
		"fraction of its claim: B 1.2, A 0.2.", "A 0.5 (claimed 1)"} {
		if !strings.Contains(got, want) {
			t.Errorf("summary\n%s\nlacks %q", got, want)
		}
	}
	if strings.Contains(got, "B 0") || AuditSummary(nil) != "" {
		t.Errorf("summary %q", got)
	}
}

// TestRelativeNote: ratios to the first curve at the chosen points, a gap as "—", repeated points once.
func TestRelativeNote(t *testing.T) {
	xs := []float64{10, 1000}
	cs := []Curve{{PLD, []float64{1, 2}}, {RDP, []float64{1.5, math.NaN()}}}
	got := RelativeNote("ε", "T", xs, cs, []int{0, 1, 1})
	want := "* ε relative to PLD (Poisson) = 1 at T = 10: RDP (Poisson) ×1.5.\n* ε relative to PLD (Poisson) = 2 at T = 1000: RDP (Poisson) —.\n"
	if got != want {
		t.Errorf("note\n%q\nwant\n%q", got, want)
	}
}
