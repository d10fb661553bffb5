// Package accounting is the arithmetic behind notebook 01 (mechanisms and accounting) and the first private
// estimate of notebook 00 (the tour): it puts the noise calibrations and privacy accountants of package
// mechanisms side by side on the workloads the reproduced papers share, sets each paper's privacy constants
// beside an exact or tighter calculation, and lists the audit cases of the whole collection. Everything but
// the audits is deterministic arithmetic; every figure is a plain gonum/plot figure, and every section
// function (GaussianNoise, EpsilonVsStepsFigure, AuditTable, PrivateMean, …) writes to a report.Sink.
//
// # Mechanisms
//
// For a query of ℓ2 sensitivity Δ, the classic Gaussian mechanism adds N(0, σ²) with
// σ = Δ·√(2 ln(1.25/δ))/ε (Dwork & Roth 2014, Thm A.1); the proof needs ε < 1, so
// mechanisms.ClassicGaussianSigma refuses larger ε while mechanisms.ClassicGaussianFormula evaluates the formula
// anyway, as several papers do. The analytic Gaussian mechanism (Balle & Wang 2018) finds the smallest σ with
// Φ(Δ/2σ − εσ/Δ) − e^ε·Φ(−Δ/2σ − εσ/Δ) ≤ δ, exact for every ε; GaussianTable compares the two and gives
// the exact ε the classic σ delivers (at δ = 1e−5: 0.061 for ε = 0.1, and 10.39 for ε = 10, where the
// formula under-noises). The Laplace
// mechanism's scale is Δ/ε; AboveThreshold (the sparse vector technique) adds Laplace(2Δ/ε) to the threshold
// and Laplace(4Δ/ε) to every query and is ε-DP however many queries fall below.
//
// BalleTable gives the smooth-sensitivity Gaussian of Balle, Gomrokchi & Precup (2016): noise N(0, σ(X)²I_d)
// with σ(X) = α·S(X), S a β-smooth upper bound on the local sensitivity (Nissim, Raskhodnikova & Smith 2007),
// for their Lemma 1 constants and for the elementary Appendix-A (Lemma 14) variant
// α = 15√(2 ln(4/δ))/ε, β = 2ε/(5(√d + √(2 ln(2/δ)))²). Their ICML-era code computed that β with a product
// where the proof has a quotient (β ≈ 3 on the chain instead of about 10⁻³), which is not private; the table
// shows that value, labelled. α divided by the analytic σ for a known sensitivity is the price of calibrating
// to a data-dependent bound, and 1/β is the visit count after which the smooth bound starts to relax.
//
// # Accountants compared
//
// A Workload is T steps of a Gaussian with noise multiplier z = σ/C (C the clip of a clipped sum) on a sample
// drawn at rate q. Two neighbouring relations meet here. Poisson sampling is accounted under add/remove
// neighbours, where the clipped sum moves by Δ = C. Sampling a batch of qN records without replacement is
// accounted under replace-one neighbours, where the sum moves by Δ = 2C, so the same σ is the multiplier z/2
// (Wang, Balle & Kasiviswanathan 2019, Theorem 9; its terms min{2, (e^{ε(∞)} − 1)^j} equal 2 for the Gaussian,
// a floor that no amount of noise removes). The methods (Method) are
//
//   - PLD: the privacy-loss-distribution accountant (Poisson), exact up to its pessimistic discretisation;
//   - RDP: Rényi DP of the Poisson-subsampled Gaussian (Mironov, Talwar & Zhang 2019), improved conversion
//     to (ε, δ);
//   - MomentsAccountant: Abadi et al. (2016), the same log moments λ·RDP(λ+1) with their tail bound
//     δ = min_λ exp(α(λ) − λε), i.e. RDP with the classic conversion;
//   - MomentsLemma3: the moments accountant with the leading term q²λ(λ+1)/((1 − q)z²) of Abadi et al.'s
//     closed-form Lemma 3 in place of the exact log moment. The lemma is stated for z ≥ 1 and q < 1/(16z)
//     only, and Epsilon refuses other workloads (a gap in a figure); its O(q³λ³/z³) remainder is dropped,
//     as in the paper, so it is a working number, not a proved bound;
//   - RDPWithoutReplacement: Theorem 9 above, what GPOPE's privacy proof uses, and
//     RDPWithoutReplacementThm27, the same sampling and relation with their Gaussian-specific Theorem 27
//     (what Google's dp_accounting uses). On notebook 01's workload the two agree to four digits: the cost
//     of sampling without replacement there is the relation (the same σ is the multiplier z/2), not the
//     looseness of Theorem 9;
//   - AdvancedComposition and OptimalComposition: the single step's exact (ε0, δ0 = δ/(2T)) composed T times by
//     Dwork, Rothblum & Vadhan's theorem (slack δ/2) or by Kairouz, Oh & Viswanath's optimal composition.
//     The single step's ε0 comes from its closed-form privacy profile (SampledGaussianDelta): with μ = 1/z,
//     removal gives q·G_μ(ln(1 + (e^ε − 1)/q)) (Balle, Barthe & Gaboardi's amplification identity) and
//     addition (1 − e^ε(1 − q))·H_{e^ε′}(N(0, 1) ‖ N(μ, 1)) with e^ε′ = qe^ε/(1 − e^ε(1 − q)), G_μ the
//     Gaussian's profile.
//
// Without sampling, k Gaussian mechanisms of multiplier z compose exactly to μ-GDP with μ = √k/z (Dong, Roth &
// Su 2022), the reference column of CompositionTable. EpsilonVsSteps and NoiseVsSize are the two studies of
// notebook 01 (ε after T steps; the z each method needs for a target when n records are trained for some
// epochs with an expected batch, q = batch/n and T = epochs·n/batch). Under each table a line (RelativeNote)
// gives every method's ε or z as a multiple of PLD's, so that what the notebook says about the ratios comes
// from the computation. NoiseFor searches z in [0.3, 100] by bisection to 1e−9; NoiseNear searches outward
// from a guess and closes the bracket by regula falsi to a stated relative precision, a handful of
// evaluations: it calibrates the PLD accountant from RDP's z in NoiseVsSize and in the explorer.
// ExplorerFigure is notebook 01's interactive figure: z is the PLD accountant's calibration for the target,
// recomputed at every setting of the sliders (about a second at the defaults; several where z comes near
// 0.3 and the PLD grid is large), and every accountant's ε(T) and own z (to three digits) are in the legend;
// Explore computes the values.
//
// # The papers' constants
//
// The reproduced papers privatise different objects, and the neighbouring relation decides the sensitivity:
//
//   - Balle et al. 2016 (notebook 02): m trajectories, one replaced (m public);
//   - Xie, Thomas & Miklau 2019, GPOPE (notebook 03): n trajectories, one replaced, so a clipped gradient moves
//     by 2C;
//   - Wang & Hegde 2019 (notebook 04): the reward function, neighbours with ‖r − r′‖∞ ≤ 1;
//   - Sharma et al. (notebook 05): the set of experts with their trajectories, one expert added or removed;
//   - Seo & Yang 2020 (notebook 06): left unspecified; one sample per step, with no composition over steps.
//
// Every table labels what the paper claims or computes ("claimed", "paper") apart from what holds for the
// algorithm as implemented, and names the sensitivity, neighbouring relation, sampling and accountant of
// each ε it prints.
//
// XieTable calibrates GPOPE's σ with the paper's accounting (Theorem 9, replace-one, Δ = 2C, C = 1,
// δ = 1e−5) and shows the constant c₂ = σ/(C√(T ln(1/δ))/(nε)) this implies in Theorem 1; then the ε of that σ
// for the algorithm as implemented (policyeval.GPOPE draws one trajectory uniformly per step, a batch of one
// without replacement), by RDP with Theorem 27 (GPOPEEpsilonAsRun): it equals the target at ε = 0.5 and 1
// and is 7% below at 0.1, so the paper's accounting is as tight as RDP gets for this sampling. The smaller ε
// that Poisson sampling at rate 1/n under add/remove (Δ = C) would give the same σ is shown too, labelled as
// not what GPOPE runs (for n = T = 1000 at ε = 1: σ ≈ 1.73, c₂ ≈ 16, that ε ≈ 0.18).
//
// WangHegdeTable sets Theorem 5's σ (a sufficient condition in the style of Kairouz, Oh & Viswanath)
// against exact μ-GDP accounting of the same T′ = T/B releases, each a Gaussian mechanism in the RKHS with
// μ = √T′‖f‖_H/σ (neighbours: rewards with ‖r − r′‖∞ ≤ 1): for one action's sensitivity, as the theorem
// states it, the exact ε is about 30% below the claim; for the m actions whose functions all change at every
// step (√m times the sensitivity) it is above the claim (0.944 for 0.9 at m = 2). These hold only on the
// event that Lemma 8's tail bound controls: the table gives Theorem 5's precondition 2k − 8.68√β·σ > 0, the
// paper's tail term and the corrected one of package fnq, and what is proved. At the paper's settings the
// corrected tail bound is vacuous, so nothing is; WangHegdeCalibrations adds fnq's example (k = 425,
// T′ = 100, J = 1) where it holds.
//
// SharmaTable gives DataRelease's SVT constants, the per-round ε′ = ε1/√(32T ln(2/δ1)), δ′ = δ1/(2TL),
// c_min, the threshold θ = c_min/p_min and its expected noisy value, the two Laplace scales, and the ε that
// advanced composition (Dwork & Roth Thm 3.20: T rounds of (2ε′, δ1/(2T)), slack δ1/2) certifies at δ1,
// 61–66% of the claimed ε1 at ε = 10 (Theorem 5.5 claims ε1 through Corollary 3.21, stated only for ε1 < 1).
// SharmaPaperRows builds the settings from the reproduction package sharma, so the split is the one notebook
// 05 runs (sharma.PaperSplit at δ = 1/m, m = 3000): Acrobot gives DataRelease all of (ε, δ), the other
// domains ε1 = 3ε/4 and δ1 = 9δ/10 (DP-SGD ε/4 and δ/10), and L is the domain's public bound on a
// demonstration's length (expertdp.Domain.DemoLen). The constants model each examined trajectory as a fresh
// draw; the implementation walks a fixed log, which that analysis does not cover (package sharma).
//
// SeoYangTable gives Seo & Yang's eq. (3) σ (the classic formula applied at any ε), the §2.1 typo
// √(2 ln(1.25)/δ)/ε (100 times more noise at δ = 1e−6), the analytic σ for their implicit sensitivity |C| and for
// replace-one's 2|C|, the exact ε of one release with the eq. (3) σ (10.25 at ε = 10 for |C|: the formula
// under-noises there), and the μ-GDP ε of 100 and 10⁴ published releases, which the paper does not compute.
// All of these read the paper charitably (a fixed sensitivity, only the noised vector released); its
// data-dependent C and the raw δ applied after the noise void them (package seoyang2020).
//
// The tests in truth_test.go pin every ε notebook 01 and the tour print, at default size, to the printed value
// and check it against the exact accountant of its configuration: a value called exact equals it, a value
// given as a guarantee is not below the true ε (the PLD accountant's certified lower bound), and a claim that
// does not hold is labelled.
//
// # Audits
//
// Catalog lists one audit case per mechanism of the collection (Gaussian, Laplace, SVT, the OU functional
// mechanism, a DP-SGD step (DPSGDCase), DP-LSW, GPOPE for one step and a whole run, DataRelease), each with
// worst-case neighbouring inputs and a deliberately broken variant; package audit runs them and CatalogTable
// lays out the claimed ε, the pair's exact ε where known, and the 95% lower bounds audited for both variants.
// AuditSummary states from the results what they show (how many valid variants audit below their claim,
// how many broken ones are caught, the audited fractions of the claims, the pairs' exact ε), so that the
// notebook's text about the audit carries no number the run did not produce.
//
// # The tour
//
// MeanStudy and PrivateMean are notebook 00's first private estimate: the average of n returns in [0, 1] has
// sensitivity 1/n under replace-one neighbours, and its classic-Gaussian release errs by the sampling error
// O(1/√n) plus the privacy noise O(1/(εn)).
//
// References: Abadi et al., Deep learning with differential privacy (CCS 2016); Balle, Barthe & Gaboardi,
// Privacy amplification by subsampling: tight analyses via couplings and divergences (NeurIPS 2018); Balle &
// Wang, Improving the Gaussian mechanism for differential privacy (ICML 2018); Balle, Gomrokchi & Precup,
// Differentially private policy evaluation (ICML 2016); Dong, Roth & Su, Gaussian differential privacy
// (JRSS-B 2022); Dwork & Roth, The algorithmic foundations of differential privacy (2014); Dwork, Rothblum &
// Vadhan, Boosting and differential privacy (FOCS 2010); Kairouz, Oh & Viswanath, The composition theorem for
// differential privacy (ICML 2015); Mironov, Talwar & Zhang, Rényi differential privacy of the sampled
// Gaussian mechanism (2019); Nissim, Raskhodnikova & Smith, Smooth sensitivity and sampling in private data
// analysis (STOC 2007); Seo & Yang (2020); Sharma et al. (TMLR); Wang, Balle & Kasiviswanathan, Subsampled
// Rényi differential privacy and analytical moments accountant (AISTATS 2019); Wang & Hegde,
// Privacy-preserving Q-learning with functional noise in continuous spaces (NeurIPS 2019); Xie, Thomas &
// Miklau, Privacy preserving off-policy evaluation (2019).
package accounting
