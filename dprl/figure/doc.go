// Package figure builds the project's standard figures with gonum/plot: curves over trials drawn as a mean
// with a band, several curves with a legend, linear or logarithmic axes. Every function returns a
// *plot.Plot or PNG bytes; package display shows them in a notebook, and package report passes them from
// an analysis to whatever shows it.
//
// # Curves and bands
//
// A Series is one curve: Y[t][i] is trial t's value at X[i]. Curves draws each series as its mean over the
// trials with a band selected by Options.Band:
//   - BandStd: mean ± the sample standard deviation s;
//   - BandStdErr: mean ± s/√n;
//   - BandCI95: mean ± t(0.975, n − 1)·s/√n, a 95% confidence interval with Student's t quantile;
//   - BandNone: the mean only.
//
// n counts the trials with a finite value at that point (MeanStd). A Series with Lo and Hi set draws that
// interval instead (for example a bootstrap or Clopper–Pearson interval computed by the experiment). Smooth
// replaces rows by trailing moving averages for readable learning curves.
//
// Missing values are expected (a trial that diverged, a point not evaluated): NaN and ±Inf are skipped, a
// point with no finite trial breaks its line, and on a log axis non-positive values are skipped too.
//
// # House style
//
// Every figure follows one style (Style, New): Liberation Sans text at TitleSize, LabelSize, TickSize and
// LegendSize points, a light grid (GridColor) under the data, the legend beside the data area, never over
// it (Draw), the Okabe–Ito palette, which stays distinguishable with common colour-vision deficiencies
// (Palette), with a distinct dash pattern per curve so curves also stay apart in greyscale (Dashes,
// LineStyle), and log axes labelled at every power of ten with minor ticks between (LogTicks).
//
// # Sizes and PNG
//
// A Size is a figure's physical size and resolution. DefaultSize is 18 cm × 10.5 cm at 192 dpi, twice the
// NominalDPI of 96 at which a notebook page lays it out (about 680 × 400 CSS pixels, CSSWidth), so it stays
// sharp on high-DPI screens; PNG renders a plot at a Size, refusing more than MaxPixels pixels.
//
// # Parameters and errors
//
// Bad arguments (a nil plot, a non-positive size, a series whose rows do not match X, nothing drawable) are
// *param.Error values naming this package, the parameter, the value and what is allowed.
//
// # References
//
//   - Okabe & Ito (2008), Color universal design (CUD): how to make figures and presentations that are
//     friendly to colorblind people.
//   - Student (1908), The probable error of a mean.
package figure
