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
// μ = Δ/σ, and this is its exact privacy profile (Balle & Wang 2018). The second term is computed in log
// space, so large ε does not overflow.
func GDPDelta(mu, epsilon float64) float64 {
	if mu <= 0 {
		return 0
	}
	a := logNormCDF(-epsilon/mu + mu/2)
	b := epsilon + logNormCDF(-epsilon/mu-mu/2)
	if b >= a {
		return 0
	}
	return math.Exp(logSub(a, b))
}

// GDPEpsilon returns the smallest ε ≥ 0 with GDPDelta(μ, ε) ≤ δ.
func GDPEpsilon(mu, delta float64) (float64, error) {
	if err := param.First(check.In("mu", mu, param.Positive), checkDeltaPositive(delta)); err != nil {
		return 0, err
	}
	if GDPDelta(mu, 0) <= delta {
		return 0, nil
	}
	hi := 1.0
	for GDPDelta(mu, hi) > delta {
		hi *= 2
	}
	return bisect(func(e float64) float64 { return GDPDelta(mu, e) - delta }, 0, hi, 1e-13), nil
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
// by bisection on the GDP parameter μ = Δ/σ. Valid for every ε > 0.
func AnalyticGaussianSigma(epsilon, delta, sensitivity float64) (float64, error) {
	if err := param.First(checkEpsilon(epsilon), checkDeltaPositive(delta), checkSensitivity(sensitivity)); err != nil {
		return 0, err
	}
	// δ(μ) increases with μ: find the largest μ with δ(μ) ≤ target.
	hi := 1.0
	for GDPDelta(hi, epsilon) < delta {
		hi *= 2
	}
	lo := hi / 2
	for GDPDelta(lo, epsilon) > delta {
		lo /= 2
	}
	mu := bisect(func(m float64) float64 { return GDPDelta(m, epsilon) - delta }, lo, hi, 1e-14)
	return sensitivity / mu, nil
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
// of the float Gaussian mechanism. It is the one expression through which this package's additive Gaussian
// mechanisms (Gaussian, SmoothGaussian, DPSGD) and the algorithm packages add Gaussian noise. It takes the caller's generator so that an algorithm whose
// noise interleaves with its other draws on one stream (sampling a trajectory, then noising its gradient)
// keeps that order; rand.Rand holds no state of its own, so a Gaussian or DPSGD built on the same Source
// shares the stream too.
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
