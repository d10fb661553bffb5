package mechanisms

import (
	"fmt"
	"math"
	"sync"

	"github.com/dprl-project/dprl/dprl/param"
)

// PLDParams configures a privacy-loss-distribution accountant. The zero value of each field selects its
// default.
type PLDParams struct {
	// Discretization is the width h of the privacy-loss grid, in (0, 1) (default 1e-4). Smaller is
	// tighter and slower: the certified error (EpsilonBounds) shrinks roughly like h·√steps.
	Discretization float64
	// TailMass is the probability, in (0, 1e-3], that one truncation may move (default 1e-15): a single run's
	// loss beyond it is cut pessimistically (the upper tail to +∞, the lower tail onto the lowest kept
	// loss), and a composition's window leaves out at most this much on each side.
	TailMass float64
	// MaxGridPoints caps every grid and transform the accountant builds, in [16, 2²²] (default 2²², at most about
	// 450 MB of buffers for the two directions together). A composition that needs more returns a *GridError before allocating.
	MaxGridPoints int
}

// PLDAccountant accounts with privacy loss distributions (Meiser & Mohammadi 2018; Koskela, Jälkö & Honkela
// 2020; Doroshenko et al. 2022). Both directions of the add/remove relation are tracked and the worse is
// reported. The zero value is an empty accountant with the default parameters.
//
// Discretisation. One run's privacy loss L = ln(dP/dQ) (under P) is put on the grid ε_j = j·h by
// "connecting the dots": the P-mass of each cell (ε_j, ε_{j+1}] is split between its two ends so that both
// its P-mass and its Q-mass are kept. The result is the PLD whose privacy profile equals the true δ(ε) at
// every grid point and is linear in e^ε between them; since δ is convex in e^ε it lies above the true
// profile, and it is the profile of a pair that dominates the true one, so every composition of it is
// pessimistic. Each cell is computed from the smaller of its two tails, never as a difference of
// e^ε-sized quantities, and the round-off allowance of each split moves mass upwards only.
//
// Pessimistic truncation. P-mass beyond the loss range that holds all but TailMass on each side is moved:
// the upper part to +∞, the lower part onto the first grid point. Both moves can only raise δ.
//
// Composition and grid. k identical runs are composed with one forward real FFT, a pointwise k-th power
// and one inverse FFT (and one more forward transform of what was composed before, if anything); the two
// directions are computed concurrently. The transform
// covers only a window of the sum chosen from the composed distribution's mean and spread: Chernoff bounds
// give offsets holding all but TailMass on each side. Mass outside the window wraps around into it (extra
// mass, which only raises δ) and is also counted pessimistically: TailMass more at +∞ and the lower
// deficit moved onto the window's first point. Grids beyond MaxGridPoints are a *GridError, found before
// anything large is allocated.
//
// Round-off. Every δ reported includes an upper bound on the floating-point error of the masses: a
// relative bound for each cell computed from its tails (e^rel, compounded over the runs) and an absolute
// ℓ1 bound for the transforms (the radix-2 FFT bounds of Higham 2002, §24.1, carried through the k-th
// power); Epsilon solves for ε at δ with that bound taken off first.
//
// Certified error. EpsilonBounds also returns a lower bound on the true ε. Couple the true and the
// discretised losses run by run: a loss in (ε_j, ε_{j+1}] goes to one of the two ends, so it moves by less
// than h, upwards on average by at most ctdBias(h) ≈ h²/8, except on the truncation events. By
// Hoeffding's inequality n such roundings move the sum up by more than t = h·√(n·ln(1/δₑ)/2) + n·ctdBias(h)
// with probability at most δₑ (δ/1000 in EpsilonBounds, 1e−12 in DeltaBounds). Since δ(ε) = E[(1 − e^{ε−S})₊]
// is monotone in the summed loss S, δ_true(ε − t) ≥ δ_PLD(ε) − η with η the truncated, wrapped and
// round-off mass plus δₑ; hence ε_true(δ) ≥ ε_PLD(δ + η) − t. The gap is about h·√n·4 at δ = 1e−5 (0.03
// for 10⁴ runs at h = 1e−4), so h sets the accuracy: halve h to halve it.
//
// Supported events: GaussianEvent, LaplaceEvent, PoissonSampled(GaussianEvent) and Mixed of any of them.
type PLDAccountant struct {
	p           PLDParams
	remove, add *pmf
	history     []string
}

