package balle2016

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/dprl-project/dprl/dprl/sweep"
)

// TestSweepConfig: the checked-in balle2016-fig1 spec runs Panels34's configuration; a spec with another
// c, a grid over ε or no grid over m is refused, naming the parameter.
func TestSweepConfig(t *testing.T) {
	s, err := sweep.ReadSpec(filepath.Join("..", "..", "..", "sweeps", "specs", SweepFig1+".json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := checkSweepConfig(s); err != nil || s.Seeds.Len() < 10 {
		t.Errorf("checked-in spec: %v, %d seeds", err, s.Seeds.Len())
	}
	for spec, want := range map[string]string{
		`"params": {"c": 10}, "grid": {"m": [100]}`:            "params.c = 10, Panels34 runs with 100",
		`"grid": {"m": [100], "epsilon": [0.1, 1]}`:            "the grid varies epsilon",
		`"params": {"m": 100}`:                                 "m is not a grid axis",
		`"params": {"f": 1, "delta": 0.1}, "grid": {"m": [5]}`: "params.f = 1",
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
