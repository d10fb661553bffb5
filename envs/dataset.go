package envs

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
)

// TrajStep is one step of a trajectory.
type TrajStep struct {
	Obs        []float64 `json:"obs"`
	Action     int       `json:"action"`
	Reward     float64   `json:"reward"`
	NextObs    []float64 `json:"next_obs"`
	Terminated bool      `json:"terminated"`
	Truncated  bool      `json:"truncated"`
	// Prob is the probability with which the behaviour policy chose Action (for importance ratios);
	// 0 when unknown.
	Prob float64 `json:"prob"`
}

// Trajectory is one episode: in every paper here, the data of one individual (the unit of privacy), tagged
// with the expert (policy) that produced it.
type Trajectory struct {
	Expert int        `json:"expert"`
	Steps  []TrajStep `json:"steps"`
}

// Dataset is a batch of trajectories over observations of dimension ObsDim and NumActions actions.
type Dataset struct {
	ObsDim       int          `json:"obs_dim"`
	NumActions   int          `json:"num_actions"`
	Trajectories []Trajectory `json:"trajectories"`
}

// Collect runs n episodes of env under policy pol (randomness from src: episode i resets env with a
// stream derived from it, and actions are drawn from another), recording each step with its behaviour
// probability. The trajectories are tagged with expert.
func Collect(env Env, pol Policy, n int, src rand.Source, expert int) ([]Trajectory, error) {
	if pol.NumActions() != env.NumActions() {
		return nil, fmt.Errorf("envs: policy has %d actions, %s has %d", pol.NumActions(), env.Name(), env.NumActions())
	}
	if n < 0 {
		return nil, fmt.Errorf("envs: number of episodes %d is outside the allowed range [0, ∞)", n)
	}
	rng := rand.New(src)
	probs := make([]float64, env.NumActions())
	out := make([]Trajectory, 0, n)
	for range n {
		o, err := env.Reset(rand.NewPCG(rng.Uint64(), rng.Uint64()))
		if err != nil {
			return nil, err
		}
		obs := slices.Clone(o)
		tr := Trajectory{Expert: expert}
		for {
			a := Act(pol, obs, rng, probs) // fills probs with π(·|obs)
			r, err := env.Step(a)
			if err != nil {
				return nil, err
			}
			next := slices.Clone(r.Obs)
			tr.Steps = append(tr.Steps, TrajStep{Obs: obs, Action: a, Reward: r.Reward, NextObs: next,
				Terminated: r.Terminated, Truncated: r.Truncated, Prob: probs[a]})
			obs = next
			if r.Terminated || r.Truncated {
				break
			}
		}
		out = append(out, tr)
	}
	return out, nil
}

// Validate checks the dataset: not empty, every observation of dimension ObsDim and finite, actions in
// range, rewards finite, behaviour probabilities in [0, 1]. Errors name the trajectory and step.
func (d *Dataset) Validate() error {
	if len(d.Trajectories) == 0 {
		return errors.New("envs: empty dataset: no trajectories")
	}
	if d.ObsDim < 1 || d.NumActions < 1 {
		return fmt.Errorf("envs: dataset obs_dim %d and num_actions %d must both be at least 1", d.ObsDim, d.NumActions)
	}
	for i, tr := range d.Trajectories {
		if len(tr.Steps) == 0 {
			return fmt.Errorf("envs: trajectory %d has no steps", i)
		}
		for t, s := range tr.Steps {
			if err := checkStep(s, d.ObsDim, d.NumActions); err != nil {
				return fmt.Errorf("envs: trajectory %d step %d: %w", i, t, err)
			}
		}
	}
	return nil
}

