package figure

import (
	"strings"

	"github.com/dprl-project/dprl/dprl/param"

	"bytes"
	"fmt"
	"image/color"
	"math"
	"strconv"

	"gonum.org/v1/gonum/stat/distuv"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// LogTicks marks a log axis with a labelled tick at every power of ten and unlabelled minor ticks at 2…9
// times each power. Labels are written 0.01, 0.1, 1, 10, 100, 1000 within that range and as 10⁻⁴ or 10⁵
// outside it. When the axis spans less than two decades, the minor ticks at 2 and 5 are labelled too.
type LogTicks struct{}

// Ticks implements plot.Ticker.
func (LogTicks) Ticks(min, max float64) []plot.Tick {
	if !(min > 0) || !(max > 0) || !finite(min) || !finite(max) {
		return nil
	}
	if max < min {
		min, max = max, min
	}
	lo, hi := int(math.Floor(math.Log10(min))), int(math.Ceil(math.Log10(max)))
	if hi == lo {
		hi++
	}
	labelMinor := hi-lo <= 2
	var ticks []plot.Tick
	for e := lo; e <= hi; e++ {
		base := math.Pow10(e)
		for m := 1; m < 10; m++ {
			if e == hi && m > 1 {
				break
			}
			v := base * float64(m)
			t := plot.Tick{Value: v}
			if m == 1 || (labelMinor && (m == 2 || m == 5)) {
				t.Label = logLabel(m, e)
			}
			ticks = append(ticks, t)
		}
	}
	return ticks
}

// logLabel writes m·10^e (m in 1…9) for an axis: plain decimals between 0.001 and 1000, 10ᵉ or m×10ᵉ
// above, 1e−4 or 2e−4 below (Liberation Sans has no superscript minus).
func logLabel(m, e int) string {
	if e >= -3 && e <= 3 {
		return strconv.FormatFloat(float64(m)*math.Pow10(e), 'f', max(0, -e), 64)
	}
	if e < 0 {
		return strconv.Itoa(m) + "e−" + strconv.Itoa(-e)
	}
	if strings.ContainsAny(strconv.Itoa(e), "09") {
		// the house font (Liberation Sans) has no glyphs for ⁰ and ⁹: 10⁹ would print as "10 "
		return strconv.Itoa(m) + "e" + strconv.Itoa(e)
	}
	pow := "10" + superscript(e)
	if m == 1 {
		return pow
	}
	return strconv.Itoa(m) + "×" + pow
}

// superscript writes n ≥ 0 in superscript digits.
func superscript(n int) string {
	r := []rune("⁰¹²³⁴⁵⁶⁷⁸⁹")
	var b []rune
	for _, c := range strconv.Itoa(n) {
		b = append(b, r[c-'0'])
	}
	return string(b)
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
	// BandCI95 draws a 95% confidence interval for the mean: mean ± t(0.975, n−1)·std/√n (Student's t).
	BandCI95
)

// String names the band as a figure caption would.
func (b Band) String() string {
	switch b {
	case BandStd:
		return "± 1 std"
	case BandStdErr:
		return "± 1 standard error"
	case BandNone:
		return "mean only"
	case BandCI95:
		return "95% CI of the mean"
	}
	return fmt.Sprintf("Band(%d)", int(b))
}

// halfWidth is the band's half-width at one point from the trials' std and count.
func (b Band) halfWidth(std float64, n int) float64 {
	switch {
	case b == BandNone || n < 2:
		return 0
	case b == BandStdErr:
		return std / math.Sqrt(float64(n))
	case b == BandCI95:
		t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}.Quantile(0.975)
		return t * std / math.Sqrt(float64(n))
	}
	return std
}

