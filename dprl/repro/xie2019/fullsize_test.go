package xie2019_test

import (
	"math"
	"strings"
	"testing"

	"gonum.org/v1/plot"

	"github.com/dprl-project/dprl/dprl/experiment"
	"github.com/dprl-project/dprl/dprl/report"
	"github.com/dprl-project/dprl/dprl/repro/claimtest"
	_ "github.com/dprl-project/dprl/dprl/repro/sweeps" // registers xie2019/mspbe
	"github.com/dprl-project/dprl/dprl/repro/xie2019"
	"github.com/dprl-project/dprl/dprl/sweep"
	"github.com/dprl-project/dprl/dprl/sweep/sweeptest"
)

// runTinySweep runs and merges spec under its name (sweeptest.Merge) and returns the merged table.
func runTinySweep(t *testing.T, spec string) *experiment.Table {
	t.Helper()
	s := sweeptest.Merge(t, spec)
	r, ok, err := sweep.Load(s.Name)
	if !ok || err != nil {
		t.Fatalf("load %s: %v %v", s.Name, ok, err)
	}
	return r.Table
}

// tinyProtocol searches the tiny sweeps' step grid; its 3 trials would show in the claims if it ran.
var tinyProtocol = xie2019.Protocol{Trials: 3, TuneRuns: 1, Steps: []float64{0.01, 0.1}}

// TestFiguresFromFullSizeSweeps: with a merged sweep under each figure's spec name (tiny grids of 10 seeds,
// n and ε as small as the accountant allows) the data functions say so, run nothing, and give the merged
// rows as the figure's table: the plots and claims drawn from it rest on the sweep's 10 seeds (not the
// protocol's 3 trials), and a claim recomputed from RowsFromSweep has the recorded interval. A protocol
// whose step grid differs from the sweep's is refused; without the merged result the figure runs its
// default size.
func TestFiguresFromFullSizeSweeps(t *testing.T) {
	root := sweeptest.Root(t)
	t.Setenv(experiment.QuickEnv, "")
	const tiny = `"steps": [0.01, 0.1], "tune_runs": 1}, "seeds": {"first": 1, "count": 10}, "shard_size": 5`
	type section struct {
		data   func(report.Sink, string, xie2019.Protocol) (*experiment.Table, error)
		plots  func(*experiment.Table) ([]*plot.Plot, error)
		claims func(report.Sink, *experiment.Table) error
	}
	for _, c := range []struct {
		spec string
		section
		keys []string
	}{
		{`{"name": "xie2019-fig1a", "experiment": "xie2019/mspbe", "params": {"domain": "chain", "n": [300, 400], "epsilons": [0.1, 1], ` + tiny + `}`,
			section{xie2019.Fig1aData, xie2019.Fig1aPlots, xie2019.Fig1aClaims}, []string{"c1-v1", "c1-v2", "c1-mis", "c1-zero"}},
		{`{"name": "xie2019-fig2-3", "experiment": "xie2019/mspbe", "grid": {"domain": ["mountaincar", "mountaincar-off"]}, ` +
			`"params": {"n": [20, 40], "epsilons": [1, 2], "moment_trajs": 20, ` + tiny + `}`,
			section{xie2019.MountainCarData, xie2019.MountainCarPlots, xie2019.MountainCarClaims}, []string{"m-v1", "m-lstd", "m-eps", "m-off"}},
		{`{"name": "xie2019-fig4", "experiment": "xie2019/mspbe", "params": {"domain": "hiv", "n": [20, 40], "epsilons": [1, 2], "pool": 40, "public": 40, ` + tiny + `}`,
			section{xie2019.Fig4Data, xie2019.Fig4Plots, xie2019.Fig4Claims}, []string{"h"}},
	} {
		table := runTinySweep(t, c.spec)
		rec := &report.Recorder{}
		tab, err := c.data(rec, root, tinyProtocol)
		if err != nil {
			t.Fatal(err)
		}
		plots, err := c.plots(tab)
		if err != nil || len(plots) == 0 {
			t.Fatalf("%s: %d plots (%v)", c.keys[0], len(plots), err)
		}
		if err := xie2019.Show(rec, tab, plots); err != nil {
			t.Fatal(err)
		}
		if err := c.claims(rec, tab); err != nil {
			t.Fatal(err)
		}
		md := strings.Join(rec.Markdowns(), "\n")
		name := c.keys[0]
		if !strings.Contains(md, "**Full size:**") || strings.Contains(md, "Default size") || !strings.Contains(md, "over the sweep's 10 trials") {
			t.Errorf("%s: notes %q", name, md)
		}
		if rec.Units != 0 || rec.Figures() != len(plots) {
			t.Errorf("%s: %d progress units (a run), %d figures", name, rec.Units, rec.Figures())
		}
		claims := rec.ClaimRows()
		claimtest.Strict(t, claims)
		for _, k := range c.keys {
			found := false
			for _, cl := range claims {
				if cl.Key == k {
					found = true
					if cl.Seeds != 10 || cl.Verdict == "" {
						t.Errorf("claim %s: %d seeds, verdict %q", k, cl.Seeds, cl.Verdict)
					}
				}
			}
			if !found {
				t.Errorf("claim %s not recorded", k)
			}
		}
		if name != "h" {
			continue
		}
		// Fig. 4's claim from the merged rows: log₁₀(GPOPE's MSPBE at n = 20 / at n = 40) per trial, ε = 1.
		rows, _, err := xie2019.RowsFromSweep(table, "hiv")
		if err != nil {
			t.Fatal(err)
		}
		curve := xie2019.Curve(rows, xie2019.MethodGPOPE, 1, []float64{20, 40}, func(r xie2019.Row) float64 { return float64(r.N) })
		xs := make([]float64, len(curve))
		for k, y := range curve {
			xs[k] = math.Log10(y[0] / y[1])
		}
		_, lo, hi := experiment.MeanCI(xs, 0.95)
		for _, cl := range claims {
			if cl.Key == "h" && (math.Abs(cl.CILow-lo) > 1e-12 || math.Abs(cl.CIHigh-hi) > 1e-12 || !strings.Contains(cl.Why, "n = 20 / at n = 40")) {
				t.Errorf("claim h: [%v, %v] %q; from the merged rows [%v, %v]", cl.CILow, cl.CIHigh, cl.Why, lo, hi)
			}
		}
	}

	// The sweeps searched the steps {0.01, 0.1}: a protocol with another grid does not get their numbers.
	other := tinyProtocol
	other.Steps = []float64{0.01, 0.1, 1}
	if _, err := xie2019.Fig1aData(&report.Recorder{}, root, other); err == nil || !strings.Contains(err.Error(), "params.steps") {
		t.Errorf("another step grid: %v", err)
	}

	// No merged result: the default size runs (the protocol's single trial, with progress bars).
	t.Setenv(sweep.SweepsEnv, t.TempDir())
	rec := &report.Recorder{}
	if _, err := xie2019.Fig1aData(rec, root, xie2019.Protocol{Trials: 1, TuneRuns: 1, Steps: []float64{0.1}}); err != nil {
		t.Fatal(err)
	}
	if md := strings.Join(rec.Markdowns(), "\n"); !strings.Contains(md, "Default size") || strings.Contains(md, "Full size") || rec.Units == 0 {
		t.Errorf("default size: %d units, notes %q", rec.Units, md)
	}
}
