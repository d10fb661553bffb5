package envs

import (
	"github.com/dprl-project/dprl/dprl/param"

	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
)

const check param.Checker = "envs"

// Box is a product of closed intervals [Low[i], High[i]] (±Inf allowed).
type Box struct {
	Low, High []float64
}

// Contains reports whether x has the box's dimension and lies inside it (NaN never does).
func (b Box) Contains(x []float64) bool {
	if len(x) != len(b.Low) {
		return false
	}
	for i, v := range x {
		if !(v >= b.Low[i] && v <= b.High[i]) {
			return false
		}
	}
	return true
}

// Dim is the box's dimension.
func (b Box) Dim() int { return len(b.Low) }

// StepResult is what one step returns.
type StepResult struct {
	// Obs is the new observation. It belongs to the environment and is overwritten by the next Step or
	// Reset: copy it to keep it.
	Obs        []float64
	Reward     float64
	Terminated bool // the episode reached a terminal state of the MDP
	Truncated  bool // the episode was cut short (a time limit), not a terminal state
}

// Env is an episodic environment with a finite action set, in the shape of Gymnasium's Env.
type Env interface {
	// Name is the registry name ("cartpole", …).
	Name() string
	// Reset starts an episode, drawing the start state and all later randomness from src, and returns the
	// first observation (owned by the environment, as in StepResult).
	Reset(src rand.Source) ([]float64, error)
	// Step applies action a ∈ [0, NumActions()). Stepping before Reset or after the episode ended is an
	// error (ErrEpisodeOver), and so is an action out of range.
	Step(a int) (StepResult, error)
	// ObservationSpace bounds every observation.
	ObservationSpace() Box
	// NumActions is the number of actions.
	NumActions() int
	// State is a copy of the full internal state (float64, often more than the observation).
	State() []float64
	// SetState replaces the internal state, e.g. to replay a reference trajectory from its first row,
	// and makes the episode active again.
	SetState(s []float64) error
}

// Tabular is implemented by environments with finitely many states.
type Tabular interface {
	Env
	NumStates() int
	// StateIndex maps an observation to its state in [0, NumStates()).
	StateIndex(obs []float64) int
}

// ErrEpisodeOver is returned by Step before Reset or after the episode terminated or was truncated.
var ErrEpisodeOver = errors.New("envs: step outside an episode: call Reset first")

// ActionError reports an action out of range.
type ActionError struct {
	Env       string
	Action, N int
}

func (e *ActionError) Error() string {
	return fmt.Sprintf("envs: %s: action %d is outside the allowed range [0, %d]", e.Env, e.Action, e.N-1)
}

// episode is the bookkeeping every environment shares: whether an episode is running, and its randomness.
type episode struct {
	active bool
	rng    *rand.Rand
	bad    error // the constructor's parameter error, returned by every Reset
}

// begin starts an episode drawing from src.
func (e *episode) begin(src rand.Source) error {
	if e.bad != nil {
		return e.bad
	}
	if src == nil {
		return check.Missing("src", "a rand.Source for Reset")
	}
	e.rng = rand.New(src)
	e.active = true
	return nil
}

// check validates a step: an active episode and an action in range.
func (e *episode) check(name string, a, n int) error {
	if !e.active {
		return ErrEpisodeOver
	}
	if a < 0 || a >= n {
		return &ActionError{Env: name, Action: a, N: n}
	}
	return nil
}

// resume makes the episode active after SetState. Without an earlier Reset, later randomness comes from a
// fixed seed (PCG(0, 0)).
func (e *episode) resume() {
	e.active = true
	if e.rng == nil {
		e.rng = rand.New(rand.NewPCG(0, 0))
	}
}

// end records whether the step ended the episode.
func (e *episode) end(terminated bool) {
	if terminated {
		e.active = false
	}
}

// TimeLimit truncates episodes of Env after MaxSteps steps, as Gymnasium's TimeLimit wrapper does.
type TimeLimit struct {
	Env
	MaxSteps int
	steps    int
	over     bool
}

// Reset resets the wrapped environment and the step count.
func (t *TimeLimit) Reset(src rand.Source) ([]float64, error) {
	t.steps, t.over = 0, false
	if err := check.AtLeast("MaxSteps", t.MaxSteps, 1); err != nil {
		return nil, err
	}
	return t.Env.Reset(src)
}

