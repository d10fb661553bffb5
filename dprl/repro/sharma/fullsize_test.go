package sharma_test

import (
	"os"
	"strconv"
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

// tinySpecs stand in for the checked-in specs under their names: the same experiment, ten seeds (so that
// the claims are verdicts), the notebook's 3000 experts but from two bases (they build in under a second),
// one trajectory each, tiny networks and step counts. Fig. 3 on CartPole alone; Fig. 4 at its m grid.
var tinySpecs = map[string]string{
	"sharma-fig3": `{"name": "sharma-fig3", "experiment": "sharma/jobs",
		"params": {"tag": "fig3", "steps": 4, "hidden": [4], "batch": 8, "per_expert": 1, "bases": 2, "skip_duplicates": true},
		"grid": {"env": ["cartpole"], "learner": ["cql", "bcq"], "setting": ["nonprivate", "ours:5", "dpsgd:5", "ours:7.5", "dpsgd:7.5", "ours:10", "dpsgd:10"]},
		"seeds": {"first": 1, "count": 10}, "shard_size": 35}`,
	"sharma-fig4": `{"name": "sharma-fig4", "experiment": "sharma/jobs",
		"params": {"tag": "fig4", "env": "acrobot", "learner": "cql", "steps": 4, "hidden": [4], "batch": 8, "per_expert": 1, "bases": 2, "experts_total": 3000},
		"grid": {"experts": [1000, 2000, 3000], "setting": ["nonprivate", "ours:10", "dpsgd:10"]},
		"seeds": {"first": 1, "count": 10}, "shard_size": 30}`,
}

func markdown(r *report.Recorder) string { return strings.Join(r.Markdowns(), "\n") }

// claimsByKey are the claims rows r recorded, checked by the claim model's rules, by key.
func claimsByKey(t *testing.T, r *report.Recorder) map[string]repro.Claim {
	t.Helper()
	cs := r.ClaimRows()
	claimtest.Rows(t, cs)
	m := map[string]repro.Claim{}
	for _, c := range cs {
		m[c.Key] = c
	}
	return m
}

// merged reads the named sweep's runs back as the figures do.
func merged(t *testing.T, name string) []sharma.Outcome {
	t.Helper()
	r, ok, err := sweep.Load(name)
	if !ok || err != nil {
		t.Fatalf("%s: %v %v", name, ok, err)
	}
	all, err := sharma.OutcomesFromSweep(r.Table)
	if err != nil {
		t.Fatal(err)
	}
	return all
}

// values are the normalised returns of the runs keep says, indexed by seed.
func values(all []sharma.Outcome, keep func(sharma.Outcome) bool) []float64 {
	v := make([]float64, 10)
	for _, o := range sharma.Select(all, keep) {
		v[o.Seed] = o.Normalized
	}
	return v
}

// Notebook 05 with and without merged full-size sweeps: without, Experiments' first step says "Default
// size" and the figures are drawn from the notebook's own runs; with tiny sweeps under the real names it
// says "Full size", and Fig. 3, Fig. 4, their claims (10 seeds: the sweeps') and the privacy table are
// computed from the merged rows, not from the notebook's runs.
func TestFullSizeSweeps(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two tiny sweeps")
	}
	t.Setenv("TMPDIR", t.TempDir())
	root := sweeptest.Root(t)
	if err := sharma.WriteDefaultRuns(); err != nil {
		t.Fatal(err)
	}

	// No merged sweep: the default size, the figures from the notebook's runs (ours 0.9, DP-SGD 0.5).
	rec := &report.Recorder{}
	swept, err := sharma.FullSizeRuns(rec, root)
	if err != nil || len(swept) != 0 {
		t.Fatalf("no sweep: %v %v", swept, err)
	}
	if md := markdown(rec); strings.Count(md, "Default size") != 2 || !strings.Contains(md, "sweeps/specs/sharma-fig3.json") || strings.Contains(md, "Full size") {
		t.Errorf("no sweep: %q", md)
	}
	rec = &report.Recorder{}
	if err := sharma.Fig3(rec); err != nil {
		t.Fatal(err)
	}
	if md := markdown(rec); strings.Contains(md, "Full size") || !strings.Contains(md, "On CartPole at ε = 5") || rec.Figures() != 4 {
		t.Errorf("default Fig3: %d figures, %q", rec.Figures(), md)
	}
	if c := claimsByKey(t, rec)["fig3-acrobotBCQ-10"]; c.Seeds != 10 || !strings.HasPrefix(c.Measured, "+0.40 [") {
		t.Errorf("default Fig3 claim: %+v", c)
	}

	// Tiny merged sweeps under the real names.
	sweeptest.Merge(t, tinySpecs["sharma-fig3"])
	sweeptest.Merge(t, tinySpecs["sharma-fig4"])
	rec = &report.Recorder{}
	swept, err = sharma.FullSizeRuns(rec, root)
	if err != nil || !swept["fig3"] || !swept["fig4"] {
		t.Fatalf("sweeps: %v %v", swept, err)
	}
	if md := markdown(rec); strings.Count(md, "Full size") != 2 || !strings.Contains(md, "merged sweep sharma-fig4 from") || strings.Contains(md, "Default size") {
		t.Errorf("sweeps: %q", md)
	}

	rec = &report.Recorder{}
	if err := sharma.Fig3(rec); err != nil {
		t.Fatal(err)
	}
	if md := markdown(rec); !strings.Contains(md, "**Full size:**") || !strings.Contains(md, "merged sweep sharma-fig3") || !strings.Contains(md, "seeds 0–9 (10 per point)") || rec.Figures() != 2 {
		t.Errorf("Fig3 from the sweep: %d figures, %q", rec.Figures(), md)
	}
	fig3 := merged(t, "sharma-fig3")
	cs := claimsByKey(t, rec)
	if _, ok := cs["fig3-acrobotCQL-10"]; ok {
		t.Error("Fig. 3 claims an Acrobot result the sweep does not have")
	}
	for _, alg := range []expertdp.Algorithm{expertdp.CQL, expertdp.BCQ} {
		ours := values(fig3, func(o sharma.Outcome) bool { return o.Method == sharma.Ours && o.Algorithm == alg && o.Epsilon == 10 })
		dp := values(fig3, func(o sharma.Outcome) bool {
			return o.Method == sharma.ExpertDPSGD && o.Algorithm == alg && o.Epsilon == 10
		})
		_, lo, hi := experiment.DiffCI(ours, dp, 0.95)
		if c := cs["fig3-cartpole"+alg.String()+"-10"]; c.Seeds != 10 || c.CILow != lo || c.CIHigh != hi {
			t.Errorf("Fig3 claim %v: %+v, want [%g, %g] over 10 seeds", alg, c, lo, hi)
		}
	}

	rec = &report.Recorder{}
	if err := sharma.Fig4(rec); err != nil {
		t.Fatal(err)
	}
	if md := markdown(rec); !strings.Contains(md, "merged sweep sharma-fig4") || rec.Figures() != 2 {
		t.Errorf("Fig4 from the sweep: %d figures, %q", rec.Figures(), md)
	}
	fig4 := merged(t, "sharma-fig4")
	at := func(m sharma.Method, experts int) []float64 {
		return values(fig4, func(o sharma.Outcome) bool { return o.Method == m && o.Experts == experts })
	}
	_, lo, hi, n := sharma.ContrastCI([][]float64{at(sharma.Ours, 3000), at(sharma.ExpertDPSGD, 3000), at(sharma.Ours, 1000), at(sharma.ExpertDPSGD, 1000)},
		[]float64{1, -1, -1, 1}, 0.95)
	if c := claimsByKey(t, rec)["fig4"]; c.Seeds != 10 || n != 10 || c.CILow != lo || c.CIHigh != hi {
		t.Errorf("Fig4 claim %+v, want [%g, %g] over %d seeds", c, lo, hi, n)
	}

	// The privacy cell adds the sweeps' settings, from their own rows; the export names the merged tables.
	rec = &report.Recorder{}
	if err := sharma.Privacy(rec); err != nil {
		t.Fatal(err)
	}
	if rec.Tables() != 3 || !strings.Contains(markdown(rec), "Fig. 4's runs come from the merged sweep sharma-fig4") {
		t.Errorf("Privacy: %d tables, %q", rec.Tables(), markdown(rec))
	}
	rows := rec.Items[len(rec.Items)-1].Rows // Fig. 4's: ours and DP-SGD at each m
	for _, row := range rows {
		eps, err := strconv.ParseFloat(row[10], 64)
		if len(rows) != 6 || err != nil || eps > 10 || (row[0] == "ours") == (row[12] == "—") {
			t.Errorf("Fig. 4 privacy row %q: ε (exact) at most 10, p_T for ours only", row)
		}
	}
	rec = &report.Recorder{}
	if err := sharma.ExportRuns(rec); err != nil {
		t.Fatal(err)
	}
	if md := markdown(rec); !strings.Contains(md, "Every run made here") || !strings.Contains(md, "The full-size runs of Fig. 3 (120)") {
		t.Errorf("ExportRuns: %q", md)
	}

	// Fig. 3's sweep removed: its figure is the notebook's own again, Fig. 4's still the sweep's.
	dir, _ := sweep.Dir("sharma-fig3")
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if swept, err = sharma.FullSizeRuns(report.Discard, root); err != nil || swept["fig3"] || !swept["fig4"] {
		t.Fatalf("fig4 only: %v %v", swept, err)
	}
	rec = &report.Recorder{}
	if err := sharma.Fig3(rec); err != nil || strings.Contains(markdown(rec), "Full size") || rec.Figures() != 4 {
		t.Errorf("Fig3 without its sweep: %v, %d figures", err, rec.Figures())
	}
}