// Series is one curve: Y[t][i] is trial t's value at X[i]. With one trial the curve is that trial.
//
// Lo and Hi, when both are set (one value per X, NaN where unknown), are the experiment's own interval
// around the curve (for example a bootstrap or Clopper–Pearson interval) and are drawn as the band instead
// of the spread over trials that Options.Band selects.
type Series struct {
	Name   string
	X      []float64
	Y      [][]float64
	Lo, Hi []float64
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
	p := New(opt)
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
		if (s.Lo == nil) != (s.Hi == nil) || (s.Lo != nil && (len(s.Lo) != len(s.X) || len(s.Hi) != len(s.X))) {
			name, n := "Lo", len(s.Lo)
			if s.Lo != nil && len(s.Lo) == len(s.X) {
				name, n = "Hi", len(s.Hi)
			}
			return nil, check.Errorf(fmt.Sprintf("len(series[%d].%s)", k, name), float64(n),
				"[%d, %d] (one value per X; Lo and Hi are set together; series %q)", len(s.X), len(s.X), s.Name)
		}
		mean, std, n := MeanStd(s.Y)
		lo, hi := make([]float64, len(mean)), make([]float64, len(mean))
		for i := range mean {
			w := opt.Band.halfWidth(std[i], n[i])
			lo[i], hi[i] = mean[i]-w, mean[i]+w
		}
		ownBand := s.Lo != nil
		if ownBand {
			copy(lo, s.Lo)
			copy(hi, s.Hi)
		}
		c := Color(k)
		ok := func(i int) bool {
			x, y := s.X[i], mean[i]
			return finite(x) && finite(y) && (!opt.LogX || x > 0) && (!opt.LogY || y > 0)
		}
		for j, run := range runs(len(s.X), ok) {
			if (ownBand || (opt.Band != BandNone && len(s.Y) > 1)) && len(run) > 1 {
				poly := make(plotter.XYs, 0, 2*len(run))
				for _, i := range run {
					y := hi[i]
					if !finite(y) {
						y = mean[i]
					}
					poly = append(poly, plotter.XY{X: s.X[i], Y: y})
				}
				for r := len(run) - 1; r >= 0; r-- {
					i := run[r]
					y := lo[i]
					if !finite(y) {
						y = mean[i]
					}
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
				pg.Color = color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: 0x38}
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
			l.LineStyle = LineStyle(k)
			p.Add(l)
			if j == 0 && s.Name != "" {
				p.Legend.Add(s.Name, l)
			}
			drawn++
		}
	}
	if drawn == 0 {
		return nil, check.Errorf("drawable points in series", 0, "[1, ∞): every X or mean Y is NaN, infinite, or not positive on a log axis")
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

// NominalDPI is the pixel density a notebook page assumes (CSS pixels per inch at 100% zoom, as gonum/plot's
// own default): a figure of width W inches is shown W·NominalDPI CSS pixels wide whatever its DPI.
const NominalDPI = 96

// DefaultSize suits a notebook column: 18 cm × 10.5 cm shown about 680 × 400 CSS pixels wide, rendered at
// twice that density (192 dpi) so it stays sharp on high-DPI screens and when zoomed.
var DefaultSize = Size{Width: 18 * vg.Centimeter, Height: 10.5 * vg.Centimeter, DPI: 2 * NominalDPI}

// CSSWidth is the width in CSS pixels at which s should be shown (its physical width at NominalDPI).
func (s Size) CSSWidth() int { return int(math.Round(float64(s.Width/vg.Inch) * NominalDPI)) }

// PNG renders p at size s, with the legend (if any) to the right of the data area (see Draw); a nil plot or a
// size that is not positive or larger than MaxPixels is an error naming the field.

// MaxPixels bounds the pixels PNG renders (about 100 megapixels: 400 MB of RGBA).
const MaxPixels = 100_000_000

const check param.Checker = "figure"

func PNG(p *plot.Plot, s Size) ([]byte, error) {
	if p == nil {
		return nil, check.Missing("p", "a plot to render")
	}
	if err := param.First(check.In("Width", float64(s.Width), param.Positive), check.In("Height", float64(s.Height), param.Positive),
		check.Int("DPI", s.DPI, 1, 10000)); err != nil {
		return nil, err
	}
	if px := float64(s.Width) / vg.Inch.Points() * float64(s.DPI) * float64(s.Height) / vg.Inch.Points() * float64(s.DPI); !(px <= MaxPixels) {
		return nil, check.Errorf("Width", float64(s.Width), "a Width × Height at DPI of at most MaxPixels = %d pixels (this size has %.3g)", MaxPixels, px)
	}
	c := vgimg.NewWith(vgimg.UseWH(s.Width, s.Height), vgimg.UseDPI(s.DPI), vgimg.UseBackgroundColor(color.White))
	Draw(p, draw.New(c))
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

// Okabe–Ito's eight colours (Okabe & Ito 2008, "Color Universal Design"), told apart with any common colour
// vision deficiency, ordered so the first curves have the most contrast on white (yellow last).
var Palette = []color.NRGBA{
	{0x00, 0x72, 0xB2, 0xff}, // blue
	{0xD5, 0x5E, 0x00, 0xff}, // vermillion
	{0x00, 0x9E, 0x73, 0xff}, // bluish green
	{0xE6, 0x9F, 0x00, 0xff}, // orange
	{0xCC, 0x79, 0xA7, 0xff}, // reddish purple
	{0x56, 0xB4, 0xE9, 0xff}, // sky blue
	{0x00, 0x00, 0x00, 0xff}, // black
	{0xF0, 0xE4, 0x42, 0xff}, // yellow
}

// Dashes are the line patterns paired with the palette (solid, dashed, dotted, dash-dot, …), so curves stay
// distinct in greyscale print; they repeat after len(Dashes) curves, shifted against the colours.
var Dashes = [][]vg.Length{
	nil,
	{vg.Points(6), vg.Points(3)},
	{vg.Points(1.5), vg.Points(2)},
	{vg.Points(6), vg.Points(2.5), vg.Points(1.5), vg.Points(2.5)},
	{vg.Points(10), vg.Points(3)},
	{vg.Points(3), vg.Points(3)},
	{vg.Points(10), vg.Points(2.5), vg.Points(1.5), vg.Points(2.5), vg.Points(1.5), vg.Points(2.5)},
}

// Color is the house palette's k-th colour (cycling).
func Color(k int) color.NRGBA { return Palette[((k%len(Palette))+len(Palette))%len(Palette)] }

// LineStyle is the k-th curve's line: palette colour k, dash pattern k, 1.6 pt wide.
func LineStyle(k int) draw.LineStyle {
	k = ((k % len(Palette)) + len(Palette)) % len(Palette)
	return draw.LineStyle{Color: Color(k), Width: vg.Points(1.6), Dashes: Dashes[k%len(Dashes)]}
}

// Font sizes of the house style, in points.
const (
	TitleSize  = 11
	LabelSize  = 10
	TickSize   = 8.5
	LegendSize = 9
)

// Sans is the house typeface, shipped with gonum/plot (no system fonts needed).
var Sans = font.Font{Typeface: "Liberation", Variant: "Sans"}

// GridColor is the light grey of the background grid.
var GridColor = color.Gray{Y: 0xE4}

// New returns an empty plot in the house style with opt's title, axis labels and log axes, and a light grid
// under whatever is added next. Use it for any figure Curves does not make, then add plotters and legend
// entries as usual; PNG and Draw put the legend to the right of the data.
func New(opt Options) *plot.Plot {
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
	Style(p)
	p.Add(Grid())
	return p
}

// Style applies the house fonts, sizes and paddings to p (it leaves scales, ticks and contents alone).
func Style(p *plot.Plot) {
	p.Title.TextStyle.Font = font.From(Sans, TitleSize)
	p.Title.Padding = vg.Points(6)
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = font.From(Sans, LabelSize)
		a.Tick.Label.Font = font.From(Sans, TickSize)
		a.Label.Padding = vg.Points(3)
		a.LineStyle.Color = color.Gray{Y: 0x60}
		a.Tick.LineStyle.Color = color.Gray{Y: 0x60}
		a.Padding = vg.Points(2)
	}
	p.Legend.TextStyle.Font = font.From(Sans, LegendSize)
	p.Legend.ThumbnailWidth = vg.Points(26)
	p.Legend.Padding = vg.Points(2)
}

// Grid returns the house grid: light grey lines at the major ticks of both axes.
func Grid() *plotter.Grid {
	g := plotter.NewGrid()
	g.Vertical = draw.LineStyle{Color: GridColor, Width: vg.Points(0.5)}
	g.Horizontal = g.Vertical
	return g
}

// Draw draws p onto c in the house layout, inside a small margin: the title centred across the whole figure
// (left-aligned if wider), and the legend, if it has entries, in a column to the right of the data area, or
// below it when that column would take more than 40% of the width. The legend never covers data.
func Draw(p *plot.Plot, c draw.Canvas) {
	m := vg.Points(5)
	c = draw.Crop(c, m, -m, m, -m)
	if title := p.Title.Text; title != "" {
		sty := p.Title.TextStyle
		sty.XAlign, sty.YAlign = draw.XCenter, draw.YTop
		x := (c.Min.X + c.Max.X) / 2
		if w := sty.Width(title); w > c.Max.X-c.Min.X {
			sty.XAlign, x = draw.XLeft, c.Min.X
		}
		c.FillText(sty, vg.Point{X: x, Y: c.Max.Y}, title)
		p.Title.Text = ""
		defer func() { p.Title.Text = title }()
		c = draw.Crop(c, 0, 0, 0, -(sty.Height(title) + p.Title.Padding))
	}
	leg := p.Legend
	r := leg.Rectangle(c)
	w, h := r.Max.X-r.Min.X, r.Max.Y-r.Min.Y
	if w <= 0 {
		p.Draw(c)
		return
	}
	gap := vg.Points(8)
	p.Legend = plot.NewLegend()
	defer func() { p.Legend = leg }()
	l := leg
	l.Top, l.Left, l.XOffs, l.YOffs = true, true, 0, 0
	if w > 0.4*(c.Max.X-c.Min.X) {
		p.Draw(draw.Crop(c, 0, 0, h+gap, 0))
		l.Draw(draw.Crop(c, vg.Points(30), 0, 0, -(c.Max.Y - c.Min.Y - h)))
		return
	}
	p.Draw(draw.Crop(c, 0, -(w + gap), 0, 0))
	l.Draw(draw.Crop(c, c.Max.X-c.Min.X-w, 0, 0, -vg.Points(4)))
}