func checkStep(s TrajStep, dim, actions int) error {
	for _, o := range [][]float64{s.Obs, s.NextObs} {
		if len(o) != dim {
			return fmt.Errorf("observation has %d values, want obs_dim = %d", len(o), dim)
		}
		for _, v := range o {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("observation value %v is not finite", v)
			}
		}
	}
	if s.Action < 0 || s.Action >= actions {
		return fmt.Errorf("action %d is outside the allowed range [0, %d]", s.Action, actions-1)
	}
	if math.IsNaN(s.Reward) || math.IsInf(s.Reward, 0) {
		return fmt.Errorf("reward %v is not finite", s.Reward)
	}
	if !(s.Prob >= 0 && s.Prob <= 1) {
		return fmt.Errorf("behaviour probability %v is outside the allowed range [0, 1]", s.Prob)
	}
	return nil
}

// FirstVisitReturns returns, for each of numStates states, the average over the trajectories that visit it
// of the discounted return from the first visit on (Balle et al.'s F_{X,s}), and how many trajectories
// visit it (n_s). Unvisited states have average 0. index maps an observation to its state.
func (d *Dataset) FirstVisitReturns(gamma float64, numStates int, index func(obs []float64) int) (avg []float64, visits []int, err error) {
	if !(gamma >= 0 && gamma <= 1) {
		return nil, nil, fmt.Errorf("envs: gamma = %v is outside the allowed range [0, 1]", gamma)
	}
	avg, visits = make([]float64, numStates), make([]int, numStates)
	seen := make([]int, numStates) // trajectory number + 1 of the last first visit
	g := []float64{}
	for i, tr := range d.Trajectories {
		// Returns from every step, backwards.
		g = g[:0]
		g = append(g, make([]float64, len(tr.Steps)+1)...)
		for t := len(tr.Steps) - 1; t >= 0; t-- {
			g[t] = tr.Steps[t].Reward + gamma*g[t+1]
		}
		for t, st := range tr.Steps {
			s := index(st.Obs)
			if s < 0 || s >= numStates {
				return nil, nil, fmt.Errorf("envs: trajectory %d step %d: state %d is outside the allowed range [0, %d]", i, t, s, numStates-1)
			}
			if seen[s] == i+1 {
				continue
			}
			seen[s] = i + 1
			avg[s] += g[t]
			visits[s]++
		}
	}
	for s := range avg {
		if visits[s] > 0 {
			avg[s] /= float64(visits[s])
		}
	}
	return avg, visits, nil
}

// NumSteps is the total number of steps.
func (d *Dataset) NumSteps() int {
	n := 0
	for _, tr := range d.Trajectories {
		n += len(tr.Steps)
	}
	return n
}

// csvHeader returns the CSV columns for observations of dimension dim.
func csvHeader(dim int) []string {
	h := []string{"trajectory", "expert", "t"}
	for i := range dim {
		h = append(h, fmt.Sprintf("obs_%d", i))
	}
	h = append(h, "action", "reward")
	for i := range dim {
		h = append(h, fmt.Sprintf("next_obs_%d", i))
	}
	return append(h, "terminated", "truncated", "prob")
}

