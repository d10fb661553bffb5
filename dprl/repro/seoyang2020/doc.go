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
// (Summarize). The cosine study (TraceSimilarity) is ours, since the paper gives no procedure: per episode
// index, the end-of-episode traces of a condition are averaged over its runs and the cosine between the DP and
// the non-DP averages is taken; Table 4 reports its mean (variance) over episodes. A setting of Fig. 3 is
// stable when its mean return over the last 50 episodes is no more than 20% worse than Non-DP's; runs whose
// weights overflow are reported and never count as stable.
//
// # Published versus corrected accounting
//
// The published guarantee is (ε, δ) per step, and it fails as a guarantee for a run in four ways: nothing
// composes the thousands of noisy steps; |C| depends on the data; the raw TD error multiplies the noised
// trace after the noise, so the update is not post-processing of a private release; and the classic formula
// is proven only for ε < 1 while the paper uses ε up to 10. Under replace-one neighbours a normalised gradient
// moves by up to 2|C|, so the sensitivity is 2, not 1.
//
// The most charitable reading (ComposedPublishedEpsilon) treats each noised vector as the only release, a
// Gaussian mechanism with sensitivity 2|C| and noise σ|C| (μ = 2/σ), and composes them exactly as μ-GDP over
// every release of a run: one per step for DP-Actor, two for DP-Both. Even so the ε of a run is in the
// hundreds of thousands or more.
//
// The corrected variant (actorcritic.Corrected) clips the whole per-step update [Δv; Δw; Δu] to a public norm
// C = 1 and adds N(0, σ²C²) to every coordinate, so everything learned is post-processing of released noisy
// increments. With neighbouring datasets that differ in one episode (one patient), only that episode's at most
// H steps see different data, and the run is (2√H/σ)-GDP (actorcritic.CorrectedEpsilon); H is the domain's
// step limit. RealEpsilon calibrates σ (actorcritic.CorrectedNoise) for a whole-run ε of 100 and of 10.
//
// # Sizes and seeds
//
// DefaultSizes: 5 runs of 500 episodes per condition (quick mode 2 runs of 60; the paper 10 of 500); Fig. 3
// uses 3/5 of the runs. Every condition draws its runs from rand.NewPCG(Seed, run), Seed = 2020, so all
// conditions share their streams.
//
// # Reference
//
// Seo and Yang. Differentially private actor and its eligibility trace. Electronics 9(9):1486, 2020;
// doi:10.3390/electronics9091486.
package seoyang2020
