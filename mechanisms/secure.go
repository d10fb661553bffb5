package mechanisms

import (
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/dprl-project/dprl/dprl/param"
)

// SnappingLaplaceParams configures the snapping mechanism (Mironov 2012), the secure Laplace release.
type SnappingLaplaceParams struct {
	Epsilon     float64     // the ε of the ideal Laplace mechanism; the true ε is reported by Epsilon()
	Sensitivity float64     // ℓ1 sensitivity Δ of the released value
	Bound       float64     // B: the value is clamped to [−Bound, Bound] before noise and the release after
	Src         rand.Source // randomness; SecureSource() for releases
}

// SnappingLaplace is the snapping mechanism of Mironov (2012), the secure path for Laplace noise. In units
// of the (slightly enlarged, see below) sensitivity it releases
//
//	clamp_B( round_Λ( clamp_B(x) + S·λ·ln(U*) ) )
//
// where U* is a uniform on (0, 1) drawn with full float64 resolution (every float64 in (0, 1) reached with
// probability equal to its gap to the next), S a uniform random sign, λ = 1/ε the Laplace scale, Λ the
// smallest power of two at least λ, round_Λ rounding to the nearest multiple of Λ, and clamp_B clamping to
// [−B, B]; the arithmetic is float64. Rounding the noisy value to a grid coarser than the noise's own
// rounding errors, and clamping so that those errors stay bounded, removes the holes in the support of
// float64 Laplace noise that Mironov's least-significant-bit attack exploits.
//
// Privacy (Mironov 2012, Theorem 1, restated). For a function of sensitivity 1, if λ < B < 2⁴⁶·λ, the
// mechanism is
// (1/λ + 2⁻⁴⁹·B/λ)-differentially private. The term 2⁻⁴⁹·B/λ bounds the float64 rounding errors of the
// noise computation; with η = 2⁻⁵³ it is 16·η·B/λ, so it covers the 12·B·η/λ that the proof's rounding
// argument needs. The analysis takes the float64 operations as correctly rounded and the logarithm as
// accurate to about one unit in the last place (Go's math.Log implements an algorithm with error below one
// ulp). The privacy loss thus exceeds the ideal ε by 2⁻⁴⁹·B·ε: negligible when B is a small multiple of the
// range of the value.
//
// Sensitivity other than 1. The value is divided by Δ' = Δ + 2⁻⁵¹·B (rounded up), so that the quotients of
// two neighbouring values, each rounded once, differ by at most 1; the theorem then applies in those units
// with B' = B/Δ' and λ = 1/ε, and the release is multiplied back by Δ' (post-processing). Epsilon() reports
// ε' = (1 + 2⁻⁴⁹·B')·ε, rounded up: use it, not Params.Epsilon, in any accounting.
type SnappingLaplace struct {
	p       SnappingLaplaceParams
	scale   float64 // Δ'
	lambda  float64 // λ in units of Δ'
	grid    float64 // Λ in units of Δ'
	bound   float64 // B' = B/Δ'
	epsTrue float64
}

// NewSnappingLaplace validates p: Epsilon and Sensitivity in (0, ∞), Bound with λ < B' < 2⁴⁶·λ (in the
// units above: Bound roughly in (Sensitivity/Epsilon, 2⁴⁶·Sensitivity/Epsilon)), Src non-nil.
func NewSnappingLaplace(p SnappingLaplaceParams) (*SnappingLaplace, error) {
	if err := param.First(check.In("Epsilon", p.Epsilon, param.Positive),
		check.In("Sensitivity", p.Sensitivity, param.Positive),
		check.In("Bound", p.Bound, param.Positive), checkSource("Src", p.Src)); err != nil {
		return nil, err
	}
	m := &SnappingLaplace{p: p}
	m.scale = math.Nextafter(p.Sensitivity+p.Bound*0x1p-51, math.Inf(1))
	m.lambda = 1 / p.Epsilon
	m.bound = p.Bound / m.scale
	if !(m.lambda > 0) || math.IsInf(m.lambda, 0) || !(m.scale < math.Inf(1)) {
		return nil, check.Errorf("Epsilon", p.Epsilon, "(0, ∞) with 1/Epsilon finite and positive")
	}
	if !(m.lambda < m.bound && m.bound < 0x1p46*m.lambda) {
		return nil, check.Errorf("Bound", p.Bound, "(λ·Δ', 2⁴⁶·λ·Δ') = (%g, %g) for λ = 1/Epsilon and Δ' = Sensitivity + 2⁻⁵¹·Bound (Mironov's condition λ < B < 2⁴⁶·λ)",
			m.lambda*m.scale, 0x1p46*m.lambda*m.scale)
	}
	m.grid = powerOfTwoAtLeast(m.lambda)
	eps := (1 + 0x1p-49*m.bound) / m.lambda
	m.epsTrue = math.Nextafter(math.Nextafter(eps, math.Inf(1)), math.Inf(1))
	return m, nil
}

