package repro

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/dprl-project/dprl/dprl/report"
	"github.com/dprl-project/dprl/dprl/sweep"
)

// FullSize looks for the merged result of the named checked-in sweep in the repository at root
// (sweeps/specs/<name>.json, merged into <root>/build/sweeps/<name>/ or $DPRL_SWEEPS/<name>; see
// sweep.LoadFrom) and says on out which numbers follow: the full-size sweep's, with where they came from, or
// the default size's, with how to get the full size. The notebook kernels set $DPRL_ROOT to the repository
// and a notebook passes it; nothing here depends on the working directory.
//
// ok is false when no merged result is there, or when root is empty (the package used outside the
// repository): the caller runs its default size. A result that is there but does not check out (a corrupted
// file, or a checked-in spec changed since it was computed) is an error: a figure never falls back silently
// from a result the user asked for.
func FullSize(out report.Sink, root, name string) (r *sweep.Result, ok bool, err error) {
	if root == "" {
		return nil, false, nil
	}
	r, ok, err = sweep.LoadFrom(root, name)
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

// RunSeeds are the seeds behind a figure whose run s of every condition draws from rand.NewPCG(Base, s).
type RunSeeds struct {
	Base  uint64
	Seeds []uint64 // in increasing order
}

// FirstRunSeeds is runs 0 … n − 1 from base: what a default size runs.
func FirstRunSeeds(base uint64, n int) RunSeeds {
	s := RunSeeds{Base: base, Seeds: make([]uint64, n)}
	for i := range s.Seeds {
		s.Seeds[i] = uint64(i)
	}
	return s
}

// SweepRunSeeds is the run seeds of the merged sweep r: its params.base_seed (def when the spec leaves it to
// the experiment's default) and its seeds in increasing order.
func SweepRunSeeds(r *sweep.Result, def uint64) (RunSeeds, error) {
	b, err := SweepParam(r, "base_seed", strconv.FormatUint(def, 10))
	if err != nil {
		return RunSeeds{}, err
	}
	base, err := strconv.ParseUint(b, 10, 64)
	if err != nil {
		return RunSeeds{}, fmt.Errorf("repro: sweep %s: base_seed %s: %w", r.Spec.Name, b, err)
	}
	s := RunSeeds{Base: base, Seeds: r.Spec.Seeds.Values()}
	slices.Sort(s.Seeds)
	return s, nil
}

// Equal reports whether s and o are the same runs: the same base and the same seeds.
func (s RunSeeds) Equal(o RunSeeds) bool { return s.Base == o.Base && slices.Equal(s.Seeds, o.Seeds) }
