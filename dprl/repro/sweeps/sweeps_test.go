package sweeps

import (
	"encoding/csv"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/dprl-project/dprl/dprl/experiment"
	"github.com/dprl-project/dprl/dprl/expertdp"
	"github.com/dprl-project/dprl/dprl/fnq"
	"github.com/dprl-project/dprl/dprl/param"
	"github.com/dprl-project/dprl/dprl/repro/balle2016"
	"github.com/dprl-project/dprl/dprl/repro/sharma"
	"github.com/dprl-project/dprl/dprl/repro/wanghegde2019"
	"github.com/dprl-project/dprl/dprl/repro/xie2019"
	"github.com/dprl-project/dprl/dprl/sweep"
	"github.com/dprl-project/dprl/envs"
)

func runTask(t *testing.T, name string, p sweep.Params, seed uint64) [][]string {
	t.Helper()
	e, err := sweep.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := e.(sweep.Validator); ok {
		if err := v.Validate(p); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := e.Run(p, seed)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if len(rows) == 0 {
		t.Fatalf("%s: no rows", name)
	}
	for i, r := range rows {
		if len(r) != len(e.Columns()) {
			t.Fatalf("%s: row %d has %d values for %d columns", name, i, len(r), len(e.Columns()))
		}
	}
	again, _ := e.Run(p, seed)
	if fmt.Sprint(again) != fmt.Sprint(rows) {
		t.Errorf("%s: two runs of one task differ", name)
	}
	return rows
}

// TestWangHegdeMatchesReturnCurves: seed s of the sweep is seed s of wanghegde2019.ReturnCurves, for the
// learner (written out here as notebook 04 configures it) and for the random policy beside it.
func TestWangHegdeMatchesReturnCurves(t *testing.T) {
	rows := runTask(t, "wanghegde2019/returns", sweep.Params{"sigma": 0.4, "episodes": int64(5)}, 2)
	curves, err := wanghegde2019.ReturnCurves([]wanghegde2019.Setting{{Name: "σ = 0.4", Run: func(env envs.Env, src rand.Source) (*fnq.Result, error) {
		return fnq.Run(env, fnq.Config{Method: fnq.FunctionalNoise, Sigma: 0.4, ResetEvery: 1, Episodes: 5, Src: src})
	}}, wanghegde2019.RandomPolicy(5)}, 3, 2019, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range rows {
		if want := strconv.FormatFloat(curves[0][2][i], 'g', -1, 64); r[2] != want {
			t.Fatalf("episode %d: %s, ReturnCurves %s", i+1, r[2], want)
		}
		if want := strconv.FormatFloat(curves[1][2][i], 'g', -1, 64); r[3] != want {
			t.Fatalf("episode %d: random policy %s, ReturnCurves %s", i+1, r[3], want)
		}
	}
	// σ = 0 is the non-private DQN, not functional noise without noise.
	zero := runTask(t, "wanghegde2019/returns", sweep.Params{"sigma": 0.0, "episodes": int64(3)}, 0)
	np, err := wanghegde2019.ReturnCurves([]wanghegde2019.Setting{{Name: "DQN", Run: func(env envs.Env, src rand.Source) (*fnq.Result, error) {
		return fnq.Run(env, fnq.Config{Method: fnq.NonPrivate, Episodes: 3, Src: src})
	}}}, 1, 2019, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := strconv.FormatFloat(np[0][0][2], 'g', -1, 64); zero[2][2] != want {
		t.Errorf("σ = 0: %s, the non-private DQN %s", zero[2][2], want)
	}
}

func TestXieMSPBE(t *testing.T) {
	p := sweep.Params{"domain": "chain", "n": []any{int64(60)}, "epsilons": []any{1.0}, "steps": []any{0.01, 0.1}, "tune_runs": int64(1)}
	rows := runTask(t, "xie2019/mspbe", p, 5)
	d, _ := xie2019.Chain()
	cfg := xie2019.FullSizeConfig([]int{60}, []float64{1})
	cfg.Steps, cfg.TuneRuns = []float64{0.01, 0.1}, 1
	tu, err := xie2019.Tune(d, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Seed = 5
	want, _ := xie2019.Experiment(d, cfg, tu, nil)
	if !reflect.DeepEqual(rows, xie2019.SweepRows(d.Info(), want)) {
		t.Errorf("rows %v, want %+v", rows, want)
	}
	for _, r := range rows {
		if r[10] != strconv.FormatFloat(d.Clip, 'g', -1, 64) || r[11] != strconv.FormatFloat(d.MeanReward, 'g', -1, 64) || r[12] != "0" {
			t.Fatalf("domain columns %v: C = %v, r̄ = %v, exact moments", r[10:], d.Clip, d.MeanReward)
		}
	}
}

// TestXieDefaultsAreTheNotebooks: left to its defaults, an xie2019/mspbe task tunes and runs as notebook
// 03's default protocol does outside quick mode (one trial, the task's seed).
func TestXieDefaultsAreTheNotebooks(t *testing.T) {
	t.Setenv("DPRL_QUICK", "")
	x, err := xieParams(sweep.Params{"domain": "chain", "n": []any{int64(500), int64(1000)}, "epsilons": []any{0.1, 1.0}})
	if err != nil {
		t.Fatal(err)
	}
	want := xie2019.DefaultProtocol().Config([]int{500, 1000}, []float64{0.1, 1})
	got := x.cfg
	if !slices.Equal(got.Steps, want.Steps) || got.TuneRuns != want.TuneRuns || got.Seed != want.Seed || got.Delta != want.Delta ||
		got.BalleDelta != want.BalleDelta || got.LSLC != want.LSLC || got.Iterations(500) != want.Iterations(500) || got.Accounting != want.Accounting ||
		!slices.Equal(got.N, want.N) || !slices.Equal(got.Epsilons, want.Epsilons) || got.Trials != 1 {
		t.Errorf("task config %+v\nnotebook's %+v", got, want)
	}
}

// TestBalleRMSE: a task is balle2016's BatchEstimates on the batch of the task's stream, one row per
// estimate in its order, formatted as balle2016.EstimateRow.
func TestBalleRMSE(t *testing.T) {
	rows := runTask(t, "balle2016/rmse", sweep.Params{"m": int64(200)}, 3)
	setup, err := balle2016.NewSetup()
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 200))
	sig, err := setup.Batch(200, rand.NewPCG(rng.Uint64(), rng.Uint64()))
	if err != nil {
		t.Fatal(err)
	}
	want, err := setup.BatchEstimates(sig, rand.NewPCG(rng.Uint64(), rng.Uint64()))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(want) || len(want) < 10 || rows[0][0] != "LSW" || rows[0][1] != "pairs" {
		t.Fatalf("%d rows (want %d): %v", len(rows), len(want), rows[:min(len(rows), 3)])
	}
	for i, w := range want {
		if !slices.Equal(rows[i], balle2016.EstimateRow(w)) {
			t.Errorf("row %d = %v, BatchEstimates %+v", i, rows[i], w)
		}
	}
}

// TestSharmaJobsTiny: a sharma/jobs task is notebook 05's job of the same setting (Fig3Jobs: the paper's
// split, Table 1's p, the fallback, the exact accounting; the baseline at ours' certificate) run by
// sharma.RunJobs with the task's seed on the setup the notebook builds (its seed and, by default, its
// trajectories per expert), and its row reads back as that outcome; a cell in the other noise regime than
// the figure's is tagged as its alternative.
func TestSharmaJobsTiny(t *testing.T) {
	if testing.Short() {
		t.Skip("trains experts")
	}
	def := sharma.NewConfig(false)
	for i, s := range sharma.NewConfig(true).Sizes {
		tk, err := sharmaParams(sweep.Params{"env": s.Env, "setting": "nonprivate"})
		if err != nil || tk.setup.PerExpert != def.Sizes[i].PerExpert || tk.setup.Experts != sharma.NumExperts || tk.setup.Bases != sharma.NumBases ||
			tk.setup.Seed != sharma.SetupSeed(s.Env) {
			t.Errorf("%s: setup %+v (%v), the notebook's N = %d", s.Env, tk.setup, err, def.Sizes[i].PerExpert)
		}
	}

	st, err := sharma.NewSetup("cartpole", sharma.SetupConfig{Bases: 2, Experts: 40, PerExpert: 1, Seed: 100})
	if err != nil {
		t.Fatal(err)
	}
	for _, method := range []sharma.Method{sharma.Ours, sharma.ExpertDPSGD} {
		setting := map[sharma.Method]string{sharma.Ours: "ours:10", sharma.ExpertDPSGD: "dpsgd:10"}[method]
		p := sweep.Params{"env": "cartpole", "learner": "cql", "setting": setting, "experts_total": int64(40), "bases": int64(2),
			"per_expert": int64(1), "steps": int64(10), "hidden": []any{int64(8)}, "batch": int64(8)}
		rows := runTask(t, "sharma/jobs", p, 1)
		tb := &experiment.Table{Columns: append([]string{"setting", "seed"}, SharmaJobs.Cols...), Rows: [][]string{append([]string{setting, "1"}, rows[0]...)}}
		got, err := sharma.OutcomesFromSweep(tb)
		if err != nil || len(got) != 1 {
			t.Fatalf("read back: %v %v", got, err)
		}
		var job sharma.Job
		for _, j := range sharma.Fig3Jobs([]string{"cartpole"}, []float64{10}, 1, sharma.NoiseCalibrated) {
			if j.Method == method && j.Algorithm == expertdp.CQL {
				job = j
			}
		}
		want, err := sharma.RunJobs(map[string]*sharma.Setup{"cartpole": st}, []sharma.Job{job},
			sharma.ExperimentConfig{Learner: expertdp.LearnerConfig{Hidden: []int{8}}, Batch: 8, Steps: 10, Seed: 1, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprintf("%+v", got[0]) != fmt.Sprintf("%+v", want[0]) {
			t.Errorf("sweep task\n  %+v\nnotebook job\n  %+v", got[0], want[0])
		}
		if o := got[0]; o.Accounting != expertdp.AccountingMixed || o.Private == 0 || o.Eps2Exact != o.Eps2 || o.PT <= 0 || o.CertDelta <= o.PT {
			t.Errorf("%s: not the compared runs' accounting: %+v", setting, o)
		}
	}
	p := sweep.Params{"env": "cartpole", "learner": "cql", "setting": "ours:10", "noise": "paper", "primary_noise": "calibrated"}
	if tk, err := sharmaParams(p); err != nil || tk.job.Tag != "fig3/alt" || tk.job.Noise != sharma.NoisePaper {
		t.Errorf("a paper-regime cell of a calibrated figure: %+v (%v), want tagged fig3/alt", tk, err)
	}

	// Ours at ε = 5 on CartPole is expert-level DP-SGD, and fallback:10 is ours:10 there: with
	// skip_duplicates they are left to the dpsgd:5 and ours:10 cells.
	p = sweep.Params{"env": "cartpole", "learner": "cql", "setting": "ours:5", "experts_total": int64(40), "bases": int64(2),
		"per_expert": int64(1), "steps": int64(10), "hidden": []any{int64(8)}, "batch": int64(8)}
	if r, err := SharmaJobs.Run(p, 1); err != nil || len(r) != 1 {
		t.Errorf("ours:5: %v %v", r, err)
	}
	p["skip_duplicates"] = true
	for setting, n := range map[string]int{"ours:5": 0, "fallback:10": 0, "ours:10": 1, "stableonly:10": 1} {
		p["setting"] = setting
		if r, err := SharmaJobs.Run(p, 1); err != nil || len(r) != n {
			t.Errorf("%s with skip_duplicates: %d rows (%v), want %d", setting, len(r), err, n)
		}
	}
}

func TestAdaptersRejectBadParams(t *testing.T) {
	for _, c := range []struct {
		exp  string
		p    sweep.Params
		want string
	}{
		{"xie2019/mspbe", sweep.Params{"domain": "grid", "n": int64(5), "epsilons": 1.0}, `params.domain = "grid" is not allowed: want {chain, mountaincar, mountaincar-off, hiv}`},
		{"xie2019/mspbe", sweep.Params{"domain": "chain", "epsilons": 1.0}, "params.n is missing"},
		{"xie2019/mspbe", sweep.Params{"domain": "hiv", "n": int64(2000), "epsilons": 1.0}, "params.n = 2000 is outside the allowed range [1, 600]"},
		{"wanghegde2019/returns", sweep.Params{"sigma": -1.0}, "params.sigma = -1 is outside the allowed range [0, ∞)"},
		{"wanghegde2019/returns", sweep.Params{"reset_every": int64(0)}, "params.reset_every = 0 is outside"},
		{"sharma/jobs", sweep.Params{"env": "cartpole", "setting": "ours"}, `params.setting = "ours" is not allowed: want {"nonprivate", "untrained", "ours:ε"`},
		{"sharma/jobs", sweep.Params{"env": "cartpole", "setting": "ours:5", "noise": "loud"}, `params.noise = "loud" is not allowed`},
		{"sharma/jobs", sweep.Params{"env": "cartpole", "setting": "dpsgd:-1"}, "params.setting ε = -1 is outside the allowed range (0, ∞)"},
		{"sharma/jobs", sweep.Params{"env": "cartpole", "setting": "nonprivate", "skip_duplicates": "yes"}, `params.skip_duplicates = "yes" is not allowed: want true or false`},
		{"sharma/jobs", sweep.Params{"env": "cartpole", "setting": "nonprivate", "experts": int64(100)}, "params.batch = 128 is outside the allowed range [1, 100] (a batch samples the job's m = 100 experts"},
		{"sharma/jobs", sweep.Params{"env": "cartpole", "setting": "dpsgd:5", "experts_total": int64(50), "batch": int64(64)}, "params.batch = 64 is outside the allowed range [1, 50]"},
		{"balle2016/rmse", sweep.Params{}, "params.m is missing"},
		{"balle2016/rmse", sweep.Params{"m": int64(5), "c": 1.0}, `params key = "c" is not allowed`},
	} {
		e, _ := sweep.Lookup(c.exp)
		err := e.(sweep.Validator).Validate(c.p)
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.As(err, new(*param.Error)) {
			t.Errorf("%s %v:\n  got  %v\n  want %q", c.exp, c.p, err, c.want)
		}
	}
}

// TestReaders: a merged table read back gives the reproduction packages' own results.
func TestReaders(t *testing.T) {
	plan := func(spec string) *experiment.Table {
		s, err := sweep.ParseSpec([]byte(spec))
		if err != nil {
			t.Fatal(err)
		}
		p, err := sweep.NewPlan(s)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		if err := p.RunAll(&b, sweep.RunOptions{}); err != nil {
			t.Fatal(err)
		}
		recs, err := csv.NewReader(strings.NewReader(b.String())).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		return &experiment.Table{Columns: recs[0], Rows: recs[1:]}
	}
	wt := plan(`{"name": "w", "experiment": "wanghegde2019/returns", "params": {"episodes": 4}, "grid": {"sigma": [0, 0.4]}, "seeds": {"first": 0, "count": 2}, "shard_size": 1}`)
	sub, err := sweep.Where(wt, map[string]string{"sigma": "0.4"})
	if err != nil {
		t.Fatal(err)
	}
	w, err := wanghegde2019.CurvesFromSweep(sub, wanghegde2019.ReturnColumn)
	if err != nil || len(w) != 2 || len(w[1]) != 4 {
		t.Fatalf("CurvesFromSweep: %v %v", w, err)
	}
	if _, err := wanghegde2019.CurvesFromSweep(wt, wanghegde2019.ReturnColumn); err == nil || !strings.Contains(err.Error(), "narrow with sweep.Where") {
		t.Errorf("two settings at once: %v", err)
	}
	if _, err := sweep.Where(wt, map[string]string{"sgima": "0"}); err == nil || !strings.Contains(err.Error(), `column = "sgima"`) {
		t.Errorf("Where on a missing column: %v", err)
	}
	xt := plan(`{"name": "x", "experiment": "xie2019/mspbe", "params": {"domain": "chain", "n": [60], "epsilons": [1], "steps": [0.01, 0.1], "tune_runs": 1}, "seeds": [9, 4], "shard_size": 1}`)
	xr, dom, err := xie2019.RowsFromSweep(xt, "chain")
	if err != nil || len(xr) != len(xt.Rows) || xr[0].Trial != 1 || xr[len(xr)-1].Trial != 0 || xr[0].Seed != 9 {
		t.Fatalf("RowsFromSweep: %v", err)
	}
	if dom.Name != "chain" || dom.Clip != 1 || dom.MomentTransitions != 0 || !(dom.MeanReward > 0) {
		t.Errorf("RowsFromSweep's domain: %+v", dom)
	}
	if c := xie2019.Curve(xr, xie2019.MethodGPOPE, 1, []float64{60}, func(r xie2019.Row) float64 { return float64(r.N) }); len(c) != 2 {
		t.Errorf("Curve over the read rows: %v", c)
	}
}

// TestPlanChecksEveryCell: plan refuses a spec one of whose grid cells an experiment would reject in every
// task on the cluster, naming the cell; checks across parameters included (a Sharma batch larger than the
// experts it samples from).
func TestPlanChecksEveryCell(t *testing.T) {
	s, err := sweep.ParseSpec([]byte(`{"name": "s", "experiment": "sharma/jobs", "params": {"env": "cartpole", "setting": "nonprivate", "batch": 256},
		"grid": {"experts": [1000, 200, 3000]}, "seeds": {"first": 0, "count": 10}, "shard_size": 1}`))
	if err != nil {
		t.Fatal(err)
	}
	_, err = sweep.NewPlan(s)
	if err == nil || !strings.Contains(err.Error(), "params.batch = 256 is outside the allowed range [1, 200]") || !strings.Contains(err.Error(), "(grid cell experts=200)") {
		t.Errorf("plan: %v", err)
	}
}
