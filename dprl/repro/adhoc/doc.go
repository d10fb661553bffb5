// Package adhoc runs the private policy-evaluation estimators of the collection on a user's own trajectory
// file (notebook 07) and keeps the privacy promise while doing so. Analysis ties a private file to a public
// Setup (a discrete state map, features, weights and bounds), a planning file and a budget, and runs the
// notebook's steps, each writing to a report.Sink:
//
//  1. plan on the planning file, at no privacy cost: the estimators' non-private counterparts, the ε sweep,
//     the explorer, the size study and the audit (Baselines, Sweep, EstimateDraw, Plan, AuditBest);
//  2. choose there (Best on the sweep), or on the private file with the cost charged (SelectPrivately);
//  3. release once on the private file through a session.Session (OpenBudget, Release, ReleaseBest), which
//     charges the file's persistent budget on disk before any noise is drawn;
//  4. show the ledger and its gauge (Ledger), and what each filter would admit (CompareFilters).
//
// # What is protected
//
// The unit of privacy is one trajectory (one individual). Two datasets are neighbours when one trajectory is
// replaced by another; the number of trajectories m is public. Everything in the Setup (state map Φ, weights ρ,
// return bound, discount, clip, step size, the λ schedule's constant) must be chosen without looking at the
// private trajectories, or the guarantee does not hold: choose it on the planning file (a synthetic file
// from a public model, WritePublic, or a public split), which Planning refuses if it holds the private
// data. Analysis reads the private file only through a session: Describe shows its public identity (content
// hash, m, shape), and every release is charged first (Setup.Charge works the cost out from public things
// alone: ε, δ, m, and for GPOPE its Rényi curve). What a release returns is θ only: DP-LSW's and DP-LSL's
// noise scale depends on the data through the smooth sensitivity, and the count of clipped returns is data,
// so neither leaves the session. Each explorer redraw on the private file (PrivateEstimateDraw) is a
// charged release. Declared bounds are enforced rather than trusted:
// DP-LSW and DP-LSL clip every first-visit return to [0, ReturnMax] ([−ReturnMax, ReturnMax] when Signed) and
// count the clipped returns in Release.Clipped; GPOPE clips every step's gradient to Clip. On the private file
// a state outside [0, NumStates) counts as the nearest valid one, so no trajectory can make a release fail
// (a visible failure would itself tell on the trajectory). Estimate refuses
// ε outside (0, ∞) and δ outside (0, 1): a release always has noise, and NonPrivate is the separately named,
// explicitly non-private estimate.
//
// # The estimators
//
// All three evaluate the policy that collected the data, with features φ_s (the rows of Φ) and θ ∈ R^d.
//
//   - DPLSW is Balle, Gomrokchi & Precup's (2016) least squares with fixed weights: θ minimises
//     Σ_s ρ_s (F_s − φ_sᵀθ)² over the first-visit Monte Carlo returns F_s, and the release adds N(0, σ_X² I_d)
//     with σ_X = α·F_range·‖(Γ_ρ^{1/2}Φ)⁺‖₂·√Ψ_β(n_X), where n_X are the states' visit counts and
//     Ψ_β(n) = max_k e^{−kβ} Σ_s ρ_s/max(n_s − k, 1)² is a β-smooth bound on the local sensitivity. α and β are
//     the smooth-sensitivity Gaussian's constants of their Lemma 1 (Nissim, Raskhodnikova & Smith 2007). The
//     bound relaxes only once states are visited about 1/β times, which is why DP-LSW needs much data.
//   - DPLSL is their ridge-regularised variant θ = (ΦᵀΓ_XΦ + λ/(2m) I)⁻¹ΦᵀΓ_X F, Γ_X = diag(ρ_s n_s/m), with the
//     authors' schedule λ = ‖Φ‖_F²‖ρ‖∞ + c·m^0.4 (c = Setup.LambdaC, 100 when zero), noised with the smooth
//     sensitivity of a bound valid for every λ > 0 in spectral norms (policyeval.LSLSafe). The ridge term
//     bounds one trajectory's effect without waiting for visit counts, at the price of a regularisation bias.
//   - GPOPE is Xie, Thomas & Miklau's (2019) gradient-perturbed GTD2: Setup.Steps steps of constant size
//     Setup.StepSize, each on one trajectory drawn from the n, whose stacked gradient is clipped to norm C and
//     noised with N(0, σ²I). σ comes from the paper's accounting: one of n sampled per step, replace-one, so
//     Δ = 2C, composed with Wang, Balle & Kasiviswanathan's (2019) Theorem 9 for sampling without replacement and
//     converted to (ε, δ). That bound has a noise-independent floor for the Gaussian, so small ε can be out of
//     reach; the sweep then records the reason instead of a value.
//
// # Measuring utility without a ground truth
//
// Reference is the non-private LSW estimate on a whole (planning) file, and Error is the ρ-weighted RMSE of
// the values Φθ against it, √(Σ_s ρ_s(φ_sᵀ(θ − θ_ref))²/Σ_s ρ_s): what privacy adds to what the data already
// say. Study repeats releases over ε and dataset sizes; sizes are drawn from the file without replacement up
// to its size and with replacement beyond (Resample), extrapolating to more data like the data at hand. Needed
// reads off the smallest studied size whose mean error meets a target. On the private file none of this is
// computed: the reference there is not private.
//
// # Private selection
//
// SelectPrivately releases each candidate estimator once (charged), then chooses among the released
// estimates with the exponential mechanism (session.Selection, charged): each trajectory scores a candidate
// by minus the ρ-weighted mean squared difference between its first-visit returns and the candidate's values
// over the states it visits, both clipped to the return range R, so a score lies in [−R², 0] and replacing one
// trajectory moves a candidate's mean score by at most R²/m. The released estimates are public by then, so the
// score's sensitivity does not depend on them; the scores are never shown.
//
// # Auditing
//
// Setup.Audit compares a dataset with the dataset whose first trajectory is replaced by a canary (Canary: one
// step in the least-visited state with the extreme return that moves its value most) and tests the release
// projected on the difference of the two inputs' non-private estimates (package audit): the result is a 95%
// lower bound on the ε an adversary with this canary can detect, which must stay below the claim. It is
// evidence against a broken implementation, not a measure of the true ε. The notebook audits on the planning
// file: on the private file, each of the thousands of runs would be a release.
//
// References: Balle, Gomrokchi & Precup, Differentially private policy evaluation (ICML 2016); Nissim,
// Raskhodnikova & Smith, Smooth sensitivity and sampling in private data analysis (STOC 2007); Xie, Thomas &
// Miklau, Privacy preserving off-policy evaluation (2019); Wang, Balle & Kasiviswanathan, Subsampled Rényi
// differential privacy and analytical moments accountant (AISTATS 2019).
package adhoc
