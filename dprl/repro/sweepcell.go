package repro

import (
	"fmt"
	"maps"
	"slices"

	"github.com/dprl-project/dprl/dprl/experiment"
	"github.com/dprl-project/dprl/dprl/sweep"
)

// SweepCell is the part of a merged sweep's table that ran with the given parameter values (written as
// sweep.FormatValue writes them, e.g. "0.4"), for a figure that needs one setting of a sweep. A key that is
// one of the sweep's grid keys selects the rows with that value; a key the spec fixes in its params must
// have that value. A key the spec sets neither way is an error, as is a setting without a single row: the
// figure would otherwise show runs of a configuration other than the one it names.
func SweepCell(r *sweep.Result, want map[string]string) (*experiment.Table, error) {
	grid := map[string]string{}
	for _, k := range slices.Sorted(maps.Keys(want)) {
		v := want[k]
		if _, ok := r.Spec.Grid[k]; ok {
			grid[k] = v
			continue
		}
		p, ok := r.Spec.Params[k]
		if !ok {
			return nil, fmt.Errorf("repro: sweep %s sets no %s (neither in params nor in its grid); the figure needs %s = %s", r.Spec.Name, k, k, v)
		}
		if got := sweep.FormatValue(p); got != v {
			return nil, fmt.Errorf("repro: sweep %s ran with %s = %s; the figure needs %s = %s", r.Spec.Name, k, got, k, v)
		}
	}
	t, err := sweep.Where(r.Table, grid)
	if err != nil {
		return nil, err
	}
	if len(t.Rows) == 0 {
		return nil, fmt.Errorf("repro: sweep %s has no rows with %v", r.Spec.Name, grid)
	}
	return t, nil
}

// SweepParam is the value of a parameter the sweep r fixes in its params, as sweep.FormatValue writes it,
// or def when the spec does not set it (the experiment's default then applies). A parameter the sweep
// varies in its grid has no single value: that is an error.
func SweepParam(r *sweep.Result, key, def string) (string, error) {
	if _, ok := r.Spec.Grid[key]; ok {
		return "", fmt.Errorf("repro: sweep %s varies %s in its grid; the figure needs one value", r.Spec.Name, key)
	}
	if p, ok := r.Spec.Params[key]; ok {
		return sweep.FormatValue(p), nil
	}
	return def, nil
}