// Step steps the wrapped environment and sets Truncated at the MaxSteps-th step (unless it terminated).
func (t *TimeLimit) Step(a int) (StepResult, error) {
	if t.over {
		return StepResult{}, ErrEpisodeOver
	}
	obs, reward, term, err, ok := stepFast(t.Env, a)
	if !ok {
		var r StepResult
		r, err = t.Env.Step(a)
		if err != nil {
			return r, err
		}
		obs, reward, term = r.Obs, r.Reward, r.Terminated
		if r.Truncated { // the wrapped environment truncated the episode itself
			t.steps++
			t.over = true
			return r, nil
		}
	} else if err != nil {
		return StepResult{}, err
	}
	t.steps++
	trunc := t.steps >= t.MaxSteps && !term
	t.over = term || trunc
	return StepResult{Obs: obs, Reward: reward, Terminated: term, Truncated: trunc}, nil
}

// stepFast steps the environments whose Step is cheap enough for the call to matter, directly and with the
// result as separate values, and reports whether env was one of them (ok). A StepResult held in a variable
// is not kept in registers: the compiler copies it through the stack, with loads wider than the stores
// before them, which stall; that copy cost TimeLimit as much as half a CartPole step. Only these exact
// types take the fast path (a type embedding one of them may override Step).
func stepFast(env Env, a int) (obs []float64, reward float64, terminated bool, err error, ok bool) {
	switch e := env.(type) {
	case *CartPole:
		obs, reward, terminated, err = e.step(a)
	case *Acrobot:
		obs, reward, terminated, err = e.step(a)
	case *MountainCar:
		obs, reward, terminated, err = e.step(a)
	case *Taxi:
		obs, reward, terminated, err = e.step(a)
	default:
		return nil, 0, false, nil, false
	}
	return obs, reward, terminated, err, true
}

// SetState sets the wrapped state and restarts the step count.
func (t *TimeLimit) SetState(s []float64) error {
	t.steps, t.over = 0, false
	return t.Env.SetState(s)
}

// Steps is the number of steps taken in the current episode.
func (t *TimeLimit) Steps() int { return t.steps }

// Unwrap returns the wrapped environment.
func (t *TimeLimit) Unwrap() Env { return t.Env }

// registry maps names to constructors of the default configuration and its time limit.
var registry = map[string]struct {
	make     func() Env
	maxSteps int
	about    string
}{
	"chain":       {func() Env { return NewChain(BalleChainParams()) }, 200, "Balle et al.'s 40-state chain"},
	"mdp100":      {func() Env { return NewChain(MDP100Params()) }, 1000, "Seo & Yang's 100-state treatment chain"},
	"mountaincar": {func() Env { return NewMountainCar() }, 200, "MountainCar-v0"},
	"cartpole":    {func() Env { return NewCartPole(CartPoleParams{}) }, 500, "CartPole-v1"},
	"acrobot":     {func() Env { return NewAcrobot(AcrobotParams{}) }, 500, "Acrobot-v1"},
	"taxi":        {func() Env { return NewTaxi() }, 200, "Taxi-v3"},
	"hiv":         {func() Env { return NewHIV(HIVParams{}) }, 200, "HIV treatment, 5 days per step"},

	"lunarlander": {func() Env { return NewLunarLander(LunarLanderParams{}) }, 1000, "LunarLander-v3 (discrete)"},
	"wanghegde":   {func() Env { return NewWangHegde() }, 50, "Wang & Hegde's 1-D continuous MDP"},
}