// powerOfTwoAtLeast returns the smallest power of two ≥ v (v positive, finite).
func powerOfTwoAtLeast(v float64) float64 {
	frac, exp := math.Frexp(v)
	if frac == 0.5 {
		return v
	}
	return math.Ldexp(1, exp)
}

// Epsilon is the true ε of one release, (1 + 2⁻⁴⁹·B')/λ rounded up: slightly above Params.Epsilon.
func (m *SnappingLaplace) Epsilon() float64 { return m.epsTrue }

// Params returns the parameters the mechanism was made with.
func (m *SnappingLaplace) Params() SnappingLaplaceParams { return m.p }

// Grid is the spacing of the released values in the units of the value: Λ·Δ'.
func (m *SnappingLaplace) Grid() float64 { return m.grid * m.scale }

// Release returns the snapped noisy value. NaN is refused (a *ParamError naming "value"); ±∞ is clamped like
// any value beyond Bound.
func (m *SnappingLaplace) Release(value float64) (float64, error) {
	if math.IsNaN(value) {
		return 0, check.Errorf("value", value, "a number (NaN cannot be clamped)")
	}
	x := math.Max(-m.p.Bound, math.Min(m.p.Bound, value))
	u := math.Max(-m.bound, math.Min(m.bound, x/m.scale))
	noise := m.lambda * math.Log(uniformStar(m.p.Src)) // ≤ 0
	if m.p.Src.Uint64()&1 == 1 {
		noise = -noise
	}
	y := roundToMultiple(u+noise, m.grid)
	y = math.Max(-m.bound, math.Min(m.bound, y))
	return y * m.scale, nil
}

// roundToMultiple rounds y to the nearest multiple of the power of two g (ties upward). Dividing and
// multiplying by a power of two is exact, and so is y/g − ⌊y/g⌋.
func roundToMultiple(y, g float64) float64 {
	q := y / g
	k := math.Floor(q)
	if q-k >= 0.5 {
		k++
	}
	return k * g
}

// DefaultGranularity returns the grid width the discrete samplers use when none is given: the smallest power
// of two at least scale·2⁻⁴⁰, so the noise spans about 2⁴⁰ grid steps (Google's differential-privacy
// library makes the same choice for its secure Gaussian noise). It returns 0 for a scale that is not
// positive and finite.
func DefaultGranularity(scale float64) float64 {
	if !(scale > 0) || math.IsInf(scale, 1) {
		return 0
	}
	if v := scale * 0x1p-40; v > 0 {
		return powerOfTwoAtLeast(v)
	}
	return 0x1p-1074 // scale·2⁻⁴⁰ is below the smallest float64: the smallest power of two is at least it

}

// granularityFor returns the grid width a discrete mechanism uses: g, or DefaultGranularity(scale) for
// g = 0, checked by checkGranularity; a default beyond it is reported against the scale (named name).
func granularityFor(g float64, name string, scale float64) (float64, error) {
	if g != 0 {
		return g, checkGranularity(g)
	}
	g = DefaultGranularity(scale)
	if checkGranularity(g) != nil {
		return 0, check.Errorf(name, scale, "(0, 2⁹⁹⁸] with Granularity 0, so that the default grid %s·2⁻⁴⁰ rounded up to a power of two is at most 2⁹⁵⁸", name)
	}
	return g, nil
}

// checkGranularity accepts a power of two in (0, maxGranularity].
func checkGranularity(g float64) error {
	if frac, _ := math.Frexp(g); !(g > 0) || g > maxGranularity || frac != 0.5 {
		return check.Errorf("Granularity", g, "a power of two in (0, 2⁹⁵⁸] (so that the noise g·Z, |Z| < 2⁶³, stays finite), or 0 for DefaultGranularity")
	}
	return nil
}

// Bounds that keep a grid release (round(v/g) + Z)·g finite: |Z| < 2⁶³ (the samplers reject larger draws),
// so with |v| ≤ maxGridValue, |v/g| ≤ maxGridValue and g ≤ maxGranularity the result is at most
// 2¹⁰²² + (2⁶³ + 1)·2⁹⁵⁸ < 2¹⁰²³ in magnitude.
const (
	maxGridValue   = 0x1p1022
	maxGranularity = 0x1p958
)

