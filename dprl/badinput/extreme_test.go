package badinput_test

import (
	"math"
	"testing"
	"time"

	"github.com/dprl-project/dprl/mechanisms"
)

// TestExtremeInputsAnswered holds inputs that are valid but extreme: once they exhausted memory, panicked or
// hung; now each must answer within the time limit with a valid (finite, pessimistic) result rather than an
// error.
func TestExtremeInputsAnswered(t *testing.T) {
	cases := []struct {
		name string
		run  func() (float64, error)
		ok   func(v float64) bool
	}{
		{"PLD Laplace noise multiplier 1e-5 (was a 16 GB allocation)", func() (float64, error) {
			a, err := mechanisms.NewPLDAccountant(mechanisms.PLDParams{})
			if err != nil {
				return 0, err
			}
			if err := a.Compose(mechanisms.LaplaceEvent{NoiseMultiplier: 1e-5}, 1); err != nil {
				return 0, err
			}
			return a.Epsilon(1e-5)
		}, func(v float64) bool { return v >= 1e5*(1-1e-9) }}, // pure ε = 1/b = 10⁵ at δ = 0, so never below it minus rounding of the exact value
		{"PLD zero-value accountant", func() (float64, error) {
			var a mechanisms.PLDAccountant
			if err := a.Compose(mechanisms.GaussianEvent{NoiseMultiplier: 1}, 1); err != nil {
				return 0, err
			}
			return a.Epsilon(1e-5)
		}, func(v float64) bool {
			exact, _ := mechanisms.GDPEpsilon(1, 1e-5)
			return v >= exact && v < exact+0.01
		}},
		{"Poisson-subsampled Gaussian RDP at order 1e9+0.5 (was a hang)", func() (float64, error) {
			return mechanisms.RDPPoissonGaussian(0.01, 1, 1e9+0.5)
		}, func(v float64) bool { return v >= 0 && v <= (1e9+0.5)/2 }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			type answer struct {
				v   float64
				err error
			}
			done := make(chan answer, 1)
			go func() { v, err := c.run(); done <- answer{v, err} }()
			select {
			case a := <-done:
				if a.err != nil || math.IsNaN(a.v) || !c.ok(a.v) {
					t.Fatalf("got %v, %v: want a valid value", a.v, a.err)
				}
			case <-time.After(caseTimeout):
				t.Fatal("no answer within the limit: hangs")
			}
		})
	}
}
