// Package display shows figures, tables, Markdown and progress bars in a GoNB notebook, and is the only
// package of the project that talks to the notebook front end.
//
// # In and out of a notebook
//
// In a notebook, Plot sends an inline PNG (with an HTML alternative that fixes its display width, so a
// figure rendered at twice the density shows at its nominal size), Table and Markdown render as HTML, and a
// Progress bar updates in place and leaves its final line in the saved notebook. Outside a notebook (go run,
// go test) the same calls do something visible instead of vanishing: figures are written as PNG files into
// Dir and their paths printed, tables print as aligned text (TableText), Markdown prints as is, and progress
// goes to a terminal line or, on a pipe or log, a plain line at most every LogInterval. The package-level
// functions use Default, which detects the notebook by itself; figures outside a notebook go to
// $DPRL_FIGURE_DIR (default dprl-figures). WorkDir gives a notebook a folder of its kernel's own for its
// working files, which no other notebook or run shares.
//
// # Text forms
//
// The pure formatting functions are what the display shows and can be tested anywhere:
//   - TableText pads columns to their widest cell under a rule; TableHTML escapes every cell and
//     right-aligns numeric ones.
//   - ProgressText is "label 30/120 (25%) · 2.0 s elapsed · ETA 6.0 s" while running and
//     "label 120/120 · done in 8.1 s" at the end; the ETA assumes a constant rate and is left out before any
//     work is done or when the total is unknown.
//   - durations print as report.FormatDuration writes them: "0.35 s", "12.4 s", "3m05s" or "2h07m".
//
// # Cells, analyses and explorers
//
// A notebook cell ends with Check(err): a nil error does nothing, any other is shown (a red block in the
// notebook, standard error elsewhere) and the cell exits with status 1, so Jupyter marks it failed. Show
// runs an analysis written against report.Sink on Default and checks its error; Display implements
// report.Sink. An Explorer redraws a figure as the reader moves sliders and drop-down lists (HTML controls
// reporting through GoNB's comms); headless (HeadlessEnv set, or no browser answering) and outside a notebook
// it draws its default state once. Its markup says what it shows: the figure carries the positions it was
// drawn for and a drawing count as data- attributes, so a script or a browser test can wait for a state.
//
// # Claims
//
// Display implements report.Sink's Claims: each call says in one line which rows it recorded, with their
// verdicts, and keeps the rows (a row replacing an earlier one of the same key) in ClaimsFile, which
// Default sets, in a notebook, to a file in the kernel's own folder ($GONB_TMP_DIR): every cell is a
// program of its own, and the rows must outlive it. ShowClaims, in a notebook's last cell, shows every row
// kept: the paper's claims, then our own sanity checks and analyses in a table of their own, each under a
// line counting its rows per verdict and per kind; in a notebook it also sends the rows as JSON under
// ClaimsMIME, which kernels/nbrun reads from the executed notebook into claims.csv.
//
// # Parameters and errors
//
// Bad arguments (a nil plot, empty PNG bytes, an explorer without a Draw function or with an empty control)
// are *param.Error values naming this package and the parameter.
package display
