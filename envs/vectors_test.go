package envs

import (
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// envVectors is testdata/vectors (a copy of the project's reference trajectories), or $DPRL_ENV_VECTORS.
func envVectors() string {
	if p := os.Getenv("DPRL_ENV_VECTORS"); p != "" {
		return p
	}
	return "testdata/vectors"
}

// table is a CSV file with named columns.
type table struct {
	header []string
	cols   map[string]int
	rows   [][]string
}

func readTable(t *testing.T, path string) table {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	all, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if len(all) < 2 {
		t.Fatalf("%s: no rows", path)
	}
	tb := table{header: all[0], cols: map[string]int{}, rows: all[1:]}
	for i, c := range all[0] {
		tb.cols[c] = i
	}
	return tb
}

func (tb table) has(col string) bool { _, ok := tb.cols[col]; return ok }

func (tb table) f(t *testing.T, row int, col string) float64 {
	t.Helper()
	i, ok := tb.cols[col]
	if !ok {
		t.Fatalf("no column %q", col)
	}
	v, err := strconv.ParseFloat(tb.rows[row][i], 64)
	if err != nil {
		t.Fatalf("row %d column %s: %v", row, col, err)
	}
	return v
}

func (tb table) fs(t *testing.T, row int, cols []string) []float64 {
	out := make([]float64, len(cols))
	for i, c := range cols {
		out[i] = tb.f(t, row, c)
	}
	return out
}

func (tb table) flag(t *testing.T, row int, col string) bool { return tb.f(t, row, col) != 0 }

// replaySpec says how to replay one reference trajectory of a classic-control or HIV environment.
type replaySpec struct {
	env       Env
	state     []string // columns of the internal state, in State() order
	obs       []string // observation columns (nil: not recorded)
	logObs    bool     // the observation columns hold log10 of the state
	absTol    float64  // on the state (absolute), or
	relTol    float64  // relative
	flags     bool     // terminated/truncated columns present
	rewardCol string
}

// classicColumns identifies a classic-control trajectory by its state columns.
var classicColumns = []struct {
	name  string
	state []string
	obs   []string
	tol   float64 // absolute, on the state
}{
	{"cartpole", []string{"x", "x_dot", "theta", "theta_dot"}, []string{"obs_x", "obs_x_dot", "obs_theta", "obs_theta_dot"}, 1e-12},
	{"mountaincar", []string{"position", "velocity"}, []string{"obs_position", "obs_velocity"}, 1e-12},
	{"acrobot", []string{"theta1", "theta2", "dtheta1", "dtheta2"}, []string{"obs_cos1", "obs_sin1", "obs_cos2", "obs_sin2", "obs_dtheta1", "obs_dtheta2"}, 1e-10},
}

// hivMeta is what a HIV trajectory states about how it was recorded: from the optional companion
// <name>.json, else from the file name's tokens as the vectors' format defines them (dt<days> for the
// days per step; odeint or dop853 for the integrator that recorded it).
type hivMeta struct {
	DaysPerStep float64      `json:"days_per_step"`
	Integrator  string       `json:"integrator"`
	Actions     [][2]float64 `json:"actions"`
}

// hivTolerance is the relative tolerance against each recording integrator: LSODA at rtol = atol = 1.49e−8
// (scipy's odeint) and DOP853 at rtol 1e−12.
var hivTolerance = map[string]float64{"odeint": 1e-5, "dop853": 1e-7}

func readHIVMeta(t *testing.T, path string) hivMeta {
	t.Helper()
	var m hivMeta
	if raw, err := os.ReadFile(strings.TrimSuffix(path, filepath.Ext(path)) + ".json"); err == nil {
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatalf("%s metadata: %v", path, err)
		}
	}
	for _, tok := range strings.Split(strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)), "_") {
		if d, ok := strings.CutPrefix(tok, "dt"); ok && m.DaysPerStep == 0 {
			if v, err := strconv.ParseFloat(d, 64); err == nil {
				m.DaysPerStep = v
			}
		}
		if _, ok := hivTolerance[tok]; ok && m.Integrator == "" {
			m.Integrator = tok
		}
	}
	if m.DaysPerStep <= 0 {
		t.Fatalf("%s: no days per step (a dt<days> token in the name or days_per_step in its .json)", path)
	}
	if _, ok := hivTolerance[m.Integrator]; !ok {
		t.Fatalf("%s: integrator %q unknown (want odeint or dop853, in the name or its .json)", path, m.Integrator)
	}
	if m.Actions != nil && !slices.Equal(m.Actions, HIVActions[:]) {
		t.Fatalf("%s: recorded with action set %v; envs.HIV has %v", path, m.Actions, HIVActions)
	}
	return m
}

