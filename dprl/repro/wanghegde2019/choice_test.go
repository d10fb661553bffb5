package wanghegde2019

import (
	"reflect"
	"testing"
	"time"

	"github.com/dprl-project/dprl/dprl/report"
)

// TestSelection: the selection runs every configuration without noise on its own seeds; Choose takes the
// feasible one with the best mean return, the runner-up after it, and names the best of all apart; the
// table has a row per configuration with its role.
func TestSelection(t *testing.T) {
	grid := []Alg1Config{{B: 512, LR: 0.01, Gamma: 0.5}, {B: 32, LR: 0.3, Gamma: 0.5}, {B: 512, LR: 0.1, Gamma: 0.5}}
	s, err := RunSelection(report.Discard, grid, 3)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := RunSelection(report.Discard, grid, 3)
	if !reflect.DeepEqual(s.Returns, again.Returns) || !reflect.DeepEqual(s.Random, again.Random) {
		t.Error("two selections differ")
	}
	if len(s.Returns) != 3 || len(s.Returns[0]) != 3 || len(s.Random) != 3 || s.Seeds.Base != SelectionSeed {
		t.Fatalf("returns %v, random %v, seeds %+v", s.Returns, s.Random, s.Seeds)
	}
	if !s.Arms[0].Feasible() || s.Arms[1].Feasible() || !s.Arms[2].Feasible() {
		t.Fatalf("feasible: %v %v %v", s.Arms[0].Feasible(), s.Arms[1].Feasible(), s.Arms[2].Feasible())
	}
	c, err := Choose(s)
	if err != nil {
		t.Fatal(err)
	}
	first, second := 0, 2
	if mean(s.Returns[2]) > mean(s.Returns[0]) {
		first, second = 2, 0
	}
	best := 1
	for i := range s.Returns {
		if mean(s.Returns[i]) > mean(s.Returns[best]) {
			best = i
		}
	}
	if c.Chosen != first || c.RunnerUp != second || c.Best != best || c.Learns != (c.Margin(first).Low > 0) {
		t.Errorf("chosen %d, runner-up %d, best %d, learns %v", c.Chosen, c.RunnerUp, c.Best, c.Learns)
	}
	h, rows := ChoiceTable(c)
	if len(rows) != 3 || len(rows[0]) != len(h) || rows[first][len(h)-1] != "chosen" || rows[1][2] != "no guarantee possible" {
		t.Errorf("table %v %v", h, rows)
	}
	f, err := SelectionFigure(c)
	if err != nil || f.Plot == nil || f.Note == "" {
		t.Errorf("figure: %v", err)
	}
	if _, err := RunSelection(report.Discard, grid, 1); err == nil {
		t.Error("one selection seed accepted")
	}
	if _, err := Choose(&Selection{Arms: []Alg1Arm{s.Arms[1]}, Returns: [][]float64{{1, 2}}, Random: []float64{0, 0}}); err == nil {
		t.Error("a choice among infeasible configurations")
	}
}

// TestAlphaCeiling: the largest step size with a guarantee lies between the grid's feasible and infeasible
// α at B = 128 (0.03 and 0.1 at ε = 0.9), is smaller at the smaller ε, and grows with the batch.
func TestAlphaCeiling(t *testing.T) {
	start := time.Now()
	c09, err := AlphaCeiling(128, 0.9)
	if err != nil {
		t.Fatal(err)
	}
	c045, err := AlphaCeiling(128, 0.45)
	if err != nil {
		t.Fatal(err)
	}
	c512, err := AlphaCeiling(512, 0.9)
	if err != nil {
		t.Fatal(err)
	}
	if !(c09 > 0.03 && c09 < 0.1 && c045 < c09 && c512 > c09) {
		t.Errorf("ceilings: B = 128 %g (ε = 0.9), %g (ε = 0.45); B = 512 %g", c09, c045, c512)
	}
	t.Logf("three ceilings in %v", time.Since(start))
}
