package session

import (
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/dprl-project/dprl/dprl/param"
	"github.com/dprl-project/dprl/mechanisms"
)

// check rejects values on behalf of this package.
const check param.Checker = "session"

// FilterKind names how a session composes its releases.
type FilterKind int

const (
	// Basic composition: the releases' ε's add up, and so do their δ's. Valid when every release's
	// parameters are chosen after seeing the earlier ones (Rogers et al. 2016).
	Basic FilterKind = iota
	// Renyi is a Rényi filter over a fixed grid of orders (Feldman & Zrnic 2021), which takes (ε, δ)-releases
	// through the Rényi curve of randomized response and a reserved share of δ (package doc).
	Renyi
)

// String is "basic" or "renyi", the names the ledger and the dprl command use.
func (k FilterKind) String() string {
	switch k {
	case Basic:
		return "basic"
	case Renyi:
		return "renyi"
	}
	return fmt.Sprintf("FilterKind(%d)", int(k))
}

// ParseFilter reads a filter's name ("basic" or "renyi").
func ParseFilter(name string) (FilterKind, error) {
	switch name {
	case "basic":
		return Basic, nil
	case "renyi", "rényi":
		return Renyi, nil
	}
	return 0, check.OneOf("filter", name, "basic", "renyi")
}

// DefaultOrders is the Rényi filter's order grid unless a Total names its own: 20 orders from 1.5 to 1024.
// Few orders keep the union bound's share log(20) small; the large ones let a handful of large releases
// compose almost as well as basic composition does.
func DefaultOrders() []float64 {
	return []float64{1.5, 1.75, 2, 2.5, 3, 4, 5, 6, 8, 10, 12, 16, 20, 32, 48, 64, 128, 256, 512, 1024}
}

// Total is the budget of one dataset: the (ε, δ)-DP guarantee promised for everything ever released from
// it, and the filter that keeps the promise.
type Total struct {
	Epsilon, Delta float64
	Filter         FilterKind
	// Orders are the Rényi filter's orders, strictly increasing, each in (1, ∞) (nil: DefaultOrders).
	// Unused by Basic.
	Orders []float64
	// ApproxDelta is the part of Delta that the δ's of (ε, δ)-releases may use up under the Rényi filter
	// (0: Delta/2); the rest, Delta − ApproxDelta, pays the conversion from Rényi DP, split evenly over the
	// orders. Unused by Basic.
	ApproxDelta float64
}

// withDefaults validates t and fills in the Rényi filter's defaults.
func (t Total) withDefaults() (Total, error) {
	if err := check.In("Epsilon", t.Epsilon, param.Positive); err != nil {
		return t, err
	}
	switch t.Filter {
	case Basic:
		if err := check.In("Delta", t.Delta, param.Interval{Lo: 0, Hi: 1, LoClosed: true}); err != nil {
			return t, err
		}
		t.Orders, t.ApproxDelta = nil, 0
		return t, nil
	case Renyi:
	default:
		return t, check.Int("Filter", int(t.Filter), int(Basic), int(Renyi))
	}
	if err := check.In("Delta", t.Delta, param.OpenUnit); err != nil {
		return t, err
	}
	if t.Orders == nil {
		t.Orders = DefaultOrders()
	}
	if len(t.Orders) == 0 {
		return t, check.Missing("Orders", "at least one order in (1, ∞)")
	}
	for i, a := range t.Orders {
		if !(a > 1 && a < math.Inf(1)) || i > 0 && !(a > t.Orders[i-1]) {
			return t, check.Errorf(fmt.Sprintf("Orders[%d]", i), a, "an order in (1, ∞) above Orders[%d]", max(i-1, 0))
		}
	}
	t.Orders = slices.Clone(t.Orders)
	if t.ApproxDelta == 0 {
		t.ApproxDelta = t.Delta / 2
	}
	if err := check.In("ApproxDelta", t.ApproxDelta, param.Interval{Lo: 0, Hi: t.Delta}); err != nil {
		return t, err
	}
	return t, nil
}

// String describes the budget: "(ε = 1, δ = 1e-05) by basic composition".
func (t Total) String() string {
	s := fmt.Sprintf("(ε = %g, δ = %g)", t.Epsilon, t.Delta)
	if t.Filter == Renyi {
		return s + fmt.Sprintf(" by a Rényi filter over %d orders (δ ≤ %g for the δ's of (ε, δ)-releases)", len(t.Orders), t.ApproxDelta)
	}
	return s + " by basic composition"
}