// specFor recognises a trajectory by its columns; ok is false for other files.
func specFor(t *testing.T, path string, tb table) (replaySpec, bool) {
	for _, c := range classicColumns {
		if tb.hasAll(c.state) {
			env, err := Make(c.name)
			if err != nil {
				t.Fatal(err)
			}
			return replaySpec{env: env, state: c.state, obs: c.obs, absTol: c.tol, flags: true, rewardCol: "reward"}, true
		}
	}
	if tb.hasAll(hivCols) {
		m := readHIVMeta(t, path)
		sp := replaySpec{env: NewHIV(HIVParams{DaysPerStep: m.DaysPerStep}), state: hivCols, relTol: hivTolerance[m.Integrator],
			rewardCol: "reward_unscaled", flags: tb.has("terminated")}
		if tb.hasAll(hivLogCols) {
			sp.obs, sp.logObs = hivLogCols, true
		}
		return sp, true
	}
	return replaySpec{}, false
}

func (tb table) hasAll(cols []string) bool {
	for _, c := range cols {
		if !tb.has(c) {
			return false
		}
	}
	return true
}

var (
	hivCols    = []string{"T1", "T2", "T1s", "T2s", "V", "E"}
	hivLogCols = []string{"log10_T1", "log10_T2", "log10_T1s", "log10_T2s", "log10_V", "log10_E"}
)

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// sameWithin reports whether got matches want within abs (or rel·|want| when rel > 0).
func sameWithin(got, want, abs, rel float64) bool {
	tol := abs
	if rel > 0 {
		tol = rel * math.Max(math.Abs(want), 1e-300)
	}
	return math.Abs(got-want) <= tol
}

// obsMatch compares a float32 observation: within two float32 ulps, or the state tolerance.
func obsMatch(got, want, stateTol float64) bool {
	ulp := 2 * math.Abs(want) * 1.2e-7
	return math.Abs(got-want) <= math.Max(ulp, stateTol) || (got == 0 && want == 0)
}

func replayClassic(t *testing.T, tb table, sp replaySpec) {
	env := sp.env
	if err := env.SetState(tb.fs(t, 0, sp.state)); err != nil {
		t.Fatal(err)
	}
	for r := 1; r < len(tb.rows); r++ {
		a := int(tb.f(t, r, "action"))
		res, err := env.Step(a)
		if err != nil {
			t.Fatalf("step %d: %v", r, err)
		}
		got := env.State()
		for i, c := range sp.state {
			want := tb.f(t, r, c)
			if !sameWithin(got[i], want, sp.absTol, sp.relTol) {
				t.Fatalf("step %d: %s = %.17g, want %.17g", r, c, got[i], want)
			}
		}
		for i, c := range sp.obs {
			want := tb.f(t, r, c)
			// Compare on the scale the column is stored: a relative error ρ in the state is an absolute error
			// ρ/ln 10 in its log10, whatever the log's size (log10 V is near 0 when V is near 1).
			tol := math.Max(sp.absTol, sp.relTol*math.Abs(want))
			if sp.logObs {
				tol = sp.relTol / math.Ln10
			}
			if !obsMatch(res.Obs[i], want, tol) {
				t.Fatalf("step %d: %s = %.17g, want %.17g", r, c, res.Obs[i], want)
			}
		}
		if want := tb.f(t, r, sp.rewardCol); !sameWithin(res.Reward, want, 1e-12, sp.relTol) {
			t.Fatalf("step %d: reward %.17g, want %.17g", r, res.Reward, want)
		}
		if sp.flags && (res.Terminated != tb.flag(t, r, "terminated") || res.Truncated != tb.flag(t, r, "truncated")) {
			t.Fatalf("step %d: terminated, truncated = %v, %v; want %v, %v", r, res.Terminated, res.Truncated,
				tb.flag(t, r, "terminated"), tb.flag(t, r, "truncated"))
		}
	}
}

func replayTaxi(t *testing.T, path string) {
	tb := readTable(t, path)
	env := must(Make("taxi"))
	if err := env.SetState([]float64{tb.f(t, 0, "state")}); err != nil {
		t.Fatal(err)
	}
	checkMask := func(r int, s int) {
		m := TaxiActionMask(s)
		var b strings.Builder
		for _, on := range m {
			if on {
				b.WriteByte('1')
			} else {
				b.WriteByte('0')
			}
		}
		if want := tb.rows[r][tb.cols["action_mask"]]; b.String() != want {
			t.Fatalf("row %d: action mask %s, want %s", r, b.String(), want)
		}
	}
	checkMask(0, int(tb.f(t, 0, "state")))
	for r := 1; r < len(tb.rows); r++ {
		res, err := env.Step(int(tb.f(t, r, "action")))
		if err != nil {
			t.Fatal(err)
		}
		s := int(res.Obs[0])
		row, col, pass, dest := TaxiDecode(s)
		want := []float64{tb.f(t, r, "state"), tb.f(t, r, "taxi_row"), tb.f(t, r, "taxi_col"), tb.f(t, r, "pass_loc"), tb.f(t, r, "dest_idx"), tb.f(t, r, "reward")}
		got := []float64{float64(s), float64(row), float64(col), float64(pass), float64(dest), res.Reward}
		if !slices.Equal(got, want) || res.Terminated != tb.flag(t, r, "terminated") || res.Truncated != tb.flag(t, r, "truncated") {
			t.Fatalf("step %d: got %v %v %v, want %v", r, got, res.Terminated, res.Truncated, want)
		}
		checkMask(r, s)
	}
}

