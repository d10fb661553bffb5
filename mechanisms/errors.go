package mechanisms

import (
	"math"

	"github.com/dprl-project/dprl/dprl/param"
)

// ParamError reports a parameter outside its allowed range. It is the project-wide param.Error: its message
// names the package that rejected the value.
type ParamError = param.Error

// check rejects values on behalf of this package: every bad-argument error of the package is a *ParamError
// made by one of its methods.
const check param.Checker = "mechanisms"

// Ranges of the parameters that several mechanisms and accountants share (doc.go, "Parameters and errors").
var (
	deltaRange   = param.Interval{Lo: 0, Hi: 1, LoClosed: true} // [0, 1): δ of a budget or a mechanism
	samplingRate = param.Interval{Lo: 0, Hi: 1, HiClosed: true} // (0, 1]: q, the probability of a record
)

// Validators for the parameters every mechanism and accountant shares.
func checkEpsilon(eps float64) error         { return check.In("epsilon", eps, param.Positive) }
func checkDelta(delta float64) error         { return check.In("delta", delta, deltaRange) }
func checkDeltaPositive(delta float64) error { return check.In("delta", delta, param.OpenUnit) }
func checkSigma(sigma float64) error         { return check.In("sigma", sigma, param.Positive) }
func checkSensitivity(s float64) error       { return check.In("sensitivity", s, param.Positive) }
func checkQ(q float64) error                 { return check.In("q", q, samplingRate) }
func checkCount(count int) error             { return check.AtLeast("count", count, 0) }

// isPositiveFinite reports whether v lies in (0, ∞): what every noise scale and every product or quotient
// of validated parameters that sets one must be (a product of two valid factors can underflow to 0 or
// overflow to +∞).
func isPositiveFinite(v float64) bool { return v > 0 && v <= math.MaxFloat64 }
