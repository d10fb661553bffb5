package mechanisms

import (
	crand "crypto/rand"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/dprl-project/dprl/dprl/param"
)

// ClassicGaussianSigma returns σ = sqrt(2 ln(1.25/δ))·Δ/ε, the classic calibration of the Gaussian mechanism
// (Dwork & Roth 2014, Thm A.1). The theorem holds only for 0 < ε < 1: for ε ≥ 1 it returns an error; use
// AnalyticGaussianSigma, or ClassicGaussianFormula to reproduce a paper that applied the formula anyway.
func ClassicGaussianSigma(epsilon, delta, sensitivity float64) (float64, error) {
	if err := param.First(check.In("epsilon", epsilon, param.OpenUnit), checkDeltaPositive(delta), checkSensitivity(sensitivity)); err != nil {
		if pe, ok := err.(*ParamError); ok && pe.Param == "epsilon" && epsilon >= 1 {
			pe.Allowed += " (the classic Gaussian calibration is proven only for ε < 1; use AnalyticGaussianSigma)"
		}
		return 0, err
	}
	return ClassicGaussianFormula(epsilon, delta, sensitivity), nil
}

// ClassicGaussianFormula evaluates sqrt(2 ln(1.25/δ))·Δ/ε for any ε > 0 without validating it. For ε ≥ 1 the
// value carries no proven guarantee: it exists to reproduce papers that used it there (Seo & Yang 2020 use
// ε up to 10). It returns NaN for ε ≤ 0, δ ∉ (0, 1) or Δ ≤ 0.
func ClassicGaussianFormula(epsilon, delta, sensitivity float64) float64 {
	if checkEpsilon(epsilon) != nil || checkDeltaPositive(delta) != nil || checkSensitivity(sensitivity) != nil {
		return math.NaN()
	}
	return math.Sqrt(2*math.Log(1.25/delta)) * sensitivity / epsilon
}

// GDPDelta returns the δ(ε) of μ-Gaussian differential privacy (Dong, Roth & Su 2022):
// δ = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2). The Gaussian mechanism with sensitivity Δ and noise σ is μ-GDP with
// μ = Δ/σ, and this is its exact privacy profile (Balle & Wang 2018). Both terms are computed in log space
// (the second's factor e^ε included), so large ε does not overflow, and the value returned is rounded up
// by a bound on its floating-point error: the error of each logarithm and of its argument, carried through
// the difference, which is where the cancellation is (δ ≪ Φ(−ε/μ + μ/2) when μ is small against ε/μ). So
// the result is never below the exact δ, and the calibrations built on it (GDPEpsilon,
// AnalyticGaussianSigma) are certified: they return the end of their bracket where this upper bound holds.
func GDPDelta(mu, epsilon float64) float64 {
	switch {
	case mu <= 0 || math.IsInf(epsilon, 1):
		return 0
	case math.IsInf(mu, 1):
		return 1
	}
	r := epsilon / mu
	x1, x2 := -r+mu/2, -r-mu/2
	a, lb := logNormCDF(x1), logNormCDF(x2)
	b := epsilon + lb
	ex := 2 * unitRoundoff * (math.Abs(r) + mu/2) // the arguments' rounding
	ea := logNormCDFErr(x1, a, ex)
	eb := logNormCDFErr(x2, lb, ex) + unitRoundoff*math.Abs(b)
	// δ = e^a·(1 − e^{b−a}); with a and b each off by at most ea and eb, the true δ is at most
	// e^{a+ea}·(1 − e^{b−a−ea−eb}).
	d := b - a
	d -= ea + eb + unitRoundoff*math.Abs(d)
	if d >= 0 {
		return 0
	}
	return math.Min(1, math.Exp(a+ea)*-math.Expm1(d)*(1+8*unitRoundoff))
}

// GDPEpsilon returns the smallest ε ≥ 0 with GDPDelta(μ, ε) ≤ δ, certified: the upper end of the final
// bisection bracket (relative width 1e−13), where GDPDelta, itself an upper bound on the exact δ, is at most δ.
func GDPEpsilon(mu, delta float64) (float64, error) {
	if err := param.First(check.In("mu", mu, param.Positive), checkDeltaPositive(delta)); err != nil {
		return 0, err
	}
	ok := func(e float64) bool { return GDPDelta(mu, e) <= delta }
	if ok(0) {
		return 0, nil
	}
	bad, hi := 0.0, 1.0
	for !ok(hi) {
		if hi > math.MaxFloat64/2 {
			return math.Inf(1), nil
		}
		bad, hi = hi, hi*2
	}
	return bisectSafe(ok, bad, hi, 1e-13), nil
}

// AnalyticGaussianDelta returns the exact δ at ε of the Gaussian mechanism with noise σ and ℓ2 sensitivity Δ.
func AnalyticGaussianDelta(sigma, epsilon, sensitivity float64) (float64, error) {
	if err := param.First(checkSigma(sigma), check.In("epsilon", epsilon, param.NonNegative), checkSensitivity(sensitivity)); err != nil {
		return 0, err
	}
	return GDPDelta(sensitivity/sigma, epsilon), nil
}

// AnalyticGaussianEpsilon returns the exact ε at δ of the Gaussian mechanism with noise σ and sensitivity Δ.
func AnalyticGaussianEpsilon(sigma, delta, sensitivity float64) (float64, error) {
	if err := param.First(checkSigma(sigma), checkDeltaPositive(delta), checkSensitivity(sensitivity)); err != nil {
		return 0, err
	}
	return GDPEpsilon(sensitivity/sigma, delta)
}

