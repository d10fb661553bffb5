package param_test

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/dprl-project/dprl/dprl/param"
)

func TestIntervalContains(t *testing.T) {
	cases := []struct {
		iv   param.Interval
		v    float64
		want bool
	}{
		{param.Positive, 0, false},
		{param.Positive, 1e-300, true},
		{param.Positive, math.Inf(1), false},
		{param.Positive, math.NaN(), false},
		{param.NonNegative, 0, true},
		{param.Probability, 1, true},
		{param.OpenUnit, 1, false},
		{param.Finite, math.Inf(-1), false},
		{param.Finite, -1e308, true},
	}
	for _, c := range cases {
		if got := c.iv.Contains(c.v); got != c.want {
			t.Errorf("%v.Contains(%v) = %v, want %v", c.iv, c.v, got, c.want)
		}
	}
}

func TestErrorNamesPackageParamValueRange(t *testing.T) {
	const check param.Checker = "mechanisms"
	err := check.In("NoiseMultiplier", -1, param.Positive)
	var pe *param.Error
	if !errors.As(err, &pe) {
		t.Fatalf("got %T, want *param.Error", err)
	}
	want := "mechanisms: NoiseMultiplier = -1 is outside the allowed range (0, ∞)"
	if err.Error() != want {
		t.Errorf("got %q, want %q", err, want)
	}
	if got := check.AtLeast("Steps", 0, 1).Error(); got != "mechanisms: Steps = 0 is outside the allowed range [1, ∞)" {
		t.Errorf("AtLeast: %q", got)
	}
	if check.In("x", 0.5, param.OpenUnit) != nil || check.Int("n", 3, 1, 3) != nil {
		t.Error("in-range values rejected")
	}
}

func ExampleChecker_In() {
	const check param.Checker = "mypkg"
	fmt.Println(check.In("epsilon", math.NaN(), param.Positive))
	// Output: mypkg: epsilon = NaN is outside the allowed range (0, ∞)
}

func TestMissing(t *testing.T) {
	const check param.Checker = "mechanisms"
	err := check.Missing("Src", "a rand.Source")
	if got, want := err.Error(), "mechanisms: Src is missing (nil or empty): want a rand.Source"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	var pe *param.Error
	if !errors.As(err, &pe) || !pe.Missing {
		t.Errorf("Missing error %#v", err)
	}
}

func TestOneOf(t *testing.T) {
	const check param.Checker = "envs"
	if err := check.OneOf("name", "chain", "chain", "taxi"); err != nil {
		t.Fatalf("allowed name rejected: %v", err)
	}
	err := check.OneOf("name", "cartpol", "cartpole", "taxi")
	if got, want := err.Error(), `envs: name = "cartpol" is not allowed: want one of cartpole, taxi`; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	var pe *param.Error
	if !errors.As(err, &pe) || pe.Text != `"cartpol"` || !math.IsNaN(pe.Value) {
		t.Errorf("OneOf error %#v", err)
	}
	if got := check.OneOf("name", "", "a").Error(); got != `envs: name = "" is not allowed: want one of a` {
		t.Errorf("empty name: %q", got)
	}
}

// A name outside a fixed list, and a missing argument.
func ExampleChecker_OneOf() {
	const check param.Checker = "mypkg"
	fmt.Println(check.OneOf("grid", "dpa", "dpa_default", "opacus_default"))
	fmt.Println(check.Missing("src", "a rand.Source"))
	// Output:
	// mypkg: grid = "dpa" is not allowed: want one of dpa_default, opacus_default
	// mypkg: src is missing (nil or empty): want a rand.Source
}

// Free-form conditions keep the same shape: package, parameter, value, what is allowed.
func ExampleChecker_Errorf() {
	const check param.Checker = "mypkg"
	err := check.Errorf("len(value)", 3, "[%d, %d] (the dimension given at construction)", 2, 2)
	var pe *param.Error
	fmt.Println(err)
	fmt.Println(errors.As(err, &pe), pe.Param, pe.Value)
	// Output:
	// mypkg: len(value) = 3 is outside the allowed range [2, 2] (the dimension given at construction)
	// true len(value) 3
}
