// Package mechanisms holds the noise mechanisms (Gaussian, Laplace, sparse vector, smooth-sensitivity,
// Gaussian-process functional noise, DP-SGD primitives) and the privacy accountants (RDP, moments, μ-GDP,
// advanced and optimal composition, PLD) the five papers use. Every mechanism takes an explicit rand.Source.
//
// # Float path and secure path
//
// The float path (Gaussian, Laplace and the mechanisms built on them) adds float64 noise drawn from
// math/rand/v2's samplers. It is fast and is what simulations, experiments and paper reproductions use. It
// is not safe for releasing data: float64 noise leaves holes in its support that depend on the value it was
// added to, so a release can reveal the value through its least-significant bits (Mironov 2012). This holds
// whatever the source, SecureSource included: in this package's tests an attacker who knows only the
// sampler's code tells inputs 0 and 1 apart from one float Gaussian release (σ = 10) 99.9% of the time,
// where the ideal mechanism allows 52%.
//
// The secure path is for releases that leave the machine; draw it from SecureSource():
//   - SnappingLaplace: Mironov's snapping mechanism, Laplace noise from a full-resolution uniform, rounded to
//     a power-of-two grid and clamped; its Epsilon() is the true ε, slightly above the ideal one.
//   - DiscreteGaussian and DiscreteLaplace: the value rounded to a power-of-two grid plus exactly sampled
//     discrete noise on that grid (Canonne, Kamath & Steinke 2020), integer arithmetic only. Rounding adds
//     to the sensitivity (DiscreteGaussianSensitivity, DiscreteLaplaceEpsilon); DiscreteGaussianSigma
//     calibrates σ for it.
//
// The secure samplers are slower (see the benchmarks) and, like the float ones, a deterministic function of
// their source: a seeded source reproduces them bit for bit.
package mechanisms