// AnalyticGaussianSigma returns the smallest σ for which the Gaussian mechanism with sensitivity Δ is
// (ε, δ)-DP, from the exact privacy profile (the analytic Gaussian mechanism of Balle & Wang 2018), solved
// by bisection on the GDP parameter μ = Δ/σ. Valid for every ε > 0. The result is certified: σ is the safe
// end of the bracket, then raised by the last few units of round-off until GDPDelta(Δ/σ, ε) — an upper bound
// on the exact δ, evaluated at the μ a caller computes from the returned σ — is at most δ. A σ that is not
// a positive finite float64 (Δ near the float64 range) is an error.
func AnalyticGaussianSigma(epsilon, delta, sensitivity float64) (float64, error) {
	if err := param.First(checkEpsilon(epsilon), checkDeltaPositive(delta), checkSensitivity(sensitivity)); err != nil {
		return 0, err
	}
	// δ(μ) increases with μ: find the largest μ with δ(μ) ≤ target.
	ok := func(m float64) bool { return GDPDelta(m, epsilon) <= delta }
	hi := 1.0
	for ok(hi) && hi < 0x1p1000 {
		hi *= 2
	}
	lo := hi / 2
	for !ok(lo) && lo > 0x1p-1000 {
		lo /= 2
	}
	if !ok(lo) || ok(hi) {
		return 0, check.Errorf("epsilon", epsilon, "values whose noise μ = Δ/σ lies in [2⁻¹⁰⁰⁰, 2¹⁰⁰⁰] (delta = %g)", delta)
	}
	sigma := sensitivity / bisectSafe(ok, hi, lo, 1e-14)
	for range 64 {
		if ok(sensitivity / sigma) {
			break
		}
		sigma = math.Nextafter(sigma, math.Inf(1))
	}
	if !isPositiveFinite(sigma) || !ok(sensitivity/sigma) {
		return 0, check.Errorf("sensitivity", sensitivity, "(0, ∞) with σ = sensitivity/μ a positive finite float64 (μ = %g)", sensitivity/sigma)
	}
	return sigma, nil
}

// Gaussian adds independent N(0, σ²) noise to each coordinate. Its privacy depends on the sensitivity of what
// it is applied to, which the caller states through how σ was calibrated.
//
// Gaussian is the float path: fast, for simulation and experiments. Its float64 noise is open to Mironov's
// least-significant-bit attack whatever source it draws from; use DiscreteGaussian for releases (see the
// package documentation, "Float path and secure path").
//
// Its σ is fixed at construction (read it with Sigma): a different noise level is a new NewGaussian call,
// so a validated mechanism cannot be turned into a noiseless one.
type Gaussian struct {
	sigma float64
	rng   *rand.Rand
}

// NewGaussian returns the Gaussian mechanism with noise sigma ∈ (0, ∞) drawing from src (non-nil).
func NewGaussian(sigma float64, src rand.Source) (*Gaussian, error) {
	if err := param.First(checkSigma(sigma), checkSource("src", src)); err != nil {
		return nil, err
	}
	return &Gaussian{sigma: sigma, rng: rand.New(src)}, nil
}

// Sigma is the noise standard deviation σ the mechanism was made with.
func (g *Gaussian) Sigma() float64 { return g.sigma }

// AddNoise adds fresh N(0, σ²) noise to every element of x in place, in order (AddGaussian on each).
func (g *Gaussian) AddNoise(x []float64) {
	for i := range x {
		x[i] = AddGaussian(x[i], g.sigma, g.rng)
	}
}

// Release returns value + N(0, σ²) (AddGaussian).
func (g *Gaussian) Release(value float64) float64 { return AddGaussian(value, g.sigma, g.rng) }

// AddGaussian returns x + sigma·Z, with Z a standard normal drawn from rng (one NormFloat64): one coordinate
// of the float Gaussian mechanism. It is the expression through which this package's additive Gaussian
// mechanisms (Gaussian, SmoothGaussian) and the algorithm packages add Gaussian noise one coordinate at a
// time; DPSGD noises whole vectors (AddScaledNoise). It takes the caller's generator so that an algorithm
// whose noise interleaves with its other draws on one stream (sampling a trajectory, then noising its
// gradient) keeps that order; rand.Rand holds no state of its own, so a Gaussian or DPSGD built on the same
// Source shares the stream too.
//
// It does not check sigma and guarantees nothing by itself; the caller's analysis does. If x is one
// coordinate of a vector query whose ℓ2 sensitivity is at most Δ (Δ bounded by the caller's clipping or
// normalisation, for the neighbouring relation it claims) and every coordinate gets independent noise of
// the same sigma, the noised vector is μ-GDP with μ = Δ/sigma (AnalyticGaussianEpsilon gives ε at δ);
// composition over steps is the accountants' business. sigma = 0 adds nothing — not private — but still
// draws Z, so a noiseless baseline consumes the same random stream as the private run. This is the float
// path (see the package documentation): not for releases that leave the machine.
func AddGaussian(x, sigma float64, rng *rand.Rand) float64 { return x + sigma*rng.NormFloat64() }

// SecureSource returns a ChaCha8 generator seeded with 32 bytes from crypto/rand, for releases that leave
// the machine. It removes only the predictability of a fixed seed: pair it with the secure samplers
// (SnappingLaplace, DiscreteGaussian, DiscreteLaplace), since float noise from any source stays open to
// Mironov's least-significant-bit attack.
func SecureSource() rand.Source {
	var seed [32]byte
	if _, err := crand.Read(seed[:]); err != nil {
		panic(fmt.Sprintf("mechanisms: crypto/rand failed: %v", err))
	}
	return rand.NewChaCha8(seed)
}
