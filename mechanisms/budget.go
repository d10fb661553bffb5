package mechanisms

import (
	"fmt"
	"math"
)

// Budget is an (ε, δ) privacy budget spent by basic sequential composition: the ε's and δ's of the
// mechanisms run on the same data add up. It refuses any spend that would exceed its cap. (Tighter
// composition belongs in an Accountant; spend its result here as one item.)
type Budget struct {
	Epsilon, Delta float64 // the cap
	spentEps       float64
	spentDelta     float64
	items          []string
}

// NewBudget returns an unspent budget capped at (ε, δ), ε > 0, δ ∈ [0, 1).
func NewBudget(epsilon, delta float64) (*Budget, error) {
	if err := firstErr(checkEpsilon(epsilon), checkDelta(delta)); err != nil {
		return nil, err
	}
	return &Budget{Epsilon: epsilon, Delta: delta}, nil
}

// OverspendError reports a spend the budget refused.
type OverspendError struct {
	What                 string
	Epsilon, Delta       float64 // asked
	LeftEpsilon, LeftDel float64 // what remained
}

func (e *OverspendError) Error() string {
	return fmt.Sprintf("mechanisms: spending (ε=%.6g, δ=%.6g) on %s exceeds the remaining budget (ε=%.6g, δ=%.6g)",
		e.Epsilon, e.Delta, e.What, e.LeftEpsilon, e.LeftDel)
}

// Spend records (ε, δ) spent on what, or refuses with an *OverspendError and records nothing. A relative
// slack of 1e-12 absorbs rounding when a budget is split into parts that add up to it.
func (b *Budget) Spend(what string, epsilon, delta float64) error {
	if err := firstErr(inRange("epsilon", epsilon, 0, math.Inf(1), true, false), checkDelta(delta)); err != nil {
		return err
	}
	le, ld := b.Remaining()
	if epsilon > le+1e-12*b.Epsilon || delta > ld+1e-12*b.Delta {
		return &OverspendError{What: what, Epsilon: epsilon, Delta: delta, LeftEpsilon: le, LeftDel: ld}
	}
	b.spentEps += epsilon
	b.spentDelta += delta
	b.items = append(b.items, fmt.Sprintf("%s: ε=%g, δ=%g", what, epsilon, delta))
	return nil
}

// Remaining is what is left to spend (never negative).
func (b *Budget) Remaining() (epsilon, delta float64) {
	return math.Max(b.Epsilon-b.spentEps, 0), math.Max(b.Delta-b.spentDelta, 0)
}

// Spent is what was spent so far.
func (b *Budget) Spent() (epsilon, delta float64) { return b.spentEps, b.spentDelta }

// Items lists the spends in order.
func (b *Budget) Items() []string { return append([]string(nil), b.items...) }

// Split divides the cap (ε, δ) in the given proportions, e.g. Split(3, 1) gives (3ε/4, 3δ/4) and (ε/4, δ/4)
// as Sharma et al. do between data release and training. The parts add up to the cap.
func (b *Budget) Split(weights ...float64) ([][2]float64, error) {
	if len(weights) == 0 {
		return nil, fmt.Errorf("mechanisms: Split needs at least one weight")
	}
	total := 0.0
	for i, w := range weights {
		if err := inRange(fmt.Sprintf("weights[%d]", i), w, 0, math.Inf(1), false, false); err != nil {
			return nil, err
		}
		total += w
	}
	parts := make([][2]float64, len(weights))
	for i, w := range weights {
		parts[i] = [2]float64{b.Epsilon * w / total, b.Delta * w / total}
	}
	return parts, nil
}
