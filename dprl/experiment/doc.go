// Package experiment runs the project's experiments: many seeded trials in parallel with results that do
// not depend on the number of workers, tidy result tables, the arrangement of results for package figure,
// and the notebooks' quick mode.
//
// # Trials
//
// Trials(n, workers, seed, progress, trial) runs trial(i, src) for i = 0 … n − 1 on up to workers goroutines
// and returns the results in trial order. Trial i always draws from rand.NewPCG(seed, i), so a result is
// the same bit for bit whatever the number of workers, and any single trial can be rerun alone. A trial that
// fails or panics stops the trials not yet started; the error is a *TrialError for the lowest-numbered
// failing trial (the same whatever the number of workers), naming the trial and its seed, and a panic is
// recovered into it with its stack, never escaping. A nil Progress is allowed; *display.Progress
// implements it.
//
// # Tables and gathering
//
// Table is a tidy table, one row per observation and one column per variable; Add formats numbers with
// the shortest representation that reads back to the same float64, and WriteCSV refuses a row whose length
// differs from the header before writing anything. Gather arranges rows of results as [trial][i] over a list
// of abscissae, the layout figure.Series takes, with NaN where no row fills a cell.
//
// # Quick mode
//
// Notebooks size their experiments with Size(full, quick): the full size, or the quick one when the
// environment variable QuickEnv (DPRL_QUICK) is set to anything but "" or "0". Quick mode runs the same code
// paths with fewer trials; continuous integration uses it.
//
// # Parameters and errors
//
// Bad arguments (n < 0, workers < 0, a nil trial) are *param.Error values naming this package and the
// parameter.
package experiment
