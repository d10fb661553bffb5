package claimtest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dprl-project/dprl/dprl/repro"
)

// fakeT records what a check reports instead of failing the test that runs it.
type fakeT struct {
	testing.TB
	errors  []string
	fatal   string
	skipped string
}

func (f *fakeT) Helper()                   {}
func (f *fakeT) Error(args ...any)         { f.errors = append(f.errors, fmt.Sprint(args...)) }
func (f *fakeT) Errorf(s string, a ...any) { f.errors = append(f.errors, fmt.Sprintf(s, a...)) }
func (f *fakeT) Fatal(args ...any)         { f.fatal = fmt.Sprint(args...); panic(f) }
func (f *fakeT) Fatalf(s string, a ...any) { f.fatal = fmt.Sprintf(s, a...); panic(f) }
func (f *fakeT) Skipf(s string, a ...any)  { f.skipped = fmt.Sprintf(s, a...); panic(f) }
func (f *fakeT) report() string            { return strings.Join(append(f.errors, f.fatal, f.skipped), " | ") }
func (f *fakeT) passed() bool              { return len(f.errors) == 0 && f.fatal == "" && f.skipped == "" }
func (f *fakeT) String() string            { return f.report() }

// run runs check, stopping where it calls Fatal or Skip; any other panic is the test's.
func (f *fakeT) run(check func(testing.TB)) {
	defer func() {
		if r := recover(); r != nil && r != f {
			panic(r)
		}
	}()
	check(f)
}

// inPackage runs the test in a fresh folder holding testdata/quotes.txt with the given text (none if empty),
// as a reproduction package's folder would.
func inPackage(t *testing.T, quotes string) {
	dir := t.TempDir()
	if quotes != "" {
		os.MkdirAll(filepath.Join(dir, "testdata"), 0o755)
		os.WriteFile(filepath.Join(dir, QuotesFile), []byte(quotes), 0o644)
	}
	t.Chdir(dir)
}

const quotesText = "# paper: p.txt\n\nWe show that GPOPE outperforms the output perturbation baselines by far.\n"

var (
	paperRow = repro.Claim{Key: "k", Kind: repro.KindPaper, Quote: "GPOPE outperforms the output perturbation baselines", Where: "§7", Verdict: repro.Inconclusive}
	oldRow   = repro.Claim{Key: "old", Verdict: repro.NotReproduced}
)

func TestRowsAndStrict(t *testing.T) {
	inPackage(t, quotesText)
	for name, c := range map[string]struct {
		check func(testing.TB)
		ok    bool
		says  string
	}{
		"rows: quote found": {func(t testing.TB) { Rows(t, []repro.Claim{paperRow, oldRow}) }, true, ""},
		"rows: misquote": {func(t testing.TB) {
			r := paperRow
			r.Quote = "GPOPE beats the output perturbation baselines"
			Rows(t, []repro.Claim{r})
		}, false, "not in the quotes file"},
		"rows: a rule broken":        {func(t testing.TB) { Rows(t, []repro.Claim{{Key: "x", Kind: "headline"}}) }, false, "kind"},
		"strict: complete":           {func(t testing.TB) { Strict(t, []repro.Claim{paperRow}) }, true, ""},
		"strict: unclassified":       {func(t testing.TB) { Strict(t, []repro.Claim{paperRow, oldRow}) }, false, `claim "old": no kind`},
		"strict: no rows":            {func(t testing.TB) { Strict(t, nil) }, false, "no claims rows"},
		"strict: paper row no where": {func(t testing.TB) { r := paperRow; r.Where = ""; Strict(t, []repro.Claim{r}) }, false, "without Where"},
	} {
		f := &fakeT{}
		f.run(c.check)
		if f.passed() != c.ok || !strings.Contains(f.report(), c.says) {
			t.Errorf("%s: passed %v (%s)", name, f.passed(), f.report())
		}
	}
}

