// Package sweeptest helps test code that reads merged sweeps (sweep.Load, repro.FullSize): a temporary
// repository root, and a small sweep run and merged under a checked-in spec's name, as `make sweep-local`
// leaves a full-size one, so that a test sees the full-size path without running the full size.
package sweeptest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/dprl-project/dprl/dprl/sweep"
)

// Root points sweep.Root at a new temporary directory for the rest of the test ($DPRL_ROOT set to it,
// $DPRL_SWEEPS cleared, both restored afterwards) and returns it: no merged sweep is there until Merge.
func Root(t testing.TB) string {
	t.Helper()
	root := t.TempDir()
	t.Setenv(sweep.RootEnv, root)
	t.Setenv(sweep.SweepsEnv, "")
	return root
}

// Merge parses spec (JSON), writes it as the checked-in spec <root>/sweeps/specs/<name>.json of the
// current root (call Root first), runs every shard into sweep.Dir(name) and merges them. It returns the
// parsed spec; any failure fails the test.
func Merge(t testing.TB, spec string) *sweep.Spec {
	t.Helper()
	s, err := sweep.ParseSpec([]byte(spec))
	if err != nil {
		t.Fatal(err)
	}
	path, err := sweep.SpecPath(s.Name)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, s.Canonical(), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := sweep.NewPlan(s)
	if err != nil {
		t.Fatal(err)
	}
	dir, err := sweep.Dir(s.Name)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.RunLocal(sweep.RunOptions{Dir: dir}); err != nil {
		t.Fatal(err)
	}
	return s
}
