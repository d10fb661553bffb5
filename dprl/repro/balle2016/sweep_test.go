package balle2016

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/dprl-project/dprl/dprl/sweep"
)

// TestSweepConfig: the checked-in balle2016-fig1 spec is Fig. 1's (a grid over m only, at least 10 seeds);
// a spec with a parameter, a grid over anything else or no grid over m is refused, naming it.
func TestSweepConfig(t *testing.T) {
	s, err := sweep.ReadSpec(filepath.Join("..", "..", "..", "sweeps", "specs", SweepFig1+".json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := checkSweepConfig(s); err != nil || s.Seeds.Len() < 10 {
		t.Errorf("checked-in spec: %v, %d seeds", err, s.Seeds.Len())
	}
	for spec, want := range map[string]string{
		`"params": {"c": 10}, "grid": {"m": [100]}`: "params.c is set",
		`"grid": {"m": [100], "epsilon": [0.1, 1]}`: "the grid varies epsilon",
		`"params": {"m": 100}`:                      "m is not a grid axis",
	} {
		s, err := sweep.ParseSpec([]byte(`{"name": "b", "experiment": "balle2016/rmse", ` + spec + `, "seeds": [1], "shard_size": 1}`))
		if err != nil {
			t.Fatal(err)
		}
		if err := checkSweepConfig(s); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", spec, err, want)
		}
	}
}
