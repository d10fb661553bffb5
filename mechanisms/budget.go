package mechanisms

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"sync"

	"github.com/dprl-project/dprl/dprl/param"
)

// Budget is an (ε, δ) privacy budget spent by basic sequential composition: the ε's and δ's of the
// mechanisms run on the same data add up. It refuses any spend that would exceed its cap. (Tighter
// composition belongs in an Accountant; spend its result here as one item.)
//
// A Budget is made only by NewBudget, which validates the cap; the zero value has no cap and refuses every
// spend with ErrNoBudget (it never acts as an unlimited budget).
//
// Exact arithmetic. Every amount (the cap and each spend) is read as the decimal number it prints as: the
// shortest decimal that converts back to the same float64, so 0.1 is exactly one tenth. Spent amounts are
// added exactly as rationals (math/big.Rat) and compared exactly with the cap, so no rounding error
// accumulates and no tolerance is needed: ten spends of 0.1 use up a cap of 1 exactly, and then a spend of
// the smallest positive float64 is refused. Reading a float64 as its shortest decimal moves it by less than
// half a unit in its last place (a relative 2⁻⁵³ ≈ 1.1·10⁻¹⁶), the precision every ε computed in float64 has
// anyway; within that precision, what the Budget accepts is what was spent.
//
// Concurrency. A Budget is safe for concurrent use: every method holds one lock for its whole
// check-and-record, so goroutines spending from the same Budget never both pass the check on the same
// remainder, and Spent, Remaining and Items always see a set of whole spends. Under any interleaving the
// accepted spends add up to at most the cap. A Budget must not be copied after first use.
type Budget struct {
	mu             sync.Mutex
	valid          bool
	capEps, capDel *big.Rat
	spentEps       *big.Rat
	spentDel       *big.Rat
	items          []string
}

// ErrNoBudget is returned by every spend from a Budget that was not made by NewBudget.
var ErrNoBudget = errors.New("mechanisms: this Budget was not made by NewBudget and has no cap; it refuses every spend")

// NewBudget returns an unspent budget capped at (epsilon, delta), epsilon ∈ (0, ∞), delta ∈ [0, 1).
func NewBudget(epsilon, delta float64) (*Budget, error) {
	if err := param.First(checkEpsilon(epsilon), checkDelta(delta)); err != nil {
		return nil, err
	}
	return &Budget{valid: true, capEps: decimalRat(epsilon), capDel: decimalRat(delta),
		spentEps: new(big.Rat), spentDel: new(big.Rat)}, nil
}

// decimalRat returns the shortest decimal that reads back as v (v finite), as an exact rational.
func decimalRat(v float64) *big.Rat {
	r, ok := new(big.Rat).SetString(strconv.FormatFloat(v, 'g', -1, 64))
	if !ok { // unreachable for finite v; fall back to the exact binary value
		r = new(big.Rat).SetFloat64(v)
	}
	return r
}

// ratFloat returns r rounded to the nearest float64.
func ratFloat(r *big.Rat) float64 { f, _ := r.Float64(); return f }

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

// Epsilon is the ε cap (0 for a Budget not made by NewBudget).
func (b *Budget) Epsilon() float64 {
	if b == nil || !b.valid {
		return 0
	}
	return ratFloat(b.capEps)
}

// Delta is the δ cap (0 for a Budget not made by NewBudget).
func (b *Budget) Delta() float64 {
	if b == nil || !b.valid {
		return 0
	}
	return ratFloat(b.capDel)
}

// Spend records (epsilon, delta) spent on what, or refuses and records nothing: with a *ParamError for
// epsilon outside [0, ∞) or delta outside [0, 1), with an *OverspendError if the exact running total would
// exceed the cap in ε or in δ, and with ErrNoBudget for a Budget not made by NewBudget.
func (b *Budget) Spend(what string, epsilon, delta float64) error {
	if b == nil || !b.valid {
		return ErrNoBudget
	}
	if err := param.First(check.In("epsilon", epsilon, param.NonNegative), checkDelta(delta)); err != nil {
		return err
	}
	de, dd := decimalRat(epsilon), decimalRat(delta)
	b.mu.Lock()
	defer b.mu.Unlock()
	ne := new(big.Rat).Add(b.spentEps, de)
	nd := new(big.Rat).Add(b.spentDel, dd)
	if ne.Cmp(b.capEps) > 0 || nd.Cmp(b.capDel) > 0 {
		le, ld := b.remaining()
		return &OverspendError{What: what, Epsilon: epsilon, Delta: delta, LeftEpsilon: le, LeftDel: ld}
	}
	b.spentEps, b.spentDel = ne, nd
	b.items = append(b.items, fmt.Sprintf("%s: ε=%g, δ=%g", what, epsilon, delta))
	return nil
}

// Remaining is what is left to spend, each rounded to the nearest float64 (never negative; (0, 0) for a
// Budget not made by NewBudget).
func (b *Budget) Remaining() (epsilon, delta float64) {
	if b == nil || !b.valid {
		return 0, 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.remaining()
}

// remaining is Remaining with b.mu held.
func (b *Budget) remaining() (epsilon, delta float64) {
	return ratFloat(new(big.Rat).Sub(b.capEps, b.spentEps)), ratFloat(new(big.Rat).Sub(b.capDel, b.spentDel))
}

// Spent is what was spent so far, each rounded to the nearest float64.
func (b *Budget) Spent() (epsilon, delta float64) {
	if b == nil || !b.valid {
		return 0, 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return ratFloat(b.spentEps), ratFloat(b.spentDel)
}

// Items lists the spends in order.
func (b *Budget) Items() []string {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.items...)
}

// Split divides the cap (ε, δ) in the given proportions, e.g. Split(3, 1) gives (3ε/4, 3δ/4) and (ε/4, δ/4)
// (Sharma et al. split ε this way between data release and training, δ as 9:1). Each part is rounded down
// where needed so that spending all of them always fits the cap.
func (b *Budget) Split(weights ...float64) ([][2]float64, error) {
	if b == nil || !b.valid {
		return nil, ErrNoBudget
	}
	if len(weights) == 0 {
		return nil, check.Missing("weights", "at least one positive weight")
	}
	total := new(big.Rat)
	for i, w := range weights {
		if err := check.In(fmt.Sprintf("weights[%d]", i), w, param.Positive); err != nil {
			return nil, err
		}
		total.Add(total, new(big.Rat).SetFloat64(w))
	}
	parts := make([][2]float64, len(weights))
	for i, w := range weights {
		share := new(big.Rat).Quo(new(big.Rat).SetFloat64(w), total)
		parts[i] = [2]float64{floorDecimal(new(big.Rat).Mul(b.capEps, share)), floorDecimal(new(big.Rat).Mul(b.capDel, share))}
	}
	return parts, nil
}

// floorDecimal returns the largest float64 near r whose shortest decimal is at most r (r ≥ 0).
func floorDecimal(r *big.Rat) float64 {
	f := ratFloat(r)
	for f > 0 && decimalRat(f).Cmp(r) > 0 {
		f = math.Nextafter(f, 0)
	}
	return f
}
