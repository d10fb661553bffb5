package mechanisms

import (
	"fmt"
	"math"
)

// ParamError reports a parameter outside its allowed range.
type ParamError struct {
	Param   string  // the parameter's name, as in the papers: "epsilon", "delta", "q", …
	Value   float64 // the value given
	Allowed string  // the allowed range, e.g. "(0, 1)"
}

func (e *ParamError) Error() string {
	return fmt.Sprintf("mechanisms: %s = %v is outside the allowed range %s", e.Param, e.Value, e.Allowed)
}

// inRange returns a *ParamError unless lo < v < hi (open ends) or lo ≤ v when loClosed, v ≤ hi when hiClosed.
// NaN is always out of range.
func inRange(name string, v, lo, hi float64, loClosed, hiClosed bool) error {
	ok := !math.IsNaN(v) &&
		(v > lo || (loClosed && v == lo)) &&
		(v < hi || (hiClosed && v == hi))
	if ok {
		return nil
	}
	l, r := "(", ")"
	if loClosed {
		l = "["
	}
	if hiClosed {
		r = "]"
	}
	return &ParamError{Param: name, Value: v, Allowed: l + fmtBound(lo) + ", " + fmtBound(hi) + r}
}

func fmtBound(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "∞"
	case math.IsInf(v, -1):
		return "-∞"
	}
	return fmt.Sprint(v)
}

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
func checkQ(q float64) error { return inRange("q", q, 0, 1, false, true) }
func checkSteps(steps int) error {
	if steps < 0 {
		return &ParamError{Param: "steps", Value: float64(steps), Allowed: "[0, ∞)"}
	}
	return nil
}
func checkOrder(alpha float64) error { return inRange("order", alpha, 1, math.Inf(1), false, false) }

// firstErr returns the first non-nil error.
func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}
