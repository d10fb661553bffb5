package policyeval

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

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

func eye(n int) *mat.Dense {
	m := mat.NewDense(n, n, nil)
	for i := range n {
		m.Set(i, i, 1)
	}
	return m
}

// TestExactMomentsAndLSTD: on the tabular chain the MSPBE minimiser of the exact moments is the true value
// function, and LSTD from a large sample gets close to it.
func TestExactMomentsAndLSTD(t *testing.T) {
	b, _ := newBalleChain()
	model := envs.NewChain(envs.BalleChainParams()).Model()
	mo, err := ModelMoments(model, b.Policy.P, eye(40), 0.99)
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
	mo, _ := ModelMoments(model, b.Policy.P, eye(40), 0.99)
	start := mo.MSPBE(make([]float64, 40))
	theta, err := GPOPE(ft, GPOPEConfig{Gamma: 0.99, Iterations: 20000, Step: Constant(0.5), Clip: 1e6, NonPrivate: true, Src: rand.NewPCG(1, 1)})
	if err != nil {
		t.Fatal(err)
	}
	if e := mo.MSPBE(theta); !(e < start/50) {
		t.Errorf("GTD2 MSPBE %g from %g", e, start)
	}
	sigma, err := GPOPESigma(AccountingPaper, 500, 20000, 1, 1e-5, 1, nil)
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
	s, err := GPOPESigma(AccountingPaper, 1000, 1000, 1, 1e-5, 1, orders)
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
	mo, _ := ModelMoments(envs.NewChain(envs.BalleChainParams()).Model(), b.Policy.P, eye(40), 0.99)
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