func TestRowsWithoutQuotesFile(t *testing.T) {
	inPackage(t, "")
	f := &fakeT{}
	f.run(func(t testing.TB) { Rows(t, []repro.Claim{oldRow}) })
	if !f.passed() {
		t.Errorf("rows without quotes need no quotes file: %s", f)
	}
	f = &fakeT{}
	f.run(func(t testing.TB) { Rows(t, []repro.Claim{paperRow}) })
	if !strings.Contains(f.fatal, "quotes") {
		t.Errorf("a quote without a quotes file: %s", f)
	}
}

func TestQuotesInPaper(t *testing.T) {
	inPackage(t, quotesText)
	papers := t.TempDir()
	t.Setenv(PapersEnv, papers)
	os.WriteFile(filepath.Join(papers, "p.txt"), []byte("Abstract. We show that GPOPE outper-\nforms the output perturbation baselines by far. More."), 0o644)
	f := &fakeT{}
	f.run(QuotesInPaper)
	if !f.passed() {
		t.Errorf("the passage is in the paper: %s", f)
	}
	os.WriteFile(filepath.Join(papers, "p.txt"), []byte("We show that GPOPE matches the baselines."), 0o644)
	f = &fakeT{}
	f.run(QuotesInPaper)
	if len(f.errors) != 1 || !strings.Contains(f.errors[0], "passage not in p.txt") {
		t.Errorf("a passage not in the paper: %s", f)
	}
	os.Remove(filepath.Join(papers, "p.txt"))
	f = &fakeT{}
	f.run(QuotesInPaper)
	if !strings.Contains(f.fatal, `names paper "p.txt"`) {
		t.Errorf("a missing paper file: %s", f)
	}
	t.Setenv(PapersEnv, filepath.Join(papers, "absent"))
	f = &fakeT{}
	f.run(QuotesInPaper)
	if !strings.Contains(f.skipped, "the papers are not at") {
		t.Errorf("no papers folder: %s", f)
	}
}

// TestCellFunc: a notebook cell's function passes when it is the file's token for token (formatting aside),
// and fails when it differs, when no cell or two cells declare it, or when the file lacks it.
func TestCellFunc(t *testing.T) {
	dir := t.TempDir()
	notebook := func(name string, cells ...string) string {
		var parts []string
		for _, c := range append([]string{"import \"fmt\""}, cells...) {
			b, _ := json.Marshal(c)
			parts = append(parts, `{"cell_type": "code", "metadata": {}, "source": `+string(b)+`}`)
		}
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(`{"cells": [`+strings.Join(parts, ", ")+`], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}`), 0o644)
		return p
	}
	file := filepath.Join(dir, "f_test.go")
	os.WriteFile(file, []byte("package p\n\n// twice doubles x.\nfunc twice(x int) int {\n\treturn 2 * x\n}\n"), 0o644)
	for name, c := range map[string]struct {
		notebook, fn string
		ok           bool
		says         string
	}{
		"same":        {notebook("same.ipynb", "// twice doubles x.\nfunc twice(x int) int {\n  return 2*x\n}"), "twice", true, ""},
		"changed":     {notebook("changed.ipynb", "// twice doubles x.\nfunc twice(x int) int { return 3 * x }"), "twice", false, "differs"},
		"no cell":     {notebook("none.ipynb"), "twice", false, "0 cells"},
		"two cells":   {notebook("two.ipynb", "func twice(x int) int { return 2 * x }", "func twice(x int) int { return 2 * x }"), "twice", false, "2 cells"},
		"not in file": {notebook("other.ipynb", "func thrice(x int) int { return 3 * x }"), "thrice", false, "no func thrice"},
	} {
		f := &fakeT{}
		f.run(func(t testing.TB) { CellFunc(t, c.notebook, file, c.fn) })
		if f.passed() != c.ok || !strings.Contains(f.report(), c.says) {
			t.Errorf("%s: passed %v (%s)", name, f.passed(), f.report())
		}
	}
}
