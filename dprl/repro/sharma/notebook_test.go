package sharma

import (
	"encoding/csv"
	"os"
	"strings"
	"testing"

	"github.com/dprl-project/dprl/dprl/experiment"
	"github.com/dprl-project/dprl/dprl/report"
	"github.com/dprl-project/dprl/dprl/repro"
)

// private points the system temporary folder, where the notebook's cells share files and claims, at a
// folder of the test's own.
func private(t *testing.T) {
	t.Helper()
	t.Setenv("TMPDIR", t.TempDir())
}

func claims(t *testing.T) map[string]repro.Claim {
	t.Helper()
	cs, err := repro.LoadClaims(repro.ClaimsFile(Notebook))
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]repro.Claim{}
	for _, c := range cs {
		m[c.Key] = c
	}
	return m
}

// The default and quick sizes, and the paper's scale; Jobs counts Fig. 3 (2 learners × (non-private + 2
// methods × 3 ε) per environment and seed), Fig. 4 (3 m × 3 methods per seed) and Table 2 (6 p rows and
// 3 × 2 low-ε rows per seed).
func TestNewConfig(t *testing.T) {
	t.Setenv(experiment.QuickEnv, "1")
	q := NewConfig(false)
	if q.Steps != 300 || q.Seeds != 1 || q.Releases != 2 || len(q.Sizes) != 4 || len(q.Fig3Envs) != 2 {
		t.Errorf("quick config %+v", q)
	}
	if n := len(q.Jobs()); n != 2*14+9+12 {
		t.Errorf("quick: %d jobs, want 49", n)
	}
	t.Setenv(experiment.QuickEnv, "")
	d := NewConfig(false)
	if d.Steps != 2000 || d.Seeds != 3 || d.Releases != 5 || d.Sizes[0] != (EnvSize{"cartpole", 4}) || d.Learner.Hidden != nil {
		t.Errorf("default config %+v", d)
	}
	if n := len(d.Jobs()); n != 3*(2*14+9+12) {
		t.Errorf("default: %d jobs, want 147", n)
	}
	p := NewConfig(true)
	if p.Steps != 100000 || len(p.Fig3Envs) != 4 || p.Sizes[3] != (EnvSize{"hiv", 20}) || len(p.Learner.Hidden) != 2 || p.Learner.Hidden[0] != 256 {
		t.Errorf("paper config %+v", p)
	}
}

// Group privacy: at N = 20 and ε = 1 the expert-level ε is 20 and δ is capped at 1.
func TestGroupPrivacy(t *testing.T) {
	var r report.Recorder
	GroupPrivacy(&r)
	if r.Tables() != 1 || len(r.Items[0].Rows) != 9 {
		t.Fatalf("recorded %+v", r.Items)
	}
	if got := r.Items[0].Rows[8]; got[2] != "20" || got[3] != "20" || got[4] != "1" {
		t.Errorf("ε = 1, N = 20 row %q", got)
	}
	if got := r.Items[0].Rows[0]; got[3] != "0.1" || got[4] != "1e-05" {
		t.Errorf("ε = 0.1, N = 1 row %q", got)
	}
}

// The constants table has one row per setting, the agreeing-prefix plot is drawn, and the worked example
// matches the paper's numbers.
func TestReleaseConstants(t *testing.T) {
	private(t)
	var r report.Recorder
	if err := ReleaseConstants(&r); err != nil {
		t.Fatal(err)
	}
	if r.Tables() != 1 || r.Figures() != 1 || len(r.Items[0].Rows) != 7 {
		t.Errorf("%d tables, %d figures, %d rows", r.Tables(), r.Figures(), len(r.Items[0].Rows))
	}
	c := claims(t)["const"]
	if c.Measured != "ε' 0.120, c_min 8.85, θ 443, E[θ̂] 1017" || c.Verdict != "reproduced" {
		t.Errorf("worked example claim %+v", c)
	}
	// LunarLander (L = 1000) has no agreeing prefix at m = 3000.
	for _, row := range r.Items[0].Rows {
		if row[0] == "lunarlander" && row[11] != "0" {
			t.Errorf("LunarLander agreeing prefix %s, want 0", row[11])
		}
	}
}

// fakeOutcomes are the jobs of a one-seed quick configuration with made-up normalised returns: the
// non-private runs 1, ours 0.9 and expert-level DP-SGD 0.5 (0.5·(1 − m/6000) in Fig. 4, so that the gap grows
// with m), and Table 1's p the best of Table 2's p rows.
func fakeOutcomes() []Outcome {
	t2 := map[float64]float64{0: 0.4, 1: 0.6}
	var all []Outcome
	for _, j := range (Config{Fig3Envs: []string{"cartpole", "acrobot"}, Seeds: 1}).Jobs() {
		o := Outcome{Job: j, Steps: 300, Return: 1}
		switch j.Method {
		case NonPrivate:
			o.Normalized = 1
		case Ours:
			o.Normalized = 0.9
			if v, ok := t2[j.P]; ok && j.Tag == "table2-p" {
				o.Normalized = v
			}
		case ExpertDPSGD:
			o.Normalized = 0.5
			if j.Tag == "fig4" {
				o.Normalized = 0.5 * (1 - float64(j.Experts)/6000)
			}
		}
		all = append(all, o)
	}
	return all
}

