package sharma

import (
	"math"
	"testing"
)

// Fractions divide by the mean normalised return of the matching non-private runs; MeanFraction skips runs
// that did not train.
func TestMeanFraction(t *testing.T) {
	all := []Outcome{
		{Job: Job{Tag: "fig3", Env: "cartpole", Method: NonPrivate}, Normalized: 0.8},
		{Job: Job{Tag: "fig3", Env: "cartpole", Method: NonPrivate, Seed: 1}, Normalized: 0.4},
		{Job: Job{Tag: "fig3", Env: "cartpole", Method: Ours}, Normalized: 0.3},
		{Job: Job{Tag: "fig3", Env: "cartpole", Method: Ours, Seed: 1}, Normalized: 0.6},
		{Job: Job{Tag: "fig3", Env: "cartpole", Method: Ours, Seed: 2}, Normalized: math.NaN()},
	}
	ours := func(o Outcome) bool { return o.Method == Ours }
	if got := MeanFraction(all, ours); math.Abs(got-0.75) > 1e-12 {
		t.Errorf("MeanFraction = %v, want (0.3 + 0.6)/2 / 0.6 = 0.75", got)
	}
	if got := MeanFraction(all, func(o Outcome) bool { return o.Env == "acrobot" }); !math.IsNaN(got) {
		t.Errorf("MeanFraction of nothing = %v, want NaN", got)
	}
}