// Charge is the privacy cost of one release, stated by the code that makes it before any noise is drawn.
type Charge struct {
	// Mechanism says what is released, e.g. "DP-LSL θ (smooth-sensitivity Gaussian)".
	Mechanism string
	// Epsilon and Delta are the release's (ε, δ)-DP guarantee under the session's neighbouring relation;
	// basic composition adds them up. Epsilon lies in (0, ∞), Delta in [0, 1).
	Epsilon, Delta float64
	// RDP, when set, bounds the release's Rényi divergence at every order α > 1 (its Rényi-DP curve, e.g.
	// from mechanisms.RDPOf). The Rényi filter then charges this curve and no δ; without it, the release
	// is charged as an (Epsilon, Delta)-DP mechanism.
	RDP func(order float64) float64
}

func (c Charge) validate() error {
	if strings.TrimSpace(c.Mechanism) == "" {
		return check.Missing("Mechanism", "a name for what is released")
	}
	return param.First(check.In("Epsilon", c.Epsilon, param.Positive),
		check.In("Delta", c.Delta, param.Interval{Lo: 0, Hi: 1, LoClosed: true}))
}

// Entry is one release in a ledger.
type Entry struct {
	Seq            int // 1, 2, … in the order of the charges
	Time           string
	Mechanism      string
	Epsilon, Delta float64
	RDP            []float64 // the charge's Rényi curve at the budget's orders (nil: charged as (ε, δ)-DP)
}

// entry evaluates c at the budget's orders.
func (t Total) entry(c Charge) (Entry, error) {
	if err := c.validate(); err != nil {
		return Entry{}, err
	}
	e := Entry{Mechanism: c.Mechanism, Epsilon: c.Epsilon, Delta: c.Delta}
	if c.RDP != nil && t.Filter == Renyi {
		e.RDP = make([]float64, len(t.Orders))
		for i, a := range t.Orders {
			r := c.RDP(a)
			if !(r >= 0) {
				return Entry{}, check.Errorf(fmt.Sprintf("RDP(%g)", a), r, "a Rényi divergence bound in [0, ∞]")
			}
			e.RDP[i] = r
		}
	}
	return e, nil
}

// RandomizedResponseRDP is the Rényi divergence of order α > 1 between the two output distributions of
// ε-randomized response, (1/(α−1))·log((e^{αε} + e^{(1−α)ε})/(1 + e^ε)), rounded up. It bounds the Rényi
// divergence of every ε-DP mechanism (each is randomized response followed by post-processing: Kairouz,
// Oh & Viswanath 2015), and is at most min(ε, αε²/2).
func RandomizedResponseRDP(eps, alpha float64) float64 {
	if eps == 0 {
		return 0
	}
	// ε − [log(1 + e^{−ε}) − log(1 + e^{−(2α−1)ε})]/(α−1), free of overflow. The bracket is computed to
	// within a few units of 1e−16 (absolute), an error the division by α − 1 amplifies for orders near 1, so
	// 1e−15/(α−1) more covers it, and 1e−15·(1 + ε) the rounding of the rest.
	b := math.Log1p(math.Exp(-eps)) - math.Log1p(math.Exp(-(2*alpha-1)*eps))
	r := eps - b/(alpha-1) + 1e-15*(1+eps) + 1e-15/(alpha-1)
	return max(0, min(r, eps, alpha*eps*eps/2*(1+1e-15)))
}

// account is a budget's state: what the releases so far have used.
type account struct {
	t     Total
	n     int
	basic *mechanisms.Budget // Basic: exact sums of ε and δ
	rdp   []float64          // Renyi: the releases' Rényi curves summed, per order
	delta *big.Rat           // Renyi: the δ's of the (ε, δ)-releases, summed exactly
}

func newAccount(t Total) (*account, error) {
	t, err := t.withDefaults()
	if err != nil {
		return nil, err
	}
	a := &account{t: t}
	if t.Filter == Basic {
		a.basic, err = mechanisms.NewBudget(t.Epsilon, t.Delta)
		return a, err
	}
	a.rdp, a.delta = make([]float64, len(t.Orders)), new(big.Rat)
	return a, nil
}

// decimal is v read as the shortest decimal that prints it (as mechanisms.Budget reads amounts).
func decimal(v float64) *big.Rat {
	r, _ := new(big.Rat).SetString(strconv.FormatFloat(v, 'g', -1, 64))
	return r
}

// curve is e's Rényi curve at the budget's orders and the δ the Rényi filter charges for it.
func (a *account) curve(e Entry) ([]float64, float64) {
	if e.RDP != nil {
		return e.RDP, 0
	}
	c := make([]float64, len(a.t.Orders))
	for i, o := range a.t.Orders {
		c[i] = RandomizedResponseRDP(e.Epsilon, o)
	}
	return c, e.Delta
}

