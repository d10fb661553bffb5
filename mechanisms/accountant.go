package mechanisms

import (
	"errors"
	"fmt"
	"math"

	"github.com/dprl-project/dprl/dprl/param"
)

// Event is a mechanism an accountant can record: GaussianEvent, LaplaceEvent, PoissonSampled or
// SampledWithoutReplacement. Every event states its noise relative to the sensitivity of what it releases,
// so the neighbouring relation is part of the event: a Gaussian on a sum of clipped gradients has noise
// multiplier σ/C under add/remove and σ/(2C) under replace-one.
type Event interface {
	fmt.Stringer
	validate() error
}

// GaussianEvent is the Gaussian mechanism with noise multiplier z = σ/Δ.
type GaussianEvent struct{ NoiseMultiplier float64 }

// LaplaceEvent is the Laplace mechanism with noise multiplier b/Δ1 (ε = 1/multiplier).
type LaplaceEvent struct{ NoiseMultiplier float64 }

// PoissonSampled runs Event on a Poisson sample: each record independently with probability Q, under
// add/remove neighbours.
type PoissonSampled struct {
	Q     float64
	Event Event
}

// SampledWithoutReplacement runs Event on a batch of Batch records drawn without replacement from N, under
// replace-one neighbours (Wang, Balle & Kasiviswanathan 2019). The RDP accountant uses their Theorem 27
// for the Gaussian up to order 256, as dp_accounting does; GeneralBound selects their general Theorem 9
// alone as stated (looser, with a noise-independent floor, and not capped by the unsampled Gaussian's
// RDP), which is what papers citing Theorem 9 calibrated with.
type SampledWithoutReplacement struct {
	N, Batch     int
	Event        Event
	GeneralBound bool
}

// Mixed runs Event with probability P and otherwise releases something that does not depend on the data
// and is distinguishable from Event's outputs (Sharma et al.'s Selective DP-SGD: with probability p a noisy
// step on the private data, else a noiseless step on released data, which lands off the noisy step's
// continuous support). Its privacy profile is exactly P times Event's: δ(ε) = P·δ_Event(ε) for ε ≥ 0. Only
// the PLD accountant supports it. Composing it is not the same as folding P into a sampling rate: by
// convexity of δ in the sampling rate, P·δ_q(ε) ≥ δ_{P·q}(ε).
type Mixed struct {
	P     float64
	Event Event
}

func (e Mixed) String() string { return fmt.Sprintf("Mixed(p=%g, %v)", e.P, e.Event) }
func (e Mixed) validate() error {
	if e.Event == nil {
		return check.Missing("Event", "an inner Event for Mixed")
	}
	return param.First(check.In("P", e.P, samplingRate), e.Event.validate())
}

func (e GaussianEvent) String() string { return fmt.Sprintf("Gaussian(z=%g)", e.NoiseMultiplier) }
func (e LaplaceEvent) String() string  { return fmt.Sprintf("Laplace(b/Δ=%g)", e.NoiseMultiplier) }
func (e PoissonSampled) String() string {
	return fmt.Sprintf("PoissonSampled(q=%g, %v)", e.Q, e.Event)
}
func (e SampledWithoutReplacement) String() string {
	if e.GeneralBound {
		return fmt.Sprintf("SampledWithoutReplacement(%d of %d, %v, Theorem 9)", e.Batch, e.N, e.Event)
	}
	return fmt.Sprintf("SampledWithoutReplacement(%d of %d, %v)", e.Batch, e.N, e.Event)
}

func (e GaussianEvent) validate() error {
	return check.In("NoiseMultiplier", e.NoiseMultiplier, param.Positive)
}
func (e LaplaceEvent) validate() error {
	return check.In("NoiseMultiplier", e.NoiseMultiplier, param.Positive)
}
func (e PoissonSampled) validate() error {
	if e.Event == nil {
		return check.Missing("Event", "an inner Event for PoissonSampled")
	}
	return param.First(check.In("Q", e.Q, samplingRate), e.Event.validate())
}
func (e SampledWithoutReplacement) validate() error {
	if e.Event == nil {
		return check.Missing("Event", "an inner Event for SampledWithoutReplacement")
	}
	if e.N < 1 {
		return check.AtLeast("N", e.N, 1)
	}
	if e.Batch < 1 || e.Batch > e.N {
		return check.Int("Batch", e.Batch, 1, e.N)
	}
	return e.Event.validate()
}

