package repro_test

import (
	"strings"
	"testing"

	"github.com/dprl-project/dprl/dprl/repro"
	"github.com/dprl-project/dprl/dprl/sweep"
	"github.com/dprl-project/dprl/dprl/sweep/sweeptest"
)

// TestSweepCell: a grid key selects rows, a fixed parameter must match, anything else is refused.
func TestSweepCell(t *testing.T) {
	sweeptest.Root(t)
	sweeptest.Merge(t, `{"name": "cell", "experiment": "repro/test-square", "params": {"k": 0.5}, "grid": {"x": [1, 2]},
		"seeds": {"first": 0, "count": 3}, "shard_size": 2}`)
	r, ok, err := sweep.Load("cell")
	if !ok || err != nil {
		t.Fatal(ok, err)
	}
	c, err := repro.SweepCell(r, map[string]string{"x": "2", "k": "0.5"})
	if err != nil || len(c.Rows) != 3 || c.Rows[0][2] != "4" {
		t.Fatalf("x = 2: %v %v", c, err)
	}
	for _, bad := range []struct {
		want map[string]string
		err  string
	}{
		{map[string]string{"x": "3"}, "no rows with map[x:3]"},
		{map[string]string{"k": "1"}, "ran with k = 0.5; the figure needs k = 1"},
		{map[string]string{"z": "1"}, "sets no z"},
	} {
		if _, err := repro.SweepCell(r, bad.want); err == nil || !strings.Contains(err.Error(), bad.err) {
			t.Errorf("%v: %v, want %q", bad.want, err, bad.err)
		}
	}
	if v, err := repro.SweepParam(r, "k", "9"); v != "0.5" || err != nil {
		t.Errorf("k: %q %v", v, err)
	}
	if v, err := repro.SweepParam(r, "q", "9"); v != "9" || err != nil {
		t.Errorf("unset q: %q %v", v, err)
	}
	if _, err := repro.SweepParam(r, "x", "1"); err == nil {
		t.Error("a grid key has no single value")
	}
}
