// Package xie2019 reproduces Xie, Thomas & Miklau, "Privacy Preserving Off-Policy Evaluation" (2019): the
// evaluation domains (Chain, MountainCar, HIV), the protocol the paper leaves open (Protocol, Config), the
// experiment runner (Tune, Experiment, StepSweep), the figures and their claims, and audit cases of GPOPE.
// Notebook 03 (03-xie2019-gpope) calls it; GPOPE itself, its prepared data and its noise calibration are
// library code in dprl/policyeval (GPOPE, Prepare, GPOPESigma, GPOPEEpsilon).
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
// and takes a step of size α_t. The notebook writes this loop out from library primitives and a test keeps
// it equal, bit for bit, to the library's run (Example_algorithmInCode).
//
// # Privacy accounting
//
// A step is the Gaussian mechanism on the clipped gradient. Under replace-one neighbours two clipped
// gradients can point in opposite directions, so the sensitivity is Δ = 2C and one step has Rényi DP
// α·Δ²/(2σ²) at order α; drawing one trajectory of n (q = 1/n) amplifies it. Three calibrations of σ appear:
//   - Calibration (policyeval.AccountingTight) calibrates every figure: Wang, Balle & Kasiviswanathan's
//     (WBK) Theorem 27 for the subsampled Gaussian, RDP at the integer orders 2…256, improved conversion,
//     δ = 1e−5 — the tightest valid bound the library has for this sampling. A run spends its target ε to
//     within 10⁻⁶ (never above; TestPrivacyLedger), so GPOPE and the baselines compare at equal (ε, δ).
//   - WBK's general Theorem 9, which the paper's proof cites (policyeval.AccountingTheorem9): valid but
//     conservative — never below Theorem 27, and with a noise-independent floor for the Gaussian (its
//     min{2, (e^{ε(∞)} − 1)^j} terms are 2), so small ε needs T ≲ n (ε ≥ 0.22 for n = T = 100).
//   - The paper's Lemma 1 as published (Lemma1RDP, Lemma1Epsilon, Lemma1Sigma): Theorem 9 with the O(q³)
//     terms dropped, composed by the moments accountant's tail bound (the paper's Theorem 4). It is not a
//     bound: the σ it gives spends, by Theorem 27, up to about 5× its target at ε ≥ 1 (3.25 for a target of 1
//     at n = T = 1000). It is shown under its own label with its true ε (PrivacyConstants), never run.
//
// Theorem 1 states σ = c₂·C·√(T ln(1/δ))/(nε) without the constant c₂; the c₂ the calibrations imply ranges
// from about 4 to 80 over the figures' settings, so it is not a constant. The conservative bound is checked
// against hand-worked values: σ = 1.726 (n = T = 1000, ε = 1), 2.063 (n = 1000, T = 10⁴), 1.483
// (n = T = 10⁴), 5.183 (n = T = 1000, ε = 0.1), 2.020 (n = 10⁴, T = 10⁵, ε = 0.5), all for C = 1, δ = 1e−5.
//
// What each run certifiably spends is listed in the ledger (PrivacyRuns, PrivacyTable, Ledger), with the
// baselines' (ε, δ) (BaselinePrivacy). Poisson sampling with add/remove neighbours and Δ = C is a different
// sampling scheme and relation; the lever table's Poisson rows run it (policyeval.SamplePoisson) calibrated
// with the PLD accountant for add/remove ε = 1, and print their replace-one ε beside it (about 40): they are
// not at the paper's privacy level.
//
// DP-LSW and DP-LSL use Balle et al.'s smooth-sensitivity constants, proven for ε ≤ 1 only; the library refuses
// a larger ε, so the Mountain Car figures run them at ε ≤ 1 and leave them out at ε = 2.
//
// # The protocol (Protocol, Config): our worked setting
//
// The paper does not give T, the step-size schedule, the clip C or δ ("we fix δ in all our experiments",
// value not printed). This reproduction fixes them for every figure, as a worked setting of ours: T = n; the
// step size chosen by the paper's criterion, on public data (TuneRuns public samples of size n, GPOPE with the
// calibrated σ at each step of the half-decade grid 1e−6 … 3, scored by the MSPBE under each sample's own
// moments), for a constant step and for the diminishing α_t = α₀/(1 + 10t/T) (Schedule; the paper's §6 and §8
// recommend decaying steps without fixing a form), the public choice being the schedule with the lower public
// MSPBE and the 10× and 0.1× curves that choice at ten times and a tenth of its step; C the largest
// per-trajectory gradient norm on 200 public trajectories at θ = w = 0 and at their LSTD solution, rounded up
// to two significant digits (Domain.Clip), as the paper assumes C large enough not to clip; δ = 1e−5 for GPOPE,
// DP-LSW and DP-LSL alike, the baselines also at Balle et al.'s δ = 0.1 (drawn, never compared), with the tight
// public return bound F = 1 and λ schedule constant c = 100. The metric is the MSPBE under the population
// moments (exact on the chain, from an independent sample elsewhere), with θ = 0 as the trivial reference.
// The paper ran 100 trials (PaperProtocol); the default is 10.
//
// # Figures and claims
//
// Each figure is three calls: its data (Fig1aData, Fig1bData, MountainCarData, Fig2bData, Fig4Data,
// LongRunData), a tidy experiment.Table with one row per estimate (Columns, Table, ReadTable); its plots
// (Fig1aPlots, …: table → plots, no runs, no files), shown with Show, which adds the tuning table and the
// caption: the seeds behind the bands and the diverged runs counted per point; and its claims (Fig1aClaims,
// …: table → rows through repro.Record). Every claim quotes the paper (testdata/quotes.txt) and is decided
// from a 95% Student-t interval over the trials of a per-trial quantity named in its Why; a row saying GPOPE
// beats or matches a method also measures GPOPE against θ = 0 and lists the certified (ε, δ) of both, so it
// is inconclusive ("uninformative") when GPOPE does not beat θ = 0. A paper row that is not reproduced carries
// the verdict recomputed under the open choices the run varies (GPOPE's schedule, the baselines' δ, how long
// "the long term" is).
//
// # Full size
//
// Fig1aData, MountainCarData and Fig4Data first look for the merged result of their checked-in sweep
// (SweepFig1a, SweepFig2_3, SweepFig4: sweeps/specs/<name>.json, experiment xie2019/mspbe at the paper's 100
// trials; see repro.FullSize). When it is there, the table comes from its rows (RowsFromSweep) and nothing
// runs; the sweep must have run the configuration of the protocol (FullSizeConfig: the same grid, number of
// public samples, seed, δ, calibration and baselines) and is refused otherwise. A sweep task runs one trial
// with its seed s as Config.Seed, so the figure's trial k is the task of the k-th smallest seed, drawing from
// rand.NewPCG(s, 0).
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
//     subsample a pool simulated and prepared once.
//
// A draw (Domain.Draw) returns the trajectories and their policyeval.Prepared form, so every run on a sample
// costs two matrix–vector products per step instead of a pass over a trajectory's transitions.
//
// # Beyond the paper
//
// Levers varies one choice at a time (the clip at the median public gradient norm, T = 10n, ε = 10, Poisson
// sampling); SignalAndNoise shows why GPOPE stays at θ = 0 (the signal-to-noise ratio of the summed updates
// saturates as T grows at fixed ε); LongRunData runs the chain at n = 100 up to T = n², where the paper's
// theory reaches its optimal rate, with both schedules tuned on public data.
//
// # Audit
//
// GPOPEStepCase and GPOPERunCase are the auditor's GPOPE cases (one step; a full run of 50 steps on 20
// trajectories, every iterate observed), calibrated as the figures are, each with a broken variant that
// skips clipping.
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
