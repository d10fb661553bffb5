package sharma

import (
	"cmp"
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/dprl-project/dprl/dprl/experiment"
	"github.com/dprl-project/dprl/dprl/expertdp"
	"github.com/dprl-project/dprl/dprl/report"
	"github.com/dprl-project/dprl/dprl/repro"
	"github.com/dprl-project/dprl/dprl/repro/claimtest"
	"github.com/dprl-project/dprl/dprl/sweep"
)

// private points the system temporary folder, where the notebook's cells share files and claims, at a
// folder of the test's own.
func private(t *testing.T) {
	t.Helper()
	t.Setenv("TMPDIR", t.TempDir())
}

// claims are the rows, checked by the claim model's rules, by key.
func claims(t *testing.T, cs []repro.Claim) map[string]repro.Claim {
	t.Helper()
	claimtest.Rows(t, cs)
	m := map[string]repro.Claim{}
	for _, c := range cs {
		m[c.Key] = c
	}
	return m
}

// The default and quick sizes, and the paper's scale; Jobs counts each setting and seed once: per seed,
// Fig. 3 has 26 settings (per environment and learner: non-private, DP-SGD at 3 ε, ours at the ε where it
// is not DP-SGD: 2 on CartPole, 3 on Acrobot), Fig. 4 adds 6 (3 methods at m = 1000 and 2000), Table 2
// adds 4 (p = 0 and 1 per learner) and 5 (the low-ε rows but CartPole's DP-SGD at ε = 5), and the
// published-accounting runs 2: 43 in all.
func TestNewConfig(t *testing.T) {
	t.Setenv(experiment.QuickEnv, "1")
	q := NewConfig(false)
	if q.Steps != 150 || q.Seeds != 2 || q.Releases != 3 || len(q.Sizes) != 4 || len(q.Fig3Envs) != 2 {
		t.Errorf("quick config %+v", q)
	}
	if n := len(q.Jobs()); n != 2*43 {
		t.Errorf("quick: %d jobs, want 86", n)
	}
	t.Setenv(experiment.QuickEnv, "")
	d := NewConfig(false)
	if d.Steps != 1000 || d.Seeds != 10 || d.Releases != 10 || d.Sizes[0] != (EnvSize{"cartpole", 4}) || d.Learner.Hidden != nil {
		t.Errorf("default config %+v", d)
	}
	jobs := d.Jobs()
	if n := len(jobs); n != 10*43 || len(Settings(jobs)) != 43 {
		t.Errorf("default: %d jobs of %d settings, want 430 of 43", n, len(Settings(jobs)))
	}
	published := 0
	for _, j := range jobs {
		if j.Accounting == expertdp.AccountingPaper {
			published++
			if j.Tag != "published" || j.Env != "cartpole" || j.Epsilon != 10 {
				t.Errorf("a run with the paper's accounting outside the labelled ones: %+v", j)
			}
		}
	}
	if published != 20 {
		t.Errorf("%d published-accounting runs, want 20", published)
	}
	p := NewConfig(true)
	if p.Steps != 100000 || len(p.Fig3Envs) != 4 || p.Sizes[3] != (EnvSize{"hiv", 20}) || len(p.Learner.Hidden) != 2 || p.Learner.Hidden[0] != 256 {
		t.Errorf("paper config %+v", p)
	}
}

// Settings that run the same experiment are equal: ours without a release on the whole budget is
// expert-level DP-SGD; Fig. 4 at m = 3000 is Fig. 3's; a non-private run ignores ε; the accounting only
// matters when ours mixes (0 < p < 1).
func TestSetting(t *testing.T) {
	cp5 := Job{Env: "cartpole", Algorithm: expertdp.CQL, Method: Ours, Epsilon: 5, Split: PaperSplit("cartpole", 5, 1, false), P: PaperP("cartpole", expertdp.CQL, 5)}
	if cp5.Setting() != dpsgdSetting("cartpole", expertdp.CQL, 5, 0) {
		t.Errorf("ours at ε = 5 on CartPole %+v, want expert-level DP-SGD", cp5.Setting())
	}
	if (Job{Env: "acrobot", Algorithm: expertdp.CQL, Method: Ours, Epsilon: 10, Split: PaperSplit("acrobot", 10, 1, false), Experts: NumExperts}).Setting() != oursSetting("acrobot", expertdp.CQL, 10) {
		t.Error("Fig. 4 at m = 3000 differs from Fig. 3")
	}
	if (Job{Env: "cartpole", Method: NonPrivate, Epsilon: 10}).Setting() != nonPrivate("cartpole", expertdp.CQL, 0) {
		t.Error("non-private setting depends on ε")
	}
	ex, pub := costSettings(expertdp.CQL)
	if ex == pub || table2Setting(expertdp.CQL, 1) != (Job{Env: "cartpole", Method: Ours, Epsilon: 10, Split: PaperSplit("cartpole", 10, 1, false), P: 1, Accounting: expertdp.AccountingPaper}).Setting() {
		t.Error("accounting: published and exact settings at p = 0.8 should differ, and at p = 1 agree")
	}
}

