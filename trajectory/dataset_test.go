package trajectory

import (
	"strings"
	"testing"
)

// TestFirstVisitReturnsNamesItsArguments: numStates = 0 used to print the range "[0, -1]".
func TestFirstVisitReturnsNamesItsArguments(t *testing.T) {
	d := &Dataset{ObsDim: 1, NumActions: 1, Trajectories: []Trajectory{{Steps: []Step{{Obs: []float64{3}, NextObs: []float64{0}}}}}}
	idx := func(o []float64) int { return int(o[0]) }
	for want, err := range map[string]error{
		"numStates = 0 is outside the allowed range [1,":                        func() error { _, _, err := d.FirstVisitReturns(0.9, 0, idx); return err }(),
		"index(obs) = 3 is outside the allowed range [0, numStates−1] = [0, 1]": func() error { _, _, err := d.FirstVisitReturns(0.9, 2, idx); return err }(),
		"index is missing": func() error { _, _, err := d.FirstVisitReturns(0.9, 2, nil); return err }(),
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%v, want %q", err, want)
		}
	}
}
