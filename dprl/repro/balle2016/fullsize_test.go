package balle2016_test

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/dprl-project/dprl/dprl/experiment"
	"github.com/dprl-project/dprl/dprl/report"
	"github.com/dprl-project/dprl/dprl/repro/balle2016"
	"github.com/dprl-project/dprl/dprl/repro/claimtest"
	_ "github.com/dprl-project/dprl/dprl/repro/sweeps" // registers balle2016/rmse
	"github.com/dprl-project/dprl/dprl/sweep"
	"github.com/dprl-project/dprl/dprl/sweep/sweeptest"
)

// TestPanels34FromFullSizeSweep: with a merged balle2016-fig1 sweep (m = 100 and 200, 10 seeds) Panels34
// says so, runs nothing, and draws both panels and the six claims from the merged rows, over the sweep's
// batch sizes and seeds rather than the grid's; a claim recomputed from EstimatesFromSweep has the recorded
// interval. Without the merged result the grid's trials run.
func TestPanels34FromFullSizeSweep(t *testing.T) {
	root := sweeptest.Root(t)
	s := sweeptest.Merge(t, `{"name": "balle2016-fig1", "experiment": "balle2016/rmse", "grid": {"m": [100, 200]}, "seeds": {"first": 0, "count": 10}, "shard_size": 5}`)

	grid := balle2016.Grid{Trials: 3, M: []float64{100, 300}} // would show in the claims if it ran
	rec := &report.Recorder{}
	if err := balle2016.Panels34(rec, root, grid); err != nil {
		t.Fatal(err)
	}
	md := strings.Join(rec.Markdowns(), "\n")
	if !strings.Contains(md, "**Full size:**") || strings.Contains(md, "Default size") || !strings.Contains(md, "over the sweep's 10 seeds") {
		t.Errorf("notes %q", md)
	}
	if rec.Units != 0 || rec.Figures() != 2 {
		t.Errorf("%d progress units (a run), %d figures", rec.Units, rec.Figures())
	}
	claims := rec.ClaimRows()
	claimtest.Rows(t, claims)
	if len(claims) != 6 {
		t.Fatalf("claims %+v", claims)
	}
	for _, c := range claims {
		if c.Seeds != 10 || c.Verdict == "" || (strings.Contains(c.Why, "m = 300") || c.Key == "p3-large" && !strings.Contains(c.Why, "m = 200")) {
			t.Errorf("claim %+v", c)
		}
	}

	// p3-lsw from the merged rows: RMSE(DP-LSW)/RMSE(LSW), pairs, at m = 200, per seed.
	r, ok, err := sweep.Load(s.Name)
	if !ok || err != nil {
		t.Fatal(ok, err)
	}
	batches, err := balle2016.EstimatesFromSweep(r.Table)
	if err != nil || len(batches) != 20 {
		t.Fatalf("%d batches, %v", len(batches), err)
	}
	get := func(b balle2016.SweepBatch, est string) float64 {
		k := slices.IndexFunc(b.Estimates, func(e balle2016.Estimate) bool { return e.Estimator == est && e.Features == balle2016.FeaturesPairs })
		return b.Estimates[k].RMSE
	}
	ratio := make([]float64, 10)
	for _, b := range batches {
		if len(b.Estimates) != 10 {
			t.Fatalf("batch %+v", b)
		}
		if b.M == 200 {
			ratio[b.Trial] = get(b, balle2016.EstimatorDPLSW) / get(b, balle2016.EstimatorLSW)
		}
	}
	_, lo, hi := experiment.MeanCI(ratio, 0.95)
	if c := claims[0]; c.Key != "p3-lsw" || math.Abs(c.CILow-lo) > 1e-12 || math.Abs(c.CIHigh-hi) > 1e-12 {
		t.Errorf("claim %+v; from the merged rows [%v, %v]", c, lo, hi)
	}

	// No merged result: the grid's trials run.
	t.Setenv(sweep.SweepsEnv, t.TempDir())
	rec = &report.Recorder{}
	if err := balle2016.Panels34(rec, root, balle2016.Grid{Trials: 2, M: []float64{100, 200}}); err != nil {
		t.Fatal(err)
	}
	if md := strings.Join(rec.Markdowns(), "\n"); !strings.Contains(md, "Default size") || strings.Contains(md, "Full size") || rec.Units != 2 {
		t.Errorf("default size: %d units, notes %q", rec.Units, md)
	}
	claims = rec.ClaimRows()
	if claims[0].Seeds != 2 {
		t.Errorf("default size: claim %+v", claims[0])
	}
}