// checkGridValue refuses a value whose grid release would not be finite: NaN, ±∞, |v| > 2¹⁰²² or
// |v|/g > 2¹⁰²² (v/g overflows for a fine grid). name is how the caller spells the value.
func checkGridValue(name string, v, g float64) error {
	if a := math.Abs(v); !(a <= maxGridValue && a/g <= maxGridValue) {
		return check.Errorf(name, v, "finite values with |%s| ≤ 2¹⁰²² and |%s|/Granularity ≤ 2¹⁰²² (Granularity = %g), whose release is finite", name, name, g)
	}
	return nil
}

// DiscreteGaussianParams configures the discrete Gaussian mechanism, the secure Gaussian release.
type DiscreteGaussianParams struct {
	Sigma       float64     // σ of the noise, in the units of the value
	Granularity float64     // grid width g, a power of two; 0 selects DefaultGranularity(Sigma)
	Src         rand.Source // randomness; SecureSource() for releases
}

// DiscreteGaussian is the secure path for Gaussian noise: it rounds each coordinate to the nearest multiple
// of the granularity g and adds g·Z with Z drawn exactly from the discrete Gaussian N_Z(0, (σ/g)²), whose
// probability at the integer z is proportional to exp(−z²/(2(σ/g)²)). Z is sampled as in Canonne, Kamath &
// Steinke (2020): a discrete Laplace proposal accepted by Bernoulli trials of exp(−γ) for rational γ, all in
// integer arithmetic, so the released values are grid points whose distribution has no float artefacts.
//
// Privacy. Rounding moves each coordinate by at most g/2, so two neighbouring values whose ℓ2 distance is at
// most Δ round to grid points at most Δ + g·√d apart in d coordinates (see DiscreteGaussianSensitivity).
// The discrete Gaussian with integer shifts satisfies ρ-zCDP with ρ = Δ'²/(2σ²) for that rounded
// sensitivity Δ' (Canonne, Kamath & Steinke 2020, Theorem 4), the same Rényi bound as the continuous
// Gaussian: compose it with Rényi/zCDP accounting (e.g. a GaussianEvent of noise multiplier σ/Δ' in the RDP
// accountant), and convert with DiscreteGaussianEpsilon. The exact (ε, δ) profile of the continuous Gaussian
// (AnalyticGaussianSigma, the PLD accountant) is not claimed for it.
type DiscreteGaussian struct {
	sigma, g float64
	src      rand.Source
	z        *discreteGaussianSampler
}

// NewDiscreteGaussian validates p: Sigma in (0, ∞), Granularity a power of two (or 0) with Sigma/Granularity
// in [2⁻²⁰, 2⁶⁰], Src non-nil.
func NewDiscreteGaussian(p DiscreteGaussianParams) (*DiscreteGaussian, error) {
	if err := param.First(check.In("Sigma", p.Sigma, param.Positive), checkSource("Src", p.Src)); err != nil {
		return nil, err
	}
	g, err := granularityFor(p.Granularity, "Sigma", p.Sigma)
	if err != nil {
		return nil, err
	}
	if r := p.Sigma / g; !(r >= 0x1p-20 && r <= 0x1p60) {
		return nil, check.Errorf("Granularity", p.Granularity, "powers of two with Sigma/Granularity in [2⁻²⁰, 2⁶⁰] (Sigma = %g)", p.Sigma)
	}
	return &DiscreteGaussian{sigma: p.Sigma, g: g, src: p.Src, z: newDiscreteGaussianSampler(p.Sigma / g)}, nil
}

// Sigma is σ, in the units of the value.
func (m *DiscreteGaussian) Sigma() float64 { return m.sigma }

// Granularity is the grid width g.
func (m *DiscreteGaussian) Granularity() float64 { return m.g }

// SampleInt draws Z from N_Z(0, (σ/g)²); the noise in the units of the value is g·Z.
func (m *DiscreteGaussian) SampleInt() int64 { return m.z.sample(m.src) }

// Release returns value rounded to the grid plus g·Z. A value whose release could not be finite (NaN, ±∞,
// |value| or |value|/g beyond 2¹⁰²²) is refused with a *ParamError naming "value".
func (m *DiscreteGaussian) Release(value float64) (float64, error) {
	if err := checkGridValue("value", value, m.g); err != nil {
		return 0, err
	}
	return gridAdd(value, m.g, m.SampleInt()), nil
}

