package envs

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestConformance runs the conformance checker over every registered environment (inside its time limit)
// and over the bare environments.
func TestConformance(t *testing.T) {
	for _, name := range Names() {
		t.Run(name, func(t *testing.T) {
			episodes, steps := 5, 1200
			if name == "hiv" {
				episodes, steps = 2, 40 // 0.1 ms per step; the limit is covered below
			}
			if err := CheckEnv(func() Env { return must(Make(name)) }, episodes, steps); err != nil {
				t.Fatal(err)
			}
			if err := CheckEnv(func() Env { return must(Make(name)).Unwrap() }, 2, 60); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestTimeLimitTruncates(t *testing.T) {
	env := must(Make("hiv")) // no terminal state: always truncated at 200 steps of 5 days
	if _, err := env.Reset(rand.NewPCG(1, 1)); err != nil {
		t.Fatal(err)
	}
	var r StepResult
	var err error
	for i := 0; i < 200; i++ {
		if r, err = env.Step(i % 4); err != nil {
			t.Fatal(err)
		}
		if r.Truncated != (i == 199) || r.Terminated {
			t.Fatalf("step %d: terminated %v truncated %v", i+1, r.Terminated, r.Truncated)
		}
	}
	if _, err := env.Step(0); !errors.Is(err, ErrEpisodeOver) {
		t.Errorf("step after truncation: %v", err)
	}
}

func TestMakeAndBadInput(t *testing.T) {
	if _, err := Make("pong"); err == nil || !strings.Contains(err.Error(), "cartpole") {
		t.Errorf("unknown name: %v (want the known names listed)", err)
	}
	env := must(Make("taxi"))
	env.Reset(rand.NewPCG(1, 1))
	var ae *ActionError
	if _, err := env.Step(6); !errors.As(err, &ae) || !strings.Contains(err.Error(), "[0, 5]") {
		t.Errorf("action 6: %v", err)
	}
	if err := env.SetState([]float64{500}); err == nil {
		t.Error("taxi state 500 accepted")
	}
	if err := NewHIV(HIVParams{}).SetState([]float64{1, 2, 3, math.NaN(), 5, 6}); err == nil {
		t.Error("NaN HIV state accepted")
	}
	if err := ValidateChain(ChainParams{N: 5, AdvanceProb: 0.5, Start: []float64{0.5, 0.5}}); err == nil {
		t.Error("start distribution of the wrong length accepted")
	}
	if _, err := NewCartPole(CartPoleParams{}).Reset(nil); err == nil {
		t.Error("Reset(nil) accepted")
	}
}

// TestChainExactValues checks the linear-solve value of Balle's chain against the closed form: under the
// policy advancing with probability ½ (p = 0.5), V(s) = γpV(s) + γ(1−p)V(s+1) below the last
// non-absorbing state and V(N−2) = γpV(N−2) + (1−p)·1 (the reward comes with the arriving step), so
// V(s) = x^{N−2−s}·(1−p)/(1−γp) with x = γ(1−p)/(1−γp).
func TestChainExactValues(t *testing.T) {
	c := NewChain(BalleChainParams())
	m := c.Model()
	pi := make([][]float64, m.NumStates)
	for s := range pi {
		pi[s] = []float64{0.5, 0.5}
	}
	const gamma = 0.99
	v, err := m.PolicyValue(pi, gamma)
	if err != nil {
		t.Fatal(err)
	}
	x := gamma * 0.5 / (1 - gamma*0.5)
	for s := 0; s < 39; s++ {
		want := math.Pow(x, float64(38-s)) * 0.5 / (1 - gamma*0.5)
		if math.Abs(v[s]-want) > 1e-12 {
			t.Fatalf("V(%d) = %.15g, want %.15g", s, v[s], want)
		}
	}
	if v[39] != 0 {
		t.Errorf("absorbing state value %g", v[39])
	}
	// The undiscounted on-policy distribution: each state is visited 2 times in expectation once reached, and
	// state s is reached from a uniform start with probability (s+1)/39, so d(s) ∝ s+1.
	d, err := m.StateDistribution(pi, 1)
	if err != nil {
		t.Fatal(err)
	}
	norm := 39.0 * 40 / 2
	for s := 0; s < 39; s++ {
		if want := float64(s+1) / norm; math.Abs(d[s]-want) > 1e-12 {
			t.Fatalf("d(%d) = %g, want %g", s, d[s], want)
		}
	}
}

// TestModelsAgreeWithSimulation compares the exact values of the chain (MDP-100) and Taxi models with Monte
// Carlo returns of the environments themselves, so the models describe the simulators.
func TestModelsAgreeWithSimulation(t *testing.T) {
	for _, c := range []struct {
		name  string
		model *Model
		gamma float64
		start int
	}{
		{"mdp100", NewChain(MDP100Params()).Model(), 0.99, 0},
		{"taxi", NewTaxi().Model(), 0.9, TaxiEncode(2, 2, 0, 3)},
	} {
		uniform := make([][]float64, c.model.NumStates)
		for s := range uniform {
			uniform[s] = make([]float64, c.model.NumActions)
			for a := range uniform[s] {
				uniform[s][a] = 1 / float64(c.model.NumActions)
			}
		}
		v, err := c.model.PolicyValue(uniform, c.gamma)
		if err != nil {
			t.Fatal(err)
		}
		env := must(Make(c.name)).Unwrap()
		rng := rand.New(rand.NewPCG(5, 5))
		const n = 4000
		var sum, sumSq float64
		for i := range n {
			env.Reset(rand.NewPCG(uint64(i), 9))
			env.SetState([]float64{float64(c.start)})
			g, disc := 0.0, 1.0
			for k := 0; k < 3000; k++ {
				r, _ := env.Step(rng.IntN(c.model.NumActions))
				g += disc * r.Reward
				disc *= c.gamma
				if r.Terminated {
					break
				}
			}
			sum += g
			sumSq += g * g
		}
		mean := sum / n
		se := math.Sqrt((sumSq/n - mean*mean) / n)
		if math.Abs(mean-v[c.start]) > 4*se+1e-9 {
			t.Errorf("%s: Monte Carlo %.4f ± %.4f, exact %.4f", c.name, mean, se, v[c.start])
		}
	}
}
