package expertdp

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/dprl-project/dprl/dprl/param"
	"github.com/dprl-project/dprl/mechanisms"
)

// check rejects values on behalf of this package.
const check param.Checker = "expertdp"

// ReleaseConstants are DataRelease's derived constants (Algorithm 2, Theorems 5.3 and 5.5).
type ReleaseConstants struct {
	Epsilon, Delta float64 // (ε1, δ1) of the release
	T, L           int     // trajectories examined; longest demonstration
	PMin           float64
	EpsPrime       float64 // ε' = ε1 / sqrt(32·T·ln(2/δ1))
	DeltaPrime     float64 // δ' = δ1 / (2·T·L)
	CMin           float64 // e^ε' / (e^ε' − 1)
	Theta          float64 // c_min / p_min
	Offset         float64 // (4/ε')·ln(1/δ'), added to θ before the threshold noise
	ThresholdScale float64 // Laplace scale of the threshold noise, 2/ε'
	QueryScale     float64 // Laplace scale of each prefix query's noise, 4/ε'
	// RoundEpsilon, RoundDelta are one examined trajectory's guarantee (2ε', δ1/(2T)) (Theorem 5.3).
	RoundEpsilon, RoundDelta float64
	// CompositionEpsilon is what advanced composition (Dwork–Roth Thm 3.20, slack δ1/2) certifies for the
	// T rounds; Theorem 5.5 claims ε1 by Cor. 3.21, which is stated only for ε1 < 1 (package doc, "Caveats").
	CompositionEpsilon float64
}

// MeanThreshold is E[θ̂] = θ + (4/ε')·ln(1/δ').
func (c ReleaseConstants) MeanThreshold() float64 { return c.Theta + c.Offset }

// AgreeingPrefix is the longest prefix whose count stays above the mean threshold when all m experts of
// |A| actions agree on every action: the largest k with m·(1 − (|A|−1)·p_min)^k > E[θ̂] (−1 when even the
// empty prefix, count m, is below it).
func (c ReleaseConstants) AgreeingPrefix(m, actions int) int {
	top := 1 - float64(actions-1)*c.PMin
	thr := c.MeanThreshold()
	if float64(m) <= thr {
		return -1
	}
	return int(math.Ceil(math.Log(thr/float64(m))/math.Log(top))) - 1
}

// Constants computes the release constants for (ε1, δ1), p_min, T examined trajectories and longest
// demonstration L.
func Constants(eps1, delta1, pMin float64, T, L int) (ReleaseConstants, error) {
	if err := param.First(check.In("eps1", eps1, param.Positive), check.In("delta1", delta1, param.OpenUnit),
		check.In("pMin", pMin, param.Interval{Lo: 0, Hi: 0.5, HiClosed: true}), check.AtLeast("T", T, 1),
		check.AtLeast("L", L, 1)); err != nil {
		return ReleaseConstants{}, err
	}
	c := ReleaseConstants{Epsilon: eps1, Delta: delta1, T: T, L: L, PMin: pMin}
	c.EpsPrime = eps1 / math.Sqrt(32*float64(T)*math.Log(2/delta1))
	c.DeltaPrime = delta1 / (2 * float64(T) * float64(L))
	c.CMin = math.Exp(c.EpsPrime) / math.Expm1(c.EpsPrime)
	c.Theta = c.CMin / pMin
	c.Offset = 4 / c.EpsPrime * math.Log(1/c.DeltaPrime)
	c.ThresholdScale = 2 / c.EpsPrime
	c.QueryScale = 4 / c.EpsPrime
	c.RoundEpsilon, c.RoundDelta = 2*c.EpsPrime, delta1/(2*float64(T))
	eps, _, err := mechanisms.AdvancedComposition(c.RoundEpsilon, c.RoundDelta, T, delta1/2)
	if err != nil {
		return ReleaseConstants{}, err
	}
	c.CompositionEpsilon = eps
	return c, nil
}

// PrefixCounter computes count_τ(Π) = Σ_{π∈Π} Π_{j≤k} π(a_j | s_j) for k = 1, 2, … along one trajectory,
// keeping one running product per expert: each step multiplies every product by 1 − (|A|−1)·p_min where
// the expert's greedy action is a_k and by p_min elsewhere. The experts' greedy actions are computed in
// batches of states (one matrix product per batch for linear experts), only as far as the prefix goes.
type PrefixCounter struct {
	e        *Experts
	hi, lo   float64
	prod     []float64
	acts     []int
	traj     *Traj
	k, from  int // next action index; first state of the computed batch
	computed int // states computed in the batch
	scratch  actScratch
}

