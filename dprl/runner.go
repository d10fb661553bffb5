package dprl

import (
	"encoding/csv"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"strconv"
	"sync"
)

// Progress receives units of finished work; *display.Progress implements it. A nil Progress is allowed.
type Progress interface{ Add(n int) }

// Trials runs trial(i, src) for i = 0 … n−1 on up to workers goroutines (0: GOMAXPROCS) and returns the
// results in trial order. Trial i always gets the stream rand.NewPCG(seed, i), so results are the same bit
// for bit whatever the number of workers. The first error stops the remaining trials and is returned with
// its trial number.
func Trials[T any](n, workers int, seed uint64, progress Progress, trial func(i int, src rand.Source) (T, error)) ([]T, error) {
	if n < 0 {
		return nil, fmt.Errorf("dprl: number of trials %d is outside the allowed range [0, ∞)", n)
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	out := make([]T, n)
	next := make(chan int)
	var (
		mu       sync.Mutex
		firstErr error
		wg       sync.WaitGroup
	)
	for range min(workers, max(n, 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				r, err := trial(i, rand.NewPCG(seed, uint64(i)))
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = fmt.Errorf("trial %d: %w", i, err)
				}
				mu.Unlock()
				out[i] = r
				if progress != nil {
					progress.Add(1)
				}
			}
		}()
	}
	for i := range n {
		mu.Lock()
		stop := firstErr != nil
		mu.Unlock()
		if stop {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	return out, firstErr
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

// WriteCSV writes the header and rows.
func (t *Table) WriteCSV(w io.Writer) error {
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
