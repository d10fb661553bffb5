package envs

import (
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// envVectors is ../shared/vectors/envs from the repository root, or $DPRL_ENV_VECTORS.
func envVectors() string {
	if p := os.Getenv("DPRL_ENV_VECTORS"); p != "" {
		return p
	}
	return "../../shared/vectors/envs"
}

// table is a CSV file with named columns.
type table struct {
	cols map[string]int
	rows [][]string
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
	tb := table{cols: map[string]int{}, rows: all[1:]}
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

// replaySpec says how to replay one family of reference files.
type replaySpec struct {
	env       func() Env
	state     []string // columns of the internal state, in State() order
	obs       []string // observation columns (nil: not recorded)
	absTol    float64  // on the state (absolute), or
	relTol    float64  // relative
	flags     bool     // terminated/truncated columns present
	rewardCol string
}

var classicSpecs = map[string]replaySpec{
	"cartpole": {env: func() Env { return must(Make("cartpole")) }, state: []string{"x", "x_dot", "theta", "theta_dot"},
		obs: []string{"obs_x", "obs_x_dot", "obs_theta", "obs_theta_dot"}, absTol: 1e-12, flags: true, rewardCol: "reward"},
	"mountaincar": {env: func() Env { return must(Make("mountaincar")) }, state: []string{"position", "velocity"},
		obs: []string{"obs_position", "obs_velocity"}, absTol: 1e-12, flags: true, rewardCol: "reward"},
	"acrobot": {env: func() Env { return must(Make("acrobot")) }, state: []string{"theta1", "theta2", "dtheta1", "dtheta2"},
		obs: []string{"obs_cos1", "obs_sin1", "obs_cos2", "obs_sin2", "obs_dtheta1", "obs_dtheta2"}, absTol: 1e-10, flags: true, rewardCol: "reward"},
	"hiv_dt5_random50_odeint": {env: func() Env { return NewHIV(HIVParams{DaysPerStep: 5}) }, state: hivCols,
		obs: hivLogCols, relTol: 1e-5, rewardCol: "reward_unscaled"},
	"hiv_dt5_random50_dop853": {env: func() Env { return NewHIV(HIVParams{DaysPerStep: 5}) }, state: hivCols,
		obs: hivLogCols, relTol: 1e-7, rewardCol: "reward_unscaled"},
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

func replayClassic(t *testing.T, path string, sp replaySpec) {
	tb := readTable(t, path)
	env := sp.env()
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
			if !obsMatch(res.Obs[i], want, math.Max(sp.absTol, sp.relTol*math.Abs(want))) {
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

// replayer returns the function that replays a file, chosen by its name, or nil.
func replayer(name string) func(t *testing.T, path string) {
	base := strings.TrimSuffix(name, filepath.Ext(name))
	switch {
	case base == "taxi_transition_table":
		return replayTaxiTable
	case base == "taxi_initial_states":
		return replayTaxiStarts
	case strings.HasPrefix(base, "taxi_"):
		return replayTaxi
	case strings.HasPrefix(base, "lunarlander_") && strings.HasSuffix(base, "_reset"):
		return nil // the companion of a lunarlander CSV, checked by replayLunarLander
	case strings.HasPrefix(base, "lunarlander_"):
		return replayLunarLander
	}
	for prefix, sp := range classicSpecs {
		if base == prefix || strings.HasPrefix(base, prefix+"_") {
			return func(t *testing.T, path string) { replayClassic(t, path, sp) }
		}
	}
	return nil
}

// TestReferenceVectorsEnvs replays every reference trajectory in the vectors folder, one subtest per file.
// A file that no replayer claims fails the test (README.txt describes the folder and a *_reset.json is read
// with its CSV).
func TestReferenceVectorsEnvs(t *testing.T) {
	dir := envVectors()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatalf("reference vectors: %v (set DPRL_ENV_VECTORS to the folder)", err)
	}
	n := 0
	for _, e := range entries {
		name := e.Name()
		if name == "README.txt" {
			continue
		}
		if strings.HasSuffix(name, "_reset.json") {
			csvName := strings.TrimSuffix(name, "_reset.json") + ".csv"
			if _, err := os.Stat(filepath.Join(dir, csvName)); err != nil {
				t.Errorf("%s has no trajectory %s to go with it", name, csvName)
			}
			continue
		}
		f := replayer(name)
		t.Run(strings.TrimSuffix(name, filepath.Ext(name)), func(t *testing.T) {
			if f == nil {
				t.Fatalf("no replayer for %s", name)
			}
			f(t, filepath.Join(dir, name))
		})
		n++
	}
	if n == 0 {
		t.Fatal("no reference files")
	}
}
