package kernels

import (
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dprl-project/dprl/dprl/figure"
)

// executed is a notebook as nbconvert saves it after a run with --allow-errors and --raw_error.
const executed = `{
 "nbformat": 4, "nbformat_minor": 5,
 "metadata": {"kernelspec": {"name": "gonb-dprl"}},
 "cells": [
  {"id": "a", "cell_type": "markdown", "source": "# t", "metadata": {}},
  {"id": "b", "cell_type": "code", "source": ["!*go mod edit", " x"], "outputs": [], "execution_count": 1},
  {"id": "c", "cell_type": "code", "source": "%%\nplot", "execution_count": 2, "outputs": [
    {"output_type": "display_data", "data": {"image/png": "iVBORw0KGgo=", "text/plain": "x"}, "metadata": {}},
    {"output_type": "stream", "name": "stdout", "text": ["a\n", "b\n"]}]},
  {"id": "d", "cell_type": "code", "source": "%%\npanic(1)", "execution_count": 3, "outputs": [
    {"output_type": "stream", "name": "stderr", "text": "panic: 1\n"},
    {"output_type": "error", "ename": "ERROR", "evalue": "exit status 2\nmore", "traceback": []}]}
 ]
}`

func TestSummarizeAndCheckExecuted(t *testing.T) {
	nb, err := ReadNotebook(strings.NewReader(executed))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(nb.Cells[1].Source); got != "!*go mod edit x" {
		t.Errorf("joined source %q", got)
	}
	if got := string(nb.Cells[2].Outputs[1].Text); got != "a\nb\n" {
		t.Errorf("joined stream text %q", got)
	}
	s := Summarize(nb)
	if s.CodeCells != 3 || s.Images != 1 || len(s.Errors) != 1 || s.Errors[0] != "cell 4: ERROR: exit status 2" {
		t.Errorf("summary %+v", s)
	}
	err = CheckExecuted(nb)
	if err == nil || !strings.Contains(err.Error(), "cell 4: ERROR: exit status 2") {
		t.Errorf("CheckExecuted = %v, want the failed cell named", err)
	}
	nb.Cells = nb.Cells[:2]
	if err := CheckExecuted(nb); err == nil || !strings.Contains(err.Error(), "no inline image") {
		t.Errorf("CheckExecuted without images = %v", err)
	}
}

func TestReadNotebookRejectsOtherFormats(t *testing.T) {
	for _, s := range []string{`{"nbformat": 3, "cells": []}`, `not json`, `{"nbformat": 4, "cells": [{"source": 7}]}`} {
		if _, err := ReadNotebook(strings.NewReader(s)); err == nil {
			t.Errorf("ReadNotebook(%s) accepted it", s)
		}
	}
}

func TestCheckSource(t *testing.T) {
	nb, err := ReadNotebook(strings.NewReader(executed))
	if err != nil {
		t.Fatal(err)
	}
	err = CheckSource(nb)
	for _, want := range []string{"setup cell", "cell 2 has execution count 1", "cell 3 has outputs"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("CheckSource = %v, want it to mention %q", err, want)
		}
	}
	clean := `{"nbformat": 4, "nbformat_minor": 5, "metadata": {"kernelspec": {"name": "gonb-dprl"}}, "cells": [
	  {"id": "s", "cell_type": "code", "source": "` + SetupCell + `", "outputs": [], "execution_count": null},
	  {"id": "m", "cell_type": "markdown", "source": "text"}]}`
	nb, err = ReadNotebook(strings.NewReader(clean))
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckSource(nb); err != nil {
		t.Errorf("clean notebook: %v", err)
	}
	nb.Cells[1].ID = "s"
	if err := CheckSource(nb); err == nil || !strings.Contains(err.Error(), "repeated id") {
		t.Errorf("repeated id: %v", err)
	}
}

func TestPlotPixelsFindsAFigureOnAPage(t *testing.T) {
	p, err := figure.Curves(figure.Options{Title: "t"},
		figure.Series{Name: "a", X: []float64{0, 1, 2, 3}, Y: [][]float64{{0, 1, 0, 1}, {0, 2, 1, 2}}},
		figure.Series{Name: "b", X: []float64{0, 1, 2, 3}, Y: [][]float64{{3, 2, 3, 2}}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := figure.PNG(p, figure.DefaultSize)
	if err != nil {
		t.Fatal(err)
	}
	fig, err := png.Decode(strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	// A white page with dark-blue and orange prompt text, like an nbconvert report, then the figure on it.
	page := image.NewRGBA(image.Rect(0, 0, 1100, 1200))
	draw.Draw(page, page.Bounds(), image.NewUniform(color.White), image.Point{}, draw.Src)
	draw.Draw(page, image.Rect(0, 0, 60, 20), image.NewUniform(color.RGBA{0x30, 0x3f, 0x9f, 255}), image.Point{}, draw.Src)
	draw.Draw(page, image.Rect(0, 30, 60, 50), image.NewUniform(color.RGBA{0xd8, 0x43, 0x15, 255}), image.Point{}, draw.Src)
	dir := t.TempDir()
	blank := filepath.Join(dir, "blank.png")
	writePNG(t, blank, page)
	if n, err := CheckScreenshot(blank, 300); err == nil {
		t.Errorf("a page without a figure passed with %d plot pixels", n)
	}
	draw.Draw(page, fig.Bounds().Add(image.Pt(100, 400)), fig, image.Point{}, draw.Src)
	withPlot := filepath.Join(dir, "plot.png")
	writePNG(t, withPlot, page)
	if n, err := CheckScreenshot(withPlot, 300); err != nil {
		t.Errorf("a page with a figure failed (%d plot pixels): %v", n, err)
	}
}

func writePNG(t *testing.T, path string, img image.Image) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := png.Encode(f, img); err != nil {
		t.Fatal(err)
	}
}
