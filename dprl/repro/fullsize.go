package repro

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/dprl-project/dprl/dprl/report"
	"github.com/dprl-project/dprl/dprl/sweep"
)

// FullSize looks for the merged result of the named checked-in sweep (sweeps/specs/<name>.json, merged into
// build/sweeps/<name>/ or $DPRL_SWEEPS/<name>; see package sweep) and says on out which numbers follow:
// the full-size sweep's, with where they came from, or the default size's, with how to get the full size.
//
// ok is false when no merged result is there, or when there is no repository root to look in (the package
// used outside the repository without $DPRL_ROOT): the caller runs its default size. A result that is there
// but does not check out (a corrupted file, or a checked-in spec changed since it was computed) is an
// error: a figure never falls back silently from a result the user asked for.
func FullSize(out report.Sink, name string) (r *sweep.Result, ok bool, err error) {
	if _, err := sweep.Root(); err != nil {
		return nil, false, nil
	}
	r, ok, err = sweep.Load(name)
	if err != nil {
		return nil, false, err
	}
	if ok {
		out.Markdown(fmt.Sprintf("**Full size:** the numbers below are the %s, not a run of this notebook.", r.Describe()))
		return r, true, nil
	}
	out.Markdown(fmt.Sprintf("*Default size.* The paper's full size is the sweep `sweeps/specs/%s.json`: run it with "+
		"`make sweep-local SPEC=sweeps/specs/%[1]s.json` or on a cluster (`dprl sweep slurm`, README \"Running at scale\"), "+
		"and this cell reads `build/sweeps/%[1]s/merged.csv` instead of running.", name))
	return nil, false, nil
}

// SeedRange writes the seeds behind a figure compactly, with the relation to put after the seed's name:
// "= 0 … 9" for consecutive seeds (in increasing order), else "∈ {1, 5, 9}".
func SeedRange(seeds []uint64) string {
	n := len(seeds)
	if n > 0 && seeds[n-1] >= seeds[0] && seeds[n-1]-seeds[0] == uint64(n-1) && slices.IsSorted(seeds) {
		return fmt.Sprintf("= %d … %d", seeds[0], seeds[n-1])
	}
	parts := make([]string, n)
	for i, v := range seeds {
		parts[i] = strconv.FormatUint(v, 10)
	}
	return "∈ {" + strings.Join(parts, ", ") + "}"
}