// AddNoise replaces every x[i] by its release. If any element is refused (as by Release) it changes nothing
// and returns a *ParamError naming that element.
func (m *DiscreteGaussian) AddNoise(x []float64) error {
	if err := checkGridVector(x, m.g); err != nil {
		return err
	}
	for i := range x {
		x[i] = gridAdd(x[i], m.g, m.SampleInt())
	}
	return nil
}

// gridAdd returns (round(v/g) + z)·g. v/g and the product by g are exact (g is a power of two), the sum of
// two integers is rounded once, so the result depends only on the integer round(v/g) + z (post-processing).
func gridAdd(v, g float64, z int64) float64 {
	return (math.Round(v/g) + float64(z)) * g
}

// checkGridVector applies checkGridValue to every element, naming it x[i].
func checkGridVector(x []float64, g float64) error {
	for i, v := range x {
		if a := math.Abs(v); !(a <= maxGridValue && a/g <= maxGridValue) {
			return checkGridValue("x["+strconv.Itoa(i)+"]", v, g)
		}
	}
	return nil
}

// DiscreteGaussianSensitivity returns the ℓ2 sensitivity after rounding to a grid of width granularity in
// dim coordinates: sensitivity + granularity·√dim, rounded up.
func DiscreteGaussianSensitivity(sensitivity, granularity float64, dim int) (float64, error) {
	if err := param.First(checkSensitivity(sensitivity), checkGranularity(granularity), check.AtLeast("dim", dim, 1)); err != nil {
		return 0, err
	}
	s := sensitivity + granularity*math.Sqrt(float64(dim))
	return math.Nextafter(math.Nextafter(s, math.Inf(1)), math.Inf(1)), nil
}

// DiscreteGaussianRho returns the zCDP ρ = Δ'²/(2σ²) of one release of the discrete Gaussian mechanism with
// noise sigma and grid granularity, for a value of ℓ2 sensitivity in dim coordinates (Δ' from
// DiscreteGaussianSensitivity).
func DiscreteGaussianRho(sigma, sensitivity, granularity float64, dim int) (float64, error) {
	if err := checkSigma(sigma); err != nil {
		return 0, err
	}
	d, err := DiscreteGaussianSensitivity(sensitivity, granularity, dim)
	if err != nil {
		return 0, err
	}
	return d * d / (2 * sigma * sigma) * (1 + 0x1p-50), nil
}

// DiscreteGaussianEpsilon returns an ε at delta for one release (or, with ρ summed, several): the zCDP
// conversion ε = ρ + 2·√(ρ·ln(1/δ)) (Bun & Steinke 2016) of DiscreteGaussianRho.
func DiscreteGaussianEpsilon(sigma, sensitivity, granularity float64, dim int, delta float64) (float64, error) {
	if err := checkDeltaPositive(delta); err != nil {
		return 0, err
	}
	rho, err := DiscreteGaussianRho(sigma, sensitivity, granularity, dim)
	if err != nil {
		return 0, err
	}
	return (rho + 2*math.Sqrt(rho*math.Log(1/delta))) * (1 + 0x1p-50), nil
}

// DiscreteGaussianSigma returns a σ and the granularity to use with it such that one release of the
// discrete Gaussian mechanism on a value of ℓ2 sensitivity in dim coordinates is (epsilon, delta)-DP by
// DiscreteGaussianEpsilon. Pass both to NewDiscreteGaussian.
func DiscreteGaussianSigma(epsilon, delta, sensitivity float64, dim int) (sigma, granularity float64, err error) {
	if err := param.First(checkEpsilon(epsilon), checkDeltaPositive(delta), checkSensitivity(sensitivity), check.AtLeast("dim", dim, 1)); err != nil {
		return 0, 0, err
	}
	l := math.Log(1 / delta)
	sum := math.Sqrt(l+epsilon) + math.Sqrt(l)
	rho := epsilon * epsilon / (sum * sum) // (√(l+ε) − √l)², the ρ with ρ + 2√(ρl) = ε, without cancellation
	sigma0 := sensitivity / math.Sqrt(2*rho)
	granularity = DefaultGranularity(sigma0)
	if granularity == 0 {
		return 0, 0, check.Errorf("epsilon", epsilon, "values giving a finite σ (sensitivity %g, delta %g)", sensitivity, delta)
	}
	d, _ := DiscreteGaussianSensitivity(sensitivity, granularity, dim)
	sigma = d / math.Sqrt(2*rho)
	for range 200 {
		e, err := DiscreteGaussianEpsilon(sigma, sensitivity, granularity, dim, delta)
		if err != nil {
			return 0, 0, err
		}
		if e <= epsilon {
			return sigma, granularity, nil
		}
		sigma *= 1 + 0x1p-48
	}
	return 0, 0, check.Errorf("epsilon", epsilon, "values for which σ can be calibrated")
}

