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

// TestFig1FullSize: with both Fig. 1 sweeps merged, CurvesData runs none of Fig. 1, says so, and Fig. 1's
// table and claims come from the merged rows (11 seeds here), while Fig. 2 runs at the protocol's size;
// without them Fig. 1 runs too, and with only one of the two it refuses.
func TestFig1FullSize(t *testing.T) {
	root := sweeptest.Root(t)
	sel, err := wanghegde2019.RunSelection(report.Discard, []wanghegde2019.Alg1Config{{B: 512, LR: 0.01, Gamma: 0.5}}, 2)
	if err != nil {
		t.Fatal(err)
	}
	ch, err := wanghegde2019.Choose(sel)
	if err != nil {
		t.Fatal(err)
	}
	p := wanghegde2019.Protocol{Seeds: 2, Episodes: 3}

	rec := &report.Recorder{}
	c, err := wanghegde2019.CurvesData(rec, root, p, ch)
	if err != nil {
		t.Fatal(err)
	}
	all := len(c.Fig1.Settings) + len(c.Fig2.Settings) - 2
	if md := strings.Join(rec.Markdowns(), "\n"); strings.Count(md, "Default size") != 2 || strings.Contains(md, "Full size") || rec.Units != all*p.Seeds {
		t.Fatalf("without sweeps: %d runs, notes %q", rec.Units, md)
	}

	const seeds, episodes = 11, 3
	a := sweeptest.Merge(t, fmt.Sprintf(`{"name": %q, "experiment": "wanghegde2019/returns", "params": {"reset_every": 1, "episodes": %d, "base_seed": 2019},
		"grid": {"sigma": [0, 0.2, 0.4, 0.6, 0.8, 1]}, "seeds": {"first": 0, "count": %d}, "shard_size": 15}`, wanghegde2019.SweepFig1a, episodes, seeds))
	if _, err := wanghegde2019.CurvesData(&report.Recorder{}, root, p, ch); err == nil || !strings.Contains(err.Error(), "only "+wanghegde2019.SweepFig1a+" is merged") {
		t.Errorf("one sweep of two: %v", err)
	}
	sweeptest.Merge(t, fmt.Sprintf(`{"name": %q, "experiment": "wanghegde2019/returns", "params": {"sigma": 0.4, "episodes": %d, "base_seed": 2019},
		"grid": {"reset_every": [1, 10, -1]}, "seeds": {"first": 0, "count": %d}, "shard_size": 15}`, wanghegde2019.SweepFig1b, episodes, seeds))

	rec = &report.Recorder{}
	if c, err = wanghegde2019.CurvesData(rec, root, p, ch); err != nil {
		t.Fatal(err)
	}
	md := strings.Join(rec.Markdowns(), "\n")
	fig1 := len(c.Fig1.Settings)
	if strings.Count(md, "**Full size:**") != 2 || strings.Contains(md, "Default size") || rec.Units != (all-fig1+2)*p.Seeds {
		t.Errorf("with sweeps: %d runs, notes %q", rec.Units, md)
	}
	f, err := wanghegde2019.Fig1a(c)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(f.Note, fmt.Sprintf("Mean over %d seeds", seeds)) || !strings.Contains(f.Note, fmt.Sprintf("s = 0 … %d runs every setting from rand.NewPCG(2019, s)", seeds-1)) ||
		!strings.Contains(f.Note, "merged full-size sweeps") || !strings.Contains(f.Note, "Diverged runs") || strings.Contains(f.Note, "not recorded") {
		t.Errorf("Fig. 1(a) note: %q", f.Note)
	}

	// The table's σ = 0.2 row is the merged rows' first- and last-fifth means.
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
	_, rows, err := wanghegde2019.Fig1Table(c)
	if err != nil || len(rows) != 9 || rows[1][0] != "σ = 0.2" || rows[1][2] != ci(first) || rows[1][3] != ci(last) {
		t.Errorf("table %v (%v), want σ = 0.2 at %s, %s", rows, err, ci(first), ci(last))
	}

	if err := wanghegde2019.Claims(rec, c); err != nil {
		t.Fatal(err)
	}
	claims := rec.ClaimRows()
	claimtest.Strict(t, claims)
	got := map[string]int{}
	for _, c := range claims {
		got[c.Key] = c.Seeds
	}
	for k, n := range map[string]int{"f1-samples": seeds, "f1": seeds, "f1-04": seeds, "f1-j": seeds, "f2-0.9-ip": p.Seeds} {
		if got[k] != n {
			t.Errorf("claim %s rests on %d seeds, want %d", k, got[k], n)
		}
	}
}