// ContrastCI with coefficients (1, −1) is DiffCI's Welch interval; four groups combine their variances.
func TestContrastCI(t *testing.T) {
	a, b := []float64{1, 2, 3, 4}, []float64{0, 0.5, 1, math.NaN(), 3}
	d, lo, hi := experiment.DiffCI(a, b, 0.95)
	e, l2, h2, n := ContrastCI([][]float64{a, b}, []float64{1, -1}, 0.95)
	if math.Abs(d-e) > 1e-12 || math.Abs(lo-l2) > 1e-9 || math.Abs(hi-h2) > 1e-9 || n != 4 {
		t.Errorf("contrast (%g, %g, %g, %d), DiffCI (%g, %g, %g)", e, l2, h2, n, d, lo, hi)
	}
	e, lo, hi, _ = ContrastCI([][]float64{a, b, a, b}, []float64{1, -1, -1, 1}, 0.95)
	if e != 0 || !(lo < 0 && hi > 0) || !(hi-lo > h2-l2) {
		t.Errorf("zero contrast: %g [%g, %g]", e, lo, hi)
	}
	if _, lo, _, _ := ContrastCI([][]float64{{1}, b}, []float64{1, -1}, 0.95); !math.IsNaN(lo) {
		t.Error("a one-value group gave an interval")
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

// The constants table has one row per setting with the domain's public L, the agreeing-prefix plot is
// drawn, and the worked example matches the paper's numbers.
func TestReleaseConstants(t *testing.T) {
	private(t)
	var r report.Recorder
	if err := ReleaseConstants(&r); err != nil {
		t.Fatal(err)
	}
	if r.Tables() != 1 || r.Figures() != 1 || len(r.Items[0].Rows) != 7 {
		t.Errorf("%d tables, %d figures, %d rows", r.Tables(), r.Figures(), len(r.Items[0].Rows))
	}
	if md := r.Items[len(r.Items)-1].Markdown; !strings.Contains(md, "computed here: "+WorkedExample+" (matches") {
		t.Errorf("worked example: %q", md)
	}
	for _, row := range r.Items[0].Rows {
		// LunarLander (L = 1000) has no agreeing prefix at m = 3000; HIV's L is 50.
		if row[0] == "lunarlander" && (row[11] != "0" || row[4] != "1000") || row[0] == "hiv" && row[4] != "50" {
			t.Errorf("row %q", row)
		}
	}
}

// fakeOutcomes are the jobs of a ten-seed configuration with made-up normalised returns (seed t adds
// 0.02·(t − 4.5), so that intervals have width): the non-private runs 1, ours 0.9 and expert-level DP-SGD
// 0.5 (0.5·(1 − m/6000) in Fig. 4's setting, so that the gain grows with m), Table 1's p the best of Table
// 2's p rows (0: 0.4, 1: 0.6), and the published-accounting runs 1.05. The one Fig. 4 run of ours at m = 1000 says
// D_stable was empty.
func fakeOutcomes() []Outcome {
	t2 := map[float64]float64{0: 0.4, 1: 0.6}
	var all []Outcome
	for _, j := range (Config{Fig3Envs: []string{"cartpole", "acrobot"}, Seeds: 10}).Jobs() {
		o := Outcome{Job: j, Steps: 300, Return: 1}
		noise := 0.02 * (float64(j.Seed) - 4.5)
		switch set := j.Setting(); {
		case set.Method == NonPrivate:
			o.Normalized = 1
		case set.Method == Ours && set.Accounting == expertdp.AccountingPaper:
			o.Normalized = 1.05
		case set.Method == Ours:
			o.Normalized = 0.9
			if v, ok := t2[j.P]; ok && j.Env == "cartpole" && j.Epsilon == 10 {
				o.Normalized = v
			}
			if j.Experts == 1000 {
				o.Note = "D_stable empty: initial network"
			}
		case set.Method == ExpertDPSGD:
			o.Normalized = 0.5
			if set == dpsgdSetting("acrobot", expertdp.CQL, 10, set.Experts) {
				o.Normalized = 0.5 * (1 - float64(cmp.Or(j.Experts, NumExperts))/6000)
			}
		}
		o.Normalized += noise
		if tc, sp, _ := trainConfig(j, NumExperts, 128, 300); !tc.NonPrivate && tc.P > 0 {
			o.S, o.Private, o.Eps2, o.Eps2Exact = 1, 300, sp.Eps2, sp.Eps2
			if j.Accounting == expertdp.AccountingPaper {
				o.Eps2Exact = 1.2 * sp.Eps2
			}
		}
		all = append(all, o)
	}
	return all
}

// fakePrivacy are privacy rows for fakeOutcomes' settings: s = 1 everywhere (as the fake runs), the
// paper's s 0.8 spending 1.2·ε2.
func fakePrivacy() []PrivacyRow {
	var rows []PrivacyRow
	seen := map[Setting]bool{}
	for _, j := range (Config{Fig3Envs: []string{"cartpole", "acrobot"}, Seeds: 1}).Jobs() {
		k := privacyKey(j)
		if j.Method == NonPrivate || seen[k] {
			continue
		}
		seen[k] = true
		m := NumExperts
		if j.Experts > 0 {
			m = j.Experts
		}
		_, sp, _ := trainConfig(j, m, 128, 300)
		r := PrivacyRow{Method: k.Method, Env: k.Env, M: m, Epsilon: j.Epsilon, Split: sp, P: j.P, Accounting: k.Accounting, Steps: 300, S: 1, Eps2: sp.Eps2, Eps2Exact: sp.Eps2}
		if r.Published() {
			r.Eps2Exact = 1.2 * sp.Eps2
		} else if r.Method == Ours && r.P > 0 && r.P < 1 {
			r.PaperS, r.PaperEps2Exact = 0.8, 1.2*sp.Eps2
		}
		if sp.Eps1 > 0 {
			r.PT = float64(sp.T) / float64(m)
		}
		rows = append(rows, r)
	}
	return rows
}

func TestFiguresAndTables(t *testing.T) {
	private(t)
	all := fakeOutcomes()
	if err := SaveOutcomes(tempFile("outcomes.json"), all); err != nil {
		t.Fatal(err)
	}
	if err := writeJSON(privacyFile(), fakePrivacy()); err != nil {
		t.Fatal(err)
	}
	var r report.Recorder
	if err := Privacy(&r); err != nil {
		t.Fatal(err)
	}
	if r.Tables() != 1 || len(r.Items[0].Rows) != len(fakePrivacy()) {
		t.Errorf("Privacy: %d tables", r.Tables())
	}
	var rows []repro.Claim // every section's claims
	r = report.Recorder{}
	if err := Fig3(&r); err != nil {
		t.Fatal(err)
	}
	if r.Figures() != 4 || r.Tables() != 1 {
		t.Errorf("Fig3: %d figures, %d tables; want 4 and 1", r.Figures(), r.Tables())
	}
	rows = report.MergeClaims(rows, r.ClaimRows()...)
	r = report.Recorder{}
	if err := Fig4(&r); err != nil {
		t.Fatal(err)
	}
	if r.Figures() != 2 || r.Tables() != 1 {
		t.Fatalf("Fig4: %d figures, %d tables; want 2 and 1", r.Figures(), r.Tables())
	}
	var cells [][]string
	for _, it := range r.Items {
		if it.Rows != nil {
			cells = it.Rows
		}
	}
	if len(cells) != 9 || cells[0][3] != "1000" || cells[0][2] != "non-private" || cells[1][2] != "ours" || cells[1][14] != "D_stable empty: initial network in 10 of 10" || cells[8][3] != "3000" {
		t.Errorf("Fig4 table rows %q", cells)
	}
	rows = report.MergeClaims(rows, r.ClaimRows()...)
	r = report.Recorder{}
	if err := Table2(&r); err != nil {
		t.Fatal(err)
	}
	if r.Tables() != 2 || len(r.Items[0].Rows) != 6 || len(r.Items[1].Rows) != 6 {
		t.Errorf("Table2: %d tables", r.Tables())
	}
	rows = report.MergeClaims(rows, r.ClaimRows()...)
	r = report.Recorder{}
	if err := CheckAccounting(&r); err != nil {
		t.Fatal(err)
	}
	if r.Tables() != 4 {
		t.Errorf("CheckAccounting: %d tables, want 4", r.Tables())
	}
	c := claims(t, report.MergeClaims(rows, r.ClaimRows()...))
	for key, want := range map[string]string{
		"fig3-cartpoleCQL-7.5": repro.Reproduced, "fig3-acrobotBCQ-10": repro.Reproduced, "fig4": repro.Reproduced,
		"t2-CQL-p0": repro.Reproduced, "t2-BCQ-p1": repro.Reproduced, "t2-low-cartpole-5": repro.NotReproduced, "cost-CQL": repro.Reproduced,
	} {
		if c[key].Verdict != want || repro.CheckClaim(c[key]) != nil {
			t.Errorf("claim %s: %+v, want verdict %q (check: %v)", key, c[key], want, repro.CheckClaim(c[key]))
		}
	}
	if got := c["t2-CQL-p0"]; got.Seeds != 10 || !strings.HasPrefix(got.Measured, "+0.50 [") {
		t.Errorf("t2-CQL-p0: %+v", got)
	}
	if got := c["fig4"]; !strings.HasPrefix(got.Measured, "+0.17 [") {
		t.Errorf("fig4: %+v, want (0.9 − 0.25) − (0.9 − 0.417) = 0.17", got)
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
	if len(recs) != len(all)+1 || len(r.Items) != 1 || !strings.Contains(r.Items[0].Markdown, "430 rows") {
		t.Errorf("%d CSV records for %d runs; %+v", len(recs), len(all), r.Items)
	}
}

// Privacy refuses outcomes whose noise multiplier is not their row's.
func TestPrivacyChecksRuns(t *testing.T) {
	private(t)
	all := fakeOutcomes()
	for i := range all {
		if all[i].Method == ExpertDPSGD {
			all[i].S = 1.5
			break
		}
	}
	if err := SaveOutcomes(tempFile("outcomes.json"), all); err != nil {
		t.Fatal(err)
	}
	if err := writeJSON(privacyFile(), fakePrivacy()); err != nil {
		t.Fatal(err)
	}
	if err := Privacy(report.Discard); err == nil || !strings.Contains(err.Error(), "s = 1.5") {
		t.Errorf("a run with another s passed: %v", err)
	}
}

// stableClaims reads the m = 3000, ε = 10 rows only and decides from the interval over releases.
func TestStableClaims(t *testing.T) {
	rows := []stableRow{
		{Env: "acrobot", Eps: 10, M: 3000, Stable: []float64{100, 120, 110}, Prefix: []float64{3, 5, 4}},
		{Env: "acrobot", Eps: 10, M: 2000, Stable: []float64{7}, Prefix: []float64{9}},
		{Env: "lunarlander", Eps: 10, M: 3000, Stable: []float64{0, 0, 0}, Prefix: []float64{0, 0, 0}},
		{Env: "hiv", Eps: 10, M: 3000, Stable: []float64{2, 4, 0}, Prefix: []float64{1, 2, 0}},
	}
	c := claims(t, stableClaims(rows))
	if got := c["stable-acro"]; got.Verdict != repro.Reproduced || !strings.HasPrefix(got.Measured, "110 [") || got.Seeds != 3 || !strings.Contains(got.Why, "longest stable prefix 5") {
		t.Errorf("Acrobot: %+v", got)
	}
	if got := c["stable-lunar"]; got.Measured != "0 [0, 0]" || got.Verdict != repro.Reproduced {
		t.Errorf("LunarLander: %+v", got)
	}
	if got := c["stable-hiv"]; got.Verdict != repro.Inconclusive {
		t.Errorf("HIV: %+v", got)
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

// Without a sweep the jobs are Jobs; with a figure swept, only the runs another figure needs are left, each
// drawing the stream it draws in Jobs (so the rest runs exactly as without the sweep).
func TestJobsWithout(t *testing.T) {
	cfg := Config{Fig3Envs: []string{"cartpole", "acrobot"}, Seeds: 3}
	all := cfg.Jobs()
	if jobs, streams := cfg.jobsWithout(nil); len(jobs) != len(all) || len(streams) != len(all) || streams[len(all)-1] != len(all)-1 {
		t.Fatalf("no sweep: %d jobs, streams %v", len(jobs), streams)
	}
	has := func(jobs []Job, set Setting) bool {
		for _, j := range jobs {
			if j.Setting() == set {
				return true
			}
		}
		return false
	}
	for _, c := range []struct {
		swept      map[string]bool
		gone, kept []Setting
	}{
		{map[string]bool{"fig3": true},
			[]Setting{dpsgdSetting("acrobot", expertdp.BCQ, 7.5, 0), nonPrivate("cartpole", expertdp.CQL, 0), oursSetting("acrobot", expertdp.BCQ, 10)},
			// Fig. 4 at m = 3000 and Table 2's Table-1 p are Fig. 3's runs; Table 2's CartPole BCQ DP-SGD at ε = 5 too.
			[]Setting{fig4Setting(3000), table2Setting(expertdp.CQL, 0.8), dpsgdSetting("cartpole", expertdp.BCQ, 5, 0), nonPrivate("acrobot", expertdp.CQL, 1000)}},
		{map[string]bool{"fig4": true},
			[]Setting{fig4Setting(1000), nonPrivate("acrobot", expertdp.CQL, 2000)},
			[]Setting{fig4Setting(3000), oursSetting("cartpole", expertdp.BCQ, 7.5)}},
		{map[string]bool{"fig3": true, "fig4": true},
			[]Setting{fig4Setting(3000), fig4Setting(1000), oursSetting("cartpole", expertdp.BCQ, 7.5)},
			[]Setting{table2Setting(expertdp.BCQ, 0.5), lowSetting("acrobot", 2.5)}},
	} {
		jobs, streams := cfg.jobsWithout(c.swept)
		if len(jobs) == 0 || len(jobs) >= len(all) {
			t.Errorf("%v: %d of %d jobs", c.swept, len(jobs), len(all))
		}
		for k, j := range jobs {
			if all[streams[k]] != j {
				t.Fatalf("%v: job %d %+v has stream %d, Jobs' %+v", c.swept, k, j, streams[k], all[streams[k]])
			}
		}
		for _, s := range c.gone {
			if has(jobs, s) {
				t.Errorf("%v: %+v runs", c.swept, s)
			}
		}
		for _, s := range c.kept {
			if !has(jobs, s) {
				t.Errorf("%v: %+v does not run", c.swept, s)
			}
		}
	}
}

// runJobs with streams draws job k's stream (Seed, streams[k]): a subset runs as in the whole list.
func TestRunJobsStreams(t *testing.T) {
	if testing.Short() {
		t.Skip("trains")
	}
	st, err := NewSetup("cartpole", SetupConfig{Bases: 2, Experts: 40, PerExpert: 1, Seed: 100})
	if err != nil {
		t.Fatal(err)
	}
	setups := map[string]*Setup{"cartpole": st}
	jobs := []Job{{Env: "cartpole", Method: NonPrivate}, {Env: "cartpole", Method: ExpertDPSGD, Epsilon: 5}, {Env: "cartpole", Method: NonPrivate, Seed: 1}}
	cfg := ExperimentConfig{Learner: expertdp.LearnerConfig{Hidden: []int{4}}, Batch: 8, Steps: 3, Seed: 7, Workers: 1}
	whole, err := RunJobs(setups, jobs, cfg)
	if err != nil {
		t.Fatal(err)
	}
	part, err := runJobs(setups, jobs[2:], []int{2}, cfg)
	if err != nil || part[0] != whole[2] {
		t.Errorf("subset %+v (%v), whole %+v", part, err, whole[2])
	}
	if alone, _ := RunJobs(setups, jobs[2:], cfg); alone[0].Return == whole[2].Return {
		t.Errorf("the job alone (stream 0) returned %g as in the whole list (stream 2): the streams do not matter here", alone[0].Return)
	}
	if _, err := runJobs(setups, []Job{{Env: "nowhere", Method: NonPrivate}}, []int{5}, cfg); err == nil || !strings.Contains(err.Error(), "trial 5 (seed 7, stream rand.NewPCG(7, 5))") {
		t.Errorf("a failing job named by its position in the subset: %v", err)
	}
	if _, err := runJobs(setups, jobs, []int{0}, cfg); err == nil {
		t.Error("one stream for three jobs passed")
	}
}

// OutcomesFromSweep reads OutcomeTable's columns back (the seed's rank as Job.Seed), keeps a run the table
// holds twice once, and names what it cannot read; the figures refuse runs that are not comparable and
// sweeps on another number of experts.
func TestOutcomesFromSweep(t *testing.T) {
	all := fakeOutcomes()[:6]
	all[1].Split.T, all[1].FixedLogDelta, all[1].Accounting = 25, 0.008, expertdp.AccountingPaper
	tb := OutcomeTable(all)
	for i := range tb.Rows {
		tb.Rows[i][slices.Index(tb.Columns, "seed")] = fmt.Sprint(10 + 5*all[i].Seed) // the sweep's seeds, not ranks
	}
	dup := append(tb.Rows[:len(tb.Rows):len(tb.Rows)], tb.Rows[0])
	got, err := OutcomesFromSweep(&experiment.Table{Columns: tb.Columns, Rows: dup})
	if err != nil || len(got) != len(all) {
		t.Fatalf("%d outcomes of %d (%v)", len(got), len(all), err)
	}
	for i := range all {
		if fmt.Sprintf("%+v", got[i]) != fmt.Sprintf("%+v", all[i]) {
			t.Errorf("run %d\n  read %+v\n  want %+v", i, got[i], all[i])
		}
	}
	if err := checkComparable(got); err == nil || !strings.Contains(err.Error(), "exact mixture") {
		t.Errorf("a published-accounting run passed: %v", err)
	}
	over := all[2:3]
	over[0].Eps2Exact = over[0].Epsilon + 0.01
	if err := checkComparable(over); err == nil || !strings.Contains(err.Error(), "above its nominal") {
		t.Errorf("a run spending more than its ε passed: %v", err)
	}
	if err := checkComparable(Select(fakeOutcomes(), func(o Outcome) bool { return o.Accounting == expertdp.AccountingMixed })); err != nil {
		t.Error(err)
	}

	bad := &experiment.Table{Columns: tb.Columns, Rows: [][]string{slices.Clone(tb.Rows[0])}}
	bad.Rows[0][slices.Index(tb.Columns, "method")] = "ours?"
	if _, err := OutcomesFromSweep(bad); err == nil || !strings.Contains(err.Error(), `method "ours?"`) {
		t.Errorf("bad method: %v", err)
	}
	if _, err := OutcomesFromSweep(&experiment.Table{Columns: tb.Columns[1:], Rows: nil}); err == nil || !strings.Contains(err.Error(), "tag") {
		t.Errorf("missing column: %v", err)
	}

	for spec, ok := range map[string]bool{
		`{"name": "a", "experiment": "x", "params": {"experts_total": 3000}, "grid": {"m": [1, 2]}, "seeds": [1], "shard_size": 1}`: true,
		`{"name": "a", "experiment": "x", "grid": {"m": [1, 2]}, "seeds": [1], "shard_size": 1}`:                                    true,
		`{"name": "a", "experiment": "x", "grid": {"experts_total": [3000, 40]}, "seeds": [1, 2], "shard_size": 1}`:                 false,
	} {
		s, err := sweep.ParseSpec([]byte(spec))
		if err != nil {
			t.Fatal(err)
		}
		if err := checkExperts(s); (err == nil) != ok {
			t.Errorf("%s: %v", spec, err)
		}
	}
}