func TestFiguresAndTables(t *testing.T) {
	private(t)
	all := fakeOutcomes()
	if err := SaveOutcomes(tempFile("outcomes.json"), all); err != nil {
		t.Fatal(err)
	}
	var r report.Recorder
	if err := Fig3(&r); err != nil {
		t.Fatal(err)
	}
	if r.Figures() != 2 || r.Tables() != 1 {
		t.Errorf("Fig3: %d figures, %d tables; want 2 and 1", r.Figures(), r.Tables())
	}
	r = report.Recorder{}
	if err := Fig4(&r); err != nil {
		t.Fatal(err)
	}
	if r.Figures() != 1 || r.Tables() != 1 {
		t.Fatalf("Fig4: %d figures, %d tables; want 1 and 1", r.Figures(), r.Tables())
	}
	rows := r.Items[1].Rows
	if len(rows) != 6 || rows[0][0] != "1000" || rows[1][0] != "1000" || rows[5][0] != "3000" || rows[0][3] != "ours" || rows[1][3] != "expert-level DP-SGD" {
		t.Errorf("Fig4 table rows %q", rows)
	}
	r = report.Recorder{}
	if err := Table2(&r); err != nil {
		t.Fatal(err)
	}
	if r.Tables() != 2 || len(r.Items[0].Rows) != 6 || len(r.Items[1].Rows) != 6 {
		t.Errorf("Table2: %d tables", r.Tables())
	}
	c := claims(t)
	for key, want := range map[string]string{
		"fig3-cartpoleCQL": "reproduced", "fig3-acrobotBCQ": "reproduced", "fig4": "reproduced",
		"t2-CQL": "reproduced", "t2-BCQ": "reproduced", "t2-low": "not reproduced",
	} {
		if c[key].Verdict != want {
			t.Errorf("claim %s: %+v, want verdict %q", key, c[key], want)
		}
	}
	if got := c["t2-CQL"].Measured; got != "0.40 / 0.90 / 0.60" {
		t.Errorf("t2-CQL measured %q", got)
	}

	r = report.Recorder{}
	if err := ExportRuns(&r); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(tempFile("runs.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != len(all)+1 || len(r.Items) != 1 || !strings.Contains(r.Items[0].Markdown, "49 rows") {
		t.Errorf("%d CSV records for %d runs; %+v", len(recs), len(all), r.Items)
	}
}

// StableClaims reads the m = 3000, ε = 10 rows only.
func TestStableClaims(t *testing.T) {
	private(t)
	rows := []stableRow{
		{Env: "acrobot", Eps: 10, M: 3000, Stable: []float64{100, 120}, Prefix: []float64{3, 5}},
		{Env: "acrobot", Eps: 10, M: 2000, Stable: []float64{7}, Prefix: []float64{9}},
		{Env: "lunarlander", Eps: 10, M: 3000, Stable: []float64{0, 0}, Prefix: []float64{0, 0}},
		{Env: "hiv", Eps: 10, M: 3000, Stable: []float64{2, 4}, Prefix: []float64{1, 2}},
	}
	if err := writeJSON(tempFile("stable.json"), rows); err != nil {
		t.Fatal(err)
	}
	if err := StableClaims(); err != nil {
		t.Fatal(err)
	}
	c := claims(t)
	if got := c["stable-acro"].Measured; !strings.HasPrefix(got, "longest stable prefix 5, |D_stable| 110;") {
		t.Errorf("Acrobot: %q", got)
	}
	if got := c["stable-lunar"].Measured; got != "longest stable prefix 0, |D_stable| 0" {
		t.Errorf("LunarLander: %q", got)
	}
	if got := c["stable-hiv"].Measured; got != "longest stable prefix 2, |D_stable| 3" {
		t.Errorf("HIV: %q", got)
	}
}

func TestQuantile(t *testing.T) {
	x := []float64{5, 1, 4, 2, 3}
	if q := quantile(x, 0.5); q != 3 {
		t.Errorf("median %v", q)
	}
	if q, m := quantile(x, 0.05), quantile(x, 0.95); q != 1 || m != 4 {
		t.Errorf("5%% %v, 95%% %v (index ⌊0.95·4⌋ = 3)", q, m)
	}
	if x[0] != 5 {
		t.Errorf("quantile sorted its argument: %v", x)
	}
}
