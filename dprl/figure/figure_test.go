package figure

import (
	"bytes"
	"fmt"
	"image/color"
	"image/png"
	"math"
	"strings"
	"testing"
	"unicode/utf8"

	"codeberg.org/go-fonts/liberation/liberationsansregular"
	"golang.org/x/image/font/sfnt"
	"gonum.org/v1/plot"

	"gonum.org/v1/plot/vg"
)

func TestMeanStdSkipsMissing(t *testing.T) {
	nan := math.NaN()
	mean, std, n := MeanStd([][]float64{
		{1, 2, nan, 4},
		{3, math.Inf(1), nan},
		{5, 6, nan, 8},
	})
	wantMean := []float64{3, 4, nan, 6}
	wantStd := []float64{2, math.Sqrt(8), nan, math.Sqrt(8)}
	wantN := []int{3, 2, 0, 2}
	for i := range wantMean {
		if n[i] != wantN[i] {
			t.Errorf("n[%d] = %d, want %d", i, n[i], wantN[i])
		}
		if !same(mean[i], wantMean[i]) || !same(std[i], wantStd[i]) {
			t.Errorf("point %d: mean, std = %v, %v; want %v, %v", i, mean[i], std[i], wantMean[i], wantStd[i])
		}
	}
}

func same(a, b float64) bool {
	return (math.IsNaN(a) && math.IsNaN(b)) || math.Abs(a-b) < 1e-12
}

func TestCurvesBreaksLinesAtMissingPoints(t *testing.T) {
	nan := math.NaN()
	x := []float64{1, 2, 3, 4, 5, 6}
	p, err := Curves(Options{Title: "t", LogY: true},
		Series{Name: "a", X: x, Y: [][]float64{{1, 2, nan, 4, 5, 6}, {1, 3, nan, 5, 6, 7}}},
		Series{Name: "b", X: x, Y: [][]float64{{1, -1, 2, 3, 0, 4}}}, // non-positive values are off a log axis
	)
	if err != nil {
		t.Fatal(err)
	}
	b, err := PNG(p, Size{Width: 10 * vg.Centimeter, Height: 6 * vg.Centimeter, DPI: 96})
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if w := img.Bounds().Dx(); w != 378 { // 10 cm at 96 dpi
		t.Errorf("width %d px, want 378", w)
	}
	// Each series is drawn in its own palette colour.
	for k := range 2 {
		want := Color(k)
		count := 0
		for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y++ {
			for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x++ {
				if sameRGB(img.At(x, y), want) {
					count++
				}
			}
		}
		if count < 20 {
			t.Errorf("series %d: %d pixels of its colour, want at least 20", k, count)
		}
	}
}

func sameRGB(a, b color.Color) bool {
	r1, g1, b1, _ := a.RGBA()
	r2, g2, b2, _ := b.RGBA()
	return r1>>8 == r2>>8 && g1>>8 == g2>>8 && b1>>8 == b2>>8
}

func TestRuns(t *testing.T) {
	keep := []bool{true, true, false, true, false, false, true}
	got := runs(len(keep), func(i int) bool { return keep[i] })
	want := [][]int{{0, 1}, {3}, {6}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("runs = %v, want %v", got, want)
	}
}

