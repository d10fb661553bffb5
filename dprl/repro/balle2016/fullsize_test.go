package balle2016_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/dprl-project/dprl/dprl/report"
	"github.com/dprl-project/dprl/dprl/repro/balle2016"
	"github.com/dprl-project/dprl/dprl/repro/claimtest"
	_ "github.com/dprl-project/dprl/dprl/repro/sweeps" // registers balle2016/rmse
	"github.com/dprl-project/dprl/dprl/sweep"
	"github.com/dprl-project/dprl/dprl/sweep/sweeptest"
)

// TestFig1DataFromFullSizeSweep: with a merged balle2016-fig1 sweep (m = 100 and 200, 10 seeds) Fig1Data
// says so, runs nothing, and its data are the merged rows, over the sweep's batch sizes and seeds rather
// than the grid's; the claims drawn from them are complete rows over 10 seeds. Without the merged result the
// grid's trials run. A spec that varies anything but m is refused.
func TestFig1DataFromFullSizeSweep(t *testing.T) {
	root := sweeptest.Root(t)
	sweeptest.Merge(t, `{"name": "balle2016-fig1", "experiment": "balle2016/rmse", "grid": {"m": [100, 200]}, "seeds": {"first": 0, "count": 10}, "shard_size": 5}`)

	grid := balle2016.Grid{Trials: 3, M: []float64{100, 300}} // would show in the data if it ran
	rec := &report.Recorder{}
	d, err := balle2016.Fig1Data(rec, root, grid)
	if err != nil {
		t.Fatal(err)
	}
	md := strings.Join(rec.Markdowns(), "\n")
	if !strings.Contains(md, "**Full size:**") || strings.Contains(md, "Default size") || rec.Units != 0 {
		t.Errorf("notes %q, %d progress units (a run)", md, rec.Units)
	}
	if !slices.Equal(d.M, []float64{100, 200}) || len(d.Seeds) != 10 || !strings.Contains(d.Source, "PCG(s, m), s = 0 … 9") {
		t.Errorf("m %v, %d seeds, source %q", d.M, len(d.Seeds), d.Source)
	}
	sel, err := balle2016.RunData(balle2016.Grid{Trials: 2, M: []float64{100, 200}}, balle2016.SelectionSeed, nil)
	if err != nil {
		t.Fatal(err)
	}
	ch, err := balle2016.Choose(sel)
	if err != nil {
		t.Fatal(err)
	}
	if err := balle2016.Claims(rec, d, ch); err != nil {
		t.Fatal(err)
	}
	claims := rec.ClaimRows()
	claimtest.Strict(t, claims)
	for _, c := range claims {
		if c.Seeds != 10 || !strings.Contains(c.Why+c.Claim, "m = 200") && !strings.Contains(c.Why, "m = 100") {
			t.Errorf("claim %s: %d seeds, %q", c.Key, c.Seeds, c.Why)
		}
	}

	// No merged result: the grid's trials run.
	t.Setenv(sweep.SweepsEnv, t.TempDir())
	rec = &report.Recorder{}
	d, err = balle2016.Fig1Data(rec, root, balle2016.Grid{Trials: 2, M: []float64{100, 200}})
	if err != nil {
		t.Fatal(err)
	}
	if md := strings.Join(rec.Markdowns(), "\n"); !strings.Contains(md, "Default size") || rec.Units != 2 || len(d.Seeds) != 2 {
		t.Errorf("default size: %d units, %d seeds, notes %q", rec.Units, len(d.Seeds), md)
	}
}
