// Package sharma reproduces Sharma et al.'s offline reinforcement learning with expert-level differential
// privacy (notebook 05): the paper's budget split and Table 1's mixing probabilities, the experts, logs and
// normalisation references of its four environments, the training jobs of Fig. 3, Fig. 4 and Table 2, the
// figures and tables the notebook shows, a re-accounting of its runs, and an audit case for DataRelease. The
// algorithms themselves (the prefix count, PrefixQuery and DataRelease, discrete CQL and BCQ, expert-level
// and Selective DP-SGD, their accounting) are in the library package dprl/expertdp.
//
// # The setting and the neighbouring relation
//
// The log holds demonstrations from m experts, N trajectories each. The unit of privacy is the expert:
// two logs are neighbours when they come from expert sets Π, Π′ with |Π Δ Π′| = 1, and the expert added or
// removed takes all its trajectories along. Rewards and dynamics are public. With N trajectories per
// expert, a trajectory-level (ε, δ) guarantee only gives (Nε, N·e^{(N−1)ε}·δ) per expert by group privacy
// (GroupPrivacy shows how little that says at the paper's N = 20).
//
// # DataRelease (Algorithms 1–2)
//
// Every expert π plays its greedy action with probability 1 − (|A|−1)·p_min and each other action with
// probability p_min (p_min = 0.02). The count of a trajectory prefix τ = (s_1, a_1, …, s_k, a_k) is
// count_τ(Π) = Σ_{π∈Π} Π_{j≤k} π(a_j | s_j); one expert contributes a product of probabilities, at most 1,
// so the count has sensitivity 1. DataRelease reshuffles the log, examines the first T trajectories and, for
// each, keeps the longest prefix whose noisy count stays above a noisy threshold (a sparse-vector run).
// For T examined trajectories of public length bound L the constants are
//
//	ε' = ε1 / √(32·T·ln(2/δ1)),  δ' = δ1 / (2·T·L),
//	c_min = e^{ε'} / (e^{ε'} − 1),  θ = c_min / p_min,
//	θ̂ = θ + (4/ε')·ln(1/δ') + Lap(2/ε') per trajectory, and Lap(4/ε') on every prefix query.
//
// One examined trajectory is (2ε', δ1/(2T))-DP (Theorem 5.3) and the T rounds are claimed (ε1, δ1)-DP by
// advanced composition (Theorem 5.5). The paper cites Dwork and Roth's Corollary 3.21, which is stated for
// ε1 < 1 while the paper applies it up to ε1 = 10; the general Theorem 3.20 (slack δ1/2) still certifies at
// most ε1 in every setting here (ReleaseConstants shows it). The worked example, Acrobot at ε1 = 10,
// δ1 = 1/3000, T = 25, L = 200, gives ε' ≈ 0.120, c_min ≈ 8.85, θ ≈ 443 and E[θ̂] ≈ 1017: a prefix needs
// about a thousand experts in agreement to pass. L is a public bound, each domain's Domain.DemoLen (200 for
// CartPole and Acrobot, 1000 for LunarLander, 50 for HIV), passed as ReleaseParams.L; the data's longest
// demonstration is shown in the log table and used for nothing else.
//
// The analysis models each examined trajectory as a fresh draw (an expert, then a rollout); the algorithm
// walks a reshuffled fixed log. On the log the release certifies (ε1 + ln(1/(1 − p_T)), δ1 + p_T), where
// p_T ≈ T/m is the probability that one expert's trajectories are among the T examined
// (expertdp.FixedLogDelta): 6.7·10⁻³ at T = 20 and 8.3·10⁻³ at T = 25 for m = 3000, twenty to thirty times
// δ1. Every run of ours with a release carries that δ (the privacy table and the claims say so); the
// comparisons keep the paper's δ1 for it, which favours ours.
//
// # Selective DP-SGD (Algorithms 3–4) and the budget
//
// Each step is, with probability p, an expert-level DP-SGD step on the unreleased data D_unst (experts
// Poisson-sampled at rate b/m, one transition per sampled expert, per-example clipping at C = 1, Gaussian
// noise of standard deviation s·C on the sum), and otherwise a noiseless step on a uniform batch of b
// released stable transitions. The pipeline is (ε1 + ε2, δ1 + δ2)-DP (Theorem 5.6), with DataRelease in the
// paper's model and ε2 under the exact accounting below; on the fixed log add the release's p_T terms. PaperSplit is the
// paper's allocation at δ = 1/m: Acrobot spends all of ε on DataRelease; CartPole, LunarLander and HIV give
// DataRelease 3ε/4 and 9δ/10 and DP-SGD the rest for ε ≥ 7.5, and go pure DP-SGD at ε = 5. PaperP is
// Table 1's best p. Batch b = 128 as in the paper.
//
// # Accounting: exact, and the paper's as a labelled side note
//
// The DP-SGD steps are accounted with the PLD accountant (the paper uses tensorflow_privacy's). The paper
// accounts each Selective DP-SGD step as a Poisson-subsampled Gaussian with rate q = p·b/m
// (expertdp.AccountingPaper). But a noiseless step is recognisable, so whoever sees the iterates knows which
// steps were private: a step is exactly the mixture "with probability p a Poisson(b/m)-subsampled Gaussian,
// otherwise nothing about the data" (expertdp.AccountingMixed, mechanisms.Mixed, the library's default). Its
// δ(ε) is p·δ_{b/m}(ε), at least δ_{p·b/m}(ε) since δ is convex in the rate: the published accounting is
// optimistic. Every run here that is compared with another is calibrated with the exact mixture, so ours
// and expert-level DP-SGD at the same nominal ε spend the same ε (PrivacyRows, Privacy; the tests recompute
// each from the mechanisms). The paper's calibration appears only in runs labelled "published accounting"
// (PublishedJobs: CartPole at ε = 10, which then spends 10.35 at p = 0.8 and 11.28 at p = 0.5 over 1000 steps) and in
// CheckAccounting, which shows the s each accounting calibrates, what the paper's s really spends, and the
// return the correction costs. At the paper's own noise multipliers (its Table 3) the budget lasts 10⁵ to
// beyond 10⁶ steps; CheckAccounting counts them with an RDP accountant and with the PLD on two grids: on the
// 10⁻³ grid the PLD's pessimism, certified to grow like h·√steps, is larger than the budget at 10⁶ steps
// (it allowed fewer steps than RDP), on the 10⁻⁴ grid it allows more, as a tighter accountant must, and
// certifies the true ε to the interval shown. At the 10³ steps of the runs here the 10⁻³ grid calibrates
// within 0.02 of the true ε (a test certifies it on the 10⁻⁴ grid; a 10⁻⁵ grid puts it within 0.003).
//
// # What runs here instead of the paper's compute
//
// Experts: B = 30 base policies per environment, each trained by the cross-entropy method on a variation
// drawn from the paper's grid (Appendix B), and m = 3000 experts, expert i from base i mod B with every
// parameter multiplied by 1 + 0.1·N(0, 1). CartPole, Acrobot and HIV experts score actions linearly in the
// normalised observation; LunarLander experts are gains of Gymnasium's heuristic controller. The log has
// N = 4 trajectories per expert for CartPole and Acrobot and 1 for LunarLander and HIV (the paper: 20, see
// NewConfig). Every run trains for the same number of steps (1000; quick mode 150) and private runs
// calibrate s so that those steps spend exactly ε2 at δ2, the reduced-compute analogue of the paper's
// "train until the budget is spent". Where the paper is silent the learners use Adam at 10⁻³, γ = 0.99,
// CQL α = 1, BCQ threshold 0.3, Polyak rate 0.005 and 64×64 networks (the paper: 256×256). Returns are
// normalised to 0 for the uniform policy and 1 for the best base policy on the default environment, and the
// figures divide by the non-private learner's normalised return, as the paper's do. When ours trains on
// D_stable alone (p = 0) and the release is empty, Selective DP-SGD has no step to take and returns its
// initial network, which is evaluated like a trained one.
//
// # Statistics
//
// Every setting runs 10 seeds (quick mode 2); a setting shared by two figures (Fig. 4 at m = 3000 is Fig.
// 3's Acrobot CQL at ε = 10, Table 2's Table-1 p is Fig. 3's, ours at ε = 5 on CartPole is expert-level
// DP-SGD) runs once (Config.Jobs, Job.Setting). Curves show the mean with a 95% Student-t band over the
// seeds; tables show mean [95% interval]. Each claim states its test before the run: a difference of mean
// normalised returns (ours − baseline, at the same ε) with Welch's 95% interval, or a contrast of four
// means for Fig. 4's growth with m (ContrastCI), or the mean |D_stable| over 10 releases, against a stated
// boundary; repro.Tested decides reproduced, not reproduced or inconclusive. Deterministic checks (the
// worked example, the composition range, the accounting's optimism, the fixed-log δ) are a table of their
// own (Facts), not claim rows.
//
// The notebook's cells share results through files in the system temporary folder (GoNB runs every cell as
// a new program): Experiments writes the outcomes and the privacy rows that Privacy, Fig3, Fig4, Table2,
// CheckAccounting and ExportRuns read. Each records its claims through its report.Sink (repro.Record);
// Experiments records those about |D_stable|.
//
// # Full size
//
// Fig. 3 and Fig. 4 at the paper's scale (N = 20, 256×256 networks, 10⁵ steps, 10 seeds; Fig. 3 on all
// four environments) are the sweeps sweeps/specs/sharma-fig3.json and sharma-fig4.json (experiment
// sharma/jobs: one job per task, the same job, setup and exact accounting as the runs compared here). When
// one has been merged, Experiments says so (repro.FullSize), reads its runs (OutcomesFromSweep) instead of
// running that figure's jobs, and Fig3 or Fig4 draws the figure, its intervals and its claims from them,
// with the sweep's seed count, and Privacy shows their privacy from their own rows; every other job runs at
// the default size exactly as without the sweep. Without a merged sweep the cell says "Default size".
//
// # References
//
// N. Sharma, V. Vinod, A. Thakurta, A. Agarwal, B. Balle, C. Dann, A. Raghuveer. Preserving expert-level
// privacy in offline reinforcement learning. Transactions on Machine Learning Research, 2025
// (arXiv:2411.13598).
//
// C. Dwork, A. Roth. The algorithmic foundations of differential privacy. Foundations and Trends in
// Theoretical Computer Science 9(3–4), 2014 (Theorem 3.20, Corollary 3.21).
//
// M. Abadi et al. Deep learning with differential privacy. CCS 2016 (DP-SGD).
//
// A. Kumar, A. Zhou, G. Tucker, S. Levine. Conservative Q-learning for offline reinforcement learning.
// NeurIPS 2020. S. Fujimoto, E. Conti, M. Ghavamzadeh, J. Pineau. Benchmarking batch deep reinforcement
// learning algorithms. arXiv:1910.01708, 2019 (discrete BCQ).
package sharma
