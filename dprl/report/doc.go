// Package report is the seam between an analysis and whatever shows it. An analysis (a reproduction's
// figure, a table of privacy constants) writes Markdown, tables, figures and progress bars to a Sink and
// returns an error. A notebook passes display.Default, a test passes a Recorder, and a batch job passes
// Discard. The package imports no notebook code, so analyses written against it run anywhere.
//
// # Sinks
//
//   - Sink receives, in order, Markdown text, tables (a header row and rows of cells), figures
//     (*plot.Plot, shown at figure.DefaultSize) and progress bars over a number of units.
//   - Recorder keeps everything as Items, exactly one of Markdown, Header/Rows or Plot set in each, and
//     counts the units its bars receive; Figures and Tables count what it holds. A nil plot is refused with
//     a *param.Error.
//   - Discard shows nothing.
package report
