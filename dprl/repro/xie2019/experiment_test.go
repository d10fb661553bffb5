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
	s, err := d.Draw(300, rand.NewPCG(1, 1))
	if err != nil {
		t.Fatal(err)
	}
	mo := s.Data.Moments()
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
// that trajectory's own moments, checked by central differences, on the transitions (policyeval.Gradient)
// and on the prepared moments (Prepared.Gradient).
func TestGradientIsTheSaddleGradient(t *testing.T) {
	d, err := MountainCar(true, 5)
	if err != nil {
		t.Fatal(err)
	}
	s, _ := d.Draw(3, rand.NewPCG(3, 3))
	one := s.Data.Subset([]int{0})
	mo := one.Moments()
	dim := d.Dim()
	rng := rand.New(rand.NewPCG(4, 4))
	x := make([]float64, 2*dim)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	theta, w := x[:dim], x[dim:]
	g := make([]float64, 2*dim)
	one.Gradient(g, 0, x)
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
		Steps: []float64{1e-3, 1e-2, 0.1}, TuneRuns: 2, Accounting: Calibration, BalleDelta: 0.1, LSLC: 100}
}

// TestXieExperimentChain: the tuning picks each schedule's best grid step and the schedule with the lower
// public MSPBE; the rows cover every method, n and trial (the public choice a copy of its schedule's run,
// the baselines at both δ); the public clip bound holds on a fresh sample; non-private LSTD beats θ = 0 by
// orders of magnitude; and the results are the same bit for bit with one worker or two.
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
	if len(tu) != 2 || tu[0].N != 500 || len(tu[0].MSPBE[Constant]) != 3 || !(tu[0].Sigma > 0) {
		t.Fatalf("tuning %+v", tu)
	}
	for _, x := range tu {
		for _, sc := range Schedules {
			if i := floats.MinIdx(x.MSPBE[sc]); cfg.Steps[i] != x.Best[sc] {
				t.Errorf("n = %d, %v: best step %g is not the grid's minimum %g", x.N, sc, x.Best[sc], cfg.Steps[i])
			}
		}
		if low := func(sc Schedule) float64 { return floats.Min(x.MSPBE[sc]) }; (low(Diminishing) < low(Constant)) != (x.Choice == Diminishing) {
			t.Errorf("n = %d: choice %v", x.N, x.Choice)
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
	// per (n, trial): θ = 0, LSTD, GTD2, two schedules, the public choice, 10× and 0.1×, and at each of two δ
	// DP-LSW and two DP-LSL
	if want := 2 * 3 * 14; len(rows) != want {
		t.Fatalf("%d rows, want %d", len(rows), want)
	}
	for _, r := range rows {
		switch r.Method {
		case MethodGTD2: // its own publicly tuned constant step, non-private, no noise
			if r.Epsilon != 0 || r.Sigma != 0 || r.Step != tu[0].GTD2Best && r.Step != tu[1].GTD2Best || r.Schedule != "constant" {
				t.Errorf("GTD2 row %+v", r)
			}
		case MethodGPOPE:
			tn := tu[0]
			if r.N == 1000 {
				tn = tu[1]
			}
			twin := rows[slices.IndexFunc(rows, func(x Row) bool { return x.Method == tn.Choice.method() && x.N == r.N && x.Trial == r.Trial })]
			twin.Method = MethodGPOPE
			if r != twin || r.Step != tn.Best[tn.Choice] || r.Sigma != tn.Sigma || r.Delta != 1e-5 || r.T != r.N {
				t.Errorf("public choice %+v, its schedule's run %+v", r, twin)
			}
		case MethodGPOPE10x:
			if r.N == 500 && r.Step != 10*tu[0].Best[tu[0].Choice] {
				t.Errorf("10× row has step %g, tuned %g", r.Step, tu[0].Best[tu[0].Choice])
			}
		case MethodDPLSW:
			if !(r.Sigma > 0) || r.Delta != 1e-5 && r.Delta != 0.1 {
				t.Errorf("DP-LSW row %+v", r)
			}
		}
		if r.Seed != 7 || r.Stream != uint64(r.Trial) {
			t.Errorf("row %+v: stream", r)
		}
	}
	ns := []float64{500, 1000}
	zero := Curve(rows, MethodZero, 1, ns, byN)
	lstd := Curve(rows, MethodLSTD, 1, ns, byN)
	for tr := range 3 {
		for i := range ns {
			if !(lstd[tr][i] < zero[tr][i]/1000) {
				t.Errorf("trial %d n %v: LSTD %g vs θ = 0 %g", tr, ns[i], lstd[tr][i], zero[tr][i])
			}
		}
	}
	// The clip bound covers a fresh public sample's gradients at θ = w = 0.
	pub, _ := d.Draw(200, rand.NewPCG(5, 5))
	if over := slices.IndexFunc(GradientNorms(pub.Data, make([]float64, 80)), func(g float64) bool { return g > d.Clip }); over >= 0 {
		t.Errorf("fresh public gradient %d at 0 exceeds C = %g", over, d.Clip)
	}
	// The table round-trips.
	back, info, err := ReadTable(Table(d.Info(), rows), "chain")
	if err != nil || info != d.Info() || !reflect.DeepEqual(back, rows) {
		t.Errorf("ReadTable(Table(rows)): %v, %+v", err, info)
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
	noisy := curve(rows, sel{method: MethodGPOPEAtStep, eps: 1, schedule: "constant"}, steps, byStep)
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
		{func(c *Config) {
			c.N, c.Epsilons, c.Accounting = []int{100}, []float64{0.1}, policyeval.AccountingTheorem9
		}, "n = 100, T = 100, ε = 0.1"}, // below Theorem 9's floor
	} {
		cfg := smallConfig()
		c.mod(&cfg)
		_, err := Tune(d, cfg, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want an error containing %q", err, c.want)
		}
	}
	if _, err := d.Draw(0, rand.NewPCG(1, 1)); err == nil || !strings.Contains(err.Error(), "n = 0") {
		t.Errorf("Draw(0): %v", err)
	}
	if _, err := policyeval.GPOPE(nil, policyeval.GPOPEConfig{}); err == nil {
		t.Error("GPOPE on an empty dataset")
	}
	s, _ := d.Draw(5, rand.NewPCG(1, 1))
	if _, err := s.Data.GPOPE(policyeval.GPOPEConfig{Gamma: d.Gamma, Iterations: 1, Clip: math.NaN(), Step: policyeval.Constant(1), Src: rand.NewPCG(1, 1)}); err == nil || !strings.Contains(err.Error(), "Clip = NaN") {
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
	s, err := d.Draw(30, rand.NewPCG(1, 1))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[*trajectory.Step]bool{}
	for _, tr := range s.Raw {
		p := &tr.Steps[0]
		if seen[p] {
			t.Fatal("a pool trajectory was drawn twice")
		}
		seen[p] = true
	}
	if _, err := d.Draw(31, rand.NewPCG(1, 1)); err == nil || !strings.Contains(err.Error(), "[1, 30]") {
		t.Errorf("overdraw: %v", err)
	}
	th, _ := s.Data.WISLSTD(1e-6)
	if z := d.True.MSPBE(make([]float64, 64)); !(d.True.MSPBE(th) < z/2) {
		t.Errorf("WIS-LSTD %g vs θ = 0 %g", d.True.MSPBE(th), z)
	}
}

// TestGPOPENoiseMatchesSigma: one GPOPE step with α = 1 moves x by −(ḡ + z); the difference from the same
// step without noise (same stream, so the same trajectory) is z, whose coordinates must be N(0, σ²): mean
// within 4 standard errors of 0 and variance within 4 standard errors of σ².
func TestGPOPENoiseMatchesSigma(t *testing.T) {
	d, _ := Chain()
	s, _ := d.Draw(50, rand.NewPCG(1, 1))
	const sigma, runs = 2.5, 400
	var sum, sumSq float64
	k := 0
	for i := range runs {
		cfg := policyeval.GPOPEConfig{Gamma: d.Gamma, Iterations: 1, Step: policyeval.Constant(1), Clip: 1, NonPrivate: true, Src: rand.NewPCG(uint64(i), 9)}
		clean, _ := s.Data.GPOPE(cfg)
		cfg.Sigma, cfg.NonPrivate, cfg.Src = sigma, false, rand.NewPCG(uint64(i), 9)
		noisy, _ := s.Data.GPOPE(cfg)
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
	a := policyeval.Diminishing(0.8, 100)
	if a(0) != 0.8 || math.Abs(a(100)-0.4) > 1e-15 {
		t.Fatalf("α_0 = %g, α_100 = %g", a(0), a(100))
	}
	if b := Diminishing.StepSize(0.8, 1000); b(0) != 0.8 || math.Abs(b(1000)-0.8/11) > 1e-15 || Constant.StepSize(0.8, 1000)(999) != 0.8 {
		t.Errorf("schedules: diminishing ends at %g, want α/11", b(1000))
	}
	d, _ := Chain()
	s, _ := d.Draw(500, rand.NewPCG(2, 2))
	th, err := s.Data.GPOPE(policyeval.GPOPEConfig{Gamma: d.Gamma, Iterations: 20000, Step: policyeval.Diminishing(1, 5000), Clip: 1e6, NonPrivate: true, Src: rand.NewPCG(3, 3)})
	if err != nil {
		t.Fatal(err)
	}
	if z := d.True.MSPBE(make([]float64, 40)); !(d.True.MSPBE(th) < z/20) {
		t.Errorf("MSPBE %g vs θ = 0 %g", d.True.MSPBE(th), z)
	}
}

func TestXieTableCSV(t *testing.T) {
	var b strings.Builder
	rows := []Row{{Method: MethodGPOPE, N: 10, T: 10, Epsilon: 0.5, Delta: 1e-5, Trial: 1, Seed: 2019, Stream: 1, Schedule: "constant", Step: 0.01, Sigma: 2,
		ClippedShare: 0.25, MSPBE: 1.5e-3}}
	if err := Table(DomainInfo{Name: "chain", Clip: 1, MeanReward: 0.1}, rows).WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	want := "domain,method,n,iterations,epsilon,delta,trial,seed,stream,schedule,step,sigma,clipped_share,mspbe,clip,mean_reward,moment_transitions\n" +
		"chain,GPOPE (tuned on public data),10,10,0.5,1e-05,1,2019,1,constant,0.01,2,0.25,0.0015,1,0.1,0\n"
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
	fa, _ := a.Draw(300, rand.NewPCG(1, 1))
	fb, _ := b.Draw(300, rand.NewPCG(1, 1))
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
