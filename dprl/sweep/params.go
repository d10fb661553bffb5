package sweep

import (
	"math"
	"slices"
	"strings"

	"github.com/dprl-project/dprl/dprl/param"
)

// Params are a task's parameters: the spec's fixed params and its grid cell's values. Values are strings,
// int64, float64, bools, and lists or objects of them (as read from JSON, numbers canonicalised). The
// accessors convert and range-check; their errors name the parameter as "params.<name>".
type Params map[string]any

func pname(name string) string { return "params." + name }

// Has reports whether the parameter is set.
func (p Params) Has(name string) bool { _, ok := p[name]; return ok }

// String returns a string parameter; def is returned when it is absent (pass required = true to make absence
// an error).
func (p Params) String(name string, def string, required bool) (string, error) {
	v, ok := p[name]
	if !ok {
		if required {
			return "", check.Missing(pname(name), "a string")
		}
		return def, nil
	}
	s, ok := v.(string)
	if !ok {
		return "", badValue(pname(name), v, "strings")
	}
	return s, nil
}

// OneOf returns a string parameter that must be one of allowed (def when absent; "" def makes it required).
func (p Params) OneOf(name, def string, allowed ...string) (string, error) {
	s, err := p.String(name, def, def == "")
	if err != nil {
		return "", err
	}
	if !slices.Contains(allowed, s) {
		return "", badValue(pname(name), s, "{%s}", strings.Join(allowed, ", "))
	}
	return s, nil
}

// Float returns a number parameter, def when absent, checked against iv.
func (p Params) Float(name string, def float64, iv param.Interval) (float64, error) {
	v, ok := p[name]
	if !ok {
		return def, nil
	}
	f, ok := toFloat(v)
	if !ok {
		return 0, badValue(pname(name), v, "numbers in %s", iv)
	}
	return f, check.In(pname(name), f, iv)
}

// Int returns an integer parameter, def when absent, checked against [lo, hi].
func (p Params) Int(name string, def, lo, hi int) (int, error) {
	v, ok := p[name]
	if !ok {
		return def, nil
	}
	i, ok := toInt(v)
	if !ok {
		return 0, badValue(pname(name), v, "integers in %s", param.IntRange(lo, hi))
	}
	return i, check.Int(pname(name), i, lo, hi)
}

// Uint64 returns a non-negative integer parameter (a seed), def when absent.
func (p Params) Uint64(name string, def uint64) (uint64, error) {
	v, ok := p[name]
	if !ok {
		return def, nil
	}
	i, ok := v.(int64)
	if !ok || i < 0 {
		return 0, badValue(pname(name), v, "integers in [0, 2⁶³−1]")
	}
	return uint64(i), nil
}

// Floats returns a list of numbers (a single number is a list of one), def when absent, each checked
// against iv; an empty list is an error.
func (p Params) Floats(name string, def []float64, iv param.Interval) ([]float64, error) {
	v, ok := p[name]
	if !ok {
		return def, nil
	}
	list, isList := v.([]any)
	if !isList {
		list = []any{v}
	}
	if len(list) == 0 {
		return nil, check.Missing(pname(name), "at least one number")
	}
	out := make([]float64, len(list))
	for i, e := range list {
		f, ok := toFloat(e)
		if !ok {
			return nil, badValue(pname(name), v, "lists of numbers in %s", iv)
		}
		if err := check.In(pname(name), f, iv); err != nil {
			return nil, err
		}
		out[i] = f
	}
	return out, nil
}

// Ints returns a list of integers (a single integer is a list of one), def when absent, each in [lo, hi].
func (p Params) Ints(name string, def []int, lo, hi int) ([]int, error) {
	v, ok := p[name]
	if !ok {
		return def, nil
	}
	list, isList := v.([]any)
	if !isList {
		list = []any{v}
	}
	if len(list) == 0 {
		return nil, check.Missing(pname(name), "at least one integer")
	}
	out := make([]int, len(list))
	for i, e := range list {
		n, ok := toInt(e)
		if !ok {
			return nil, badValue(pname(name), v, "lists of integers in %s", param.IntRange(lo, hi))
		}
		if err := check.Int(pname(name), n, lo, hi); err != nil {
			return nil, err
		}
		out[i] = n
	}
	return out, nil
}

// Known returns an error naming the first parameter not in names (sorted), so a misspelt parameter is not
// silently ignored.
func (p Params) Known(names ...string) error {
	keys := make([]string, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if !slices.Contains(names, k) {
			return badValue("params key", k, "{%s}", strings.Join(names, ", "))
		}
	}
	return nil
}

func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case int:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

func toInt(v any) (int, bool) {
	switch x := v.(type) {
	case int64:
		return int(x), true
	case int:
		return x, true
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return int(x), true
		}
	}
	return 0, false
}
