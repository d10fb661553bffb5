package trajectory

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/dprl-project/dprl/dprl/param"
)

const check param.Checker = "trajectory"

// DataError reports a value in a dataset, or a trajectory file, that is not allowed: where it is (the
// file's line and column when known, 0 otherwise), the field (a CSV column, or a JSON path such as
// trajectories[2].steps[0].action), the value as given and what is allowed. Syntax errors of the file set
// Err instead of Field, Value and Allowed.
type DataError struct {
	Line, Column int
	Field        string
	Value        string
	Allowed      string
	Err          error
}

func (e *DataError) Error() string {
	loc := ""
	if e.Line > 0 {
		loc = fmt.Sprintf("line %d: ", e.Line)
		if e.Column > 0 {
			loc = fmt.Sprintf("line %d, column %d: ", e.Line, e.Column)
		}
	}
	if e.Err != nil {
		return "trajectory: " + loc + e.Err.Error()
	}
	v := e.Value
	if len(v) > 64 { // a long field is shown by its start
		cut := 60
		for cut > 0 && !utf8.RuneStart(v[cut]) {
			cut--
		}
		v = v[:cut] + "…"
	}
	if v == "" || strings.ContainsAny(v, " \t\r\n,\"") && !strings.HasSuffix(v, " values") && !strings.HasSuffix(v, " fields") {
		v = strconv.Quote(v)
	}
	return fmt.Sprintf("trajectory: %s%s = %s is not allowed: want %s", loc, e.Field, v, e.Allowed)
}

// Unwrap returns the syntax error, if any.
func (e *DataError) Unwrap() error { return e.Err }

// csvReader tracks the state of ReadCSV.
type csvReader struct {
	cr      *csv.Reader
	cols    []string
	rec     []string
	d       *Dataset
	mass    float64
	stopped bool // the last step read ended its episode
}

// fail returns a *DataError for field i of the current record.
func (c *csvReader) fail(i int, allowed string, args ...any) *DataError {
	line, col := c.cr.FieldPos(i)
	return &DataError{Line: line, Column: col, Field: c.cols[i], Value: c.rec[i], Allowed: fmt.Sprintf(allowed, args...)}
}

// int parses field i as an integer in [lo, hi].
func (c *csvReader) int(i, lo, hi int) (int, error) {
	v, err := strconv.Atoi(c.rec[i])
	if err != nil || v < lo || v > hi {
		return 0, c.fail(i, "an integer in %s", param.IntRange(lo, hi))
	}
	return v, nil
}

// num parses field i as a finite number in [lo, hi].
func (c *csvReader) num(i int, lo, hi float64) (float64, error) {
	v, err := strconv.ParseFloat(c.rec[i], 64)
	if err != nil || !(v >= lo && v <= hi) || math.IsInf(v, 0) {
		if math.IsInf(lo, 0) && math.IsInf(hi, 0) {
			return 0, c.fail(i, "a finite number")
		}
		return 0, c.fail(i, "a number in %s", param.Interval{Lo: lo, Hi: hi, LoClosed: true, HiClosed: true})
	}
	return v, nil
}

// flag parses field i as a boolean written 0 or 1.
func (c *csvReader) flag(i int) (bool, error) {
	switch c.rec[i] {
	case "0":
		return false, nil
	case "1":
		return true, nil
	}
	return false, c.fail(i, "0 or 1")
}

