package actorcritic

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/dprl-project/dprl/dprl/experiment"
	"github.com/dprl-project/dprl/envs"
	"github.com/dprl-project/dprl/trajectory"
	"gonum.org/v1/gonum/stat"
)

// TestGTDLambdaFixedPoint: with α_u = 0 the target policy stays uniform and, acting by sampling it (on-policy,
// ρ = 1), the tabular GTD(λ) critic must converge to the exact value of that policy on a small chain, for
// several λ.
func TestGTDLambdaFixedPoint(t *testing.T) {
	p := envs.ChainParams{N: 6, AdvanceProb: 0.8, StepReward: -1, GoalReward: 5, Label: "chain"}
	model := envs.NewChain(p).Model()
	uniform := make([][]float64, 6)
	for s := range uniform {
		uniform[s] = []float64{0.5, 0.5}
	}
	const gamma = 0.9
	exact, err := model.PolicyValue(uniform, gamma)
	if err != nil {
		t.Fatal(err)
	}
	for _, lambda := range []float64{0, 0.5, 0.9} {
		env := &envs.TimeLimit{Env: envs.NewChain(p), MaxSteps: 1000}
		cfg := Config{Variant: NonDP, Acting: Softmax, Episodes: 80000, Gamma: gamma, Lambda: lambda,
			AlphaV: 0.002, AlphaW: 0.001, Src: rand.NewPCG(1, uint64(10*lambda))}
		v := criticAfter(t, env, envs.TabularFeatures{N: 6}, cfg)
		for s := 0; s < 5; s++ {
			if math.Abs(v[s]-exact[s]) > 0.04*math.Max(1, math.Abs(exact[s])) {
				t.Errorf("λ=%g: V(%d) = %.3f, exact %.3f", lambda, s, v[s], exact[s])
			}
		}
	}
}

// criticAfter runs cfg and returns the average of the critic's weights over the second half of the
// episodes (Polyak averaging: the fixed point of a constant-step iteration, without its noise).
func criticAfter(t *testing.T, env envs.Env, feats trajectory.Features, cfg Config) []float64 {
	t.Helper()
	avg := make([]float64, feats.Dim())
	ep := 0
	testHookCritic = func(x []float64) {
		ep++
		if ep > cfg.Episodes/2 {
			for i, v := range x {
				avg[i] += v / float64(cfg.Episodes-cfg.Episodes/2)
			}
		}
	}
	defer func() { testHookCritic = nil }()
	if _, err := Run(env, feats, cfg); err != nil {
		t.Fatal(err)
	}
	return avg
}

func TestPublishedNoiseStep(t *testing.T) {
	// The gradient is rescaled to norm |C| = median of its non-zero |entries| and gets N(0, σ²C²) noise on
	// every entry, zeros included.
	rng := rand.New(rand.NewPCG(2, 2))
	var buf []float64
	const sigma = 0.5
	n := 20000
	var s, s2 float64
	for range n {
		g := []float64{0, 3, -1, 0, 2} // median of {3, 1, 2} = 2; ‖g‖ = √14
		c := normaliseAndNoise(g, sigma, rng, &buf)
		if c != 2 {
			t.Fatalf("C = %g, want 2", c)
		}
		s += g[0]
		s2 += g[0] * g[0]
		if d := g[1] - 3*2/math.Sqrt(14); math.Abs(d) > 8*sigma*2 {
			t.Fatalf("entry 1 is %g away from its normalised value", d)
		}
	}
	if sd := math.Sqrt(s2/float64(n) - (s/float64(n))*(s/float64(n))); math.Abs(sd-sigma*2) > 0.03 {
		t.Errorf("noise std on a zero entry %g, want σC = %g", sd, sigma*2)
	}
	zero := []float64{0, 0}
	if normaliseAndNoise(zero, sigma, rng, &buf) != 0 || zero[0] != 0 {
		t.Error("a zero gradient got noise")
	}
	if got, want := PublishedSigma(10, 1e-6), math.Sqrt(2*math.Log(1.25e6))/10; got != want {
		t.Errorf("eq. (3) σ = %g, want %g", got, want)
	}
}

func TestCorrectedClipAndAccounting(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	a, b := []float64{3, 0}, []float64{0, 4}
	clipAndNoise(1, 0, rng, a, b)
	if n := math.Hypot(math.Hypot(a[0], a[1]), math.Hypot(b[0], b[1])); math.Abs(n-1) > 1e-15 {
		t.Errorf("joint norm after clipping %g, want 1", n)
	}
	small := []float64{0.1}
	clipAndNoise(1, 0, rng, small)
	if small[0] != 0.1 {
		t.Error("clipping changed an update inside the ball")
	}
	// σ for (ε, δ) = (1, 1e-6) with episodes of 200 steps gives back ε = 1.
	s, err := CorrectedNoise(1, 1e-6, 200)
	if err != nil {
		t.Fatal(err)
	}
	e, _ := CorrectedEpsilon(s, 200, 1e-6)
	if math.Abs(e-1) > 1e-6 {
		t.Errorf("round trip ε = %g", e)
	}
}