// validateEvent checks an event an accountant is handed (named e, as in Compose(e, count)); nil is an error.
func validateEvent(e Event) error {
	if e == nil {
		return check.Missing("e", "an Event")
	}
	return e.validate()
}

// Accountant records a history of mechanisms and reports the privacy of their composition, in the manner
// of Opacus's and dp_accounting's accountants.
type Accountant interface {
	// Compose records count more runs of e. A count of 0 records nothing.
	Compose(e Event, count int) error
	// Epsilon is the smallest ε the accountant can certify at δ for everything recorded.
	Epsilon(delta float64) (float64, error)
	// Delta is the δ it certifies at ε.
	Delta(epsilon float64) (float64, error)
	// History lists what was recorded, one line per Compose call.
	History() []string
}

// UnsupportedEventError reports an event an accountant cannot account.
type UnsupportedEventError struct {
	Accountant string
	Event      Event
}

func (e *UnsupportedEventError) Error() string {
	return fmt.Sprintf("mechanisms: the %s accountant cannot account %v", e.Accountant, e.Event)
}

// RDPAccountant accounts in Rényi DP over an order grid: Gaussian, Poisson-subsampled Gaussian and
// Gaussian sampled without replacement; it converts to (ε, δ) with its Conversion. The orders and the
// conversion are fixed at construction (NewRDPAccountant copies the orders); the zero value accounts over
// the DefaultOrders grid with ConversionImproved.
type RDPAccountant struct {
	orders  []float64
	conv    Conversion
	rdp     []float64
	history []string
}

// NewRDPAccountant returns an empty accountant over a copy of orders (nil: the DefaultOrders grid). Every
// order must lie in (1, ∞) and conv be ConversionImproved or ConversionClassic.
func NewRDPAccountant(orders []float64, conv Conversion) (*RDPAccountant, error) {
	if orders == nil {
		orders, _ = Orders(DefaultOrders)
	} else {
		orders = append([]float64(nil), orders...)
	}
	if err := param.First(checkOrders(orders), checkConversion(conv)); err != nil {
		return nil, err
	}
	return &RDPAccountant{orders: orders, conv: conv, rdp: make([]float64, len(orders))}, nil
}

// checkOrders rejects an empty order list and any order outside (1, ∞), naming it orders[i].
func checkOrders(orders []float64) error {
	if len(orders) == 0 {
		return check.Missing("orders", "a non-empty list of orders in (1, ∞)")
	}
	for i, a := range orders {
		if !(a > 1 && a < math.Inf(1)) { // name formatted only on failure
			return check.In(fmt.Sprintf("orders[%d]", i), a, param.Interval{Lo: 1, Hi: math.Inf(1)})
		}
	}
	return nil
}

func checkConversion(c Conversion) error {
	if c != ConversionImproved && c != ConversionClassic {
		return check.Errorf("conversion", float64(c), "{ConversionImproved (0), ConversionClassic (1)}")
	}
	return nil
}

// RDPOf returns one run of e's RDP at each order, or an error if the RDP accountant does not support e or
// an order lies outside (1, ∞).
func RDPOf(e Event, orders []float64) ([]float64, error) {
	if err := param.First(validateEvent(e), checkOrders(orders)); err != nil {
		return nil, err
	}
	out := make([]float64, len(orders))
	switch ev := e.(type) {
	case GaussianEvent:
		for i, a := range orders {
			out[i] = RDPGaussian(ev.NoiseMultiplier, a)
		}
		return out, nil
	case PoissonSampled:
		if g, ok := ev.Event.(GaussianEvent); ok {
			var ec erfcCache
			for i, a := range orders {
				out[i] = rdpPoissonGaussian(ev.Q, g.NoiseMultiplier, a, &ec)
			}
			return out, nil
		}
	case SampledWithoutReplacement:
		if g, ok := ev.Event.(GaussianEvent); ok {
			q := float64(ev.Batch) / float64(ev.N)
			var fd []float64 // nil: Theorem 9 terms only
			if !ev.GeneralBound {
				fd = worForwardDiffs(g.NoiseMultiplier, worOrderNeed(orders))
			}
			for i, a := range orders {
				out[i] = rdpWOR(q, g.NoiseMultiplier, a, fd, ev.GeneralBound)
			}
			return out, nil
		}
	}
	return nil, &UnsupportedEventError{Accountant: "RDP", Event: e}
}

