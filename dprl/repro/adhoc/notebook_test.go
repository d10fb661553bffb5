package adhoc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dprl-project/dprl/dprl/display"
	"github.com/dprl-project/dprl/dprl/experiment"
	"github.com/dprl-project/dprl/dprl/session"
	"github.com/dprl-project/dprl/kernels"

	"github.com/janpfeifer/gonb/gonbui/protocol"
)

// notebook07 is the notebook this package's workflow is shown in, from this folder.
const notebook07 = "../../../notebooks/07-ad-hoc-private-estimators.ipynb"

// cellProgram turns a GoNB notebook's code cells into one Go program that runs cell i when called with
// argument i, the way GoNB runs it: each cell's lines before "%%" are declarations kept for every later
// cell, the lines after it the body of main; "!" lines are shell commands (the setup cell) and are left out.
// It returns the program and, per code cell, its body ("" for a cell of declarations only).
func cellProgram(doc *kernels.Notebook) (string, []string, error) {
	imports := map[string]string{`"os"`: "", `"fmt"`: ""}
	var decls, funcs, cases strings.Builder
	var bodies []string
	fset := token.NewFileSet()
	for i, c := range doc.Cells {
		if c.CellType != "code" {
			continue
		}
		var pre, body []string
		inBody := false
		for _, ln := range strings.Split(string(c.Source), "\n") {
			switch {
			case strings.HasPrefix(ln, "!"):
			case strings.TrimSpace(ln) == "%%":
				inBody = true
			case inBody:
				body = append(body, ln)
			default:
				pre = append(pre, ln)
			}
		}
		src := "package main\n" + strings.Join(pre, "\n")
		f, err := parser.ParseFile(fset, fmt.Sprintf("cell%d.go", i), src, 0)
		if err != nil {
			return "", nil, fmt.Errorf("cell %d: %w", i, err)
		}
		for _, d := range f.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.IMPORT {
				for _, s := range g.Specs {
					is := s.(*ast.ImportSpec)
					name := ""
					if is.Name != nil {
						name = is.Name.Name
					}
					imports[is.Path.Value] = name
				}
				continue
			}
			decls.WriteString(src[fset.Position(d.Pos()).Offset:fset.Position(d.End()).Offset] + "\n\n")
		}
		bodies = append(bodies, strings.Join(body, "\n"))
		if inBody {
			fmt.Fprintf(&funcs, "func cell%d() {\n%s\n}\n\n", len(bodies)-1, strings.Join(body, "\n"))
			fmt.Fprintf(&cases, "\tcase \"%d\":\n\t\tcell%d()\n", len(bodies)-1, len(bodies)-1)
		}
	}
	var b strings.Builder
	b.WriteString("package main\n\nimport (\n")
	for path, name := range imports {
		fmt.Fprintf(&b, "\t%s %s\n", name, path)
	}
	b.WriteString(")\n\n")
	b.WriteString(decls.String())
	b.WriteString(funcs.String())
	fmt.Fprintf(&b, "func main() {\n\tswitch os.Args[1] {\n%s\tdefault:\n\t\tfmt.Fprintln(os.Stderr, \"no cell\", os.Args[1])\n\t\tos.Exit(2)\n\t}\n}\n", cases.String())
	return b.String(), bodies, nil
}

// moduleRoot is the folder of go.mod above this one.
func moduleRoot(t *testing.T) string {
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the package")
		}
		dir = parent
	}
}

// cellRun is one cell's process: its exit status and output.
type cellRun struct {
	code         int
	stdout, errs string
}

