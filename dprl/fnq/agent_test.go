package fnq

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/dprl-project/dprl/dprl/nn"
	"github.com/dprl-project/dprl/dprl/param"
	"github.com/dprl-project/dprl/envs"
	"github.com/dprl-project/dprl/mechanisms"
)

func wangHegde() envs.Env { e, _ := envs.Make("wanghegde"); return e }

func mean(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

// TestDQNLearns: the non-private agent's last 20 episodes return clearly more than its first 20 and than a
// uniformly random policy (≈ 12 of a possible ≈ 25), and the run is reproducible bit for bit.
func TestDQNLearns(t *testing.T) {
	res, err := Run(wangHegde(), Config{Src: rand.NewPCG(1, 1)})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Returns) != 100 || res.Samples != 5000 || res.Updates != 5000-127 {
		t.Fatalf("%d episodes, %d samples, %d updates", len(res.Returns), res.Samples, res.Updates)
	}
	first, last := mean(res.Returns[:20]), mean(res.Returns[80:])
	random, _ := Run(wangHegde(), Config{Src: rand.NewPCG(1, 1), EpsStart: 1, EpsEnd: 1, Episodes: 20})
	if !(last > first+2 && last > mean(random.Returns)+4) {
		t.Errorf("returns: first 20 %.2f, last 20 %.2f, random %.2f", first, last, mean(random.Returns))
	}
	again, _ := Run(wangHegde(), Config{Src: rand.NewPCG(1, 1)})
	if !reflect.DeepEqual(res.Returns, again.Returns) {
		t.Error("two runs from the same seed differ")
	}
}

