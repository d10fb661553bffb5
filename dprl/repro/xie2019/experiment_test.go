package xie2019

import (
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats"

	"github.com/dprl-project/dprl/dprl/policyeval"
	"github.com/dprl-project/dprl/envs"
	"github.com/dprl-project/dprl/trajectory"
)

// TestSaddlePoint: the GTD2 objective's inner maximum is ½ MSPBE, attained at w*(θ), and perturbing w
// lowers it.
func TestSaddlePoint(t *testing.T) {
	d, err := Chain()
	if err != nil {
		t.Fatal(err)
	}
	_, ft, err := d.Draw(300, rand.NewPCG(1, 1))
	if err != nil {
		t.Fatal(err)
	}
	mo, _ := policyeval.SampleMoments(ft, d.Gamma)
	// Regularise C's unvisited diagonal (the absorbing state) so that w* exists.
	for i := range 40 {
		if mo.C.At(i, i) == 0 {
			mo.C.Set(i, i, 1)
		}
	}
	rng := rand.New(rand.NewPCG(2, 2))
	theta := make([]float64, 40)
	for i := range theta {
		theta[i] = rng.NormFloat64()
	}
	w, err := mo.DualOptimum(theta)
	if err != nil {
		t.Fatal(err)
	}
	top := mo.Lagrangian(theta, w)
	if half := mo.MSPBE(theta) / 2; math.Abs(top-half) > 1e-9*half {
		t.Fatalf("max_w L = %g, ½ MSPBE = %g", top, half)
	}
	for range 20 {
		w2 := append([]float64(nil), w...)
		w2[rng.IntN(40)] += 0.1 * rng.NormFloat64()
		if mo.Lagrangian(theta, w2) > top {
			t.Fatal("a perturbed w beats w*")
		}
	}
}

// TestGradientIsTheSaddleGradient: a trajectory's stacked gradient is [∇_θ L̂; −∇_w L̂] for the Lagrangian of
// that trajectory's own moments, checked by central differences.
func TestGradientIsTheSaddleGradient(t *testing.T) {
	d, err := MountainCar(true, 5)
	if err != nil {
		t.Fatal(err)
	}
	_, ft, _ := d.Draw(3, rand.NewPCG(3, 3))
	mo, _ := policyeval.SampleMoments(ft[:1], d.Gamma)
	dim := d.Dim()
	rng := rand.New(rand.NewPCG(4, 4))
	theta, w := make([]float64, dim), make([]float64, dim)
	for i := range dim {
		theta[i], w[i] = rng.NormFloat64(), rng.NormFloat64()
	}
	g := make([]float64, 2*dim)
	policyeval.Gradient(g, ft[0], d.Gamma, theta, w)
	const h = 1e-6
	for i := range dim {
		for k, x := range [][]float64{theta, w} {
			old := x[i]
			x[i] = old + h
			up := mo.Lagrangian(theta, w)
			x[i] = old - h
			down := mo.Lagrangian(theta, w)
			x[i] = old
			num := (up - down) / (2 * h)
			if k == 1 {
				num = -num
			}
			if got := g[k*dim+i]; math.Abs(got-num) > 1e-6*(1+math.Abs(num)) {
				t.Fatalf("coordinate %d of block %d: gradient %g, finite difference %g", i, k, got, num)
			}
		}
	}
}

func smallConfig() Config {
	return Config{N: []int{500, 1000}, Epsilons: []float64{1}, Delta: 1e-5, Trials: 3, Seed: 7,
		Steps: []float64{1e-3, 1e-2, 0.1}, TuneRuns: 2, LSWDelta: 0.1, LSLC: 100}
}

