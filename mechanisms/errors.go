package mechanisms

import (
	"math"

	"github.com/dprl-project/dprl/dprl/param"
)

// ParamError reports a parameter outside its allowed range. It is the project-wide param.Error: its message
// names the package that rejected the value.
type ParamError = param.Error

// check rejects values on behalf of this package.
const check param.Checker = "mechanisms"

// inRange returns a *ParamError unless lo < v < hi (open ends) or lo ≤ v when loClosed, v ≤ hi when hiClosed.
// NaN is always out of range.
func inRange(name string, v, lo, hi float64, loClosed, hiClosed bool) error {
	return check.In(name, v, param.Interval{Lo: lo, Hi: hi, LoClosed: loClosed, HiClosed: hiClosed})
}

func fmtBound(v float64) string { return param.Format(v) }

// Validators for the parameters every mechanism and accountant shares.
func checkEpsilon(eps float64) error { return inRange("epsilon", eps, 0, math.Inf(1), false, false) }
func checkDelta(delta float64) error { return inRange("delta", delta, 0, 1, true, false) }
func checkDeltaPositive(delta float64) error {
	return inRange("delta", delta, 0, 1, false, false)
}
func checkSigma(sigma float64) error { return inRange("sigma", sigma, 0, math.Inf(1), false, false) }
func checkSensitivity(s float64) error {
	return inRange("sensitivity", s, 0, math.Inf(1), false, false)
}
func checkQ(q float64) error     { return inRange("q", q, 0, 1, false, true) }
func checkCount(count int) error { return check.AtLeast("count", count, 0) }

// firstErr returns the first non-nil error.
func firstErr(errs ...error) error { return param.First(errs...) }