func TestRunsAreReproducibleAndLearn(t *testing.T) {
	run := func(workers int) []*Result {
		out, err := experiment.Trials(4, workers, 11, nil, func(i int, src rand.Source) (*Result, error) {
			env := must(envs.Make("mdp100"))
			return Run(env, envs.TabularFeatures{N: 100}, Config{Variant: DPActor, Episodes: 30, Gamma: 0.99, Lambda: 0.8, AlphaV: 0.01,
				AlphaW: 0.5, AlphaU: 0.5, Explore: 0.1, Epsilon: 10, Delta: 1e-6, Src: src})
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	a, b := run(1), run(3)
	for i := range a {
		for ep := range a[i].Returns {
			if a[i].Returns[ep] != b[i].Returns[ep] {
				t.Fatalf("trial %d episode %d differs between 1 and 3 workers", i, ep)
			}
		}
	}
	// Non-DP Off-PAC on Taxi improves on the first episodes.
	res, err := Run(must(envs.Make("taxi")), envs.TabularFeatures{N: 500}, Config{Variant: NonDP, Episodes: 300, Gamma: 0.99, Lambda: 0,
		AlphaV: 0.05, AlphaW: 0.05, AlphaU: 0.5, Explore: 0.1, Src: rand.NewPCG(5, 5)})
	if err != nil {
		t.Fatal(err)
	}
	early, late := stat.Mean(res.Returns[:30], nil), stat.Mean(res.Returns[270:], nil)
	if !(late > early+50) {
		t.Errorf("Taxi returns did not improve: first 30 episodes %.1f, last 30 %.1f", early, late)
	}
}

func TestConfigErrors(t *testing.T) {
	env := must(envs.Make("taxi"))
	for name, c := range map[string]Config{
		"Episodes":        {Episodes: 0, Src: rand.NewPCG(1, 1)},
		"Lambda":          {Episodes: 1, Lambda: 2, Src: rand.NewPCG(1, 1)},
		"Epsilon":         {Variant: DPActor, Episodes: 1, Delta: 1e-6, Src: rand.NewPCG(1, 1)},
		"Delta":           {Variant: DPBoth, Episodes: 1, Epsilon: 1, Delta: 1, Src: rand.NewPCG(1, 1)},
		"Clip":            {Variant: Corrected, Episodes: 1, NoiseMultiplier: 1, MaxEpisodeLen: 200, Src: rand.NewPCG(1, 1)},
		"NoiseMultiplier": {Variant: Corrected, Episodes: 1, Clip: 1, MaxEpisodeLen: 200, Src: rand.NewPCG(1, 1)},
		"MaxEpisodeLen":   {Variant: Corrected, Episodes: 1, Clip: 1, NoiseMultiplier: 1, Src: rand.NewPCG(1, 1)},
		"Variant":         {Variant: Variant(7), Episodes: 1, Src: rand.NewPCG(1, 1)},
		"Acting":          {Acting: Acting(-1), Episodes: 1, Src: rand.NewPCG(1, 1)},
		"AlphaU":          {Episodes: 1, AlphaU: math.NaN(), Src: rand.NewPCG(1, 1)},
	} {
		if _, err := Run(env, envs.TabularFeatures{N: 500}, c); err == nil || !contains(err.Error(), name) {
			t.Errorf("%s: error %v", name, err)
		}
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestCorrectedEnforcesBounds: the corrected variant's accounting assumes episodes of at most H steps and a
// clipped update per step. Run cuts episodes at MaxEpisodeLen (the old code let a longer episode contribute
// more steps than H), and a NaN reward's update is dropped and counted instead of stopping the run (which
// revealed the data) or reaching the weights.
func TestCorrectedEnforcesBounds(t *testing.T) {
	env := must(envs.Make("taxi"))
	cfg := Config{Variant: Corrected, Episodes: 5, Gamma: 0.99, AlphaV: 0.05, AlphaW: 0.05, AlphaU: 0.5, Explore: 0.1,
		Clip: 1, NoiseMultiplier: 1, MaxEpisodeLen: 7, Src: rand.NewPCG(1, 1)}
	res, err := Run(env, envs.TabularFeatures{N: 500}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.MaxLength > 7 || res.Cut != 5 {
		t.Errorf("longest episode %d, %d cut: want ≤ 7 and 5", res.MaxLength, res.Cut)
	}
	bad := nanReward{Env: must(envs.Make("taxi"))}
	res, err = Run(&bad, envs.TabularFeatures{N: 500}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.DivergedAt != -1 || res.Dropped == 0 {
		t.Errorf("NaN rewards: diverged at %d, %d updates dropped", res.DivergedAt, res.Dropped)
	}
	for _, d := range []float64{math.Inf(1), 1e308} {
		z, dw := []float64{d, 1}, []float64{d}
		ok := clipAndNoise(2, 0, rand.New(rand.NewPCG(1, 1)), z, dw)
		n := math.Sqrt(z[0]*z[0] + z[1]*z[1] + dw[0]*dw[0])
		if math.IsInf(d, 1) && (ok || n != 0) || !math.IsInf(d, 1) && (!ok || math.Abs(n-2) > 1e-12) {
			t.Errorf("clipAndNoise with %v: ok %v, norm after %v", d, ok, n)
		}
	}
}

// nanReward turns every third reward into NaN.
type nanReward struct {
	envs.Env
	k int
}

func (e *nanReward) Step(a int) (envs.StepResult, error) {
	r, err := e.Env.Step(a)
	if e.k++; e.k%3 == 0 {
		r.Reward = math.NaN()
	}
	return r, err
}

// TestBadInputErrors: a nil environment, a feature map too small for the observations (a panic before) and
// a zero Summarize window are errors.
func TestBadInputErrors(t *testing.T) {
	taxi := must(envs.Make("taxi"))
	if _, err := Run(nil, nil, Config{Episodes: 1, Src: rand.NewPCG(1, 1)}); err == nil {
		t.Error("nil environment accepted")
	}
	if _, err := Run(taxi, envs.TabularFeatures{N: 5}, Config{Episodes: 1, Src: rand.NewPCG(1, 1)}); err == nil {
		t.Error("5 tabular features for Taxi's 500 states accepted")
	}
	for _, f := range []func() error{
		func() error { _, err := CorrectedEpsilon(0, 10, 1e-5); return err },
		func() error { _, err := CorrectedNoise(1, 1e-5, 0); return err },
	} {
		if f() == nil {
			t.Error("a privacy helper accepted a bad argument")
		}
	}
}

// oneStep is a one-state, two-action environment whose episodes end after one step with reward 0.
type oneStep struct{}

func (oneStep) Name() string                         { return "one-step" }
func (oneStep) Reset(rand.Source) ([]float64, error) { return []float64{0}, nil }
func (oneStep) Step(int) (envs.StepResult, error) {
	return envs.StepResult{Obs: []float64{0}, Terminated: true}, nil
}
func (oneStep) ObservationSpace() envs.Box { return envs.Box{Low: []float64{0}, High: []float64{0}} }
func (oneStep) NumActions() int            { return 2 }
func (oneStep) State() []float64           { return []float64{0} }
func (oneStep) SetState([]float64) error   { return nil }

// TestCorrectedPadsToH: the corrected variant's accounting gives every episode exactly H releases of noise
// σC, so episodes of one step with H = 50 must leave, with zero step sizes (nothing but noise moves the
// weights), every weight distributed as N(0, Episodes·H·(σC)²). The old code released once per step
// actually taken (variance Episodes·(σC)², 50 times smaller): a short episode's noise count depended on the
// data, and the releases of later episodes were no longer aligned between neighbouring datasets.
func TestCorrectedPadsToH(t *testing.T) {
	const episodes, h, runs, sd = 20, 50, 200, 0.5
	var sq float64
	n := 0
	for r := range runs {
		res, err := Run(oneStep{}, envs.TabularFeatures{N: 1}, Config{Variant: Corrected, Episodes: episodes, Gamma: 0.9,
			Clip: 1, NoiseMultiplier: sd, MaxEpisodeLen: h, Src: rand.NewPCG(uint64(r), 7)})
		if err != nil {
			t.Fatal(err)
		}
		if res.Releases != episodes*h || res.MaxLength != 1 {
			t.Fatalf("run %d: %d releases (want %d), longest episode %d", r, res.Releases, episodes*h, res.MaxLength)
		}
		for _, p := range [][]float64{res.V, res.W, res.U} {
			for _, x := range p {
				sq += x * x
				n++
			}
		}
	}
	// 800 draws: the variance ratio is within ±15% with overwhelming probability (its sd is 5%).
	if ratio := sq / float64(n) / (episodes * h * sd * sd); ratio < 0.85 || ratio > 1.15 {
		t.Errorf("weight variance / (episodes·H·(σC)²) = %.3f, want 1 (one release per step taken gives %.3f)", ratio, 1.0/h)
	}
}
