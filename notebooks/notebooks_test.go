// This folder holds the project's GoNB notebooks (00-tour … 07-ad-hoc), stored without outputs; it has no Go
// code of its own, only these tests: every notebook is stored the way the project expects, and its Go
// type-checks and drops no error. Run the notebooks with `make notebooks`.
package notebooks

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/dprl-project/dprl/kernels"
)

// The notebooks, by number prefix: DEVELOPERS.md and the tour name them in this order.
var prefixes = map[string]string{
	"00": "tour", "01": "mechanisms and accounting", "02": "Balle et al. 2016", "03": "Xie et al. 2019",
	"04": "Wang & Hegde 2019", "05": "Sharma et al.", "06": "Seo & Yang 2020", "07": "ad-hoc analysis",
}

var name = regexp.MustCompile(`^(\d\d)-[a-z0-9]+(-[a-z0-9]+)*\.ipynb$`)

// TestNotebooksAreStoredStripped checks every notebook in this folder: a known number prefix, a lower-case
// hyphenated name, nbformat 4.5 with cell ids, the project kernel, the setup cell first, and no outputs.
func TestNotebooksAreStoredStripped(t *testing.T) {
	paths, err := filepath.Glob("*.ipynb")
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Fatal("no notebooks found")
	}
	seen := map[string]string{}
	for _, p := range paths {
		t.Run(p, func(t *testing.T) {
			m := name.FindStringSubmatch(p)
			if m == nil {
				t.Fatalf("name %q is not NN-lower-case-words.ipynb", p)
			}
			if _, ok := prefixes[m[1]]; !ok {
				t.Errorf("prefix %s is not one of the project's notebook numbers", m[1])
			}
			if other, dup := seen[m[1]]; dup {
				t.Errorf("prefix %s is used by %s too", m[1], other)
			}
			seen[m[1]] = p
			nb, err := kernels.ReadNotebookFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := kernels.CheckSource(nb); err != nil {
				t.Error(err)
			}
		})
	}
	if _, ok := seen["00"]; !ok {
		t.Error("the tour (00-tour.ipynb) is missing")
	}
}

// TestNoIgnoredErrors type-checks every notebook's Go and fails where a code cell drops an error: an error
// assigned to _ (`_ = f()`, `v, _ := f()`) or a call whose error result is not used at all (`display.Plot(p)`
// on a line of its own). A notebook shows its errors with display.Check. A notebook whose Go does not
// type-check fails too: the check cannot vouch for it.
func TestNoIgnoredErrors(t *testing.T) {
	paths, err := filepath.Glob("*.ipynb")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no notebooks found (%v)", err)
	}
	programs := map[string]*notebookProgram{}
	var imports []string
	for _, p := range paths {
		nb, err := kernels.ReadNotebookFile(p)
		if err != nil {
			t.Fatal(err)
		}
		prog, err := gonbProgram(nb)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		programs[p] = prog
		imports = append(imports, prog.imports...)
	}
	importer := exportDataImporter(t, imports)
	for _, p := range paths {
		t.Run(p, func(t *testing.T) {
			for _, problem := range ignoredErrors(programs[p], importer) {
				t.Error(problem)
			}
		})
	}
}

// TestIgnoredErrorsFindsEveryForm: the check finds an error dropped with _, with a blank in a tuple, and by
// a call used as a statement, by cell, and passes an error handled with a check; a redeclaration in a later
// cell replaces the earlier one, as in GoNB.
func TestIgnoredErrorsFindsEveryForm(t *testing.T) {
	cell := func(src string) kernels.Cell { return kernels.Cell{CellType: "code", Source: kernels.Text(src)} }
	nb := &kernels.Notebook{Cells: []kernels.Cell{
		cell("!*echo setup"),
		cell("import (\n\t\"os\"\n\t\"strconv\"\n)\n\nfunc check(err error) {}\n\nvar n = 1"),
		cell("var n = \"one\""),
		cell("%%\nv, _ := strconv.Atoi(n)\n_ = os.Remove(\"x\")\nos.Remove(\"x\")\nw, err := strconv.Atoi(\"2\")\ncheck(err)\n_ = v + w"),
	}}
	prog, err := gonbProgram(nb)
	if err != nil {
		t.Fatal(err)
	}
	got := ignoredErrors(prog, exportDataImporter(t, prog.imports))
	want := []string{"cell 4: v, _ := strconv.Atoi(n): an error assigned to _", "cell 4: _ = os.Remove(\"x\"): an error assigned to _",
		"cell 4: os.Remove(\"x\"): a call's error is not used"}
	if len(got) != len(want) {
		t.Fatalf("found %q, want %d problems", got, len(want))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("problem %d: %q, want %q", i, got[i], want[i])
		}
	}
}