// TestXieExperimentChain: the rows cover every method, n and trial; the public clip bound holds on the public
// sample; non-private LSTD beats the trivial θ = 0 by orders of magnitude; DP-LSW's noise matches its own
// release; and the results are the same bit for bit with one worker or two.
func TestXieExperimentChain(t *testing.T) {
	d, err := Chain()
	if err != nil {
		t.Fatal(err)
	}
	cfg := smallConfig()
	tu, err := Tune(d, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tu) != 2 || tu[0].N != 500 || len(tu[0].MSPBE) != 3 || !(tu[0].Sigma > 0) {
		t.Fatalf("tuning %+v", tu)
	}
	for _, x := range tu {
		if i := floats.MinIdx(x.MSPBE); cfg.Steps[i] != x.Best {
			t.Errorf("n = %d: best step %g is not the grid's minimum %g", x.N, x.Best, cfg.Steps[i])
		}
	}
	cfg.Workers = 1
	rows, err := Experiment(d, cfg, tu, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Workers = 2
	rows2, _ := Experiment(d, cfg, tu, nil)
	if !reflect.DeepEqual(rows, rows2) {
		t.Fatal("rows differ between 1 and 2 workers")
	}
	// per (n, trial): θ = 0, LSTD, GTD2, three GPOPE runs, DP-LSW, two DP-LSL
	if want := 2 * 3 * 9; len(rows) != want {
		t.Fatalf("%d rows, want %d", len(rows), want)
	}
	// GTD2 runs at its own publicly tuned step, with ε = 0 (non-private) and no noise.
	for _, r := range rows {
		if r.Method == MethodGTD2 && (r.Epsilon != 0 || r.Sigma != 0 || r.Step != tu[0].GTD2Best && r.Step != tu[1].GTD2Best) {
			t.Errorf("GTD2 row %+v", r)
		}
	}
	// TunedOnly keeps the other rows' values: the same GPOPE (tuned) and LSTD rows, nothing else but θ = 0.
	cfg.TunedOnly = true
	tuned, err := Experiment(d, cfg, tu, nil)
	if err != nil {
		t.Fatal(err)
	}
	keep := slices.DeleteFunc(slices.Clone(rows), func(r Row) bool {
		return r.Method != MethodGPOPE && r.Method != MethodLSTD && r.Method != MethodZero
	})
	if !reflect.DeepEqual(tuned, keep) {
		t.Errorf("TunedOnly rows differ from the full run's:\n%+v\n%+v", tuned, keep)
	}
	ns := []float64{500, 1000}
	byN := func(r Row) float64 { return float64(r.N) }
	zero := Curve(rows, MethodZero, 1, ns, byN)
	lstd := Curve(rows, MethodLSTD, 1, ns, byN)
	for tr := range 3 {
		for i := range ns {
			if !(lstd[tr][i] < zero[tr][i]/1000) {
				t.Errorf("trial %d n %v: LSTD %g vs θ = 0 %g", tr, ns[i], lstd[tr][i], zero[tr][i])
			}
		}
	}
	for _, r := range rows {
		if r.Method == MethodGPOPE && (r.Sigma != tu[0].Sigma && r.Sigma != tu[1].Sigma || r.ClippedShare < 0 || r.ClippedShare > 1) {
			t.Errorf("GPOPE row %+v", r)
		}
		if r.Method == MethodGPOPE10x && r.N == 500 && r.Step != 10*tu[0].Best {
			t.Errorf("10× row has step %g, tuned %g", r.Step, tu[0].Best)
		}
		if r.Method == MethodDPLSW && !(r.Sigma > 0 && r.MSPBE > zero[0][0]) {
			t.Errorf("DP-LSW row %+v", r)
		}
	}
	// The clip bound covers the public sample's gradients at θ = w = 0.
	_, pub, _ := d.Draw(200, rand.NewPCG(5, 5))
	g := make([]float64, 80)
	zeroVec := make([]float64, 40)
	over := 0
	for _, tr := range pub {
		policyeval.Gradient(g, tr, d.Gamma, zeroVec, zeroVec)
		if floats.Norm(g, 2) > d.Clip {
			over++
		}
	}
	if over > 0 {
		t.Errorf("%d of 200 fresh public gradients at 0 exceed C = %g", over, d.Clip)
	}
}

// TestXieStepSweep: the noiseless runs beat the noisy ones at a small step, and a huge step diverges or
// gets a huge MSPBE.
func TestXieStepSweep(t *testing.T) {
	d, _ := Chain()
	cfg := smallConfig()
	cfg.Steps = []float64{0.3, 1000}
	rows, err := StepSweep(d, cfg, 1000, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	steps := []float64{0.3, 1000}
	byStep := func(r Row) float64 { return r.Step }
	noisy := Curve(rows, MethodGPOPEAtStep, 1, steps, byStep)
	clean := Curve(rows, MethodGTD2AtStep, 1, steps, byStep)
	for tr := range 3 {
		if !(clean[tr][0] < noisy[tr][0]) {
			t.Errorf("trial %d: GTD2 %g, GPOPE %g at step 0.3", tr, clean[tr][0], noisy[tr][0])
		}
		if v := noisy[tr][1]; !math.IsNaN(v) && v < 1 {
			t.Errorf("trial %d: step 1000 gives MSPBE %g", tr, v)
		}
	}
}

func TestXieConfigErrors(t *testing.T) {
	d, _ := Chain()
	for _, c := range []struct {
		mod  func(*Config)
		want string
	}{
		{func(c *Config) { c.Epsilons = []float64{0} }, "epsilon = 0 is outside the allowed range (0, ∞)"},
		{func(c *Config) { c.Delta = 1 }, "Delta = 1 is outside the allowed range (0, 1)"},
		{func(c *Config) { c.Trials = 0 }, "Trials = 0"},
		{func(c *Config) { c.Steps = nil }, "step grid"},
		{func(c *Config) { c.N = []int{100}; c.Epsilons = []float64{0.1} }, "n = 100, T = 100, ε = 0.1"},
	} {
		cfg := smallConfig()
		c.mod(&cfg)
		_, err := Tune(d, cfg, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want an error containing %q", err, c.want)
		}
	}
	if _, _, err := d.Draw(0, rand.NewPCG(1, 1)); err == nil || !strings.Contains(err.Error(), "n = 0") {
		t.Errorf("Draw(0): %v", err)
	}
	if _, err := policyeval.GPOPE(nil, policyeval.GPOPEConfig{}); err == nil {
		t.Error("GPOPE on an empty dataset")
	}
	_, ft, _ := d.Draw(5, rand.NewPCG(1, 1))
	if _, err := policyeval.GPOPE(ft, policyeval.GPOPEConfig{Gamma: 0.9, Iterations: 1, Clip: math.NaN(), Step: policyeval.Constant(1), Src: rand.NewPCG(1, 1)}); err == nil || !strings.Contains(err.Error(), "Clip = NaN") {
		t.Errorf("NaN clip: %v", err)
	}
}

// TestXieHIV: the HIV domain's pool draws without replacement, refuses more trajectories than it holds, and
// its off-policy moments give WIS-LSTD a far smaller MSPBE than θ = 0.
func TestXieHIV(t *testing.T) {
	d, err := HIV(30, 30)
	if err != nil {
		t.Fatal(err)
	}
	if d.Dim() != 64 || !d.OffPolicy || !(d.MeanReward > 0) || d.MomentTransitions != 30*200 {
		t.Fatalf("domain %+v", d)
	}
	raw, ft, err := d.Draw(30, rand.NewPCG(1, 1))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[*trajectory.Step]bool{}
	for _, tr := range raw {
		p := &tr.Steps[0]
		if seen[p] {
			t.Fatal("a pool trajectory was drawn twice")
		}
		seen[p] = true
	}
	if _, _, err := d.Draw(31, rand.NewPCG(1, 1)); err == nil || !strings.Contains(err.Error(), "[1, 30]") {
		t.Errorf("overdraw: %v", err)
	}
	th, _ := policyeval.WISLSTD(ft, d.Gamma, 1e-6)
	if z := d.True.MSPBE(make([]float64, 64)); !(d.True.MSPBE(th) < z/2) {
		t.Errorf("WIS-LSTD %g vs θ = 0 %g", d.True.MSPBE(th), z)
	}
}

// TestGPOPENoiseMatchesSigma: one GPOPE step with α = 1 moves x by −(ḡ + z); the difference from the same
// step without noise (same stream, so the same trajectory) is z, whose coordinates must be N(0, σ²): mean
// within 4 standard errors of 0 and variance within 4 standard errors of σ².
func TestGPOPENoiseMatchesSigma(t *testing.T) {
	d, _ := Chain()
	_, ft, _ := d.Draw(50, rand.NewPCG(1, 1))
	const sigma, runs = 2.5, 400
	var sum, sumSq float64
	k := 0
	for i := range runs {
		cfg := policyeval.GPOPEConfig{Gamma: d.Gamma, Iterations: 1, Step: policyeval.Constant(1), Clip: 1, NonPrivate: true, Src: rand.NewPCG(uint64(i), 9)}
		clean, _ := policyeval.GPOPE(ft, cfg)
		cfg.Sigma, cfg.NonPrivate, cfg.Src = sigma, false, rand.NewPCG(uint64(i), 9)
		noisy, _ := policyeval.GPOPE(ft, cfg)
		for j := range clean {
			z := clean[j] - noisy[j]
			sum += z
			sumSq += z * z
			k++
		}
	}
	mean := sum / float64(k)
	v := sumSq/float64(k) - mean*mean
	if se := sigma / math.Sqrt(float64(k)); math.Abs(mean) > 4*se {
		t.Errorf("noise mean %g (standard error %g)", mean, se)
	}
	if se := sigma * sigma * math.Sqrt(2/float64(k)); math.Abs(v-sigma*sigma) > 4*se {
		t.Errorf("noise variance %g, want %g ± %g", v, sigma*sigma, 4*se)
	}
}

// TestDiminishingSteps: α_t = α0/(1 + t/τ) halves at t = τ, and GTD2 with it converges on the chain (noise
// free) below a twentieth of θ = 0's MSPBE.
func TestDiminishingSteps(t *testing.T) {
	s := policyeval.Diminishing(0.8, 100)
	if s(0) != 0.8 || math.Abs(s(100)-0.4) > 1e-15 {
		t.Fatalf("α_0 = %g, α_100 = %g", s(0), s(100))
	}
	d, _ := Chain()
	_, ft, _ := d.Draw(500, rand.NewPCG(2, 2))
	th, err := policyeval.GPOPE(ft, policyeval.GPOPEConfig{Gamma: d.Gamma, Iterations: 20000, Step: policyeval.Diminishing(1, 5000), Clip: 1e6, NonPrivate: true, Src: rand.NewPCG(3, 3)})
	if err != nil {
		t.Fatal(err)
	}
	if z := d.True.MSPBE(make([]float64, 40)); !(d.True.MSPBE(th) < z/20) {
		t.Errorf("MSPBE %g vs θ = 0 %g", d.True.MSPBE(th), z)
	}
}

func TestXieTableCSV(t *testing.T) {
	var b strings.Builder
	rows := []Row{{Method: MethodGPOPE, N: 10, Epsilon: 0.5, Trial: 1, Step: 0.01, Sigma: 2, ClippedShare: 0.25, MSPBE: 1.5e-3}}
	if err := Table(rows).WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	want := "method,n,epsilon,trial,step,sigma,clipped_share,mspbe\nGPOPE (tuned step),10,0.5,1,0.01,2,0.25,0.0015\n"
	if b.String() != want {
		t.Errorf("got %q", b.String())
	}
}

// TestXieDomainsDeterministic: building a domain twice gives the same moments sample and draws (its
// trajectories are collected in parallel, each chunk with its own policy: a shared envs.Greedy's scratch
// buffer once made them differ from run to run).
func TestXieDomainsDeterministic(t *testing.T) {
	a, err := MountainCar(true, 300)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := MountainCar(true, 300)
	if a.MomentTransitions != b.MomentTransitions || a.Clip != b.Clip || !reflect.DeepEqual(a.True, b.True) {
		t.Errorf("two constructions differ: %d vs %d transitions, C %g vs %g", a.MomentTransitions, b.MomentTransitions, a.Clip, b.Clip)
	}
	_, fa, _ := a.Draw(300, rand.NewPCG(1, 1))
	_, fb, _ := b.Draw(300, rand.NewPCG(1, 1))
	if !reflect.DeepEqual(fa, fb) {
		t.Error("the same draw differs between the two constructions")
	}
}

func TestHeuristicPolicies(t *testing.T) {
	// The energy policy reaches the Mountain Car goal from every start, well inside the 200-step limit.
	env, err := envs.Make("mountaincar")
	if err != nil {
		t.Fatal(err)
	}
	tr, err := envs.Collect(env, MountainCarEnergy(), 30, rand.NewPCG(1, 1), 0)
	if err != nil {
		t.Fatal(err)
	}
	for i, x := range tr {
		if last := x.Steps[len(x.Steps)-1]; !last.Terminated {
			t.Fatalf("episode %d: %d steps, terminated %v", i, len(x.Steps), last.Terminated)
		}
	}
	// The HIV rule treats at the unhealthy start (log10 V ≈ 4.8) with both drugs.
	if a := envs.Act(HIVThreshold(), []float64{5.2, 0.7, 4.1, 1.7, 4.8, 1.4}, rand.New(rand.NewPCG(1, 1)), nil); a != 3 {
		t.Errorf("HIV rule chose %d at the start state", a)
	}
}
