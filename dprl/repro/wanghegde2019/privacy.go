package wanghegde2019

import (
	"errors"
	"fmt"
	"math"

	"github.com/dprl-project/dprl/dprl/fnq"
	"github.com/dprl-project/dprl/mechanisms"
)

// Privacy is what one setting's run certifies for neighbouring reward functions (‖r − r′‖∞ ≤ 1), worked
// out before the run; the runs check it against what they did (the number of rewards or steps released, the
// library's own guarantee for Algorithm 1).
type Privacy struct {
	// Guarantee says the run is (Epsilon, Delta)-DP; Epsilon is the exact accountant's ε at Delta (0 and 0
	// for a policy that reads no data).
	Guarantee      bool
	Epsilon, Delta float64
	// NonPrivate marks a deliberate non-private reference (ε = ∞), as opposed to a private method whose
	// guarantee does not hold.
	NonPrivate bool
	Basis      string // how ε is computed, or why there is no guarantee
}

// Labels of the settings without a guarantee, as figures and tables print them.
const (
	NoGuaranteeLabel = "no privacy guarantee"
	NonPrivateLabel  = "non-private"
)

// Label is the short form shown in legends: "ε = 0.9", "ε = 0", NoGuaranteeLabel or NonPrivateLabel.
func (p Privacy) Label() string {
	switch {
	case p.Guarantee:
		return fmt.Sprintf("ε = %.3g", p.Epsilon)
	case p.NonPrivate:
		return NonPrivateLabel
	}
	return NoGuaranteeLabel
}

// gdpPrivacy is the guarantee of a μ-GDP run at δ: ε from the exact GDP profile.
func gdpPrivacy(mu, delta float64, basis string) (Privacy, error) {
	eps, err := mechanisms.GDPEpsilon(mu, delta)
	if err != nil {
		return Privacy{}, err
	}
	return Privacy{Guarantee: true, Epsilon: eps, Delta: delta, Basis: basis}, nil
}

// noGuarantee is a private method's setting whose guarantee does not hold, for the reason why.
func noGuarantee(why string) Privacy { return Privacy{Basis: why} }

// nonPrivate is a deliberate non-private reference.
func nonPrivate(what string) Privacy {
	return Privacy{NonPrivate: true, Epsilon: math.Inf(1), Basis: what}
}

// dataFree is the guarantee of a policy that never reads a reward.
var dataFree = Privacy{Guarantee: true, Basis: "reads no reward: ε = 0, δ = 0"}

// codeConfigWhy is why the code configuration has no guarantee.
const codeConfigWhy = "Theorem 5 does not cover the code configuration: about 50 replayed minibatch steps per episode with RMSprop, β = 1, " +
	"a target network and no Lipschitz bound, so no sensitivity bound holds"

// TailShare is the share of δ the corrected Algorithm 1 leaves to the tail event: σ is the exact GDP σ at
// (1 − TailShare)·δ and k the smallest integer whose corrected tail is at most TailShare·δ.
const TailShare = 0.01

// Corrected is the corrected calibration of c: the m-action sensitivity (MActionCorrection), σ the exact
// GDP σ (run with UseGDPSigma) at (1 − TailShare)·δ, and k the smallest integer at which Theorem 5's
// precondition holds and the corrected tail at that σ is at most TailShare·δ, so that the run is (ε, δ)-DP
// exactly. Everything else (T, B, α, L, J) is c's.
func Corrected(c fnq.Calibration) (fnq.Calibration, error) {
	budget := TailShare * c.Delta
	c.MActionCorrection = true
	c.Delta *= 1 - TailShare
	ok := func(k float64) (bool, error) {
		c.K = k
		x, err := c.Compute()
		if err != nil {
			return false, err
		}
		t := c.TailAt(x.Beta, x.SigmaGDP)
		return t.Covered && t.Conservative <= budget, nil
	}
	lo, hi := 0.0, 1.0 // lo fails (or is 0), hi is tried
	for {
		good, err := ok(hi)
		if err != nil {
			return c, err
		}
		if good {
			break
		}
		if lo, hi = hi, 2*hi; hi > 1e12 {
			return c, fmt.Errorf("wanghegde2019: %w up to 1e12 at ε = %g, δ = %g", errNoTailLevel, c.Epsilon, c.Delta)
		}
	}
	for hi-lo > 1 {
		mid := math.Floor((lo + hi) / 2)
		good, err := ok(mid)
		if err != nil {
			return c, err
		}
		if good {
			hi = mid
		} else {
			lo = mid
		}
	}
	c.K = hi
	return c, nil
}