// Compose records count runs of e.
func (a *RDPAccountant) Compose(e Event, count int) error {
	if err := checkCount(count); err != nil {
		return err
	}
	a.ready()
	r, err := RDPOf(e, a.orders)
	if err != nil {
		return err
	}
	if count > 0 { // 0·∞ would be NaN
		for i := range a.rdp {
			a.rdp[i] += float64(count) * r[i]
		}
	}
	a.history = append(a.history, fmt.Sprintf("%d × %v", count, e))
	return nil
}

// ready sets up a zero-value accountant: the DefaultOrders grid, ConversionImproved.
func (a *RDPAccountant) ready() {
	if a.orders == nil {
		a.orders, _ = Orders(DefaultOrders)
		a.rdp = make([]float64, len(a.orders))
	}
}

// Orders returns the accountant's orders (a copy).
func (a *RDPAccountant) Orders() []float64 {
	a.ready()
	return append([]float64(nil), a.orders...)
}

// Conversion is how the accountant converts its RDP curve to (ε, δ).
func (a *RDPAccountant) Conversion() Conversion { return a.conv }

// RDP returns the accumulated RDP at each order (a copy).
func (a *RDPAccountant) RDP() []float64 {
	a.ready()
	return append([]float64(nil), a.rdp...)
}

// Epsilon converts the accumulated RDP to ε at δ.
func (a *RDPAccountant) Epsilon(delta float64) (float64, error) {
	a.ready()
	e, _, err := RDPToEpsilon(a.orders, a.rdp, delta, a.conv)
	return e, err
}

// Delta converts the accumulated RDP to δ at ε.
func (a *RDPAccountant) Delta(epsilon float64) (float64, error) {
	a.ready()
	d, _, err := RDPToDelta(a.orders, a.rdp, epsilon, a.conv)
	return d, err
}

// History lists the recorded events.
func (a *RDPAccountant) History() []string { return append([]string(nil), a.history...) }

// GDPAccountant composes Gaussian mechanisms exactly in μ-GDP: μ² adds up (Dong, Roth & Su 2022).
// It does not support subsampling (whose GDP form is only a central-limit approximation).
type GDPAccountant struct {
	muSq    float64
	history []string
}

// Compose records count runs of a Gaussian event.
func (a *GDPAccountant) Compose(e Event, count int) error {
	if err := checkCount(count); err != nil {
		return err
	}
	if err := validateEvent(e); err != nil {
		return err
	}
	g, ok := e.(GaussianEvent)
	if !ok {
		return &UnsupportedEventError{Accountant: "GDP", Event: e}
	}
	a.muSq += float64(count) / (g.NoiseMultiplier * g.NoiseMultiplier)
	a.history = append(a.history, fmt.Sprintf("%d × %v", count, e))
	return nil
}

// Mu is the composed GDP parameter μ = sqrt(Σ 1/z_i²).
func (a *GDPAccountant) Mu() float64 { return math.Sqrt(a.muSq) }

// Epsilon is the exact ε at δ of the composition.
func (a *GDPAccountant) Epsilon(delta float64) (float64, error) {
	if err := checkDeltaPositive(delta); err != nil {
		return 0, err
	}
	switch {
	case a.muSq == 0:
		return 0, nil
	case math.IsInf(a.muSq, 1): // so little noise that Σ 1/z_i² overflows: no guarantee
		return math.Inf(1), nil
	}
	return GDPEpsilon(a.Mu(), delta)
}

