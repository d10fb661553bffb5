// Package figure builds the project's standard figures with gonum/plot: curves over trials drawn as
// mean ± spread bands, several curves with a legend, linear or log axes. Every function returns a *plot.Plot
// or PNG bytes; package display shows them in a notebook.
//
// Missing values are expected (a trial that diverged, a point not evaluated): NaN and ±Inf are skipped, a
// point with no finite trial breaks its line, and on a log axis non-positive values are skipped too.
package figure

import (
	"dprl/dprl/param"

	"bytes"
	"errors"
	"fmt"
	"image/color"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// LogTicks marks a log axis at powers of ten like plot.LogTicks, with labels rounded to three significant
// digits (plot.LogTicks's shortest representation prints 1e−4 as 9.999999999999999e-05).
type LogTicks struct{}

// Ticks implements plot.Ticker.
func (LogTicks) Ticks(min, max float64) []plot.Tick {
	ticks := plot.LogTicks{Prec: -1}.Ticks(min, max)
	for i, t := range ticks {
		if t.Label != "" {
			v, _ := strconv.ParseFloat(strconv.FormatFloat(t.Value, 'g', 3, 64), 64)
			ticks[i].Label = strconv.FormatFloat(v, 'g', -1, 64)
		}
	}
	return ticks
}

// Band says what spread is drawn around a curve's mean.
type Band int

const (
	// BandStd draws mean ± one standard deviation across trials.
	BandStd Band = iota
	// BandStdErr draws mean ± one standard error (std/√n) across trials.
	BandStdErr
	// BandNone draws the mean only.
	BandNone
)

// Series is one curve: Y[t][i] is trial t's value at X[i]. With one trial the curve is that trial.
type Series struct {
	Name string
	X    []float64
	Y    [][]float64
}

// Options sets a figure's labels and axes. The zero value is a usable, untitled linear plot with std bands.
type Options struct {
	Title, XLabel, YLabel string
	LogX, LogY            bool
	Band                  Band
	// LegendBottom puts the legend in the lower right corner (default: upper right), for curves that rise.
	LegendBottom bool
	// LegendLeft moves the legend to the left side.
	LegendLeft bool
}

// MeanStd returns, for each point i, the mean and sample standard deviation of trials[t][i] over the trials
// with a finite value there, and n[i], how many those were. Where n[i] is 0 the mean is NaN; where it is 1 the
// standard deviation is 0. Rows shorter than the longest are treated as missing at the end.
func MeanStd(trials [][]float64) (mean, std []float64, n []int) {
	width := 0
	for _, row := range trials {
		width = max(width, len(row))
	}
	mean, std, n = make([]float64, width), make([]float64, width), make([]int, width)
	for i := range width {
		var sum, sumSq float64
		k := 0
		for _, row := range trials {
			if i < len(row) && finite(row[i]) {
				sum += row[i]
				k++
			}
		}
		n[i] = k
		if k == 0 {
			mean[i], std[i] = math.NaN(), math.NaN()
			continue
		}
		m := sum / float64(k)
		for _, row := range trials {
			if i < len(row) && finite(row[i]) {
				d := row[i] - m
				sumSq += d * d
			}
		}
		mean[i] = m
		if k > 1 {
			std[i] = math.Sqrt(sumSq / float64(k-1))
		}
	}
	return mean, std, n
}

// Curves draws each series as its mean over trials with the spread selected by opt.Band, in a distinct
// colour with a legend entry. It returns an error when a series has no trials, its rows do not match X in
// length, or nothing at all is drawable.
func Curves(opt Options, series ...Series) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = opt.Title
	p.X.Label.Text = opt.XLabel
	p.Y.Label.Text = opt.YLabel
	if opt.LogX {
		p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, LogTicks{}
	}
	if opt.LogY {
		p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, LogTicks{}
	}
	p.Legend.Top = !opt.LegendBottom
	p.Legend.Left = opt.LegendLeft
	drawn := 0
	for k, s := range series {
		if len(s.Y) == 0 {
			return nil, check.Errorf(fmt.Sprintf("series[%d].Y", k), 0, "at least one trial (series %q has none)", s.Name)
		}
		for t, row := range s.Y {
			if len(row) != len(s.X) {
				return nil, check.Errorf(fmt.Sprintf("series[%d].Y[%d]", k, t), float64(len(row)), "len(X) = %d values (series %q)", len(s.X), s.Name)
			}
		}
		mean, std, n := MeanStd(s.Y)
		lo, hi := make([]float64, len(mean)), make([]float64, len(mean))
		for i := range mean {
			w := std[i]
			switch {
			case opt.Band == BandNone:
				w = 0
			case opt.Band == BandStdErr && n[i] > 0:
				w /= math.Sqrt(float64(n[i]))
			}
			lo[i], hi[i] = mean[i]-w, mean[i]+w
		}
		c := plotutil.Color(k)
		ok := func(i int) bool {
			x, y := s.X[i], mean[i]
			return finite(x) && finite(y) && (!opt.LogX || x > 0) && (!opt.LogY || y > 0)
		}
		for j, run := range runs(len(s.X), ok) {
			if opt.Band != BandNone && len(s.Y) > 1 && len(run) > 1 {
				poly := make(plotter.XYs, 0, 2*len(run))
				for _, i := range run {
					poly = append(poly, plotter.XY{X: s.X[i], Y: hi[i]})
				}
				for r := len(run) - 1; r >= 0; r-- {
					i := run[r]
					y := lo[i]
					if opt.LogY && y <= 0 {
						y = mean[i] / 10 // keep the band drawable on a log axis
					}
					poly = append(poly, plotter.XY{X: s.X[i], Y: y})
				}
				pg, err := plotter.NewPolygon(poly)
				if err != nil {
					return nil, fmt.Errorf("figure: series %q band: %w", s.Name, err)
				}
				r, g, b, _ := c.RGBA()
				pg.Color = color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: 0x40}
				pg.LineStyle.Width = 0
				p.Add(pg)
			}
			pts := make(plotter.XYs, len(run))
			for r, i := range run {
				pts[r] = plotter.XY{X: s.X[i], Y: mean[i]}
			}
			l, err := plotter.NewLine(pts)
			if err != nil {
				return nil, fmt.Errorf("figure: series %q: %w", s.Name, err)
			}
			l.Color = c
			l.Width = vg.Points(1.5)
			p.Add(l)
			if j == 0 && s.Name != "" {
				p.Legend.Add(s.Name, l)
			}
			drawn++
		}
	}
	if drawn == 0 {
		return nil, errors.New("figure: series: no finite points to draw (every X or mean Y is NaN, infinite, or not positive on a log axis)")
	}
	return p, nil
}

