package sweep

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/dprl-project/dprl/dprl/experiment"
)

// Reader parses the cells of a merged table by column name, for code that turns a sweep's rows back into
// its own types. The first parse error is kept and returned by Err, naming the row and the column, so a
// loop can read every cell and check once.
type Reader struct {
	t    *experiment.Table
	cols map[string]int
	err  error
}

// NewReader returns a reader of t's named columns; an error names the first column t lacks.
func NewReader(t *experiment.Table, names ...string) (*Reader, error) {
	idx, err := Columns(t, names...)
	if err != nil {
		return nil, err
	}
	r := &Reader{t: t, cols: make(map[string]int, len(names))}
	for k, n := range names {
		r.cols[n] = idx[k]
	}
	return r, nil
}

// Len is the number of rows.
func (r *Reader) Len() int { return len(r.t.Rows) }

// String is the cell of the given row and column as written. The column must be one NewReader was given.
func (r *Reader) String(row int, col string) string {
	c, ok := r.cols[col]
	if !ok {
		panic(fmt.Sprintf("sweep: Reader.String: column %q was not requested", col))
	}
	return r.t.Rows[row][c]
}

// Float parses the cell as a float64 (NaN and ±Inf included); a parse failure is kept for Err.
func (r *Reader) Float(row int, col string) float64 {
	v, err := strconv.ParseFloat(r.String(row, col), 64)
	r.keep(row, col, err)
	return v
}

// Int parses the cell as an int; a parse failure is kept for Err.
func (r *Reader) Int(row int, col string) int {
	v, err := strconv.Atoi(r.String(row, col))
	r.keep(row, col, err)
	return v
}

func (r *Reader) keep(row int, col string, err error) {
	if err != nil && r.err == nil {
		r.err = fmt.Errorf("sweep: row %d, column %s: %w", row, col, err)
	}
}

// Err is the first parse error, or nil.
func (r *Reader) Err() error { return r.err }

// SeedRanks maps each distinct value of the column (unsigned integers: the seeds) to its rank in
// increasing order, so seeds 1…100 become trials 0…99; a value that is not a seed is kept for Err.
func (r *Reader) SeedRanks(col string) map[string]int {
	var seeds []uint64
	seen := map[string]bool{}
	for row := range r.t.Rows {
		s := r.String(row, col)
		if seen[s] {
			continue
		}
		seen[s] = true
		v, err := strconv.ParseUint(s, 10, 64)
		r.keep(row, col, err)
		seeds = append(seeds, v)
	}
	slices.Sort(seeds)
	out := make(map[string]int, len(seeds))
	for i, s := range seeds {
		out[strconv.FormatUint(s, 10)] = i
	}
	return out
}
