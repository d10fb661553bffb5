package policyeval

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestBadInputErrors: bad inputs to the estimators are errors, never panics (several of these panicked).
func TestBadInputErrors(t *testing.T) {
	src := rand.NewPCG(1, 1)
	b, _ := newBalleChain()
	sig, _ := b.Batch(10, src)
	priv := PrivacyParams{Epsilon: 1, Delta: 0.1}
	nanPhi := b.Problem(1, 1)
	nanPhi.Phi = mat.DenseCopyOf(nanPhi.Phi)
	nanPhi.Phi.Set(3, 3, math.NaN())
	for name, f := range map[string]func() error{
		"LSW nil":              func() error { _, err := LSW(nil, nil); return err },
		"LSL nil":              func() error { _, err := LSL(nil, nil, 1); return err },
		"DPLSW empty":          func() error { _, err := DPLSW(&Problem{}, &Signature{}, priv, false, src); return err },
		"DPLSW NaN Phi":        func() error { _, err := DPLSW(nanPhi, sig, priv, false, src); return err },
		"DPLSL bound":          func() error { _, err := DPLSL(b.Problem(1, 1), sig, 1, priv, LSLBound(9), src); return err },
		"DPLSL NaN lambda":     func() error { _, err := DPLSL(b.Problem(1, 1), sig, math.NaN(), priv, LSLSafe, src); return err },
		"NewSignature nil":     func() error { _, err := NewSignature(nil, 1, 1, nil); return err },
		"LambdaSchedule nil":   func() error { _, err := LambdaSchedule(nil, 1, 1); return err },
		"SampleMoments ragged": func() error { _, err := SampleMoments([]FeatureTrajectory{{}}, 0.9); return err },
		"WISLSTD ragged":       func() error { _, err := WISLSTD([]FeatureTrajectory{{}}, 0.9, 0); return err },
		"LSTD empty":           func() error { _, err := LSTD(nil, 0.9, 0); return err },
		"Featurize nil":        func() error { _, err := Featurize(nil, nil, nil); return err },
		"GPOPE ragged": func() error {
			_, err := GPOPE([]FeatureTrajectory{{}}, GPOPEConfig{Clip: 1, Sigma: 1, Step: Constant(1), Src: src})
			return err
		},
		"GPOPESigma NaN":        func() error { _, err := GPOPESigma(AccountingTheorem9, 10, 10, math.NaN(), 1e-5, 1, nil); return err },
		"GPOPEEpsilon σ = 0":    func() error { _, err := GPOPEEpsilon(AccountingTheorem9, 10, 10, 0, 1, 1e-5, nil); return err },
		"GPOPEEpsilon n = 0":    func() error { _, err := GPOPEEpsilon(AccountingPoisson, 0, 10, 1, 1, 1e-5, nil); return err },
		"NewEpisodeSignature γ": func() error { _, err := NewEpisodeSignature([][]int{{0}}, [][]float64{{1}}, 1, math.NaN()); return err },
	} {
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s panicked: %v", name, r)
				}
			}()
			if err := f(); err == nil {
				t.Errorf("%s: no error", name)
			}
		}()
	}
}
