// Package mechanisms provides the noise mechanisms and the privacy accountants that the rest of dprl
// builds on: Gaussian (classic and analytic calibration), Laplace, the sparse vector technique, the
// smooth-sensitivity Gaussian, Gaussian-process (Ornstein–Uhlenbeck) functional noise, the primitives of
// DP-SGD, and accountants for Rényi DP, the moments accountant, μ-GDP, privacy loss distributions (PLD),
// advanced and optimal composition, plus an exact (ε, δ) budget. Every mechanism draws from an explicit
// rand.Source, so a seeded source reproduces a run bit for bit.
//
// The sections below state what each function computes, the neighbouring relation its guarantee is about
// and the conventions the accountants share; comments in the code refer to them by heading.
//
// # Conventions
//
// A mechanism is (ε, δ)-DP when, for every pair of neighbouring inputs X ~ X′ and every set S of outputs,
// P(M(X) ∈ S) ≤ e^ε·P(M(X′) ∈ S) + δ. Two neighbouring relations occur in dprl, and they change the
// sensitivity of the same statistic:
//   - add/remove: X′ is X with one record added or removed. A sum of per-record vectors clipped to norm C
//     has ℓ2 sensitivity Δ = C. Poisson subsampling, the PLD accountant and GDP composition of DP-SGD
//     steps use this relation.
//   - replace-one: X′ is X with one record replaced (the dataset size is public). The same clipped sum
//     has Δ = 2C, since the two records can point in opposite directions. Sampling without replacement
//     (SampledWithoutReplacement) uses this relation, and so do Balle et al.'s and Xie et al.'s analyses.
//
// The noise of a Gaussian event is given as its noise multiplier z = σ/Δ: the standard deviation in units
// of the sensitivity under the relation the caller has chosen. So the relation is part of the event: a
// Gaussian of standard deviation σ on a sum of clipped gradients is GaussianEvent{σ/C} under add/remove and
// GaussianEvent{σ/(2C)} under replace-one. LaplaceEvent likewise takes b/Δ1, its ε being 1/(b/Δ1).
//
// # Gaussian mechanism
//
// Gaussian adds N(0, σ²) to each coordinate. How σ is chosen decides the guarantee for a query of ℓ2
// sensitivity Δ:
//   - ClassicGaussianSigma: σ = Δ·√(2 ln(1.25/δ))/ε (Dwork & Roth 2014, Theorem A.1), proven only for
//     0 < ε < 1; for ε ≥ 1 it is an error. ClassicGaussianFormula evaluates the same expression at any ε,
//     without a guarantee, to reproduce papers that used it there.
//   - AnalyticGaussianSigma: the smallest σ whose exact privacy profile meets δ at ε (Balle & Wang 2018),
//     δ(ε) = Φ(Δ/(2σ) − εσ/Δ) − e^ε·Φ(−Δ/(2σ) − εσ/Δ), valid for every ε > 0; found by bisection on μ = Δ/σ.
//     AnalyticGaussianDelta and AnalyticGaussianEpsilon evaluate and invert the same profile.
//   - GDPDelta and GDPEpsilon are that profile written for μ-Gaussian DP (Dong, Roth & Su 2022):
//     δ(ε) = Φ(−ε/μ + μ/2) − e^ε·Φ(−ε/μ − μ/2), the second term in log space so large ε cannot overflow. k
//     Gaussian mechanisms with parameters μ_i compose exactly to μ = √(Σ μ_i²).
//
// Certified calibration. Every δ these functions report is rounded up by a bound on its floating-point
// error (the difference of the two terms cancels when δ is far below them), and every inverse — GDPEpsilon,
// AnalyticGaussianSigma, OptimalCompositionEpsilon, CalibrateNoise — returns the end of its final bisection
// bracket on the safe side (never the midpoint), checked against that upper bound; AnalyticGaussianSigma
// then checks the σ it returns at μ = Δ/σ as a caller computes it. The property tests hold every calibration
// and accountant against the exact profile computed in 320-bit arithmetic, closed forms for Laplace and
// randomized response, and quadrature of the subsampled Gaussian's Rényi divergence.
//
// # Laplace mechanism and sparse vector
//
// Laplace adds Lap(b) with b = Δ1/ε: ε-DP for a query of ℓ1 sensitivity Δ1. LaplaceDelta is its exact
// profile, 1 − e^{(ε−ε0)/2} for |ε| ≤ ε0 = Δ1/b.
//
// SparseVector answers "is this query above the threshold?" for a stream of queries of sensitivity Δ: the
// threshold gets Lap(2Δ/ε) once per run, each query Lap(4Δ/ε), and the run stops at its first answer of the
// kind its StopRule names. A run is ε-DP whatever the number of non-stopping answers (Dwork & Roth 2014,
// Theorem 3.23, AboveThreshold). StopAtBelow is the mirrored form used by Sharma et al.'s PrefixQuery.
// Every further run (Reset) costs ε again.
//
// # Smooth sensitivity
//
// SmoothGaussian releases f(X) + N(0, σ(X)² I_d) with σ(X) = α·S(X), where S is a β-smooth upper bound on
// the local sensitivity: S(X) ≥ LS(X) and S(X) ≤ e^β·S(X′) for neighbours. It is (ε, δ)-DP with either
// pair of constants (SmoothGaussianConstants):
//   - SmoothLemma1: α = 5·√(2 ln(2/δ))/ε, β = ε/(4(d + ln(2/δ))) (Nissim, Raskhodnikova & Smith 2007, in the
//     form of Balle, Gomrokchi & Precup 2016, Lemma 1);
//   - SmoothAppendixA: α = 15·√(2 ln(4/δ))/ε, β = 2ε/(5(√d + √(2 ln(2/δ)))²) (the elementary proof of Balle
//     et al.'s Appendix A; the authors' early code multiplied by this β's denominator instead of dividing,
//     which is not private).
//
// Both analyses assume ε ≤ 1, so a larger ε is refused (SmoothEpsilonRange): with ε > 1 the constants would
// still give a noise level, but no (ε, δ) guarantee stands behind it. SmoothUpperBound computes
// S_β = max_k e^{−kβ}·A(k) from A(k), the largest local sensitivity within distance k (Nissim et al.,
// Definition 2.1 and Lemma 2.3); policyeval supplies A(k) for DP-LSW and DP-LSL. The neighbouring relation
// is the caller's (replace-one in policyeval).
//
// # Functional noise
//
// OUPath is a sample path of the zero-mean Gaussian process with kernel K(x, y) = σ²·exp(−β|x − y|), the
// Ornstein–Uhlenbeck process, drawn lazily and consistently: a new point is drawn from its exact law given
// the stored points, and a stored point is returned unchanged. The process is Markov, so only the nearest
// stored neighbours matter:
//   - no stored point: N(0, σ²);
//   - at distance a outside the stored range, next to the value z: N(e^{−βa}·z, σ²(1 − e^{−2βa}));
//   - between z_l (distance a to the left) and z_r (distance c to the right): mean
//     [sinh(βc)·z_l + sinh(βa)·z_r]/sinh(β(a + c)), variance σ²(1 − e^{−2βa})(1 − e^{−2βc})/(1 − e^{−2β(a+c)}).
//
// Queries cost O(log n) in the n stored points (a treap). Releasing f + g for g on such a path is the
// Gaussian mechanism in the kernel's reproducing-kernel Hilbert space (Hall, Rinaldo & Wasserman 2013): it
// is (ε, δ)-DP with σ = Δ_H·√(2 ln(1.25/δ))/ε for ε < 1, where Δ_H bounds the RKHS norm of f_X − f_X′, and
// its privacy loss is exactly Gaussian, so GDP applies with μ = Δ_H/σ. OURKHSNormSqBound is Wang & Hegde's
// Lemma 6 for this kernel on [0, 1], ‖f‖²_H ≤ (1 + β/2)‖f‖²_∞ + ‖f′‖²_∞/(2β); OUSupTail is their Lemma 8,
// P(max g ≥ 8.68·√β·σ + u) ≤ e^{−u²/2}, as printed (package fnq also computes a corrected form).
//
// # DP-SGD primitives
//
// ClipToNorm scales a gradient to norm at most C (g·min(1, C/‖g‖), Abadi et al. 2016); NormalizeToNorm
// rescales it to norm exactly C (Seo & Yang's "clipping", which also enlarges small gradients). A gradient
// with a NaN or infinite entry is set to zero, which keeps the sensitivity of a sum of clipped gradients at
// C (add/remove) or 2C (replace-one). DPSGD aggregates a batch: clip, sum, add N(0, (zC)²) per coordinate.
//
// DPSGD's noise is drawn for the whole vector at once (AddScaledNoise): each aggregation draws a 256-bit key
// from its Source and expands it with math/rand/v2's ChaCha8 generator, one stream per chunk of 1984
// coordinates, into normals by a 256-layer ziggurat with an exact, untruncated tail; about a nanosecond a
// coordinate with AVX-512 (NormFloat64 took four), the same bits on any number of goroutines. Its
// distribution function is within a relative 10⁻¹¹ of Φ and of 1 − Φ everywhere (float64 rounding of the
// layer table and of the points); the internal package gauss states and tests the construction
// (Kolmogorov–Smirnov and Anderson–Darling on 4·10⁶ draws, tail counts to 6σ, independence between
// coordinates and chunks).
//
// # Accountants
//
// An Accountant records events (Compose) and reports the (ε, δ) of their adaptive composition. All share
// the conventions above; each supports the events listed.
//
// RDPAccountant works in Rényi DP over a grid of orders α > 1 (Mironov 2017): RDP adds up under
// composition. Events and their RDP per run:
//   - GaussianEvent: α/(2z²).
//   - PoissonSampled{Q, GaussianEvent}: each record enters with probability q, add/remove neighbours;
//     RDPPoissonGaussian, the exact binomial sum of Mironov, Talwar & Zhang (2019) at integer α and their
//     two-series form at fractional α, in log space.
//   - SampledWithoutReplacement{N, Batch, GaussianEvent}: a batch drawn without replacement, replace-one
//     neighbours, q = Batch/N; RDPSampledWithoutReplacementGaussian, Wang, Balle & Kasiviswanathan (2019),
//     Theorem 27 up to order 256 and their Theorem 9 above (GeneralBound: Theorem 9 alone, with its
//     noise-independent floor, which is what papers citing Theorem 9 used).
//
// The RDP curve is converted to (ε, δ) at the best order of the grid (RDPToEpsilon, RDPToDelta):
//   - ConversionClassic: ε = RDP(α) + ln(1/δ)/(α − 1) (Mironov 2017);
//   - ConversionImproved (the default): ε = RDP(α) + ln((α − 1)/α) − (ln δ + ln α)/(α − 1) (Balle et al.
//     2020; Canonne, Kamath & Steinke 2020), never worse, plus the total-variation bound δ ≥ √(1 − e^{−RDP}).
//
// Order grids (Orders): "dpa_default" (dp_accounting's: 1.1, 1.2, …, 10.9, 11, …, 63, 128, 256, 512, 1024;
// the DefaultOrders), "opacus_default" (1.1, …, 10.9, 12, …, 63) and "tfp_cli" (1.25, 1.5, …, 4.5, 5, …, 63,
// 128, 256, 512); IntegerOrders makes a dense integer grid, which can find optima the named grids skip.
//
// The moments accountant of Abadi et al. (2016) is the same information: α_M(λ) = λ·RDP(λ + 1)
// (MomentsFromRDP), with tail bound δ = min_λ exp(α_M(λ) − λε) (MomentsDelta), equal to the classic
// conversion. AbadiLemma3LogMoment is their Lemma 3's leading term q²λ(λ + 1)/((1 − q)σ²), stated for σ ≥ 1
// and λ ≤ σ² ln(1/(qσ)).
//
// GDPAccountant composes Gaussian events exactly: μ = √(Σ 1/z_i²); it does not take subsampled events.
//
// PLDAccountant composes privacy loss distributions (Meiser & Mohammadi 2018; Koskela, Jälkö & Honkela
// 2020; Doroshenko et al. 2022) for Gaussian, Laplace, Poisson-subsampled Gaussian and Mixed events under
// add/remove, tracking both directions (remove and add) and reporting the worse. It is pessimistic by
// construction: each cell's mass goes to the ends of a grid of width Discretization, mass beyond the
// truncation goes to +∞ or to the lowest grid point, and floating-point error is bounded and added to δ.
// EpsilonBounds also returns a certified lower bound on the true ε, which accounts for every mass the
// discretisation moved by more than one cell, the round-off residual sent to +∞ included; the gap shrinks
// like h·√runs.
// Mixed{P, e} runs e with probability P and otherwise something data-independent and distinguishable from
// e's outputs (Sharma et al.'s Selective DP-SGD): its profile is exactly P·δ_e(ε), which is not the same as
// folding P into a sampling rate.
//
// Composition theorems for k mechanisms that are each (ε0, δ0)-DP:
//   - AdvancedComposition: (ε0·√(2k ln(1/δ̃)) + k·ε0·(e^{ε0} − 1), k·δ0 + δ̃) for any slack δ̃ > 0 (Dwork,
//     Rothblum & Vadhan 2010; Dwork & Roth 2014, Theorem 3.20). AdvancedCompositionEps0 is the per-step
//     ε0 = ε/(2√(2k ln(1/δ̃))) of their Corollary 3.21, stated for ε < 1 and holding only while
//     k·ε0·(e^{ε0} − 1) ≤ ε/2, which fails at large slack (about δ̃ > e^{−ε/4}); outside either condition it
//     is an error saying which.
//   - OptimalCompositionDelta/Epsilon: the exact k-fold composition (Kairouz, Oh & Viswanath 2015; Murtagh
//     & Vadhan 2016), with an explicit pessimistic bound on the terms left out for large k; a sum of positive
//     terms whose binomial weights come from Loader's saddle-point form (accurate whatever k).
//   - KOVGaussianEpsilon/Sigma: the bound Wang & Hegde derive for k Gaussian mechanisms, ε = kΔ²/(2σ²) +
//     √(2kΔ²w/σ²) with w = ln(e + √(kΔ²/σ²)/δ), and its sufficient σ = Δ·√(2k ln(e + ε/δ))/ε; GDP is exact.
//     The σ form drops the bound's first term, so it holds only for small ε (about ε ≤ 3 at δ = 1e−5; at
//     ε = 20 it is only 22.06-DP): KOVGaussianSigma refuses an ε where it does not meet the bound.
//
// CalibrateNoise and MaxSteps invert any accountant: the smallest noise multiplier, or the largest number
// of runs, within a target (ε, δ).
//
// Budget is an (ε, δ) cap spent by basic composition (the ε's and δ's add up), in exact rational
// arithmetic on the decimal value of each float64; Split divides the cap in proportions (Split(3, 1): three
// quarters and one quarter of both ε and δ). A Budget is safe for concurrent use: each spend is checked
// and recorded under one lock, so spends from many goroutines never add up to more than the cap.
//
// # Float path and secure path
//
// The float path (Gaussian, Laplace, DPSGD and the mechanisms built on them) adds float64 noise drawn with
// math/rand/v2. It is fast and is what simulations, experiments and paper reproductions use. It is not
// safe for releasing data: float64 noise has gaps in its support that depend on the value it is added to,
// so a release can reveal the value through its least-significant bits (Mironov 2012). Any source has this
// problem, SecureSource included: in this package's tests an attacker who knows only the sampler's code
// tells inputs 0 and 1 apart from one float Gaussian release (σ = 10) 99.9% of the time, where the ideal
// mechanism allows 52%.
//
// The secure path is for releases that leave the machine; draw it from SecureSource():
//   - SnappingLaplace: Mironov's snapping mechanism. Laplace noise is computed from a full-resolution
//     uniform, rounded to a power-of-two grid and clamped to [−B, B]; its Epsilon() is the true ε,
//     (1 + 2⁻⁴⁹·B′)·ε, slightly above the ideal one, and is what accounting must use.
//   - DiscreteGaussian and DiscreteLaplace: the value rounded to a power-of-two grid plus discrete noise on
//     that grid, sampled exactly with integer arithmetic (Canonne, Kamath & Steinke 2020). Rounding adds to
//     the sensitivity: Δ + g·√d in ℓ2 (DiscreteGaussianSensitivity) and Δ + g·d in ℓ1
//     (DiscreteLaplaceEpsilon). The discrete Gaussian is ρ-zCDP with ρ = Δ′²/(2σ²) and converts with
//     ε = ρ + 2√(ρ ln(1/δ)) (Bun & Steinke 2016); DiscreteGaussianSigma calibrates σ and the grid together.
//
// The secure samplers are slower and, like the float ones, a deterministic function of their source.
//
// # Parameters and errors
//
// Every mechanism, accountant and sampler keeps its parameters unexported once validated: they are read
// through methods (Gaussian.Sigma, RDPAccountant.Orders, …), and a new value means a new constructor call,
// so a validated object cannot be turned into a noiseless or mis-accounted one. Constructors copy the slices
// they are given and check every derived quantity they use — a noise scale made of two valid factors (z·C,
// 2Δ/ε, α·S) must still be positive and finite, and a grid release (round(v/g) + Z)·g must be finite — and
// return an error otherwise. The parameter structs (DPSGDParams, PLDParams, …) and events are inputs, copied
// at the call that takes them.
//
// Every bad argument is rejected with a *ParamError (the project-wide param.Error) naming this package, the
// parameter as the caller spells it, the value and the allowed range; a nil source or event is reported as
// missing. Private mechanisms always add noise: σ, b, z and ε must lie in (0, ∞), δ in (0, 1) where a
// mechanism needs one and in [0, 1) for a budget. Accountants that cannot account an event return an
// *UnsupportedEventError, and a PLD grid beyond MaxGridPoints a *GridError.
//
// # Reference values
//
// The tests reproduce numbers computed independently of this code for the five papers dprl follows:
//   - Balle et al.'s chain at ε = δ = 0.1: α = 122.39; β = 5.953e−4 for d = 39 and 1.087e−3 for d = 20.
//   - Seo & Yang at δ = 1e−6, ε = 10, 5, 1, 0.5, 0.1: classic σ 0.530, 1.060, 5.299, 10.60, 52.99; their
//     typo σ 66.8, 133.6, 668, 1336, 6681; analytic σ (Δ = 1) 0.541, 0.980, 4.225, 8.058, 36.30, and twice
//     that for Δ = 2. A per-step ε = 1 composed over 100 and 10⁴ steps gives ε ≈ 10.3 and 268.
//   - GPOPE (Xie et al.) by Theorem 9, replace-one, Δ = 2C, C = 1, δ = 1e−5, integer orders: σ = 1.726,
//     2.063, 1.483, 5.183, 2.020 for (n, T, ε) = (1000, 1000, 1), (1000, 10⁴, 1), (10⁴, 10⁴, 1),
//     (1000, 1000, 0.1), (10⁴, 10⁵, 0.5); the Poisson add/remove accountant gives ε ≈ 0.18, 0.19, 0.18, 0.02,
//     0.10 at those σ.
//   - Wang & Hegde's Theorem 5 at ε = 0.9, δ = 1e−4, T = 5000, B = 50, α = 0.01, k = 230: ‖f‖²_H ≤ 0.219,
//     σ = 22.2, exact GDP ε 0.639 against 0.848 by their formula.
//   - Sharma et al.'s expert-level DP-SGD (RDP): 3.2·10⁵ steps at ε = 2.5, δ = 3.3e−5, q = 0.0213, s = 20;
//     8.4·10⁴ at ε = 5, δ = 3.3e−4, q = 0.0853, s = 20; advanced composition certifies 6.62 ≤ 10 for their
//     Acrobot data release.
//
// # References
//
//   - Abadi, Chu, Goodfellow, McMahan, Mironov, Talwar & Zhang (2016), Deep learning with differential
//     privacy.
//   - Balle, Barthe, Gaboardi, Hsu & Sato (2020), Hypothesis testing interpretations and Rényi differential
//     privacy.
//   - Balle, Gomrokchi & Precup (2016), Differentially private policy evaluation.
//   - Balle & Wang (2018), Improving the Gaussian mechanism for differential privacy: analytical calibration
//     and optimal denoising.
//   - Bun & Steinke (2016), Concentrated differential privacy: simplifications, extensions, and lower bounds.
//   - Canonne, Kamath & Steinke (2020), The discrete Gaussian for differential privacy.
//   - Dong, Roth & Su (2022), Gaussian differential privacy.
//   - Doroshenko, Ghazi, Kamath, Kumar & Manurangsi (2022), Connect the dots: tighter discrete
//     approximations of privacy loss distributions.
//   - Dwork & Roth (2014), The algorithmic foundations of differential privacy.
//   - Dwork, Rothblum & Vadhan (2010), Boosting and differential privacy.
//   - Hall, Rinaldo & Wasserman (2013), Differential privacy for functions and functional data.
//   - Kairouz, Oh & Viswanath (2015), The composition theorem for differential privacy.
//   - Koskela, Jälkö & Honkela (2020), Computing tight differential privacy guarantees using FFT.
//   - Meiser & Mohammadi (2018), Tight on budget? Tight bounds for r-fold approximate differential privacy.
//   - Mironov (2012), On significance of the least significant bits for differential privacy.
//   - Mironov (2017), Rényi differential privacy.
//   - Mironov, Talwar & Zhang (2019), Rényi differential privacy of the sampled Gaussian mechanism.
//   - Murtagh & Vadhan (2016), The complexity of computing the optimal composition of differential privacy.
//   - Nissim, Raskhodnikova & Smith (2007), Smooth sensitivity and sampling in private data analysis.
//   - Wang, Balle & Kasiviswanathan (2019), Subsampled Rényi differential privacy and analytical moments
//     accountant.
//   - Wang & Hegde (2019), Privacy-preserving Q-learning with functional noise in continuous spaces.
package mechanisms
