// Package balle2016 reproduces Balle, Gomrokchi & Precup, "Differentially Private Policy Evaluation"
// (ICML 2016): the experiment setup of their Fig. 1, the noise constants on real batches, the privacy of
// every release, the four panels of Fig. 1 with their tested claims, and an audit case of DP-LSW. Notebook
// 02 (02-balle2016-dp-policy-evaluation) calls it one function per cell; the estimators themselves are
// library code in dprl/policyeval.
//
// # The problem
//
// A data holder has m trajectories of a fixed policy, one per individual, and releases a linear estimate
// V(s) ≈ φ_sᵀθ of the policy's value function. Two datasets are neighbours when they differ in one whole
// trajectory (replace-one; m is public). Both estimators are first-visit Monte Carlo least squares on the
// batch's signature: for each state s, n_s is the number of trajectories that visit s and F_s the average
// discounted return from their first visit.
//
//   - LSW minimises Σ_s w_s (F_s − φ_sᵀθ)² with fixed public weights w = ρ (here ρ_s = 1/39).
//   - LSL solves θ = (ΦᵀΓΦ + λ/(2m)·I)⁻¹ΦᵀΓF with the data-dependent Γ = diag(ρ_s n_s/m); its regulariser
//     follows the authors' schedule λ = ‖Φ‖_F²‖ρ‖∞ + c·m^0.4 (policyeval.LambdaSchedule).
//
// # The private releases
//
// DP-LSW and DP-LSL add N(0, σ(X)²·I_d) to the estimate, σ(X) = α·S_β(X), S_β a β-smooth upper bound on the
// local sensitivity (Nissim, Raskhodnikova & Smith 2007). With the constants of the paper's Lemma 1,
// α = 5√(2 ln(2/δ))/ε and β = ε/(4(d + ln(2/δ))); at ε = δ = 0.1 that is α ≈ 122.4 and β ≈ 6.0e−4 for the
// tabular d = 39 (1.1e−3 for the paired d = 20). The local sensitivity depends on the data only through the
// visit counts n, so the smooth bound is a maximum over a distance k that can be computed exactly:
//
//   - DP-LSW: σ = α·F·‖(Γ_ρ^{1/2}Φ)⁺‖₂·√Ψ_β(n), Ψ_β(n) = max_k e^{−kβ} Σ_s ρ_s / max(n_s − k, 1)², with F the
//     range of a first-visit return.
//   - DP-LSL, the authors' form (policyeval.LSLPaper, recovered from their code): valid only for
//     λ > ‖ρ‖∞‖Φ‖_F², σ = 2αF‖Φ‖_F/(λ − ‖ρ‖∞‖Φ‖_F²)·√Ψ with
//     Ψ = max_k e^{−kβ} (‖Φ‖_F‖ρ‖∞·√(Σ_s ρ_s min(n_s + k, m)/(2λ)) + ‖ρ‖₂)².
//   - DP-LSL, a bound that holds for every λ > 0 (policyeval.LSLSafe, spectral norms):
//     σ = 2α‖Φ‖₂/λ·√Ψ with Ψ = max_k e^{−kβ} (F‖ρ‖₂ + ‖Φ‖₂‖ρ‖∞F·√(2Σ_s ρ_s min(n_s + k, m)/λ))².
//
// No composition or privacy accountant is involved: each estimate is one release at (ε, δ). There is no
// sampling either: every trajectory of the batch is used once. The guarantee is Lemma 1's (Nissim,
// Raskhodnikova & Smith's Gaussian smooth-sensitivity mechanism, stated for ε ≤ 1): the release is (ε, δ)-DP
// when α ≥ 5√(2 ln(2/δ))/ε and β ≤ ε/(4(d + ln(2/δ))); Lemma1Epsilon inverts that for the constants a
// release used. Configs lists every private configuration the notebook runs and ShowGuarantees prints, for
// each, the constants, the certified ε and the noise; TestGuarantees recomputes them independently. DP-LSL
// with the authors' bound is covered through the safe bound: both are max_k e^{−kβ}(a + b·√R(k))² with the
// same β and R(k), and on the chain's features (‖Φ‖_F² ≥ 2‖Φ‖₂², F_max = F_range) the authors' a and b are
// at least the safe ones for every λ above ‖ρ‖∞‖Φ‖_F², so its noise is never smaller.
//
// # The setup (Setup)
//
// The chain of envs.BalleChainParams: 40 states, the last absorbing; the policy stays or advances with
// probability ½; reward 1 on reaching the absorbing state; γ = 0.99; uniform start; trajectories cut at 200
// steps, as in the authors' code. The estimators see the 39 non-absorbing states, with tabular features
// (d = 39) or adjacent pairs (d = 20: 39 states leave the last one alone, so ‖(Γ^{1/2}Φ)⁺‖ stays √39).
// The exact values V come from a linear solve. Privacy is ε = δ = 0.1 (ε from the authors' code, δ as
// recalled from the paper, whose constants are not legible). The return bound is the code's
// F = R_max/(1 − γ) = 100; every return of the chain is at most 1, a public fact that would divide σ by 100,
// and NoiseScales shows both.
//
// # Figures and claims
//
// Every curve of Fig. 1 is the mean over DefaultGrid's 20 seeds (the paper's 20 runs on m = 100, 500, …,
// 5000; trial i draws from PCG(2016, i)) with a 95% Student-t band, beside θ = 0 and the non-private
// estimators. RMSE is √(Σ_s ρ_s (V(s) − φ_sᵀθ̂)²) against the exact values; excess empirical risk is
// J_X(θ̃) − J_X(θ̂), J_X(θ) = Σ_s ρ_s (n_s/m)(F_s − φ_sᵀθ)², a private estimate over its non-private counterpart on
// the same batch (zero for the non-private estimators; θ = 0 is shown as J_X(0) − J_X(θ̂_LSW)). Each claim is
// decided by repro.Tested from the 95% interval of a per-seed quantity against a boundary stated in the
// claim's Why before the run. Panel 2 extends the grid of schedule constants to c = 10⁶ and computes, from
// the noise formula and the schedule, the c at which DP-LSL's noise falls below θ = 0's error and the c at
// which LSL has shrunk half-way to θ = 0, which is why no U appears at these batch sizes.
//
// Panels34 first looks for the merged result of the sweep SweepFig1 (sweeps/specs/balle2016-fig1.json,
// experiment balle2016/rmse: the paper's batch sizes and 20 seeds; see repro.FullSize). When it is there,
// both panels and their claims come from its rows (EstimatesFromSweep) and nothing runs. A task of that
// sweep is one seed s at one batch size m: the panels' computation (PanelEstimates) on a batch drawn from
// the stream PCG(s, m), so the curves are the same estimators on other batches than the notebook's.
//
// # Published versus corrected
//
// The paper's DP-LSL analysis (as the authors' code implements it) needs λ above ‖ρ‖∞‖Φ‖_F² and is an
// order of magnitude more conservative than the safe bound at these sizes; both are run and shown, and the
// reproduction's claims use the authors' form. The smooth-sensitivity constants follow Lemma 1
// (mechanisms.SmoothLemma1). DP-LSW uses the spectral norm of (Γ^{1/2}Φ)⁺ where the authors' code used the
// larger Frobenius norm. The paper's exact ε and δ are not recoverable (δ = 0.1 is weak: a failure
// probability of one in ten), so its figures are compared in shape, not number.
//
// # Audit
//
// DPLSWCase is the auditor's DP-LSW case (LSWAuditProblem: two states, one trajectory the only visitor of
// state 0), with a broken variant that drops the factor α.
//
// # Reference
//
// Borja Balle, Maziar Gomrokchi and Doina Precup. Differentially Private Policy Evaluation. Proceedings of
// the 33rd International Conference on Machine Learning (ICML), PMLR 48, 2016. arXiv:1603.02010.
//
// Kobbi Nissim, Sofya Raskhodnikova and Adam Smith. Smooth Sensitivity and Sampling in Private Data
// Analysis. STOC 2007.
package balle2016
