package crosscheck

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/dprl-project/dprl/envs"
)

type envCase struct {
	Env     string    `json:"env"`
	Seed    int       `json:"seed"`
	State   []float64 `json:"state,omitempty"`
	Actions []int     `json:"actions"`
}

type envRef struct {
	Steps []struct {
		State      []float64 `json:"state"`
		Obs        []float64 `json:"obs"`
		Reward     float64   `json:"reward"`
		Terminated bool      `json:"terminated"`
		Truncated  bool      `json:"truncated"`
	} `json:"steps"`
	Draws    []float64 `json:"draws"`
	ResetObs []float64 `json:"reset_obs"`
}

// Tolerances on the internal state per step (absolute): the classic-control dynamics are the same float64
// arithmetic as Gymnasium's, so CartPole and MountainCar agree to 1e−12, Acrobot's RK4 step to 1e−12, Taxi
// exactly. LunarLander: dprl's Box2D computes in float64 where pybox2d uses float32, so only the first
// lunarSteps steps are compared, within lunarTol.
var envTol = map[string]float64{"cartpole": 1e-12, "mountaincar": 1e-12, "acrobot": 1e-12, "taxi": 0}

const (
	lunarSteps = 10
	lunarTol   = 1e-4
)

// TestEnvsMatchGymnasium steps dprl's CartPole, MountainCar, Acrobot and Taxi beside Gymnasium 1.4.0's on
// 20 random seeds each with random action sequences longer than the time limit: Gymnasium's state is set to
// dprl's after reset, then both take the same actions until the episode ends, dprl starting each step from
// Gymnasium's state before it (the time limit's step count is kept); states, rewards and the
// terminated/truncated flags must agree at every step within envTol (rewards exactly), and the episode
// must end at the same step.
func TestEnvsMatchGymnasium(t *testing.T) {
	py := python(t)
	r := rand.New(rand.NewPCG(3, 21))
	var cases []envCase
	for _, name := range []string{"cartpole", "mountaincar", "acrobot", "taxi"} {
		for range 20 {
			env, _ := envs.Make(name)
			seed := r.IntN(1 << 30)
			if _, err := env.Reset(rand.NewPCG(uint64(seed), 0)); err != nil {
				t.Fatal(err)
			}
			c := envCase{Env: name, Seed: seed, State: env.State()}
			// Actions from a noisy controller run on dprl's environment (random with probability ε, else
			// balance the pole, pump energy into the car or the swing), then random after its episode ends:
			// episodes end both by termination (the car reaches the flag) and by truncation (the pole stays up).
			eps := r.Float64()
			ended := false
			for range env.MaxSteps + 10 {
				a := r.IntN(env.NumActions())
				if st := env.State(); !ended && r.Float64() > eps {
					switch name {
					case "cartpole":
						a = b2i(st[2]+0.5*st[3] > 0)
					case "mountaincar":
						a = 2 * b2i(st[1] > 0)
					case "acrobot":
						a = 2 * b2i(st[2] > 0)
					}
				}
				c.Actions = append(c.Actions, a)
				if !ended {
					res, err := env.Step(a)
					if err != nil {
						t.Fatal(err)
					}
					ended = res.Terminated || res.Truncated
				}
			}
			cases = append(cases, c)
		}
	}
	var refs []envRef
	if err := Reference(py, "env", cases, &refs); err != nil {
		t.Fatal(err)
	}
	worst := map[string]float64{}
	steps := map[string]int{}
	for i, c := range cases {
		env, _ := envs.Make(c.Env)
		if err := env.SetState(c.State); err != nil {
			t.Fatal(err)
		}
		ref := refs[i].Steps
		for k, want := range ref {
			if k > 0 {
				// Step-for-step: start every step from Gymnasium's state, so that what is compared is one
				// step of the dynamics (Acrobot is chaotic: a 1e−16 difference grows to 1e−10 in 200 steps).
				if err := env.Env.SetState(ref[k-1].State); err != nil {
					t.Fatal(err)
				}
			}
			got, err := env.Step(c.Actions[k])
			if err != nil {
				t.Fatalf("%s seed %d step %d: %v", c.Env, c.Seed, k+1, err)
			}
			steps[c.Env]++
			st := env.State()
			for j := range st {
				d := math.Abs(st[j] - want.State[j])
				worst[c.Env] = math.Max(worst[c.Env], d)
				if !(d <= envTol[c.Env]) {
					t.Fatalf("%s seed %d step %d: state[%d] = %.17g, Gymnasium %.17g", c.Env, c.Seed, k+1, j, st[j], want.State[j])
				}
			}
			if got.Reward != want.Reward || got.Terminated != want.Terminated || got.Truncated != want.Truncated {
				t.Fatalf("%s seed %d step %d: reward, terminated, truncated = %v %v %v; Gymnasium %v %v %v", c.Env, c.Seed, k+1,
					got.Reward, got.Terminated, got.Truncated, want.Reward, want.Terminated, want.Truncated)
			}
		}
		if last := ref[len(ref)-1]; !last.Terminated && !last.Truncated {
			t.Fatalf("%s seed %d: Gymnasium's episode did not end within %d actions", c.Env, c.Seed, len(c.Actions))
		}
	}
	t.Logf("%d episodes, steps compared %v, largest state differences %v", len(cases), steps, worst)
}

