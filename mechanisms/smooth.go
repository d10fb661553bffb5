package mechanisms

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/dprl-project/dprl/dprl/param"
)

// SmoothVariant selects the constants of the smooth-sensitivity Gaussian mechanism.
type SmoothVariant int

const (
	// SmoothLemma1 uses α = 5·sqrt(2 ln(2/δ))/ε and β = ε/(4(d + ln(2/δ))): Nissim, Raskhodnikova & Smith
	// (2007), as Balle et al. (2016) state it in their Lemma 1.
	SmoothLemma1 SmoothVariant = iota
	// SmoothAppendixA uses α = 15·sqrt(2 ln(4/δ))/ε and β = 2ε/(5(√d + sqrt(2 ln(2/δ)))²): the elementary
	// proof of Balle et al.'s Appendix A (Lemma 14). (Their ICML-era code multiplied where this divides,
	// which is not private; this is the correct form.)
	SmoothAppendixA
)

// String names the variant ("Lemma 1", "Appendix A"), or gives SmoothVariant(n) for any other value.
func (v SmoothVariant) String() string {
	switch v {
	case SmoothLemma1:
		return "Lemma 1"
	case SmoothAppendixA:
		return "Appendix A"
	}
	return fmt.Sprintf("SmoothVariant(%d)", int(v))
}

// SmoothEpsilonRange is the range of ε in which the smooth-sensitivity Gaussian's constants are proven,
// (0, 1]: Nissim, Raskhodnikova & Smith's analysis, in the form of Balle et al.'s Lemma 1, and the elementary
// proof of their Appendix A both assume ε ≤ 1.
var SmoothEpsilonRange = param.Interval{Lo: 0, Hi: 1, HiClosed: true}

// SmoothGaussianConstants returns α and β for releasing a d-dimensional statistic f(X) + N(0, σ(X)² I_d)
// with σ(X) = α·S(X), S a β-smooth upper bound on the local sensitivity: then the release is (ε, δ)-DP.
// The analysis holds for ε ≤ 1 only: a larger ε is refused with a *ParamError naming epsilon and the range
// (0, 1] (doc.go, "Smooth sensitivity"); there is no (ε, δ) guarantee to calibrate for.
func SmoothGaussianConstants(epsilon, delta float64, d int, v SmoothVariant) (alpha, beta float64, err error) {
	if err := param.First(check.In("epsilon", epsilon, SmoothEpsilonRange), checkDeltaPositive(delta)); err != nil {
		return 0, 0, err
	}
	if err := param.First(check.AtLeast("d", d, 1), check.Int("v", int(v), int(SmoothLemma1), int(SmoothAppendixA))); err != nil {
		return 0, 0, err
	}
	switch v {
	case SmoothLemma1:
		alpha = 5 * math.Sqrt(2*math.Log(2/delta)) / epsilon
		beta = epsilon / (4 * (float64(d) + math.Log(2/delta)))
	case SmoothAppendixA:
		alpha = 15 * math.Sqrt(2*math.Log(4/delta)) / epsilon
		r := math.Sqrt(float64(d)) + math.Sqrt(2*math.Log(2/delta))
		beta = 2 * epsilon / (5 * r * r)
	}
	if !isPositiveFinite(alpha) || !isPositiveFinite(beta) {
		return 0, 0, check.Errorf("epsilon", epsilon, "%s with α = %g and β = %g positive and finite (delta = %g, d = %d)",
			SmoothEpsilonRange, alpha, beta, delta, d)
	}
	return alpha, beta, nil
}

// SmoothUpperBound returns S_β = max_{0≤k≤kMax} e^{−kβ}·A(k), where A(k) is the largest local sensitivity
// over datasets within distance k (A must be non-decreasing in k, and constant beyond kMax). This is the
// smooth upper bound of Nissim et al. (2007, Def. 2.1/Lemma 2.3); Balle et al.'s Lemmas 5 and 9 give A(k)
// in closed form for DP-LSW and DP-LSL through the visit counts. argmax is the first k attaining it.
//
// The scan stops once e^{−kβ}·A(kMax) cannot exceed the bound found (A is non-decreasing), so the work is
// about ln(A(kMax)/bound)/β terms however large kMax is; the result is the same as the full scan. A β that
// is NaN or negative, a negative kMax or a nil A give (NaN, −1).
func SmoothUpperBound(beta float64, kMax int, A func(k int) float64) (bound float64, argmax int) {
	if !(beta >= 0) || kMax < 0 || A == nil {
		return math.NaN(), -1
	}
	top := A(kMax)
	for k := 0; k <= kMax; k++ {
		if v := math.Exp(-float64(k)*beta) * A(k); v > bound {
			bound, argmax = v, k
		}
		if bound > 0 && math.Exp(-float64(k+1)*beta)*top <= bound {
			break
		}
	}
	return bound, argmax
}

// SmoothGaussian releases f(X) + N(0, (α·S(X))² I_d) for a smooth upper bound S(X) computed by the caller.
// Its (ε, δ), dimension and constants are fixed at construction (read them with the methods of the same
// names).
type SmoothGaussian struct {
	epsilon, delta float64
	dim            int
	alpha, beta    float64
	rng            *rand.Rand
}

// NewSmoothGaussian returns the mechanism for d-dimensional outputs with the constants of variant v.
func NewSmoothGaussian(epsilon, delta float64, d int, v SmoothVariant, src rand.Source) (*SmoothGaussian, error) {
	a, b, err := SmoothGaussianConstants(epsilon, delta, d, v)
	if err != nil {
		return nil, err
	}
	if err := checkSource("src", src); err != nil {
		return nil, err
	}
	return &SmoothGaussian{epsilon: epsilon, delta: delta, dim: d, alpha: a, beta: b, rng: rand.New(src)}, nil
}

// Epsilon is the ε of one release.
func (m *SmoothGaussian) Epsilon() float64 { return m.epsilon }

// Delta is the δ of one release.
func (m *SmoothGaussian) Delta() float64 { return m.delta }

// Dim is the dimension d of the released vectors.
func (m *SmoothGaussian) Dim() int { return m.dim }

// Alpha is α, the noise per unit of smooth bound.
func (m *SmoothGaussian) Alpha() float64 { return m.alpha }

// Beta is β, the smoothness the bound S must have.
func (m *SmoothGaussian) Beta() float64 { return m.beta }

// Sigma is the noise standard deviation α·S for smooth bound S.
func (m *SmoothGaussian) Sigma(smoothBound float64) float64 { return m.alpha * smoothBound }

// Release returns value + N(0, (α·S)² I) as a new slice, and the σ used; an error if len(value) ≠ Dim, if
// smoothBound is negative or not finite, or if α·S is not finite or underflows to 0 from a positive S (then
// no noise of the calibrated size can be added).
func (m *SmoothGaussian) Release(value []float64, smoothBound float64) ([]float64, float64, error) {
	if len(value) != m.dim {
		return nil, 0, check.Errorf("len(value)", float64(len(value)), "[%d, %d] (the dimension given at construction)", m.dim, m.dim)
	}
	if err := check.In("smoothBound", smoothBound, param.NonNegative); err != nil {
		return nil, 0, err
	}
	sigma := m.Sigma(smoothBound)
	if smoothBound > 0 && !isPositiveFinite(sigma) {
		return nil, 0, check.Errorf("smoothBound", smoothBound, "[0, ∞) with α·smoothBound a positive finite noise scale (α = %g)", m.alpha)
	}
	out := make([]float64, len(value))
	for i, v := range value {
		out[i] = AddGaussian(v, sigma, m.rng)
	}
	return out, sigma, nil
}
