package figure_test

import (
	"bytes"
	"fmt"
	"image/png"
	"math"

	"gonum.org/v1/plot/vg"

	"github.com/dprl-project/dprl/dprl/figure"
)

// Two curves over three trials each, with mean ± one standard error bands on a log x axis; a NaN (a trial
// that diverged) is skipped. The plot is rendered to PNG at 4 × 2.5 inches and 96 dpi.
func ExampleCurves() {
	x := []float64{10, 100, 1000}
	private := figure.Series{Name: "private", X: x, Y: [][]float64{{1.0, 0.5, 0.20}, {1.2, 0.6, 0.25}, {0.9, math.NaN(), 0.22}}}
	exact := figure.Series{Name: "non-private", X: x, Y: [][]float64{{0.5, 0.2, 0.1}, {0.6, 0.25, 0.1}, {0.55, 0.2, 0.12}}}
	p, err := figure.Curves(figure.Options{Title: "Error against data size", XLabel: "trajectories", YLabel: "RMSE",
		LogX: true, Band: figure.BandStdErr}, private, exact)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%q, x: %s, y: %s, band %s\n", p.Title.Text, p.X.Label.Text, p.Y.Label.Text, figure.BandStdErr)

	b, err := figure.PNG(p, figure.Size{Width: 4 * vg.Inch, Height: 2.5 * vg.Inch, DPI: 96})
	if err != nil {
		fmt.Println(err)
		return
	}
	cfg, _ := png.DecodeConfig(bytes.NewReader(b))
	fmt.Printf("PNG %d × %d pixels\n", cfg.Width, cfg.Height)
	fmt.Printf("the default size shows %d CSS pixels wide\n", figure.DefaultSize.CSSWidth())
	// Output:
	// "Error against data size", x: trajectories, y: RMSE, band ± 1 standard error
	// PNG 384 × 240 pixels
	// the default size shows 680 CSS pixels wide
}
