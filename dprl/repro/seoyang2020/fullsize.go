package seoyang2020

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/dprl-project/dprl/dprl/actorcritic"
	"github.com/dprl-project/dprl/dprl/experiment"
	"github.com/dprl-project/dprl/dprl/report"
	"github.com/dprl-project/dprl/dprl/repro"
	"github.com/dprl-project/dprl/dprl/sweep"
)

// The checked-in sweeps (sweeps/specs/<name>.json, experiment seoyang2020/returns) of the notebook at the
// paper's full size: Fig. 2's conditions at ε = 10 with the cosine study (also the Non-DP and random-policy
// references of Fig. 3 and RealEpsilon), Fig. 3's ε grid, and RealEpsilon's corrected runs.
const (
	SweepFig2        = "seoyang2020-fig2"
	SweepFig3        = "seoyang2020-fig3"
	SweepRealEpsilon = "seoyang2020-realeps"
)

// SweepRuns is one condition of a seoyang2020/returns table, one run per seed in increasing seed order.
type SweepRuns struct {
	Seeds []uint64
	// Results have Returns, Lengths, DivergedAt and Releases: what Summarize, Domain.Finals and
	// ReturnsByRun need.
	Results []*actorcritic.Result
	// CosU and CosV are, per run and episode, the cosine of its end-of-episode traces with those of the
	// Non-DP run of the same seed (NaN where the sweep ran without cosines).
	CosU, CosV [][]float64
}

// RunsFromSweep reads a seoyang2020/returns table of one condition (narrow it with sweep.Where or
// repro.SweepCell) as its runs, one per seed.
func RunsFromSweep(t *experiment.Table) (*SweepRuns, error) {
	c, err := sweep.NewReader(t, "seed", "episode", "return", "length", "diverged_at", "releases", "cos_u", "cos_v")
	if err != nil {
		return nil, err
	}
	rank := c.SeedRanks("seed")
	if err := c.Err(); err != nil {
		return nil, err
	}
	out := &SweepRuns{Seeds: make([]uint64, len(rank)), Results: make([]*actorcritic.Result, len(rank)),
		CosU: make([][]float64, len(rank)), CosV: make([][]float64, len(rank))}
	for s, i := range rank {
		out.Seeds[i], _ = strconv.ParseUint(s, 10, 64)
	}
	for r := range t.Rows {
		i := rank[c.String(r, "seed")]
		if out.Results[i] == nil {
			out.Results[i] = &actorcritic.Result{DivergedAt: c.Int(r, "diverged_at"), Releases: c.Int(r, "releases")}
		}
		res := out.Results[i]
		if ep := c.Int(r, "episode"); ep != len(res.Returns)+1 {
			return nil, fmt.Errorf("seoyang2020: row %d: episode %d of seed %s out of order (more than one condition? narrow with sweep.Where)", r, ep, c.String(r, "seed"))
		}
		res.Returns = append(res.Returns, c.Float(r, "return"))
		res.Lengths = append(res.Lengths, c.Int(r, "length"))
		out.CosU[i] = append(out.CosU[i], c.Float(r, "cos_u"))
		out.CosV[i] = append(out.CosV[i], c.Float(r, "cos_v"))
	}
	if err := c.Err(); err != nil {
		return nil, err
	}
	for i, res := range out.Results {
		if len(res.Returns) != len(out.Results[0].Returns) {
			return nil, fmt.Errorf("seoyang2020: seed %d has %d episodes, seed %d has %d", out.Seeds[i], len(res.Returns), out.Seeds[0], len(out.Results[0].Returns))
		}
	}
	return out, nil
}

// seedNote lists the seeds and the band of every figure.
func seedNote(s repro.RunSeeds) string {
	return fmt.Sprintf("Seeds: run r of every condition draws from rand.NewPCG(%d, r), r %s (%d seeds); curves are "+
		"means over the seeds with 95%% Student-t confidence bands.", s.Base, repro.SeedRange(s.Seeds), len(s.Seeds))
}

