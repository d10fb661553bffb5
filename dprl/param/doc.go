// Package param is the one error type and the one set of range checks with which every dprl package rejects
// a bad argument, so that every such error reads the same way and can be recognised by type.
//
// # The error
//
// An *Error names the package that refused the value, the parameter as the caller spells it (the field or
// argument of the public API, such as NoiseMultiplier or len(value), never an internal symbol), the value
// given and what is allowed:
//
//	mechanisms: NoiseMultiplier = -1 is outside the allowed range (0, ∞)
//	envs: src is missing (nil or empty): want a rand.Source for Reset
//	envs: name = "cartpol" is not allowed: want one of acrobot, cartpole, …
//
// Callers test for it with errors.As(err, new(*param.Error)). Values print with Format: the shortest
// decimal that reads back to the same float64, and ∞ and -∞ for infinities.
//
// # The checker
//
// Each package declares its Checker, const check param.Checker = "mechanisms", and validates with its
// methods: In (a real in an Interval), Int and AtLeast (integers), OneOf (a name from a fixed list),
// Missing (a nil or empty argument) and Errorf (a free-form description of what is allowed, for conditions
// that are not a plain range). First returns the first failure of several checks. Intervals have open or
// closed ends, infinite bounds allowed; Positive (0, ∞), NonNegative [0, ∞), Probability [0, 1], OpenUnit
// (0, 1) and Finite (−∞, ∞) are predefined. NaN lies in no interval, so a NaN argument is always rejected.
//
// mechanisms.ParamError is an alias of Error.
package param
