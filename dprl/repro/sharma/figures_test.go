package sharma

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/dprl-project/dprl/dprl/experiment"
	"github.com/dprl-project/dprl/dprl/expertdp"
	"github.com/dprl-project/dprl/dprl/report"
	"github.com/dprl-project/dprl/dprl/repro"
	"github.com/dprl-project/dprl/dprl/repro/claimtest"
)

// fakeRun fills job j's outcome with the certificate RunJobs would record (N = 4 trajectories per expert
// for CartPole and Acrobot, 1 for HIV) and normalised return v plus seed t's 0.02·(t − 4.5), so that
// intervals have width.
func fakeRun(j Job, v float64) Outcome {
	n := map[string]int{"cartpole": 4, "acrobot": 4, "lunarlander": 1, "hiv": 1}[j.Env]
	m := cmpOr(j.Experts, NumExperts)
	tc, sp, pT, err := trainConfig(j, &Setup{PerExpert: n}, m, 128, 300)
	if err != nil {
		panic(err)
	}
	o := Outcome{Job: j, Steps: 300, Return: v, Normalized: v + 0.02*(float64(j.Seed)-4.5), PT: pT}
	o.CertEps, o.CertDelta = j.certificate(tc, sp, pT)
	if tc.P > 0 {
		o.S, o.Private, o.Eps2, o.Eps2Exact = 1, 300, tc.Epsilon, tc.Epsilon
	}
	return o
}

func cmpOr(a, b int) int {
	if a != 0 {
		return a
	}
	return b
}

// fakeTable runs fakeRun over unique(jobs) with the normalised return value(j) and returns the runs table.
func fakeTable(jobs []Job, value func(j Job) Outcome) *experiment.Table {
	var all []Outcome
	for _, j := range unique(jobs) {
		all = append(all, value(j))
	}
	return OutcomeTable(all)
}

// The made-up results: the non-private learner 1, the untrained network 0, ours 0.9 and expert-level
// DP-SGD 0.5; in Fig. 4 DP-SGD 0.5·(1 − m/6000) and ours with the fallback 0.3 at m = 1000, where
// D_stable is empty (it fell back; ours on D_stable alone is the initial network there); Table 2's p = 0 0.4
// and p = 1 0.6; Acrobot's D_stable alone 0.97.
func fakeFig3() *experiment.Table {
	return fakeTable(Fig3Jobs([]string{"cartpole", "acrobot"}, []float64{5, 7.5, 10}, 10, NoiseCalibrated), func(j Job) Outcome {
		switch s := j.Setting(); {
		case s.Method == NonPrivate:
			return fakeRun(j, 1)
		case s.Method == Untrained:
			return fakeRun(j, 0)
		case s.Method == Ours && j.Env == "acrobot":
			o := fakeRun(j, 0.97)
			o.Stable = 100
			return o
		case s.Method == Ours:
			return fakeRun(j, 0.9)
		}
		return fakeRun(j, 0.5)
	})
}

func fakeFig4() *experiment.Table {
	return fakeTable(Fig4Jobs([]int{1000, 2000, 3000}, 10, NoiseCalibrated), func(j Job) Outcome {
		m := cmpOr(j.Experts, NumExperts)
		switch s := j.Setting(); {
		case s.Method == NonPrivate:
			return fakeRun(j, 1)
		case s.Method == Untrained:
			return fakeRun(j, 0)
		case s.Method == ExpertDPSGD:
			return fakeRun(j, 0.5*(1-float64(m)/6000))
		case m == 1000 && s.Split.Eps2 > 0:
			o := fakeRun(j, 0.3)
			o.FellBack, o.Note = true, "D_stable empty: fell back to expert-level DP-SGD"
			return o
		case m == 1000:
			o := fakeRun(j, 0)
			o.Note = "D_stable empty, no DP-SGD budget: initial network"
			return o
		}
		o := fakeRun(j, 0.9)
		o.Stable = 50
		return o
	})
}

