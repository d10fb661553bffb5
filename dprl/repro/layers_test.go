package repro_test

import (
	"bytes"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/dprl-project/dprl/"

// goList runs `go list` with args and returns its output lines.
func goList(t *testing.T, args ...string) []string {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to read the package graph: %v", err)
	}
	var stderr bytes.Buffer
	cmd := exec.Command(gobin, append([]string{"list"}, args...)...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return strings.Split(strings.TrimSpace(string(out)), "\n")
}

// TestEstimatorsCompileNoSimulator: estimating a value from a trajectory file must not compile the
// simulators (package envs) nor the physics engine LunarLander needs (Box2D); the estimators read package
// trajectory. On failure it names the packages that import the offender.
func TestEstimatorsCompileNoSimulator(t *testing.T) {
	for _, pkg := range []string{"dprl/policyeval", "dprl/repro/adhoc"} {
		// every dependency with its imports, so a failure can say who brings the offender in
		lines := goList(t, "-deps", "-f", "{{.ImportPath}}:{{join .Imports \" \"}}", module+pkg)
		for _, bad := range []string{module + "envs", "github.com/ByteArena/box2d"} {
			var importers []string
			found := false
			for _, l := range lines {
				path, imports, _ := strings.Cut(l, ":")
				found = found || path == bad
				if slices.Contains(strings.Fields(imports), bad) {
					importers = append(importers, path)
				}
			}
			if found {
				t.Errorf("%s compiles %s (imported by %s)", pkg, bad, strings.Join(importers, ", "))
			}
		}
		if !slices.ContainsFunc(lines, func(l string) bool { return strings.HasPrefix(l, module+"trajectory:") }) {
			t.Errorf("%s does not depend on package trajectory: is the check reading the right graph?", pkg)
		}
	}
}
