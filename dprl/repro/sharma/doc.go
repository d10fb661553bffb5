// Package sharma reproduces Sharma et al.'s offline reinforcement learning with expert-level differential
// privacy (notebook 05): the paper's budget splits, Table 1's mixing probabilities and Table 3's noise
// multipliers, the experts, logs and normalisation references of its four environments, the runs of
// Fig. 3, Fig. 4, Table 2 and the stable-set claims as data, figure and claims functions, the privacy every
// run certifies, and audit cases for DataRelease and Selective DP-SGD. The algorithms themselves (the prefix
// count, PrefixQuery and DataRelease, discrete CQL and BCQ, expert-level and Selective DP-SGD, their
// accounting, the fallback) are in the library package dprl/expertdp.
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
// most ε1 in every setting here (ReleaseConstants shows it). The paper prints none of these constants; in
// a worked setting of ours, Acrobot at ε1 = 10, δ1 = 1/3000, T = 25 and our bound L = 200, ε' ≈ 0.120,
// c_min ≈ 8.85, θ ≈ 443 and E[θ̂] ≈ 1017: a prefix needs about a thousand experts in agreement, and 3000
// experts in perfect agreement would pass about 26 steps (HIV at its split: about 8). L is a public bound of
// ours, each domain's Domain.DemoLen (200 for CartPole and Acrobot, 1000 for LunarLander, 50 for HIV; the
// paper states none), passed as ReleaseParams.L; the data's longest demonstration is shown and used for
// nothing else.
//
// The analysis models each examined trajectory as a fresh draw (an expert, then a rollout); the algorithm
// walks a reshuffled fixed log. On the log the release certifies (ε1 + ln(1/(1 − p_T)), δ1 + p_T), where
// p_T ≈ T/m is the probability that one expert's trajectories are among the T examined
// (expertdp.FixedLogDelta): 8.3·10⁻³ at T = 25 and m = 3000, some 25 times δ1.
//
// # Selective DP-SGD (Algorithms 3–4), the budget and the fallback
//
// Each step is, with probability p, an expert-level DP-SGD step on the unreleased data D_unst (experts
// Poisson-sampled at rate b/m, one transition per sampled expert, per-example clipping at C = 1, Gaussian
// noise of standard deviation s·C on the sum), and otherwise a noiseless step on a uniform batch of b
// released stable transitions (b = 128). PaperSplit is the paper's allocation at δ = 1/m: Acrobot spends
// all of ε on DataRelease (StableOnlySplit, p = 0); CartPole, LunarLander and HIV give DataRelease 3ε/4 and
// 9δ/10 and DP-SGD the rest from ε = 7.5 up (ThreeQuarterSplit, App. B.3's "all other cases"), and go pure
// DP-SGD at ε = 5. The paper contradicts itself on HIV: §6.1 gives it the whole budget for the release
// like Acrobot, App. B.3 the 3/4 split, and Table 1's HIV BCQ p = 0.9 needs DP-SGD steps; PaperSplit takes
// B.3's, and the "D_stable suffices" claim runs both (HIVJobs). PaperP is Table 1's best p; PaperS Table 3's
// noise multiplier s.
//
// When the release comes back empty, the paper's method "defaults towards the baseline" (§6.1, Fig. 4): ours
// then trains expert-level DP-SGD on the whole log within its (ε2, δ2) (Job.Fallback,
// expertdp.TrainConfig.Fallback), a choice that depends only on the release's output. A split with ε2 = 0
// has nothing to fall back on: on an empty release it returns its initial network, which is evaluated like a
// trained one (the note column says so). Fig. 4's ours therefore takes App. B.3's 3/4 split with Table 1's
// p = 0 (FallbackJob; a worked setting of ours: the paper's Acrobot split leaves no budget for the fallback
// it describes), and its alternative is the paper's Acrobot split (StableOnlyJob).
//
// # Equal privacy: the certificate
//
// Certificate is what a run guarantees for expert-level neighbours: DataRelease on the fixed log,
// (ε1 + ln(1/(1 − p_T)), δ1 + p_T), composed with the DP-SGD budget (ε2, δ2) (Theorem 5.6), whatever the
// steps spend of it. Every comparison holds its methods to one certificate: expert-level DP-SGD, the
// baseline, runs at the certificate of the ours it is compared with (BaselineJob: Job.Split is ours'
// split), p_T included, so at CartPole's ε = 10 both are (10.008, 8.6·10⁻³)-DP rather than ours at that and
// the baseline at (10, 1/m). Ours with p = 0 spends none of ε2 and is held to the same, looser but valid,
// certificate. The claims list each method's certificate (repro.Privacy).
//
// # Accounting and the noise regime
//
// The DP-SGD steps are accounted with the PLD accountant (the paper uses tensorflow_privacy's and
// dp-accounting's). The paper accounts each Selective DP-SGD step as a Poisson-subsampled Gaussian with
// rate q = p·b/m (expertdp.AccountingPaper). But a noiseless step is recognisable, so whoever sees the
// iterates knows which steps were private: a step is exactly the mixture "with probability p a
// Poisson(b/m)-subsampled Gaussian, otherwise nothing about the data" (expertdp.AccountingMixed, the
// library's default), which every run here uses. CheckAccounting shows what the paper's calibration would
// give and really spend, and how many steps the paper's own s allows before ε2 is spent.
//
// The paper trains at s ∈ {10, …, 80} (Table 3) "until the privacy budget is used up", 10⁵ to beyond 10⁶
// steps. Two regimes (Noise): NoisePaper is the paper's: Table 3's s for ours, BaselineS = 10 (the grid's
// smallest, the most favourable to the baseline under a cap) for the baseline and wherever Table 3 gives
// none, each run until its budget is spent or the step cap; NoiseCalibrated, a worked setting of ours,
// calibrates s so that the steps we can pay spend exactly the budget. At the default size (1000 steps)
// the paper's regime leaves every private run near the untrained network, so the notebook calibrates, and
// every default-size verdict says it is conditional on that setup; the full-size sweeps run the paper's
// regime. Where a comparison comes out not reproduced, the data functions also run it in the other regime,
// and its row's robust column reports the verdict there.
//
// # What runs instead of the paper's compute
//
// A worked setting of ours throughout: B = 30 base policies per environment, each trained by the
// cross-entropy method on a variation drawn from the paper's grid (Appendix B), and m = 3000 experts, expert
// i from base i mod B with every parameter multiplied by 1 + 0.1·N(0, 1) (the paper: 3000 PPO agents).
// CartPole, Acrobot and HIV experts score actions linearly in the normalised observation; LunarLander
// experts are gains of Gymnasium's heuristic controller. The log has N = 4 trajectories per expert for
// CartPole and Acrobot and 1 for LunarLander and HIV (the paper: 20). Runs take 1000 steps (quick mode 150)
// with calibrated noise. Where the paper is silent the learners use Adam at 10⁻³, γ = 0.99, CQL α = 1, BCQ
// threshold 0.3, Polyak rate 0.005, b = 128 and 64×64 networks (the paper: 256×256, Table 3's η and b).
// Returns are normalised to 0 for the uniform policy and 1 for the best base policy on the default
// environment, and the figures divide by the non-private learner's normalised return, as the paper's do.
//
// # Claims and statistics
//
// Every setting runs 10 seeds (quick mode 2); the |D_stable| rows rest on 10 releases. Each claims row
// quotes the paper (testdata/quotes.txt) and states its test before the run, decided by repro.Tested and
// repro.Record from a 95% interval: a Welch interval of a difference of mean normalised returns, or of a
// contrast of four means (ContrastCI), against 0 ("A matches B": above −0.1, a tenth of the expert–random
// gap), or the t-interval of a mean |D_stable| against half a transition. Every comparison also measures
// ours against the untrained network (Untrained; uninformative, hence inconclusive, unless ours beats it)
// and lists both methods' certificates. The rows: Fig. 3, ours above the baseline at ε = 7.5 and 10, and the
// gain larger at ε = 10 than at 5; Fig. 4, the gain growing with m and the stable set empty at the
// smallest m; Table 2, both stages above either alone, and pure DP-SGD above the 3/4 split at low ε;
// "D_stable suffices" on Acrobot and HIV; LunarLander's stable set empty. Deterministic checks (the
// composition range, the accounting's optimism, the fixed-log δ) are a table of their own (Facts), and the
// |D_stable| of Acrobot and HIV are sanity checks. Runs that diverge (a non-finite parameter or return) are
// counted per point under each figure.
//
// # Data, figure, claims
//
// Each section is three calls: data (Fig3Data, Fig4Data, Table2Data, DStableData: the runs as a tidy table,
// OutcomeTable's columns), figure (Fig3Figure, Fig4Figure, Table2Figure, DStableFigure: table → plots and
// tables, no run, no file) and claims (Fig3Claims, …: table → rows through report.Sink). GoNB runs every
// cell as a program of its own, so each data call builds the setups it needs and runs its own jobs; a run
// draws its random stream from its setting and seed (RunJobs), so a setting two sections share (Fig. 4 at
// m = 3000 is Fig. 3's Acrobot CQL at ε = 10; Table 2's Table-1 p is Fig. 3's) gives the same numbers in
// both. Privacy and CheckAccounting come from the configuration alone.
//
// # Full size
//
// Fig. 3 and Fig. 4 at the paper's scale (N = 20, 256×256 networks, the paper's noise regime capped at 10⁵
// steps, 10 seeds; Fig. 3 on all four environments, with the calibrated regime as its alternative) are the
// sweeps sweeps/specs/sharma-fig3.json and sharma-fig4.json (experiment sharma/jobs: one run per task, the
// same jobs and setups as here). When one has been merged in the repository at root, Fig3Data or Fig4Data
// says so (repro.FullSize) and returns its runs instead of running.
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
