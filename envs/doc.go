// Package envs provides the environments that the five papers of dprl run on, behind one Gymnasium-style
// contract, together with a conformance checker, feature maps, policies that report their action
// probabilities, Collect, which records trajectories (package trajectory) under a policy, and exact solutions
// of the tabular models.
//
// # The contract
//
// An Env is episodic with a finite action set. Reset(src) starts an episode and draws the start state and
// all later randomness from src, so the same seed and the same actions give the same trajectory. Step(a)
// returns the new observation, the reward and two flags kept apart as in Gymnasium: Terminated (the MDP
// reached a terminal state, whose value is 0) and Truncated (a time limit cut the episode; the state still
// has a value). Stepping before Reset or after the end is ErrEpisodeOver; an action out of range is an
// *ActionError. State and SetState expose the full internal state for replaying reference trajectories.
// TimeLimit truncates after MaxSteps steps, like Gymnasium's wrapper, and Make(name) returns a registered
// environment inside its default limit. CheckEnv runs the conformance checks (determinism under a seed,
// observations inside ObservationSpace, finite rewards, errors after the end and for bad actions,
// State/SetState round trips).
//
// # Environments
//
// Registry names, default time limits and constants (zero fields of each Params take the defaults):
//   - "chain" (200 steps): Balle, Gomrokchi & Precup's chain of N = 40 states; action 0 stays, action 1
//     advances; reward 1 on reaching the absorbing last state, 0 otherwise; uniform start over the 39
//     other states. Their evaluated policy stays or advances with probability ½ (p = 0.5), and γ = 0.99.
//     Xie, Thomas & Miklau reuse it.
//   - "mdp100" (1000 steps): Seo & Yang's treatment chain of 100 states; "move right" advances with
//     probability 0.9, "stay" stays; reward −1 per step and +1 on reaching the absorbing state. The paper
//     leaves the start and the cap open: we start in state 0 and cap at 1000 steps.
//   - "mountaincar" (200): MountainCar-v0 (Sutton & Barto): x ∈ [−1.2, 0.6], v ∈ [−0.07, 0.07],
//     v ← clip(v + 0.001(a − 1) − 0.0025·cos(3x)), x ← clip(x + v), v = 0 at the left wall, reward −1 per
//     step, terminated at x ≥ 0.5 (with v ≥ 0), start x ~ U[−0.6, −0.4], v = 0. MountainCarFourier(5) gives the 36
//     Fourier features Xie et al. use.
//   - "cartpole" (500): CartPole-v1 with explicit Euler, reward 1 on every step; Sharma et al. vary gravity,
//     force and cart mass between experts (CartPoleParams).
//   - "acrobot" (500): Acrobot-v1, "book" dynamics, one RK4 step of 0.2 s per action, reward −1 per step
//     and 0 on the terminating one; Sharma et al. vary link length and masses (AcrobotParams).
//   - "taxi" (200): Taxi-v3, 500 states, 6 actions, −1 per step, +20 for a correct drop-off, −10 for an
//     illegal pick-up or drop-off (Seo & Yang's second domain).
//   - "hiv" (200): the HIV treatment simulator of Ernst, Stan, Gonçalves & Wehenkel (2006) in the RLPy
//     form: state (T1, T2, T1*, T2*, V, E), actions (ε1, ε2) ∈ {0, 0.7} × {0, 0.3} held for DaysPerStep = 5
//     days, reward −0.1·V − 2·10⁴·ε1² − 2·10³·ε2² + 10³·E (divided by 10⁸ when Scaled), observation
//     log10 of the state, start at the unhealthy steady state HIVStart; integrated by Dormand–Prince 5(4)
//     with tolerances 1e−10 relative and 1e−12 absolute. Sharma et al. use 20 days per step and 50 steps,
//     and vary the two drug penalties.
//   - "lunarlander" (1000): LunarLander-v3 with discrete actions on a Go port of Box2D; Sharma et al. vary
//     gravity, wind and turbulence (LunarLanderParams).
//   - "wanghegde" (50): Wang & Hegde's one-dimensional MDP: s ∈ [0, 1], s₀ ~ U[0, 1]; action 0 moves right
//     and action 1 left by U(0, 0.25), clipped to [0, 1]; reward 0.5 − |s′ − 0.5| on the new state. Their
//     code ends episodes after 50 steps and treats that as terminal.
//
// # Agreement with the references
//
// Every environment is replayed against trajectories recorded from Gymnasium, scipy and pybox2d
// (testdata/vectors) and, in package crosscheck, against Gymnasium live. Bit-exactness is not possible (Go's
// math.Sin and math.Cos differ from C's in the last bit for a good share of arguments), so the tests use
// tolerances: 1e−12 per step over 50 steps for CartPole and MountainCar, 1e−10 for Acrobot, exact for
// Taxi, 1e−5 relative for HIV. LunarLander's Box2D computes in float64 where pybox2d uses float32, so the
// two agree to about 1e−6 after 1–3 steps and 1e−3 after 25 and then drift apart: the replay compares the
// first 10 steps within 1e−4 with the recorded random draws injected, and later behaviour statistically.
//
// # Features and policies
//
// Feature maps (trajectory.Features) turn an observation into a vector: TabularFeatures (one-hot) and
// Fourier, the Fourier basis of Konidaris, Osentoski & Thomas (2011), φ_c(s) = cos(π c·s̄) over
// c ∈ {0, …, n}^d on the observation scaled to [0, 1]^d ((n + 1)^d features, at most MaxFourierFeatures).
// Policies (trajectory.Policy) report π(·|s), which importance ratios π(a|s)/b(a|s) and expert counts need:
// TablePolicy, Uniform, Greedy (ε-greedy on action values), Softmax, and MixMin, which gives the greedy
// action 1 − (|A| − 1)·p_min and every other action p_min
// (Sharma et al.'s mixing of expert policies).
//
// # Collecting data
//
// Collect records episodes of an environment under a policy as trajectory.Trajectory values: every step's
// observation, action, reward, next observation, flags and the behaviour probability of the action taken.
// The data format, its files and its checks live in package trajectory, which does not import envs.
//
// # Exact solutions
//
// A Model is a tabular MDP. PolicyValue solves V_π = (I − γP_π)⁻¹ r_π; StateDistribution gives the expected
// (discounted) visits before termination, normalised, which GTD's exact moments use.
//
// # Parameters and errors
//
// Bad arguments are *param.Error values naming this package, the parameter, the value and the allowed
// range. Invalid environment constants do not fail the constructor: every Reset returns the error, naming
// the field.
//
// # References
//
//   - Balle, Gomrokchi & Precup (2016), Differentially private policy evaluation.
//   - Barto, Sutton & Anderson (1983), Neuronlike adaptive elements that can solve difficult learning
//     control problems.
//   - Brockman et al. (2016), OpenAI Gym; Towers et al. (2024), Gymnasium: a standard interface for
//     reinforcement learning environments.
//   - Ernst, Stan, Gonçalves & Wehenkel (2006), Clinical data based optimal STI strategies for HIV: a
//     reinforcement learning approach.
//   - Konidaris, Osentoski & Thomas (2011), Value function approximation in reinforcement learning using
//     the Fourier basis.
//   - Seo & Yang (2020), Differentially private actor and its eligibility trace.
//   - Sharma, Vinod, Thakurta, Agarwal, Balle, Dann & Raghuveer (2024), Preserving expert-level privacy in
//     offline reinforcement learning (TMLR).
//   - Sutton (1996), Generalization in reinforcement learning: successful examples using sparse coarse
//     coding; Sutton & Barto (2018), Reinforcement learning: an introduction.
//   - Wang & Hegde (2019), Privacy-preserving Q-learning with functional noise in continuous spaces.
//   - Xie, Thomas & Miklau (2019), Privacy preserving off-policy evaluation.
package envs