// counterBatch is the largest batch of states whose greedy actions are computed at once; batches start at
// one state and double, since most prefixes stop within a few queries.
const counterBatch = 32

// NewPrefixCounter returns a counter over experts e with p_min mixing.
func NewPrefixCounter(e *Experts, pMin float64) (*PrefixCounter, error) {
	if e == nil || e.Domain == nil {
		return nil, check.Missing("e", "an expert set with its domain")
	}
	if err := checkPMin(pMin, e.Domain.NumActions); err != nil {
		return nil, err
	}
	return &PrefixCounter{e: e, hi: 1 - float64(e.Domain.NumActions-1)*pMin, lo: pMin,
		prod: make([]float64, e.Len()), acts: make([]int, counterBatch*e.Len())}, nil
}

// Start begins trajectory t: the empty prefix, count m.
func (c *PrefixCounter) Start(t *Traj) {
	c.traj, c.k, c.from, c.computed = t, 0, 0, 0
	for i := range c.prod {
		c.prod[i] = 1
	}
}

// Next extends the prefix by one action and returns its count; ok is false past the trajectory's end.
func (c *PrefixCounter) Next() (count float64, ok bool) {
	t := c.traj
	if c.k >= t.Len() {
		return 0, false
	}
	m := len(c.prod)
	if c.k >= c.from+c.computed {
		c.from = c.k
		c.computed = min(max(1, min(2*c.computed, counterBatch)), t.Len()-c.k)
		d := c.e.Domain.ObsDim
		c.e.actAll(t.Obs[c.k*d:(c.k+c.computed)*d], c.computed, c.acts, &c.scratch)
	}
	row := c.acts[(c.k-c.from)*m : (c.k-c.from+1)*m]
	a := t.Actions[c.k]
	for i, g := range row {
		if g == a {
			c.prod[i] *= c.hi
		} else {
			c.prod[i] *= c.lo
		}
		count += c.prod[i]
	}
	c.k++
	return count, true
}

// Segment is transitions From … To−1 of trajectory Traj of a Data.
type Segment struct{ Traj, From, To int }

// ReleaseParams configures DataRelease.
type ReleaseParams struct {
	Epsilon, Delta float64 // (ε1, δ1)
	PMin           float64
	T              int // unstable query cutoff: the number of trajectories examined, ≤ N·m
	// L is the public bound on a demonstration's length that enters δ' = δ1/(2TL); 0 takes the domain's
	// Domain.DemoLen. It must not be read off the data (Data.MaxLen would make the threshold depend on
	// the data); no prefix longer than L is queried.
	L   int
	Src rand.Source
}

// Release is DataRelease's output and what it did. Train trusts its split of the log into stable data
// (trained on without noise) and unstable data, so the split cannot be edited: the fields are read through
// the methods of the same names, and the only derived release, PrependLog, marks more data unstable.
type Release struct {
	constants ReleaseConstants
	examined  []int // trajectory indices examined, in order
	stableLen []int // the stable prefix length kept from each examined trajectory (0: none)
	stable    []Segment
	unstable  []Segment // the tails of the examined trajectories and every other trajectory
	queries   int       // prefix queries answered
	cut       int
	trajs     int // trajectories in the log the release is about
}

// Constants are the release's constants.
func (r *Release) Constants() ReleaseConstants { return r.constants }

// Examined lists the indices of the trajectories examined, in order (a copy).
func (r *Release) Examined() []int { return slices.Clone(r.examined) }

// StableLen is the stable prefix length kept from each examined trajectory, 0 for none (a copy).
func (r *Release) StableLen() []int { return slices.Clone(r.stableLen) }

// Stable lists the released stable segments, D_stable (a copy).
func (r *Release) Stable() []Segment { return slices.Clone(r.stable) }

// Unstable lists the segments left private: the tails of the examined trajectories and every other
// trajectory (a copy).
func (r *Release) Unstable() []Segment { return slices.Clone(r.unstable) }

// Queries is the number of prefix queries answered.
func (r *Release) Queries() int { return r.queries }