// notebookProgram is a notebook's Go as one file: the declarations of every cell (a later declaration of a
// name replaces an earlier one, as in GoNB) and each %% cell's body as a function of its own.
type notebookProgram struct {
	src     string
	cellOf  []int    // the notebook cell (1-based) of each line of src, 0 for generated lines
	imports []string // the import paths
}

// gonbProgram turns a notebook's code cells into a notebookProgram. Lines of shell (!) and magic (%)
// commands are left out; "%%" starts the cell's main body.
func gonbProgram(nb *kernels.Notebook) (*notebookProgram, error) {
	type decl struct {
		src  string
		cell int
	}
	var order []string
	decls := map[string]decl{}
	imports := map[string]string{} // path → the import spec as written
	prog := &notebookProgram{}
	var bodies []decl
	fset := token.NewFileSet()
	for i, c := range nb.Cells {
		if c.CellType != "code" {
			continue
		}
		var top, body []string
		inBody := false
		for _, l := range strings.Split(string(c.Source), "\n") {
			switch trimmed := strings.TrimSpace(l); {
			case trimmed == "%%" || trimmed == "%main":
				inBody = true
			case strings.HasPrefix(trimmed, "!") || strings.HasPrefix(trimmed, "%"):
				l = "" // keep the line numbers
				fallthrough
			default:
				if inBody {
					body = append(body, l)
				} else {
					top = append(top, l)
				}
			}
		}
		if inBody {
			bodies = append(bodies, decl{fmt.Sprintf("func cell%d() {\n%s\n}", i+1, strings.Join(body, "\n")), i + 1})
		}
		f, err := parser.ParseFile(fset, "", "package main\n"+strings.Join(top, "\n"), parser.SkipObjectResolution)
		if err != nil {
			return nil, fmt.Errorf("cell %d: %v", i+1, err)
		}
		src := "package main\n" + strings.Join(top, "\n")
		for _, d := range f.Decls {
			text := src[fset.Position(d.Pos()).Offset:fset.Position(d.End()).Offset]
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.IMPORT {
				for _, s := range g.Specs {
					spec := s.(*ast.ImportSpec)
					path, _ := strconv.Unquote(spec.Path.Value)
					imports[path] = src[fset.Position(spec.Pos()).Offset:fset.Position(spec.End()).Offset]
				}
				continue
			}
			name := declName(d)
			if _, seen := decls[name]; !seen {
				order = append(order, name)
			}
			decls[name] = decl{text, i + 1}
		}
	}
	var b strings.Builder
	add := func(text string, cell int) {
		b.WriteString(text + "\n")
		for range strings.Count(text, "\n") + 1 {
			prog.cellOf = append(prog.cellOf, cell)
		}
	}
	add("package main\n\nimport (", 0)
	for path, spec := range imports {
		add("\t"+spec, 0)
		prog.imports = append(prog.imports, path)
	}
	add(")", 0)
	for _, name := range order {
		add(decls[name].src, decls[name].cell)
	}
	for _, d := range bodies {
		add(d.src, d.cell)
	}
	prog.src = b.String()
	return prog, nil
}

