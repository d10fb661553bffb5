package envs

import (
	"github.com/dprl-project/dprl/dprl/param"

	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// HIVParams configures the HIV treatment simulator (Ernst et al. 2006; the RLPy HIVTreatment dynamics).
// Zero fields take the defaults.
type HIVParams struct {
	DaysPerStep float64 // 5 (RLPy, Xie et al.); Sharma et al. use 20 with 50 steps
	// Scaled divides the reward by 1e8 (the Harvard gym port); RLPy's reward is unscaled.
	Scaled bool
	// RTIPenalty and PIPenalty weigh ε1² and ε2² in the reward (2e4 and 2e3); Sharma et al. vary the drug
	// penalties between experts.
	RTIPenalty, PIPenalty float64
	// RelTol, AbsTol are the integrator's tolerances (1e−10 and 1e−12: V drops to about 0.25 under
	// treatment, so a looser absolute tolerance costs accuracy).
	RelTol, AbsTol float64
}

func (p HIVParams) withDefaults() HIVParams {
	orDefault(&p.DaysPerStep, 5)
	orDefault(&p.RTIPenalty, 2e4)
	orDefault(&p.PIPenalty, 2e3)
	orDefault(&p.RelTol, 1e-10)
	orDefault(&p.AbsTol, 1e-12)
	return p
}

// HIV is the treatment simulator: state (T1, T2, T1*, T2*, V, E), 4 actions (RTI efficacy ε1 ∈ {0, 0.7} ×
// PI efficacy ε2 ∈ {0, 0.3}), the drug held fixed for DaysPerStep days of the ODE, reward
// −0.1·V − RTIPenalty·ε1² − PIPenalty·ε2² + 1e3·E on the new state, observation log10 of the state. It
// starts in the unhealthy steady state and has no terminal state.
type HIV struct {
	p HIVParams
	episode
	s    [6]float64
	obs  [6]float64
	ode  dopri5
	eps1 float64
	eps2 float64
}

// NewHIV returns the simulator.
// Invalid parameters (DaysPerStep or a tolerance not positive and finite, a penalty not finite) make every
// Reset return an error naming the field.
func NewHIV(p HIVParams) *HIV {
	p = p.withDefaults()
	h := &HIV{p: p, ode: dopri5{rtol: p.RelTol, atol: p.AbsTol}}
	h.bad = param.First(check.In("DaysPerStep", p.DaysPerStep, param.Positive), check.In("RTIPenalty", p.RTIPenalty, param.Finite),
		check.In("PIPenalty", p.PIPenalty, param.Finite), check.In("RelTol", p.RelTol, param.Positive),
		check.In("AbsTol", p.AbsTol, param.Positive))
	return h
}

// HIVStart is the unhealthy steady state the episodes start from.
var HIVStart = [6]float64{163573, 5, 11945, 46, 63919, 24}

// HIVActions are the (ε1, ε2) drug efficacies of the four actions.
var HIVActions = [4][2]float64{{0, 0}, {0.7, 0}, {0, 0.3}, {0.7, 0.3}}

func (h *HIV) Name() string    { return "hiv" }
func (h *HIV) NumActions() int { return 4 }

// ObservationSpace bounds log10 of the state as RLPy does ([−5, 8]).
func (h *HIV) ObservationSpace() Box {
	lo, hi := make([]float64, 6), make([]float64, 6)
	for i := range lo {
		lo[i], hi[i] = -5, 8
	}
	return Box{Low: lo, High: hi}
}

func (h *HIV) Reset(src rand.Source) ([]float64, error) {
	if err := h.begin(src); err != nil {
		return nil, err
	}
	h.s = HIVStart
	h.ode.h = 0
	return h.observe(), nil
}

func (h *HIV) observe() []float64 {
	for i, v := range h.s {
		h.obs[i] = math.Log10(v)
	}
	return h.obs[:]
}

// rhs is the ODE right-hand side at efficacies (h.eps1, h.eps2).
func (h *HIV) rhs(_ float64, y, dy []float64) {
	const (
		l1, d1, k1, m1 = 1e4, 0.01, 8e-7, 1e-5
		l2, d2, k2, m2 = 31.98, 0.01, 1e-4, 1e-5
		f, delta, nt   = 0.34, 0.7, 100.0
		c, rho1, rho2  = 13.0, 1.0, 1.0
		lE, bE, kb     = 1.0, 0.3, 100.0
		dE, kd, deltaE = 0.25, 500.0, 0.1
	)
	t1, t2, t1s, t2s, v, e := y[0], y[1], y[2], y[3], y[4], y[5]
	e1, e2 := h.eps1, h.eps2
	g1 := (1 - e1) * k1 * v * t1
	g2 := (1 - f*e1) * k2 * v * t2
	inf := t1s + t2s
	dy[0] = l1 - d1*t1 - g1
	dy[1] = l2 - d2*t2 - g2
	dy[2] = g1 - delta*t1s - m1*e*t1s
	dy[3] = g2 - delta*t2s - m2*e*t2s
	dy[4] = (1-e2)*nt*delta*inf - c*v - ((1-e1)*rho1*k1*t1+(1-f*e1)*rho2*k2*t2)*v
	dy[5] = lE + bE*inf/(inf+kb)*e - dE*inf/(inf+kd)*e - deltaE*e
}

func (h *HIV) Step(a int) (StepResult, error) {
	if err := h.check("hiv", a, 4); err != nil {
		return StepResult{}, err
	}
	h.eps1, h.eps2 = HIVActions[a][0], HIVActions[a][1]
	if err := h.ode.integrate(h.rhs, 0, h.p.DaysPerStep, h.s[:]); err != nil {
		return StepResult{}, fmt.Errorf("envs: hiv: %w", err)
	}
	r := -0.1*h.s[4] - h.p.RTIPenalty*h.eps1*h.eps1 - h.p.PIPenalty*h.eps2*h.eps2 + 1e3*h.s[5]
	if h.p.Scaled {
		r /= 1e8
	}
	return StepResult{Obs: h.observe(), Reward: r}, nil
}

func (h *HIV) State() []float64 { return slices.Clone(h.s[:]) }
func (h *HIV) SetState(s []float64) error {
	if len(s) != 6 {
		return stateError("hiv", len(s), 6)
	}
	for i, v := range s {
		if !(v > 0) || math.IsInf(v, 0) {
			return check.In(fmt.Sprintf("s[%d]", i), v, param.Positive)
		}
	}
	copy(h.s[:], s)
	h.ode.h = 0
	h.observe()
	h.resume()
	return nil
}
