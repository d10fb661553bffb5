package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dprl-project/dprl/dprl/display"
	"github.com/dprl-project/dprl/dprl/report"
	"github.com/dprl-project/dprl/kernels"
)

// executed writes an executed notebook whose cells show the given claims tables (each as display.ShowClaims
// sends it; a table split into lines as nbformat may store it when split is set) and returns its path.
func executed(t *testing.T, dir, name string, split bool, tables ...[]report.Claim) string {
	t.Helper()
	var cells []map[string]any
	for _, rows := range tables {
		b, err := json.Marshal(rows)
		if err != nil {
			t.Fatal(err)
		}
		var data any = string(b)
		if split {
			data = []string{string(b[:10]), string(b[10:])}
		}
		cells = append(cells, map[string]any{"cell_type": "code", "source": "display.Check(display.ShowClaims())", "outputs": []any{
			map[string]any{"output_type": "display_data", "data": map[string]any{display.ClaimsMIME: data, "text/html": "<span></span>"}},
		}})
	}
	cells = append(cells, map[string]any{"cell_type": "code", "source": "x", "outputs": []any{}})
	b, _ := json.Marshal(map[string]any{"nbformat": 4, "nbformat_minor": 5, "cells": cells, "metadata": map[string]any{}})
	path := filepath.Join(dir, name+".ipynb")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestWriteClaims: the claims CSV holds the last claims table each executed notebook shows, notebooks
// without one (or not executed) add nothing, and rows that do not stand as verdicts are listed.
func TestWriteClaims(t *testing.T) {
	dir := t.TempDir()
	old := []report.Claim{{Key: "stale", Claim: "shown first", Verdict: "reproduced", Seeds: 10}}
	rows := []report.Claim{
		{Key: "a", Kind: report.KindPaper, Claim: "A beats B", Measured: "1 [0.5, 1.5]", CILow: 0.5, CIHigh: 1.5, Seeds: 10, Verdict: "reproduced"},
		{Key: "b", Kind: report.KindSanity, Claim: "few seeds", Seeds: 2, Verdict: "inconclusive"},
	}
	reports := []kernels.Report{
		{Notebook: "notebooks/02-x.ipynb", Executed: executed(t, dir, "02-x", false, old, rows)},
		{Notebook: "notebooks/03-y.ipynb", Executed: executed(t, dir, "03-y", true, rows[:1])},
		{Notebook: "notebooks/00-tour.ipynb", Executed: executed(t, dir, "00-tour", false)},
		{Notebook: "notebooks/01-z.ipynb", Executed: filepath.Join(dir, "never-written.ipynb")},
	}
	path := filepath.Join(dir, "claims.csv")
	weak, err := writeClaims(reports, path)
	if err != nil {
		t.Fatal(err)
	}
	if len(weak) != 1 || !strings.HasPrefix(weak[0], `02-x: claim "b": 2 seeds`) {
		t.Errorf("weak rows %q", weak)
	}
	b, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 4 || lines[0] != strings.Join(report.ClaimsCSVColumns, ",") ||
		!strings.HasPrefix(lines[1], "02-x,a,paper,A beats B,") || !strings.HasPrefix(lines[2], "02-x,b,sanity check,") || !strings.HasPrefix(lines[3], "03-y,a,") {
		t.Errorf("claims.csv:\n%s", b)
	}

	bad := filepath.Join(dir, "bad.ipynb")
	os.WriteFile(bad, []byte(`{"nbformat": 4, "cells": [{"cell_type": "code", "outputs": [{"data": {"`+display.ClaimsMIME+`": "not json"}}]}]}`), 0o644)
	if _, err := notebookClaims(bad); err == nil {
		t.Error("a broken claims output was read")
	}
}
