// Package seoyang2020 reproduces Seo & Yang's differentially private actor (notebook 06-seo2020): the
// experiments of Fig. 2, Fig. 3, Fig. 4 and Tables 3 and 4 on the paper's two domains (Fig2, Fig3), the noise
// scale of its eq. (3) (NoiseScaleTable), and what ε its runs really have (RealEpsilon). The algorithms and
// their accounting live in the library package dprl/actorcritic; this package holds the paper's settings,
// its published numbers, the experiment grids and the claims.
//
// # The algorithms
//
// Off-policy actor–critic with eligibility traces (Off-PAC: a GTD(λ) critic, Degris, White & Sutton 2012)
// on one-hot features. DP-Actor normalises the actor's gradient to norm |C|, the median of its absolute
// entries, and adds N(0, σ²C²I) with eq. (3)'s σ = √(2 ln(1.25/δ))/ε (actorcritic.PublishedSigma); DP-Critic
// does the same to the critic's update and DP-Both to both. With one-hot features the literal median is 0,
// which would switch off learning and noise alike, so the median is taken over the non-zero entries (our
// reading); the noise still goes on every entry. The paper's §2.1 prints the formula as √(2 ln(1.25)/δ)/ε, a
// typo that would mean about 100× more noise (TypoSigma).
//
// # Settings (Domains)
//
// MDP-100: a 100-state chain with actions stay and move right (which advances with probability 0.9), reward
// −1 per step and +1 on reaching the absorbing last state, episodes cut at 1000 steps; α_v = 0.01,
// α_w = 0.5, α_u = 0.5, λ = 0.8. Taxi: Gymnasium's Taxi-v3 (the paper ran Taxi-v2), cut at 200 steps;
// α_v = α_w = 0.05, α_u = 0.5, λ = 0. Both: γ = 0.99, δ = 1e−6, ε = 10, and a behaviour that takes the greedy
// action with probability 0.9 and a uniform one otherwise (importance ratio 1, or π_u(a|s)·|A|). The paper's
// published numbers are kept beside ours: Table 3's standard deviations, Table 4's cosines and the ε values
// Fig. 3 calls stable.
//
// # Readings
//
// "Performance standard deviation" (Table 3) is the standard deviation of all episode returns over all runs
// (Summarize); the claim is tested on the per-seed standard deviations (ReturnStds). The cosine study is ours,
// since the paper gives no procedure: per seed, the cosine between the end-of-episode trace of the DP run
// and of the non-DP run with the same seed, per episode (EpisodeCosines); Table 4 reports the mean over seeds
// of the per-seed mean over episodes, with its 95% interval. Two references bound what a cosine can say:
// non-DP runs with other seeds (OtherSeed) against the non-DP runs, and the random policy's traces.
//
// # References and statistics
//
// Every figure shows Non-DP and the random policy (Domain.RandomPolicy: α_u = 0 and acting by sampling π_u,
// which stays uniform: θ = 0). Every curve is a mean over Sizes.Runs seeds (rand.NewPCG(Seed, r)) with a 95%
// Student-t band, and every claim is decided by repro.Tested from a 95% interval against a test stated
// before the run. Margin is the stability test of Fig. 2 and Fig. 3: a setting learns "about as well as
// Non-DP" when mean(DP) − 1.2·mean(Non-DP) > 0 on the last-50 returns (at most 20% worse, for negative
// returns), by the Welch interval. A run whose weights overflowed (the published normalisation lets the
// noise grow with the update) counts with the lowest return an episode can have, MaxSteps·MinReward
// (Domain.Finals), so it never helps a claim of stability.
//
// # Published versus corrected accounting
//
// The published guarantee is (ε, δ) per step, and it fails as a guarantee for a run in four ways: nothing
// composes the thousands of noisy steps; |C| depends on the data; the raw TD error multiplies the noised
// trace after the noise, so the update is not post-processing of a private release; and the classic formula
// is proven only for ε < 1 while the paper uses ε up to 10. Under replace-one neighbours a normalised gradient
// moves by up to 2|C|, so the sensitivity is 2, not 1. The published variants have no whole-run guarantee.
//
// The most charitable reading (ComposedPublishedEpsilon) treats each noised vector as the only release, a
// Gaussian mechanism with sensitivity 2|C| and noise σ|C| (μ = 2/σ), and composes releases exactly as μ-GDP.
// Between data sets that differ in one patient (one episode), only that episode's releases differ: at most
// k·H of them, with k = 1 noised vector per step for DP-Actor and DP-Critic and k = 2 for DP-Both, and H the
// time limit (charitable again: unpadded, their number and position depend on the data). At ε = 10 per step (σ = 0.530) that is ε ≈ 7.7·10³ per patient on MDP-100 (H = 1000,
// μ = 119.4) and 1.7·10³ on Taxi (H = 200, μ = 53.4) for DP-Actor. Composing every release of a whole run
// instead (≈ 2.4·10⁶ for the 336 864 steps of one MDP-100 run, the number an earlier version of the notebook
// printed as the run's ε) gives the ε for replacing every episode at once, the whole data set: it is not a
// per-patient ε and Privacy labels it so (computed there with the public bound Episodes·k·H).
//
// The corrected variant (actorcritic.Corrected) clips the whole per-step update [Δv; Δw; Δu] to a public norm
// C = 1 and adds N(0, σ²C²) to every coordinate, so everything learned is post-processing of released noisy
// increments. Every episode makes exactly H releases: it is cut at H steps and a shorter episode is padded
// with noise-only releases (Result.Releases = Episodes·H, checked by RealEpsilon), so between data sets that
// differ in one patient exactly H aligned releases differ and the run is (2√H/σ)-GDP
// (actorcritic.CorrectedEpsilon); H is the domain's time limit. RealEpsilon calibrates σ
// (actorcritic.CorrectedNoise) for a whole-run ε per patient of 100 and of 10 (CorrectedEpsilons). Privacy
// lists the true ε of every configuration the notebook runs, and the package's tests assert it.
//
// # Sizes and seeds
//
// DefaultSizes: 10 seeds of 500 episodes per condition, the paper's runs (quick mode 2 seeds of 60); Fig. 3
// sweeps DP-Actor and DP-Critic over ε ∈ {5, 1, 0.5, 0.1} per step (ε = 10 is Fig. 2's), and PaperScale adds
// ε = 10 and DP-Both to it. Every condition draws its runs from rand.NewPCG(Seed, run), Seed = 2020, so all
// conditions share their streams.
//
// # Full size from sweeps
//
// Fig2, Fig3 and RealEpsilon first look for the merged results of the checked-in sweeps SweepFig2,
// SweepFig3 and SweepRealEpsilon (sweeps/specs, experiment seoyang2020/returns, whose seed r is run r here
// and whose conditions are configured by Domain.Config; see sweeps/README.md). When a section's sweep is
// there, it runs nothing: its curves, tables and claims come from the merged rows (RunsFromSweep), with as
// many seeds as the sweep ran, and Fig. 3 and the corrected variant take their Non-DP and random-policy
// references from SweepFig2, which must then be merged too, with the same seeds. Otherwise the section runs
// its default size and says how to get the full one.
//
// # Reference
//
// Seo and Yang. Differentially private actor and its eligibility trace. Electronics 9(9):1486, 2020;
// doi:10.3390/electronics9091486.
package seoyang2020
