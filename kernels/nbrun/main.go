package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/dprl-project/dprl/dprl/display"
	"github.com/dprl-project/dprl/dprl/experiment"
	"github.com/dprl-project/dprl/dprl/report"
	"github.com/dprl-project/dprl/dprl/repro"
	"github.com/dprl-project/dprl/dprl/session"
	"github.com/dprl-project/dprl/kernels"
)

func main() {
	out := flag.String("out", "build/notebooks", "folder for executed notebooks and HTML reports")
	quick := flag.Bool("quick", false, "set "+experiment.QuickEnv+"=1: fewer trials, same code paths (CI)")
	kernel := flag.String("kernel", "gonb-dprl-batch", "Jupyter kernel spec to execute with")
	jupyter := flag.String("jupyter", "jupyter", "the jupyter command (make passes the project environment's build/venv/bin/jupyter)")
	shot := flag.String("screenshot", "", "notebook whose HTML report to screenshot in headless Chromium and check for a plot")
	chromium := flag.String("chromium", "chromium", "the Chromium binary for -screenshot")
	verbose := flag.Bool("v", false, "show nbconvert's output")
	strict := flag.Bool("strict-claims", false, "fail when a claims row breaks the claim model's rules, has a NaN, fewer than 10 seeds or a verdict other than reproduced / not reproduced / inconclusive")
	flag.Parse()

	paths, err := notebookPaths(flag.Args())
	if err != nil {
		fail(err)
	}
	r := &kernels.Runner{OutDir: *out, Kernel: *kernel, Jupyter: *jupyter}
	// No browser is attached: interactive explorers draw their default state instead of waiting for widgets.
	r.Env = append(r.Env, display.HeadlessEnv+"=1")
	if *quick {
		r.Env = append(r.Env, experiment.QuickEnv+"=1")
	}
	// Privacy budgets (notebook 07) go to a store of this run's own, emptied first: a run is a fresh
	// analysis, and a user's own budgets (~/.local/state/dprl) are neither read nor spent.
	budgets, err := filepath.Abs(filepath.Join(*out, "budgets"))
	if err != nil {
		fail(err)
	}
	if err := os.RemoveAll(budgets); err != nil {
		fail(err)
	}
	r.Env = append(r.Env, session.StoreEnv+"="+budgets)
	if *verbose {
		r.Log = os.Stderr
	}
	mode := "default sizes"
	if *quick {
		mode = "quick mode"
	}
	fmt.Printf("running %d notebooks (%s) with kernel %s into %s\n", len(paths), mode, *kernel, *out)
	// A temporary folder of this run's own ($TMPDIR of nbconvert and so of the kernels: GoNB's kernel folders
	// and whatever a notebook writes under os.TempDir go there), removed after the last notebook: two runs at
	// once, say two checkouts' `make test`, share no temporary file.
	tmp, err := os.MkdirTemp("", "dprl-nbrun-")
	if err != nil {
		fail(err)
	}
	r.Env = append(r.Env, "TMPDIR="+tmp)
	start := time.Now()
	var rows [][]string
	var reports []kernels.Report
	failed := 0
	for _, p := range paths {
		rep := r.Run(p)
		reports = append(reports, rep)
		status := "ok"
		if rep.Err != nil {
			status = "FAILED"
			failed++
		}
		fmt.Printf("%-6s %-50s %8s  %d images\n", status, filepath.Base(p), report.FormatDuration(rep.Duration), rep.Images)
		if rep.Err != nil {
			fmt.Printf("       %s\n", strings.ReplaceAll(rep.Err.Error(), "\n", "\n       "))
		}
		rows = append(rows, []string{filepath.Base(p), status, report.FormatDuration(rep.Duration),
			fmt.Sprint(rep.CodeCells), fmt.Sprint(rep.Images), rep.HTML})
	}
	if err := os.RemoveAll(tmp); err != nil {
		fmt.Fprintln(os.Stderr, "nbrun:", err)
	}
	fmt.Println()
	fmt.Print(display.TableText([]string{"notebook", "status", "time", "code cells", "images", "report"}, rows))
	total := time.Since(start)
	fmt.Printf("total %s\n", report.FormatDuration(total))
	index := filepath.Join(*out, "index.html")
	if err := kernels.WriteIndex(index, reports, mode, total); err != nil {
		fail(err)
	}
	fmt.Printf("index %s\n", index)

	weak, err := writeClaims(reports, filepath.Join(*out, "claims.csv"))
	if err != nil {
		fail(err)
	}
	if len(weak) > 0 {
		fmt.Printf("%d claims rows do not yet stand as verdicts:\n  %s\n", len(weak), strings.Join(weak, "\n  "))
		if *strict {
			failed++
		}
	}

	if *shot != "" && failed == 0 {
		html := filepath.Join(*out, strings.TrimSuffix(*shot, ".ipynb")+".html")
		png := strings.TrimSuffix(html, ".html") + ".png"
		if err := kernels.Screenshot(*chromium, html, png, 1100, 4200); err != nil {
			fail(err)
		}
		n, err := kernels.CheckScreenshot(png, 300)
		if err != nil {
			fail(err)
		}
		fmt.Printf("screenshot %s shows a plot (%d plot-coloured pixels)\n", png, n)
	}
	if failed > 0 {
		fail(fmt.Errorf("%d of %d notebooks failed", failed, len(paths)))
	}
}

