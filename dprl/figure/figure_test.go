package figure

import (
	"bytes"
	"fmt"
	"gonum.org/v1/plot/plotutil"
	"image/color"
	"image/png"
	"math"
	"strings"
	"testing"

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
		want := plotutil.Color(k)
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
	for _, want := range []string{"1e-08", "1e-05", "0.0001", "0.1", "1", "1000", "100000"} {
		if !got[want] {
			t.Errorf("no tick labelled %q (labels %v)", want, got)
		}
	}
	for l := range got {
		if len(l) > 6 {
			t.Errorf("long tick label %q", l)
		}
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
		{nil, DefaultSize, "p = nil"},
		{p, Size{Width: 1e9, Height: 1e9, DPI: 1000}, "MaxPixels"},
		{p, Size{Width: 100, Height: 100, DPI: 0}, "DPI = 0"},
		{p, Size{Width: -1, Height: 100, DPI: 100}, "Width = -1"},
	} {
		if _, err := PNG(c.p, c.s); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("PNG(%v): %v, want %q", c.s, err, c.want)
		}
	}
	if _, err := Curves(Options{}, Series{Name: "s", X: []float64{1, 2}, Y: [][]float64{{1}}}); err == nil ||
		!strings.Contains(err.Error(), "series[0].Y[0] = 1 is outside the allowed range len(X) = 2 values") {
		t.Errorf("ragged series: %v", err)
	}
}
