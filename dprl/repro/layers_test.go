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

// gatherers are the packages under dprl/repro whose job is to gather every paper: accounting (notebooks 00
// and 01 set each paper's constants side by side) and sweeps (registers each paper's experiments for the
// dprl command; the papers' full-size tests import it for that). Every other sub-package is one paper or one
// walkthrough and stands alone.
var gatherers = []string{"accounting", "sweeps"}

// shared are the packages under dprl/repro that every reproduction may import, as it imports repro itself:
// claimtest (the claim model's checks, for the reproductions' tests).
var shared = []string{"claimtest"}

// TestReproductionsImportNoOtherReproduction: no package under dprl/repro/<paper> imports (in its code or its
// tests) a package under another dprl/repro/<paper>; what two reproductions share belongs in the library.
// The gatherers and the shared packages are neither checked nor counted as papers.
func TestReproductionsImportNoOtherReproduction(t *testing.T) {
	const root = module + "dprl/repro/"
	// paper returns the reproduction a package path belongs to ("" outside dprl/repro/<paper>).
	paper := func(path string) string {
		rest, ok := strings.CutPrefix(path, root)
		if !ok {
			return ""
		}
		name, _, _ := strings.Cut(rest, "/")
		return name
	}
	lines := goList(t, "-f", "{{.ImportPath}}:{{join .Imports \" \"}} {{join .TestImports \" \"}} {{join .XTestImports \" \"}}", root+"...")
	papers := map[string]bool{}
	for _, l := range lines {
		path, imports, _ := strings.Cut(l, ":")
		from := paper(path)
		papers[from] = true
		if from == "" || slices.Contains(gatherers, from) || slices.Contains(shared, from) {
			continue
		}
		for _, imp := range strings.Fields(imports) {
			if to := paper(imp); to != "" && to != from && !slices.Contains(gatherers, to) && !slices.Contains(shared, to) {
				t.Errorf("%s imports %s: reproduction %s depends on reproduction %s", strings.TrimPrefix(path, module), strings.TrimPrefix(imp, module), from, to)
			}
		}
	}
	for _, want := range []string{"balle2016", "xie2019", "adhoc"} {
		if !papers[want] {
			t.Errorf("go list found no package of %s: is the check reading the right graph?", want)
		}
	}
}