// writeClaims gathers the claims table each executed notebook shows (display.ShowClaims sends its rows as
// JSON under display.ClaimsMIME) into one CSV at path, and returns the rows that do not stand as verdicts
// (repro.CheckClaim). A notebook without a claims table adds no rows.
func writeClaims(reports []kernels.Report, path string) (weak []string, err error) {
	var names []string
	all := map[string][]report.Claim{}
	for _, rep := range reports {
		c, err := notebookClaims(rep.Executed)
		if err != nil {
			return nil, err
		}
		if len(c) == 0 {
			continue
		}
		nb := strings.TrimSuffix(filepath.Base(rep.Notebook), ".ipynb")
		names = append(names, nb)
		all[nb] = c
		for _, x := range c {
			if err := repro.CheckClaim(x); err != nil {
				weak = append(weak, nb+": "+strings.ReplaceAll(err.Error(), "\n", "; "))
			}
		}
	}
	var b strings.Builder
	if err := report.WriteClaimsCSV(&b, names, all); err != nil {
		return nil, err
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		return nil, err
	}
	fmt.Printf("claims %s (%d notebooks)\n", path, len(names))
	return weak, nil
}

// notebookClaims reads the claims rows an executed notebook carries under display.ClaimsMIME (the last such
// output, if the table was shown more than once); a notebook that was not written has none.
func notebookClaims(path string) ([]report.Claim, error) {
	nb, err := kernels.ReadNotebookFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var rows []report.Claim
	for _, c := range nb.Cells {
		for _, o := range c.Outputs {
			raw, ok := o.Data[display.ClaimsMIME]
			if !ok {
				continue
			}
			var text kernels.Text
			if err := json.Unmarshal(raw, &text); err != nil {
				return nil, fmt.Errorf("%s: claims: %w", path, err)
			}
			rows = nil
			if err := json.Unmarshal([]byte(text), &rows); err != nil {
				return nil, fmt.Errorf("%s: claims: %w", path, err)
			}
		}
	}
	return rows, nil
}

// notebookPaths expands the arguments (files or folders; notebooks/ when none) into sorted .ipynb paths.
func notebookPaths(args []string) ([]string, error) {
	if len(args) == 0 {
		args = []string{"notebooks"}
	}
	var paths []string
	for _, a := range args {
		st, err := os.Stat(a)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			paths = append(paths, a)
			continue
		}
		m, err := filepath.Glob(filepath.Join(a, "*.ipynb"))
		if err != nil {
			return nil, err
		}
		paths = append(paths, m...)
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("no notebooks in %v", args)
	}
	sort.Strings(paths)
	return paths, nil
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "nbrun:", err)
	os.Exit(1)
}
