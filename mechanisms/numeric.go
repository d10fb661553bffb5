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
	// erfc(x) = e^{−x²}/(x√π) · (1 + u), u = −1/(2x²) + 3/(4x⁴) − 15/(8x⁶) + …, |u| < 1e−3;
	// ln(1 + u) by its series, accurate to 1e−13.
	x2 := x * x
	u := -1/(2*x2) + 3/(4*x2*x2) - 15/(8*x2*x2*x2)
	return -x2 - math.Log(x) - halfLogPi + u - u*u/2 + u*u*u/3
}

const halfLogPi = 0.5723649429247001 // ln(π)/2

// logNormCDF is ln Φ(x), accurate far into the lower tail.
func logNormCDF(x float64) float64 {
	if x > 0 {
		return math.Log1p(-0.5 * math.Erfc(x/math.Sqrt2))
	}
	return math.Log(0.5) + logErfc(-x/math.Sqrt2)
}

// bisect finds x in [lo, hi] with f(x) = 0 for a monotone f by bisection, to relative tolerance tol on x.
// f(lo) and f(hi) must have opposite signs.
func bisect(f func(float64) float64, lo, hi, tol float64) float64 {
	flo := f(lo)
	for range 200 {
		mid := lo + (hi-lo)/2
		if hi-lo <= tol*math.Max(math.Abs(mid), 1e-300) {
			return mid
		}
		fm := f(mid)
		if (fm < 0) == (flo < 0) {
			lo, flo = mid, fm
		} else {
			hi = mid
		}
	}
	return lo + (hi-lo)/2
}