// Cut counts examined trajectories longer than the public bound L (ReleaseParams.L): their prefixes are
// queried up to length L only (the rest stays unstable), so δ' = δ1/(2TL) holds.
func (r *Release) Cut() int { return r.cut }

// Trajectories is the number of trajectories of the log the release is about (Train checks it against the
// log it is given).
func (r *Release) Trajectories() int { return r.trajs }

// PrependLog is the release about log's trajectories followed by the ones r is about (log first, r's
// indices shifted past it): every trajectory of log is unstable, r's stable segments stay stable, and r's
// unstable segments are dropped (the data they hold is not trained on). It only ever treats more data as
// private, so Train's guarantee for the result is the one for r plus DP-SGD on log.
func (r *Release) PrependLog(log *Data) *Release {
	n := len(log.Trajs)
	out := &Release{constants: r.constants, stableLen: slices.Clone(r.stableLen), queries: r.queries, cut: r.cut, trajs: n + r.trajs}
	for _, i := range r.examined {
		out.examined = append(out.examined, n+i)
	}
	for _, g := range r.stable {
		out.stable = append(out.stable, Segment{Traj: n + g.Traj, From: g.From, To: g.To})
	}
	for i, t := range log.Trajs {
		out.unstable = append(out.unstable, Segment{Traj: i, From: 0, To: t.Len()})
	}
	return out
}

// FixedLogDelta is what walking a fixed log, rather than drawing fresh trajectories, adds to
// DataRelease's δ: the probability that at least one of one expert's trajectories is among the T examined,
// for a log of n trajectories in which no expert has more than perExpert (a public bound),
//
//	p_T = 1 − Π_{i<T} (n − perExpert − i)/(n − i)  (≈ T·perExpert/n = T/m when every expert has perExpert).
//
// Couple the reshuffles of neighbouring logs: unless one of the differing expert's trajectories is
// examined (probability p_T), the examined trajectories are identically distributed and only the prefix
// counts differ, by at most 1, which is what the sparse-vector analysis covers. So a release that is
// (ε1, δ1)-DP in the paper's model of fresh draws is, on a fixed log, (ε1 + ln(1/(1 − p_T)), δ1 + p_T)-DP
// (FixedLogGuarantee). p_T is far above δ1 = O(1/m) at the paper's T: at T = 25, m = 3000 it is 8.3·10⁻³
// against δ1 = 3·10⁻⁴ (a δ of T/m allows publishing T experts' data outright).
func FixedLogDelta(n, perExpert, T int) (float64, error) {
	if err := param.First(check.AtLeast("perExpert", perExpert, 1), check.Int("T", T, 1, max(n, 1)),
		check.AtLeast("n", n, perExpert)); err != nil {
		return 0, err
	}
	keep := 1.0 // probability that none of the expert's trajectories is examined
	for i := range T {
		if n-perExpert-i <= 0 {
			return 1, nil
		}
		keep *= float64(n-perExpert-i) / float64(n-i)
	}
	return 1 - keep, nil
}

// FixedLogGuarantee is the (ε, δ) a release with budget (ε1, δ1) in the paper's model certifies on a fixed
// log whose examination probability is pT (FixedLogDelta): (ε1 + ln(1/(1 − pT)), δ1 + pT).
func FixedLogGuarantee(eps1, delta1, pT float64) (eps, delta float64) {
	return eps1 - math.Log1p(-pT), delta1 + pT
}

// StableTransitions is |D_stable| in transitions.
func (r *Release) StableTransitions() int {
	n := 0
	for _, s := range r.stable {
		n += s.To - s.From
	}
	return n
}

