package mechanisms

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/dprl-project/dprl/dprl/param"
)

// Laplace adds Lap(b) noise, b = Δ1/ε: ε-DP for a query of ℓ1 sensitivity Δ1 in exact arithmetic.
//
// Laplace is the float path: fast, for simulation and experiments. Its float64 noise is open to Mironov's
// least-significant-bit attack whatever source it draws from; use SnappingLaplace (or DiscreteLaplace) for
// releases (see the package documentation, "Float path and secure path").
//
// Its scale b is fixed at construction (read it with Scale).
type Laplace struct {
	scale float64 // b
	rng   *rand.Rand
}

// NewLaplace returns the Laplace mechanism for an ℓ1 sensitivity ∈ (0, ∞) and epsilon ∈ (0, ∞), drawing from
// src (non-nil). The scale sensitivity/epsilon must be finite and positive.
func NewLaplace(epsilon, sensitivity float64, src rand.Source) (*Laplace, error) {
	if err := param.First(checkEpsilon(epsilon), checkSensitivity(sensitivity), checkSource("src", src)); err != nil {
		return nil, err
	}
	if !isPositiveFinite(sensitivity / epsilon) {
		return nil, check.Errorf("epsilon", epsilon, "(0, ∞) with sensitivity/epsilon a positive finite scale (sensitivity = %g)", sensitivity)
	}
	return NewLaplaceScale(sensitivity/epsilon, src)
}

// NewLaplaceScale returns a Laplace noise source with scale ∈ (0, ∞) drawing from src (non-nil).
func NewLaplaceScale(scale float64, src rand.Source) (*Laplace, error) {
	if err := param.First(check.In("scale", scale, param.Positive), checkSource("src", src)); err != nil {
		return nil, err
	}
	return &Laplace{scale: scale, rng: rand.New(src)}, nil
}

// Scale is the noise scale b the mechanism was made with.
func (l *Laplace) Scale() float64 { return l.scale }

// Sample draws one Lap(b) variate (the difference of two exponentials).
func (l *Laplace) Sample() float64 { return l.scale * (l.rng.ExpFloat64() - l.rng.ExpFloat64()) }

// Release returns value + Lap(b).
func (l *Laplace) Release(value float64) float64 { return value + l.Sample() }

// LaplaceDelta returns the exact δ(ε) of the Laplace mechanism with scale b and sensitivity Δ (ε0 = Δ/b):
// 1 − e^{(ε−ε0)/2} for |ε| ≤ ε0, 0 above, 1 − e^ε below.
func LaplaceDelta(scale, sensitivity, epsilon float64) float64 {
	e0 := sensitivity / scale
	switch {
	case epsilon >= e0:
		return 0
	case epsilon <= -e0:
		return -math.Expm1(epsilon)
	}
	return -math.Expm1((epsilon - e0) / 2)
}

// StopRule says which answer ends a sparse-vector run.
type StopRule int

const (
	// StopAtAbove ends the run at the first "above" answer: AboveThreshold (Dwork & Roth, Alg. 1).
	StopAtAbove StopRule = iota
	// StopAtBelow ends the run at the first "below" answer: the mirrored form Sharma et al.'s PrefixQuery
	// uses (a prefix is extended while its noisy count stays above the threshold).
	StopAtBelow
)

// String names the rule ("stop at above", "stop at below"), or gives StopRule(n) for any other value.
func (r StopRule) String() string {
	switch r {
	case StopAtAbove:
		return "stop at above"
	case StopAtBelow:
		return "stop at below"
	}
	return fmt.Sprintf("StopRule(%d)", int(r))
}

// ErrHalted is returned by SparseVector.Above after the run's stopping answer: answering more would spend
// privacy the analysis does not cover.
var ErrHalted = errors.New("mechanisms: sparse vector run already halted; call Reset for a new run")

// SparseVectorParams configures the sparse vector technique for queries of sensitivity Δ.
type SparseVectorParams struct {
	Epsilon     float64 // privacy of one run (until the stopping answer)
	Sensitivity float64 // Δ of every query
	Threshold   float64 // the public threshold T (before noise)
	Stop        StopRule
	Src         rand.Source
}

// SparseVector answers threshold queries with the sparse vector technique: the threshold gets Lap(2Δ/ε)
// noise once per run, each query Lap(4Δ/ε), and the run stops at its first StopAtAbove (or StopAtBelow)
// answer. A run is ε-DP however many non-stopping answers it gives (Dwork & Roth 2014, Thm 3.23). Its
// parameters and noise scales are fixed at construction (Params, ThresholdScale, QueryScale).
type SparseVector struct {
	p              SparseVectorParams
	thresholdNoise *Laplace
	queryNoise     *Laplace
	noisyThreshold float64
	halted         bool
}

// NewSparseVector validates p (Epsilon and Sensitivity in (0, ∞), a finite Threshold, a known Stop rule, a
// non-nil Src; errors name the field) and starts the first run. The noise scales 2Δ/ε and 4Δ/ε must be
// positive and finite (an error names Epsilon otherwise).
func NewSparseVector(p SparseVectorParams) (*SparseVector, error) {
	if err := param.First(check.In("Epsilon", p.Epsilon, param.Positive),
		check.In("Sensitivity", p.Sensitivity, param.Positive),
		check.In("Threshold", p.Threshold, param.Finite),
		check.Int("Stop", int(p.Stop), int(StopAtAbove), int(StopAtBelow))); err != nil {
		return nil, err
	}
	if err := checkSource("Src", p.Src); err != nil {
		return nil, err
	}
	ts, qs := 2*p.Sensitivity/p.Epsilon, 4*p.Sensitivity/p.Epsilon
	if !isPositiveFinite(ts) || !isPositiveFinite(qs) {
		return nil, check.Errorf("Epsilon", p.Epsilon, "(0, ∞) with the noise scales 2·Sensitivity/Epsilon and 4·Sensitivity/Epsilon positive and finite (Sensitivity = %g)", p.Sensitivity)
	}
	s := &SparseVector{p: p}
	s.thresholdNoise, _ = NewLaplaceScale(ts, p.Src)
	s.queryNoise, _ = NewLaplaceScale(qs, p.Src)
	s.Reset()
	return s, nil
}

// Params returns the parameters the mechanism was made with.
func (s *SparseVector) Params() SparseVectorParams { return s.p }

// ThresholdScale is the Laplace scale of the threshold noise, 2Δ/ε.
func (s *SparseVector) ThresholdScale() float64 { return s.thresholdNoise.scale }

// QueryScale is the Laplace scale of each query's noise, 4Δ/ε.
func (s *SparseVector) QueryScale() float64 { return s.queryNoise.scale }

// Reset starts a new run with fresh threshold noise. Each run costs ε (compose runs with an accountant).
func (s *SparseVector) Reset() {
	s.noisyThreshold = s.p.Threshold + s.thresholdNoise.Sample()
	s.halted = false
}

// Above reports whether value + Lap(4Δ/ε) exceeds the noisy threshold. After the stopping answer it
// returns ErrHalted until Reset.
func (s *SparseVector) Above(value float64) (bool, error) {
	if s.halted {
		return false, ErrHalted
	}
	if math.IsNaN(value) {
		return false, check.Errorf("value", value, "a number")
	}
	above := value+s.queryNoise.Sample() > s.noisyThreshold
	if above == (s.p.Stop == StopAtAbove) {
		s.halted = true
	}
	return above, nil
}
