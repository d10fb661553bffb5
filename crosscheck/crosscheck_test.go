package crosscheck

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"testing"
)

// python returns the cross-check environment's interpreter (Python) or stops the test: skipped when the
// environment is absent, unless DPRL_CROSSCHECK=1 (set by `make crosscheck`), which makes its absence a
// failure. DPRL_CROSSCHECK=0 skips (`make unit` sets it: `make crosscheck` runs these tests).
func python(t *testing.T) string {
	t.Helper()
	return need(t, Python, "make crosscheck", "crosscheck/venv.sh")
}

// perfPython is python for the performance-anchor environment (PerfPython, with PyTorch and Opacus), which
// `make crosscheck-perf` (run by `make bench`) builds.
func perfPython(t *testing.T) string {
	t.Helper()
	return need(t, PerfPython, "make crosscheck-perf", "crosscheck/venv.sh perf")
}

// need returns the interpreter find reports, or skips or fails t as python says; target and script name
// what builds the environment.
func need(t *testing.T, find func() (string, bool), target, script string) string {
	t.Helper()
	if os.Getenv("DPRL_CROSSCHECK") == "0" {
		t.Skip("DPRL_CROSSCHECK=0: the live cross-checks run in `" + target + "`")
	}
	p, ok := find()
	if ok {
		return p
	}
	msg := fmt.Sprintf("no reference environment at %s: run `%s` (or %s)", p, target, script)
	if os.Getenv("DPRL_CROSSCHECK") == "1" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

func logUniform(r *rand.Rand, lo, hi float64) float64 {
	return math.Exp(math.Log(lo) + r.Float64()*(math.Log(hi)-math.Log(lo)))
}

// relDiff is |a−b|/|b| (0 when both are 0).
func relDiff(a, b float64) float64 {
	if a == b {
		return 0
	}
	return math.Abs(a-b) / math.Abs(b)
}
