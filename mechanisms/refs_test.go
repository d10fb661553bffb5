package mechanisms

import "math"

// bisect finds x in [lo, hi] with f(x) = 0 for a monotone f by bisection, to relative tolerance tol on x,
// and returns the bracket's midpoint: for references in tests only (the package's inverses return the safe
// end of their bracket, bisectSafe). f(lo) and f(hi) must have opposite signs.
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