// errNoTailLevel is Corrected's error when no tail level k meets the corrected tail.
var errNoTailLevel = errors.New("no tail level k meets the corrected tail")

// noTailLevel reports whether err says that no tail level k meets the corrected tail.
func noTailLevel(err error) bool { return errors.Is(err, errNoTailLevel) }

// alg1Privacy is what an Algorithm 1 run with calibration c certifies (σ = SigmaGDP when gdp, else
// Theorem 5's): the m outputs' T′ releases as μ-GDP with μ = √(m·T′·C₁)/σ, C₁ = (v² + v)L² one action's
// squared RKHS sensitivity, at δ plus the corrected tail; no guarantee when Theorem 5's precondition fails,
// the corrected tail is vacuous or the exact ε exceeds the target. It also returns σ.
func alg1Privacy(c fnq.Calibration, gdp bool) (Privacy, float64, error) {
	k, err := c.Compute()
	if err != nil {
		return Privacy{}, 0, err
	}
	sigma := k.SigmaThm5
	if gdp {
		sigma = k.SigmaGDP
	}
	t := c.TailAt(k.Beta, sigma)
	c1 := (k.V*k.V + k.V) * c.L * c.L
	p, err := gdpPrivacy(math.Sqrt(float64(c.Actions*k.Steps)*c1)/sigma, c.Delta, "")
	if err != nil {
		return Privacy{}, 0, err
	}
	switch {
	case !t.Covered:
		return noGuarantee(fmt.Sprintf("outside Theorem 5: its precondition 2k > 8.68√β·σ fails (2k − 8.68√β·σ = %.0f)", t.Margin)), sigma, nil
	case c.Delta+t.Conservative >= 1:
		return noGuarantee(fmt.Sprintf("the corrected tail is vacuous: k = %g ≤ 8.68√β·σ = %.0f", c.K, t.Level)), sigma, nil
	case p.Epsilon > c.Epsilon*(1+1e-9):
		return noGuarantee(fmt.Sprintf("with all %d outputs moving the exact ε is %.3g > %g", c.Actions, p.Epsilon, c.Epsilon)), sigma, nil
	}
	p.Delta += t.Conservative
	p.Basis = fmt.Sprintf("%d releases (m = %d outputs each) as μ-GDP, μ = %.3g, at δ = %.3g, plus the corrected tail %.1g (k = %g, 8.68√β·σ = %.0f)",
		k.Steps, c.Actions, math.Sqrt(float64(c.Actions*k.Steps)*c1)/sigma, c.Delta, t.Conservative, c.K, t.Level)
	return p, sigma, nil
}

// PrivacyTable is, for every setting, what its run certifies: whether it has a guarantee, ε by the exact
// accountant, δ, and the basis (or why there is none).
func PrivacyTable(settings []Setting) (header []string, rows [][]string) {
	rows = make([][]string, len(settings))
	for i, s := range settings {
		eps, delta := "—", "—"
		switch {
		case s.Privacy.Guarantee:
			eps, delta = fmt.Sprintf("%.6g", s.Privacy.Epsilon), fmt.Sprintf("%.3g", s.Privacy.Delta)
		case s.Privacy.NonPrivate:
			eps = "∞"
		}
		rows[i] = []string{s.Name, s.Privacy.Label(), eps, delta, s.Privacy.Basis}
	}
	return []string{"setting", "privacy", "ε (exact accountant)", "δ", "basis"}, rows
}
