package seoyang2020_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/dprl-project/dprl/dprl/experiment"
	"github.com/dprl-project/dprl/dprl/report"
	"github.com/dprl-project/dprl/dprl/repro"
	"github.com/dprl-project/dprl/dprl/repro/claimtest"
	"github.com/dprl-project/dprl/dprl/repro/seoyang2020"
	_ "github.com/dprl-project/dprl/dprl/repro/sweeps" // registers seoyang2020/returns
	"github.com/dprl-project/dprl/dprl/sweep"
	"github.com/dprl-project/dprl/dprl/sweep/sweeptest"
)

// notes is the Markdown a section showed, and the number of full-size and default-size notes in it.
func notes(r *report.Recorder) (md string, full, def int) {
	md = strings.Join(r.Markdowns(), "\n")
	return md, strings.Count(md, "**Full size:**"), strings.Count(md, "*Default size.*")
}

// TestSectionsFullSize: with the notebook's sweeps merged (tiny ones here, 10 seeds of 3 episodes), Fig2,
// Fig3 and RealEpsilon run nothing, say where their numbers come from, and draw their tables and claims from
// the merged rows; a sweep whose references are missing is refused; without sweeps the default size runs.
func TestSectionsFullSize(t *testing.T) {
	root := sweeptest.Root(t)
	size := seoyang2020.Sizes{Runs: 2, Episodes: 2, Epsilons: []float64{1}}

	rec := &report.Recorder{}
	if err := seoyang2020.Fig3(rec, root, size); err != nil {
		t.Fatal(err)
	}
	if md, full, def := notes(rec); full != 0 || def != 1 || rec.Units == 0 {
		t.Fatalf("without sweeps: %d runs, notes %q", rec.Units, md)
	}

	const seeds, episodes = 10, 3
	sweeptest.Merge(t, fmt.Sprintf(`{"name": %q, "experiment": "seoyang2020/returns", "params": {"episodes": %d, "base_seed": 2020},
		"grid": {"domain": ["mdp100", "taxi"], "variant": ["dp-actor", "dp-critic", "dp-both"], "epsilon": [5, 1, 0.5]},
		"seeds": {"first": 0, "count": %d}, "shard_size": 30}`, seoyang2020.SweepFig3, episodes, seeds))
	if err := seoyang2020.Fig3(&report.Recorder{}, root, size); err == nil || !strings.Contains(err.Error(), seoyang2020.SweepFig2+", which is not merged") {
		t.Errorf("Fig. 3 without its references: %v", err)
	}
	sweeptest.Merge(t, fmt.Sprintf(`{"name": %q, "experiment": "seoyang2020/returns", "params": {"epsilon": 10, "episodes": %d, "base_seed": 2020, "cosines": true},
		"grid": {"domain": ["mdp100", "taxi"], "variant": ["non-dp", "dp-actor", "dp-critic", "dp-both", "random", "non-dp-other-seed"]},
		"seeds": {"first": 0, "count": %d}, "shard_size": 30}`, seoyang2020.SweepFig2, episodes, seeds))
	sweeptest.Merge(t, fmt.Sprintf(`{"name": %q, "experiment": "seoyang2020/returns", "params": {"variant": "corrected", "episodes": %d, "base_seed": 2020},
		"grid": {"domain": ["mdp100", "taxi"], "epsilon": [100, 10]}, "seeds": {"first": 0, "count": %d}, "shard_size": 20}`,
		seoyang2020.SweepRealEpsilon, episodes, seeds))

	var items []report.Item
	var claims []repro.Claim
	for _, c := range []struct {
		name string
		run  func(report.Sink, string, seoyang2020.Sizes) error
		full int
	}{{"Fig2", seoyang2020.Fig2, 1}, {"Fig3", seoyang2020.Fig3, 2}, {"RealEpsilon", seoyang2020.RealEpsilon, 2}} {
		rec := &report.Recorder{}
		if err := c.run(rec, root, size); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if md, full, def := notes(rec); full != c.full || def != 0 || !strings.Contains(md, fmt.Sprintf("r = 0 … %d (%d seeds)", seeds-1, seeds)) {
			t.Errorf("%s: %d full-size notes (want %d), %d default-size notes: %q", c.name, full, c.full, def, md)
		}
		if rec.Units != 0 {
			t.Errorf("%s made %d runs although its sweeps are merged", c.name, rec.Units)
		}
		items = append(items, rec.Items...)
		claims = report.MergeClaims(claims, rec.ClaimRows()...)
	}

	// Table 3's Non-DP row on MDP-100 is the merged Non-DP runs' last-3 returns.
	r, ok, err := sweep.Load(seoyang2020.SweepFig2)
	if !ok || err != nil {
		t.Fatal(ok, err)
	}
	cell, err := repro.SweepCell(r, map[string]string{"domain": "mdp100", "variant": seoyang2020.NonDP})
	if err != nil {
		t.Fatal(err)
	}
	runs, err := seoyang2020.RunsFromSweep(cell)
	if err != nil || len(runs.Results) != seeds {
		t.Fatalf("%d runs read: %v", len(runs.Results), err)
	}
	finals, _, err := seoyang2020.Domains()[0].Finals(runs.Results, episodes)
	if err != nil {
		t.Fatal(err)
	}
	m, lo, hi := experiment.MeanCI(finals, 0.95)
	want := fmt.Sprintf("%.1f [%.1f, %.1f]", m, lo, hi)
	found := false
	for _, it := range items {
		if len(it.Header) == 6 && it.Header[5] == fmt.Sprintf("last %d", episodes) {
			if it.Rows[0][0] != "Non-DP" || it.Rows[0][5] != want {
				t.Errorf("Table 3 (MDP-100) Non-DP row %v, want last %s", it.Rows[0], want)
			}
			found = true
			break
		}
	}
	if !found {
		t.Error("no Table 3")
	}

	claimtest.Rows(t, claims)
	var keys []string
	for _, c := range claims {
		keys = append(keys, c.Key)
		if c.Seeds != seeds {
			t.Errorf("claim %s rests on %d seeds, want the sweep's %d", c.Key, c.Seeds, seeds)
		}
	}
	// Fig. 3's claims at the smallest ε the paper calls stable that the sweep's grid {5, 1, 0.5} holds.
	if got := strings.Join(keys, " "); got != "fig2-mdp100 tab3-mdp100 tab4-mdp100 fig2-taxi tab3-taxi tab4-taxi "+
		"fig3-actor-mdp100 fig3-critic-mdp100 fig3-actor-taxi fig3-critic-taxi" {
		t.Errorf("claims recorded: %s", got)
	}
}
