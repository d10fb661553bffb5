package policyeval

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/dprl-project/dprl/envs"
	"github.com/dprl-project/dprl/mechanisms"
)

func chainFeatureTrajs(t *testing.T, n int, seed uint64) ([]FeatureTrajectory, *balleChain) {
	t.Helper()
	b, _ := newBalleChain()
	env, _ := envs.Make("chain")
	tr, err := envs.Collect(env, b.Policy, n, rand.NewPCG(seed, 3), 0)
	if err != nil {
		t.Fatal(err)
	}
	ft, err := Featurize(tr, envs.TabularFeatures{N: 40}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return ft, b
}

// TestExactMomentsAndLSTD: on the tabular chain the MSPBE minimiser of the exact moments is the true value
// function, and LSTD from a large sample gets close to it.
func TestExactMomentsAndLSTD(t *testing.T) {
	b, _ := newBalleChain()
	model := envs.NewChain(envs.BalleChainParams()).Model()
	mo, err := ModelMoments(model, b.Policy.P, StateAggregation(40, 1), 0.99)
	if err != nil {
		t.Fatal(err)
	}
	star := mo.Solve()
	for s := range 39 {
		if math.Abs(star[s]-b.V[s]) > 1e-9 {
			t.Fatalf("θ*[%d] = %g, V = %g", s, star[s], b.V[s])
		}
	}
	if e := mo.MSPBE(star); e > 1e-20 {
		t.Errorf("MSPBE at the solution %g", e)
	}
	ft, _ := chainFeatureTrajs(t, 3000, 1)
	l, err := LSTD(ft, 0.99, 1e-6)
	if err != nil {
		t.Fatal(err)
	}
	if e := mo.MSPBE(l); e > 1e-4 {
		t.Errorf("LSTD MSPBE %g with 3000 trajectories", e)
	}
	// On-policy (ρ = 1) WIS-LSTD(0) is LSTD: compare without ridge terms (they scale differently: LSTD's is
	// added to the averaged A, WIS-LSTD's to the summed one); both take the minimum-norm solution.
	l0, _ := LSTD(ft, 0.99, 0)
	w, _ := WISLSTD(ft, 0.99, 0)
	for i := range w {
		if math.Abs(w[i]-l0[i]) > 1e-8 {
			t.Fatalf("on-policy WIS-LSTD(0) differs from LSTD at %d: %g vs %g", i, w[i], l0[i])
		}
	}
	zero := make([]float64, 40)
	if !(mo.MSPBE(l) < mo.MSPBE(zero)/100) {
		t.Error("LSTD is not much better than θ = 0")
	}
}

// TestGPOPEConverges: non-private episodic GTD2 (σ = 0, a clip that never binds) reduces the exact MSPBE
// more than 50-fold (a constant step leaves a sampling-noise floor), and noise at the calibrated σ makes it
// worse but still finite.
func TestGPOPEConverges(t *testing.T) {
	ft, b := chainFeatureTrajs(t, 500, 2)
	model := envs.NewChain(envs.BalleChainParams()).Model()
	mo, _ := ModelMoments(model, b.Policy.P, StateAggregation(40, 1), 0.99)
	start := mo.MSPBE(make([]float64, 40))
	theta, err := GPOPE(ft, GPOPEConfig{Gamma: 0.99, Iterations: 20000, Step: Constant(0.5), Clip: 1e6, NonPrivate: true, Src: rand.NewPCG(1, 1)})
	if err != nil {
		t.Fatal(err)
	}
	if e := mo.MSPBE(theta); !(e < start/50) {
		t.Errorf("GTD2 MSPBE %g from %g", e, start)
	}
	sigma, err := GPOPESigma(AccountingTheorem9, 500, 20000, 1, 1e-5, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	noisy, err := GPOPE(ft, GPOPEConfig{Gamma: 0.99, Iterations: 20000, Step: Constant(0.5), Clip: 1, Sigma: sigma, Src: rand.NewPCG(1, 1)})
	if err != nil {
		t.Fatal(err)
	}
	if e := mo.MSPBE(noisy); math.IsNaN(e) {
		t.Error("noisy GPOPE MSPBE is NaN")
	}
}

func TestGPOPESigmaMatchesTheReference(t *testing.T) {
	// The GPOPE calibration reference (mechanisms package doc, "Reference values"): n = 1000, T = 1000, ε = 1
	// → σ = 1.726 (integer orders), and ε ≈ 0.18 under the Poisson accountant at that σ.
	orders := mechanisms.IntegerOrders(2, 256)
	s, err := GPOPESigma(AccountingTheorem9, 1000, 1000, 1, 1e-5, 1, orders)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(s-1.726) > 2e-3 {
		t.Errorf("σ = %g, want 1.726", s)
	}
	e, _ := GPOPEEpsilon(AccountingPoisson, 1000, 1000, s, 1, 1e-5, orders)
	if math.Abs(e-0.18) > 0.006 {
		t.Errorf("Poisson ε at the same σ = %g, want 0.18", e)
	}
}

func TestFeaturizeOffPolicyRatios(t *testing.T) {
	env, _ := envs.Make("mountaincar")
	tr, _ := envs.Collect(env, envs.Uniform{N: 3}, 2, rand.NewPCG(1, 1), 0)
	target := envs.MixMin{Base: &envs.Greedy{N: 3, Q: func(dst, _ []float64) []float64 { copy(dst, []float64{0, 0, 1}); return dst }}, PMin: 0.1}
	ft, err := Featurize(tr, envs.MountainCarFourier(2), target)
	if err != nil {
		t.Fatal(err)
	}
	for k, st := range tr[0].Steps {
		want := 0.1 / (1.0 / 3)
		if st.Action == 2 {
			want = 0.8 / (1.0 / 3)
		}
		if math.Abs(ft[0].Rho[k]-want) > 1e-12 {
			t.Fatalf("step %d: ρ = %g, want %g", k, ft[0].Rho[k], want)
		}
	}
	last := tr[0].Steps[len(tr[0].Steps)-1]
	if !last.Terminated && ft[0].Phi[len(tr[0].Steps)][0] != 1 {
		t.Error("the bootstrap features of a truncated trajectory are missing")
	}
}

func TestTuneStep(t *testing.T) {
	// Tuning picks a step size that works and reports the grid.
	ft, b := chainFeatureTrajs(t, 300, 5)
	mo, _ := ModelMoments(envs.NewChain(envs.BalleChainParams()).Model(), b.Policy.P, StateAggregation(40, 1), 0.99)
	best, vals, err := TuneStep(ft, mo, GPOPEConfig{Gamma: 0.99, Iterations: 3000, Clip: 1e6, NonPrivate: true, Src: rand.NewPCG(2, 2)}, []float64{0.01, 0.1, 1})
	if err != nil || len(vals) != 3 || best == 0.01 {
		t.Errorf("best %g, MSPBE %v, err %v", best, vals, err)
	}
}

// TestGPOPEIterate: the hook sees every iterate, the last one being the returned θ, and moves by the noisy
// gradient step.
func TestGPOPEIterate(t *testing.T) {
	tr := []FeatureTrajectory{{Phi: [][]float64{{1}, {0}}, Rho: []float64{1}, R: []float64{1}}}
	var steps int
	var last, w1 float64
	theta, err := GPOPE(tr, GPOPEConfig{Gamma: 0.9, Iterations: 5, Step: Constant(0.5), Clip: 10, NonPrivate: true, Src: rand.NewPCG(1, 1),
		Iterate: func(t int, th, w []float64) {
			steps++
			last = th[0]
			if t == 0 {
				w1 = w[0]
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	// from x = 0 the gradient is [0; −r] = [0; −1]: w_1 = 0.5
	if steps != 5 || last != theta[0] || w1 != 0.5 {
		t.Errorf("steps %d, last θ %g vs %g, w_1 = %g (want 0.5)", steps, last, theta[0], w1)
	}
}

// TestGPOPEPoissonSampling: at rate 1 every trajectory is in every step's sample, so one noiseless step of
// size 1 moves θ by minus the mean of the clipped per-trajectory gradients; at rate 1/n the number of sampled
// gradients per step averages 1 (Trace sees each); and a step's noise is N(0, σ²)/(q·n) per coordinate.
func TestGPOPEPoissonSampling(t *testing.T) {
	ft, _ := chainFeatureTrajs(t, 30, 1)
	const clip = 0.05
	theta, err := GPOPE(ft, GPOPEConfig{Gamma: 0.99, Iterations: 1, Step: Constant(1), Clip: clip, NonPrivate: true,
		Sampling: SamplePoisson, Rate: 1, Src: rand.NewPCG(1, 1)})
	if err != nil {
		t.Fatal(err)
	}
	want := make([]float64, 40)
	g := make([]float64, 80)
	zero := make([]float64, 40)
	for _, tr := range ft {
		Gradient(g, tr, 0.99, zero, zero)
		mechanisms.ClipToNorm(g, clip)
		for i := range want {
			want[i] -= g[i] / 30
		}
	}
	for i := range want {
		if math.Abs(theta[i]-want[i]) > 1e-15 {
			t.Fatalf("θ[%d] = %g, want %g", i, theta[i], want[i])
		}
	}
	sampled := 0
	const T = 20000
	if _, err := GPOPE(ft, GPOPEConfig{Gamma: 0.99, Iterations: T, Step: Constant(1e-9), Clip: clip, NonPrivate: true,
		Sampling: SamplePoisson, Src: rand.NewPCG(2, 2), Trace: func(int, float64) { sampled++ }}); err != nil {
		t.Fatal(err)
	}
	if m := float64(sampled) / T; math.Abs(m-1) > 4/math.Sqrt(T) {
		t.Errorf("%.4f sampled gradients per step at rate 1/n, want 1", m)
	}
	// Noise: with θ = w = 0 data (no trajectory), a step moves θ by noise/(q·n); q = 0.5 on 30 trajectories.
	empty := make([]FeatureTrajectory, 30)
	for i := range empty {
		empty[i] = FeatureTrajectory{Phi: [][]float64{{0}, {0}}, Rho: []float64{1}, R: []float64{0}}
	}
	var sumSq float64
	const runs = 4000
	for k := range runs {
		th, err := GPOPE(empty, GPOPEConfig{Gamma: 0.9, Iterations: 1, Step: Constant(1), Clip: 1, Sigma: 3, Sampling: SamplePoisson, Rate: 0.5,
			Src: rand.NewPCG(uint64(k), 5)})
		if err != nil {
			t.Fatal(err)
		}
		sumSq += th[0] * th[0]
	}
	if v, want := sumSq/runs, 9.0/225; math.Abs(v-want) > 4*want*math.Sqrt(2.0/runs) {
		t.Errorf("noise variance %g, want σ²/(qn)² = %g", v, want)
	}
	for name, cfg := range map[string]GPOPEConfig{
		"Rate with SampleOne": {Rate: 0.5},
		"Rate > 1":            {Sampling: SamplePoisson, Rate: 1.5},
		"Sampling 7":          {Sampling: 7},
	} {
		cfg.Gamma, cfg.Iterations, cfg.Step, cfg.Clip, cfg.Sigma, cfg.Src = 0.9, 1, Constant(1), 1, 1, rand.NewPCG(1, 1)
		if _, err := GPOPE(ft, cfg); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// TestGPOPEAccountings: Theorem 27 is never above Theorem 9 for the same run (and has no floor), the PLD
// calibration meets its target within 1%, and each accounting names the sampling it is about.
func TestGPOPEAccountings(t *testing.T) {
	orders := mechanisms.IntegerOrders(2, 256)
	for _, c := range []struct {
		n, T  int
		sigma float64
	}{{1000, 1000, 1.726}, {500, 500, 8.232}, {100, 1000, 6}} {
		paper, err := GPOPEEpsilon(AccountingTheorem9, c.n, c.T, c.sigma, 1, 1e-5, orders)
		if err != nil {
			t.Fatal(err)
		}
		tight, _ := GPOPEEpsilon(AccountingTight, c.n, c.T, c.sigma, 1, 1e-5, orders)
		if !(tight <= paper+1e-12) {
			t.Errorf("n = %d, T = %d, σ = %g: Theorem 27 ε %g above Theorem 9's %g", c.n, c.T, c.sigma, tight, paper)
		}
	}
	// At σ = 10⁴ Theorem 9 floors at 0.22 (n = T = 100); Theorem 27 is left with the conversion's own
	// ln(1/δ)/(α − 1) term at the largest order, 256.
	floor, _ := GPOPEEpsilon(AccountingTight, 100, 100, 1e4, 1, 1e-5, orders)
	if paper, _ := GPOPEEpsilon(AccountingTheorem9, 100, 100, 1e4, 1, 1e-5, orders); !(floor < 0.05 && paper > 0.2) {
		t.Errorf("at σ = 10⁴: Theorem 27 ε = %g, Theorem 9 ε = %g", floor, paper)
	}
	s, err := GPOPESigma(AccountingPoissonPLD, 1000, 1000, 1, 1e-5, 2, orders)
	if err != nil {
		t.Fatal(err)
	}
	e, _ := GPOPEEpsilon(AccountingPoissonPLD, 1000, 1000, s, 2, 1e-5, nil)
	rdp, _ := GPOPESigma(AccountingPoisson, 1000, 1000, 1, 1e-5, 2, orders)
	if !(e <= 1 && e > 0.99) || !(s < rdp) {
		t.Errorf("PLD σ = %g (RDP's %g) gives ε = %g, want just below 1", s, rdp, e)
	}
	for acc, want := range map[GPOPEAccounting]GPOPESampling{AccountingTheorem9: SampleOne, AccountingTight: SampleOne,
		AccountingPoisson: SamplePoisson, AccountingPoissonPLD: SamplePoisson} {
		if acc.Sampling() != want {
			t.Errorf("%v: sampling %v", acc, acc.Sampling())
		}
	}
}
