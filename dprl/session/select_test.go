package session

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/dprl-project/dprl/dprl/audit"
	"github.com/dprl-project/dprl/trajectory"
)

// rewardScore scores candidate j by how close trajectory tr's total reward is to j/2 (a bounded score in
// [−1, 0] before clipping for rewards in [0, 2]).
func rewardScore(tr trajectory.Trajectory, j int) float64 {
	r := 0.0
	for _, s := range tr.Steps {
		r += s.Reward
	}
	return -math.Abs(r - float64(j)/2)
}

func TestExponentialSelects(t *testing.T) {
	d := chainData(t, 200, 2) // every trajectory ends with reward 1 at the goal or 0 when truncated
	sel := Selection{Mechanism: "closest", Epsilon: 50, Candidates: 3, Lo: -1, Hi: 0, Score: rewardScore}
	counts := make([]int, 3)
	for i := range 200 {
		j, err := Exponential(d, sel, rand.NewPCG(uint64(i), 9))
		if err != nil {
			t.Fatal(err)
		}
		counts[j]++
	}
	// the mean score of candidate 2 (reward 1) is the highest when most trajectories reach the goal
	if counts[2] < 150 {
		t.Errorf("at ε = 50 the best candidate was chosen %v times of 200", counts)
	}
	for name, bad := range map[string]Selection{
		"eps":   {Mechanism: "x", Epsilon: 0, Candidates: 2, Lo: 0, Hi: 1, Score: rewardScore},
		"range": {Mechanism: "x", Epsilon: 1, Candidates: 2, Lo: 1, Hi: 1, Score: rewardScore},
		"cands": {Mechanism: "x", Epsilon: 1, Candidates: 0, Lo: 0, Hi: 1, Score: rewardScore},
		"score": {Mechanism: "x", Epsilon: 1, Candidates: 2, Lo: 0, Hi: 1},
		"nan":   {Mechanism: "x", Epsilon: 1, Candidates: 2, Lo: 0, Hi: 1, Score: func(trajectory.Trajectory, int) float64 { return math.NaN() }},
	} {
		if _, err := Exponential(d, bad, rand.NewPCG(1, 1)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestSelectIsCharged: a selection through the session is one ε-DP line in the ledger.
func TestSelectIsCharged(t *testing.T) {
	cfg := fixture(t)
	s, err := Init(cfg, Total{Epsilon: 1, Delta: 1e-5, Filter: Renyi})
	if err != nil {
		t.Fatal(err)
	}
	sel := Selection{Mechanism: "which half", Epsilon: 0.3, Candidates: 3, Lo: -1, Hi: 0, Score: rewardScore}
	j, err := s.Select(sel)
	if err != nil || j < 0 || j > 2 {
		t.Fatalf("select: %d, %v", j, err)
	}
	l, err := s.Ledger()
	if err != nil {
		t.Fatal(err)
	}
	if e := l.Entries; len(e) != 1 || e[0].Mechanism != "which half" || e[0].Epsilon != 0.3 || e[0].Delta != 0 || e[0].RDP != nil {
		t.Errorf("ledger %+v", e)
	}
	sel.Epsilon = 5
	if _, err := s.Select(sel); err == nil || !strings.Contains(err.Error(), "budget exhausted") {
		t.Errorf("a selection beyond the budget: %v", err)
	}
}

// TestAuditSelection audits the exponential mechanism as implemented at ε = 1 on the pair that moves it
// most: 20 trajectories all scoring both candidates alike, and the same with one trajectory replaced by
// one scoring candidate 0 at the top of the range and candidate 1 at the bottom, far outside it (the clip
// must hold it). The statistic is the chosen index. The audited lower bound stays below the claimed ε; a
// broken variant that skips the clip (scores the canary as given) is caught above it.
func TestAuditSelection(t *testing.T) {
	canary := trajectory.Trajectory{Expert: 1}
	score := func(tr trajectory.Trajectory, j int) float64 {
		if tr.Expert == 1 {
			return map[int]float64{0: 1, 1: -50}[j]
		}
		return 0.5
	}
	inputs := [2]*trajectory.Dataset{{ObsDim: 1, NumActions: 1, Trajectories: make([]trajectory.Trajectory, 20)}, nil}
	inputs[1] = &trajectory.Dataset{ObsDim: 1, NumActions: 1, Trajectories: append([]trajectory.Trajectory{canary}, inputs[0].Trajectories[1:]...)}
	sel := Selection{Mechanism: "audited", Epsilon: 1, Candidates: 2, Lo: 0, Hi: 1, Score: score}
	run := func(sel Selection) func(int, rand.Source) (float64, error) {
		return func(nb int, src rand.Source) (float64, error) {
			j, err := Exponential(inputs[nb], sel, src)
			return float64(j), err
		}
	}
	cfg := audit.Config{Runs: 20000, Seed: 5}
	res, err := audit.Run(audit.Procedure{Name: "exponential mechanism", Run: run(sel)}, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !(res.EpsilonLower < sel.Epsilon) {
		t.Errorf("the exponential mechanism audits at ε ≥ %g, above its claimed %g", res.EpsilonLower, sel.Epsilon)
	}
	broken := sel
	// no clip: a range wide enough for the canary, with the scale ε/(2(Hi − Lo)) of the declared [0, 1]
	broken.Lo, broken.Hi = -50, 1
	broken.Epsilon = sel.Epsilon * (broken.Hi - broken.Lo) / (sel.Hi - sel.Lo)
	bad, err := audit.Run(audit.Procedure{Name: "unclipped", Run: run(broken)}, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !(bad.EpsilonLower > sel.Epsilon) {
		t.Errorf("the unclipped variant audits at only %g, not above the claimed %g", bad.EpsilonLower, sel.Epsilon)
	}
	t.Logf("claimed ε = %g: as implemented ≥ %.3f, unclipped ≥ %.3f (95%%)", sel.Epsilon, res.EpsilonLower, bad.EpsilonLower)
}

// TestSelectWhateverTheScores: a private selection never fails on what the data hold. A score that is NaN
// for one trajectory (here: those that reach the goal) counts as the bottom of the range, Lo, so Select
// still chooses; an error instead would be visible and tell that some trajectory scores NaN, which the
// neighbouring dataset without that trajectory would not.
func TestSelectWhateverTheScores(t *testing.T) {
	cfg := fixture(t)
	s, err := Init(cfg, Total{Epsilon: 1, Delta: 1e-5})
	if err != nil {
		t.Fatal(err)
	}
	nanAtGoal := func(tr trajectory.Trajectory, j int) float64 {
		if r := rewardScore(tr, 0); r < -0.5 { // total reward 1: reached the goal
			return math.NaN()
		}
		return rewardScore(tr, j)
	}
	j, err := s.Select(Selection{Mechanism: "nan scores", Epsilon: 0.2, Candidates: 3, Lo: -1, Hi: 0, Score: nanAtGoal})
	if err != nil || j < 0 || j > 2 {
		t.Errorf("select with a NaN score: %d, %v", j, err)
	}
	// Outside a session (public data), a NaN score is still reported.
	if _, err := Exponential(chainData(t, 30, 1), Selection{Mechanism: "x", Epsilon: 1, Candidates: 2, Lo: -1, Hi: 0, Score: nanAtGoal}, rand.NewPCG(1, 1)); err == nil {
		t.Error("Exponential accepted a NaN score")
	}
}
