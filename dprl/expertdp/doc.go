// Package expertdp implements offline reinforcement learning with expert-level differential privacy after
// Sharma et al. (2024): expert policies trained on variations of an environment, the count of a trajectory
// prefix over all experts, PrefixQuery and DataRelease (a sparse-vector release of the trajectory prefixes
// that many experts would produce), discrete CQL and BCQ learners with per-example gradients, expert-level
// DP-SGD and Selective DP-SGD with a PLD accountant, and the paper's normalised-return evaluation.
//
// # Neighbouring relation
//
// The private object is the set of experts Π = {π_1, …, π_m} together with all their demonstrations: two
// sets are neighbours when one expert, with all of its trajectories, is added or removed (|Π Δ Π′| = 1).
// Rewards and transitions are public. Demonstrations come from experts with minimum action probability
// p_min (every action has probability at least p_min: the greedy action 1 − (|A| − 1)·p_min; the paper uses
// p_min = 0.02), and discrete actions.
//
// # Prefix counts and DataRelease
//
// For a prefix τ = (s_1, a_1, …, s_k, a_k, s_{k+1}), count_τ(Π) = Σ_{π∈Π} Π_{j≤k} π(a_j|s_j): each expert
// contributes a probability, so the count has sensitivity 1 (PrefixCounter computes it along a trajectory).
// DataRelease (Algorithm 2) with budget (ε1, δ1), T examined trajectories and demonstration bound L
// (Constants, ReleaseConstants):
//
//	ε′ = ε1/√(32·T·ln(2/δ1)),  δ′ = δ1/(2TL),  c_min = e^{ε′}/(e^{ε′} − 1),  θ = c_min/p_min
//
// The log is reshuffled; for each of the first T trajectories a fresh threshold θ̂ = θ + (4/ε′)·ln(1/δ′) +
// Lap(2/ε′) is drawn and the trajectory's prefixes are queried in order with PrefixQuery (Algorithm 1:
// "above" when count + Lap(4/ε′) > θ̂), the sparse vector technique stopping at the first "below" (package
// mechanisms, "Laplace mechanism and sparse vector"). The longest prefix that passed joins D_stable; its
// tail and every other trajectory form D_unst. One examined trajectory is (2ε′, δ1/(2T))-DP (Theorem 5.3),
// and T of them compose by advanced composition with slack δ1/2 to (ε1, δ1) (Theorem 5.5).
// CompositionEpsilon is what Dwork & Roth's Theorem 3.20 certifies for that composition.
//
// L is a public demonstration bound (ReleaseParams.L, by default the domain's Domain.DemoLen), never the
// data's longest trajectory (which would make the threshold depend on the data; Data.MaxLen is for display
// only); no prefix longer than L is queried (Release.Cut).
//
// The analysis draws every examined trajectory afresh (an expert, then a rollout). DataRelease walks a
// fixed log instead, and there the guarantee is (ε1 + ln(1/(1 − p_T)), δ1 + p_T) (FixedLogGuarantee), where
// p_T ≈ T/m is the probability that one expert's trajectories are among the T examined (FixedLogDelta):
// 8.3·10⁻³ at the paper's T = 25 and m = 3000, some 25 times δ1. A method compared with this release must
// be given the same certified (ε, δ), p_T included.
//
// # Selective DP-SGD
//
// Train runs Selective DP-SGD (Algorithm 3): each step is, with probability p, an expert-level DP-SGD step
// on D_unst, and otherwise a plain step on a batch from D_stable. An expert-level DP-SGD step (Algorithm 4;
// p = 1 without stable data is the baseline) Poisson-samples experts at rate b/m, takes one transition from
// each sampled expert, clips each gradient to C (1 by default), adds N(0, s²C²) to the sum and divides by b.
// An expert's data thus enters a step through one clipped gradient. Accounting (PLD, grid 10⁻³):
//   - AccountingMixed, the zero value: with probability p a Poisson(b/m) Gaussian step and otherwise a
//     noiseless step that shows it was not private (mechanisms.Mixed). This is exact when every iterate is
//     released, and costs more than the paper's accounting for 0 < p < 1;
//   - AccountingPaper, only when asked for: every step is a Poisson-subsampled Gaussian at rate q = p·b/m,
//     noise multiplier s. It is optimistic for 0 < p < 1 (the iterates reveal which steps were private).
//
// With NoiseMultiplier 0, s is calibrated so that MaxSteps steps spend exactly (ε2, δ2); with a given s the
// run stops when the accountant's budget is spent or at MaxSteps, whichever comes first. When the release's
// D_stable is empty, TrainConfig.Fallback trains expert-level DP-SGD (p = 1) on the whole log within the same
// (ε2, δ2): the paper's "defaults towards the baseline" (it needs a budget ε2 > 0). The whole pipeline
// is (ε1 + ε2, δ1 + δ2)-DP (Theorem 5.6). Sharma et al. take δ = 1/m and, for ε ≥ 7.5, split the budget as
// ε1 = 3ε/4, ε2 = ε/4, δ1 = 9δ/10, δ2 = δ/10; on Acrobot all of it goes to the release (p = 0), and at ε = 5
// all of it to DP-SGD (ε1 = 0).
//
// # Domains and experts
//
// Four domains (Domains) with three varied parameters each, 10 values per axis: CartPole (gravity
// [8.75, 11], force [9, 11.25], cart mass [0.8, 1.25]), Acrobot (link length [0.8, 1.2], both masses
// [0.9, 1.1]), LunarLander (gravity [−11, −9], wind [0, 5], turbulence [0, 0.5]) and HIV (20 days per step,
// 50 steps; drug penalties [18750, 21250] in 50 values and [1850, 2150] in 20). The paper trains PPO experts;
// here base policies are trained by the cross-entropy method on variations drawn from the grid (linear
// scores; for LunarLander, gains of Gymnasium's heuristic controller), and experts are derived from them
// with multiplicative jitter. HIV's third axis (noise in drug efficacy) is not in the simulator and is
// replaced by a single value.
//
// # Learners
//
// CQL in its DQN form adds α·(log Σ_a exp Q(s, a) − Q(s, a_data)) to the TD loss (Kumar et al. 2020);
// discrete BCQ (Fujimoto et al. 2019) has a behaviour-cloning head and never picks an action whose cloned
// probability is below Threshold times the most likely one's. The paper leaves several settings open; the
// defaults here are γ = 0.99, Adam with learning rate 10⁻³, CQL α = 1, BCQ threshold 0.3, Polyak target
// updates at rate 0.005, and hidden layers {64, 64} (the paper: 256, 256; HIV 512).
//
// # Caveats
//
//   - Theorem 5.5 cites Dwork & Roth's Corollary 3.21, which is stated for ε1 < 1, at ε1 up to 10; the
//     general Theorem 3.20 still certifies at most ε1 in every setting used (4.6–6.6), so the claim
//     survives.
//   - The analysis models each examined trajectory as a fresh draw (an expert, then a rollout), while the
//     algorithm walks a reshuffled fixed log without replacement: on the log the release certifies only
//     (ε1 + ln(1/(1 − p_T)), δ1 + p_T) with p_T ≈ T/m (FixedLogDelta), a δ some 25 times δ1.
//   - The paper's DP-SGD accounting assumes Poisson sampling; here steps do sample that way.
//   - Long demonstrations make stable prefixes rare: θ̂ grows like (4/ε′)·ln(2TL/δ1), and for LunarLander
//     with L = 1000 the stable set is essentially empty.
//
// # Reference values
//
// A worked setting (ours; the paper prints none of these numbers): m = 3000, δ = 1/m, p_min = 0.02, the
// paper's budget split and T, and our choice of each domain's L (the tests reproduce these):
//
//	domain       ε1   T    L     ε′     δ′      c_min  θ     E[θ̂]  Thm 3.20  agreeing prefix
//	Acrobot      10   25   200   0.120  3.3e−8  8.85   443   1017  6.62      ≈ 26
//	CartPole     7.5  25   200   0.089  3e−8    11.7   585   1360  4.62      ≈ 39
//	LunarLander  7.5  100  1000  0.045  1.5e−9  22.9   1144  2963  4.59      ≈ 0
//	HIV          7.5  50   50    0.063  6e−8    16.3   817   1869  4.60      ≈ 8
//
// (δ1 = δ for Acrobot and 0.9·δ for the others; the agreeing prefix is the longest one whose count stays
// above E[θ̂] when all 3000 experts agree, AgreeingPrefix.)
//
// # References
//
//   - Abadi, Chu, Goodfellow, McMahan, Mironov, Talwar & Zhang (2016), Deep learning with differential
//     privacy.
//   - Dwork & Roth (2014), The algorithmic foundations of differential privacy.
//   - Fujimoto, Conti, Ghavamzadeh & Pineau (2019), Benchmarking batch deep reinforcement learning
//     algorithms.
//   - Kumar, Zhou, Tucker & Levine (2020), Conservative Q-learning for offline reinforcement learning.
//   - Sharma, Vinod, Thakurta, Agarwal, Balle, Dann & Raghuveer (2024), Preserving expert-level privacy in
//     offline reinforcement learning (TMLR).
package expertdp
