package trajectory

import (
	"bytes"
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

// JSON input: pointers tell a missing or null field from a zero one.
type (
	jsonDataset struct {
		ObsDim       *int              `json:"obs_dim"`
		NumActions   *int              `json:"num_actions"`
		Trajectories *[]jsonTrajectory `json:"trajectories"`
	}
	jsonTrajectory struct {
		Expert *int        `json:"expert"`
		Steps  *[]jsonStep `json:"steps"`
	}
	jsonStep struct {
		Obs        *[]float64 `json:"obs"`
		Action     *int       `json:"action"`
		Reward     *float64   `json:"reward"`
		NextObs    *[]float64 `json:"next_obs"`
		Terminated *bool      `json:"terminated"`
		Truncated  *bool      `json:"truncated"`
		Prob       *float64   `json:"prob"`
	}
)

// jsonKeys are the only object keys of the format, spelled exactly.
var jsonKeys = map[string]bool{"obs_dim": true, "num_actions": true, "trajectories": true, "expert": true,
	"steps": true, "obs": true, "action": true, "reward": true, "next_obs": true, "terminated": true,
	"truncated": true, "prob": true}

// scanJSON checks the input token by token: exactly one JSON value, object keys spelled as the format
// spells them (encoding/json alone would match keys case-insensitively), none repeated in one object
// (encoding/json alone would keep the last) and no null (encoding/json would read [1, null] as [1, 0]).
func scanJSON(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	at := func(off int64) (int, int) {
		off = min(max(off, 0), int64(len(data)))
		before := data[:off]
		return bytes.Count(before, []byte("\n")) + 1, int(off) - bytes.LastIndexByte(before, '\n')
	}
	type frame struct {
		object bool
		keys   map[string]bool
		key    bool // the next token is a key
	}
	var stack []frame
	lastKey := "dataset"
	for {
		start := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			line, col := at(dec.InputOffset())
			var se *json.SyntaxError
			if errors.As(err, &se) {
				line, col = at(se.Offset)
			}
			if err == io.EOF {
				err = errors.New("unexpected end of JSON input")
			}
			return &DataError{Line: line, Column: col, Err: err}
		}
		n := len(stack)
		if n > 0 && stack[n-1].object && stack[n-1].key {
			if k, ok := tok.(string); ok {
				line, col := at(start)
				switch {
				case !jsonKeys[k]:
					return &DataError{Line: line, Column: col, Field: "key", Value: k, Allowed: "one of the format's keys, spelled exactly (obs_dim, num_actions, trajectories, expert, steps, obs, action, reward, next_obs, terminated, truncated, prob)"}
				case stack[n-1].keys[k]:
					return &DataError{Line: line, Column: col, Field: "key", Value: k, Allowed: "each key once per object (this one is repeated)"}
				}
				stack[n-1].keys[k] = true
				stack[n-1].key = false
				lastKey = k
				continue
			}
		}
		if tok == nil {
			line, col := at(start)
			return &DataError{Line: line, Column: col, Field: lastKey, Value: "null", Allowed: "a value (omit an optional field instead of writing null)"}
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, frame{object: true, keys: map[string]bool{}, key: true})
			continue
		case json.Delim('['):
			stack = append(stack, frame{})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:n-1]
			n--
		}
		if n == 0 {
			break
		}
		if stack[n-1].object {
			stack[n-1].key = true // a value ends: a key (or the end) comes next
		}
	}
	end := dec.InputOffset()
	if _, err := dec.Token(); err != io.EOF {
		rest := data[end:]
		line, col := at(end + int64(len(rest)-len(bytes.TrimLeft(rest, " \t\r\n"))))
		return &DataError{Line: line, Column: col, Err: errors.New("data after the dataset: a file holds exactly one JSON dataset")}
	}
	return nil
}

// ReadJSON reads a dataset in the format WriteJSON writes: exactly one JSON object, keys spelled exactly and
// never repeated, obs_dim, num_actions and trajectories required, expert and steps in every trajectory, obs,
// action, reward and next_obs in every step (terminated and truncated default to false, prob to 0: unknown);
// then the dataset is validated (see Validate). Errors are *DataError values naming the line or the field's
// JSON path. The whole input is held in memory while it is read.
func ReadJSON(r io.Reader) (*Dataset, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, &DataError{Err: err}
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, &DataError{Line: 1, Field: "dataset", Value: "", Allowed: "one JSON object (the input is empty: empty dataset)"}
	}
	if err := scanJSON(data); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var in jsonDataset
	if err := dec.Decode(&in); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			field := te.Field
			if field == "" {
				field = "dataset"
			}
			allowed := map[string]string{"int": "an integer", "float64": "a finite number", "bool": "true or false"}[te.Type.String()]
			if allowed == "" {
				allowed = "the format's structure (" + te.Type.String() + ")"
			}
			return nil, &DataError{Field: field, Value: strings.TrimPrefix(te.Value, "number "), Allowed: allowed}
		}
		return nil, &DataError{Err: err}
	}
	missing := func(path string) error {
		return &DataError{Field: path, Value: "null", Allowed: "a value (the field is required)"}
	}
	switch {
	case in.ObsDim == nil:
		return nil, missing("obs_dim")
	case in.NumActions == nil:
		return nil, missing("num_actions")
	case in.Trajectories == nil:
		return nil, missing("trajectories")
	}
	d := &Dataset{ObsDim: *in.ObsDim, NumActions: *in.NumActions, Trajectories: make([]Trajectory, len(*in.Trajectories))}
	for i, jt := range *in.Trajectories {
		path := fmt.Sprintf("trajectories[%d]", i)
		switch {
		case jt.Expert == nil:
			return nil, missing(path + ".expert")
		case jt.Steps == nil:
			return nil, missing(path + ".steps")
		}
		tr := Trajectory{Expert: *jt.Expert, Steps: make([]Step, len(*jt.Steps))}
		for t, js := range *jt.Steps {
			sp := fmt.Sprintf("%s.steps[%d].", path, t)
			switch {
			case js.Obs == nil:
				return nil, missing(sp + "obs")
			case js.Action == nil:
				return nil, missing(sp + "action")
			case js.Reward == nil:
				return nil, missing(sp + "reward")
			case js.NextObs == nil:
				return nil, missing(sp + "next_obs")
			}
			s := Step{Obs: *js.Obs, Action: *js.Action, Reward: *js.Reward, NextObs: *js.NextObs}
			if js.Terminated != nil {
				s.Terminated = *js.Terminated
			}
			if js.Truncated != nil {
				s.Truncated = *js.Truncated
			}
			if js.Prob != nil {
				s.Prob = *js.Prob
			}
			tr.Steps[t] = s
		}
		d.Trajectories[i] = tr
	}
	if err := d.Validate(); err != nil {
		return nil, err
	}
	return d, nil
}
