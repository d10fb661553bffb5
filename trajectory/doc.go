// Package trajectory is the project's trajectory data: episodes of (observation, action, reward, next
// observation, flags, behaviour probability) steps, the datasets that batch them, and their strict CSV and
// JSON file formats. It is what an estimator reads and depends on nothing but the standard library and
// dprl/param, so code that evaluates a policy from a file compiles no simulator (package envs, which
// records datasets with envs.Collect, imports this one, not the other way round).
//
// # Datasets
//
// A Dataset holds Trajectories of Steps over observations of dimension ObsDim and NumActions actions. A
// Trajectory is one episode: in every paper here the data of one individual, the unit of privacy, tagged
// with the expert (policy) that produced it. A Step's Terminated and Truncated are kept apart as in
// Gymnasium (the MDP ended, or a time limit cut the episode), and Prob is the behaviour policy's
// probability of the action taken (0 when unknown). FirstVisitReturns computes Balle et al.'s first-visit
// statistics: for each state the number n_s of trajectories that visit it and the average of the
// discounted returns from the first visit.
//
// # Files
//
// WriteCSV/ReadCSV and WriteJSON/ReadJSON store a dataset. The CSV has one row per step with the columns
// trajectory, expert, t, obs_0 … obs_{d−1}, action, reward, next_obs_0 … next_obs_{d−1}, terminated,
// truncated, prob; the JSON mirrors the struct fields (obs_dim, num_actions, trajectories, steps, …). The
// readers check every field (integers where integers belong, finite numbers, actions in range,
// probabilities in [0, 1], flags only on a trajectory's last step, Σ|reward| ≤ MaxRewardMass so no
// estimator overflows) and report a *DataError naming the line, column or JSON path, the value and what is
// allowed; Validate applies the same checks to a dataset built in memory. Written files read back exactly
// (numbers as shortest round-trip decimals).
//
// Both readers are streams, linear in time. ReadJSON follows the format's structure as it reads (its depth
// is JSONMaxDepth), so a value of the wrong kind — deeper nesting, a string for a number, an observation
// longer than obs_dim — is refused where it starts, without reading or storing what follows; a line and
// column are computed only for an error. It allocates at most 4× its input (plus its 64 KiB window), the
// dataset included: a dataset of one-character numbers is itself 4× its text (an 8-byte float64 per "0,").
//
// # Policies and features
//
// Policy (action probabilities π(·|s), for behaviour probabilities and importance ratios π(a|s)/b(a|s))
// and Features (an observation's feature vector) are the two maps estimators apply to a trajectory; package
// envs implements them.
//
// # References
//
//   - Balle, Gomrokchi & Precup (2016), Differentially private policy evaluation.
package trajectory