// conversionDelta is the δ each order's conversion may use, (Delta − ApproxDelta)/len(Orders), rounded down.
func (a *account) conversionDelta() float64 {
	return (a.t.Delta - a.t.ApproxDelta) / float64(len(a.t.Orders)) * (1 - 0x1p-50)
}

// epsilonAt is the ε that order i certifies for an accumulated Rényi divergence r (improved conversion),
// with r rounded up for the n float additions behind it.
func (a *account) epsilonAt(i int, r float64, n int) float64 {
	r *= 1 + float64(n+2)*0x1p-52
	e, _, err := mechanisms.RDPToEpsilon(a.t.Orders[i:i+1], []float64{r}, a.conversionDelta(), mechanisms.ConversionImproved)
	if err != nil {
		return math.Inf(1)
	}
	return e
}

// add records one more release e, or returns false and records nothing when it does not fit.
func (a *account) add(e Entry) bool {
	if a.t.Filter == Basic {
		if a.basic.Spend(e.Mechanism, e.Epsilon, e.Delta) != nil {
			return false
		}
		a.n++
		return true
	}
	c, d := a.curve(e)
	nd := new(big.Rat).Add(a.delta, decimal(d))
	if nd.Cmp(decimal(a.t.ApproxDelta)) > 0 {
		return false
	}
	sum := make([]float64, len(c))
	fits := false
	for i := range c {
		sum[i] = a.rdp[i] + c[i]
		if !fits && a.epsilonAt(i, sum[i], a.n+1)*(1+1e-12) <= a.t.Epsilon {
			fits = true
		}
	}
	if !fits {
		return false
	}
	a.rdp, a.delta, a.n = sum, nd, a.n+1
	return true
}

// Status is how much of a budget is used.
type Status struct {
	Total    Total
	Releases int
	// Epsilon is the ε spent: the sum of the releases' ε's (basic), or the smallest ε any order certifies
	// for what was released at its share of δ (Rényi). EpsilonLeft = Total.Epsilon − Epsilon.
	Epsilon, EpsilonLeft float64
	// Delta is the δ spent: the sum of the releases' δ's (basic) or of the (ε, δ)-releases' δ's (Rényi).
	// DeltaLeft is what remains of Total.Delta (basic) or of Total.ApproxDelta (Rényi).
	Delta, DeltaLeft float64
}

func (a *account) status() Status {
	s := Status{Total: a.t, Releases: a.n}
	if a.t.Filter == Basic {
		s.Epsilon, s.Delta = a.basic.Spent()
		s.EpsilonLeft, s.DeltaLeft = a.basic.Remaining()
		return s
	}
	if a.n > 0 {
		s.Epsilon = math.Inf(1)
		for i, r := range a.rdp {
			s.Epsilon = min(s.Epsilon, a.epsilonAt(i, r, a.n))
		}
	}
	s.EpsilonLeft = max(0, a.t.Epsilon-s.Epsilon)
	s.Delta, _ = a.delta.Float64()
	left, _ := new(big.Rat).Sub(decimal(a.t.ApproxDelta), a.delta).Float64()
	s.DeltaLeft = max(0, left)
	return s
}

// String is one line: "spent (ε = 0.3, δ = 1e-06) in 2 releases, left (ε = 0.7, δ = 9e-06)".
func (s Status) String() string {
	plural := "s"
	if s.Releases == 1 {
		plural = ""
	}
	return fmt.Sprintf("spent (ε = %.4g, δ = %.3g) in %d release%s, left (ε = %.4g, δ = %.3g)", s.Epsilon, s.Delta, s.Releases, plural, s.EpsilonLeft, s.DeltaLeft)
}

// BudgetError is a release the budget refused: nothing was charged and nothing released.
type BudgetError struct {
	Dataset string // the dataset's hash
	Asked   Charge
	Status  Status // before the refused release
}

func (e *BudgetError) Error() string {
	return fmt.Sprintf("session: privacy budget exhausted for dataset %s: %s asks (ε = %g, δ = %g); the budget is %s, %s. Nothing was released.",
		short(e.Dataset), e.Asked.Mechanism, e.Asked.Epsilon, e.Asked.Delta, e.Status.Total, e.Status)
}

// Capacity is how many releases like c an unspent budget t admits one after another, up to limit: planning
// without spending, by the same admission test a session applies.
func (t Total) Capacity(c Charge, limit int) (int, error) {
	a, err := newAccount(t)
	if err != nil {
		return 0, err
	}
	e, err := a.t.entry(c)
	if err != nil {
		return 0, err
	}
	k := 0
	for k < limit && a.add(e) {
		k++
	}
	return k, nil
}
