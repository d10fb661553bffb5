package experiment

import "os"

// QuickEnv is the environment variable that selects quick mode when set to a non-empty value other than "0".
const QuickEnv = "DPRL_QUICK"

// Quick reports whether quick mode is selected.
func Quick() bool {
	v := os.Getenv(QuickEnv)
	return v != "" && v != "0"
}

// Size returns full, or quick in quick mode: notebooks size their experiments with it (counts, or
// fractions such as an audit's share of its runs).
func Size[T int | float64](full, quick T) T {
	if Quick() {
		return quick
	}
	return full
}
