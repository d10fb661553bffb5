package experiment

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/dprl-project/dprl/dprl/param"
)

// TestTrialsRecoversPanics: a panic in one trial used to kill the process (the notebook kernel); now it is a
// *TrialError naming the trial and its seed, the same whatever the number of workers.
func TestTrialsRecoversPanics(t *testing.T) {
	f := func(i int, src rand.Source) (float64, error) {
		x := rand.New(src).Float64()
		if i == 7 || i == 12 {
			var s []int
			_ = s[i] // an index out of range: a runtime panic
		}
		if i == 9 {
			panic("deliberate")
		}
		return x, nil
	}
	for _, workers := range []int{1, 2, 8} {
		res, err := Trials(20, workers, 42, nil, f)
		var te *TrialError
		if !errors.As(err, &te) || te.Trial != 7 || te.Seed != 42 || te.Panic == nil || len(te.Stack) == 0 {
			t.Fatalf("workers %d: error %v, want a recovered panic of trial 7", workers, err)
		}
		if msg := err.Error(); !strings.Contains(msg, "trial 7 (seed 42, stream rand.NewPCG(42, 7)) panicked: ") ||
			!strings.Contains(msg, "index out of range") {
			t.Errorf("workers %d: message %q", workers, msg)
		}
		// Trials before the failure ran with their own streams.
		for i := range 7 {
			if want := rand.New(rand.NewPCG(42, uint64(i))).Float64(); res[i] != want {
				t.Errorf("workers %d: trial %d = %g, want %g", workers, i, res[i], want)
			}
		}
	}
	_, err := Trials(10, 3, 5, nil, func(i int, _ rand.Source) (int, error) {
		if i == 9 {
			panic(errTest)
		}
		return i, nil
	})
	if !errors.Is(err, errTest) || !strings.Contains(err.Error(), "trial 9 (seed 5") {
		t.Errorf("a panic with an error value: %v", err)
	}
}

// TestTrialsReportsTheLowestFailingTrial: with many workers the error is the same as with one.
func TestTrialsReportsTheLowestFailingTrial(t *testing.T) {
	for _, workers := range []int{1, 3, 16} {
		var ran atomic.Int64
		_, err := Trials(100, workers, 1, nil, func(i int, _ rand.Source) (int, error) {
			ran.Add(1)
			if i >= 30 && i%5 == 0 {
				return 0, errTest
			}
			return i, nil
		})
		var te *TrialError
		if !errors.As(err, &te) || te.Trial != 30 || !errors.Is(err, errTest) {
			t.Errorf("workers %d: %v, want trial 30's error", workers, err)
		}
		if ran.Load() >= 100 {
			t.Errorf("workers %d: the failure did not stop the remaining trials", workers)
		}
	}
}

func TestTrialsRejectsBadArguments(t *testing.T) {
	ok := func(i int, _ rand.Source) (int, error) { return i, nil }
	for _, c := range []struct {
		n, workers int
		f          func(int, rand.Source) (int, error)
		param      string
	}{{-1, 0, ok, "n = -1"}, {3, -2, ok, "workers = -2"}, {3, 1, nil, "trial"}} {
		_, err := Trials(c.n, c.workers, 0, nil, c.f)
		var pe *param.Error
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), c.param) {
			t.Errorf("%+v: %v", c, err)
		}
	}
	if res, err := Trials(0, 0, 0, nil, ok); err != nil || len(res) != 0 {
		t.Errorf("no trials: %v %v", res, err)
	}
}

func TestTableRejectsRaggedRows(t *testing.T) {
	tb := Table{Columns: []string{"x", "y"}}
	tb.Add(1.0, 2.0)
	tb.Add(3.0)
	var b strings.Builder
	if err := tb.WriteCSV(&b); err == nil || !strings.Contains(err.Error(), "Rows[1] = 1") || b.Len() != 0 {
		t.Errorf("ragged table: %v, wrote %q", err, b.String())
	}
	if err := (&Table{}).WriteCSV(&b); err == nil || !strings.Contains(err.Error(), "Columns") {
		t.Errorf("no columns: %v", err)
	}
}

// TestGatherIgnoresNegativeTrials: a negative trial index used to panic with an index out of range.
func TestGatherIgnoresNegativeTrials(t *testing.T) {
	rows := []int{-1, 0, 1}
	g := Gather(rows, []float64{0}, func(r int) int { return r }, func(int) float64 { return 0 },
		func(r int) (float64, bool) { return float64(r), true })
	if len(g) != 2 || g[0][0] != 0 || g[1][0] != 1 {
		t.Errorf("Gather = %v", g)
	}
}

func TestTrialsAndTable(t *testing.T) {
	f := func(i int, src rand.Source) (float64, error) { return rand.New(src).Float64() + float64(i), nil }
	a, _ := Trials(50, 1, 9, nil, f)
	b, _ := Trials(50, 4, 9, nil, f)
	for i := range a {
		if a[i] != b[i] || int(a[i]) != i {
			t.Fatalf("trial %d: %g with 1 worker, %g with 4", i, a[i], b[i])
		}
	}
	if _, err := Trials(5, 2, 1, nil, func(i int, _ rand.Source) (int, error) {
		if i == 3 {
			return 0, errTest
		}
		return i, nil
	}); err == nil || !strings.Contains(err.Error(), "trial 3") {
		t.Errorf("error %v, want it to name trial 3", err)
	}
	var tb Table
	tb.Columns = []string{"x", "y"}
	tb.Add(1.5, "a")
	var buf bytes.Buffer
	tb.WriteCSV(&buf)
	if buf.String() != "x,y\n1.5,a\n" {
		t.Errorf("csv %q", buf.String())
	}
}

var errTest = &testErr{}

type testErr struct{}

func (*testErr) Error() string { return "boom" }