// DiscreteLaplaceParams configures the discrete Laplace mechanism, a secure Laplace release on a grid.
type DiscreteLaplaceParams struct {
	Scale       float64     // b of the noise, in the units of the value
	Granularity float64     // grid width g, a power of two; 0 selects DefaultGranularity(Scale)
	Src         rand.Source // randomness; SecureSource() for releases
}

// DiscreteLaplace rounds each coordinate to the nearest multiple of the granularity g and adds g·Y with Y
// drawn exactly from the discrete Laplace distribution on the integers, P(Y = y) ∝ exp(−|y|·g/b)
// (Canonne, Kamath & Steinke 2020, Algorithm 2, integer arithmetic only). For a value of ℓ1 sensitivity Δ
// in d coordinates it is ε-DP with ε = (Δ + g·d)/b: rounding can move the ℓ1 distance of neighbours by g·d
// (DiscreteLaplaceEpsilon).
type DiscreteLaplace struct {
	scale, g float64
	src      rand.Source
	num, t   uint64
	s        bigScratch
}

// NewDiscreteLaplace validates p: Scale in (0, ∞), Granularity a power of two (or 0) with Scale/Granularity
// in [1, 2⁶⁰], Src non-nil.
func NewDiscreteLaplace(p DiscreteLaplaceParams) (*DiscreteLaplace, error) {
	if err := param.First(check.In("Scale", p.Scale, param.Positive), checkSource("Src", p.Src)); err != nil {
		return nil, err
	}
	g, err := granularityFor(p.Granularity, "Scale", p.Scale)
	if err != nil {
		return nil, err
	}
	r := p.Scale / g
	if !(r >= 1 && r <= 0x1p60) {
		return nil, check.Errorf("Granularity", p.Granularity, "powers of two with Scale/Granularity in [1, 2⁶⁰] (Scale = %g)", p.Scale)
	}
	// r = m·2^e exactly (m < 2⁵³, so e ≥ −52 and m·2^e ≤ 2⁶⁰ fit): the discrete Laplace of scale t/num with
	// t = m·2^max(e,0), num = 2^max(−e,0).
	m, e := dyadic(r)
	t, num := m, uint64(1)
	if e >= 0 {
		t <<= uint(e)
	} else {
		num <<= uint(-e)
	}
	return &DiscreteLaplace{scale: p.Scale, g: g, src: p.Src, num: num, t: t}, nil
}

// Scale is b, in the units of the value.
func (m *DiscreteLaplace) Scale() float64 { return m.scale }

// Granularity is the grid width g.
func (m *DiscreteLaplace) Granularity() float64 { return m.g }

// SampleInt draws Y from the discrete Laplace with scale b/g; the noise in the units of the value is g·Y.
func (m *DiscreteLaplace) SampleInt() int64 { return m.s.discreteLaplace(m.src, m.num, m.t) }

// Release returns value rounded to the grid plus g·Y. A value whose release could not be finite (NaN, ±∞,
// |value| or |value|/g beyond 2¹⁰²²) is refused with a *ParamError naming "value".
func (m *DiscreteLaplace) Release(value float64) (float64, error) {
	if err := checkGridValue("value", value, m.g); err != nil {
		return 0, err
	}
	return gridAdd(value, m.g, m.SampleInt()), nil
}

// AddNoise replaces every x[i] by its release. If any element is refused (as by Release) it changes nothing
// and returns a *ParamError naming that element.
func (m *DiscreteLaplace) AddNoise(x []float64) error {
	if err := checkGridVector(x, m.g); err != nil {
		return err
	}
	for i := range x {
		x[i] = gridAdd(x[i], m.g, m.SampleInt())
	}
	return nil
}

// DiscreteLaplaceEpsilon returns the ε of one release of the discrete Laplace mechanism with the given
// scale and granularity for a value of ℓ1 sensitivity in dim coordinates: (sensitivity + granularity·dim)/scale,
// rounded up.
func DiscreteLaplaceEpsilon(scale, sensitivity, granularity float64, dim int) (float64, error) {
	if err := param.First(check.In("scale", scale, param.Positive), checkSensitivity(sensitivity),
		checkGranularity(granularity), check.AtLeast("dim", dim, 1)); err != nil {
		return 0, err
	}
	e := (sensitivity + granularity*float64(dim)) / scale
	return math.Nextafter(math.Nextafter(e, math.Inf(1)), math.Inf(1)), nil
}