// TestFunctionalNoiseRelease: with negligible σ functional noise acts as DQN (σ = 0 is refused); with σ > 0
// the released function answers repeated queries with the same value and differs from the bare network by
// the path.
func TestFunctionalNoiseRelease(t *testing.T) {
	a, _ := Run(wangHegde(), Config{Src: rand.NewPCG(2, 2), Episodes: 10})
	b, err := Run(wangHegde(), Config{Src: rand.NewPCG(2, 2), Episodes: 10, Method: FunctionalNoise, Sigma: 1e-300})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a.Returns, b.Returns) {
		t.Error("σ = 1e-300 functional noise differs from DQN")
	}
	c, err := Run(wangHegde(), Config{Src: rand.NewPCG(2, 2), Episodes: 10, Method: FunctionalNoise, Sigma: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	q := c.Released
	rng := rand.New(rand.NewPCG(3, 3))
	states := make([]float64, 200)
	first := make([]float64, 200)
	for i := range states {
		states[i] = rng.Float64()
		first[i] = q.Value(states[i], i%2)
	}
	differs := false
	for i, s := range states {
		if q.Value(s, i%2) != first[i] {
			t.Fatalf("query %d changed on repetition", i)
		}
		bare := (&Released{net: q.Network()}).Value(s, i%2)
		differs = differs || bare != first[i]
	}
	if !differs {
		t.Error("the released function equals the bare network")
	}
}

// TestBaselinesWire: input perturbation with a negligible σ_r and DP-SGD with a negligible z and a clip that
// never binds are DQN (clip aside); huge reward noise stops learning. A zero noise level is refused.
func TestBaselinesWire(t *testing.T) {
	base, _ := Run(wangHegde(), Config{Src: rand.NewPCG(4, 4), Episodes: 10})
	ip, err := Run(wangHegde(), Config{Src: rand.NewPCG(4, 4), Episodes: 10, Method: InputPerturbation, RewardSigma: 1e-300})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(base.Returns[:3], ip.Returns[:3]) {
		t.Error("σ_r = 1e-300 differs from DQN in the first episodes")
	}
	dp, err := Run(wangHegde(), Config{Src: rand.NewPCG(4, 4), Episodes: 10, Method: DPSGD, Clip: 1e9, Z: 1e-300})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(base.Returns[:3], dp.Returns[:3]) {
		t.Error("DP-SGD with z = 1e-300 and no clipping differs from DQN in the first episodes")
	}
	// The noise field left unset used to run the private methods without noise.
	for _, c := range []Config{{Method: FunctionalNoise}, {Method: InputPerturbation}, {Method: DPSGD, Clip: 1},
		{Method: FunctionalNoise, Sigma: math.NaN()}, {Method: InputPerturbation, RewardSigma: -1}, {Method: DPSGD, Clip: 1, Z: math.Inf(1)},
		{Method: Method(9)}, {Episodes: -1}, {Batch: -2}, {Hidden: []int{0}}, {LR: math.NaN()}} {
		c.Src = rand.NewPCG(1, 1)
		if _, err := Run(wangHegde(), c); err == nil {
			t.Errorf("Run accepted %+v", c)
		}
	}
	if _, err := Run(wangHegde(), Config{Src: rand.NewPCG(4, 4), Method: DPSGD}); err == nil {
		t.Error("DP-SGD without a clip accepted")
	}
	if _, err := Run(wangHegde(), Config{}); err == nil {
		t.Error("a run without a Src accepted")
	}
}

// TestRunSpecified: Algorithm 1 takes T′ = T/B SGD steps on T samples, uses the calibrated σ and β, and
// keeps the network within the calibration's Lipschitz bound L = 1 (the initial network's bound is ≈ 1.4,
// which the old code let through, reporting it at the end); the exact GDP σ is smaller. The worked setting's
// k = 210 (ours) leaves the corrected tail vacuous, so these runs need NoGuarantee.
func TestRunSpecified(t *testing.T) {
	cal := Calibration{Epsilon: 0.9, Delta: 1e-4, T: 5000, B: 128, LR: 7e-5, L: 1, K: 210, Actions: 2, Resets: 39}
	res, err := RunSpecified(wangHegde(), SpecifiedConfig{Calibration: cal, Explore: 0.1, NoGuarantee: true, Src: rand.NewPCG(5, 5)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Updates != 39 || res.Samples != 39*128 || len(res.Returns) != 39*128/50 {
		t.Fatalf("%d updates, %d samples, %d episodes", res.Updates, res.Samples, len(res.Returns))
	}
	if res.Sigma != res.Constants.SigmaThm5 || !(res.FinalL > 0) || !res.WithinL || res.FinalL > 1+1e-9 || res.Projected == 0 {
		t.Errorf("σ %g (Theorem 5: %g), final L %g, within %v, %d projections", res.Sigma, res.Constants.SigmaThm5, res.FinalL, res.WithinL, res.Projected)
	}
	if res.Guaranteed || !res.Tail.Covered || res.Tail.Conservative != 1 {
		t.Errorf("k = 210, L = 1: guaranteed %v, tail %+v; want the printed precondition to hold and the corrected tail to be vacuous", res.Guaranteed, res.Tail)
	}
	gdp, _ := RunSpecified(wangHegde(), SpecifiedConfig{Calibration: cal, UseGDPSigma: true, NoGuarantee: true, Src: rand.NewPCG(5, 5)})
	if !(gdp.Sigma < res.Sigma) {
		t.Errorf("GDP σ %g not below Theorem 5's %g", gdp.Sigma, res.Sigma)
	}
	if _, err := RunSpecified(wangHegde(), SpecifiedConfig{Calibration: Calibration{Epsilon: 0.9, Delta: 1e-4, T: 5000, B: 128, LR: 7e-5, L: 1, K: 210, Actions: 3, Resets: 1}, Src: rand.NewPCG(1, 1)}); err == nil {
		t.Error("a 3-action calibration accepted for a 2-action environment")
	}
}

// TestRunSpecifiedGuarantee: RunSpecified refuses a configuration outside Theorem 5 (naming the parameter),
// runs it only when told to and then says it has no guarantee, and certifies a configuration whose
// precondition, corrected tail and exact ε with both outputs all hold.
func TestRunSpecifiedGuarantee(t *testing.T) {
	paramOf := func(err error) string {
		var pe *param.Error
		if !errors.As(err, &pe) {
			return fmt.Sprintf("not a *param.Error: %v", err)
		}
		return pe.Param
	}
	// Algorithm 1 with L = 2 at the worked setting's k = 210 (ours): 2k − 8.68√β·σ ≈ −94.
	pub := Calibration{Epsilon: 0.9, Delta: 1e-4, T: 5000, B: 128, LR: 7e-5, L: 2, K: 210, Actions: 2, Resets: 39}
	if k, _ := pub.Compute(); k.Covered || math.Abs(k.TailMargin+94) > 1 || k.TailPaper != 1 {
		t.Errorf("L = 2, k = 210: covered %v, margin %g, paper tail %g; want not covered, ≈ −94, 1", k.Covered, k.TailMargin, k.TailPaper)
	}
	if _, err := RunSpecified(wangHegde(), SpecifiedConfig{Calibration: pub, Src: rand.NewPCG(1, 1)}); paramOf(err) != "K" {
		t.Errorf("outside Theorem 5 without NoGuarantee: %v; want an error naming K", err)
	}
	r, err := RunSpecified(wangHegde(), SpecifiedConfig{Calibration: pub, NoGuarantee: true, Src: rand.NewPCG(1, 1)})
	if err != nil || r.Guaranteed || r.Tail.Covered || math.Abs(r.Tail.Margin+94) > 1 {
		t.Errorf("NoGuarantee run: err %v, guaranteed %v, tail %+v", err, r.Guaranteed, r.Tail)
	}
	// Raising k to 600 satisfies the precondition and the corrected tail; with the exact σ for both outputs
	// the run is (0.9, 1e−4 + tail)-DP exactly.
	ok := pub
	ok.K, ok.MActionCorrection = 600, true
	g, err := RunSpecified(wangHegde(), SpecifiedConfig{Calibration: ok, UseGDPSigma: true, Src: rand.NewPCG(1, 1)})
	if err != nil {
		t.Fatal(err)
	}
	if !g.Guaranteed || math.Abs(g.EpsilonExact-0.9) > 1e-6 || !(g.Tail.Conservative < 1e-100) || g.Sigma != g.Constants.SigmaGDP {
		t.Errorf("corrected run: guaranteed %v, exact ε %g, tail %+v, σ %g", g.Guaranteed, g.EpsilonExact, g.Tail, g.Sigma)
	}
	// Without the m-action correction the exact ε with both outputs moving exceeds 0.9: refused, naming Epsilon.
	one := ok
	one.MActionCorrection = false
	if _, err := RunSpecified(wangHegde(), SpecifiedConfig{Calibration: one, UseGDPSigma: true, Src: rand.NewPCG(1, 1)}); paramOf(err) != "Epsilon" {
		t.Errorf("one action's sensitivity: %v; want an error naming Epsilon", err)
	}
	// The noiseless reference: no paths, never guaranteed, same initial network as the noisy run.
	n, err := RunSpecified(wangHegde(), SpecifiedConfig{Calibration: pub, Noiseless: true, Src: rand.NewPCG(1, 1)})
	if err != nil || n.Guaranteed || n.Sigma != 0 || n.Released.Noised() || !math.IsInf(n.EpsilonExact, 1) {
		t.Errorf("noiseless: err %v, guaranteed %v, σ %g, ε %g", err, n.Guaranteed, n.Sigma, n.EpsilonExact)
	}
}

// TestBGP16: the first-visit signature matches a hand computation, and with a huge ε the DP-LSL critic learns
// (last 20 episodes beat the first 20).
func TestBGP16(t *testing.T) {
	sig, err := firstVisit([][]step{{{0, 1}, {1, 0}, {0, 2}}, {{1, 3}}}, 2, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	// trajectory 1: pair 0 first at t = 0: 1 + 0.5·0 + 0.25·2 = 1.5; pair 1 at t = 1: 0 + 0.5·2 = 1; trajectory 2: pair 1: 3
	if sig.M != 2 || sig.Counts[0] != 1 || sig.Counts[1] != 2 || sig.F[0] != 1.5 || sig.F[1] != 2 {
		t.Fatalf("signature %+v", sig)
	}
	res, err := RunBGP16(wangHegde(), BGPConfig{Epsilon: 1, Delta: 0.1, ReturnBound: 25, Src: rand.NewPCG(6, 6)})
	if err != nil {
		t.Fatal(err)
	}
	if first, last := mean(res.Returns[:20]), mean(res.Returns[80:]); !(last > first+2) || res.Updates != 10 {
		t.Errorf("returns %.2f → %.2f, %d releases", first, last, res.Updates)
	}
}

// TestBadInputErrors: nil environments and bad BGP16/Algorithm 1 configurations are errors, not panics
// (RunBGP16 with a negative Bins panicked).
func TestBadInputErrors(t *testing.T) {
	src := rand.NewPCG(1, 1)
	cal := Calibration{Epsilon: 0.9, Delta: 1e-4, T: 5000, B: 128, LR: 7e-5, L: 1, K: 210, Actions: 2, Resets: 39}
	for name, f := range map[string]func() error{
		"Run nil env":          func() error { _, err := Run(nil, Config{Src: src}); return err },
		"RunSpecified nil env": func() error { _, err := RunSpecified(nil, SpecifiedConfig{Calibration: cal, Src: src}); return err },
		"RunSpecified Explore": func() error {
			_, err := RunSpecified(wangHegde(), SpecifiedConfig{Calibration: cal, Explore: math.NaN(), Src: src})
			return err
		},
		"BGP Bins": func() error {
			_, err := RunBGP16(wangHegde(), BGPConfig{Bins: -1, Epsilon: 1, Delta: 0.1, Src: src})
			return err
		},
		"BGP epsilon":   func() error { _, err := RunBGP16(wangHegde(), BGPConfig{Delta: 0.1, Src: src}); return err },
		"BGP nil env":   func() error { _, err := RunBGP16(nil, BGPConfig{Epsilon: 1, Delta: 0.1, Src: src}); return err },
		"Calibration T": func() error { c := cal; c.T = 10; _, err := c.Compute(); return err },
	} {
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s panicked: %v", name, r)
				}
			}()
			if err := f(); err == nil {
				t.Errorf("%s: no error", name)
			}
		}()
	}
}

// TestEndlessEnvironment: an environment without a time limit (the bare E.1 MDP) used to make RunBGP16
// and Run loop forever; MaxEpisodeLen cuts each episode.
func TestEndlessEnvironment(t *testing.T) {
	res, err := RunBGP16(envs.NewWangHegde(), BGPConfig{Episodes: 2, Bins: 4, Every: 1, Epsilon: 1, Delta: 1e-5, ReturnBound: 25, MaxEpisodeLen: 7, Src: rand.NewPCG(1, 2)})
	if err != nil || res.Samples != 14 {
		t.Fatalf("RunBGP16: %v samples, error %v; want 14 (2 episodes cut at 7)", res, err)
	}
	r2, err := Run(envs.NewWangHegde(), Config{Method: NonPrivate, Episodes: 2, Batch: 4, MaxEpisodeLen: 7, Src: rand.NewPCG(1, 2)})
	if err != nil || r2.Samples != 14 {
		t.Fatalf("Run: %v, error %v; want 14 samples", r2, err)
	}
	if _, err := RunBGP16(envs.NewWangHegde(), BGPConfig{Epsilon: 1, Delta: 1e-5, Src: rand.NewPCG(1, 2)}); err == nil || !strings.Contains(err.Error(), "ReturnBound") {
		t.Fatalf("RunBGP16 without ReturnBound: %v, want an error naming ReturnBound", err)
	}
}

// TestPathCache: reading the paths through a replay entry's cache gives what the paths themselves give, bit
// for bit and with the same draws, across repeated entries in a batch, resets of the paths and entries
// overwritten in the buffer.
func TestPathCache(t *testing.T) {
	net, err := nn.NewMLP([]int{1, 4, 2}, nn.ReLU, rand.NewPCG(1, 1))
	if err != nil {
		t.Fatal(err)
	}
	mk := func() noisyNet {
		paths, err := mechanisms.NewOUPaths(2, 0.7, 3, rand.NewPCG(2, 2))
		if err != nil {
			t.Fatal(err)
		}
		return noisyNet{net: net, paths: paths}
	}
	cached, plain := mk(), mk()
	const entries, batch = 20, 8
	c := newPathCache(entries, 2)
	states := make([]float64, entries)
	rng := rand.New(rand.NewPCG(3, 3))
	for i := range states {
		states[i] = rng.Float64()
	}
	wsA, wsB := nn.NewWorkspace(net, batch), nn.NewWorkspace(net, batch)
	idx, xs := make([]int, batch), make([]float64, batch)
	for step := range 200 {
		if step%50 == 49 { // a reset of the paths
			for i := range cached.paths {
				cached.paths[i].Reset()
				plain.paths[i].Reset()
			}
			c.cur++
		}
		if step%7 == 0 { // an entry overwritten with a new state
			w := rng.IntN(entries)
			states[w] = rng.Float64()
			c.gen[w] = 0
		}
		for i := range idx {
			idx[i] = rng.IntN(entries)
			xs[i] = states[idx[i]]
		}
		a := slices.Clone(cached.forwardAt(wsA, xs, idx, c))
		b := plain.forward(wsB, xs)
		if !slices.Equal(a, b) {
			t.Fatalf("step %d: cached %v, plain %v", step, a, b)
		}
	}
	for i := range cached.paths {
		if cached.paths[i].Len() != plain.paths[i].Len() {
			t.Errorf("path %d holds %d points through the cache, %d without", i, cached.paths[i].Len(), plain.paths[i].Len())
		}
	}
}

// TestDiverged: a run whose steps blow the network up says so; an ordinary run does not.
func TestDiverged(t *testing.T) {
	cal := Calibration{Epsilon: 0.9, Delta: 1e-4, T: 640, B: 64, LR: 1e-3, L: 2, K: 1000, Actions: 2, Resets: 10}
	ok, err := RunSpecified(wangHegde(), SpecifiedConfig{Calibration: cal, Noiseless: true, Src: rand.NewPCG(1, 1)})
	if err != nil {
		t.Fatal(err)
	}
	cal.LR = 1e100
	bad, err := RunSpecified(wangHegde(), SpecifiedConfig{Calibration: cal, Noiseless: true, Src: rand.NewPCG(1, 1)})
	if err != nil {
		t.Fatal(err)
	}
	if ok.Diverged || !bad.Diverged {
		t.Errorf("diverged: α = 1e-3 %v, α = 1e100 %v", ok.Diverged, bad.Diverged)
	}
	if len(bad.Returns) == 0 {
		t.Error("a diverged run has no returns")
	}
	for _, r := range bad.Returns {
		if math.IsNaN(r) {
			t.Error("a diverged run's return is NaN: returns count the environment's rewards")
		}
	}
}