// sweepRuns is what the merged sweep r says about its runs: their seeds and episodes.
func sweepRuns(r *sweep.Result) (repro.RunSeeds, int, error) {
	s, err := repro.SweepRunSeeds(r, Seed)
	if err != nil {
		return s, 0, err
	}
	e, err := repro.SweepParam(r, "episodes", "500")
	if err != nil {
		return repro.RunSeeds{}, 0, err
	}
	episodes, err := strconv.Atoi(e)
	if err != nil {
		return repro.RunSeeds{}, 0, fmt.Errorf("seoyang2020: sweep %s: episodes %s: %w", r.Spec.Name, e, err)
	}
	return s, episodes, nil
}

// sameRuns checks that the sweeps a and b ran the same seeds from the same base seed for as many episodes,
// so that b's references stand beside a's runs as in the default run, and returns them.
func sameRuns(a, b *sweep.Result) (repro.RunSeeds, int, error) {
	sa, ea, err := sweepRuns(a)
	if err != nil {
		return repro.RunSeeds{}, 0, err
	}
	sb, eb, err := sweepRuns(b)
	if err != nil {
		return repro.RunSeeds{}, 0, err
	}
	if !sa.Equal(sb) || ea != eb {
		return repro.RunSeeds{}, 0, fmt.Errorf("seoyang2020: %s ran seeds %v from base %d for %d episodes, %s seeds %v from base %d for %d: "+
			"its references must be the same runs", a.Spec.Name, sa.Seeds, sa.Base, ea, b.Spec.Name, sb.Seeds, sb.Base, eb)
	}
	return sa, ea, nil
}

// condition reads one condition on domain d from the merged sweep r (want: further parameters it must have
// run with) and checks it has the sweep's seeds and episodes.
func condition(r *sweep.Result, d Domain, cond string, want map[string]string, seeds repro.RunSeeds, episodes int) (*SweepRuns, error) {
	w := map[string]string{"domain": d.Name, "variant": cond}
	for k, v := range want {
		w[k] = v
	}
	t, err := repro.SweepCell(r, w)
	if err != nil {
		return nil, err
	}
	runs, err := RunsFromSweep(t)
	if err != nil {
		return nil, err
	}
	if !slices.Equal(runs.Seeds, seeds.Seeds) || len(runs.Results[0].Returns) != episodes {
		return nil, fmt.Errorf("seoyang2020: sweep %s, %s on %s: seeds %v of %d episodes, the spec says %v of %d",
			r.Spec.Name, cond, d.Name, runs.Seeds, len(runs.Results[0].Returns), seeds.Seeds, episodes)
	}
	return runs, nil
}

// withReferences finds the merged full-size sweep name (repro.FullSize says which numbers follow) and, when it
// is there, SweepFig2, whose Non-DP and random-policy runs are its references: the two must have run the same
// seeds for the same episodes, and a missing SweepFig2 is an error, not a default-size run of the references.
// Without name's result, ok is false and seeds and episodes are size's. what names the figure in the error.
func withReferences(out report.Sink, root, name, what string, size Sizes) (full, refs *sweep.Result, ok bool, seeds repro.RunSeeds, episodes int, err error) {
	seeds, episodes = repro.FirstRunSeeds(Seed, size.Runs), size.Episodes
	if full, ok, err = repro.FullSize(out, root, name); err != nil || !ok {
		return nil, nil, false, seeds, episodes, err
	}
	refs, refsOK, err := repro.FullSize(out, root, SweepFig2)
	if err != nil {
		return nil, nil, false, seeds, episodes, err
	}
	if !refsOK {
		return nil, nil, false, seeds, episodes, fmt.Errorf("seoyang2020: %s full size takes its Non-DP and random-policy references from %s, which is not merged: "+
			"run it too (or remove %s's results to run the default size)", what, SweepFig2, name)
	}
	if seeds, episodes, err = sameRuns(full, refs); err != nil {
		return nil, nil, false, seeds, episodes, err
	}
	return full, refs, true, seeds, episodes, nil
}