// fakeTable2 adds, for the low-ε rows (not reproduced: DP-SGD 0.5 below the split's 0.9), their runs in
// the paper's noise regime (DP-SGD 0.3, the split 0.31: inconclusive), as Table2Data would.
func fakeTable2() *experiment.Table {
	t2 := map[float64]float64{0: 0.4, 1: 0.6}
	t := fakeTable(Table2Jobs(10, NoiseCalibrated), func(j Job) Outcome {
		switch s := j.Setting(); {
		case s.Method == NonPrivate:
			return fakeRun(j, 1)
		case s.Method == Untrained:
			return fakeRun(j, 0)
		case s.Method == ExpertDPSGD:
			return fakeRun(j, 0.5)
		case j.Env == "cartpole" && j.Epsilon == 10:
			if v, ok := t2[j.P]; ok {
				return fakeRun(j, v)
			}
		}
		return fakeRun(j, 0.9)
	})
	r, _ := readRuns(t)
	var alt []Job
	for _, ts := range r.table2Tests() {
		for _, s := range r.missing(ts) {
			for k := range 10 {
				alt = append(alt, s.Job("table2/alt", k))
			}
		}
	}
	more := fakeTable(alt, func(j Job) Outcome {
		if j.Method == ExpertDPSGD {
			return fakeRun(j, 0.3)
		}
		return fakeRun(j, 0.31)
	})
	t.Rows = append(t.Rows, more.Rows...)
	return t
}

// fakeDStable: LunarLander's release at L = 1000 keeps about 13 transitions (not reproduced), none at the
// alternative L = 500; Acrobot's 100; HIV's none at B.3's split (26 transitions at §6.1's, in its runs), and
// HIV's D_stable alone is no match for the non-private learner (0.02 and 0.03: neither learns).
func fakeDStable() *DStable {
	d := &DStable{Logs: &experiment.Table{Columns: []string{"env", "per_expert", "transitions", "L", "longest", "random_return", "expert_return", "q05", "q50", "q95"}},
		Releases: &experiment.Table{Columns: []string{"env", "epsilon", "m", "L", "release", "stable", "longest"}}}
	for _, env := range []string{"cartpole", "acrobot", "lunarlander", "hiv"} {
		d.Logs.Add(env, 4, 1000, demoLen(env), 150, 10.0, 200.0, 20.0, 100.0, 180.0)
		size := map[string]float64{"cartpole": 20, "acrobot": 100, "lunarlander": 13, "hiv": 0}[env]
		for _, eps := range []float64{5, 7.5, 10} {
			for _, m := range []int{1000, 2000, 3000} {
				for k := range 10 {
					d.Releases.Add(env, eps, m, demoLen(env), k, size+float64(k%3)*boolTo(size > 0), 2)
				}
			}
		}
		if env == "lunarlander" {
			for k := range 10 {
				d.Releases.Add(env, 10.0, NumExperts, altL, k, 0, 0)
			}
		}
	}
	d.Runs = fakeTable(HIVJobs(10, NoiseCalibrated), func(j Job) Outcome {
		switch j.Method {
		case NonPrivate:
			return fakeRun(j, 0.03)
		case Untrained:
			return fakeRun(j, 0.02)
		}
		o := fakeRun(j, 0.02)
		if j.Split.Eps2 > 0 {
			o.FellBack = true
		} else {
			o.Stable = 26
		}
		return o
	})
	return d
}

