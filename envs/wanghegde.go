package envs

import (
	"math"
	"math/rand/v2"

	"github.com/dprl-project/dprl/dprl/param"
)

// WangHegde is the continuous 1-D MDP of Wang & Hegde's released code ("hitorstandcontinuous"): state
// s ∈ [0, 1], action 0 moves right by U(0, 0.25), action 1 moves left by U(0, 0.25), both clipped to
// [0, 1]; the reward after the move is 0.5 − |s − 0.5|. The code ends episodes after 50 steps and treats
// that end as terminal, so the registry's 50-step limit truncates (a learner that wants the code's
// behaviour treats truncation as terminal). Reset: s ~ U(0, 1).
type WangHegde struct {
	episode
	s   float64
	obs [1]float64
}

// NewWangHegde returns the environment.
func NewWangHegde() *WangHegde { return &WangHegde{} }

func (w *WangHegde) Name() string          { return "wanghegde" }
func (w *WangHegde) NumActions() int       { return 2 }
func (w *WangHegde) ObservationSpace() Box { return Box{Low: []float64{0}, High: []float64{1}} }

func (w *WangHegde) Reset(src rand.Source) ([]float64, error) {
	if err := w.begin(src); err != nil {
		return nil, err
	}
	w.s = w.rng.Float64()
	w.obs[0] = w.s
	return w.obs[:], nil
}

// WangHegdeReward is the reward at state s: 0.5 − |s − 0.5|.
func WangHegdeReward(s float64) float64 { return 0.5 - math.Abs(s-0.5) }

func (w *WangHegde) Step(a int) (StepResult, error) {
	if err := w.check("wanghegde", a, 2); err != nil {
		return StepResult{}, err
	}
	d := 0.25 * w.rng.Float64()
	if a == 0 {
		w.s = math.Min(w.s+d, 1)
	} else {
		w.s = math.Max(w.s-d, 0)
	}
	w.obs[0] = w.s
	return StepResult{Obs: w.obs[:], Reward: WangHegdeReward(w.s)}, nil
}

func (w *WangHegde) State() []float64 { return []float64{w.s} }
func (w *WangHegde) SetState(s []float64) error {
	if len(s) != 1 {
		return stateError("wanghegde", len(s), 1)
	}
	if !(s[0] >= 0 && s[0] <= 1) {
		return check.In("s[0]", s[0], param.Probability)
	}
	w.s = s[0]
	w.obs[0] = s[0]
	w.resume()
	return nil
}
