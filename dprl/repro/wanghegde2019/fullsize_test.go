package wanghegde2019_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/dprl-project/dprl/dprl/experiment"
	"github.com/dprl-project/dprl/dprl/report"
	"github.com/dprl-project/dprl/dprl/repro"
	"github.com/dprl-project/dprl/dprl/repro/claimtest"
	_ "github.com/dprl-project/dprl/dprl/repro/sweeps" // registers wanghegde2019/returns
	"github.com/dprl-project/dprl/dprl/repro/wanghegde2019"
	"github.com/dprl-project/dprl/dprl/sweep"
	"github.com/dprl-project/dprl/dprl/sweep/sweeptest"
)

// TestFig1FullSize: with both Fig. 1 sweeps merged, Fig1 runs nothing, says so, and draws its table and
// its claims from the merged rows (11 seeds here); without them it runs the default size, and with only
// one of the two it refuses.
func TestFig1FullSize(t *testing.T) {
	root := sweeptest.Root(t)

	rec := &report.Recorder{}
	if err := wanghegde2019.Fig1(rec, root, wanghegde2019.Protocol{Seeds: 2, Episodes: 2}); err != nil {
		t.Fatal(err)
	}
	if md := strings.Join(rec.Markdowns(), "\n"); strings.Count(md, "Default size") != 2 || strings.Contains(md, "Full size") || rec.Units != 9*2 {
		t.Fatalf("without sweeps: %d runs, notes %q", rec.Units, md)
	}

	const seeds, episodes = 11, 3
	a := sweeptest.Merge(t, fmt.Sprintf(`{"name": %q, "experiment": "wanghegde2019/returns", "params": {"reset_every": 1, "episodes": %d, "base_seed": 2019},
		"grid": {"sigma": [0, 0.2, 0.4, 0.6, 0.8, 1]}, "seeds": {"first": 0, "count": %d}, "shard_size": 15}`, wanghegde2019.SweepFig1a, episodes, seeds))
	if err := wanghegde2019.Fig1(&report.Recorder{}, root, wanghegde2019.Protocol{Seeds: 2, Episodes: 2}); err == nil || !strings.Contains(err.Error(), "only "+wanghegde2019.SweepFig1a+" is merged") {
		t.Errorf("one sweep of two: %v", err)
	}
	sweeptest.Merge(t, fmt.Sprintf(`{"name": %q, "experiment": "wanghegde2019/returns", "params": {"sigma": 0.4, "episodes": %d, "base_seed": 2019},
		"grid": {"reset_every": [1, 10, -1]}, "seeds": {"first": 0, "count": %d}, "shard_size": 15}`, wanghegde2019.SweepFig1b, episodes, seeds))

	rec = &report.Recorder{}
	if err := wanghegde2019.Fig1(rec, root, wanghegde2019.Protocol{Seeds: 2, Episodes: 2}); err != nil {
		t.Fatal(err)
	}
	md := strings.Join(rec.Markdowns(), "\n")
	if strings.Count(md, "**Full size:**") != 2 || strings.Contains(md, "Default size") || rec.Units != 0 {
		t.Errorf("with sweeps: %d runs, notes %q", rec.Units, md)
	}
	if !strings.Contains(md, fmt.Sprintf("Mean over %d seeds", seeds)) || !strings.Contains(md, fmt.Sprintf("s = 0 … %d runs every setting from rand.NewPCG(2019, s)", seeds-1)) {
		t.Errorf("seed caption: %q", md)
	}

	// The first table's σ = 0.2 row is the merged rows' first- and last-fifth means.
	r, ok, err := sweep.Load(a.Name)
	if !ok || err != nil {
		t.Fatal(ok, err)
	}
	cell, err := repro.SweepCell(r, map[string]string{"sigma": "0.2", "reset_every": "1"})
	if err != nil {
		t.Fatal(err)
	}
	curves, err := wanghegde2019.CurvesFromSweep(cell, wanghegde2019.ReturnColumn)
	if err != nil || len(curves) != seeds || len(curves[0]) != episodes {
		t.Fatalf("%d seeds read, %v", len(curves), err)
	}
	ci := func(x []float64) string {
		m, lo, hi := experiment.MeanCI(x, 0.95)
		return fmt.Sprintf("%.2f [%.2f, %.2f]", m, lo, hi)
	}
	first, last := make([]float64, seeds), make([]float64, seeds)
	for s, c := range curves {
		first[s], last[s] = c[0], c[2] // of three episodes the first fifth is episode 1, the last fifth episode 3

	}
	var table *report.Item
	for i := range rec.Items {
		if rec.Items[i].Header != nil {
			table = &rec.Items[i]
			break
		}
	}
	if table == nil || len(table.Rows) != 7 || table.Rows[1][2] != ci(first) || table.Rows[1][3] != ci(last) {
		t.Errorf("table %v, want σ = 0.2 at %s, %s", table, ci(first), ci(last))
	}

	claims := rec.ClaimRows()
	claimtest.Rows(t, claims)
	got := map[string]int{}
	for _, c := range claims {
		got[c.Key] = c.Seeds
	}
	for _, k := range []string{"f1", "f1-04", "f1-j"} {
		if got[k] != seeds {
			t.Errorf("claim %s rests on %d seeds, want the sweep's %d", k, got[k], seeds)
		}
	}
}
