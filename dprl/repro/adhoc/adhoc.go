package adhoc

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/dprl-project/dprl/dprl/param"
	"github.com/dprl-project/dprl/dprl/policyeval"
	"github.com/dprl-project/dprl/dprl/session"
	"github.com/dprl-project/dprl/mechanisms"
	"github.com/dprl-project/dprl/trajectory"
)

// check rejects values on behalf of this package.
const check param.Checker = "adhoc"

// Method is a private estimator.
type Method int

const (
	// DPLSW is Balle et al.'s DP-LSW (smooth sensitivity, Lemma 1 constants, spectral norm).
	DPLSW Method = iota
	// DPLSL is Balle et al.'s DP-LSL with the provably valid bound (policyeval.LSLSafe) and Balle's λ
	// schedule λ = ‖Φ‖_F²‖ρ‖∞ + c·m^0.4.
	DPLSL
	// GPOPE is Xie et al.'s gradient-perturbed GTD2 with the paper's accounting (one trajectory of n per step,
	// replace-one, Δ = 2C).
	GPOPE
)

// Methods lists the estimators.
var Methods = []Method{DPLSW, DPLSL, GPOPE}

func (m Method) String() string {
	switch m {
	case DPLSW:
		return "DP-LSW"
	case DPLSL:
		return "DP-LSL"
	case GPOPE:
		return "GPOPE"
	}
	return fmt.Sprintf("Method(%d)", int(m))
}

// Setup is the user's choice of how to read the data: everything here must be public (chosen without
// looking at the private trajectories), or the privacy guarantee does not hold.
type Setup struct {
	NumStates int
	State     func(obs []float64) int // the discrete state of an observation, in [0, NumStates)
	Phi       *mat.Dense              // NumStates × d features
	Rho       []float64               // state weights: LSW's regression weights and the error metric's
	Gamma     float64
	// ReturnMax bounds |first-visit return|; Signed says returns may be negative (range 2·ReturnMax).
	ReturnMax float64
	Signed    bool
	Delta     float64

	LambdaC float64 // DP-LSL's schedule constant c (100 if 0)

	// GPOPE (checked when GPOPE runs): clip C on the stacked gradient, iterations T, constant step size.
	Clip     float64
	Steps    int
	StepSize float64
}

// Validate checks the setup against a dataset.
func (s *Setup) Validate(d *trajectory.Dataset) error {
	if d == nil || len(d.Trajectories) == 0 {
		return fmt.Errorf("adhoc: empty dataset: no trajectories")
	}
	if err := d.Validate(); err != nil {
		return err
	}
	if s.Phi == nil || s.State == nil {
		return fmt.Errorf("adhoc: Setup needs features Phi and a State map")
	}
	n, _ := s.Phi.Dims()
	switch {
	case s.NumStates < 1 || n != s.NumStates:
		return fmt.Errorf("adhoc: features have %d rows for NumStates = %d: mismatched dimensions", n, s.NumStates)
	case len(s.Rho) != s.NumStates:
		return fmt.Errorf("adhoc: %d weights for NumStates = %d: mismatched dimensions", len(s.Rho), s.NumStates)
	}
	if err := param.First(check.In("Gamma", s.Gamma, param.Probability), check.In("ReturnMax", s.ReturnMax, param.Positive),
		check.In("Delta", s.Delta, param.OpenUnit), check.In("LambdaC", s.LambdaC, param.NonNegative)); err != nil {
		return err
	}
	for i, r := range s.Rho {
		if !(r >= 0) || math.IsInf(r, 0) {
			return &mechanisms.ParamError{Pkg: "adhoc", Param: fmt.Sprintf("Rho[%d]", i), Value: r, Allowed: "[0, ∞)"}
		}
	}
	for i, tr := range d.Trajectories {
		for t, st := range tr.Steps {
			if k := s.State(st.Obs); k < 0 || k >= s.NumStates {
				return fmt.Errorf("adhoc: trajectory %d step %d: state %d is outside the allowed range [0, %d]", i, t, k, s.NumStates-1)
			}
		}
	}
	return nil
}

func (s *Setup) problem() *policyeval.Problem {
	if s.Signed {
		return &policyeval.Problem{Phi: s.Phi, Rho: s.Rho, FMax: s.ReturnMax, FRange: 2 * s.ReturnMax, FMin: -s.ReturnMax}
	}
	return &policyeval.Problem{Phi: s.Phi, Rho: s.Rho, FMax: s.ReturnMax, FRange: s.ReturnMax}
}