// declName names a top-level declaration: its first name (methods by receiver and name).
func declName(d ast.Decl) string {
	switch d := d.(type) {
	case *ast.FuncDecl:
		if d.Recv != nil && len(d.Recv.List) > 0 {
			return types.ExprString(d.Recv.List[0].Type) + "." + d.Name.Name
		}
		return d.Name.Name
	case *ast.GenDecl:
		for _, s := range d.Specs {
			switch s := s.(type) {
			case *ast.ValueSpec:
				return s.Names[0].Name
			case *ast.TypeSpec:
				return s.Name.Name
			}
		}
	}
	return fmt.Sprintf("decl@%d", d.Pos())
}

// exportDataImporter compiles the packages the notebooks import (go list -export) and returns an importer
// that reads their export data.
func exportDataImporter(t *testing.T, imports []string) types.Importer {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to type-check the notebooks: %v", err)
	}
	slices.Sort(imports)
	args := append([]string{"list", "-export", "-deps", "-f", "{{.ImportPath}}\t{{.Export}}"}, slices.Compact(imports)...)
	var stderr bytes.Buffer
	cmd := exec.Command(gobin, args...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -export: %v\n%s", err, stderr.String())
	}
	exports := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, file, _ := strings.Cut(l, "\t")
		exports[path] = file
	}
	return importer.ForCompiler(token.NewFileSet(), "gc", func(path string) (io.ReadCloser, error) {
		file, ok := exports[path]
		if !ok || file == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(file)
	})
}

// ignoredErrors type-checks prog and lists where it drops an error, by notebook cell.
func ignoredErrors(prog *notebookProgram, imp types.Importer) []string {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "notebook.go", prog.src, parser.SkipObjectResolution)
	if err != nil {
		return []string{fmt.Sprintf("the notebook's Go does not parse: %v", err)}
	}
	var problems []string
	where := func(pos token.Pos) string {
		line := fset.Position(pos).Line
		return fmt.Sprintf("cell %d: %s", prog.cellOf[line-1], strings.TrimSpace(strings.Split(prog.src, "\n")[line-1]))
	}
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}}
	conf := types.Config{Importer: imp, Error: func(err error) {
		if te, ok := err.(types.Error); ok && !te.Soft { // unused imports and variables are GoNB's business
			problems = append(problems, fmt.Sprintf("%s does not type-check: %s", where(te.Pos), te.Msg))
		}
	}}
	_, _ = conf.Check("main", fset, []*ast.File{f}, info) // errors are collected by conf.Error
	if len(problems) > 0 {
		return problems
	}
	errorType := types.Universe.Lookup("error").Type().Underlying().(*types.Interface)
	isError := func(t types.Type) bool { return t != nil && types.Implements(t, errorType) }
	// dropped says which of the values of rhs, assigned to lhs, are errors assigned to _.
	dropped := func(lhs []ast.Expr, rhs []ast.Expr) {
		var results []types.Type
		if len(rhs) == 1 && len(lhs) > 1 {
			if tuple, ok := info.TypeOf(rhs[0]).(*types.Tuple); ok {
				for i := range tuple.Len() {
					results = append(results, tuple.At(i).Type())
				}
			}
		} else {
			for _, r := range rhs {
				results = append(results, info.TypeOf(r))
			}
		}
		for i, l := range lhs {
			if id, ok := l.(*ast.Ident); ok && id.Name == "_" && i < len(results) && isError(results[i]) {
				problems = append(problems, where(l.Pos())+": an error assigned to _ (show it with display.Check)")
			}
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			dropped(n.Lhs, n.Rhs)
		case *ast.ValueSpec:
			lhs := make([]ast.Expr, len(n.Names))
			for i, id := range n.Names {
				lhs[i] = id
			}
			dropped(lhs, n.Values)
		case *ast.ExprStmt:
			call, ok := n.X.(*ast.CallExpr)
			if !ok {
				break
			}
			switch t := info.TypeOf(call).(type) {
			case *types.Tuple:
				for i := range t.Len() {
					if isError(t.At(i).Type()) {
						problems = append(problems, where(call.Pos())+": a call's error is not used (show it with display.Check)")
						break
					}
				}
			default:
				if isError(t) {
					problems = append(problems, where(call.Pos())+": a call's error is not used (show it with display.Check)")
				}
			}
		}
		return true
	})
	return problems
}