// TestLunarLanderMatchesGymnasium replays 20 Gymnasium LunarLander-v3 episodes on random seeds and random
// actions: the uniform draws Gymnasium made (terrain, initial push, dispersion) are injected into dprl's
// lander, and the observation after reset and after each of the first lunarSteps steps must agree within
// lunarTol, the flags exactly; every draw dprl asks for must be the next one Gymnasium made.
func TestLunarLanderMatchesGymnasium(t *testing.T) {
	py := python(t)
	r := rand.New(rand.NewPCG(4, 21))
	var cases []envCase
	for range 20 {
		c := envCase{Env: "lunarlander", Seed: r.IntN(1 << 30)}
		for range lunarSteps {
			c.Actions = append(c.Actions, r.IntN(4))
		}
		cases = append(cases, c)
	}
	var refs []envRef
	if err := Reference(py, "env", cases, &refs); err != nil {
		t.Fatal(err)
	}
	worst := 0.0
	for i, c := range cases {
		ref := refs[i]
		env := envs.NewLunarLander(envs.LunarLanderParams{})
		next := 0
		env.Draws = func(lo, hi float64) float64 {
			if next >= len(ref.Draws) {
				t.Fatalf("seed %d: draw %d requested, Gymnasium made %d", c.Seed, next, len(ref.Draws))
			}
			v := ref.Draws[next]
			next++
			if v < lo || v > hi {
				t.Fatalf("seed %d: draw %d = %g outside [%g, %g]: draws out of order", c.Seed, next, v, lo, hi)
			}
			return v
		}
		compare := func(k int, got, want []float64) {
			for j := range want {
				d := math.Abs(got[j] - want[j])
				worst = math.Max(worst, d)
				if !(d <= lunarTol) {
					t.Errorf("seed %d step %d: obs[%d] = %.9g, Gymnasium %.9g", c.Seed, k, j, got[j], want[j])
				}
			}
		}
		obs, err := env.Reset(rand.NewPCG(0, 0))
		if err != nil {
			t.Fatal(err)
		}
		compare(0, obs, ref.ResetObs)
		for k, want := range ref.Steps {
			got, err := env.Step(c.Actions[k])
			if err != nil {
				t.Fatal(err)
			}
			compare(k+1, got.Obs, want.Obs)
			if got.Terminated != want.Terminated || got.Truncated != want.Truncated {
				t.Errorf("seed %d step %d: flags %v %v, Gymnasium %v %v", c.Seed, k+1, got.Terminated, got.Truncated, want.Terminated, want.Truncated)
			}
		}
		if next != len(ref.Draws) {
			t.Errorf("seed %d: dprl used %d draws, Gymnasium made %d", c.Seed, next, len(ref.Draws))
		}
	}
	t.Logf("%d episodes × %d steps; largest observation difference %.3g", len(cases), lunarSteps, worst)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
