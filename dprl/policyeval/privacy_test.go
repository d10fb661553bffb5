package policyeval

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestPrivateReleasesRefuseNoNoise: DP-LSW and DP-LSL refuse ε outside (0, ∞) and δ outside (0, 1), and
// a hand-made signature whose returns cannot be clipped.
func TestPrivateReleasesRefuseNoNoise(t *testing.T) {
	b, err := newBalleChain()
	if err != nil {
		t.Fatal(err)
	}
	sig, err := b.Batch(100, rand.NewPCG(1, 1))
	if err != nil {
		t.Fatal(err)
	}
	p := b.Problem(1, 1)
	for _, priv := range []PrivacyParams{{Epsilon: 0, Delta: 0.1}, {Epsilon: -1, Delta: 0.1}, {Epsilon: math.NaN(), Delta: 0.1},
		{Epsilon: math.Inf(1), Delta: 0.1}, {Epsilon: 1, Delta: 0}, {Epsilon: 1, Delta: 1}, {Epsilon: 1, Delta: math.NaN()}} {
		if r, err := DPLSW(p, sig, priv, false, rand.NewPCG(1, 1)); err == nil {
			t.Errorf("DPLSW(%+v) released %v", priv, r.Theta[:2])
		}
		if r, err := DPLSL(p, sig, 100, priv, LSLSafe, rand.NewPCG(1, 1)); err == nil {
			t.Errorf("DPLSL(%+v) released %v", priv, r.Theta[:2])
		}
	}
	hand := &Signature{M: sig.M, F: sig.F, Counts: sig.Counts}
	if _, err := DPLSW(p, hand, PrivacyParams{Epsilon: 1, Delta: 0.1}, false, rand.NewPCG(1, 1)); err == nil || !strings.Contains(err.Error(), "clip") {
		t.Errorf("a signature without its returns: %v", err)
	}
	if _, err := DPLSW(p, sig, PrivacyParams{Epsilon: 1, Delta: 0.1}, false, nil); err == nil {
		t.Error("nil source accepted")
	}
	if _, err := DPLSW(nil, sig, PrivacyParams{Epsilon: 1, Delta: 0.1}, false, rand.NewPCG(1, 1)); err == nil {
		t.Error("nil problem accepted")
	}
}

// TestSignatureClipping: clipping to the declared range changes only out-of-range returns, counts them, and
// leaves an in-range dataset's signature bit for bit as it was.
func TestSignatureClipping(t *testing.T) {
	sig, err := NewEpisodeSignature([][]int{{0, 1}, {1}, {0}}, [][]float64{{0.5, 5}, {-3}, {0.25}}, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	// returns: trajectory 0: state 0 → 5.5, state 1 → 5; trajectory 1: state 1 → −3; trajectory 2: state 0 → 0.25
	if sig.F[0] != (5.5+0.25)/2 || sig.F[1] != 1 {
		t.Fatalf("signature %v", sig.F)
	}
	c, n, err := sig.bounded(0, 1)
	if err != nil || n != 3 || c.F[0] != 0.625 || c.F[1] != 0.5 {
		t.Errorf("clipped to [0, 1]: F %v, %d clipped, %v", c.F, n, err)
	}
	same, n, _ := sig.bounded(-10, 10)
	if n != 0 || same.F[0] != sig.F[0] || same.F[1] != sig.F[1] {
		t.Errorf("in-range clipping changed the signature: %v, %d", same.F, n)
	}
	p := &Problem{Phi: mat.NewDense(2, 1, []float64{1, 1}), Rho: []float64{1, 1}, FMax: 1, FRange: 2, FMin: -1}
	if lo, hi := p.ReturnRange(); lo != -1 || hi != 1 {
		t.Errorf("signed range [%v, %v]", lo, hi)
	}
	if err := p.check(sig); err != nil {
		t.Error(err)
	}
	for _, bad := range []Problem{{FMax: 1, FRange: 2}, {FMax: 1, FRange: 1, FMin: -2}, {FMax: 1, FRange: 1, FMin: math.NaN()}, {FMax: math.Inf(1), FRange: 1}} {
		bad.Phi, bad.Rho = p.Phi, p.Rho
		if err := bad.check(sig); err == nil {
			t.Errorf("return bounds %v, %v, %v accepted", bad.FMin, bad.FRange, bad.FMax)
		}
	}
	for _, bad := range []struct {
		states  [][]int
		rewards [][]float64
	}{{nil, nil}, {[][]int{{0}}, [][]float64{{math.NaN()}}}, {[][]int{{0}}, [][]float64{{math.Inf(1)}}}, {[][]int{{2}}, [][]float64{{1}}},
		{[][]int{{0}}, [][]float64{{1, 2}}}, {[][]int{{0}}, nil}} {
		if _, err := NewEpisodeSignature(bad.states, bad.rewards, 2, 1); err == nil {
			t.Errorf("NewEpisodeSignature(%v, %v) accepted", bad.states, bad.rewards)
		}
	}
}

// TestGPOPERefusesNoNoise: Sigma = 0 used to mean a non-private run; it is now an error unless NonPrivate is
// set, and non-finite data are refused naming the trajectory.
func TestGPOPERefusesNoNoise(t *testing.T) {
	tr := []FeatureTrajectory{{Phi: [][]float64{{1}, {0}}, Rho: []float64{1}, R: []float64{1}}}
	base := GPOPEConfig{Gamma: 0.9, Iterations: 5, Step: Constant(0.5), Clip: 10, Src: rand.NewPCG(1, 1)}
	for _, s := range []float64{0, -1, math.NaN(), math.Inf(1)} {
		c := base
		c.Sigma = s
		if _, err := GPOPE(tr, c); err == nil || !strings.Contains(err.Error(), "Sigma") {
			t.Errorf("Sigma = %v: %v", s, err)
		}
	}
	c := base
	c.NonPrivate, c.Sigma = true, 1
	if _, err := GPOPE(tr, c); err == nil {
		t.Error("NonPrivate with noise accepted")
	}
	c.Sigma = 0
	if _, err := GPOPE(tr, c); err != nil {
		t.Error(err)
	}
	for _, bad := range []float64{math.NaN(), math.Inf(1)} {
		b := []FeatureTrajectory{tr[0], {Phi: [][]float64{{1}, {0}}, Rho: []float64{1}, R: []float64{bad}}}
		c := base
		c.Sigma = 1
		if _, err := GPOPE(b, c); err == nil || !strings.Contains(err.Error(), "trajectory 1") {
			t.Errorf("reward %v: %v", bad, err)
		}
	}
}