// NewPLDAccountant returns an empty accountant.
func NewPLDAccountant(p PLDParams) (*PLDAccountant, error) {
	p, err := p.withDefaults()
	if err != nil {
		return nil, err
	}
	return &PLDAccountant{p: p, remove: identityPMF(), add: identityPMF()}, nil
}

func (p PLDParams) withDefaults() (PLDParams, error) {
	if p.Discretization == 0 {
		p.Discretization = 1e-4
	}
	if p.TailMass == 0 {
		p.TailMass = 1e-15
	}
	if p.MaxGridPoints == 0 {
		p.MaxGridPoints = maxPLDPoints
	}
	return p, param.First(check.In("Discretization", p.Discretization, param.OpenUnit),
		check.In("TailMass", p.TailMass, param.Interval{Lo: 0, Hi: 1e-3, HiClosed: true}),
		check.Int("MaxGridPoints", p.MaxGridPoints, 16, maxPLDPoints))
}

// ready makes the zero value usable.
func (a *PLDAccountant) ready() {
	if a.remove == nil {
		a.p, _ = PLDParams{}.withDefaults()
		a.remove, a.add = identityPMF(), identityPMF()
	}
}

// tails returns the remove and add directions of one run of e. mirrored reports that add(ε) is remove(−ε)
// with the roles of P and Q swapped (discretizeMirrored), which holds for the subsampled Gaussian.
func tails(e Event) (remove, add lossTails, mirrored bool, err error) {
	if err := validateEvent(e); err != nil {
		return nil, nil, false, err
	}
	switch ev := e.(type) {
	case GaussianEvent:
		r, d := subsampledGaussianTails(1, ev.NoiseMultiplier)
		return r, d, true, nil
	case LaplaceEvent:
		l := laplaceTails(ev.NoiseMultiplier)
		return l, l, false, nil
	case Mixed:
		r, d, _, err := tails(ev.Event)
		if err != nil {
			return nil, nil, false, err
		}
		return mixedTails(ev.P, r), mixedTails(ev.P, d), false, nil
	case PoissonSampled:
		if g, ok := ev.Event.(GaussianEvent); ok {
			r, d := subsampledGaussianTails(ev.Q, g.NoiseMultiplier)
			return r, d, true, nil
		}
	}
	return nil, nil, false, &UnsupportedEventError{Accountant: "PLD", Event: e}
}

