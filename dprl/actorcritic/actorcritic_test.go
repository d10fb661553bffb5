package actorcritic

import (
	"math"
	"math/rand/v2"
	"slices"
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

func TestNormaliseAndClip(t *testing.T) {
	// The gradient is rescaled to norm |C| = median of its non-zero |entries|; zeros stay zero (the noise,
	// N(0, σ²C²) on every entry, is added by the update).
	var buf []float64
	g := []float64{0, 3, -1, 0, 2} // median of {3, 1, 2} = 2; ‖g‖ = √14
	if c := normalise(g, []int{1, 2, 4}, &buf); c != 2 || g[0] != 0 || g[3] != 0 || math.Abs(math.Hypot(g[1], math.Hypot(g[2], g[4]))-2) > 1e-15 {
		t.Errorf("C = %g, g = %v: want C = 2 and ‖g‖ = 2", c, g)
	}
	if h := []float64{0, 3, -1, 0, 2}; Normalise(h) != 2 || !slices.Equal(h, g) {
		t.Errorf("Normalise: %v, want %v", h, g)
	}
	zero := []float64{0, 0}
	if normalise(zero, []int{0, 1}, &buf) != 0 || zero[0] != 0 {
		t.Error("a zero gradient got C > 0")
	}
	if got, want := PublishedSigma(10, 1e-6), math.Sqrt(2*math.Log(1.25e6))/10; got != want {
		t.Errorf("eq. (3) σ = %g, want %g", got, want)
	}
	// The corrected variant clips the joint update [z; dw; a·eU] to norm C.
	z, dw, eU := []float64{3, 0}, []float64{0, 0}, []float64{0, 2}
	if s, ok := clipScale(1, z, []int{0}, dw, nil, eU, []int{1}, 2); !ok || math.Abs(s-0.2) > 1e-15 {
		t.Errorf("joint norm 5 clipped to 1 by %g (ok %v), want 0.2", s, ok)
	}
	if s, ok := clipScale(1, []float64{0.1}, []int{0}, nil, nil, nil, nil, 1); !ok || s != 1 {
		t.Errorf("an update inside the ball scaled by %g", s)
	}
	for _, d := range []float64{math.Inf(1), math.NaN(), 1e308} {
		z := []float64{d, 1}
		s, ok := clipScale(2, z, []int{0, 1}, []float64{d}, []int{0}, nil, nil, 1)
		n := s * math.Sqrt(2*(d/1e308)*(d/1e308)+(1/1e308)*(1/1e308)) * 1e308
		if math.IsInf(d, 1) || math.IsNaN(d) {
			if ok || s != 0 {
				t.Errorf("clipScale with %v: ok %v, scale %g; want the update dropped", d, ok, s)
			}
		} else if !ok || math.Abs(n-2) > 1e-12 {
			t.Errorf("clipScale with %v: ok %v, norm after %v", d, ok, n)
		}
	}
	// The corrected variant's σ for (ε, δ) = (1, 1e-6) with episodes of 200 steps gives back ε = 1.
	s, err := CorrectedNoise(1, 1e-6, 200)
	if err != nil {
		t.Fatal(err)
	}
	if e, _ := CorrectedEpsilon(s, 200, 1e-6); math.Abs(e-1) > 1e-6 {
		t.Errorf("round trip ε = %g", e)
	}
}

// TestSparseRunIsTheDenseRun: without noise, the run that touches only the non-zero features and traces
// gives exactly the results of the literal dense updates (testDense), on Taxi (λ = 0: sparse traces) and
// on the chain (λ = 0.8: dense traces), for both acting rules; DP-Actor with λ > 0 draws its noise on every
// entry in both, so it agrees exactly too.
func TestSparseRunIsTheDenseRun(t *testing.T) {
	type tc struct {
		env    string
		n      int
		v      Variant
		lambda float64
		acting Acting
	}
	for _, c := range []tc{{"taxi", 500, NonDP, 0, EpsilonGreedy}, {"taxi", 500, NonDP, 0.6, Softmax}, {"mdp100", 100, NonDP, 0.8, EpsilonGreedy},
		{"mdp100", 100, DPActor, 0.8, EpsilonGreedy}} {
		run := func(dense bool) *Result {
			testDense = dense
			defer func() { testDense = false }()
			r, err := Run(must(envs.Make(c.env)), envs.TabularFeatures{N: c.n}, Config{Variant: c.v, Acting: c.acting, Episodes: 40, Gamma: 0.99,
				Lambda: c.lambda, AlphaV: 0.05, AlphaW: 0.05, AlphaU: 0.5, Explore: 0.1, Epsilon: 10, Delta: 1e-6, RecordTraces: true, Src: rand.NewPCG(3, 4)})
			if err != nil {
				t.Fatal(err)
			}
			return r
		}
		a, b := run(false), run(true)
		same := slices.Equal(a.Returns, b.Returns) && slices.Equal(a.V, b.V) && slices.Equal(a.W, b.W) && slices.Equal(a.U, b.U)
		for ep := range a.TraceU {
			same = same && slices.Equal(a.TraceU[ep], b.TraceU[ep]) && slices.Equal(a.TraceV[ep], b.TraceV[ep])
		}
		if !same {
			t.Errorf("%+v: the sparse run differs from the dense one (returns %v vs %v)", c, a.Returns[:5], b.Returns[:5])
		}
	}
}

// TestOwedNoiseHasTheDenseDistribution: noise owed to the weights and drawn when an entry is read gives the
// weights and returns the distribution of drawing it on every entry every step (testDense). On a 6-state
// chain, 400 runs each of DP-Actor and DP-Both with λ = 0 (actor noise owed to u, critic noise owed to v)
// and of the corrected variant (noise on every coordinate, and the padding): the goal state is never acted
// in and its value never bootstrapped, so its weights are pure noise, and their mean square (its variance)
// must agree within ±20% between the two; the returns must pass a two-sample Kolmogorov–Smirnov test at
// level 0.001 (both stated before the run; fixed seeds, so the outcome is fixed). Owing a third of the noise
// fails both.
func TestOwedNoiseHasTheDenseDistribution(t *testing.T) {
	p := envs.ChainParams{N: 6, AdvanceProb: 0.8, StepReward: -1, GoalReward: 5, Label: "chain"}
	const runs = 400
	for _, v := range []Variant{DPActor, DPBoth, Corrected} {
		sample := func(dense bool) (returns, goalU, goalV []float64) {
			testDense = dense
			defer func() { testDense = false }()
			for r := range runs {
				env := &envs.TimeLimit{Env: envs.NewChain(p), MaxSteps: 30}
				res, err := Run(env, envs.TabularFeatures{N: 6}, Config{Variant: v, Episodes: 8, Gamma: 0.9, AlphaV: 0.1, AlphaW: 0.05,
					AlphaU: 0.3, Explore: 0.2, Epsilon: 2, Delta: 1e-5, Clip: 1, NoiseMultiplier: 0.3, MaxEpisodeLen: 30,
					Src: rand.NewPCG(uint64(r), uint64(v)+10*uint64(btoi(dense)))})
				if err != nil {
					t.Fatal(err)
				}
				returns = append(returns, stat.Mean(res.Returns, nil))
				goalU = append(goalU, res.U[5]*res.U[5], res.U[11]*res.U[11])
				goalV = append(goalV, res.V[5]*res.V[5])
			}
			return returns, goalU, goalV
		}
		ra, ua, va := sample(false)
		rb, ub, vb := sample(true)
		if d, crit := ksDistance(ra, rb), 1.949*math.Sqrt(2.0/runs); d > crit {
			t.Errorf("%s: returns: KS distance %.3f between owed and dense noise > %.3f (level 0.001)", v, d, crit)
		}
		for _, w := range []struct {
			name   string
			ma, mb float64
		}{{"u of the goal state", stat.Mean(ua, nil), stat.Mean(ub, nil)}, {"v of the goal state", stat.Mean(va, nil), stat.Mean(vb, nil)}} {
			if w.ma == 0 && w.mb == 0 && v == DPActor && w.name[0] == 'v' {
				continue // DP-Actor puts no noise on the critic
			}
			if r := w.ma / w.mb; !(r > 0.8 && r < 1.25) {
				t.Errorf("%s: %s: variance %.4g with owed noise, %.4g drawn every step (ratio %.3f)", v, w.name, w.ma, w.mb, r)
			}
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// ksDistance is the two-sample Kolmogorov–Smirnov distance sup |F_a − F_b|.
func ksDistance(a, b []float64) float64 {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	d, i, j := 0.0, 0, 0
	for i < len(a) && j < len(b) {
		x := math.Min(a[i], b[j])
		for i < len(a) && a[i] == x {
			i++
		}
		for j < len(b) && b[j] == x {
			j++
		}
		d = math.Max(d, math.Abs(float64(i)/float64(len(a))-float64(j)/float64(len(b))))
	}
	return d
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

// TestMedianIsTheSortedMedian: the selection gives the median sorting would, for odd and even lengths,
// with ties, up to lengths where it partitions.
func TestMedianIsTheSortedMedian(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	for n := 1; n < 200; n++ {
		a := make([]float64, n)
		for i := range a {
			a[i] = float64(rng.IntN(n/2 + 1)) // ties
			if n%3 == 0 {
				a[i] = rng.Float64()
			}
		}
		s := slices.Clone(a)
		slices.Sort(s)
		want := s[n/2]
		if n%2 == 0 {
			want = (s[n/2-1] + s[n/2]) / 2
		}
		if got := median(a); got != want {
			t.Fatalf("n = %d: median %g, sorted %g", n, got, want)
		}
	}
	if median(nil) != 0 {
		t.Error("the median of nothing must be 0")
	}
}
