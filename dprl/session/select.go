package session

import (
	"fmt"
	"math"
	mrand "math/rand/v2"

	"github.com/dprl-project/dprl/dprl/param"
	"github.com/dprl-project/dprl/trajectory"
)

// Selection is a private choice among Candidates by the exponential mechanism over a bounded score: each
// trajectory scores each candidate, the score is clipped to [Lo, Hi] (the bound is enforced, not trusted)
// and averaged over the m trajectories, and candidate j is drawn with probability proportional to
// exp(ε·u_j/(2Δ)), Δ = (Hi − Lo)/m. Replacing one trajectory moves every u_j by at most Δ, so the choice
// is ε-DP (McSherry & Talwar 2007) under the replace-one relation with m public; the scores themselves are
// never released.
type Selection struct {
	Mechanism  string  // what is chosen, for the ledger
	Epsilon    float64 // in (0, ∞)
	Candidates int     // at least 1
	Lo, Hi     float64 // the score range, Lo < Hi
	// Score is trajectory tr's score for candidate j in [0, Candidates): higher is better. It may read
	// public things (earlier releases, the Setup) but nothing of the data besides tr.
	Score func(tr trajectory.Trajectory, j int) float64
}

func (sel Selection) validate() error {
	if sel.Score == nil {
		return check.Missing("Score", "a score function")
	}
	return param.First(check.In("Epsilon", sel.Epsilon, param.Positive), check.AtLeast("Candidates", sel.Candidates, 1),
		check.In("Lo", sel.Lo, param.Finite), check.In("Hi", sel.Hi, param.Interval{Lo: sel.Lo, Hi: math.Inf(1)}))
}

// Charge is the selection's cost: ε-DP with δ = 0 (the Rényi filter charges ε-randomized response's
// curve, which bounds every ε-DP mechanism).
func (sel Selection) Charge() Charge {
	return Charge{Mechanism: sel.Mechanism, Epsilon: sel.Epsilon}
}

// Select charges the selection to the budget and then makes it on the private data (Release). A NaN score
// counts as Lo: that some trajectory scores NaN is data, and an error would tell it.
func (s *Session) Select(sel Selection) (int, error) {
	if err := sel.validate(); err != nil {
		return 0, err
	}
	score := sel.Score
	sel.Score = func(tr trajectory.Trajectory, j int) float64 {
		if v := score(tr, j); !math.IsNaN(v) {
			return v
		}
		return sel.Lo
	}
	choice := -1
	err := s.Release(sel.Charge(), func(d *trajectory.Dataset, src mrand.Source) error {
		var err error
		choice, err = Exponential(d, sel, src)
		return err
	})
	return choice, err
}

// Exponential is the selection's mechanism on a dataset, outside any session (for audits and public
// data). A NaN score is an error naming the trajectory and candidate (Session.Select counts it as Lo
// instead).
func Exponential(d *trajectory.Dataset, sel Selection, src mrand.Source) (int, error) {
	if err := sel.validate(); err != nil {
		return 0, err
	}
	if d == nil || len(d.Trajectories) == 0 {
		return 0, check.Missing("d", "a dataset with at least one trajectory")
	}
	if src == nil {
		return 0, check.Missing("src", "a non-nil rand.Source")
	}
	u := make([]float64, sel.Candidates)
	for i, tr := range d.Trajectories {
		for j := range u {
			v := sel.Score(tr, j)
			if math.IsNaN(v) {
				return 0, fmt.Errorf("session: %s: trajectory %d scores NaN for candidate %d", sel.Mechanism, i, j)
			}
			u[j] += min(max(v, sel.Lo), sel.Hi)
		}
	}
	// ε·u_j/(2Δ) with u_j the mean: ε·Σ/(2(Hi − Lo)), shifted by its maximum before exponentiating
	scale := sel.Epsilon / (2 * (sel.Hi - sel.Lo))
	top := math.Inf(-1)
	for j := range u {
		u[j] *= scale
		top = max(top, u[j])
	}
	total := 0.0
	for j := range u {
		u[j] = math.Exp(u[j] - top)
		total += u[j]
	}
	r := mrand.New(src).Float64() * total
	for j, w := range u {
		if r < w {
			return j, nil
		}
		r -= w
	}
	return sel.Candidates - 1, nil
}