// TestNotebookTwiceOnOneFile runs notebook 07 twice on one file, each code cell as a process of its own
// (as GoNB runs it, so the budget must survive between cells as between kernels), in quick mode, headless,
// with a store and temporary folder of its own. Each run is a kernel of its own ($GONB_TMP_DIR, the same for
// all of a run's cells): the notebook's files go to that kernel's folder, not to a folder two runs share.
// The first run has no error; in the second, every planning cell runs again, and the first cell that
// releases on the private file stops with the budget error, readable, not a panic. The ledger cell after it
// shows the same ledger in both runs: a restart does not change the budget.
func TestNotebookTwiceOnOneFile(t *testing.T) {
	nb, err := kernels.ReadNotebookFile(notebook07)
	if err != nil {
		t.Fatal(err)
	}
	prog, bodies, err := cellProgram(nb)
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	root := moduleRoot(t)
	main := filepath.Join(tmp, "main.go")
	if err := os.WriteFile(main, []byte(prog), 0o600); err != nil {
		t.Fatal(err)
	}
	// the program is built inside the module (its go.mod pins everything) through an overlay: nothing is
	// written to the checkout
	virtual := filepath.Join(root, "dprl", "repro", "adhoc", "internal", "notebook07", "main.go")
	overlay, _ := json.Marshal(map[string]map[string]string{"Replace": {virtual: main}})
	if err := os.WriteFile(filepath.Join(tmp, "overlay.json"), overlay, 0o600); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(tmp, "notebook07")
	gobin, err := exec.LookPath("go") // go test puts its own go first on PATH
	if err != nil {
		t.Fatal(err)
	}
	build := exec.Command(gobin, "build", "-overlay", filepath.Join(tmp, "overlay.json"), "-o", bin, "./dprl/repro/adhoc/internal/notebook07")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the notebook's cells: %v\n%s\n%s", err, out, prog)
	}
	env := append(os.Environ(), "TMPDIR="+tmp, session.StoreEnv+"="+filepath.Join(tmp, "budgets"), experiment.QuickEnv+"=1",
		display.HeadlessEnv+"=1", "DPRL_FIGURE_DIR="+filepath.Join(tmp, "figures"))
	runAll := func(kernel string) []cellRun {
		runs := make([]cellRun, len(bodies))
		for i, body := range bodies {
			if body == "" {
				continue
			}
			cmd := exec.Command(bin, strconv.Itoa(i))
			cmd.Env = append(env, protocol.GONB_TMP_DIR_ENV+"="+kernel)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			runs[i] = cellRun{code: cmd.ProcessState.ExitCode(), stdout: stdout.String(), errs: stderr.String()}
			if err != nil && runs[i].code <= 0 {
				t.Fatalf("cell %d did not run: %v", i, err)
			}
		}
		return runs
	}
	releases := func(body string) bool {
		for _, f := range []string{".ReleaseBest(", ".Release(", ".SelectPrivately(", ".PrivateEstimateDraw("} {
			if strings.Contains(body, f) {
				return true
			}
		}
		return false
	}
	firstPrivate, ledgerCell := -1, -1
	for i, b := range bodies {
		if firstPrivate < 0 && releases(b) {
			firstPrivate = i
		}
		if strings.Contains(b, "analysis.Ledger(") {
			ledgerCell = i
		}
	}
	if firstPrivate < 0 || ledgerCell < firstPrivate {
		t.Fatalf("notebook 07 has no release (cell %d) followed by its ledger (cell %d)", firstPrivate, ledgerCell)
	}

	kernels := [2]string{filepath.Join(tmp, "kernel1"), filepath.Join(tmp, "kernel2")}
	first := runAll(kernels[0])
	for i, r := range first {
		if r.code != 0 || strings.Contains(r.errs, "panic:") {
			t.Errorf("first run, cell %d (%q): exit %d\n%s", i, strings.TrimSpace(bodies[i]), r.code, r.errs)
		}
	}
	for _, f := range []string{"trajectories.csv", "synthetic.csv", "sweep.csv"} {
		if _, err := os.Stat(filepath.Join(kernels[0], "dprl-07", f)); err != nil {
			t.Errorf("first run: %s not in its kernel's folder: %v", f, err)
		}
	}
	if _, err := os.Stat(filepath.Join(tmp, "dprl-07")); err == nil {
		t.Errorf("first run wrote to %s, a folder every run shares", filepath.Join(tmp, "dprl-07"))
	}
	second := runAll(kernels[1])
	for i, r := range second[:firstPrivate] {
		if r.code != 0 {
			t.Errorf("second run, planning cell %d: exit %d\n%s", i, r.code, r.errs)
		}
	}
	refused := second[firstPrivate]
	if refused.code != 1 || strings.Contains(refused.errs, "panic:") || !strings.Contains(refused.errs, "error: session: privacy budget exhausted") ||
		!strings.Contains(refused.errs, "Nothing was released") {
		t.Errorf("second run, first private cell %d: exit %d, stderr %q; want the budget error", firstPrivate, refused.code, refused.errs)
	}
	ledger := func(out string) string { // the ledger's table, without the figure's file name
		var keep []string
		for _, ln := range strings.Split(out, "\n") {
			if !strings.HasPrefix(ln, "[figure written to") {
				keep = append(keep, ln)
			}
		}
		return strings.Join(keep, "\n")
	}
	if a, b := ledger(first[ledgerCell].stdout), ledger(second[ledgerCell].stdout); second[ledgerCell].code != 0 || a != b || !strings.Contains(a, "ε = 0, δ = 0") {
		t.Errorf("the ledger after the second run differs or is not spent:\nfirst:\n%s\nsecond:\n%s", a, b)
	}
	t.Logf("second run refused at cell %d:\n%s", firstPrivate, refused.errs)
}