// row parses the current record and appends its step.
func (c *csvReader) row() error {
	dim := c.d.ObsDim
	n := len(c.d.Trajectories)
	traj, err := c.int(0, 0, math.MaxInt)
	if err != nil {
		return err
	}
	switch {
	case n == 0 && traj != 0:
		return c.fail(0, "0: the first row starts trajectory 0")
	case traj != n && traj != n-1:
		return c.fail(0, "%d (continuing) or %d (the next): trajectories are numbered 0, 1, … in consecutive rows", n-1, n)
	case traj == n-1 && c.stopped:
		return c.fail(0, "%d: trajectory %d ended on the previous row (terminated or truncated = 1)", n, n-1)
	}
	expert, err := c.int(1, 0, math.MaxInt)
	if err != nil {
		return err
	}
	t, err := c.int(2, 0, math.MaxInt)
	if err != nil {
		return err
	}
	if traj == n {
		if t != 0 {
			return c.fail(2, "0: the first row of trajectory %d", traj)
		}
	} else {
		cur := &c.d.Trajectories[traj]
		if t != len(cur.Steps) {
			return c.fail(2, "%d: rows of a trajectory have t = 0, 1, … in order", len(cur.Steps))
		}
		if expert != cur.Expert {
			return c.fail(1, "%d: one expert per trajectory", cur.Expert)
		}
	}
	inf := math.Inf(1)
	vals := make([]float64, 2*dim)
	for k := range 2 * dim {
		i := 3 + k
		if k >= dim {
			i = 5 + k
		}
		if vals[k], err = c.num(i, -inf, inf); err != nil {
			return err
		}
	}
	var s Step
	s.Obs, s.NextObs = vals[:dim:dim], vals[dim:]
	if s.Action, err = c.int(3+dim, 0, c.d.NumActions-1); err != nil {
		return err
	}
	if s.Reward, err = c.num(4+dim, -inf, inf); err != nil {
		return err
	}
	if c.mass += math.Abs(s.Reward); !(c.mass <= MaxRewardMass) {
		return c.fail(4+dim, "a value keeping the dataset's Σ|reward| within MaxRewardMass = %g", MaxRewardMass)
	}
	if s.Terminated, err = c.flag(5 + 2*dim); err != nil {
		return err
	}
	if s.Truncated, err = c.flag(6 + 2*dim); err != nil {
		return err
	}
	if s.Prob, err = c.num(7+2*dim, 0, 1); err != nil {
		return err
	}
	if traj == n {
		c.d.Trajectories = append(c.d.Trajectories, Trajectory{Expert: expert})
	}
	c.d.Trajectories[traj].Steps = append(c.d.Trajectories[traj].Steps, s)
	c.stopped = s.Terminated || s.Truncated
	return nil
}

// ReadCSV reads a dataset in the format WriteCSV writes, for an environment with numActions actions; the
// observation dimension comes from the header (obs_0 … obs_{d−1}). Every field is checked: trajectory,
// expert, t and action are integers (trajectories numbered 0, 1, … in consecutive rows, t = 0, 1, … within
// one, one expert each, actions in [0, numActions−1]); observations and rewards are finite numbers with the
// dataset's Σ|reward| ≤ MaxRewardMass; terminated and truncated are 0 or 1 and 1 only on a trajectory's last
// row; prob is in [0, 1]. A bad file gives a *DataError naming the line, column, field, value and what is
// allowed. The reader holds one row at a time besides the dataset, so memory grows with the data only.
func ReadCSV(r io.Reader, numActions int) (*Dataset, error) {
	if err := check.AtLeast("numActions", numActions, 1); err != nil {
		return nil, err
	}
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err == io.EOF {
		return nil, &DataError{Line: 1, Field: "header", Value: "", Allowed: "the CSV header line (the file is empty: empty dataset)"}
	}
	if err != nil {
		return nil, csvSyntax(err)
	}
	dim := 0
	for _, c := range header {
		if strings.HasPrefix(c, "obs_") {
			dim++
		}
	}
	want := csvHeader(max(dim, 1))
	if dim == 0 || !slices.Equal(header, want) {
		return nil, &DataError{Line: 1, Field: "header", Value: strings.Join(header, ","), Allowed: strings.Join(want, ",")}
	}
	c := &csvReader{cr: cr, cols: want, d: &Dataset{ObsDim: dim, NumActions: numActions}}
	for {
		c.rec, err = cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, csvSyntax(err)
		}
		if len(c.rec) != len(want) {
			line, _ := cr.FieldPos(0)
			return nil, &DataError{Line: line, Field: "row", Value: fmt.Sprintf("%d fields", len(c.rec)),
				Allowed: fmt.Sprintf("%d fields, one per header column", len(want))}
		}
		if err := c.row(); err != nil {
			return nil, err
		}
	}
	if len(c.d.Trajectories) == 0 {
		return nil, &DataError{Line: 2, Field: "row", Value: "", Allowed: "at least one step after the header (empty dataset)"}
	}
	return c.d, nil
}

// csvSyntax converts an error of the CSV reader.
func csvSyntax(err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return &DataError{Line: pe.Line, Column: pe.Column, Err: pe.Err}
	}
	return &DataError{Err: err}
}

// WriteJSON writes the dataset as one JSON object {obs_dim, num_actions, trajectories: [{expert, steps:
// [{obs, action, reward, next_obs, terminated, truncated, prob}]}]}.
func (d *Dataset) WriteJSON(w io.Writer) error {
	if err := d.Validate(); err != nil {
		return err
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	return enc.Encode(d)
}
