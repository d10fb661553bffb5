// Package claimtest checks a reproduction's claims rows in its tests: the rules of the claim model
// (repro.CheckRules), the quotes against the package's copy of the paper's sentences (testdata/quotes.txt,
// see repro.Quotes), and that copy against the paper itself when the papers are at hand.
//
// Every reproduction package's tests call Rows (or Strict, once the package's rows are complete) on the rows
// its figure functions record (report.Recorder.ClaimRows), and QuotesInPaper once; CellFunc keeps a
// notebook's "algorithm in code" cell equal to the copy the package's tests run.
package claimtest

import (
	"errors"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/dprl-project/dprl/dprl/repro"
	"github.com/dprl-project/dprl/kernels"
)

// QuotesFile is where a reproduction package keeps the sentences its claims quote, relative to the
// package's folder (a test's working directory).
const QuotesFile = "testdata/quotes.txt"

// PapersEnv names the folder holding the papers' texts; when unset, shared/papers beside the repository
// (../shared/papers from its root, where CI puts them).
const PapersEnv = "DPRL_PAPERS"

// Rows fails t for every row that breaks the claim model's rules (repro.CheckRules) or quotes words that are
// not in the package's quotes file. Rows without a Kind, Quote or comparison pass as long as the rules hold:
// what the package's rows have not yet been rewritten to carry is not asked for.
func Rows(t testing.TB, rows []repro.Claim) {
	t.Helper()
	var q *repro.Quotes
	for _, c := range rows {
		err := repro.CheckRules(c)
		if c.Quote != "" {
			if q == nil {
				q = quotes(t)
			}
			err = errors.Join(err, q.Check(c.Quote))
		}
		if err != nil {
			t.Error(err)
		}
	}
}

// Strict fails t for every row that is not complete (repro.CheckStrict against the package's quotes file):
// the mode a reproduction switches on once its rows carry their kind, quotes, trivial references and
// privacy lists. It also fails when there are no rows.
func Strict(t testing.TB, rows []repro.Claim) {
	t.Helper()
	if len(rows) == 0 {
		t.Error("claimtest: no claims rows to check")
	}
	q := quotes(t)
	for _, c := range rows {
		if err := repro.CheckStrict(c, q); err != nil {
			t.Error(err)
		}
	}
}

// quotes reads the package's quotes file, failing the test now when it cannot.
func quotes(t testing.TB) *repro.Quotes {
	t.Helper()
	q, err := repro.ReadQuotes(QuotesFile)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// QuotesInPaper checks the package's quotes file against the paper: the file names a paper that is in the
// papers folder, and every passage is in its text (repro.CheckPassages). The papers are not in the
// repository: the test is skipped, saying so, when the folder ($DPRL_PAPERS, else ../shared/papers beside
// the repository) does not exist; CI has it.
func QuotesInPaper(t testing.TB) {
	t.Helper()
	q := quotes(t)
	dir := PapersDir()
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("claimtest: the papers are not at %s (set %s to their folder): %s not checked against the paper", dir, PapersEnv, QuotesFile)
	}
	text, err := repro.ReadPaper(filepath.Join(dir, q.Paper))
	if err != nil {
		t.Fatalf("claimtest: %s names paper %q: %v", QuotesFile, q.Paper, err)
	}
	if err := repro.CheckPassages(q, text); err != nil {
		t.Error(err)
	}
}

// PapersDir is the folder of the papers' texts: $DPRL_PAPERS, else shared/papers beside the repository
// this package was compiled from.
func PapersDir() string {
	if d := os.Getenv(PapersEnv); d != "" {
		return d
	}
	_, file, _, _ := runtime.Caller(0) // <root>/dprl/repro/claimtest/claimtest.go
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "..", "shared", "papers")
}

// CellFunc checks a notebook's "algorithm in code" cell against the copy a test of the package runs: the
// notebook at notebook (a path from the package's folder) has exactly one code cell declaring func name, and
// that declaration, doc comment included, is the one in the package's Go file file, token for token once both
// are formatted by gofmt. So the cell a reader changes and the code the test checks cannot drift apart.
func CellFunc(t testing.TB, notebook, file, name string) {
	t.Helper()
	nb, err := kernels.ReadNotebookFile(notebook)
	if err != nil {
		t.Fatal(err)
	}
	var cells []string
	for _, c := range nb.Cells {
		if src := string(c.Source); c.CellType == "code" && strings.Contains(src, "func "+name+"(") {
			cells = append(cells, src)
		}
	}
	if len(cells) != 1 {
		t.Fatalf("claimtest: %d cells of %s declare %s, want 1", len(cells), notebook, name)
	}
	self, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	inCell, err := funcSource("package p\n"+cells[0], name)
	if err != nil {
		t.Fatalf("claimtest: %s: %v", notebook, err)
	}
	inFile, err := funcSource(string(self), name)
	if err != nil {
		t.Fatalf("claimtest: %s: %v", file, err)
	}
	if inCell != inFile {
		t.Errorf("claimtest: %s's %s differs from %s's:\nnotebook:\n%s\nfile:\n%s", notebook, name, file, inCell, inFile)
	}
}

// funcSource is the text of the declaration, doc comment included, of the function name in the Go source
// src, formatted by gofmt.
func funcSource(src, name string) (string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, parser.ParseComments)
	if err != nil {
		return "", err
	}
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Name.Name == name {
			start := fd.Pos()
			if fd.Doc != nil {
				start = fd.Doc.Pos()
			}
			out, err := format.Source([]byte(src[fset.Position(start).Offset:fset.Position(fd.End()).Offset]))
			return string(out), err
		}
	}
	return "", fmt.Errorf("no func %s", name)
}