func boolTo(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// Every figure and claims function on made-up runs: the panels and tables, every row complete under the
// claim model (claimtest.Strict: kinds, the paper's words, trivial references, privacy), and the verdicts
// the made-up numbers imply.
func TestFiguresAndClaims(t *testing.T) {
	var rows []repro.Claim
	check := func(name string, err error, r *report.Recorder, figures, tables int) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if r.Figures() != figures || r.Tables() != tables {
			t.Errorf("%s: %d figures, %d tables; want %d and %d", name, r.Figures(), r.Tables(), figures, tables)
		}
		rows = report.MergeClaims(rows, r.ClaimRows()...)
	}
	fig3, fig4, t2, ds := fakeFig3(), fakeFig4(), fakeTable2(), fakeDStable()
	var r report.Recorder
	check("Fig3Figure", Fig3Figure(&r, fig3), &r, 4, 1)
	if md := strings.Join(r.Markdowns(), "\n"); !strings.Contains(md, "On CartPole at ε = 5") || !strings.Contains(md, "10 seeds per point. **Diverged runs**") {
		t.Errorf("Fig. 3 caption: %q", md)
	}
	r = report.Recorder{}
	check("Fig3Claims", Fig3Claims(&r, fig3), &r, 0, 0)
	r = report.Recorder{}
	check("Fig4Figure", Fig4Figure(&r, fig4), &r, 2, 1)
	if md := strings.Join(r.Markdowns(), "\n"); !strings.Contains(md, "Fell back to expert-level DP-SGD (D_stable empty): ours (p = 0, fallback), Acrobot CQL, ε = 10, m = 1000: 10 of 10") {
		t.Errorf("Fig. 4 caption: %q", md)
	}
	r = report.Recorder{}
	check("Fig4Claims", Fig4Claims(&r, fig4), &r, 0, 0)
	r = report.Recorder{}
	check("Table2Figure", Table2Figure(&r, t2), &r, 0, 2)
	r = report.Recorder{}
	check("Table2Claims", Table2Claims(&r, t2), &r, 0, 0)
	r = report.Recorder{}
	check("DStableFigure", DStableFigure(&r, ds), &r, 1, 3)
	r = report.Recorder{}
	check("DStableClaims", DStableClaims(&r, ds), &r, 0, 0)

	claimtest.Strict(t, rows)
	c := map[string]repro.Claim{}
	for _, row := range rows {
		c[row.Key] = row
	}
	for key, want := range map[string]string{
		"fig3-cartpoleCQL-7.5": repro.Reproduced, "fig3-acrobotBCQ-10": repro.Reproduced, "fig3-high-cartpoleCQL": repro.Reproduced,
		"fig3-high-acrobotCQL": repro.Inconclusive, "suffices-acrobotCQL": repro.Reproduced, "fig4": repro.Reproduced, "fig4-empty": repro.Reproduced,
		"t2-CQL-p0": repro.Reproduced, "t2-BCQ-p1": repro.Reproduced, "t2-low-cartpole-5": repro.NotReproduced, "stable-lunar": repro.NotReproduced,
		"stable-acro": repro.Reproduced, "stable-hiv": repro.Reproduced, "suffices-hivCQL": repro.Inconclusive,
	} {
		if got := c[key]; got.Verdict != want || repro.CheckClaim(got) != nil {
			t.Errorf("claim %s: %+v, want verdict %q (check: %v)", key, got, want, repro.CheckClaim(got))
		}
	}
	if got := c["fig4"]; !strings.HasPrefix(got.Measured, "+0.77 [") || got.Compare.Margin.Mean < 0.29 || got.Compare.Margin.Mean > 0.31 {
		t.Errorf("fig4: %+v, want (0.9 − 0.25) − (0.3 − 0.417) = 0.77 with ours 0.3 above the untrained network at m = 1000", got)
	}
	if got := c["fig3-cartpoleBCQ-10"]; len(got.Privacy) != 2 || got.Privacy[0] != (repro.Privacy{Method: "ours", Epsilon: got.Privacy[1].Epsilon, Delta: got.Privacy[1].Delta}) ||
		!(got.Privacy[0].Delta > 0.008) || !(got.Privacy[0].Epsilon > 10) {
		t.Errorf("fig3-cartpoleBCQ-10 privacy %+v: ours' certificate (ε > 10, δ = δ + p_T > 0.008) for both", got.Privacy)
	}
	if got := c["t2-low-cartpole-5"].Robust.Text(repro.NotReproduced); !strings.HasPrefix(got, "depends on noise regime (the paper's noise multipliers") || !strings.Contains(got, ": inconclusive") {
		t.Errorf("t2-low-cartpole-5 robust %q", got)
	}
	if got := c["stable-lunar"].Robust.Text(repro.NotReproduced); got != "depends on demonstration bound L (the paper states none; ours 1000) (L = 500: reproduced)" {
		t.Errorf("stable-lunar robust %q", got)
	}
	if got := c["suffices-hivCQL"]; !strings.Contains(got.Why, "uninformative") {
		t.Errorf("suffices-hivCQL: %+v, want uninformative (D_stable alone ≈ the untrained network)", got)
	}
	for _, row := range rows {
		if row.OfPaper() && row.Kind != repro.KindPaper {
			t.Errorf("%s: kind %q", row.Key, row.Kind)
		}
	}
}

// The Fig. 4 claim without the fallback, as the issue found it: ours on D_stable alone is the untrained
// network at m = 1000, so the growth of its gain says nothing about ours; the row is inconclusive.
func TestFig4WithoutFallbackIsUninformative(t *testing.T) {
	r, err := readRuns(fakeFig4())
	if err != nil {
		t.Fatal(err)
	}
	grow := r.fig4Tests()[0]
	u, ok := grow.substitute(grow.alts[0])
	if !ok {
		t.Fatal("the stable-only alternative changes nothing")
	}
	if c := r.evaluate(u); c.Verdict != repro.Inconclusive || !strings.Contains(c.Why, "uninformative: ours ≈ untrained network") {
		t.Errorf("D_stable alone: %+v", c)
	}
}

