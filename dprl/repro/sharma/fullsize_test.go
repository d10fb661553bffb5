package sharma_test

import (
	"os"
	"strings"
	"testing"

	"github.com/dprl-project/dprl/dprl/experiment"
	"github.com/dprl-project/dprl/dprl/expertdp"
	"github.com/dprl-project/dprl/dprl/report"
	"github.com/dprl-project/dprl/dprl/repro"
	"github.com/dprl-project/dprl/dprl/repro/claimtest"
	"github.com/dprl-project/dprl/dprl/repro/sharma"
	_ "github.com/dprl-project/dprl/dprl/repro/sweeps" // registers sharma/jobs
	"github.com/dprl-project/dprl/dprl/sweep"
	"github.com/dprl-project/dprl/dprl/sweep/sweeptest"
)

// tinySpecs stand in for the checked-in specs under their names: the same experiment and settings, ten
// seeds (so that the claims are verdicts), the notebook's 3000 experts but from two bases (they build in
// under a second), one trajectory each, tiny networks and step counts. Fig. 3 on CartPole alone, in the
// paper's noise regime with the calibrated one as its alternative; Fig. 4 at its m grid.
var tinySpecs = map[string]string{
	"sharma-fig3": `{"name": "sharma-fig3", "experiment": "sharma/jobs",
		"params": {"tag": "fig3", "steps": 4, "hidden": [4], "batch": 8, "per_expert": 1, "bases": 2, "skip_duplicates": true, "primary_noise": "paper"},
		"grid": {"env": ["cartpole"], "learner": ["cql", "bcq"], "noise": ["paper", "calibrated"],
			"setting": ["untrained", "nonprivate", "ours:5", "dpsgd:5", "ours:7.5", "dpsgd:7.5", "ours:10", "dpsgd:10"]},
		"seeds": {"first": 1, "count": 10}, "shard_size": 80}`,
	"sharma-fig4": `{"name": "sharma-fig4", "experiment": "sharma/jobs",
		"params": {"tag": "fig4", "env": "acrobot", "learner": "cql", "steps": 4, "hidden": [4], "batch": 8, "per_expert": 1, "bases": 2, "experts_total": 3000,
			"noise": "paper"},
		"grid": {"experts": [1000, 2000, 3000], "setting": ["untrained", "nonprivate", "fallback:10", "stableonly:10", "dpsgd:10"]},
		"seeds": {"first": 1, "count": 10}, "shard_size": 50}`,
}

func markdown(r *report.Recorder) string { return strings.Join(r.Markdowns(), "\n") }

// Notebook 05 with merged full-size sweeps: Fig3Data and Fig4Data say "Full size" and return the merged
// runs, from which the figures and their claims (10 seeds: the sweeps') are computed, every row complete
// under the claim model; with Fig. 3's sweep removed, its data is the notebook's own again ("Default
// size"; not run here).
func TestFullSizeSweeps(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two tiny sweeps")
	}
	root := sweeptest.Root(t)
	sweeptest.Merge(t, tinySpecs["sharma-fig3"])
	sweeptest.Merge(t, tinySpecs["sharma-fig4"])
	cfg := sharma.NewConfig(false)

	rec := &report.Recorder{}
	fig3, err := sharma.Fig3Data(rec, root, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if md := markdown(rec); !strings.Contains(md, "**Full size:**") || !strings.Contains(md, "merged sweep sharma-fig3") || strings.Contains(md, "Default size") {
		t.Errorf("Fig3Data: %q", md)
	}
	rec = &report.Recorder{}
	if err := sharma.Fig3Figure(rec, fig3); err != nil || rec.Figures() != 2 || !strings.Contains(markdown(rec), "10 seeds per point") {
		t.Errorf("Fig3Figure from the sweep: %v, %d figures, %q", err, rec.Figures(), markdown(rec))
	}
	if err := sharma.Fig3Claims(rec, fig3); err != nil {
		t.Fatal(err)
	}
	all, err := sharma.Outcomes(fig3)
	if err != nil {
		t.Fatal(err)
	}
	values := func(keep func(sharma.Outcome) bool) []float64 {
		v := make([]float64, 10)
		for _, o := range all {
			if keep(o) {
				v[o.Seed] = o.Normalized
			}
		}
		return v
	}
	cs := map[string]repro.Claim{}
	for _, c := range rec.ClaimRows() {
		cs[c.Key] = c
	}
	claimtest.Strict(t, rec.ClaimRows())
	for _, alg := range []expertdp.Algorithm{expertdp.CQL, expertdp.BCQ} {
		at := func(m sharma.Method) []float64 {
			return values(func(o sharma.Outcome) bool {
				return o.Method == m && o.Algorithm == alg && o.Epsilon == 10 && o.Noise == sharma.NoisePaper && o.Tag == "fig3"
			})
		}
		_, lo, hi := experiment.DiffCI(at(sharma.Ours), at(sharma.ExpertDPSGD), 0.95)
		if c := cs["fig3-cartpole"+alg.String()+"-10"]; c.Seeds != 10 || c.CILow != lo || c.CIHigh != hi || !strings.Contains(c.Why, "the paper's noise regime") {
			t.Errorf("Fig3 claim %v: %+v, want [%g, %g] over 10 seeds", alg, c, lo, hi)
		}
	}
	if _, ok := cs["fig3-acrobotCQL-10"]; ok {
		t.Error("Fig. 3 claims an Acrobot result the sweep does not have")
	}
	for _, o := range all {
		if o.Noise == sharma.NoiseCalibrated && o.Tag != "fig3/alt" && (o.Method == sharma.Ours || o.Method == sharma.ExpertDPSGD) {
			t.Errorf("a calibrated run not tagged as the alternative: %+v", o.Job)
		}
	}

	rec = &report.Recorder{}
	fig4, err := sharma.Fig4Data(rec, root, cfg)
	if err != nil || !strings.Contains(markdown(rec), "merged sweep sharma-fig4") {
		t.Fatalf("Fig4Data: %v %q", err, markdown(rec))
	}
	rec = &report.Recorder{}
	if err := sharma.Fig4Figure(rec, fig4); err != nil || rec.Figures() != 2 {
		t.Errorf("Fig4Figure from the sweep: %v, %d figures", err, rec.Figures())
	}
	if err := sharma.Fig4Claims(rec, fig4); err != nil {
		t.Fatal(err)
	}
	claimtest.Strict(t, rec.ClaimRows())
	if c := rec.ClaimRows(); len(c) != 2 || c[0].Key != "fig4" || c[0].Seeds != 10 {
		t.Errorf("Fig4 claims %+v", c)
	}

	dir, _ := sweep.Dir("sharma-fig3")
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	rec = &report.Recorder{}
	if _, err := sharma.Fig4Data(rec, root, cfg); err != nil || !strings.Contains(markdown(rec), "Full size") {
		t.Errorf("Fig. 4's sweep still there: %v %q", err, markdown(rec))
	}
}
