package balle2016

import (
	"fmt"
	"slices"

	"github.com/dprl-project/dprl/dprl/report"
	"github.com/dprl-project/dprl/dprl/repro"
	"github.com/dprl-project/dprl/dprl/sweep"
)

// SweepFig1 is the checked-in sweep (sweeps/specs/balle2016-fig1.json, experiment balle2016/rmse) whose
// merged result stands in for Fig1Data's run: a task is one seed s at one batch size m, BatchEstimates on
// a batch drawn from the stream PCG(s, m).
const SweepFig1 = "balle2016-fig1"

// Fig1Data is the data of Fig. 1 and its claims: the rows of the merged sweep SweepFig1 when it is in the
// repository at root (repro.FullSize says so on out, and nothing runs), otherwise RunData(g, Fig1Seed)
// with a progress bar on out.
func Fig1Data(out report.Sink, root string, g Grid) (*Data, error) {
	full, ok, err := repro.FullSize(out, root, SweepFig1)
	if err != nil {
		return nil, err
	}
	if !ok {
		return RunData(g, Fig1Seed, out.Bar("trials", g.Trials))
	}
	where := fmt.Sprintf("balle2016: merged sweep %s (%s)", full.Spec.Name, full.Dir)
	if err := checkSweepConfig(full.Spec); err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	seeds := full.Spec.Seeds.Values()
	slices.Sort(seeds)
	d, err := NewData(full.Table, fmt.Sprintf("seed s draws its batch of m trajectories and its noise from the stream PCG(s, m), s %s", repro.SeedRange(seeds)))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	return d, nil
}

// checkSweepConfig checks that a balle2016/rmse spec is Fig. 1's: a grid over the batch size m and nothing
// else (the arms, exponents and constants are the package's).
func checkSweepConfig(s *sweep.Spec) error {
	if _, ok := s.Grid["m"]; !ok {
		return fmt.Errorf("the batch size m is not a grid axis: Fig. 1 needs the curves over m")
	}
	for k := range s.Grid {
		if k != "m" {
			return fmt.Errorf("the grid varies %s: Fig. 1's data varies only the batch size m", k)
		}
	}
	for k := range s.Params {
		return fmt.Errorf("params.%s is set: Fig. 1's data has no parameter but the batch size m", k)
	}
	return nil
}