// stateFeatures reads φ(obs) from the rows of Phi.
type stateFeatures struct{ s *Setup }

func (f stateFeatures) Dim() int { _, d := f.s.Phi.Dims(); return d }
func (f stateFeatures) Into(dst, obs []float64) []float64 {
	copy(dst, f.s.Phi.RawRowView(f.s.State(obs)))
	return dst
}

// signature validates d and computes its first-visit signature.
func (s *Setup) signature(d *trajectory.Dataset) (*policyeval.Signature, error) {
	if err := s.Validate(d); err != nil {
		return nil, err
	}
	return policyeval.NewSignature(d, s.NumStates, s.Gamma, s.State)
}

// Reference is the non-private LSW estimate on d: what the private releases are compared with.
func (s *Setup) Reference(d *trajectory.Dataset) ([]float64, error) {
	sig, err := s.signature(d)
	if err != nil {
		return nil, err
	}
	return policyeval.LSW(s.problem(), sig)
}

// Release is one private estimate with the noise that produced it.
type Release struct {
	Theta   []float64
	Sigma   float64 // per-coordinate noise std (for GPOPE, per step)
	Clipped int     // DP-LSW, DP-LSL: first-visit returns clipped to the declared range
}

// Estimate runs method m on d at (eps, Setup.Delta): eps must lie in (0, ∞) — a release always has noise
// (NonPrivate is the separate, explicitly non-private estimate). DP-LSW and DP-LSL clip every first-visit
// return to the declared range ([0, ReturnMax], or [−ReturnMax, ReturnMax] when Signed) and report how many
// they clipped in Release.Clipped; GPOPE clips every step's gradient to Clip.
func (s *Setup) Estimate(m Method, d *trajectory.Dataset, eps float64, src rand.Source) (*Release, error) {
	if err := check.In("epsilon", eps, param.Positive); err != nil {
		return nil, err
	}
	if err := s.Validate(d); err != nil {
		return nil, err
	}
	return s.estimate(m, d, eps, false, src)
}

// NonPrivate runs method m's non-private counterpart on d — not private: LSW, LSL with the same λ, or
// GPOPE without noise (same clip, steps and step size).
func (s *Setup) NonPrivate(m Method, d *trajectory.Dataset, src rand.Source) ([]float64, error) {
	if err := s.Validate(d); err != nil {
		return nil, err
	}
	r, err := s.estimate(m, d, 0, true, src)
	if err != nil {
		return nil, err
	}
	return r.Theta, nil
}

// estimate is Estimate on a validated dataset; nonPrivate runs the non-private counterpart (eps unused).
func (s *Setup) estimate(m Method, d *trajectory.Dataset, eps float64, nonPrivate bool, src rand.Source) (*Release, error) {
	priv := policyeval.PrivacyParams{Epsilon: eps, Delta: s.Delta, Variant: mechanisms.SmoothLemma1}
	switch m {
	case DPLSW, DPLSL:
		sig, err := policyeval.NewSignature(d, s.NumStates, s.Gamma, s.State)
		if err != nil {
			return nil, err
		}
		if m == DPLSW {
			if nonPrivate {
				th, err := policyeval.LSW(s.problem(), sig)
				return &Release{Theta: th}, err
			}
			r, err := policyeval.DPLSW(s.problem(), sig, priv, false, src)
			if err != nil {
				return nil, err
			}
			return &Release{Theta: r.Theta, Sigma: r.Sigma, Clipped: r.Clipped}, nil
		}
		c := s.LambdaC
		if c == 0 {
			c = 100
		}
		lambda, err := policyeval.LambdaSchedule(s.problem(), c, sig.M)
		if err != nil {
			return nil, err
		}
		if nonPrivate {
			th, err := policyeval.LSL(s.problem(), sig, lambda)
			return &Release{Theta: th}, err
		}
		r, err := policyeval.DPLSL(s.problem(), sig, lambda, priv, policyeval.LSLSafe, src)
		if err != nil {
			return nil, err
		}
		return &Release{Theta: r.Theta, Sigma: r.Sigma, Clipped: r.Clipped}, nil
	case GPOPE:
		if err := s.checkGPOPE(); err != nil {
			return nil, err
		}
		ft, err := policyeval.Featurize(d.Trajectories, stateFeatures{s}, nil)
		if err != nil {
			return nil, err
		}
		sigma := 0.0
		if !nonPrivate {
			if sigma, err = policyeval.GPOPESigma(policyeval.AccountingTheorem9, len(ft), s.Steps, eps, s.Delta, s.Clip, nil); err != nil {
				return nil, err
			}
		}
		th, err := policyeval.GPOPE(ft, policyeval.GPOPEConfig{Gamma: s.Gamma, Iterations: s.Steps, Step: policyeval.Constant(s.StepSize),
			Clip: s.Clip, Sigma: sigma, NonPrivate: nonPrivate, Src: src})
		if err != nil {
			return nil, err
		}
		return &Release{Theta: th, Sigma: sigma}, nil
	}
	return nil, fmt.Errorf("adhoc: unknown method %d", int(m))
}

