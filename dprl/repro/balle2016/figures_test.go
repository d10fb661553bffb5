package balle2016

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/dprl-project/dprl/dprl/figure"
	"github.com/dprl-project/dprl/dprl/report"
)

// TestFigures: every figure function draws from the data alone (no progress: nothing runs) and notes the
// seeds and that no run diverged; panel 2 has one figure per size of Panel2M in the data; Show sends the plot
// and the note.
func TestFigures(t *testing.T) {
	d, ch := tinyData(t)
	s := ch.Main()
	var figs []Figure
	add := func(f Figure, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		figs = append(figs, f)
	}
	add(SelectionFigure(ch))
	add(Panel1(d, s))
	p2, err := Panel2(d, s)
	if err != nil || len(p2) != 1 {
		t.Fatalf("panel 2: %d figures, %v", len(p2), err)
	}
	figs = append(figs, p2...)
	add(Panel3(d, s))
	add(Panel3(d, ch.In(ArmCodeBound)))
	add(Panel4(d, s))
	add(NoiseFigure(d, s))
	for i, f := range figs {
		if f.Plot == nil || !strings.Contains(f.Note, "Diverged runs (a non-finite estimate): none") || !strings.Contains(f.Note, "Bands: 95%") {
			t.Errorf("figure %d: note %q", i, f.Note)
		}
	}
	if !strings.Contains(figs[1].Note, "PCG(7, i)") || !strings.Contains(figs[0].Note, "PCG(7, i)") {
		t.Errorf("seeds: %q / %q", figs[1].Note, figs[0].Note)
	}
	var r report.Recorder
	if err := figs[1].Show(&r); err != nil || r.Figures() != 1 || r.Units != 0 || r.Markdowns()[0] != figs[1].Note {
		t.Errorf("Show: %d figures, %d units, %v", r.Figures(), r.Units, err)
	}
}

// TestDiverged: the note counts the non-finite values of each curve at each point.
func TestDiverged(t *testing.T) {
	s := []figure.Series{{Name: "A", X: []float64{1, 2}, Y: [][]float64{{1, math.NaN()}, {1, math.Inf(1)}, {1, 2}}}, {Name: "B", X: []float64{1, 2}, Y: [][]float64{{1, 2}}}}
	if got, want := diverged(s), "Diverged runs (a non-finite estimate, left out of the mean): A at 2: 2 of 3."; got != want {
		t.Errorf("%q, want %q", got, want)
	}
	if got := diverged(s[1:]); !strings.Contains(got, "none") || !strings.Contains(got, "(1 runs each)") {
		t.Errorf("%q", got)
	}
}

// TestChoiceTable: one row per arm and exponent and one for LSL, a column per c, the chosen c marked.
func TestChoiceTable(t *testing.T) {
	_, ch := tinyData(t)
	h, rows := ChoiceTable(ch)
	if len(h) != 1+len(CGrid) || len(rows) != len(Arms())*len(Powers)+1 {
		t.Fatalf("%d columns, %d rows", len(h), len(rows))
	}
	for _, r := range rows {
		if n := slices.IndexFunc(r, func(c string) bool { return strings.HasSuffix(c, "✓") }); n < 1 {
			t.Errorf("row %q marks no choice", r)
		}
	}
	k := slices.Index(CGrid, ch.LSLC)
	if last := rows[len(rows)-1]; !strings.HasSuffix(last[k+1], "✓") {
		t.Errorf("LSL row %q, chosen c = %g", last, ch.LSLC)
	}
}

// TestHidden: a point whose mean is at or below 0 is named (a log axis cannot draw it).
func TestHidden(t *testing.T) {
	s := []figure.Series{{Name: "A", X: []float64{1, 2}, Y: [][]float64{{1, -3}, {1, 1}}}}
	if got, want := hidden(s), " Not drawn on the log axis (a mean at or below 0): A at 2."; got != want {
		t.Errorf("%q, want %q", got, want)
	}
	if got := hidden([]figure.Series{{Name: "B", X: []float64{1}, Y: [][]float64{{1}}}}); got != "" {
		t.Errorf("%q", got)
	}
}