// runs splits 0..n-1 into maximal runs of consecutive indices where ok holds.
func runs(n int, ok func(i int) bool) [][]int {
	var out [][]int
	var cur []int
	for i := range n {
		if ok(i) {
			cur = append(cur, i)
			continue
		}
		if len(cur) > 0 {
			out, cur = append(out, cur), nil
		}
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// Size is a figure's size on the page and its resolution.
type Size struct {
	Width, Height vg.Length
	DPI           int
}

// DefaultSize suits a notebook column: 16 cm × 10 cm at 110 dpi (about 690 × 430 pixels).
var DefaultSize = Size{Width: 16 * vg.Centimeter, Height: 10 * vg.Centimeter, DPI: 110}

// MaxPixels bounds the pixels PNG renders (about 100 megapixels: 400 MB of RGBA).
const MaxPixels = 100_000_000

const check param.Checker = "figure"

// PNG renders p at size s; a nil plot, a size that is not positive or larger than MaxPixels is an error
// naming the field.
func PNG(p *plot.Plot, s Size) ([]byte, error) {
	if p == nil {
		return nil, errors.New("figure: p = nil: PNG needs a plot")
	}
	if err := param.First(check.In("Width", float64(s.Width), param.Positive), check.In("Height", float64(s.Height), param.Positive),
		check.Int("DPI", s.DPI, 1, 10000)); err != nil {
		return nil, err
	}
	if px := float64(s.Width) / vg.Inch.Points() * float64(s.DPI) * float64(s.Height) / vg.Inch.Points() * float64(s.DPI); !(px <= MaxPixels) {
		return nil, check.Errorf("Width", float64(s.Width), "a Width × Height at DPI of at most MaxPixels = %d pixels (this size has %.3g)", MaxPixels, px)
	}
	c := vgimg.NewWith(vgimg.UseWH(s.Width, s.Height), vgimg.UseDPI(s.DPI))
	p.Draw(draw.New(c))
	var buf bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: c}).WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("figure: encoding PNG: %w", err)
	}
	return buf.Bytes(), nil
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// Smooth returns each row replaced by its trailing moving average over window points (fewer at the start),
// for readable learning curves; NaN and ±Inf values are skipped.
func Smooth(rows [][]float64, window int) [][]float64 {
	out := make([][]float64, len(rows))
	for r, row := range rows {
		out[r] = make([]float64, len(row))
		for i := range row {
			sum, n := 0.0, 0
			for j := max(0, i-window+1); j <= i; j++ {
				if finite(row[j]) {
					sum += row[j]
					n++
				}
			}
			out[r][i] = math.NaN()
			if n > 0 {
				out[r][i] = sum / float64(n)
			}
		}
	}
	return out
}