// Settings that run the same experiment are equal, and a setting's Job runs it: ours without a release on
// the whole budget is expert-level DP-SGD (calibrated noise); Fig. 4's two splits' baselines are one (the
// same certificate); a non-private run ignores ε; the accounting only matters when ours mixes; an untrained
// network ignores m.
func TestSetting(t *testing.T) {
	cp5 := OursJob("cartpole", expertdp.CQL, 5)
	if cp5.Setting() != BaselineJob("cartpole", expertdp.CQL, 5, Split{}).Setting() || cp5.Setting().Method != ExpertDPSGD {
		t.Errorf("ours at ε = 5 on CartPole %+v, want expert-level DP-SGD", cp5.Setting())
	}
	cp5.Noise = NoisePaper
	if cp5.Setting().Method != Ours {
		t.Error("in the paper's regime ours at ε = 5 has its own s (Table 3's), so it is not the baseline's run")
	}
	if BaselineJob("acrobot", expertdp.CQL, 10, FallbackJob("acrobot", expertdp.CQL, 10).Split).Setting() !=
		BaselineJob("acrobot", expertdp.CQL, 10, StableOnlyJob("acrobot", expertdp.CQL, 10).Split).Setting() {
		t.Error("the baselines of the two Acrobot splits differ")
	}
	if (Job{Env: "cartpole", Method: NonPrivate, Epsilon: 10}).Setting() != npSetting("cartpole", expertdp.CQL, 0) {
		t.Error("non-private setting depends on ε")
	}
	if (Job{Env: "acrobot", Method: Untrained, Experts: 1000}).Setting() != untrainedSetting("acrobot", expertdp.CQL) {
		t.Error("the untrained network depends on m")
	}
	pub := OursJob("cartpole", expertdp.CQL, 10)
	pub.Accounting = expertdp.AccountingPaper
	if pub.Setting() == OursJob("cartpole", expertdp.CQL, 10).Setting() {
		t.Error("published and exact accounting agree at p = 0.8")
	}
	for _, j := range append(NewConfig(false).AllJobs(), Fig3Jobs([]string{"hiv", "lunarlander"}, []float64{5, 7.5, 10}, 1, NoisePaper)...) {
		if s := j.Setting(); s.Job("x", 3).Setting() != s {
			t.Errorf("%+v: its Job runs %+v", s, s.Job("x", 3).Setting())
		}
	}
}

