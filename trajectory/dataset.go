package trajectory

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/dprl-project/dprl/dprl/param"
)

// Step is one step of a trajectory.
type Step struct {
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
	Expert int    `json:"expert"`
	Steps  []Step `json:"steps"`
}

// Dataset is a batch of trajectories over observations of dimension ObsDim and NumActions actions.
type Dataset struct {
	ObsDim       int          `json:"obs_dim"`
	NumActions   int          `json:"num_actions"`
	Trajectories []Trajectory `json:"trajectories"`
}

// MaxRewardMass bounds the sum of |reward| over a whole dataset. Below it every return, every sum of returns
// and every square of one stays finite, so no estimator's arithmetic overflows to ±Inf; the loaders and
// Validate reject a dataset above it, naming the step where the bound is crossed.
const MaxRewardMass = 1e150

// Validate checks the dataset: not empty, ObsDim and NumActions at least 1, every trajectory non-empty with
// a non-negative Expert, every observation of dimension ObsDim and finite, actions in [0, NumActions−1],
// rewards finite with Σ|reward| ≤ MaxRewardMass, behaviour probabilities in [0, 1], and Terminated or
// Truncated only on a trajectory's last step. Errors are *DataError values naming the field by its JSON
// path, e.g. trajectories[2].steps[0].action.
func (d *Dataset) Validate() error {
	if d == nil {
		return &DataError{Field: "dataset", Value: "nil", Allowed: "a non-nil *Dataset"}
	}
	if d.ObsDim < 1 {
		return &DataError{Field: "obs_dim", Value: strconv.Itoa(d.ObsDim), Allowed: "[1, ∞)"}
	}
	if d.NumActions < 1 {
		return &DataError{Field: "num_actions", Value: strconv.Itoa(d.NumActions), Allowed: "[1, ∞)"}
	}
	if len(d.Trajectories) == 0 {
		return &DataError{Field: "trajectories", Value: "[]", Allowed: "at least one trajectory (empty dataset)"}
	}
	mass := 0.0
	for i, tr := range d.Trajectories {
		path := fmt.Sprintf("trajectories[%d]", i)
		if tr.Expert < 0 {
			return &DataError{Field: path + ".expert", Value: strconv.Itoa(tr.Expert), Allowed: "[0, ∞)"}
		}
		if len(tr.Steps) == 0 {
			return &DataError{Field: path + ".steps", Value: "[]", Allowed: "at least one step"}
		}
		for t, s := range tr.Steps {
			if err := checkStep(s, d.ObsDim, d.NumActions, t == len(tr.Steps)-1, &mass); err != nil {
				err.Field = fmt.Sprintf("%s.steps[%d].%s", path, t, err.Field)
				return err
			}
		}
	}
	return nil
}

// checkStep checks one step; the error's Field is the step's JSON field name. last says whether the step
// ends its trajectory; mass accumulates Σ|reward|.
func checkStep(s Step, dim, actions int, last bool, mass *float64) *DataError {
	for k, o := range [][]float64{s.Obs, s.NextObs} {
		name := [2]string{"obs", "next_obs"}[k]
		if len(o) != dim {
			return &DataError{Field: name, Value: fmt.Sprintf("%d values", len(o)), Allowed: fmt.Sprintf("obs_dim = %d values", dim)}
		}
		for i, v := range o {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return &DataError{Field: fmt.Sprintf("%s[%d]", name, i), Value: param.Format(v), Allowed: "a finite number"}
			}
		}
	}
	if s.Action < 0 || s.Action >= actions {
		return &DataError{Field: "action", Value: strconv.Itoa(s.Action), Allowed: param.IntRange(0, actions-1)}
	}
	if math.IsNaN(s.Reward) || math.IsInf(s.Reward, 0) {
		return &DataError{Field: "reward", Value: param.Format(s.Reward), Allowed: "a finite number"}
	}
	if *mass += math.Abs(s.Reward); !(*mass <= MaxRewardMass) {
		return &DataError{Field: "reward", Value: param.Format(s.Reward),
			Allowed: fmt.Sprintf("a value keeping the dataset's Σ|reward| within MaxRewardMass = %g", MaxRewardMass)}
	}
	if !(s.Prob >= 0 && s.Prob <= 1) {
		return &DataError{Field: "prob", Value: param.Format(s.Prob), Allowed: "[0, 1] (behaviour probability; 0 when unknown)"}
	}
	if !last && s.Terminated {
		return &DataError{Field: "terminated", Value: "true", Allowed: "false before a trajectory's last step"}
	}
	if !last && s.Truncated {
		return &DataError{Field: "truncated", Value: "true", Allowed: "false before a trajectory's last step"}
	}
	return nil
}

// FirstVisitReturns returns, for each of numStates states, the average over the trajectories that visit it
// of the discounted return from the first visit on (Balle et al.'s F_{X,s}), and how many trajectories
// visit it (n_s). Unvisited states have average 0. index maps an observation to its state.
func (d *Dataset) FirstVisitReturns(gamma float64, numStates int, index func(obs []float64) int) (avg []float64, visits []int, err error) {
	if err := param.First(check.In("gamma", gamma, param.Probability), check.Int("numStates", numStates, 1, 1<<30)); err != nil {
		return nil, nil, err
	}
	if index == nil {
		return nil, nil, check.Missing("index", "the map from observations to states")
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
				return nil, nil, check.Errorf("index(obs)", float64(s), "[0, numStates−1] = [0, %d] (trajectory %d step %d)", numStates-1, i, t)
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
