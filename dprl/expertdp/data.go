package expertdp

import (
	"math"
	"math/rand/v2"

	"github.com/dprl-project/dprl/dprl/experiment"
	"github.com/dprl-project/dprl/envs"
	"github.com/dprl-project/dprl/trajectory"
)

// Traj is one demonstration: states s_1 … s_{n+1}, actions a_1 … a_n and rewards, from one expert.
type Traj struct {
	Expert     int
	Obs        []float64 // (n+1) × ObsDim, row-major
	Actions    []int
	Rewards    []float64
	Terminated bool // the last step ended the episode (false: truncated at the length cap)
}

// Len is the number of actions n.
func (t *Traj) Len() int { return len(t.Actions) }

// Return is the undiscounted return.
func (t *Traj) Return() float64 {
	s := 0.0
	for _, r := range t.Rewards {
		s += r
	}
	return s
}

// Data is the demonstration log D^Π of m experts, stored compactly (one slice per field and trajectory).
type Data struct {
	ObsDim, NumActions, Experts int
	Trajs                       []Traj
}

// Transitions is the total number of transitions.
func (d *Data) Transitions() int {
	n := 0
	for i := range d.Trajs {
		n += d.Trajs[i].Len()
	}
	return n
}

// MaxLen is the longest trajectory of the log, max |τ|. It depends on the data, so it is for display only:
// DataRelease's bound L is public (ReleaseParams.L, Domain.DemoLen).
func (d *Data) MaxLen() int {
	l := 0
	for i := range d.Trajs {
		l = max(l, d.Trajs[i].Len())
	}
	return l
}

// ExpertReturns is each expert's mean return over its trajectories (the paper's Fig. 2 histogram).
func (d *Data) ExpertReturns() []float64 {
	sum := make([]float64, d.Experts)
	n := make([]float64, d.Experts)
	for i := range d.Trajs {
		sum[d.Trajs[i].Expert] += d.Trajs[i].Return()
		n[d.Trajs[i].Expert]++
	}
	for i := range sum {
		sum[i] /= math.Max(n[i], 1)
	}
	return sum
}

// DataConfig says how the log is generated: each expert, p_min-mixed, runs PerExpert episodes on the
// domain's default environment, truncated at the domain's demonstration length.
type DataConfig struct {
	PerExpert int
	PMin      float64
	Workers   int
	Seed      uint64
	Progress  experiment.Progress // one unit per expert
}

// GenerateData rolls out every expert. Expert i's episodes draw from the stream (Seed, i), so the log is
// the same whatever the number of workers, and a subset of experts gets the same trajectories.
func GenerateData(e *Experts, cfg DataConfig) (*Data, error) {
	d := e.Domain
	if err := check.AtLeast("PerExpert", cfg.PerExpert, 1); err != nil {
		return nil, err
	}
	if err := checkPMin(cfg.PMin, d.NumActions); err != nil {
		return nil, err
	}
	per, err := experiment.Trials(e.Len(), cfg.Workers, cfg.Seed, cfg.Progress, func(i int, src rand.Source) ([]Traj, error) {
		env := d.Env(d.Default, d.DemoLen)
		return rollouts(env, e.MixedPolicy(i, cfg.PMin), cfg.PerExpert, rand.New(src), i)
	})
	if err != nil {
		return nil, err
	}
	out := &Data{ObsDim: d.ObsDim, NumActions: d.NumActions, Experts: e.Len()}
	for _, ts := range per {
		out.Trajs = append(out.Trajs, ts...)
	}
	return out, nil
}

func checkPMin(p float64, actions int) error {
	if !(p >= 0 && p <= 1/float64(actions)) {
		return check.Errorf("PMin", p, "[0, 1/|A|] = [0, %.4g]", 1/float64(actions))
	}
	return nil
}

func rollouts(env envs.Env, pol trajectory.Policy, n int, rng *rand.Rand, expert int) ([]Traj, error) {
	probs := make([]float64, env.NumActions())
	out := make([]Traj, n)
	for k := range out {
		obs, err := env.Reset(rand.NewPCG(rng.Uint64(), rng.Uint64()))
		if err != nil {
			return nil, err
		}
		t := Traj{Expert: expert, Obs: append([]float64(nil), obs...)}
		for {
			a := envs.Act(pol, obs, rng, probs)
			r, err := env.Step(a)
			if err != nil {
				return nil, err
			}
			t.Actions = append(t.Actions, a)
			t.Rewards = append(t.Rewards, r.Reward)
			t.Obs = append(t.Obs, r.Obs...)
			obs = r.Obs
			if r.Terminated || r.Truncated {
				t.Terminated = r.Terminated
				break
			}
		}
		out[k] = t
	}
	return out, nil
}

// Subset is the log of the first m experts (the paper's Fig. 4 varies m this way).
func (d *Data) Subset(m int) (*Data, error) {
	if err := check.Int("m", m, 1, d.Experts); err != nil {
		return nil, err
	}
	out := &Data{ObsDim: d.ObsDim, NumActions: d.NumActions, Experts: m}
	for _, t := range d.Trajs {
		if t.Expert < m {
			out.Trajs = append(out.Trajs, t)
		}
	}
	return out, nil
}
