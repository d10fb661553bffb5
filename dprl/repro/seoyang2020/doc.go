// Package seoyang2020 reproduces Seo & Yang's differentially private actor (notebook 06-seo2020): the
// experiments of Figs. 2–5 and Tables 3 and 4 on the paper's two domains, the noise scale of its eq. (3)
// (NoiseScaleTable), and what ε its runs really have (Privacy). The algorithms and their accounting live in
// the library package dprl/actorcritic; this package holds the paper's settings, its published numbers, the
// experiment grids, the figures and the claims.
//
// # The algorithms
//
// Off-policy actor–critic with eligibility traces (Off-PAC: a GTD(λ) critic, Degris, White & Sutton 2012)
// on one-hot features. DP-Actor normalises the actor's gradient to norm |C|, the median of its absolute
// entries, and adds N(0, σ²C²I) with eq. (3)'s σ = √(2 ln(1.25/δ))/ε (actorcritic.PublishedSigma); DP-Critic
// does the same to the critic's update and DP-Both to both. With one-hot features the literal median is 0,
// which would switch off learning and noise alike, so the median is taken over the non-zero entries (our
// reading); the noise still goes on every entry. The paper's §2.1 prints the formula as √(2 ln(1.25)/δ)/ε, a
// typo that would mean about 100× more noise (TypoSigma). The notebook writes DP-Actor out in Go and a test
// of this package compiles that cell and checks it against actorcritic.Run, bit for bit.
//
// # Settings (Domains)
//
// MDP-100: a 100-state chain with actions stay and move right (which advances with probability 0.9), reward
// −1 per step and +1 on reaching the absorbing last state, episodes cut at 1000 steps. Taxi: Gymnasium's
// Taxi-v3 (the paper ran Taxi-v2), cut at 200 steps. Both: γ = 0.99, δ = 1e−6, ε = 10 per step, and a
// behaviour that takes the greedy action with probability 0.9 and a uniform one otherwise (importance ratio
// 1, or π_u(a|s)·|A|). Table 2 gives DP-Actor's best step sizes and λ (MDP-100: α_v = 0.01, α_w = 0.5,
// α_u = 0.5, λ = 0.8; Taxi: α_v = α_w = 0.05, α_u = 0.5, λ = 0). The paper's published numbers are kept
// beside ours: Table 3's standard deviations, Table 4's cosines and the ε values Fig. 3 calls stable.
//
// # Tuning each condition, and equal privacy
//
// The paper tunes every case ("We fixed the optimal parameter set from each case"), Table 2 only gives
// DP-Actor's optimum. Data tunes Non-DP, DP-Actor, DP-Critic, DP-Both and softmax DP-Actor each on its own
// (TunedConditions) over Domain.TuningGrid, a worked setting of ours: α_u ∈ {0.5, 0.1} × α_v ∈ {Table 2's,
// the next lower value of Table 1}, the two step sizes through which the noise reaches the weights, at
// Table 2's values and one step towards less noise. The criterion is the paper's (Fig. 2's caption: the best
// return averaged over the runs; Choose), on Sizes.TuneRuns runs per setting drawn from TuneSeed, disjoint
// from the evaluation's streams. The environments are simulators: tuning reads no private data and costs
// no privacy. Every performance claim is recomputed with Table 2's step sizes for every condition (the
// robust column), from runs of their own where a condition's choice differs.
//
// Compared methods run at the same ε: DP-Actor and DP-Critic release one noised vector per step, DP-Both
// two, so DP-Both runs at ε/√2 per step (StepEpsilon), which gives it the same composed ε per patient
// (MethodPrivacy; the paper's Fig. 2 runs it at ε). Fig. 3's x axis is that common per-step ε.
//
// # Readings
//
// "Performance" is the mean return over the last 50 episodes (Window; Domain.Score), and over all episodes as
// the alternative; an episode after the weights overflowed counts as the lowest return an episode can have,
// MaxSteps·MinReward (Domain.Lowest), so a diverged run never helps a claim, and the diverged runs are
// counted under every figure. "Performance standard deviation" (Table 3) is the standard deviation of the
// episode returns, over all runs (as shown) and per seed (as tested).
//
// The cosine study follows Fig. 4's caption ("We averaged the vectors generated from same episode over 10
// runs"): per episode, the cosine between a condition's end-of-episode traces averaged over the runs and
// Non-DP's averaged the same way; Table 4 is its mean over episodes (and variance over episodes), with a
// jackknife 95% interval over the runs (Jackknife). The paired cosine — each run against the Non-DP run of
// the same seed, mean over episodes, a t interval over seeds — is the alternative reading. Two references
// bound what a cosine can say: Non-DP runs on OtherSeed against the Non-DP runs, and the random policy. A
// cosine claim is inconclusive where the non-private reference pair passes the same test.
//
// # Claims
//
// Each figure's claims rows (Fig2Claims, Fig3Claims, Fig4Claims, Fig5Claims) quote the paper and are decided
// by repro.Record from a 95% interval against a test stated before the run: "the DP-Critic achieved the
// highest performance" (DP-Critic against DP-Actor and against DP-Both), DP-Actor below Non-DP, the
// DP-Critic–DP-Actor gap larger on Taxi, DP-Actor's and DP-Both's spread above DP-Critic's (Table 3); each
// variant keeping StableShare of its ε = 10 gain over the random policy down to the smallest ε the paper
// calls it stable, DP-Actor losing less than DP-Critic where the paper calls only DP-Actor stable, and (at
// paper scale) DP-Both losing more from ε = 5 to 1 on Taxi than on MDP-100 (Fig. 3); DP-Actor's traces nearly orthogonal to Non-DP's, DP-Critic's more similar than DP-Actor's, and
// DP-Critic's less similar on Taxi (Table 4); ε-greedy DP-Actor learning faster than softmax (Fig. 5). A
// comparison counts only where its winner beats the random policy, and lists the compared methods' ε.
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
// time limit. At ε = 10 per step (σ = 0.530) that is ε ≈ 7.7·10³ per patient on MDP-100 (H = 1000,
// μ = 119.4) and 1.7·10³ on Taxi (H = 200, μ = 53.4). Composing every release of a whole run instead gives
// the ε for replacing every episode at once, the whole data set: it is not a per-patient ε and Privacy
// labels it so. The claims rows list the charitable per-patient ε of the methods they compare; none is a
// guarantee.
//
// The corrected variant (actorcritic.Corrected) clips the whole per-step update [Δv; Δw; Δu] to a public norm
// C = 1 and adds N(0, σ²C²) to every coordinate, so everything learned is post-processing of released noisy
// increments. Every episode makes exactly H releases: it is cut at H steps and a shorter episode is padded
// with noise-only releases (Result.Releases = Episodes·H, checked by Data and CorrectedFigure), so between
// data sets that differ in one patient exactly H aligned releases differ and the run is (2√H/σ)-GDP
// (actorcritic.CorrectedEpsilon). Data calibrates σ (actorcritic.CorrectedNoise) for each whole-run ε per
// patient in Sizes.Corrected and runs it at Table 2's step sizes (worked setting, ours). Privacy lists the
// true ε of every configuration the notebook runs, and the package's tests assert it.
//
// # Data, figures and claims
//
// Data runs every experiment once — the tuning, then every evaluated condition, everything that does not
// wait for something else in parallel (experiment.Trials, longest runs first; the tables do not depend on
// the number of workers) — and returns tidy tables (Tables): one row per tuning run, and one row per
// evaluated run and episode with its return, length, divergence, releases and trace cosines. The figure
// functions (TuningTable, Fig2, Fig3, Fig4, Fig5, CorrectedFigure) draw from those tables and the claims
// functions record rows from them; none of them runs anything. DefaultSizes: the paper's 10 seeds of 500
// episodes (run r of every condition draws from rand.NewPCG(Seed, r)), 3 tuning runs per setting, Fig. 3
// at ε ∈ {5, 1, 0.5} per step besides Fig. 2's 10, the corrected variant at ε = 100 per patient; quick mode
// 2 seeds of 60 episodes and 1 tuning run; paper scale adds ε = 0.1 and DP-Both to Fig. 3, tunes on the
// paper's 10 runs and adds the corrected variant at ε = 10.
//
// # Reference
//
// Seo and Yang. Differentially private actor and its eligibility trace. Electronics 9(9):1486, 2020;
// doi:10.3390/electronics9091486.
package seoyang2020
