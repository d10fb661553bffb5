// Package xie2019 reproduces Xie, Thomas & Miklau, "Privacy Preserving Off-Policy Evaluation" (2019): the
// evaluation domains (Chain, MountainCar, HIV), the protocol the paper leaves open (Protocol, Config), the
// experiment runner (Tune, Experiment, StepSweep), the figures with their claims, and audit cases of GPOPE.
// Notebook 03 (03-xie2019-gpope) calls it one function per cell; GPOPE itself and its noise calibration are
// library code in dprl/policyeval (GPOPE, GPOPESigma, GPOPEEpsilon).
//
// # The algorithm
//
// A data holder has n trajectories of a behaviour policy π_b, one per individual, and estimates the value
// of a policy π with linear features, V(s) = θᵀφ(s). Two datasets are neighbours when they differ in one
// whole trajectory (replace-one; n is public). GPOPE is GTD2 made private: GTD2 minimises the mean squared
// projected Bellman error
//
//	MSPBE(θ) = (b − Aθ)ᵀ C⁻¹ (b − Aθ),  A = E[ρ φ(φ − γφ′)ᵀ],  b = E[ρ r φ],  C = E[φφᵀ],  ρ = π(a|s)/π_b(a|s),
//
// through the saddle point min_θ max_w wᵀ(b − Aθ) − ½wᵀCw, whose inner maximum is ½ MSPBE(θ) (SaddlePoint
// checks this numerically). Each of T steps picks one trajectory uniformly at random, forms Â, b̂, Ĉ from all
// its transitions, stacks the gradient g = [−Âᵀw; Âθ − b̂ + Ĉw], clips it to norm C, adds N(0, σ²I_{2d})
// and takes a step of size α.
//
// # Privacy accounting
//
// A step is the Gaussian mechanism on the clipped gradient. Under replace-one neighbours two clipped
// gradients can point in opposite directions, so the sensitivity is Δ = 2C and one step has Rényi DP
// a·Δ²/(2σ²) at order a. The paper's proof amplifies it by sampling one trajectory of n without replacement
// (q = 1/n) with Wang, Balle & Kasiviswanathan's Theorem 9, composes T steps and converts to (ε, δ); here
// that is policyeval.AccountingTheorem9: the RDP accountant with the improved conversion over the integer
// orders 2…256, δ = 1e−5. Every figure is calibrated with it, as the paper was.
//
// What each run certifiably spends is accounted separately (Certify, PrivacyRuns, Ledger): under the
// paper's relation, replace-one, by WBK's Theorem 27 for the subsampled Gaussian (policyeval.AccountingTight),
// the tightest bound we have for one trajectory per step; it is never above Theorem 9's and has no floor.
// TestPrivacyLedger asserts the value of every configuration the notebook runs.
//
// Poisson sampling with add/remove neighbours and Δ = C is a different sampling scheme and a different
// relation. Earlier versions of this package calibrated "Poisson" rows for it while running one trajectory
// per step under replace-one, so their true ε was about 10.6 (T = n) and 12.6 (T = 10n) rather than 1. Now a
// Poisson row runs Poisson sampling (policyeval.SamplePoisson: every trajectory independently with
// probability 1/n per step, the clipped gradients summed, the noise added to the sum, divided by the
// expected batch size 1) and is calibrated with the PLD accountant (policyeval.AccountingPoissonPLD) for
// add/remove ε = 1. Under replace-one the same run is bounded by Theorem 27 as for one trajectory per step
// (conditioned on the other trajectories' sum the two outputs are the same two-point mixture), and that ε
// is printed beside it: the Poisson rows are not at the paper's privacy level.
//
// Theorem 1 states σ = c₂·C·√(T ln(1/δ))/(nε) without the constant c₂; PrivacyConstants shows the c₂ each
// calibrated σ implies (it varies from about 5 to 44 over five (n, T, ε) settings, so it is not a constant),
// and checks the accountant against hand-worked values: σ = 1.726 (n = T = 1000, ε = 1), 2.063
// (n = 1000, T = 10⁴, ε = 1), 1.483 (n = T = 10⁴, ε = 1), 5.183 (n = T = 1000, ε = 0.1) and 2.020
// (n = 10⁴, T = 10⁵, ε = 0.5), all for C = 1, δ = 1e−5.
//
// DP-LSW and DP-LSL use Balle et al.'s Lemma 1 constants, proven for ε ≤ 1 only; the library refuses a
// larger ε, so the Mountain Car figures run them at ε ≤ 1 and leave them out at ε = 2.
//
// # Published versus corrected
//
// The paper's Lemma 1 gives the per-step moment bound in closed form by dropping Theorem 9's O(q³) terms.
// The full bound used here has a floor for the Gaussian: its terms min{2, (e^{ε(∞)} − 1)^j} equal 2
// because ε(∞) = ∞, so ε cannot fall below a noise-independent level (about 0.22 for n = T = 100 and 0.09
// for n = 1000, T = 10⁴), and small ε needs T no larger than about n. Every (n, ε, T) calibrated with it is
// chosen where the full bound reaches the target; WhyTrivial, which needs T = n², uses Theorem 27.
//
// # Statistics
//
// Every curve is the mean over the protocol's trials (10 by default, 100 with PaperProtocol) with a 95%
// Student-t band; trial k of a figure draws from rand.NewPCG(seed, k), the seed printed under the figure.
// Every claim is decided by repro.Tested from a 95% interval of a per-trial quantity stated in the claim's
// Why (for comparisons of two methods on the same private sample, the per-trial log₁₀ ratio, which pairs
// them). Every figure of estimates shows θ = 0, the non-private LSTD (WIS-LSTD off-policy) and the
// non-private GTD2 (σ = 0, same clip and T, its step tuned on the same public data).
//
// # The protocol (Protocol, Config)
//
// The paper does not give T, the step size, the clip C or δ. This reproduction fixes them for every figure:
// T = n; the step size is tuned per (n, ε) on public data (TuneRuns independent public samples of size n,
// GPOPE with the calibrated σ at each step of the half-decade grid 1e−6 … 3, scored by the MSPBE under each
// sample's own moments), and the 10× and 0.1× curves use the tuned step times 10 and 0.1; C is the largest
// per-trajectory gradient norm on 200 public trajectories at θ = w = 0 and at their LSTD solution, rounded
// up to two significant digits (Domain.Clip); GPOPE's δ is 1e−5, while DP-LSW and DP-LSL keep Balle et al.'s
// δ = 0.1, the tight public return bound F = 1 and the λ schedule constant c = 100, which favours them. The
// metric is the MSPBE under the population moments (exact on the chain, from an independent sample
// elsewhere), with θ = 0 as a reference the paper does not draw. The paper ran 100 trials (PaperProtocol);
// the default is 10.
//
// # Full size
//
// Fig1a, MountainCarFigures and Fig4 first look for the merged result of their checked-in sweep (SweepFig1a,
// SweepFig2_3, SweepFig4: sweeps/specs/<name>.json, experiment xie2019/mspbe at the paper's 100 trials; see
// repro.FullSize). When it is there, the figure, the tuning table and the claims come from its rows
// (RowsFromSweep, DomainFromSweep) and nothing runs; the sweep must have searched the step size as the
// protocol does (FullSizeConfig: the same grid, number of public samples and seed) and is refused
// otherwise. A sweep task runs one trial with its seed s as Config.Seed, so the figure's trial k is the
// task of the k-th smallest seed, drawing from rand.NewPCG(s, 0). Without the merged result the figure runs
// the protocol's trials, as before.
//
// # The domains
//
//   - Chain: Balle et al.'s 40-state chain (envs.BalleEvaluation), tabular features, exact moments; DP-LSW and
//     DP-LSL run on its 39 non-absorbing states.
//   - MountainCar: the order-5 Fourier basis (36 features), γ = 0.99, rewards times 1 − γ so that every
//     return lies in [−1, 0]. The evaluated policy is MountainCarEnergy, a stand-in for the paper's
//     Q-learning policy, whose weights are not published. DP-LSW needs finitely many first-visit states, so
//     it runs on a 10 × 10 grid of the state box with each cell centre's features and the public visit
//     frequencies as weights (the paper does not say how it ran it). Off-policy, the behaviour takes each
//     other action with probability 0.1 and the evaluated policy is uniform, as in the paper; the
//     non-private baseline is WIS-LSTD.
//   - HIV: Ernst et al.'s simulator (5 days per step, 200 steps, γ = 0.98, rewards divided by 1e8),
//     off-policy. The evaluated policy is HIVThreshold and the behaviour gives each other action
//     probability 0.1 (stand-ins for the paper's Q-learning policy and softmax behaviour); the features are
//     the order-1 Fourier basis (64 features) of the log₁₀ state, min–max normalised over the public sample.
//     The figure shows the relative MSPBE, MSPBE / r̄² with r̄ the evaluated policy's mean reward. Trials
//     subsample a pool simulated once.
//
// # Audit
//
// GPOPEStepCase and GPOPERunCase are the auditor's GPOPE cases (one step; a full run of 50 steps on 20
// trajectories, every iterate observed), each with a broken variant that skips clipping.
//
// # References
//
// Tengyang Xie, Philip S. Thomas and Gerome Miklau. Privacy Preserving Off-Policy Evaluation.
// arXiv:1902.00174, 2019.
//
// Yu-Xiang Wang, Borja Balle and Shiva Prasad Kasiviswanathan. Subsampled Rényi Differential Privacy and
// Analytical Moments Accountant. AISTATS 2019, arXiv:1808.00087.
//
// Borja Balle, Maziar Gomrokchi and Doina Precup. Differentially Private Policy Evaluation. ICML 2016.
package xie2019
