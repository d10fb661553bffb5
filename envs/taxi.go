package envs

import (
	"math/rand/v2"
)

// Taxi is Gymnasium's Taxi-v3 (deterministic: is_rainy and fickle_passenger off). The observation is the
// encoded state ((row·5 + col)·5 + passenger)·4 + destination, passenger 4 meaning "in the taxi".
type Taxi struct {
	episode
	s   int
	obs [1]float64
}

// NewTaxi returns Taxi-v3.
func NewTaxi() *Taxi { return &Taxi{} }

var taxiMap = [7]string{
	"+---------+",
	"|R: | : :G|",
	"| : | : : |",
	"| : : : : |",
	"| | : | : |",
	"|Y| : |B: |",
	"+---------+",
}

var taxiLocs = [4][2]int{{0, 0}, {0, 4}, {4, 0}, {4, 3}}

// TaxiEncode packs (row, col, passenger, destination) into a state index.
func TaxiEncode(row, col, pass, dest int) int { return ((row*5+col)*5+pass)*4 + dest }

// TaxiDecode unpacks a state index.
func TaxiDecode(s int) (row, col, pass, dest int) {
	dest = s % 4
	s /= 4
	pass = s % 5
	s /= 5
	return s / 5, s % 5, pass, dest
}

func (t *Taxi) Name() string                 { return "taxi" }
func (t *Taxi) NumActions() int              { return 6 }
func (t *Taxi) NumStates() int               { return 500 }
func (t *Taxi) StateIndex(obs []float64) int { return int(obs[0]) }
func (t *Taxi) ObservationSpace() Box        { return Box{Low: []float64{0}, High: []float64{499}} }

// TaxiInitialStates lists the 300 start states (passenger at a location other than the destination).
func TaxiInitialStates() []int {
	var out []int
	for s := range 500 {
		_, _, pass, dest := TaxiDecode(s)
		if pass < 4 && pass != dest {
			out = append(out, s)
		}
	}
	return out
}

func (t *Taxi) Reset(src rand.Source) ([]float64, error) {
	if err := t.begin(src); err != nil {
		return nil, err
	}
	starts := TaxiInitialStates()
	t.s = starts[t.rng.IntN(len(starts))]
	t.obs[0] = float64(t.s)
	return t.obs[:], nil
}

// TaxiTransition is the deterministic transition of Taxi-v3.
func TaxiTransition(s, a int) (next int, reward float64, terminated bool) {
	row, col, pass, dest := TaxiDecode(s)
	reward = -1
	switch a {
	case 0:
		row = min(row+1, 4)
	case 1:
		row = max(row-1, 0)
	case 2:
		if taxiMap[1+row][2*col+2] == ':' {
			col = min(col+1, 4)
		}
	case 3:
		if taxiMap[1+row][2*col] == ':' {
			col = max(col-1, 0)
		}
	case 4:
		if pass < 4 && [2]int{row, col} == taxiLocs[pass] {
			pass = 4
		} else {
			reward = -10
		}
	case 5:
		at := -1
		for i, l := range taxiLocs {
			if [2]int{row, col} == l {
				at = i
			}
		}
		switch {
		case pass == 4 && at == dest:
			pass, terminated, reward = dest, true, 20
		case pass == 4 && at >= 0:
			pass = at
		default:
			reward = -10
		}
	}
	return TaxiEncode(row, col, pass, dest), reward, terminated
}

// TaxiActionMask has bit k set iff action k changes the state (Gymnasium's info["action_mask"]).
func TaxiActionMask(s int) [6]bool {
	var m [6]bool
	for a := range 6 {
		next, _, _ := TaxiTransition(s, a)
		m[a] = next != s
	}
	return m
}

func (t *Taxi) Step(a int) (StepResult, error) {
	obs, r, term, err := t.step(a)
	return StepResult{Obs: obs, Reward: r, Terminated: term}, err
}

// step is Step with the result as separate values (see stepFast).
func (t *Taxi) step(a int) (obs []float64, reward float64, terminated bool, err error) {
	if err := t.check("taxi", a, 6); err != nil {
		return nil, 0, false, err
	}
	next, r, term := TaxiTransition(t.s, a)
	t.s = next
	t.obs[0] = float64(next)
	t.end(term)
	return t.obs[:], r, term, nil
}

func (t *Taxi) State() []float64 { return []float64{float64(t.s)} }
func (t *Taxi) SetState(s []float64) error {
	if len(s) != 1 {
		return stateError("taxi", len(s), 1)
	}
	i := int(s[0])
	if float64(i) != s[0] || i < 0 || i >= 500 {
		return check.Errorf("s[0]", s[0], "the integers [0, 499] (the states of taxi)")
	}
	t.s = i
	t.obs[0] = s[0]
	t.resume()
	return nil
}

// Model is Taxi's tabular model. Terminal states are those a successful drop-off leads to.
func (t *Taxi) Model() *Model {
	m := NewModel(500, 6)
	for s := range 500 {
		for a := range 6 {
			next, r, term := TaxiTransition(s, a)
			m.Add(s, a, next, 1, r)
			if term {
				m.Terminal[next] = true
			}
		}
	}
	for _, s := range TaxiInitialStates() {
		m.Start[s] = 1.0 / 300
	}
	return m
}
