// Package policyeval provides private and non-private estimators of a fixed policy's value function with
// linear features: the first-visit Monte Carlo least-squares estimators of Balle, Gomrokchi & Precup (2016),
// LSW and LSL, with their private versions DP-LSW and DP-LSL; the gradient-perturbed off-policy evaluation
// (GPOPE) of Xie, Thomas & Miklau (2019) with its accountants; the non-private baselines LSTD and WIS-LSTD;
// and the metrics that compare estimates with exact values (RMSE, empirical risk, MSPBE).
//
// The estimators read package trajectory's datasets (as read from CSV or JSON) through its Policy and
// Features maps, and exact models through the TabularModel interface (envs.Model is one): the package imports
// no simulator, so an estimate from a file compiles no environment.
//
// # Neighbouring relation
//
// Both papers protect trajectories: two datasets of m trajectories are neighbours when they differ in one
// trajectory (replace-one), and m is public. Every private function here is (ε, δ)-DP under that relation.
// Private functions always add noise: ε must lie in (0, ∞) and δ in (0, 1); the non-private estimators are
// separately named (LSW, LSL, LSTD, WISLSTD, and GPOPE with GPOPEConfig.NonPrivate).
//
// # First-visit statistics
//
// For a batch X of m trajectories over N states, n_s counts the trajectories that visit s, and F_s averages
// the discounted return from the first visit of s over them (0 if n_s = 0); the vector of counts is the
// batch's signature. Signature keeps, besides F and Counts, every trajectory's first-visit returns, so that
// the private releases can clip them.
//
// # LSW and DP-LSW
//
// LSW fits θ = argmin Σ_s w_s(F_s − φ_sᵀθ)² with data-independent weights w = ρ (Problem.Rho), that is
// θ = (Γ_w^{1/2}Φ)⁺Γ_w^{1/2}F with Γ_w = diag(w); Φ must have full column rank on the weighted states.
// Replacing one trajectory moves each count by at most 1 and each average by at most F_range/max(n_s, 1),
// so the local sensitivity is at most ‖(Γ_w^{1/2}Φ)⁺‖₂·F_range·√φ(n) with φ(n) = Σ_s w_s/max(n_s, 1)².
// φ decreases in every count, so its largest value within distance k is Σ_s w_s/max(n_s − k, 1)², and
//
//	Ψ_β(n) = max_{0≤k≤‖n‖∞} e^{−kβ}·Σ_s w_s/max(n_s − k, 1)²     (LSWSmoothBound)
//
// is a β-smooth bound (Balle et al., Lemmas 4–5). DPLSW releases θ + N(0, σ²I_d) with
// σ = α·F_range·‖(Γ_w^{1/2}Φ)⁺‖₂·√Ψ_β(n), α and β from mechanisms.SmoothGaussianConstants (package
// mechanisms, "Smooth sensitivity"; Lemma 1 constants by default). The authors' code used the Frobenius norm
// instead of the spectral one, which is larger and so also valid (frobenius = true). Both sets of constants
// are proven for ε ≤ 1 only, so DPLSW and DPLSL refuse a larger ε (a *param.Error naming Epsilon and the
// range (0, 1]) rather than release without a guarantee.
//
// # LSL and DP-LSL
//
// LSL adds a ridge penalty: θ = (ΦᵀΓ_XΦ + λ/(2m)·I)⁻¹ΦᵀΓ_X F with Γ_X = diag(ρ_s n_s/m). Its sensitivity
// grows with the counts, so the smooth bound raises them: max_{0≤k≤m} e^{−kβ}·H(min(n + k, m))². Two
// bounds (LSLBound):
//   - LSLPaper, as recovered from the authors' newest code: needs λ > ‖ρ‖∞‖Φ‖_F²; H(n) = ‖Φ‖_F‖ρ‖∞/√(2λ)·
//     √(Σ_s ρ_s n_s) + ‖ρ‖₂ and σ = 2α·F_max·‖Φ‖_F/(λ − ‖ρ‖∞‖Φ‖_F²)·√(max_k …).
//   - LSLSafe, derived for dprl and valid for every λ > 0: with M = ΦᵀNΦ + (λ/2)I ⪰ (λ/2)I and
//     (λ/2)‖θ‖² ≤ F_max²·Σ_s ρ_s n_s, the local sensitivity is at most (2‖Φ‖₂/λ)·H(n) with
//     H(n) = F_range‖ρ‖₂ + ‖Φ‖₂‖ρ‖∞F_max·√(2Σ_s ρ_s n_s/λ), so σ = α·(2‖Φ‖₂/λ)·√(max_k …).
//
// LambdaSchedule is the authors' schedule λ = ‖Φ‖_F²‖ρ‖∞ + c·m^0.4.
//
// # Declared bounds
//
// The noise is calibrated for first-visit returns in the declared range [FMin, FMin + FRange] ⊆
// [−FMax, FMax] of the Problem (FRange = FMax for non-negative rewards, 2·FMax for signed ones; Balle's code
// uses R_max/(1 − γ) for both, while any smaller public bound, such as 1 on the chain, gives proportionally
// less noise). DP-LSW and DP-LSL clip every first-visit return to that range before averaging, so the
// guarantee holds whatever the data, and report the number clipped in Release.Clipped. A Signature made
// by hand, without the per-trajectory returns, is refused.
//
// # GPOPE
//
// GTD2 as a saddle point (Liu et al. 2015): with ρ_t = π(a_t|s_t)/b(a_t|s_t), A = E[ρφ(φ − γφ′)ᵀ],
// b = E[ρrφ], C = E[φφᵀ] (Moments), MSPBE(θ) = (b − Aθ)ᵀC⁻¹(b − Aθ) is twice the maximum over w of
// L(θ, w) = wᵀ(b − Aθ) − ½wᵀCw. GPOPE (Xie et al., Algorithm 1) runs T steps: draw one trajectory
// uniformly (with replacement across steps), average Â, b̂, Ĉ over all its transitions, form the stacked
// gradient g = [−Âᵀw; Âθ − b̂ + Ĉw], clip it to norm C, add N(0, σ²I_{2d}) with σ an absolute standard
// deviation, and step x ← x − α_t·g̃; the result is θ_T. Non-finite data are refused, and a gradient that
// overflows is dropped (set to zero, the noise still added). GPOPEConfig.Sampling = SamplePoisson replaces
// the draw by a Poisson sample (each trajectory independently with probability q, default 1/n):
// g̃ = (Σ_{i∈B} clip(g_i) + N(0, σ²I_{2d}))/(q·n).
//
// GPOPEAccounting chooses the accountant (GPOPEEpsilon, GPOPESigma); each is about one sampling
// (GPOPEAccounting.Sampling), and a run is private as stated only if it runs that sampling:
//   - AccountingTheorem9, a conservative bound: one trajectory of n per step sampled without replacement,
//     replace-one neighbours, Δ = 2C, Wang, Balle & Kasiviswanathan's general Theorem 9 (noise multiplier
//     σ/(2C)), RDP, the theorem Xie et al.'s proof cites, with every term (their Lemma 1 drops the O(q³)
//     ones, which is not a bound). Theorem 9 has a floor that no noise removes, so small ε can be out of
//     reach.
//   - AccountingTight, the same run with their Theorem 27 for the subsampled Gaussian: never above
//     Theorem 9, no floor. At rate 1/n it also bounds Poisson sampling under replace-one: given the other
//     trajectories' sum s, the outputs are (1 − q)N(s, σ²) + qN(s + g, σ²) and the same with g′, and by the
//     joint convexity of exp((α − 1)D_α) the divergence is at most that of one step of one-per-step sampling
//     on a dataset whose other gradients are 0.
//   - AccountingPoisson, the usual alternative: Poisson sampling at rate 1/n, add/remove, Δ = C (noise
//     multiplier σ/C), RDP.
//   - AccountingPoissonPLD, the same with the PLD accountant (mechanisms.PLDAccountant): tight up to its
//     pessimistic discretisation; GPOPESigma solves for σ by regula falsi on (log σ, log ε), to within
//     0.1% below the target ε.
//
// The paper's own constant c₂ in σ ≥ c₂·C·√(T ln(1/δ))/(nε) is not known, so σ is always computed by the
// accountant. GPOPESigma finds σ by regula falsi on (log σ, log ε), to within a relative 1e−9 of ε (PLD:
// 0.1%), never above it. TuneStep chooses the step size on public data, which costs no privacy.
//
// # Balle et al.'s chain
//
// The tests (and the reproductions balle2016 and xie2019) use the experiment of Balle et al.
// (envs.BalleEvaluation): the 40-state chain without its absorbing state, 39 states with ρ_s = 1/39
// (UniformWeights), the policy that stays or advances with probability ½, γ = 0.99, and exact values from a
// linear solve. Features are tabular (d = 39) or pair aggregation (d = 20): StateAggregation in blocks of 1
// or 2 states. Reference values at ε = δ = 0.1 with F_range = 100 (the code's R_max/(1 − γ)): α = 122.39;
// β = 5.953e−4 (d = 39) and 1.087e−3 (d = 20); ‖(Γ^{1/2}Φ)⁺‖₂ = √39 on tabular features. For DP-LSL on
// tabular features with m = 1000, σ ≈ 8.2·10³ (paper bound) and 537 (safe bound) at λ = 16.8, and 21.6 and
// 2.79 at λ = 1586.
//
// # References
//
//   - Balle, Gomrokchi & Precup (2016), Differentially private policy evaluation.
//   - Bradtke & Barto (1996), Linear least-squares algorithms for temporal difference learning.
//   - Liu, Liu, Ghavamzadeh, Mahadevan & Petrik (2015), Finite-sample analysis of proximal gradient TD
//     algorithms.
//   - Mahmood, van Hasselt & Sutton (2014), Weighted importance sampling for off-policy learning with
//     linear function approximation.
//   - Nissim, Raskhodnikova & Smith (2007), Smooth sensitivity and sampling in private data analysis.
//   - Wang, Balle & Kasiviswanathan (2019), Subsampled Rényi differential privacy and analytical moments
//     accountant.
//   - Xie, Thomas & Miklau (2019), Privacy preserving off-policy evaluation.
package policyeval
