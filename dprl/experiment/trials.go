package experiment

import (
	"encoding/csv"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/dprl-project/dprl/dprl/param"
)

const check param.Checker = "experiment"

// Progress receives units of finished work; *display.Progress implements it. A nil Progress is allowed.
type Progress interface{ Add(n int) }

// TrialError is the error of one trial of Trials: which trial, the seed of the run and the stream the trial
// drew from (rand.NewPCG(Seed, Trial)), so the trial can be rerun alone. A panic in the trial is recovered
// into a TrialError with Panic set to the panic value and Stack to the goroutine's stack.
type TrialError struct {
	Trial int
	Seed  uint64
	Err   error // the trial's error; for a panic, an error describing it
	Panic any   // the recovered panic value, nil for an ordinary error
	Stack []byte
}

func (e *TrialError) Error() string {
	what := ""
	if e.Panic != nil {
		what = "panicked: "
	}
	return fmt.Sprintf("experiment: trial %d (seed %d, stream rand.NewPCG(%d, %d)) %s%v", e.Trial, e.Seed, e.Seed, e.Trial, what, e.Err)
}

func (e *TrialError) Unwrap() error { return e.Err }

// runTrial runs one trial, recovering a panic into a *TrialError.
func runTrial[T any](i int, seed uint64, trial func(i int, src rand.Source) (T, error)) (r T, err error) {
	defer func() {
		if p := recover(); p != nil {
			perr, ok := p.(error)
			if !ok {
				perr = fmt.Errorf("%v", p)
			}
			err = &TrialError{Trial: i, Seed: seed, Err: perr, Panic: p, Stack: debug.Stack()}
		}
	}()
	r, err = trial(i, rand.NewPCG(seed, uint64(i)))
	if err != nil {
		err = &TrialError{Trial: i, Seed: seed, Err: err}
	}
	return r, err
}

// Trials runs trial(i, src) for i = 0 … n−1 on up to workers goroutines (0: GOMAXPROCS) and returns the
// results in trial order. Trial i always gets the stream rand.NewPCG(seed, i), so results are the same bit
// for bit whatever the number of workers. A trial that fails or panics stops the trials not yet started;
// the error returned is a *TrialError for the lowest-numbered failing trial (the same whatever the number of
// workers, since every trial below it has run), and a panic never escapes: it is recovered into the error.
// n < 0, workers < 0 and a nil trial are rejected with a *param.Error.
func Trials[T any](n, workers int, seed uint64, progress Progress, trial func(i int, src rand.Source) (T, error)) ([]T, error) {
	if err := param.First(check.AtLeast("n", n, 0), check.AtLeast("workers", workers, 0)); err != nil {
		return nil, err
	}
	if trial == nil {
		return nil, check.Missing("trial", "a function")
	}
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	out := make([]T, n)
	errs := make([]error, n)
	next := make(chan int)
	var (
		failed atomic.Bool
		wg     sync.WaitGroup
	)
	for range min(workers, max(n, 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out[i], errs[i] = runTrial(i, seed, trial)
				if errs[i] != nil {
					failed.Store(true)
				}
				if progress != nil {
					progress.Add(1)
				}
			}
		}()
	}
	for i := range n {
		if failed.Load() {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

// Table is a tidy result table: one row per observation, one column per variable.
type Table struct {
	Columns []string
	Rows    [][]string
}

// Add appends a row; numbers are formatted with the shortest round-trip representation.
func (t *Table) Add(values ...any) {
	row := make([]string, len(values))
	for i, v := range values {
		switch x := v.(type) {
		case float64:
			row[i] = strconv.FormatFloat(x, 'g', -1, 64)
		case string:
			row[i] = x
		default:
			row[i] = fmt.Sprint(x)
		}
	}
	t.Rows = append(t.Rows, row)
}

// WriteCSV writes the header and rows; a row whose length differs from Columns is an error naming it,
// and nothing is written.
func (t *Table) WriteCSV(w io.Writer) error {
	if len(t.Columns) == 0 {
		return check.Errorf("Columns", 0, "at least one column name (got none)")
	}
	for i, r := range t.Rows {
		if len(r) != len(t.Columns) {
			return check.Errorf(fmt.Sprintf("Rows[%d]", i), float64(len(r)), "%d values, one per column", len(t.Columns))
		}
	}
	cw := csv.NewWriter(w)
	if err := cw.Write(t.Columns); err != nil {
		return err
	}
	if err := cw.WriteAll(t.Rows); err != nil {
		return err
	}
	cw.Flush()
	return cw.Error()
}