// Delta is the exact δ at ε of the composition (rounded up, as GDPDelta).
func (a *GDPAccountant) Delta(epsilon float64) (float64, error) {
	if err := check.In("epsilon", epsilon, param.NonNegative); err != nil {
		return 0, err
	}
	return GDPDelta(a.Mu(), epsilon), nil
}

// History lists the recorded events.
func (a *GDPAccountant) History() []string { return append([]string(nil), a.history...) }

// tooSpread reports whether err is a *GridError: the privacy loss was too spread to account, which
// CalibrateNoise and MaxSteps read as an ε above any budget (more noise or fewer steps shrink the grid).
func tooSpread(err error) bool {
	var g *GridError
	return errors.As(err, &g)
}

// CalibrateNoise finds, by bisection, the smallest noise multiplier z in [lo, hi] for which epsAt(z) ≤ target,
// where epsAt builds the accountant for the run at noise z and returns its ε (decreasing in z). It fails if
// even hi does not reach the target (or epsAt(hi) is NaN). A *GridError from epsAt counts as an ε above the
// target. The result is certified: the upper end of the final bracket (relative width 1e−9), a z at which
// epsAt was evaluated and found within the target, never the bracket's midpoint.
func CalibrateNoise(target, lo, hi float64, epsAt0 func(z float64) (float64, error)) (float64, error) {
	if err := param.First(check.In("target", target, param.Positive), check.In("lo", lo, param.Interval{Lo: 0, Hi: hi})); err != nil {
		return 0, err
	}
	if epsAt0 == nil {
		return 0, check.Missing("epsAt", "a function giving ε at a noise multiplier")
	}
	epsAt := func(z float64) (float64, error) {
		e, err := epsAt0(z)
		if err != nil && tooSpread(err) {
			return math.Inf(1), nil
		}
		return e, err
	}
	eHi, err := epsAt(hi)
	if err != nil {
		return 0, err
	}
	if !(eHi <= target) {
		return 0, check.Errorf("hi", hi, "a noise multiplier whose ε reaches the target %g (at hi, ε = %g): raise hi", target, eHi)
	}
	if eLo, err := epsAt(lo); err != nil {
		return 0, err
	} else if eLo <= target {
		return lo, nil
	}
	var ferr error
	z := bisectSafe(func(z float64) bool {
		e, err := epsAt(z)
		if err != nil && ferr == nil {
			ferr = err
		}
		return err == nil && e <= target
	}, lo, hi, 1e-9)
	if ferr != nil {
		return 0, ferr
	}
	return z, nil // the end of the last bracket whose ε was certified within the target
}

// MaxSteps returns the largest number of runs n ≤ limit of e whose composition stays within (ε, δ) under
// the accountant that newAccountant builds (fresh for every trial count): "train until the budget is spent".
// It returns limit when even limit runs fit, and 0 when a single run does not. A *GridError counts as not
// fitting.
func MaxSteps(newAccountant func() (Accountant, error), e Event, epsilon, delta float64, limit int) (int, error) {
	if err := param.First(checkEpsilon(epsilon), checkDeltaPositive(delta)); err != nil {
		return 0, err
	}
	if limit < 1 {
		return 0, check.AtLeast("limit", limit, 1)
	}
	if newAccountant == nil {
		return 0, check.Missing("newAccountant", "a function returning a fresh Accountant")
	}
	fits := func(n int) (bool, error) {
		a, err := newAccountant()
		if err != nil {
			return false, err
		}
		if err := a.Compose(e, n); err != nil {
			if tooSpread(err) {
				return false, nil
			}
			return false, err
		}
		eps, err := a.Epsilon(delta)
		return eps <= epsilon, err
	}
	lo, hi := 0, 1 // fits(lo) holds (0 runs cost nothing); find the first hi that does not fit
	for {
		ok, err := fits(hi)
		if err != nil {
			return 0, err
		}
		if !ok {
			break
		}
		lo = hi
		if hi == limit {
			return limit, nil
		}
		hi = min(2*hi, limit)
	}
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		ok, err := fits(mid)
		if err != nil {
			return 0, err
		}
		if ok {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo, nil
}
