package mechanisms

import "math"

// logAdd returns ln(e^a + e^b) without overflow.
func logAdd(a, b float64) float64 {
	if a < b {
		a, b = b, a
	}
	if math.IsInf(b, -1) {
		return a
	}
	return a + math.Log1p(math.Exp(b-a))
}

// logSub returns ln(e^a − e^b) for a ≥ b (−∞ when equal).
func logSub(a, b float64) float64 {
	if math.IsInf(b, -1) {
		return a
	}
	if b >= a {
		return math.Inf(-1)
	}
	return a + math.Log(-math.Expm1(b-a))
}

// lse accumulates ln Σ e^{x_i} online as sum·e^max: one exp per term, no overflow.
type lse struct{ max, sum float64 }

func (s *lse) init() { s.max, s.sum = math.Inf(-1), 0 }

func (s *lse) add(x float64) {
	if x > s.max {
		s.sum = s.sum*math.Exp(s.max-x) + 1
		s.max = x
	} else {
		s.sum += math.Exp(x - s.max)
	}
}

// log returns ln Σ e^{x_i} (−∞ for an empty sum).
func (s *lse) log() float64 {
	if s.sum == 0 {
		return math.Inf(-1)
	}
	return s.max + math.Log(s.sum)
}

// logErfc returns ln(erfc(x)), accurate for large x where erfc underflows.
func logErfc(x float64) float64 {
	switch {
	case x < -6:
		return math.Ln2 // erfc(x) = 2 − erfc(−x), and erfc(6) < 2.2e−17: exactly 2 in double precision
	case x < 25:
		return math.Log(math.Erfc(x))
	}
	// erfc(x) = e^{−x²}/(x√π) · (1 + u), u = Σ_{k≥1} (−1)^k (2k−1)!!/(2x²)^k (asymptotic). Eight terms: the
	// ninth is below 5e−21 for x ≥ 25, far under double precision.
	h := 1 / (2 * x * x)
	u, t := 0.0, 1.0
	for k := 1; k <= 8; k++ {
		t *= -float64(2*k-1) * h
		u += t
	}
	return -x*x - math.Log(x) - halfLogPi + math.Log1p(u)
}

const halfLogPi = 0.5723649429247001 // ln(π)/2

// logNormCDF is ln Φ(x), accurate far into the lower tail: its error is below logNormCDFErr(x, value).
func logNormCDF(x float64) float64 {
	if x > 0 {
		return math.Log1p(-0.5 * math.Erfc(x/math.Sqrt2))
	}
	return math.Log(0.5) + logErfc(-x/math.Sqrt2)
}

// logNormCDFErr bounds the absolute error of logNormCDF(x) = v for an argument x known to within ±ex: the
// argument's error times the slope of ln Φ (φ(x)/Φ(x) ≤ |x| + 2), plus the evaluation's own error, a few
// units of round-off in erfc (relative) and in the logarithm and sums (relative to |v|), taken as 16 units.
func logNormCDFErr(x, v, ex float64) float64 {
	return (math.Abs(x)+2)*ex + 16*unitRoundoff*(1+math.Abs(v))
}

// bisectSafe narrows [bad, good] (in either order) around the point where ok switches, keeping ok(bad) false
// and ok(good) true, until they are within tol relative to good (or nothing lies between them), and returns
// good: the end of the bracket on the safe side, never the midpoint. ok(good) must hold on entry.
func bisectSafe(ok func(float64) bool, bad, good, tol float64) float64 {
	for range 2100 { // enough to cross the whole float64 range bit by bit
		if math.Abs(good-bad) <= tol*math.Abs(good) {
			break
		}
		mid := bad + (good-bad)/2
		if mid == bad || mid == good {
			break
		}
		if ok(mid) {
			good = mid
		} else {
			bad = mid
		}
	}
	return good
}
