package envs

import (
	"bytes"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/dprl-project/dprl/trajectory"
)

func collectChain(t *testing.T, n int) *trajectory.Dataset {
	t.Helper()
	pol, _ := ConstantTable(40, 0.5, 0.5)
	tr, err := Collect(must(Make("chain")), pol, n, rand.NewPCG(3, 3), 7)
	if err != nil {
		t.Fatal(err)
	}
	return &trajectory.Dataset{ObsDim: 1, NumActions: 2, Trajectories: tr}
}

func TestCollectAndFirstVisitReturns(t *testing.T) {
	d := collectChain(t, 3000)
	again := collectChain(t, 3000)
	if d.NumSteps() != again.NumSteps() || !stepEqual(d.Trajectories[17].Steps[3], again.Trajectories[17].Steps[3]) {
		t.Fatal("same seed, different datasets")
	}
	for _, tr := range d.Trajectories {
		if tr.Expert != 7 || tr.Steps[0].Prob != 0.5 {
			t.Fatal("expert tag or behaviour probability missing")
		}
		last := tr.Steps[len(tr.Steps)-1]
		if !last.Terminated && !last.Truncated {
			t.Fatal("a trajectory ends without terminating or truncating")
		}
	}
	// First-visit Monte Carlo converges to the exact values (on states visited often enough).
	avg, visits, err := d.FirstVisitReturns(0.99, 40, func(o []float64) int { return int(o[0]) })
	if err != nil {
		t.Fatal(err)
	}
	pi, _ := ConstantTable(40, 0.5, 0.5)
	v, _ := NewChain(BalleChainParams()).Model().PolicyValue(pi.P, 0.99)
	for s := 30; s < 39; s++ {
		if visits[s] < 500 {
			t.Fatalf("state %d visited by %d trajectories only", s, visits[s])
		}
		if math.Abs(avg[s]-v[s]) > 0.03 {
			t.Errorf("state %d: first-visit average %.4f, exact %.4f (%d visits)", s, avg[s], v[s], visits[s])
		}
	}
}

func stepEqual(a, b trajectory.Step) bool {
	return a.Action == b.Action && a.Reward == b.Reward && a.Obs[0] == b.Obs[0] && a.NextObs[0] == b.NextObs[0]
}

// TestCollectedDataRoundTrips: what Collect records survives the CSV and JSON writers and readers exactly.
func TestCollectedDataRoundTrips(t *testing.T) {
	for _, c := range []struct {
		env             string
		dim, actions, n int
		seed            uint64
	}{{"mountaincar", 2, 3, 3, 4}, {"cartpole", 4, 2, 4, 9}} {
		tr, err := Collect(must(Make(c.env)), Uniform{N: c.actions}, c.n, rand.NewPCG(c.seed, c.seed), 2)
		if err != nil {
			t.Fatal(err)
		}
		d := &trajectory.Dataset{ObsDim: c.dim, NumActions: c.actions, Trajectories: tr}
		var csvBuf, jsonBuf bytes.Buffer
		if err := d.WriteCSV(&csvBuf); err != nil {
			t.Fatal(err)
		}
		if err := d.WriteJSON(&jsonBuf); err != nil {
			t.Fatal(err)
		}
		fromCSV, err := trajectory.ReadCSV(&csvBuf, c.actions)
		if err != nil {
			t.Fatal(err)
		}
		fromJSON, err := trajectory.ReadJSON(&jsonBuf)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(fromCSV, d) || !reflect.DeepEqual(fromJSON, d) {
			t.Errorf("%s: the dataset changed in a round trip", c.env)
		}
	}
}