func TestCurvesRejectsBadInput(t *testing.T) {
	cases := map[string][]Series{
		"no trials": {{Name: "a", X: []float64{1}}},
		"length":    {{Name: "a", X: []float64{1, 2}, Y: [][]float64{{1}}}},
		"nothing":   {{Name: "a", X: []float64{1, 2}, Y: [][]float64{{math.NaN(), math.NaN()}}}},
	}
	for name, s := range cases {
		if _, err := Curves(Options{}, s...); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := PNG(nil, Size{Width: 0, Height: 1, DPI: 96}); err == nil {
		t.Error("PNG accepted a zero width")
	}
}

func ExampleMeanStd() {
	mean, std, n := MeanStd([][]float64{{1, 10}, {3, math.NaN()}})
	fmt.Println(mean, std, n)
	// Output: [2 10] [1.4142135623730951 0] [2 1]
}

func TestSmooth(t *testing.T) {
	got := Smooth([][]float64{{1, 3, math.NaN(), 5}}, 2)
	want := []float64{1, 2, 3, 5}
	for i := range want {
		if got[0][i] != want[i] {
			t.Fatalf("Smooth = %v, want %v", got[0], want)
		}
	}
}

func TestLogTickLabels(t *testing.T) {
	got := map[string]bool{}
	for _, tk := range (LogTicks{}).Ticks(1e-8, 1e5) {
		if tk.Label != "" {
			got[tk.Label] = true
		}
	}
	for _, want := range []string{"1e−8", "1e−5", "1e−4", "0.001", "0.1", "1", "1000", "10⁴", "10⁵"} {
		if !got[want] {
			t.Errorf("no tick labelled %q (labels %v)", want, got)
		}
	}
	if len(got) != 14 {
		t.Errorf("%d labelled ticks for 14 decades: %v", len(got), got)
	}
	for l := range got {
		if utf8.RuneCountInString(l) > 5 {
			t.Errorf("long tick label %q", l)
		}
	}
	// Minor ticks at 2…9 per decade, unlabelled when the axis spans many decades.
	minor := 0
	for _, tk := range (LogTicks{}).Ticks(1, 100) {
		if tk.Label == "" {
			minor++
		}
	}
	if minor != 2*(8-2) { // 2…9 in each of two decades, less 2 and 5, labelled because the span is short
		t.Errorf("%d unlabelled minor ticks on [1, 100], want 12", minor)
	}
}

func TestBandHalfWidth(t *testing.T) {
	// Student's t quantile 0.975 with 4 degrees of freedom is 2.776445.
	if got := BandCI95.halfWidth(2, 5); math.Abs(got-2.776445105*2/math.Sqrt(5)) > 1e-6 {
		t.Errorf("95%% CI half-width = %v", got)
	}
	if got := BandStdErr.halfWidth(2, 4); got != 1 {
		t.Errorf("standard error half-width = %v, want 1", got)
	}
	if got := BandStd.halfWidth(2, 1); got != 0 {
		t.Errorf("one trial has no spread: half-width %v", got)
	}
}

func TestSeriesOwnBandMustMatch(t *testing.T) {
	_, err := Curves(Options{}, Series{Name: "a", X: []float64{1, 2}, Y: [][]float64{{1, 2}}, Lo: []float64{0}, Hi: []float64{2}})
	if err == nil || !strings.Contains(err.Error(), "Lo and Hi") {
		t.Errorf("mismatched Lo/Hi: error %v", err)
	}
	if _, err := Curves(Options{}, Series{Name: "a", X: []float64{1, 2}, Y: [][]float64{{1, 2}}, Lo: []float64{0, 1}, Hi: []float64{2, 3}}); err != nil {
		t.Error(err)
	}
}

// The legend is drawn beside the data area, not over it: the rightmost quarter of the image holds the
// legend's line samples (palette colours) but the data area to its left holds the curves.
func TestLegendOutsideData(t *testing.T) {
	x := []float64{0, 1}
	p, err := Curves(Options{Title: "t"}, Series{Name: "a long legend entry", X: x, Y: [][]float64{{0, 1}}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := PNG(p, Size{Width: 12 * vg.Centimeter, Height: 6 * vg.Centimeter, DPI: 96})
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	// The curve rises from bottom left to top right of the data area; with the legend inside (gonum's
	// default, top right) the legend sample would sit on the curve's end. Find the rightmost curve pixel.
	right := 0
	for x := img.Bounds().Max.X - 1; x >= 0 && right == 0; x-- {
		for y := 0; y < img.Bounds().Max.Y; y++ {
			if sameRGB(img.At(x, y), Color(0)) {
				right = x
				break
			}
		}
	}
	dataRight := 0 // rightmost pixel of the curve below the legend's rows (lower 70% of the image)
	for x := img.Bounds().Max.X - 1; x >= 0 && dataRight == 0; x-- {
		for y := img.Bounds().Max.Y * 3 / 10; y < img.Bounds().Max.Y; y++ {
			if sameRGB(img.At(x, y), Color(0)) {
				dataRight = x
				break
			}
		}
	}
	if right-dataRight < 20 {
		t.Errorf("legend sample ends at x = %d, data at x = %d: legend not beside the data", right, dataRight)
	}
}

// TestBadFigureInput: PNG(nil) panicked and a huge size panicked in image.NewRGBA (or exhausted memory).
func TestBadFigureInput(t *testing.T) {
	p, err := Curves(Options{}, Series{Name: "s", X: []float64{1, 2}, Y: [][]float64{{1, 2}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		p    *plot.Plot
		s    Size
		want string
	}{
		{nil, DefaultSize, "p is missing"},
		{p, Size{Width: 1e9, Height: 1e9, DPI: 1000}, "MaxPixels"},
		{p, Size{Width: 100, Height: 100, DPI: 0}, "DPI = 0"},
		{p, Size{Width: -1, Height: 100, DPI: 100}, "Width = -1"},
	} {
		if _, err := PNG(c.p, c.s); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("PNG(%v): %v, want %q", c.s, err, c.want)
		}
	}
	if _, err := Curves(Options{}, Series{Name: "s", X: []float64{1, 2}, Y: [][]float64{{1}}}); err == nil ||
		!strings.Contains(err.Error(), "series[0].Y[0] = 1 is not allowed: want len(X) = 2 values") {
		t.Errorf("ragged series: %v", err)
	}
}

// TestLogLabelsHaveGlyphs: every character of every decade label the log axes can print exists in the house
// font (Liberation Sans lacks ⁰ and ⁹, so 10⁹ and 10¹⁰ must not be written with superscripts).
func TestLogLabelsHaveGlyphs(t *testing.T) {
	f, err := sfnt.Parse(liberationsansregular.TTF)
	if err != nil {
		t.Fatal(err)
	}
	var b sfnt.Buffer
	for e := -30; e <= 30; e++ {
		for _, m := range []int{1, 2, 5} {
			l := logLabel(m, e)
			for _, r := range l {
				if i, _ := f.GlyphIndex(&b, r); i == 0 {
					t.Errorf("label %q (m = %d, e = %d): no glyph for %q", l, m, e, r)
				}
			}
		}
	}
}
