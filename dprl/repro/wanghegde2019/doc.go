// Package wanghegde2019 reproduces Wang & Hegde's private Q-learning with functional noise (notebook
// 04-wang2019): the calibration of their Theorem 5 for the settings it is worked out at (CalibrationTable),
// the learning curves of Fig. 1 in the configuration of the authors' released code (Fig1), the comparison
// with the baselines of Fig. 2 (Fig2), and two analyses the paper leaves open: σ against the number of
// samples up to 10⁶ (SigmaVsSamples) and against ε and δ (EpsilonDeltaSweeps). The algorithms
// themselves, with their accounting, live in the library: dprl/fnq (calibration, agents, baselines),
// dprl/nn (the network) and mechanisms.OUPath (the noise).
//
// # What is private
//
// The reward function is the secret; states, actions and transitions are public. Two inputs are neighbours
// when their reward functions differ by at most 1 in sup norm, ‖r − r′‖∞ ≤ 1. The learner releases a whole
// value function that anyone may query at any number of states, so the noise is a function too: for each
// action a, one sample path g_a of the Ornstein–Uhlenbeck process (a Gaussian process with kernel
// σ²·exp(−β|x − y|)) is added, and the release is Q̃_a = Q_θ(·, a) + g_a. The path is drawn lazily, only where
// it is queried, from its exact conditional law given the stored neighbouring points, and stored, so a
// repeated query returns the same value and the number of queries never enters the accounting.
//
// # Theorem 5 as implemented (fnq.Calibration)
//
// With T samples taken in batches of B (T′ = T/B SGD steps of size α), a network that is L-Lipschitz and a
// tail level k, one step changes Q by at most v·L in sup norm with v = 4α(k + 1)/B. With the kernel rate
// β = 1/v the squared RKHS sensitivity of a step is C = (v² + v)L², and the theorem sets
//
//	σ = √(2T′·ln(e + ε/δ)·C) / ε
//
// for an (ε, δ + tail) guarantee, where the tail bounds the chance that a path leaves [−k, k]; it needs the
// margin 2k − 8.68·√β·σ to be positive. Beside the theorem's σ the package shows the exact σ from composing
// the T′ Gaussian releases as μ-GDP (μ = √(T′C)/σ), the ε that the theorem's σ actually certifies (exactly, and
// by the KOV formula its proof uses), and σ with the m-action correction (×√m, since all m output functions
// move at every step and m paths are added).
//
// The worked settings (WorkedSettings) share δ = 1e−4, T = 5000 samples (100 episodes of 50 steps) and m = 2
// actions: (ε, B, α, k) = (0.9, 50, 0.01, 230), (0.9, 128, 7e−5, 210) and (0.45, 128, 3e−5, 420), which give
// σ ≈ 22.2, 0.637 and 1.13 with L = 1.
//
// # Published versus corrected
//
//   - Conservative σ: the theorem's σ at ε = 0.9 certifies ε ≈ 0.64 under exact accounting.
//   - Tail: the printed tail term, J·exp(−margin²/2) for J independent paths, drops σ from the exponent and
//     counts one sign and one action. The corrected term, 2mJ·exp(−(k − 8.68√β·σ)²/(2σ²)), is vacuous (1) at
//     the worked k for the two B = 128 settings; k must roughly double.
//   - Actions: Theorem 5 uses one action's sensitivity; the m-action correction multiplies σ by √m.
//   - Lipschitz bound: the theorem assumes L but nothing enforces it, and the network's spectral-norm product
//     bound is already 1.42 at initialisation and grows to tens with training (LipschitzTable). Algorithm 1
//     as run here (fnq.RunSpecified) uses L = 2 and projects the weights back whenever a step leaves it.
//   - Algorithm 1 at L = 2 with the published calibration (Theorem 5's σ at the paper's k = 210 / 420) is
//     outside the theorem: its precondition fails, 2k − 8.68√β·σ = −94 at ε = 0.9 and −148 at ε = 0.45.
//     fnq.RunSpecified refuses it unless told to run without a guarantee; Fig. 2 runs it under the label
//     "no privacy guarantee" beside the corrected calibration (Corrected): the m-action sensitivity, σ the
//     exact GDP σ of the T′ releases at (1 − TailShare)·δ, and k the smallest integer at which the
//     precondition holds and the corrected tail is at most TailShare·δ (TailShare = 1%). That gives k = 551,
//     σ = 2.15 at ε = 0.9 and k = 1016, σ = 3.54 at ε = 0.45, (ε, δ)-DP exactly.
//   - Configuration: the experiments run the authors' code, not Algorithm 1: DQN with a 10 000-transition
//     replay memory, a minibatch of 128 at every step, RMSprop with step 0.01, γ = 0.999, ε-greedy exploration
//     from 0.9 to 0.05 (decay 200 steps), a target network copied every 10 episodes, Huber loss, gradients
//     clamped to ±1, β = 1 and noise on both the policy and the target network's outputs with paths reset
//     every episode. These are fnq.Config's defaults; CodeAgent runs them. Theorem 5 does not cover this
//     configuration (about 4900 replayed minibatch steps instead of T′ = 39 fresh-batch steps, β = 1 instead
//     of 1/v, no Lipschitz bound), so it has no privacy guarantee and its curves are labelled so; Fig. 2 also
//     runs Algorithm 1 as specified.
//
// # Baselines of Fig. 2 (Fig2Settings)
//
// Input perturbation adds N(0, σ_r²) to each of the 50·episodes rewards a run sees (5000 at the default
// size), calibrated as √T/σ_r-GDP for exactly that T. DP-SGD clips each example's gradient to 1 and adds
// noise for a sum sensitivity of 2·128 (every reward may differ, so there is no amplification by
// subsampling), with z calibrated for the 50·episodes − 127 update steps as exact μ-GDP; the runs check that
// they released exactly the rewards and steps accounted for. BGP16 (Balle et al.'s DP-LSL on 20 state bins ×
// 2 actions, re-estimated every 10 episodes at (ε, δ) per release, returns bounded by 25) is private for
// neighbouring trajectories, not reward functions, and its releases are not composed: a utility reference
// only, labelled "no privacy guarantee". The references on every learning-curve figure are the non-private
// version of the algorithm (the non-private DQN; Algorithm 1 without noise) and the random policy (about 10.9).
//
// # What every run certifies (Privacy, PrivacyTable)
//
// Every Setting carries its Privacy, worked out before the run: a guarantee with ε from the exact accountant
// at δ (μ-GDP for input perturbation, DP-SGD and the corrected Algorithm 1, whose δ adds the corrected tail),
// ε = 0 for the random policy, "non-private" for the references and "no privacy guarantee" for the rest.
// Legends and the privacy table beside each figure print it, no figure or claim compares private methods at
// different ε, and the Algorithm 1 runs check the label against fnq.RunSpecified's own Guaranteed and
// EpsilonExact. The package test TestTruePrivacy recomputes, with the Gaussian privacy profile written out,
// the ε of every configuration the notebook runs (default size and quick mode) against the printed table.
//
// # Sizes, seeds and verdicts
//
// Protocol sets the seeds and episodes (DefaultProtocol: the paper's 10 seeds of 100 episodes; quick mode 2
// of 40). Every learning curve uses seed Seed = 2019: seed s of every setting draws from rand.NewPCG(2019, s),
// so settings are paired by seed. Fig1 reads the paper's full size from the merged sweeps SweepFig1a and SweepFig1b
// (sweeps/specs, experiment wanghegde2019/returns, whose seed s is seed s here; see sweeps/README.md) when
// both are there, and then runs nothing: its curves, table and claims come from their rows (CurvesFromSweep),
// with as many seeds as the sweeps ran. Otherwise it runs the default size and says how to get the full one. Figures show the mean with a 95% Student-t band. Every claim is decided by
// repro.Tested from the 95% t interval of a per-seed quantity (a paired difference of last-fifth mean
// returns) against a boundary stated in the claim's why before the run; "similar" claims need the interval
// inside (−2, 2). Theorem 5's σ at the worked settings is a deterministic computation and is stated beside
// the calibration table rather than in the claims.
//
// # Reference
//
// Baoxiang Wang and Nidhi Hegde. Privacy-preserving Q-learning with functional noise in continuous spaces.
// Advances in Neural Information Processing Systems 32 (NeurIPS 2019); arXiv:1901.10634.
package wanghegde2019