func replayTaxiTable(t *testing.T, path string) {
	tb := readTable(t, path)
	if len(tb.rows) != 3000 {
		t.Fatalf("%d transitions, want 3000", len(tb.rows))
	}
	for r := range tb.rows {
		next, rew, term := TaxiTransition(int(tb.f(t, r, "state")), int(tb.f(t, r, "action")))
		if float64(next) != tb.f(t, r, "next_state") || rew != tb.f(t, r, "reward") || term != tb.flag(t, r, "terminated") {
			t.Fatalf("row %d: (%d, %v, %v), want %v", r+2, next, rew, term, tb.rows[r])
		}
	}
}

func replayTaxiStarts(t *testing.T, path string) {
	tb := readTable(t, path)
	var want []int
	for r := range tb.rows {
		want = append(want, int(tb.f(t, r, "state")))
	}
	slices.Sort(want)
	if got := TaxiInitialStates(); !slices.Equal(got, want) {
		t.Fatalf("%d start states, want the file's %d", len(got), len(want))
	}
}

// replayer returns the function that replays a file, chosen by its columns (and, for LunarLander, its
// companion <name>_reset.json), or nil for a file in no known format.
func replayer(t *testing.T, path string) func(t *testing.T, path string) {
	tb := readTable(t, path)
	switch {
	case tb.hasAll([]string{"state", "action", "next_state", "reward", "terminated"}):
		return replayTaxiTable
	case len(tb.header) == 1 && tb.has("state"):
		return replayTaxiStarts
	case tb.hasAll([]string{"state", "taxi_row", "taxi_col", "pass_loc", "dest_idx"}):
		return replayTaxi
	case tb.hasAll([]string{"body_x", "body_y", "dispersion0_raw_uniform"}):
		return replayLunarLander
	}
	if sp, ok := specFor(t, path, tb); ok {
		return func(t *testing.T, path string) { replayClassic(t, tb, sp) }
	}
	return nil
}

// TestReferenceVectorsEnvs replays every reference trajectory in the vectors folder, one subtest per file.
// A file that no replayer claims fails the test (README.txt describes the folder and a *_reset.json is read
// with its CSV).
func TestReferenceVectorsEnvs(t *testing.T) { replayDir(t, envVectors()) }

// TestReplayerReadsTheFile: the replayer picks the environment from a file's columns and a HIV run's days
// per step and integrator from its metadata, not from known file names: renamed copies of the vectors, a HIV
// one with a companion .json instead of name tokens, replay the same.
func TestReplayerReadsTheFile(t *testing.T) {
	dir := t.TempDir()
	copyFile := func(from, to string) {
		raw, err := os.ReadFile(filepath.Join(envVectors(), from))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, to), raw, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	copyFile("cartpole_seed123_balance.csv", "pole_run.csv")
	copyFile("acrobot_seed5_cyclic.csv", "swing.csv")
	copyFile("taxi_seed123_random50.csv", "cab.csv")
	copyFile("lunarlander_seed42_heuristic.csv", "moon.csv")
	copyFile("lunarlander_seed42_heuristic_reset.json", "moon_reset.json")
	copyFile("hiv_dt5_random50_dop853.csv", "patient.csv")
	if err := os.WriteFile(filepath.Join(dir, "patient.json"),
		[]byte(`{"days_per_step": 5, "integrator": "dop853", "actions": [[0, 0], [0.7, 0], [0, 0.3], [0.7, 0.3]]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	replayDir(t, dir)
}

func replayDir(t *testing.T, dir string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatalf("reference vectors: %v (set DPRL_ENV_VECTORS to the folder)", err)
	}
	n := 0
	for _, e := range entries {
		name := e.Name()
		if filepath.Ext(name) != ".csv" {
			// Metadata (README, a LunarLander <name>_reset.json, a HIV <name>.json) belongs to a CSV.
			base := strings.TrimSuffix(strings.TrimSuffix(name, filepath.Ext(name)), "_reset")
			if _, err := os.Stat(filepath.Join(dir, base+".csv")); filepath.Ext(name) == ".json" && err != nil {
				t.Errorf("%s has no trajectory %s.csv to go with it", name, base)
			}
			continue
		}
		t.Run(strings.TrimSuffix(name, filepath.Ext(name)), func(t *testing.T) {
			path := filepath.Join(dir, name)
			f := replayer(t, path)
			if f == nil {
				t.Fatalf("no replayer recognises the columns of %s", name)
			}
			f(t, path)
		})
		n++
	}
	if n == 0 {
		t.Fatal("no reference files")
	}
}