// Charge is what one release of method m at (eps, Setup.Delta) on a private file of records trajectories
// costs, worked out from public things only (the number of trajectories is public) and before the data are
// touched, so a release the estimator would refuse is refused before its charge. DP-LSW and DP-LSL are
// (ε, δ)-DP with ε ≤ 1 (their smooth-sensitivity constants hold there only) and no Rényi curve; GPOPE also
// carries its Rényi curve: Steps compositions of the Gaussian on one trajectory sampled without
// replacement (Wang, Balle & Kasiviswanathan's Theorem 9, the paper's accounting), noise multiplier
// σ/(2·Clip).
func (s *Setup) Charge(m Method, records int, eps float64) (session.Charge, error) {
	if err := param.First(check.AtLeast("records", records, 1), check.In("Delta", s.Delta, param.OpenUnit)); err != nil {
		return session.Charge{}, err
	}
	c := session.Charge{Mechanism: m.String() + " θ", Epsilon: eps, Delta: s.Delta}
	switch m {
	case DPLSW, DPLSL:
		if err := check.In("epsilon", eps, mechanisms.SmoothEpsilonRange); err != nil {
			return session.Charge{}, err
		}
		c.Mechanism += " (smooth-sensitivity Gaussian)"
		return c, nil
	case GPOPE:
		if err := check.In("epsilon", eps, param.Positive); err != nil {
			return session.Charge{}, err
		}
		if err := s.checkGPOPE(); err != nil {
			return session.Charge{}, err
		}
		sigma, err := policyeval.GPOPESigma(policyeval.AccountingTheorem9, records, s.Steps, eps, s.Delta, s.Clip, nil)
		if err != nil {
			return session.Charge{}, fmt.Errorf("adhoc: no GPOPE noise reaches ε = %g at δ = %g on %d trajectories in %d steps (the paper's accounting has a noise-independent floor): %w",
				eps, s.Delta, records, s.Steps, err)
		}
		step := mechanisms.SampledWithoutReplacement{N: records, Batch: 1, Event: mechanisms.GaussianEvent{NoiseMultiplier: sigma / (2 * s.Clip)}, GeneralBound: true}
		c.Mechanism += fmt.Sprintf(" (%d noisy gradient steps, σ = %.4g)", s.Steps, sigma)
		c.RDP = func(order float64) float64 {
			r, err := mechanisms.RDPOf(step, []float64{order})
			if err != nil {
				return math.Inf(1)
			}
			return float64(s.Steps) * r[0]
		}
		return c, nil
	}
	return session.Charge{}, fmt.Errorf("adhoc: unknown method %d", int(m))
}

// checkGPOPE checks GPOPE's settings: Clip and StepSize in (0, ∞), Steps ≥ 1.
func (s *Setup) checkGPOPE() error {
	return param.First(check.In("Clip", s.Clip, param.Positive), check.AtLeast("Steps", s.Steps, 1), check.In("StepSize", s.StepSize, param.Positive))
}

// Values is Φθ, the estimated value of every state.
func (s *Setup) Values(theta []float64) []float64 {
	var v mat.VecDense
	v.MulVec(s.Phi, mat.NewVecDense(len(theta), theta))
	return v.RawVector().Data
}

// Error is the ρ-weighted RMSE between the values of theta and of ref: sqrt(Σ ρ_s (φ_sᵀ(θ − θ_ref))²/Σ ρ_s).
func (s *Setup) Error(theta, ref []float64) float64 {
	a, b := s.Values(theta), s.Values(ref)
	num, den := 0.0, 0.0
	for i, r := range s.Rho {
		num += r * (a[i] - b[i]) * (a[i] - b[i])
		den += r
	}
	return math.Sqrt(num / den)
}
