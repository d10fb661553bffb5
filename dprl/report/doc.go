// Package report is the seam between an analysis and whatever shows it. An analysis (a reproduction's
// figure, a table of privacy constants) writes Markdown, tables, figures and progress bars to a Sink and
// returns an error. A notebook passes display.Default, a test passes a Recorder, and a batch job passes
// Discard. The package imports no notebook code, so analyses written against it run anywhere.
//
// # Sinks
//
//   - Sink receives, in order, Markdown text, tables (a header row and rows of cells), figures
//     (*plot.Plot, shown at figure.DefaultSize), progress bars over a number of units, and claims rows.
//   - Recorder keeps everything as Items, exactly one of Markdown, Header/Rows, Plot or Claims set in each,
//     and counts the units its bars receive; Figures and Tables count what it holds, ClaimRows gives the
//     claims table its rows make. A nil plot is refused with a *param.Error.
//   - Discard shows nothing.
//
// # Claims rows
//
// A Claim is one row of a reproduction's claims table: the paper's claim (its Kind, the paper's words and
// where they are), what was measured with its interval and seeds, the verdict, and for a comparison the
// trivial reference, the privacy of the methods compared and the verdict's robustness. Package repro
// states what each field must hold and decides the verdicts; this package carries the rows and lays them
// out: MergeClaims (a row replaces the earlier one of its Key), SplitClaims (the paper's rows apart from
// our own sanity checks and analyses), ClaimTable (the columns some row fills), ClaimCounts (rows per
// verdict and per kind) and WriteClaimsCSV (every notebook's rows, columns ClaimsCSVColumns). The JSON form
// of a Claim keeps NaN and infinite numbers (as strings).
package report
