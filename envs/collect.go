package envs

import (
	"math/rand/v2"
	"slices"

	"github.com/dprl-project/dprl/trajectory"
)

// Collect runs n episodes of env under policy pol (randomness from src: episode i resets env with a
// stream derived from it, and actions are drawn from another), recording each step with its behaviour
// probability. The trajectories are tagged with expert.
func Collect(env Env, pol trajectory.Policy, n int, src rand.Source, expert int) ([]trajectory.Trajectory, error) {
	switch {
	case env == nil:
		return nil, check.Missing("env", "an environment to collect from")
	case pol == nil:
		return nil, check.Missing("pol", "a policy to act with")
	case src == nil:
		return nil, check.Missing("src", "a rand.Source")
	}
	if na := env.NumActions(); pol.NumActions() != na {
		return nil, check.Errorf("pol.NumActions()", float64(pol.NumActions()), "[%d, %d] (the actions of %s)", na, na, env.Name())
	}
	if err := check.AtLeast("n", n, 0); err != nil {
		return nil, err
	}
	rng := rand.New(src)
	probs := make([]float64, env.NumActions())
	out := make([]trajectory.Trajectory, 0, n)
	for range n {
		o, err := env.Reset(rand.NewPCG(rng.Uint64(), rng.Uint64()))
		if err != nil {
			return nil, err
		}
		obs := slices.Clone(o)
		tr := trajectory.Trajectory{Expert: expert}
		for {
			a := Act(pol, obs, rng, probs) // fills probs with π(·|obs)
			r, err := env.Step(a)
			if err != nil {
				return nil, err
			}
			next := slices.Clone(r.Obs)
			tr.Steps = append(tr.Steps, trajectory.Step{Obs: obs, Action: a, Reward: r.Reward, NextObs: next,
				Terminated: r.Terminated, Truncated: r.Truncated, Prob: probs[a]})
			obs = next
			if r.Terminated || r.Truncated {
				break
			}
		}
		out = append(out, tr)
	}
	return out, nil
}