// Compose records count runs of e. On error nothing is recorded.
func (a *PLDAccountant) Compose(e Event, count int) error {
	a.ready()
	if err := checkCount(count); err != nil {
		return err
	}
	if e == nil {
		return check.Missing("e", "an Event to compose")
	}
	r, d, mirrored, err := tails(e)
	if err != nil {
		return err
	}
	if count == 0 {
		a.history = append(a.history, fmt.Sprintf("%d × %v", count, e))
		return nil
	}
	p := a.p
	// The two directions are independent: compute them concurrently (each result is the same whatever the
	// scheduling, so the accountant stays deterministic).
	var out, one [2]*pmf
	var errs [2]error
	if mirrored {
		// One evaluation of the tails serves both directions.
		one, errs = discretizeMirrored(r, p.Discretization, p.TailMass, p.MaxGridPoints)
	}
	var wg sync.WaitGroup
	for i, dir := range []struct {
		lt  lossTails
		acc *pmf
	}{{r, a.remove}, {d, a.add}} {
		if errs[i] != nil {
			continue
		}
		wg.Go(func() {
			var err error
			if one[i] == nil {
				one[i], err = discretize(dir.lt, p.Discretization, p.TailMass, p.MaxGridPoints)
			}
			if err == nil {
				out[i], err = composePower(dir.acc, one[i], count, p.TailMass, p.MaxGridPoints)
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for _, err := range errs {
		if ge, ok := err.(*GridError); ok {
			ge.Event, ge.Count, ge.Discretization = e, count, p.Discretization
			return ge
		} else if err != nil {
			return err
		}
	}
	a.remove, a.add = out[0], out[1]
	a.history = append(a.history, fmt.Sprintf("%d × %v", count, e))
	return nil
}

// Delta is the larger δ(ε) of the two directions, round-off bound included.
func (a *PLDAccountant) Delta(epsilon float64) (float64, error) {
	d, _, err := a.DeltaBounds(epsilon)
	return d, err
}

// DeltaBounds returns the δ(ε) that Delta reports and a certified lower bound on the true δ(ε) of the
// composition (see PLDAccountant for how).
func (a *PLDAccountant) DeltaBounds(epsilon float64) (delta, lower float64, err error) {
	a.ready()
	if err := check.In("epsilon", epsilon, param.NonNegative); err != nil {
		return 0, 0, err
	}
	h := a.p.Discretization
	for _, d := range []*pmf{a.remove, a.add} {
		delta = math.Max(delta, d.delta(epsilon, h)*math.Exp(d.rel)+d.num)
		t, eta := d.certSlack(h, 1e-12)
		lower = math.Max(lower, d.deltaLower(epsilon+t, h)*math.Exp(-d.rel)-eta)
	}
	return math.Min(delta, 1), math.Max(lower, 0), nil
}

// certSlack returns the shift t of the composed loss and the probability η outside the coupling (with δₑ
// the Hoeffding failure probability).
func (d *pmf) certSlack(h, de float64) (t, eta float64) {
	t = h*math.Sqrt(float64(d.steps)*math.Log(1/de)/2) + d.bias
	return t, d.moved + d.num + de
}

// Epsilon is the larger ε(δ) of the two directions: the smallest ε the discretised PLDs certify at δ.
func (a *PLDAccountant) Epsilon(delta float64) (float64, error) {
	e, _, err := a.EpsilonBounds(delta)
	return e, err
}

// EpsilonBounds returns the ε(δ) that Epsilon reports, an upper bound on the true ε of the composition,
// and a certified lower bound on it, so the true ε lies in [lower, eps] and eps − lower bounds the
// accountant's error. δ at or below the mass moved to +∞ (plus the round-off bound) is an error: no finite
// ε is certified there.
func (a *PLDAccountant) EpsilonBounds(delta float64) (eps, lower float64, err error) {
	a.ready()
	if err := checkDeltaPositive(delta); err != nil {
		return 0, 0, err
	}
	h := a.p.Discretization
	for _, d := range []*pmf{a.remove, a.add} {
		if (delta-d.num)*math.Exp(-d.rel) <= d.inf {
			return 0, 0, check.Errorf("delta", delta, "(%s, 1): below it lie the probability moved to infinite "+
				"loss by truncation (%s, TailMass %s each) and the round-off bound (%s), so no finite ε is certified",
				param.Format(d.inf+d.num), param.Format(d.inf), param.Format(a.p.TailMass), param.Format(d.num))
		}
		eps = math.Max(eps, d.epsilon((delta-d.num)*math.Exp(-d.rel), h))
		de := delta * 1e-3
		t, eta := d.certSlack(h, de)
		if up := (delta + eta) * math.Exp(d.rel); up < 1 {
			lower = math.Max(lower, d.epsilonLower(up, h)-t)
		}
	}
	return eps, math.Max(lower, 0), nil
}

// History lists the recorded events.
func (a *PLDAccountant) History() []string { return append([]string(nil), a.history...) }
