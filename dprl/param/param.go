package param

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Error reports a parameter outside its allowed range.
type Error struct {
	Pkg     string  // the package that rejected the value, e.g. "mechanisms"
	Param   string  // the parameter's name as the caller set it, e.g. "NoiseMultiplier" or "epsilon"
	Value   float64 // the value given (integers are converted)
	Allowed string  // the allowed range, e.g. "(0, 1]", or a short description
	Missing bool    // the argument is nil or empty (Value is then meaningless)
	// Text is the value of a parameter that is not a number (a name, say), quoted as Go quotes strings;
	// Value is then NaN. Empty for numeric parameters.
	Text string
}

func (e *Error) Error() string {
	pkg := e.Pkg
	if pkg == "" {
		pkg = "dprl"
	}
	if e.Missing {
		return fmt.Sprintf("%s: %s is missing (nil or empty): want %s", pkg, e.Param, e.Allowed)
	}
	if e.Text != "" {
		return fmt.Sprintf("%s: %s = %s is not allowed: want %s", pkg, e.Param, e.Text, e.Allowed)
	}
	if !strings.HasPrefix(e.Allowed, "[") && !strings.HasPrefix(e.Allowed, "(") {
		// a description (Errorf), not an interval
		return fmt.Sprintf("%s: %s = %s is not allowed: want %s", pkg, e.Param, Format(e.Value), e.Allowed)
	}
	return fmt.Sprintf("%s: %s = %s is outside the allowed range %s", pkg, e.Param, Format(e.Value), e.Allowed)
}

// Format prints a value the way range messages do: ∞ and -∞ for infinities, the shortest exact decimal
// otherwise.
func Format(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "∞"
	case math.IsInf(v, -1):
		return "-∞"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// Interval is a range of reals with open or closed ends; Lo = -Inf or Hi = +Inf make it unbounded.
type Interval struct {
	Lo, Hi             float64
	LoClosed, HiClosed bool
}

// Common intervals.
var (
	Positive    = Interval{Lo: 0, Hi: math.Inf(1)}                 // (0, ∞)
	NonNegative = Interval{Lo: 0, Hi: math.Inf(1), LoClosed: true} // [0, ∞)
	Probability = Interval{Lo: 0, Hi: 1, LoClosed: true, HiClosed: true}
	OpenUnit    = Interval{Lo: 0, Hi: 1} // (0, 1)
	Finite      = Interval{Lo: math.Inf(-1), Hi: math.Inf(1)}
)

// Contains reports whether v lies in the interval; NaN never does.
func (iv Interval) Contains(v float64) bool {
	if math.IsNaN(v) {
		return false
	}
	return (v > iv.Lo || (iv.LoClosed && v == iv.Lo)) && (v < iv.Hi || (iv.HiClosed && v == iv.Hi))
}

func (iv Interval) String() string {
	l, r := "(", ")"
	if iv.LoClosed {
		l = "["
	}
	if iv.HiClosed {
		r = "]"
	}
	return l + Format(iv.Lo) + ", " + Format(iv.Hi) + r
}

// Checker rejects values on behalf of one package.
type Checker string

// In returns an *Error unless v lies in iv.
func (c Checker) In(name string, v float64, iv Interval) error {
	if iv.Contains(v) {
		return nil
	}
	return &Error{Pkg: string(c), Param: name, Value: v, Allowed: iv.String()}
}

// Int returns an *Error unless lo ≤ v ≤ hi.
func (c Checker) Int(name string, v, lo, hi int) error {
	if v >= lo && v <= hi {
		return nil
	}
	return &Error{Pkg: string(c), Param: name, Value: float64(v), Allowed: IntRange(lo, hi)}
}

// AtLeast returns an *Error unless v ≥ lo.
func (c Checker) AtLeast(name string, v, lo int) error {
	return c.Int(name, v, lo, math.MaxInt)
}

// Errorf returns an *Error with a free-form description of what is allowed.
func (c Checker) Errorf(name string, v float64, allowed string, args ...any) error {
	return &Error{Pkg: string(c), Param: name, Value: v, Allowed: fmt.Sprintf(allowed, args...)}
}

// Missing returns an *Error for a nil or empty argument; want says what is needed.
func (c Checker) Missing(name, want string) error {
	return &Error{Pkg: string(c), Param: name, Value: math.NaN(), Allowed: want, Missing: true}
}

// OneOf returns an *Error unless value is one of allowed (a name from a fixed list, such as an order grid or
// a registered environment). The message quotes the value and lists the allowed names.
func (c Checker) OneOf(name, value string, allowed ...string) error {
	for _, a := range allowed {
		if value == a {
			return nil
		}
	}
	return &Error{Pkg: string(c), Param: name, Value: math.NaN(), Text: strconv.Quote(value),
		Allowed: "one of " + strings.Join(allowed, ", ")}
}

// IntRange prints [lo, hi] for integers, with ∞ for math.MaxInt.
func IntRange(lo, hi int) string {
	h := strconv.Itoa(hi)
	if hi == math.MaxInt {
		return "[" + strconv.Itoa(lo) + ", ∞)"
	}
	return "[" + strconv.Itoa(lo) + ", " + h + "]"
}

// First returns the first non-nil error.
func First(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}
