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
	// MomentsLemma3 is the moments accountant with the leading term q²λ(λ+1)/((1 − q)z²) of Abadi et al.'s
	// Lemma 3 in place of the exact log moment, over the integer orders λ ≤ z² ln(1/(qz)) the lemma covers.
	// The lemma is stated for z ≥ 1 and q < 1/(16z) only; outside them Epsilon returns an error (a gap in
	// a figure). Its O(q³λ³/z³) remainder is dropped, as Abadi et al. do in practice, so it is the paper's
	// working number rather than a proved bound (above the exact ε wherever notebook 01 prints it).
	MomentsLemma3
	// RDPWithoutReplacement is Wang, Balle & Kasiviswanathan's general Theorem 9 (one batch of qN drawn
	// without replacement, replace-one, multiplier z/2 for the same σ), improved conversion: what GPOPE's
	// proof uses.
	RDPWithoutReplacement
	// AdvancedComposition composes the per-step guarantee (ε0 at δ0 = δ/(2T), from the exact single-step
	// privacy profile SampledGaussianDelta) with Dwork, Rothblum & Vadhan's theorem and slack δ/2.
	AdvancedComposition
	// OptimalComposition composes the same per-step (ε0, δ0) with Kairouz, Oh & Viswanath's optimal
	// composition theorem for (ε0, δ0)-DP mechanisms (the T steps' δ0 take about δ/2 of δ).
	OptimalComposition
	// RDPWithoutReplacementThm27 is the same sampling and relation as RDPWithoutReplacement with the
	// Gaussian-specific Theorem 27 of Wang, Balle & Kasiviswanathan up to order 256 (what Google's
	// dp_accounting uses): the tightest bound for sampling without replacement under replace-one that the
	// mechanisms package has. It shows how much of the without-replacement cost is Theorem 9's looseness.
	RDPWithoutReplacementThm27
)

// Methods lists every method, tightest first as a rule.
var Methods = []Method{PLD, RDP, MomentsAccountant, MomentsLemma3, RDPWithoutReplacementThm27, RDPWithoutReplacement, AdvancedComposition, OptimalComposition}

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
		return "RDP w/o replacement, Thm 9 (replace-one)"
	case RDPWithoutReplacementThm27:
		return "RDP w/o replacement, Thm 27 (replace-one)"
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
		if !(w.Z >= 1 && w.Q < 1/(16*w.Z)) {
			return 0, check.Errorf("Z", w.Z, "[1, 1/(16q)) = [1, %.4g), where Abadi et al.'s Lemma 3 is stated", 1/(16*w.Q))
		}
		// ε = min_λ (T·α(λ) + ln(1/δ))/λ over the integer λ ≥ 1 the lemma covers (λ = 1 when that range is
		// empty, as before the conditions were checked; it is never empty here since qz < 1/16).
		best := math.Inf(1)
		lmax := w.Z * w.Z * math.Log(1/(w.Q*w.Z))
		for l := 1.0; l <= math.Max(1, lmax) && l <= 256; l++ {
			best = math.Min(best, (float64(w.Steps)*mechanisms.AbadiLemma3LogMoment(w.Q, w.Z, l)+math.Log(1/delta))/l)
		}
		return best, nil
	case RDPWithoutReplacement, RDPWithoutReplacementThm27:
		if w.N < 1 {
			return 0, check.Errorf("N", float64(w.N), "[1, ∞) (sampling without replacement needs the dataset size)")
		}
		b := max(1, int(math.Round(w.Q*float64(w.N))))
		a, err := mechanisms.NewRDPAccountant(nil, mechanisms.ConversionImproved)
		if err != nil {
			return 0, err
		}
		return compose(a, mechanisms.SampledWithoutReplacement{N: w.N, Batch: b, Event: mechanisms.GaussianEvent{NoiseMultiplier: w.Z / 2},
			GeneralBound: m == RDPWithoutReplacement})
	case AdvancedComposition, OptimalComposition:
		d0 := delta / (2 * float64(w.Steps))
		e0, err := SampledGaussianEpsilon(w.Q, w.Z, d0)
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

// SampledGaussianDelta is the exact privacy profile δ(ε), ε ≥ 0, of one Poisson-subsampled Gaussian step
// (rate q, noise multiplier z, add/remove neighbours), the worse of the two directions. With μ = 1/z and
// G(μ, ε) the Gaussian's profile (mechanisms.GDPDelta), removal gives q·G(μ, ln(1 + (e^ε − 1)/q)) (the
// amplification identity of Balle, Barthe & Gaboardi 2018) and addition, where e^ε(1 − q) < 1,
// (1 − e^ε(1 − q))·H_{e^ε′}(N(0, 1) ‖ N(μ, 1)) with e^ε′ = qe^ε/(1 − e^ε(1 − q)) (0 otherwise); H is G for
// ε′ ≥ 0 and 1 − e^ε′ + e^ε′·G(μ, −ε′) below. At q = 1 both are the Gaussian's G(μ, ε).
func SampledGaussianDelta(q, z, eps float64) float64 {
	mu := 1 / z
	remove := q * mechanisms.GDPDelta(mu, math.Log1p(math.Expm1(eps)/q))
	add := 0.0
	if c := 1 - math.Exp(eps)*(1-q); c > 0 {
		e := math.Log(q) + eps - math.Log(c) // ε′
		h := mechanisms.GDPDelta(mu, e)
		if e < 0 {
			h = -math.Expm1(e) + math.Exp(e)*mechanisms.GDPDelta(mu, -e)
		}
		add = c * h
	}
	return math.Max(remove, add)
}

