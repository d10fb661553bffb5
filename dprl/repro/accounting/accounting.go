package accounting

import (
	"github.com/dprl-project/dprl/dprl/param"

	"fmt"
	"math"

	"github.com/dprl-project/dprl/mechanisms"
)

// Method is a route from T subsampled Gaussian steps to ε at δ.
type Method int

const (
	// PLD is the privacy-loss-distribution accountant (Poisson, add/remove): numerically exact up to its
	// pessimistic discretisation.
	PLD Method = iota
	// RDP is Rényi DP of the Poisson-subsampled Gaussian (Mironov, Talwar & Zhang 2019) with the improved
	// conversion to (ε, δ).
	RDP
	// MomentsAccountant is Abadi et al.'s moments accountant: the same log moments, λ·RDP(λ+1), with the
	// tail bound δ = min_λ exp(α(λ) − λε), i.e. RDP with the classic conversion.
	MomentsAccountant
	// MomentsLemma3 is the moments accountant with Abadi et al.'s closed-form Lemma 3 bound
	// q²λ(λ+1)/((1 − q)z²) in place of the exact log moment (stated for z ≥ 1 and λ ≤ z² ln(1/(qz))).
	MomentsLemma3
	// RDPWithoutReplacement is Wang, Balle & Kasiviswanathan's Theorem 9 (one batch of qN drawn without
	// replacement, replace-one, multiplier z/2 for the same σ), improved conversion: what GPOPE's proof uses.
	RDPWithoutReplacement
	// AdvancedComposition composes the per-step guarantee (ε0 at δ0 = δ/(2T), from the exact single-step
	// privacy profile) with Dwork, Rothblum & Vadhan's theorem and slack δ/2.
	AdvancedComposition
	// OptimalComposition composes the same per-step (ε0, δ0) with Kairouz, Oh & Viswanath's optimal
	// composition theorem for (ε0, δ0)-DP mechanisms.
	OptimalComposition
)

// Methods lists every method, tightest first as a rule.
var Methods = []Method{PLD, RDP, MomentsAccountant, MomentsLemma3, RDPWithoutReplacement, AdvancedComposition, OptimalComposition}

func (m Method) String() string {
	switch m {
	case PLD:
		return "PLD (Poisson)"
	case RDP:
		return "RDP (Poisson)"
	case MomentsAccountant:
		return "moments accountant"
	case MomentsLemma3:
		return "moments, Lemma 3 bound"
	case RDPWithoutReplacement:
		return "RDP w/o replacement (replace-one)"
	case AdvancedComposition:
		return "advanced composition"
	case OptimalComposition:
		return "optimal composition (KOV)"
	}
	return fmt.Sprintf("Method(%d)", int(m))
}

const check param.Checker = "accounting"

// Workload is T steps of a Gaussian with noise multiplier Z (σ/C, C the clip) on samples drawn at rate Q;
// N is the dataset size the without-replacement method needs (batch Q·N, rounded).
type Workload struct {
	Q, Z  float64
	Steps int
	N     int
}

func (w Workload) check() error {
	return param.First(check.In("Q", w.Q, param.Interval{Lo: 0, Hi: 1, HiClosed: true}), check.In("Z", w.Z, param.Positive),
		check.AtLeast("Steps", w.Steps, 1), check.AtLeast("N", w.N, 0))
}

// Epsilon is the workload's ε at δ by method m.
func Epsilon(m Method, w Workload, delta float64) (float64, error) {
	if err := w.check(); err != nil {
		return 0, err
	}
	if err := check.In("delta", delta, param.OpenUnit); err != nil {
		return 0, err
	}
	var poisson mechanisms.Event = mechanisms.PoissonSampled{Q: w.Q, Event: mechanisms.GaussianEvent{NoiseMultiplier: w.Z}}
	if w.Q == 1 {
		poisson = mechanisms.GaussianEvent{NoiseMultiplier: w.Z} // no sampling
	}
	compose := func(a mechanisms.Accountant, e mechanisms.Event) (float64, error) {
		if err := a.Compose(e, w.Steps); err != nil {
			return 0, err
		}
		return a.Epsilon(delta)
	}
	switch m {
	case PLD:
		a, err := mechanisms.NewPLDAccountant(mechanisms.PLDParams{})
		if err != nil {
			return 0, err
		}
		return compose(a, poisson)
	case RDP, MomentsAccountant:
		conv := mechanisms.ConversionImproved
		if m == MomentsAccountant {
			conv = mechanisms.ConversionClassic
		}
		a, err := mechanisms.NewRDPAccountant(nil, conv)
		if err != nil {
			return 0, err
		}
		return compose(a, poisson)
	case MomentsLemma3:
		// ε = min_λ (T·α(λ) + ln(1/δ))/λ over the integer λ the lemma covers.
		best := math.Inf(1)
		lmax := w.Z * w.Z * math.Log(1/(w.Q*w.Z))
		for l := 1.0; l <= math.Max(1, lmax) && l <= 256; l++ {
			best = math.Min(best, (float64(w.Steps)*mechanisms.AbadiLemma3LogMoment(w.Q, w.Z, l)+math.Log(1/delta))/l)
		}
		return best, nil
	case RDPWithoutReplacement:
		if w.N < 1 {
			return 0, check.Errorf("N", float64(w.N), "[1, ∞) (sampling without replacement needs the dataset size)")
		}
		b := max(1, int(math.Round(w.Q*float64(w.N))))
		a, err := mechanisms.NewRDPAccountant(nil, mechanisms.ConversionImproved)
		if err != nil {
			return 0, err
		}
		return compose(a, mechanisms.SampledWithoutReplacement{N: w.N, Batch: b, Event: mechanisms.GaussianEvent{NoiseMultiplier: w.Z / 2},
			GeneralBound: true})
	case AdvancedComposition, OptimalComposition:
		d0 := delta / (2 * float64(w.Steps))
		one, err := mechanisms.NewPLDAccountant(mechanisms.PLDParams{})
		if err != nil {
			return 0, err
		}
		if err := one.Compose(poisson, 1); err != nil {
			return 0, err
		}
		e0, err := one.Epsilon(d0)
		if err != nil {
			return 0, err
		}
		if m == OptimalComposition {
			return mechanisms.OptimalCompositionEpsilon(e0, d0, w.Steps, delta)
		}
		e, _, err := mechanisms.AdvancedComposition(e0, d0, w.Steps, delta/2)
		return e, err
	}
	return 0, check.Errorf("m", float64(m), "a Method listed in Methods")
}

// NoiseFor is the smallest multiplier z in [0.3, 100] for which the workload (its Z ignored) meets (eps, delta)
// by method m (an error if none does; below 0.3 the PLD grid explodes and no practical workload needs it).
func NoiseFor(m Method, w Workload, eps, delta float64) (float64, error) {
	w.Z = 1 // found by the search
	if err := param.First(check.In("eps", eps, param.Positive), check.In("delta", delta, param.OpenUnit), w.check()); err != nil {
		return 0, err
	}
	return mechanisms.CalibrateNoise(eps, 0.3, 100, func(z float64) (float64, error) {
		w.Z = z
		return Epsilon(m, w, delta)
	})
}
