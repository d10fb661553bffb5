package adhoc

import (
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/dprl-project/dprl/dprl/param"
	"github.com/dprl-project/dprl/trajectory"
)

// TestEstimateRefusesNoNoise: ε = 0 used to return the non-private estimate as a release (all three
// methods), and GPOPE did so for any ε ≤ 0 or NaN. Every private estimate now refuses ε outside (0, ∞).
func TestEstimateRefusesNoNoise(t *testing.T) {
	s, d := chainSetup(t, 50)
	for _, m := range Methods {
		for _, eps := range []float64{0, -1, math.NaN(), math.Inf(1), math.Inf(-1)} {
			r, err := s.Estimate(m, d, eps, rand.NewPCG(1, 1))
			var pe *param.Error
			if r != nil || !errors.As(err, &pe) || pe.Param != "epsilon" {
				t.Errorf("%v at ε = %v: release %v, error %v", m, eps, r, err)
			}
		}
	}
	bad := *s
	bad.Delta = 0
	if _, err := bad.Estimate(DPLSW, d, 1, rand.NewPCG(1, 1)); err == nil {
		t.Error("δ = 0 accepted")
	}
}

// TestReturnBoundEnforced is the example: with ReturnMax = 1 one trajectory whose return is 10⁶
// moved the DP-LSW release by thousands (the noise being calibrated for returns ≤ 1). Returns are now
// clipped to the declared range: the release with the outlier equals, bit for bit, the release with the
// outlier's return replaced by the bound, and the clipping is reported.
func TestReturnBoundEnforced(t *testing.T) {
	s, d := chainSetup(t, 200)
	withReward := func(r float64) *trajectory.Dataset {
		out := &trajectory.Dataset{ObsDim: d.ObsDim, NumActions: d.NumActions, Trajectories: append([]trajectory.Trajectory(nil), d.Trajectories...)}
		st := d.Trajectories[0].Steps[0]
		st.Reward, st.Terminated = r, true
		out.Trajectories[0] = trajectory.Trajectory{Steps: []trajectory.Step{st}}
		return out
	}
	for _, signed := range []bool{false, true} {
		s.Signed = signed
		for _, m := range []Method{DPLSW, DPLSL} {
			for _, c := range []struct{ outlier, bound float64 }{{1e6, 1}, {-1e6, -1}} {
				if !signed && c.outlier < 0 {
					c.bound = 0
				}
				a, err := s.Estimate(m, withReward(c.outlier), 1, rand.NewPCG(7, 7))
				if err != nil {
					t.Fatal(err)
				}
				b, err := s.Estimate(m, withReward(c.bound), 1, rand.NewPCG(7, 7))
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(a.Theta, b.Theta) || a.Clipped != 1 || b.Clipped != 0 {
					t.Errorf("%v signed=%v outlier %g: releases differ or clip counts %d, %d (want 1, 0)", m, signed, c.outlier, a.Clipped, b.Clipped)
				}
			}
		}
	}
}
