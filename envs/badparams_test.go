package envs

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestBadParametersAreErrors: constructors used to accept NaN or negative constants (NaN dynamics), NewChain
// and ConstantTable(-1) panicked, Collect(nil env) crashed and a huge Fourier order exhausted memory.
func TestBadParametersAreErrors(t *testing.T) {
	reset := func(e Env) error { _, err := e.Reset(rand.NewPCG(1, 1)); return err }
	chain := BalleChainParams()
	chain.N = 0
	tl, _ := Make("chain")
	tl.MaxSteps = 0
	cases := map[string]struct {
		err  func() error
		want string
	}{
		"chain N":             {func() error { return reset(NewChain(chain)) }, "N = 0 is outside the allowed range [2, 16777216]"},
		"cartpole gravity":    {func() error { return reset(NewCartPole(CartPoleParams{Gravity: math.NaN()})) }, "Gravity = NaN"},
		"cartpole pole mass":  {func() error { return reset(NewCartPole(CartPoleParams{PoleMass: -1})) }, "PoleMass = -1"},
		"acrobot mass":        {func() error { return reset(NewAcrobot(AcrobotParams{LinkMass2: math.Inf(1)})) }, "LinkMass2 = ∞"},
		"hiv days":            {func() error { return reset(NewHIV(HIVParams{DaysPerStep: -5})) }, "DaysPerStep = -5"},
		"lunar gravity":       {func() error { return reset(NewLunarLander(LunarLanderParams{Gravity: 3})) }, "Gravity = 3 is outside the allowed range (-12, 0)"},
		"time limit":          {func() error { return reset(tl) }, "MaxSteps = 0"},
		"constant table n":    {func() error { _, err := ConstantTable(-1, 1); return err }, "n = -1"},
		"constant table prob": {func() error { _, err := ConstantTable(2, math.NaN(), 1); return err }, "probs[0] = NaN"},
		"table policy prob":   {func() error { _, err := NewTablePolicy([][]float64{{1.5, -0.5}}); return err }, "p[0][1] = -0.5"},
		"collect nil env":     {func() error { _, err := Collect(nil, Uniform{N: 2}, 1, rand.NewPCG(1, 1), 0); return err }, "env is missing"},
		"fourier order":       {func() error { _, err := NewFourier(1000, make([]float64, 6), []float64{1, 1, 1, 1, 1, 1}); return err }, "order = 1000"},
		"check env nil":       {func() error { return CheckEnv(nil, 1, 1) }, "newEnv is missing"},
		"unknown name":        {func() error { _, err := Make("nope"); return err }, `name = "nope"`},
	}
	for name, c := range cases {
		err := c.err()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error containing %q", name, err, c.want)
		}
	}
	if err := reset(NewCartPole(CartPoleParams{})); err != nil {
		t.Errorf("defaults rejected: %v", err)
	}
}
