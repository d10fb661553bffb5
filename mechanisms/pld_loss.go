package mechanisms

import "math"

// lossTails describes one direction of a mechanism's privacy loss L = ln(dP/dQ) through its tails at a
// threshold ε, each as a natural logarithm: sp = ln P(L > ε), cp = ln P(L ≤ ε), sq = ln Q(L > ε) and
// cq = ln Q(L ≤ ε). Both sides are given so that a cell's mass can always be taken as a difference of the
// smaller tail, which keeps its relative accuracy.
type lossTails func(eps float64) (sp, cp, sq, cq float64)

var negInf = math.Inf(-1)

// complementLog returns ln(1 − e^l) for l ≤ 0.
func complementLog(l float64) float64 {
	if l > -math.Ln2 {
		return math.Log(-math.Expm1(l))
	}
	return math.Log1p(-math.Exp(l))
}

// gaussianSide returns ln Φ̄(t) and ln Φ(t), from one evaluation of the smaller tail v = Φ̄(|t|): ln v and
// ln(1 − v).
func gaussianSide(t float64) (upper, lower float64) {
	a := math.Abs(t) / math.Sqrt2
	var small, large float64
	if a < 25 {
		v := 0.5 * math.Erfc(a)
		small, large = math.Log(v), math.Log1p(-v)
	} else {
		small = logErfc(a) - math.Ln2
		large = -math.Exp(small) // ln(1 − v) = −v to double precision for v < 1e−270
	}
	if t >= 0 {
		return small, large
	}
	return large, small
}

// subsampledGaussianTails returns the remove and add directions of the Poisson-subsampled Gaussian
// (rate q, noise multiplier z, sensitivity 1). Remove: P = (1−q)N(0,z²) + qN(1,z²) against Q = N(0,z²),
// whose loss ln(1 − q + q·e^{(2x−1)/(2z²)}) increases in the output x, so L > ε iff x > x(ε) with
// x(ε) = z²·ln((e^ε − 1 + q)/q) + 1/2 (and L > ε for every x when e^ε ≤ 1 − q). Add: the same pair swapped,
// with loss −ln(1 − q + q·e^{(2x−1)/(2z²)}), above ε iff x < x(−ε).
func subsampledGaussianTails(q, z float64) (remove, add lossTails) {
	lq, l1q := math.Log(q), math.Log1p(-q)
	// threshold returns x(ε) and whether it exists (e^ε > 1 − q).
	threshold := func(eps float64) (float64, bool) {
		if q == 1 {
			return z*z*eps + 0.5, true
		}
		// ln(e^ε − (1 − q)) − ln q, with e^ε − (1 − q) = e^ε·(1 − (1−q)e^{−ε}).
		w := (1 - q) * math.Exp(-eps)
		if w >= 1 {
			return 0, false
		}
		return z*z*(eps+math.Log1p(-w)-lq) + 0.5, true
	}
	// mix returns ln((1−q)e^a + q e^b).
	mix := func(a, b float64) float64 {
		if q == 1 {
			return b
		}
		return logAdd(l1q+a, lq+b)
	}
	remove = func(eps float64) (sp, cp, sq, cq float64) {
		x, ok := threshold(eps)
		if !ok {
			return 0, negInf, 0, negInf
		}
		u0, l0 := gaussianSide(x / z)
		u1, l1 := gaussianSide((x - 1) / z)
		return mix(u0, u1), mix(l0, l1), u0, l0
	}
	add = func(eps float64) (sp, cp, sq, cq float64) {
		x, ok := threshold(-eps)
		if !ok {
			return negInf, 0, negInf, 0
		}
		u0, l0 := gaussianSide(x / z)
		u1, l1 := gaussianSide((x - 1) / z)
		// P = N(0, z²) below x; Q = the mixture below x.
		return l0, u0, mix(l0, l1), mix(u0, u1)
	}
	return remove, add
}

// laplaceTails is the Laplace mechanism with scale b (sensitivity 1), the same in both directions:
// P = Lap(0, b), Q = Lap(1, b), loss ε0 = 1/b for x ≤ 0, −ε0 for x ≥ 1 and ε0(1 − 2x) between, so for
// −ε0 ≤ ε < ε0, L > ε iff x < t = (1 − ε/ε0)/2.
func laplaceTails(b float64) lossTails {
	e0 := 1 / b
	return func(eps float64) (sp, cp, sq, cq float64) {
		switch {
		case eps >= e0:
			return negInf, 0, negInf, 0
		case eps < -e0:
			return 0, negInf, 0, negInf
		}
		t := (1 - eps/e0) / 2        // in (0, 1]
		pAbove := -t/b - math.Ln2    // ln P(x ≥ t) = ln(e^{−t/b}/2)
		qBelow := (t-1)/b - math.Ln2 // ln Q(x < t) = ln(e^{(t−1)/b}/2)
		return complementLog(pAbove), pAbove, qBelow, complementLog(qBelow)
	}
}

// mixedTails is inner with probability p, and otherwise an atom common to both sides (loss 0).
func mixedTails(p float64, inner lossTails) lossTails {
	lp, l1p := math.Log(p), math.Log1p(-p)
	return func(eps float64) (sp, cp, sq, cq float64) {
		sp, cp, sq, cq = inner(eps)
		sp, cp, sq, cq = lp+sp, lp+cp, lp+sq, lp+cq
		if p == 1 {
			return
		}
		if eps < 0 {
			return logAdd(sp, l1p), cp, logAdd(sq, l1p), cq
		}
		return sp, logAdd(cp, l1p), sq, logAdd(cq, l1p)
	}
}

// lossRange returns lo ≤ hi with P(L ≤ lo) ≤ tail and P(L > hi) ≤ tail (by bisection on the tails), or
// ok = false if the loss reaches beyond ±1e12 with more than tail mass.
func lossRange(lt lossTails, tail float64) (lo, hi float64, ok bool) {
	lt0 := math.Log(tail)
	above := func(e float64) bool { sp, _, _, _ := lt(e); return sp <= lt0 } // P(L > e) ≤ tail
	below := func(e float64) bool { _, cp, _, _ := lt(e); return cp <= lt0 } // P(L ≤ e) ≤ tail
	const limit = 1e12
	hi = 1.0
	for !above(hi) {
		if hi > limit {
			return 0, 0, false
		}
		hi *= 2
	}
	lo = -1.0
	for !below(lo) {
		if lo < -limit {
			return 0, 0, false
		}
		lo *= 2
	}
	// Shrink each end towards the other: hi down while P(L > hi) ≤ tail, lo up while P(L ≤ lo) ≤ tail.
	_, hi = bisectPredicate(lo, hi, above)
	lo, _ = bisectPredicate(lo, hi, func(m float64) bool { return !below(m) })
	return lo, hi, true
}

// bisectPredicate narrows [a, b] around the point where left switches from false to true (left(m) true
// moves b to m, false moves a to m) until it is 1e-9 wide relative to its midpoint, or after 200 halvings.
func bisectPredicate(a, b float64, left func(m float64) bool) (float64, float64) {
	for range 200 {
		m := a + (b-a)/2
		if b-a <= 1e-9*math.Max(1, math.Abs(m)) {
			break
		}
		if left(m) {
			b = m
		} else {
			a = m
		}
	}
	return a, b
}