// WriteCSV writes the dataset in the project's trajectory CSV format: one row per step with the columns
// trajectory, expert, t, obs_0 … obs_{d−1}, action, reward, next_obs_0 … next_obs_{d−1}, terminated,
// truncated, prob (booleans as 0/1, numbers as shortest round-trip decimals). Rows of a trajectory are
// consecutive with t = 0, 1, …
func (d *Dataset) WriteCSV(w io.Writer) error {
	if err := d.Validate(); err != nil {
		return err
	}
	cw := csv.NewWriter(w)
	if err := cw.Write(csvHeader(d.ObsDim)); err != nil {
		return err
	}
	num := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	flag := func(b bool) string {
		if b {
			return "1"
		}
		return "0"
	}
	for i, tr := range d.Trajectories {
		for t, s := range tr.Steps {
			row := []string{strconv.Itoa(i), strconv.Itoa(tr.Expert), strconv.Itoa(t)}
			for _, v := range s.Obs {
				row = append(row, num(v))
			}
			row = append(row, strconv.Itoa(s.Action), num(s.Reward))
			for _, v := range s.NextObs {
				row = append(row, num(v))
			}
			row = append(row, flag(s.Terminated), flag(s.Truncated), num(s.Prob))
			if err := cw.Write(row); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// LineError reports a malformed line of a trajectory file.
type LineError struct {
	Line int
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("envs: line %d: %v", e.Line, e.Err) }
func (e *LineError) Unwrap() error { return e.Err }

// ReadCSV reads a dataset in the format WriteCSV writes, for an environment with numActions actions. The
// observation dimension comes from the header. Errors name the line: wrong or missing columns, numbers that
// do not parse or are NaN or infinite, actions out of range, steps out of order.
func ReadCSV(r io.Reader, numActions int) (*Dataset, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if err == io.EOF {
		return nil, errors.New("envs: empty dataset: the file has no header")
	}
	if err != nil {
		return nil, &LineError{Line: 1, Err: err}
	}
	dim := 0
	for _, c := range header {
		if strings.HasPrefix(c, "obs_") {
			dim++
		}
	}
	want := csvHeader(dim)
	if !slices.Equal(header, want) {
		return nil, &LineError{Line: 1, Err: fmt.Errorf("header %q, want %q", strings.Join(header, ","), strings.Join(want, ","))}
	}
	if dim == 0 {
		return nil, &LineError{Line: 1, Err: errors.New("no obs_ columns")}
	}
	d := &Dataset{ObsDim: dim, NumActions: numActions}
	line := 1
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		line++
		if err != nil {
			return nil, &LineError{Line: line, Err: err}
		}
		if len(rec) != len(want) {
			return nil, &LineError{Line: line, Err: fmt.Errorf("%d fields, want %d", len(rec), len(want))}
		}
		vals := make([]float64, len(rec))
		for i, f := range rec {
			v, err := strconv.ParseFloat(f, 64)
			if err != nil {
				return nil, &LineError{Line: line, Err: fmt.Errorf("column %s: %q is not a number", want[i], f)}
			}
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, &LineError{Line: line, Err: fmt.Errorf("column %s: %v is not finite", want[i], v)}
			}
			vals[i] = v
		}
		traj, expert, t := int(vals[0]), int(vals[1]), int(vals[2])
		step := TrajStep{
			Obs:        vals[3 : 3+dim],
			Action:     int(vals[3+dim]),
			Reward:     vals[4+dim],
			NextObs:    vals[5+dim : 5+2*dim],
			Terminated: vals[5+2*dim] != 0,
			Truncated:  vals[6+2*dim] != 0,
			Prob:       vals[7+2*dim],
		}
		if float64(step.Action) != vals[3+dim] {
			return nil, &LineError{Line: line, Err: fmt.Errorf("action %v is not an integer", vals[3+dim])}
		}
		switch {
		case traj == len(d.Trajectories) && t == 0:
			d.Trajectories = append(d.Trajectories, Trajectory{Expert: expert})
		case traj == len(d.Trajectories)-1 && t == len(d.Trajectories[traj].Steps) && expert == d.Trajectories[traj].Expert:
		default:
			return nil, &LineError{Line: line, Err: fmt.Errorf("trajectory %d step %d (expert %d) out of order: rows must list trajectories 0, 1, … with t = 0, 1, … and one expert each", traj, t, expert)}
		}
		if err := checkStep(step, dim, numActions); err != nil {
			return nil, &LineError{Line: line, Err: err}
		}
		d.Trajectories[traj].Steps = append(d.Trajectories[traj].Steps, step)
	}
	if len(d.Trajectories) == 0 {
		return nil, errors.New("envs: empty dataset: the file has a header but no steps")
	}
	return d, nil
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

// ReadJSON reads a dataset written by WriteJSON and validates it.
func ReadJSON(r io.Reader) (*Dataset, error) {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	var d Dataset
	if err := dec.Decode(&d); err != nil {
		if err == io.EOF {
			return nil, errors.New("envs: empty dataset: the JSON input is empty")
		}
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, fmt.Errorf("envs: JSON syntax error at byte %d: %w", se.Offset, err)
		}
		return nil, fmt.Errorf("envs: reading JSON dataset: %w", err)
	}
	if err := d.Validate(); err != nil {
		return nil, err
	}
	return &d, nil
}