// DataRelease runs Algorithm 2 on the log of experts e: reshuffle, then for each of the first T
// trajectories draw θ̂ = θ + (4/ε')·ln(1/δ') + Lap(2/ε') and query its prefixes in order with
// PrefixQuery (count + Lap(4/ε') > θ̂), keeping the longest prefix that passed. It is (ε1, δ1)-DP for
// expert-level neighbours under the paper's analysis (which models each examined trajectory as a fresh
// draw; package doc, "Caveats"). L is a public demonstration bound (p.L, by default e.Domain.DemoLen), never
// the data's longest trajectory (which would make the threshold depend on the data); no prefix longer than L
// is queried (Release.Cut counts the trajectories this shortens). On a fixed log the guarantee is weaker
// than (ε1, δ1): FixedLogDelta and FixedLogGuarantee say by how much.
func DataRelease(data *Data, e *Experts, p ReleaseParams) (*Release, error) {
	if data == nil || len(data.Trajs) == 0 {
		return nil, check.Missing("data", "a log with at least one trajectory")
	}
	if e == nil || e.Domain == nil {
		return nil, check.Missing("e", "an expert set with its domain")
	}
	if err := checkData(data, e); err != nil {
		return nil, err
	}
	// The fields are checked here so that errors name them as the caller set them (Constants names its
	// own arguments).
	if err := param.First(check.In("Epsilon", p.Epsilon, param.Positive), check.In("Delta", p.Delta, param.OpenUnit),
		check.In("PMin", p.PMin, param.Interval{Lo: 0, Hi: 1 / float64(e.Domain.NumActions), HiClosed: true}),
		check.AtLeast("T", p.T, 1)); err != nil {
		return nil, err
	}
	if p.Src == nil {
		return nil, check.Missing("Src", "a rand.Source (mechanisms.SecureSource for real releases)")
	}
	if p.T > len(data.Trajs) {
		return nil, &mechanisms.ParamError{Pkg: "expertdp", Param: "T", Value: float64(p.T), Allowed: fmt.Sprintf("[1, %d] (the log's trajectories)", len(data.Trajs))}
	}
	L := p.L
	switch {
	case L < 0:
		return nil, check.AtLeast("L", L, 0)
	case L == 0 && e.Domain.DemoLen < 1:
		return nil, check.AtLeast("Domain.DemoLen", e.Domain.DemoLen, 1)
	case L == 0:
		L = e.Domain.DemoLen
	}
	c, err := Constants(p.Epsilon, p.Delta, p.PMin, p.T, L)
	if err != nil {
		return nil, err
	}
	counter, err := NewPrefixCounter(e, p.PMin)
	if err != nil {
		return nil, err
	}
	rng := rand.New(p.Src)
	thrNoise, _ := mechanisms.NewLaplaceScale(c.ThresholdScale, rng)
	qNoise, _ := mechanisms.NewLaplaceScale(c.QueryScale, rng)
	order := rng.Perm(len(data.Trajs))
	r := &Release{constants: c, examined: order[:p.T], stableLen: make([]int, p.T), trajs: len(data.Trajs)}
	for j, ti := range r.examined {
		t := &data.Trajs[ti]
		thr := c.MeanThreshold() + thrNoise.Sample()
		counter.Start(t)
		kept := 0
		for i := 1; ; i++ {
			if i > c.L {
				if t.Len() > c.L {
					r.cut++
				}
				break
			}
			count, ok := counter.Next()
			if !ok {
				break
			}
			r.queries++
			if count+qNoise.Sample() <= thr {
				kept = i - 1
				break
			}
			kept = i
		}
		r.stableLen[j] = kept
		if kept > 0 {
			r.stable = append(r.stable, Segment{ti, 0, kept})
		}
		if kept < t.Len() {
			r.unstable = append(r.unstable, Segment{ti, kept, t.Len()})
		}
	}
	for _, ti := range order[p.T:] {
		r.unstable = append(r.unstable, Segment{ti, 0, data.Trajs[ti].Len()})
	}
	return r, nil
}

func checkData(data *Data, e *Experts) error {
	if err := checkLog(data, e.Domain); err != nil {
		return err
	}
	if data.Experts != e.Len() {
		return check.Errorf("data.Experts", float64(data.Experts), "[%d, %d] (the size of the expert set)", e.Len(), e.Len())
	}
	return nil
}

// checkLog checks that the log is not empty and is of domain d's dimensions.
func checkLog(data *Data, d *Domain) error {
	switch {
	case data == nil || len(data.Trajs) == 0:
		return check.Missing("data", "a log with at least one trajectory")
	case data.ObsDim != d.ObsDim:
		return check.Errorf("data.ObsDim", float64(data.ObsDim), "[%d, %d] (the observations of %s)", d.ObsDim, d.ObsDim, d.Name)
	case data.NumActions != d.NumActions:
		return check.Errorf("data.NumActions", float64(data.NumActions), "[%d, %d] (the actions of %s)", d.NumActions, d.NumActions, d.Name)
	}
	return nil
}
