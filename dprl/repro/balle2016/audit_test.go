package balle2016

import (
	"reflect"
	"testing"
)

// TestAuditPairs: both audit problems replace exactly one trajectory, the single visit of state 0, whose
// return moves from 0 to 1; the other m − 1 trajectories are the same in both inputs.
func TestAuditPairs(t *testing.T) {
	p, ds := LSWAuditProblem()
	if len(ds[0].Trajectories) != 200 || p.Rho[0] != 0.5 {
		t.Fatalf("LSW pair: %d trajectories, ρ %v", len(ds[0].Trajectories), p.Rho)
	}
	for nb, d := range ds {
		first := d.Trajectories[0].Steps[0]
		if first.Obs[0] != 0 || first.Reward != float64(nb) {
			t.Errorf("input %d: replaced trajectory %+v", nb, first)
		}
	}
	if !reflect.DeepEqual(ds[0].Trajectories[1:], ds[1].Trajectories[1:]) || reflect.DeepEqual(ds[0].Trajectories[0], ds[1].Trajectories[0]) {
		t.Error("the inputs must differ in the first trajectory only")
	}
	for _, tr := range ds[0].Trajectories[1:] {
		if st := tr.Steps[0]; st.Obs[0] != 1 || st.Reward != 0.5 {
			t.Fatalf("unchanged trajectory %+v", st)
		}
	}
	lp, sigs, err := LSLAuditProblem()
	if err != nil || lp.Rho[0] != 0.9 || sigs[0] == nil || sigs[1] == nil {
		t.Fatalf("LSL pair: ρ %v, %v", lp.Rho, err)
	}
}