// SampledGaussianEpsilon is the smallest ε ≥ 0 with SampledGaussianDelta(q, z, ε) ≤ delta: the exact ε of
// one Poisson-subsampled Gaussian step (no discretisation), found by bisection to 1e−12 relative.
func SampledGaussianEpsilon(q, z, delta float64) (float64, error) {
	if err := param.First(check.In("q", q, param.Interval{Lo: 0, Hi: 1, HiClosed: true}), check.In("z", z, param.Positive),
		check.In("delta", delta, param.OpenUnit)); err != nil {
		return 0, err
	}
	if SampledGaussianDelta(q, z, 0) <= delta {
		return 0, nil
	}
	lo, hi := 0.0, 1.0
	for SampledGaussianDelta(q, z, hi) > delta {
		if lo, hi = hi, 2*hi; hi > 1e6 {
			return 0, check.Errorf("delta", delta, "a δ that some ε ≤ 1e6 reaches at q = %g, z = %g", q, z)
		}
	}
	for hi-lo > 1e-12*hi {
		if mid := (lo + hi) / 2; SampledGaussianDelta(q, z, mid) > delta {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi, nil
}

// NoiseFor is the smallest multiplier z in [0.3, 100] for which the workload (its Z ignored) meets (eps, delta)
// by method m (an error if none does; below 0.3 the PLD grid explodes and no practical workload needs it).
// For MomentsLemma3 the range is also cut to where Abadi et al.'s Lemma 3 is stated, z ≥ 1 and z < 1/(16q).
func NoiseFor(m Method, w Workload, eps, delta float64) (float64, error) {
	w.Z = 1 // found by the search
	if err := param.First(check.In("eps", eps, param.Positive), check.In("delta", delta, param.OpenUnit), w.check()); err != nil {
		return 0, err
	}
	lo, hi, err := noiseRange(m, w.Q)
	if err != nil {
		return 0, err
	}
	return mechanisms.CalibrateNoise(eps, lo, hi, func(z float64) (float64, error) {
		w.Z = z
		return Epsilon(m, w, delta)
	})
}

// noiseRange is the range of multipliers NoiseFor searches for method m at sampling rate q.
func noiseRange(m Method, q float64) (lo, hi float64, err error) {
	lo, hi = 0.3, 100
	if m == MomentsLemma3 {
		lo, hi = 1, math.Min(hi, math.Nextafter(1/(16*q), 0))
		if hi < lo {
			return 0, 0, check.Errorf("q", q, "(0, 1/16) for Abadi et al.'s Lemma 3, which needs 1 ≤ z < 1/(16q)")
		}
	}
	return lo, hi, nil
}

// NoiseNear is NoiseFor to the relative precision rel, searched outward from guess (a multiplier near the
// answer, e.g. another accountant's): the z it returns meets (eps, delta) by method m, and z/(1 + rel) does
// not unless z is the lower end of NoiseFor's range. It brackets the answer in steps of ×1.5 from guess and
// closes the bracket by regula falsi on ln ε against ln z (Illinois variant), so a handful of evaluations
// suffice where NoiseFor's bisection to 1e−9 takes about forty: what lets the explorer calibrate the PLD
// accountant on every move of a slider. An evaluation that fails (a PLD grid too large, a method outside
// its conditions) counts as not meeting the target.
func NoiseNear(m Method, w Workload, eps, delta, guess, rel float64) (float64, error) {
	w.Z = 1
	if err := param.First(check.In("eps", eps, param.Positive), check.In("delta", delta, param.OpenUnit), w.check(),
		check.In("guess", guess, param.Positive), check.In("rel", rel, param.Interval{Lo: 1e-9, Hi: 1, LoClosed: true})); err != nil {
		return 0, err
	}
	lo, hi, err := noiseRange(m, w.Q)
	if err != nil {
		return 0, err
	}
	// f is ln(ε(z)/eps): positive where z fails the target, +∞ where the evaluation fails.
	f := func(z float64) float64 {
		w.Z = z
		e, err := Epsilon(m, w, delta)
		if err != nil || math.IsNaN(e) {
			return math.Inf(1)
		}
		return math.Log(e / eps)
	}
	const step = 1.5
	a := math.Min(math.Max(guess, lo), hi)
	fa := f(a)
	var b, fb float64 // a fails the target (fa > 0) and b meets it (fb ≤ 0), once bracketed
	if fa <= 0 {
		for {
			b, fb = a, fa
			if a == lo {
				return lo, nil
			}
			a = math.Max(lo, a/step)
			if fa = f(a); fa > 0 {
				break
			}
		}
	} else {
		for b = a; ; {
			if b == hi {
				return 0, check.Errorf("eps", eps, "a target that some z ≤ %g meets by %v", hi, m)
			}
			b = math.Min(hi, b*step)
			if fb = f(b); fb <= 0 {
				break
			}
			a, fa = b, fb
		}
	}
	side := 0
	for b/a > 1+rel {
		// The next point: the secant's root in (ln z, f), kept at least rel/3 inside the bracket so that it
		// closes once the root is found; the midpoint where f is infinite at an end.
		x := math.Sqrt(a * b)
		if !math.IsInf(fa, 1) {
			la, lb := math.Log(a), math.Log(b)
			x = math.Exp(la - fa*(lb-la)/(fb-fa))
		}
		if l, h := a*(1+rel/3), b/(1+rel/3); l < h {
			x = math.Min(math.Max(x, l), h)
		} else {
			x = math.Sqrt(a * b)
		}
		if fx := f(x); fx <= 0 {
			b, fb = x, fx
			if side == 1 {
				fa /= 2
			}
			side = 1
		} else {
			a, fa = x, fx
			if side == -1 {
				fb /= 2
			}
			side = -1
		}
	}
	return b, nil
}