// Names lists the registered environment names, sorted.
func Names() []string {
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Make returns the named environment in its default configuration inside its default TimeLimit.
func Make(name string) (*TimeLimit, error) {
	r, ok := registry[name]
	if !ok {
		return nil, check.OneOf("name", name, Names()...)
	}
	return &TimeLimit{Env: r.make(), MaxSteps: r.maxSteps}, nil
}

// CheckEnv runs the conformance checks on fresh environments from newEnv: two environments reset with the
// same seed give identical trajectories under the same actions; every observation lies in the
// observation space; rewards are finite; stepping after the end (or before Reset) and out-of-range actions
// are errors; State/SetState round-trips. It plays `episodes` episodes of at most maxSteps steps with
// uniformly random actions.
func CheckEnv(newEnv func() Env, episodes, maxSteps int) error {
	if newEnv == nil {
		return check.Missing("newEnv", "a constructor of the environment to check")
	}
	if err := param.First(check.AtLeast("episodes", episodes, 0), check.AtLeast("maxSteps", maxSteps, 1)); err != nil {
		return err
	}
	a, b := newEnv(), newEnv()
	if a == nil || b == nil {
		return check.Missing("newEnv()", "a non-nil Env from the constructor")
	}
	if _, err := a.Step(0); !errors.Is(err, ErrEpisodeOver) {
		return fmt.Errorf("%s: Step before Reset: got %v, want ErrEpisodeOver", a.Name(), err)
	}
	space := a.ObservationSpace()
	for ep := range episodes {
		seed := uint64(ep)*7919 + 1
		oa, err := a.Reset(rand.NewPCG(seed, 1))
		if err != nil {
			return err
		}
		ob, err := b.Reset(rand.NewPCG(seed, 1))
		if err != nil {
			return err
		}
		if !slices.Equal(oa, ob) {
			return fmt.Errorf("%s: same seed, different first observations %v and %v", a.Name(), oa, ob)
		}
		if !space.Contains(oa) {
			return fmt.Errorf("%s: first observation %v outside the observation space", a.Name(), oa)
		}
		if _, err := a.Step(a.NumActions()); err == nil {
			return fmt.Errorf("%s: action %d (out of range) accepted", a.Name(), a.NumActions())
		}
		if _, err := a.Step(-1); err == nil {
			return fmt.Errorf("%s: action −1 accepted", a.Name())
		}
		actions := rand.New(rand.NewPCG(seed, 2))
		ended := false
		for t := 0; t < maxSteps && !ended; t++ {
			act := actions.IntN(a.NumActions())
			if t == 3 {
				// State round trip: setting the state it reports leaves the trajectory unchanged.
				s := a.State()
				if err := a.SetState(s); err != nil && !errors.Is(err, ErrNoSetState) {
					return fmt.Errorf("%s: SetState(State()): %v", a.Name(), err)
				}
				b.SetState(b.State()) // keep the twin identical (a TimeLimit restarts its count)
				if !slices.Equal(a.State(), s) {
					return fmt.Errorf("%s: State after SetState(State()) differs", a.Name())
				}
			}
			ra, err := a.Step(act)
			if err != nil {
				return fmt.Errorf("%s: step %d: %v", a.Name(), t, err)
			}
			rb, err := b.Step(act)
			if err != nil {
				return fmt.Errorf("%s: step %d: %v", a.Name(), t, err)
			}
			if !slices.Equal(ra.Obs, rb.Obs) || ra.Reward != rb.Reward || ra.Terminated != rb.Terminated || ra.Truncated != rb.Truncated {
				return fmt.Errorf("%s: episode %d step %d: same seed and actions, different outcomes", a.Name(), ep, t)
			}
			if !space.Contains(ra.Obs) {
				return fmt.Errorf("%s: observation %v outside the observation space %v", a.Name(), ra.Obs, space)
			}
			if math.IsNaN(ra.Reward) || math.IsInf(ra.Reward, 0) {
				return fmt.Errorf("%s: reward %v", a.Name(), ra.Reward)
			}
			ended = ra.Terminated || ra.Truncated
		}
		if ended {
			if _, err := a.Step(0); !errors.Is(err, ErrEpisodeOver) {
				return fmt.Errorf("%s: Step after the episode ended: got %v, want ErrEpisodeOver", a.Name(), err)
			}
		}
	}
	return nil
}

// ErrNoSetState is returned by SetState where the internal state cannot be set from numbers (LunarLander's
// Box2D world); the reference replay injects the recorded random draws instead.
var ErrNoSetState = errors.New("envs: this environment's state cannot be set")

// orDefault sets *v to d when it is zero (the zero value of a parameter struct means "the default").
func orDefault(v *float64, d float64) {
	if *v == 0 {
		*v = d
	}
}

// f32 rounds x through float32, as the Gymnasium environments do for their observations.
func f32(x float64) float64 { return float64(float32(x)) }

// stateError reports a state vector of the wrong length.
func stateError(env string, got, want int) error {
	return check.Errorf("len(s)", float64(got), "[%d, %d] (the length of a %s state)", want, want, env)
}
