// Package actorcritic implements the differentially private off-policy actor–critic of Seo & Yang (2020):
// Off-PAC (Degris, White & Sutton 2012) with a GTD(λ) critic and eligibility traces, the paper's DP-Actor,
// DP-Critic and DP-Both variants as published, and a corrected variant whose privacy holds for the whole
// run.
//
// # Off-PAC
//
// Features are linear: the critic's value is v·x(s) for any feature map x (trajectory.Features); the actor's
// preference for action a is u·x(s, a), where x(s, a) places x(s) in the block of action a, and the target
// policy π_u is the softmax of the preferences, so ∇_u log π_u(a|s) = x(s, a) − Σ_b π_u(b|s)·x(s, b). The
// paper's experiments use one-hot states (envs.TabularFeatures). Each step, with TD error
// δ = r + γ(s′)·v·x(s′) − v·x(s) and importance ratio ρ = π_u(a|s)/b(a|s):
//
//	critic:  e_v ← ρ(x(s) + γλ·e_v)
//	         v ← v + α_v[δ·e_v − γ(s′)(1 − λ)(w·e_v)·x(s′)]
//	         w ← w + α_w[δ·e_v − (w·x(s))·x(s)]
//	actor:   e_u ← ρ(∇_u log π_u(a|s) + γλ·e_u)
//	         u ← u + α_u·δ·e_u
//
// with γ(s′) = 0 at termination (the correction term uses x(s′), as in Degris et al.). Acting is ε-greedy on
// the preferences (a uniform action with probability Explore, ρ = π_u(a|s)·|A| then, else ρ = 1) or by
// sampling π_u (Softmax).
//
// # The published variants
//
// DP-Actor (the paper's Algorithm 2) replaces the actor gradient by g/(‖g‖/|C|) + N(0, σ²C²I), DP-Critic
// (Algorithm 3) does the same to the critic's v-update, and DP-Both (Algorithm 4) to both, with |C| the
// median of the gradient's absolute entries and σ = √(2 ln(1.25/δ))/ε (the paper's eq. 3; PublishedSigma;
// its §2.1 prints √(2 ln(1.25)/δ)/ε, a typo: TypoSigma). With one-hot features most entries are zero and the
// literal median is 0, which would switch off both learning and noise; here the median is over the non-zero
// entries, our reading.
//
// Their guarantee is weaker than it looks: it is per step only, with no neighbouring relation stated and
// no composition over the run; normalising is not clipping (small gradients are enlarged); |C| depends on
// the data; the classic calibration is proven only for ε < 1 while the paper uses ε up to 10 (at δ = 1e−6,
// σ = 0.530 for ε = 10 against 0.541 from the analytic Gaussian); and the raw TD error and ratio multiply
// the trace after the noise, so the update is not post-processing of a private release. Under replace-one
// the normalised gradient's sensitivity is 2|C|, not |C|.
//
// # The corrected variant
//
// Corrected clips the whole per-step update [Δv; Δw; Δu] to a fixed public norm C, adds N(0, σ²C²) to every
// coordinate and applies it, so every learned quantity is post-processing of the released noisy increments
// and of the current episode's data. Neighbouring runs differ in one episode (one patient): only the at
// most H steps of that episode see different data, each increment has sensitivity 2C and noise σC, so the
// run is μ-GDP with μ = 2√H/σ (CorrectedEpsilon, exact ε at δ by package mechanisms, "Gaussian
// mechanism"). CorrectedNoise inverts it: σ = 2√H·σ₁ with σ₁ the analytic Gaussian σ for sensitivity 1.
//
// Declared bounds are enforced: H is Config.MaxEpisodeLen, and Run ends every episode after that many steps
// (Result.Cut), so no episode contributes more steps than the accounting assumes, and pads an episode that
// ends sooner with noise-only releases (a zero update plus the same noise), so that every episode makes
// exactly H releases (Result.Releases = Episodes·H). The padding is what makes the composition argument
// hold as run: the releases of episode k are always releases kH … (k+1)H − 1, whatever the data, so a
// neighbouring dataset changes exactly H of them; without it, a shorter or longer differing episode would
// shift every later episode's releases and change how many releases the run makes. The H − n missing
// releases of an n-step episode are drawn as one Gaussian of variance (H − n)(σC)² per coordinate: nothing
// happens between them, so their sum has that distribution and is a post-processing of them. A per-step update with a
// NaN or infinite entry (from a NaN reward, say) is set to zero before the noise is added, which keeps the
// sensitivity, and counted in Result.Dropped. Rewards need no bound: the clip bounds each update.
//
// # Cost
//
// Run touches only what a step changes: the non-zero features of the current and next state (one each with
// one-hot features), the traces' non-zero entries (all of them when γλ > 0) and the current state's action
// blocks. Noise that goes straight into a weight vector (DP-Critic's noised update, the actor's noised
// gradient when γλ = 0, every coordinate of the corrected variant and its padding) is owed to every entry and
// drawn, as one Gaussian of the summed variance, when the entry is next read or at the end of the run; a sum
// of independent Gaussians is one Gaussian, so every weight has the distribution of the step-by-step draws
// (the tests compare both), and a step costs what it reads rather than |S|·|A| draws. Noise that enters a
// trace (DP-Actor with γλ > 0, and the last step of an episode whose traces are recorded) is drawn on every
// entry. On Taxi (500 states, 6 actions, λ = 0) a 500-episode DP-Actor run takes about 0.1 s instead of 3.
//
// # Experiments
//
// Seo & Yang use MDP-100 and Taxi (package envs) with 500 episodes, γ = 0.99, δ = 1e−6, ε ∈ {0.1, 0.5, 1, 5,
// 10}, 10 runs per setting, and step sizes and λ from a grid over {0.001, 0.005, 0.01, 0.05, 0.1, 0.5} and
// {0, 0.2, …, 0.8, 0.99}; their best DP-Actor settings are α_v = 0.01, α_w = 0.5, α_u = 0.5, λ = 0.8 on
// MDP-100 and α_v = 0.05, α_w = 0.05, α_u = 0.5, λ = 0 on Taxi. RecordTraces keeps the end-of-episode traces
// for the paper's cosine-similarity comparison with the non-private run.
//
// # References
//
//   - Degris, White & Sutton (2012), Off-policy actor-critic.
//   - Dwork & Roth (2014), The algorithmic foundations of differential privacy.
//   - Dong, Roth & Su (2022), Gaussian differential privacy.
//   - Seo & Yang (2020), Differentially private actor and its eligibility trace.
package actorcritic
