package repro_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dprl-project/dprl/dprl/param"
	"github.com/dprl-project/dprl/dprl/report"
	"github.com/dprl-project/dprl/dprl/repro"
	"github.com/dprl-project/dprl/dprl/sweep"
	"github.com/dprl-project/dprl/dprl/sweep/sweeptest"
)

func init() {
	sweep.Register("repro/test-square", sweep.Func{Cols: []string{"y"}, Doc: "y = x² + seed (a test experiment)",
		Do: func(p sweep.Params, seed uint64) ([][]string, error) {
			x, err := p.Float("x", 0, param.Finite)
			if err != nil {
				return nil, err
			}
			return [][]string{{sweep.FormatValue(x*x + float64(seed))}}, nil
		}})
}

const squareSpec = `{"name": "square", "experiment": "repro/test-square", "grid": {"x": [1, 2, 3]}, "seeds": {"first": 0, "count": 4}, "shard_size": 5}`

func TestFullSize(t *testing.T) {
	root := sweeptest.Root(t)
	rec := &report.Recorder{}
	if r, ok, err := repro.FullSize(rec, root, "square"); r != nil || ok || err != nil {
		t.Fatalf("no result: %v %v %v", r, ok, err)
	}
	if md := strings.Join(rec.Markdowns(), "\n"); !strings.Contains(md, "Default size") || !strings.Contains(md, "sweeps/specs/square.json") {
		t.Errorf("absent: %q", md)
	}

	sweeptest.Merge(t, squareSpec)
	dir, _ := sweep.Dir("square")
	// The root given decides, not $DPRL_ROOT or the working directory.
	t.Setenv(sweep.RootEnv, t.TempDir())
	wd, _ := os.Getwd()
	defer os.Chdir(wd)
	os.Chdir(t.TempDir())
	rec = &report.Recorder{}
	r, ok, err := repro.FullSize(rec, root, "square")
	if !ok || err != nil || len(r.Table.Rows) != 12 {
		t.Fatalf("merged: %v %v", ok, err)
	}
	if md := strings.Join(rec.Markdowns(), "\n"); !strings.Contains(md, "Full size") || !strings.Contains(md, "merged sweep square from "+dir) {
		t.Errorf("present: %q", md)
	}

	// A corrupted result is an error, never a silent fallback to the default size.
	os.WriteFile(filepath.Join(dir, sweep.MergedFile), []byte("y\n1\n"), 0o644)
	if _, ok, err := repro.FullSize(&report.Recorder{}, root, "square"); ok || err == nil || !strings.Contains(err.Error(), "checksum") {
		t.Errorf("corrupt: %v %v", ok, err)
	}

	// No repository root (the package used outside the repository): default size, no note, no error.
	rec = &report.Recorder{}
	if _, ok, err := repro.FullSize(rec, "", "square"); ok || err != nil || len(rec.Items) != 0 {
		t.Errorf("no root: %v %v %d items", ok, err, len(rec.Items))
	}
}

func TestSeedRange(t *testing.T) {
	for _, c := range []struct {
		seeds []uint64
		want  string
	}{
		{[]uint64{0, 1, 2, 3}, "= 0 … 3"},
		{[]uint64{7}, "= 7 … 7"},
		{[]uint64{1, 5, 9}, "∈ {1, 5, 9}"},
		{[]uint64{3, 2, 1}, "∈ {3, 2, 1}"},
		{[]uint64{0, 2, 1}, "∈ {0, 2, 1}"},
		{nil, "∈ {}"},
	} {
		if got := repro.SeedRange(c.seeds); got != c.want {
			t.Errorf("SeedRange(%v) = %q, want %q", c.seeds, got, c.want)
		}
	}
}

func TestRunSeeds(t *testing.T) {
	a := repro.FirstRunSeeds(2019, 3)
	if a.Base != 2019 || !slices.Equal(a.Seeds, []uint64{0, 1, 2}) {
		t.Errorf("FirstRunSeeds = %+v", a)
	}
	if !a.Equal(repro.RunSeeds{Base: 2019, Seeds: []uint64{0, 1, 2}}) || a.Equal(repro.FirstRunSeeds(2020, 3)) || a.Equal(repro.FirstRunSeeds(2019, 4)) {
		t.Error("Equal")
	}
	sweeptest.Root(t)
	sweeptest.Merge(t, `{"name": "seeded", "experiment": "repro/test-square", "params": {"base_seed": 7}, "grid": {"x": [1]}, "seeds": [5, 2, 9], "shard_size": 3}`)
	r, _, err := sweep.Load("seeded")
	if err != nil {
		t.Fatal(err)
	}
	if s, err := repro.SweepRunSeeds(r, 1); err != nil || !s.Equal(repro.RunSeeds{Base: 7, Seeds: []uint64{2, 5, 9}}) {
		t.Errorf("SweepRunSeeds = %+v, %v", s, err)
	}
}
