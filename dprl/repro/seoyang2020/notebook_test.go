package seoyang2020_test

import (
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/dprl-project/dprl/kernels"
)

// notebook is notebook 06, whose cells the tests below compile.
const notebook = "../../../notebooks/06-seo2020-dp-actor.ipynb"

// algorithmMain runs the notebook's dpActor and actorcritic.Run from the same seeds on MDP-100 (λ = 0.8, so
// the library draws the actor's noise on every entry, as the notebook's code does) and prints, per seed,
// whether the returns and the final actor weights are the same.
const algorithmMain = `package main

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/dprl-project/dprl/dprl/actorcritic"
	"github.com/dprl-project/dprl/dprl/repro/seoyang2020"
	"github.com/dprl-project/dprl/envs"
)

func main() {
	d := seoyang2020.Domains()[0]
	for seed := range uint64(3) {
		env, err := envs.Make(d.Name)
		if err != nil {
			panic(err)
		}
		returns, u, err := dpActor(env, d, 4, rand.NewPCG(seed, 9))
		if err != nil {
			panic(err)
		}
		cfg := d.Base
		cfg.Variant, cfg.Episodes, cfg.Src = actorcritic.DPActor, 4, rand.NewPCG(seed, 9)
		env, err = envs.Make(d.Name)
		if err != nil {
			panic(err)
		}
		lib, err := actorcritic.Run(env, envs.TabularFeatures{N: d.NumStates}, cfg)
		if err != nil {
			panic(err)
		}
		fmt.Println(len(returns) == 4 && slices.Equal(returns, lib.Returns) && slices.Equal(u, lib.U))
	}
}
`

// TestAlgorithmCellIsTheLibrary compiles the notebook's "algorithm in code" cell (Algorithm 2 written out,
// func dpActor) with a main that runs it beside actorcritic.Run from the same seeds, and asserts that both
// give bit for bit the same returns and actor weights: the cell and the library cannot drift apart.
func TestAlgorithmCellIsTheLibrary(t *testing.T) {
	nb, err := kernels.ReadNotebookFile(notebook)
	if err != nil {
		t.Fatal(err)
	}
	var imports, cell string
	for _, c := range nb.Cells {
		switch src := string(c.Source); {
		case c.CellType != "code":
		case imports == "" && strings.HasPrefix(src, "import ("):
			imports = src
		case strings.Contains(src, "\nfunc dpActor("):
			cell = src
		}
	}
	if imports == "" || cell == "" || strings.Contains(cell, "%%") {
		t.Fatalf("no imports cell or no declaration cell with func dpActor in %s", notebook)
	}
	src, err := withUsedImports("package main\n\n" + imports + "\n" + cell)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for name, src := range map[string]string{"cell.go": src, "main.go": algorithmMain} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to compile the notebook's cell")
	}
	cmd := exec.Command(gobin, "run", filepath.Join(dir, "cell.go"), filepath.Join(dir, "main.go"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the cell does not run: %v\n%s", err, out)
	}
	if got := strings.Fields(string(out)); len(got) != 3 || strings.Join(got, " ") != "true true true" {
		t.Errorf("the notebook's dpActor and actorcritic.Run differ from the same seed (per seed: %q)", out)
	}
}

// withUsedImports is the Go file src without the imports it does not use (the notebook's imports cell serves
// every cell; a Go file may import only what it uses).
func withUsedImports(src string) (string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "cell.go", src, parser.ParseComments)
	if err != nil {
		return "", err
	}
	used := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok {
				used[id.Name] = true
			}
		}
		return true
	})
	for _, d := range f.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.IMPORT {
			g.Specs = slices.DeleteFunc(g.Specs, func(s ast.Spec) bool {
				is := s.(*ast.ImportSpec)
				path, _ := strconv.Unquote(is.Path.Value)
				name := path[strings.LastIndex(path, "/")+1:]
				if strings.HasSuffix(path, "/v2") {
					name = path[strings.LastIndex(path[:len(path)-3], "/")+1 : len(path)-3]
				}
				if is.Name != nil {
					name = is.Name.Name
				}
				return !used[name]
			})
		}
	}
	var b strings.Builder
	if err := format.Node(&b, fset, f); err != nil {
		return "", err
	}
	return b.String(), nil
}