// The default and quick sizes, and the paper's scale.
func TestNewConfig(t *testing.T) {
	t.Setenv(experiment.QuickEnv, "1")
	q := NewConfig(false)
	if q.Steps != 150 || q.Seeds != 2 || q.Releases != 3 || len(q.Sizes) != 4 || len(q.Fig3Envs) != 2 || q.Noise != NoiseCalibrated {
		t.Errorf("quick config %+v", q)
	}
	t.Setenv(experiment.QuickEnv, "")
	d := NewConfig(false)
	if d.Steps != 1000 || d.Seeds != 10 || d.Releases != 10 || d.Sizes[0] != (EnvSize{"cartpole", 4}) || d.Learner.Hidden != nil {
		t.Errorf("default config %+v", d)
	}
	p := NewConfig(true)
	if p.Steps != 100000 || len(p.Fig3Envs) != 4 || p.Sizes[3] != (EnvSize{"hiv", 20}) || p.Learner.Hidden[0] != 256 || p.Noise != NoisePaper {
		t.Errorf("paper config %+v", p)
	}
	// Per seed: Fig. 3 has 30 settings (per environment and learner: untrained, non-private, DP-SGD at 3 ε,
	// ours at the ε where it is not DP-SGD: 2 on CartPole, 3 on Acrobot), Fig. 4 13 (the untrained network,
	// 4 per m), Table 2 15 (per learner on CartPole: untrained, 3 p; Acrobot BCQ's untrained; 3 low-ε rows of 2), HIV 4.
	for _, c := range []struct {
		name string
		jobs []Job
		n    int
	}{{"Fig. 3", Fig3Jobs(d.Fig3Envs, d.Epsilons, 1, d.Noise), 30}, {"Fig. 4", Fig4Jobs(d.Fig4M, 1, d.Noise), 13}, {"Table 2", Table2Jobs(1, d.Noise), 15},
		{"HIV", HIVJobs(1, d.Noise), 4}} {
		if n := len(Settings(c.jobs)); n != c.n {
			t.Errorf("%s: %d settings, want %d", c.name, n, c.n)
		}
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
}

// The constants table has one row per setting with the domain's public L, and the agreeing-prefix plot is
// drawn; the worked setting's numbers are the package doc's.
func TestReleaseConstants(t *testing.T) {
	var r report.Recorder
	if err := ReleaseConstants(&r); err != nil {
		t.Fatal(err)
	}
	if r.Tables() != 1 || r.Figures() != 1 || len(r.Items[0].Rows) != 7 {
		t.Fatalf("%d tables, %d figures", r.Tables(), r.Figures())
	}
	for _, row := range r.Items[0].Rows {
		// LunarLander (L = 1000) has no agreeing prefix at m = 3000; HIV's L is 50; Acrobot's at ε = 10 is 26.
		if row[0] == "lunarlander" && (row[11] != "0" || row[4] != "1000") || row[0] == "hiv" && row[4] != "50" ||
			row[0] == "acrobot" && row[1] == "10" && (row[11] != "26" || row[9] != "1017 (16.7 / 33.4)") {
			t.Errorf("row %q", row)
		}
	}
}

// A runs table reads back as the outcomes it was written from; a merged sweep's seeds become ranks and a
// run it holds twice is kept once; what cannot be read is named; the figures refuse runs that are not
// comparable and sweeps on another number of experts.
func TestOutcomesRoundTrip(t *testing.T) {
	tb := fakeFig4()
	all, err := Outcomes(tb)
	if err != nil {
		t.Fatal(err)
	}
	if back := OutcomeTable(all); fmt.Sprint(back.Rows) != fmt.Sprint(tb.Rows) {
		t.Error("a runs table does not read back as itself")
	}
	seedCol := slices.Index(tb.Columns, "seed")
	sw := &experiment.Table{Columns: tb.Columns}
	for _, row := range tb.Rows[:6] {
		row = slices.Clone(row)
		row[seedCol] = fmt.Sprint(10 + 5*len(sw.Rows))
		sw.Rows = append(sw.Rows, row)
	}
	sw.Rows = append(sw.Rows, sw.Rows[0])
	got, err := OutcomesFromSweep(sw)
	if err != nil || len(got) != 6 {
		t.Fatalf("%d outcomes of 6 (%v)", len(got), err)
	}
	if err := checkComparable(all); err != nil {
		t.Error(err)
	}
	bad := slices.Clone(all)
	for i := range bad {
		if bad[i].Method == ExpertDPSGD {
			bad[i].Eps2Exact = bad[i].CertEps + 0.01
			break
		}
	}
	if err := checkComparable(bad); err == nil || !strings.Contains(err.Error(), "above its budget") {
		t.Errorf("a run spending more than its budget passed: %v", err)
	}
	bad = slices.Clone(all)
	for i := range bad {
		if bad[i].Method == Ours {
			bad[i].Accounting = expertdp.AccountingPaper
		}
	}
	if err := checkComparable(bad); err == nil || !strings.Contains(err.Error(), "exact mixture") {
		t.Errorf("a published-accounting run passed: %v", err)
	}
	wrong := &experiment.Table{Columns: tb.Columns, Rows: [][]string{slices.Clone(tb.Rows[0])}}
	wrong.Rows[0][slices.Index(tb.Columns, "method")] = "ours?"
	if _, err := Outcomes(wrong); err == nil || !strings.Contains(err.Error(), `method "ours?"`) {
		t.Errorf("bad method: %v", err)
	}
	if _, err := Outcomes(&experiment.Table{Columns: tb.Columns[1:]}); err == nil || !strings.Contains(err.Error(), "tag") {
		t.Errorf("missing column: %v", err)
	}
	var rec report.Recorder
	if tb, ok, err := fullSizeRuns(&rec, t.TempDir(), "sharma-fig3"); tb != nil || ok || err != nil || !strings.Contains(rec.Markdowns()[0], "Default size") {
		t.Errorf("no sweep: %v %v %v %q", tb, ok, err, rec.Markdowns())
	}
}
