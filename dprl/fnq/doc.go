// Package fnq implements the differentially private Q-learning of Wang & Hegde (2019), which adds
// functional noise (a Gaussian-process sample path per action) to a deep Q-network, with the privacy
// calibration of their Theorem 5 beside the exact GDP alternative, and the baselines of their Fig. 2.
//
// # Neighbouring relation and release
//
// The private input is the reward function: r ~ r′ when sup_{s,a} |r(s, a) − r′(s, a)| ≤ 1. States,
// actions and transitions are public. States lie in [0, 1]. What is released is the noised value function
// Q̃_a(s) = Q_θ(s, a) + g_a(s), where g_a is an Ornstein–Uhlenbeck path with kernel σ²·exp(−β|x − y|) per
// action (mechanisms.OUPath; package mechanisms, "Functional noise"), so any number of queries, repeated or
// not, are answered consistently (Released.Value).
//
// # Theorem 5
//
// For T samples in batches of B (T′ = T/B SGD steps), learning rate α, a network that is L-Lipschitz and a
// tail level k (Calibration, Constants):
//   - one step moves Q by at most v·L in sup-norm between r and r′, with v = 4α(k + 1)/B, on the event that
//     the paths stay within ±k;
//   - with the kernel rate β = 1/v, Lemma 6 (package mechanisms, OURKHSNormSqBound) bounds the squared
//     RKHS sensitivity by C = (v² + v)·L²;
//   - σ = √(2T′·ln(e + ε/δ)·C)/ε makes the run (ε, δ + J·exp(−(2k − 8.68√β·σ)²/2))-DP, provided the margin
//     2k − 8.68√β·σ is positive, J being the number of independent paths over the run.
//
// Constants.Covered reports whether that precondition holds at Theorem 5's σ; when it does not, the theorem
// certifies nothing, and TailPaper and TailConservative are 1 as placeholders. Calibration.TailAt gives the
// margin, the precondition and both tail terms at any σ (the exact GDP σ, say).
//
// Each step's release is a Gaussian mechanism in the RKHS with μ = √C/σ, so T′ steps are exactly
// √(T′C)/σ-GDP: SigmaGDP is the smallest σ that meets (ε, δ) that way, and EpsilonGDP the exact ε of
// Theorem 5's σ, about 30% below its target. EpsilonKOV is the ε of the proof's own conversion,
// ε = T′C/(2σ²) + √(2T′Cw/σ²) with w = ln(e + √(T′C/σ²)/δ).
//
// # Corrections
//
// Three points of the paper's analysis are repaired or flagged here:
//   - Several actions. All m output functions change at every step and m paths are added, so the joint
//     sensitivity is up to √m times one action's; MActionCorrection multiplies σ by √m.
//   - The tail. Lemma 8's tail should carry σ in the exponent (Borell–TIS) and needs both the maximum and
//     the minimum of every path: TailConservative = 2mJ·exp(−(k − 8.68√β·σ)²/(2σ²)), which requires
//     k > 8.68√β·σ. At ε = 0.9, δ = 1e−4, T′ = 100, B = 128, α = 7e−5, L = 1, m = 2, J = 1 it is 3e−7 at
//     k = 420 and 3e−18 at k = 425, and says nothing at k = 210 (a worked setting of ours).
//   - Path reuse. Composition over steps assumes fresh noise each step (J = T′); with J < T′ a path is
//     reused across steps, which the proof does not cover.
//
// The Lipschitz bound L is assumed by Theorem 5 but not enforced by the paper's algorithm; RunSpecified
// enforces it, scaling the weights back whenever a step leaves it (nn's ProjectLipschitz;
// SpecifiedResult.Projected).
//
// # Algorithm 1
//
// SpecifiedConfig runs Algorithm 1 as written, with its typographical fixes (the sample index is t = jB + b,
// the SGD step descends, and the released function includes the noise): T′ plain SGD steps, each on the B
// samples just collected, acting greedily on Q + g, no replay memory or target network, one path per action
// with β = 1/v, reset every T′/J steps, σ from Theorem 5 (or SigmaGDP).
//
// RunSpecified says what a run certifies (SpecifiedResult): EpsilonExact is the exact ε at δ of the T′
// releases as μ-GDP with all m outputs moving, μ = √(m·T′·C₁)/σ; Guaranteed holds when the precondition holds
// at the σ used, δ plus the corrected tail stays below 1 and EpsilonExact ≤ ε. A configuration without a
// guarantee is refused with a *param.Error naming K (precondition or tail) or Epsilon (the m-action
// sensitivity) unless NoGuarantee is set, and then the result says Guaranteed = false. At L = 2 and the
// worked settings' k (ours: 210, 420) the precondition fails (2k − 8.68√β·σ = −94 at ε = 0.9, −148 at
// ε = 0.45). Noiseless runs the same algorithm without paths, the non-private reference.
//
// # The released code
//
// Config reproduces the authors' released DQN, which departs from Algorithm 1: an MLP 1 → 16 → 16 → m with
// ReLU, RMSprop (learning rate 0.01), a replay memory of 10,000 with a batch of 128 sampled at every
// environment step, γ = 0.999, ε-greedy exploration decaying from 0.9 to 0.05 with time constant 200 steps,
// a target network copied every 10 episodes, the Huber loss with gradient entries clamped to [−1, 1], and
// 100 episodes of 50 steps. Functional noise uses β = 1 and fresh paths every episode, added to both the
// policy and the target network (each with its own paths); the code's σ grid is 0, 0.2, …, 1.0.
//
// # Baselines
//
// The baselines of Fig. 2 (Method, BGPConfig):
//   - InputPerturbation (Venkitasubramaniam 2013): every observed reward gets N(0, σ_r²). T rewards of
//     sensitivity 1 are √T/σ_r-GDP, and everything after is post-processing; InputPerturbationSigma
//     calibrates σ_r (T = 5000, δ = 1e−4: σ_r ≈ 247 at ε = 0.9 and 458 at ε = 0.45, noise that swamps
//     rewards in [0, 0.5]).
//   - DPSGD (Abadi et al. 2016): per-example clipping to C_g. Every reward in a batch may differ between r
//     and r′, so the clipped sum has sensitivity 2B·C_g and sampling gives no amplification; each step is
//     1/z-GDP and the run √steps/z-GDP (DPSGDNoiseMultiplier).
//   - BGP16: DP-LSL of Balle et al. on first-visit returns of a discretised state interval, re-estimated
//     every few episodes, acting ε-greedily. Its privacy is about trajectories, not reward functions, and
//     its releases are not composed: a utility reference only, not private in this package's model.
//     First-visit returns are clipped to [0, ReturnBound].
//
// Private methods always add noise: Run refuses FunctionalNoise with Sigma ≤ 0, InputPerturbation with
// RewardSigma ≤ 0 and DPSGD with Z ≤ 0; the noiseless DQN is Method NonPrivate. DP-SGD drops per-example
// gradients with a NaN or infinite entry (Result.Dropped), which keeps the sensitivity. A run whose network
// ends with a parameter that is not finite says so (Result.Diverged); its returns, sums of the environment's
// rewards, stay finite.
//
// The DQN reads each replayed state's path values through a cache per replay entry, emptied when the paths
// are reset or the entry is overwritten: a path returns the stored value for a point it has seen, so the
// cache changes nothing but the time a functional-noise run takes.
//
// # Reference values
//
// At worked settings of ours (the paper states no α, B or k), δ = 1e−4 and T = 5000, L = 1 (the tests
// reproduce these):
//
//	ε     B    α      k    v        C        σ (Thm 5)  margin  ε exact (GDP)  ε (KOV)
//	0.9   50   0.01   230  0.185    0.219    22.2       12      0.639          0.848
//	0.9   128  7e−5   210  4.6e−4   4.6e−4   0.637      163     0.639          0.848
//	0.45  128  3e−5   420  3.9e−4   3.9e−4   1.13       345     0.306          0.417
//
// With J = 100 the first row's paper tail is about 4e−30.
//
// # References
//
//   - Abadi, Chu, Goodfellow, McMahan, Mironov, Talwar & Zhang (2016), Deep learning with differential
//     privacy.
//   - Balle, Gomrokchi & Precup (2016), Differentially private policy evaluation.
//   - Hall, Rinaldo & Wasserman (2013), Differential privacy for functions and functional data.
//   - Kairouz, Oh & Viswanath (2015), The composition theorem for differential privacy.
//   - Mnih et al. (2015), Human-level control through deep reinforcement learning.
//   - Venkitasubramaniam (2013), Privacy in stochastic control: a Markov decision process perspective.
//   - Wang & Hegde (2019), Privacy-preserving Q-learning with functional noise in continuous spaces.
package fnq
