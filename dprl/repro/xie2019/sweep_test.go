package xie2019

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/dprl-project/dprl/dprl/experiment"
	"github.com/dprl-project/dprl/dprl/sweep"
)

// TestSweepConfig: the checked-in specs tune the step size as the paper protocol does (full size: 3 public
// samples over StepGrid, seed 2019) and run the figures' constants with at least 10 seeds; a spec with
// another grid, seed, δ or number of tuning samples is refused, naming the parameter (the last one not in
// quick mode, whose protocol tunes on one sample).
func TestSweepConfig(t *testing.T) {
	t.Setenv(experiment.QuickEnv, "")
	p := PaperProtocol()
	for _, name := range []string{SweepFig1a, SweepFig2_3, SweepFig4} {
		s, err := sweep.ReadSpec(filepath.Join("..", "..", "..", "sweeps", "specs", name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := checkSweepConfig(s, p); err != nil || s.Seeds.Len() < 10 {
			t.Errorf("%s: %v, %d seeds", name, err, s.Seeds.Len())
		}
	}
	for params, want := range map[string]string{
		`"steps": [0.1, 1]`:                             "params.steps = [0.1 1], but the protocol searches",
		`"tune_runs": 1`:                                "params.tune_runs = 1",
		`"tune_seed": 7`:                                "params.tune_seed = 7",
		`"delta": 0.001`:                                "params.delta = 0.001",
		`"lsl_c": 1`:                                    "params.lsl_c = 1",
		`"iterations_per_trajectory": 10`:               "params.iterations_per_trajectory = 10",
		`"tune_runs": 3, "balle_delta": 0.01`:           "params.balle_delta = 0.01",
		`"tune_runs": 3}, "grid": {"steps": [[1], [2]]`: "the grid varies steps",
	} {
		s, err := sweep.ParseSpec([]byte(`{"name": "x", "experiment": "xie2019/mspbe", "params": {` + params + `}, "seeds": [1], "shard_size": 1}`))
		if err != nil {
			t.Fatal(params, err)
		}
		if err := checkSweepConfig(s, p); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", params, err, want)
		}
	}
	t.Setenv(experiment.QuickEnv, "1")
	s, _ := sweep.ParseSpec([]byte(`{"name": "x", "experiment": "xie2019/mspbe", "params": {"tune_runs": 3}, "seeds": [1], "shard_size": 1}`))
	if err := checkSweepConfig(s, DefaultProtocol()); err != nil {
		t.Errorf("quick mode, 1 tuning sample against the sweep's 3: %v", err)
	}
}
