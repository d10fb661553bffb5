package envs

import (
	"github.com/dprl-project/dprl/dprl/param"

	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Transition is one outcome of a state-action pair.
type Transition struct {
	Next   int
	Prob   float64
	Reward float64
}

// Model is a tabular MDP: transitions per (state, action), terminal states (value 0, no further reward)
// and a start distribution.
type Model struct {
	NumStates, NumActions int
	T                     [][][]Transition // T[s][a]
	Terminal              []bool
	Start                 []float64
}

// NewModel returns an empty model.
func NewModel(states, actions int) *Model {
	t := make([][][]Transition, states)
	for s := range t {
		t[s] = make([][]Transition, actions)
	}
	return &Model{NumStates: states, NumActions: actions, T: t, Terminal: make([]bool, states), Start: make([]float64, states)}
}

// Add records that action a in state s leads to next with probability p and reward r.
func (m *Model) Add(s, a, next int, p, r float64) {
	m.T[s][a] = append(m.T[s][a], Transition{Next: next, Prob: p, Reward: r})
}

// IsTerminal says whether state s is terminal.
func (m *Model) IsTerminal(s int) bool { return m.Terminal[s] }

// checkPolicy validates a policy table pi[s][a] of action probabilities.
func (m *Model) checkPolicy(pi [][]float64) error {
	if len(pi) != m.NumStates {
		return check.Errorf("len(pi)", float64(len(pi)), "[%d, %d] (the model's states)", m.NumStates, m.NumStates)
	}
	for s, row := range pi {
		if len(row) != m.NumActions {
			return check.Errorf(fmt.Sprintf("len(pi[%d])", s), float64(len(row)), "[%d, %d] (the model's actions)", m.NumActions, m.NumActions)
		}
		sum := 0.0
		for _, p := range row {
			sum += p
		}
		if math.Abs(sum-1) > 1e-9 {
			return check.Errorf(fmt.Sprintf("sum(pi[%d])", s), sum, "1 (within 1e−9): action probabilities")
		}
	}
	return nil
}

// PolicyMatrices returns P_π (NumStates × NumStates, rows of terminal states zero) and the expected reward
// r_π of one step under π.
func (m *Model) PolicyMatrices(pi [][]float64) (*mat.Dense, []float64, error) {
	if err := m.checkPolicy(pi); err != nil {
		return nil, nil, err
	}
	n := m.NumStates
	P := mat.NewDense(n, n, nil)
	r := make([]float64, n)
	for s := range n {
		if m.Terminal[s] {
			continue
		}
		for a, pa := range pi[s] {
			for _, tr := range m.T[s][a] {
				P.Set(s, tr.Next, P.At(s, tr.Next)+pa*tr.Prob)
				r[s] += pa * tr.Prob * tr.Reward
			}
		}
	}
	return P, r, nil
}

// PolicyValue returns the exact value V_π = (I − γP_π)⁻¹ r_π (0 at terminal states). With γ = 1 the policy
// must reach a terminal state with probability 1 from everywhere.
func (m *Model) PolicyValue(pi [][]float64, gamma float64) ([]float64, error) {
	if !(gamma >= 0 && gamma <= 1) {
		return nil, check.In("gamma", gamma, param.Probability)
	}
	P, r, err := m.PolicyMatrices(pi)
	if err != nil {
		return nil, err
	}
	n := m.NumStates
	A := identityMinus(gamma, P)
	var v mat.VecDense
	if err := v.SolveVec(A, mat.NewVecDense(n, r)); err != nil {
		return nil, fmt.Errorf("envs: policy evaluation: %w (does the policy reach a terminal state?)", err)
	}
	return v.RawVector().Data, nil
}

// identityMinus returns I − γM for a square M.
func identityMinus(gamma float64, M mat.Matrix) *mat.Dense {
	n, _ := M.Dims()
	A := mat.NewDense(n, n, nil)
	A.Scale(-gamma, M)
	for i := range n {
		A.Set(i, i, A.At(i, i)+1)
	}
	return A
}

// StateDistribution returns the on-policy state distribution of an episodic task: the expected number of
// visits to each state before termination, starting from Start, discounted by γ (γ = 1: plain visit
// counts), normalised to sum to 1. Terminal states get 0.
func (m *Model) StateDistribution(pi [][]float64, gamma float64) ([]float64, error) {
	if !(gamma >= 0 && gamma <= 1) {
		return nil, check.In("gamma", gamma, param.Probability)
	}
	P, _, err := m.PolicyMatrices(pi)
	if err != nil {
		return nil, err
	}
	n := m.NumStates
	// d = μ0ᵀ(I − γP)⁻¹, solved as (I − γP)ᵀ d = μ0.
	A := identityMinus(gamma, P.T())
	start := make([]float64, n)
	copy(start, m.Start)
	var d mat.VecDense
	if err := d.SolveVec(A, mat.NewVecDense(n, start)); err != nil {
		return nil, fmt.Errorf("envs: state distribution: %w", err)
	}
	out := d.RawVector().Data
	sum := 0.0
	for s := range out {
		if m.Terminal[s] {
			out[s] = 0
		}
		sum += out[s]
	}
	for s := range out {
		out[s] /= sum
	}
	return out, nil
}
