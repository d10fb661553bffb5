package expertdp

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/dprl-project/dprl/mechanisms"
)

var (
	fixtureOnce sync.Once
	fixture     struct {
		e    *Experts
		data *Data
		err  error
	}
)

// cartpole is a small CartPole expert set and log shared by the tests: 300 experts from 6 bases, 2
// trajectories each.
func cartpole(t *testing.T) (*Experts, *Data) {
	t.Helper()
	fixtureOnce.Do(func() {
		fixture.e, fixture.err = NewExperts(CartPoleDomain(), ExpertsConfig{Bases: 6, Experts: 300, Seed: 1})
		if fixture.err == nil {
			fixture.data, fixture.err = GenerateData(fixture.e, DataConfig{PerExpert: 2, PMin: 0.02, Seed: 2})
		}
	})
	if fixture.err != nil {
		t.Fatal(fixture.err)
	}
	return fixture.e, fixture.data
}

// directCount is Σ_π Π_{j≤k} π(a_j | s_j) from each mixed expert policy's probabilities.
func directCount(e *Experts, t *Traj, k int, pMin float64) float64 {
	d := e.Domain
	probs := make([]float64, d.NumActions)
	total := 0.0
	for i := range e.Len() {
		pol := e.MixedPolicy(i, pMin)
		p := 1.0
		for j := range k {
			pol.Probs(probs, t.Obs[j*d.ObsDim:(j+1)*d.ObsDim])
			p *= probs[t.Actions[j]]
		}
		total += p
	}
	return total
}

func TestPrefixCountMatchesDirect(t *testing.T) {
	e, data := cartpole(t)
	lander, err := NewExperts(LunarLanderDomain(), ExpertsConfig{Bases: 2, Experts: 40, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	ldata, err := GenerateData(lander, DataConfig{PerExpert: 1, PMin: 0.02, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		e    *Experts
		data *Data
	}{{e, data}, {lander, ldata}} {
		counter, err := NewPrefixCounter(c.e, 0.02)
		if err != nil {
			t.Fatal(err)
		}
		for _, ti := range []int{0, 7, len(c.data.Trajs) - 1} {
			tr := &c.data.Trajs[ti]
			counter.Start(tr)
			for k := 1; k <= min(tr.Len(), 70); k++ { // past the first batch of 32 states
				got, ok := counter.Next()
				if !ok {
					t.Fatalf("%s trajectory %d: counter ended at %d of %d", c.e.Domain.Name, ti, k, tr.Len())
				}
				want := directCount(c.e, tr, k, 0.02)
				if math.Abs(got-want) > 1e-9*want+1e-300 {
					t.Fatalf("%s trajectory %d prefix %d: count %g, direct %g", c.e.Domain.Name, ti, k, got, want)
				}
			}
		}
		// Past the end.
		tr := &c.data.Trajs[0]
		counter.Start(tr)
		for range tr.Len() {
			counter.Next()
		}
		if _, ok := counter.Next(); ok {
			t.Error("counter went past the trajectory's end")
		}
	}
}

// The DataRelease reference values (package doc, "Reference values"; m = 3000, δ = 1/m, p_min = 0.02).
func TestReleaseConstantsWorkedExample(t *testing.T) {
	rows := []struct {
		name                string
		eps1, delta1        float64
		T, L, actions       int
		epsP, deltaP, cmin  float64
		theta, mean, compos float64
		prefix              int
	}{
		{"Acrobot", 10, 1.0 / 3000, 25, 200, 3, 0.120, 3.3e-8, 8.85, 443, 1017, 6.62, 26},
		{"CartPole", 7.5, 0.9 / 3000, 25, 200, 2, 0.089, 3e-8, 11.7, 585, 1360, 4.62, 39},
		{"LunarLander", 7.5, 0.9 / 3000, 100, 1000, 4, 0.045, 1.5e-9, 22.9, 1144, 2963, 4.59, 0},
		{"HIV", 7.5, 0.9 / 3000, 50, 50, 4, 0.063, 6e-8, 16.3, 817, 1869, 4.60, 8},
	}
	rel := func(got, want, tol float64) bool { return math.Abs(got-want) <= tol*math.Abs(want) }
	for _, r := range rows {
		c, err := Constants(r.eps1, r.delta1, 0.02, r.T, r.L)
		if err != nil {
			t.Fatal(err)
		}
		if !rel(c.EpsPrime, r.epsP, 0.01) || !rel(c.DeltaPrime, r.deltaP, 0.02) || !rel(c.CMin, r.cmin, 0.01) ||
			!rel(c.Theta, r.theta, 0.01) || !rel(c.MeanThreshold(), r.mean, 0.01) || !rel(c.CompositionEpsilon, r.compos, 0.01) {
			t.Errorf("%s: ε' %.4f δ' %.3g c_min %.3f θ %.1f E[θ̂] %.1f composition %.3f; reference %v %v %v %v %v %v", r.name,
				c.EpsPrime, c.DeltaPrime, c.CMin, c.Theta, c.MeanThreshold(), c.CompositionEpsilon, r.epsP, r.deltaP, r.cmin, r.theta, r.mean, r.compos)
		}
		if c.CompositionEpsilon > r.eps1 {
			t.Errorf("%s: advanced composition gives %.3f > ε1 = %v", r.name, c.CompositionEpsilon, r.eps1)
		}
		// The reference "longest prefix passable if all experts agree" is approximate (≈); ours within 1 step,
		// and LunarLander's threshold is near m (2963 vs 3000): at most one step.
		if got := c.AgreeingPrefix(3000, r.actions); got < r.prefix-1 || got > r.prefix+1 {
			t.Errorf("%s: agreeing prefix %d, reference ≈ %d", r.name, got, r.prefix)
		}
		if !rel(c.Offset, 4/c.EpsPrime*math.Log(1/c.DeltaPrime), 1e-12) || !rel(c.QueryScale, 2*c.ThresholdScale, 1e-12) {
			t.Errorf("%s: offset and noise scales inconsistent", r.name)
		}
	}
	for _, bad := range []struct {
		eps, delta, pmin float64
		T, L             int
		param            string
	}{{0, 0.1, 0.02, 1, 1, "eps1"}, {1, 1, 0.02, 1, 1, "delta1"}, {1, 0.1, 0, 1, 1, "pMin"}, {1, 0.1, 0.02, 0, 1, "T"}, {1, 0.1, 0.02, 1, 0, "L"}} {
		_, err := Constants(bad.eps, bad.delta, bad.pmin, bad.T, bad.L)
		var pe *mechanisms.ParamError
		if !asParamError(err, &pe) || pe.Param != bad.param {
			t.Errorf("Constants(%v): error %v, want one naming %s", bad, err, bad.param)
		}
	}
}

func asParamError(err error, pe **mechanisms.ParamError) bool {
	p, ok := err.(*mechanisms.ParamError)
	*pe = p
	return ok
}

// At a huge ε1 the noise vanishes (Laplace scales ~1e−3) and the threshold is c_min/p_min ≈ 50 plus a
// small offset, so each examined trajectory keeps exactly the longest prefix whose count clears it; the
// stable prefixes and unstable tails partition the log.
func TestDataReleaseSemantics(t *testing.T) {
	e, data := cartpole(t)
	rel, err := DataRelease(data, e, ReleaseParams{Epsilon: 3e5, Delta: 0.5, PMin: 0.02, T: 40, Src: rand.NewPCG(5, 6)})
	if err != nil {
		t.Fatal(err)
	}
	c := rel.Constants()
	if c.ThresholdScale > 0.01 || c.Offset > 1 {
		t.Fatalf("ε1 not large enough for a noiseless check: threshold scale %g offset %g", c.ThresholdScale, c.Offset)
	}
	thr := c.MeanThreshold()
	longest := 0
	for j, ti := range rel.Examined() {
		tr := &data.Trajs[ti]
		want := 0
		for k := 1; k <= tr.Len(); k++ {
			cnt := directCount(e, tr, k, 0.02)
			if math.Abs(cnt-thr) < 0.1 {
				t.Fatalf("count %g too close to the threshold %g for a noiseless check", cnt, thr)
			}
			if cnt <= thr {
				break
			}
			want = k
		}
		if rel.StableLen()[j] != want {
			t.Errorf("trajectory %d: stable prefix %d, direct %d", ti, rel.StableLen()[j], want)
		}
		longest = max(longest, want)
	}
	if longest == 0 {
		t.Error("no examined trajectory kept a prefix: the check is vacuous")
	}
	covered := make([][]bool, len(data.Trajs))
	for i := range covered {
		covered[i] = make([]bool, data.Trajs[i].Len())
	}
	for _, g := range slices.Concat(rel.Stable(), rel.Unstable()) {
		for k := g.From; k < g.To; k++ {
			if covered[g.Traj][k] {
				t.Fatalf("transition %d of trajectory %d released twice", k, g.Traj)
			}
			covered[g.Traj][k] = true
		}
	}
	for i, cv := range covered {
		if slices.Contains(cv, false) {
			t.Fatalf("trajectory %d: some transitions in neither D_stable nor D_unst", i)
		}
	}
	for _, g := range rel.Stable() {
		if g.From != 0 {
			t.Errorf("stable segment %v is not a prefix", g)
		}
	}
	// Errors.
	if _, err := DataRelease(data, e, ReleaseParams{Epsilon: 1, Delta: 0.1, PMin: 0.02, T: len(data.Trajs) + 1, Src: rand.NewPCG(1, 1)}); err == nil {
		t.Error("T beyond the log accepted")
	}
	sub, _ := e.Subset(10)
	if _, err := DataRelease(data, sub, ReleaseParams{Epsilon: 1, Delta: 0.1, PMin: 0.02, T: 1, Src: rand.NewPCG(1, 1)}); err == nil {
		t.Error("a log of 300 experts accepted with a set of 10")
	}
	if _, err := DataRelease(&Data{}, e, ReleaseParams{Epsilon: 1, Delta: 0.1, PMin: 0.02, T: 1, Src: rand.NewPCG(1, 1)}); err == nil {
		t.Error("empty log accepted")
	}
}

// Expert-level DP-SGD batches hold at most one transition per expert, drawn only from D_unst, with
// E[batch] = b (Poisson rate b/m); stable batches come only from D_stable.
func TestBatchRule(t *testing.T) {
	e, data := cartpole(t)
	rel, err := DataRelease(data, e, ReleaseParams{Epsilon: 3e5, Delta: 0.5, PMin: 0.02, T: 40, Src: rand.NewPCG(5, 6)})
	if err != nil {
		t.Fatal(err)
	}
	stableTraj := map[int]int{}
	for _, g := range rel.Stable() {
		stableTraj[g.Traj] = g.To
	}
	var sizes, privateSteps, stableSteps float64
	cfg := TrainConfig{P: 0.7, Batch: 30, NoiseMultiplier: 1, Epsilon: 50, Delta: 1e-3, MaxSteps: 400, EvalEpisodes: 1, Seed: 9,
		Learner: LearnerConfig{Hidden: []int{8}}}
	cfg.batchHook = func(private bool, trajs []int) {
		if !private {
			stableSteps++
			for _, ti := range trajs {
				if _, ok := stableTraj[ti]; !ok {
					t.Fatalf("stable batch drew from trajectory %d, which has no stable prefix", ti)
				}
			}
			return
		}
		privateSteps++
		sizes += float64(len(trajs))
		seen := map[int]bool{}
		for _, ti := range trajs {
			ex := data.Trajs[ti].Expert
			if seen[ex] {
				t.Fatalf("expert %d has two transitions in one private batch", ex)
			}
			seen[ex] = true
		}
	}
	res, err := Train(data, rel, e.Domain, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if int(privateSteps) != res.PrivateSteps || int(stableSteps) != res.StableSteps || res.PrivateSteps+res.StableSteps != res.Steps {
		t.Errorf("steps: hook saw %v private + %v stable, result %d + %d of %d", privateSteps, stableSteps, res.PrivateSteps, res.StableSteps, res.Steps)
	}
	// Binomial(400, 0.7) private steps: within 5 standard deviations.
	if math.Abs(privateSteps-280) > 5*math.Sqrt(400*0.7*0.3) {
		t.Errorf("%v private steps of 400 at p = 0.7", privateSteps)
	}
	// Mean Poisson batch: 30 experts expected of 300 (almost all have unstable data), sd √(30·0.9)/√steps.
	if mean := sizes / privateSteps; math.Abs(mean-30) > 5*math.Sqrt(27/privateSteps) {
		t.Errorf("mean private batch %v, want ≈ 30 (b)", mean)
	}
	// Which tails are sampled: a stable prefix's transitions never appear in a private batch.
	if _, err := Train(data, nil, e.Domain, TrainConfig{P: 0, Batch: 30, MaxSteps: 10}); err != ErrNoStableData {
		t.Errorf("p = 0 without a release: error %v, want ErrNoStableData", err)
	}
}

// Fallback: a release with an empty D_stable (a threshold no count reaches at this tiny ε1) makes every
// step an expert-level DP-SGD step on the whole log within (ε2, δ2), at P = 0 as at P = 0.5; without it,
// P = 0 fails with ErrNoStableData and P = 0.5 takes private steps only half the time. The fallback needs a
// budget even at P = 0.
func TestFallback(t *testing.T) {
	e, data := cartpole(t)
	rel, err := DataRelease(data, e, ReleaseParams{Epsilon: 0.5, Delta: 1e-4, PMin: 0.02, T: 10, Src: rand.NewPCG(1, 2)})
	if err != nil {
		t.Fatal(err)
	}
	if n := rel.StableTransitions(); n != 0 {
		t.Fatalf("|D_stable| = %d, want an empty release", n)
	}
	for _, p := range []float64{0, 0.5} {
		cfg := TrainConfig{P: p, Batch: 30, Epsilon: 2, Delta: 1e-4, MaxSteps: 40, EvalEpisodes: 1, Seed: 3, Fallback: true,
			Learner: LearnerConfig{Hidden: []int{8}}}
		res, err := Train(data, rel, e.Domain, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if !res.FellBack || res.PrivateSteps != 40 || res.StableSteps != 0 || !(res.Epsilon <= 2) || res.Epsilon < 1.9 || res.Diverged {
			t.Errorf("p = %g with fallback: %+v, want 40 private steps spending at most (and close to) ε2 = 2", p, res)
		}
		cfg.Fallback = false
		res, err = Train(data, rel, e.Domain, cfg)
		switch {
		case p == 0 && err != ErrNoStableData:
			t.Errorf("p = 0 without fallback: %v, want ErrNoStableData", err)
		case p > 0 && (err != nil || res.FellBack || res.PrivateSteps == 40):
			t.Errorf("p = %g without fallback: %+v (%v), want about half the steps private", p, res, err)
		}
	}
	if _, err := Train(data, rel, e.Domain, TrainConfig{Batch: 30, MaxSteps: 10, Fallback: true}); err == nil || !strings.Contains(err.Error(), "Epsilon") {
		t.Errorf("a fallback without a budget: %v", err)
	}
}

// A learning rate that blows the network up is reported as diverged.
func TestDiverged(t *testing.T) {
	e, data := cartpole(t)
	res, err := Train(data, nil, e.Domain, TrainConfig{NonPrivate: true, Batch: 30, MaxSteps: 30, EvalEpisodes: 1, Seed: 1,
		Learner: LearnerConfig{Hidden: []int{8}, LR: 1e300}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Diverged {
		t.Errorf("LR = 1e300: %+v, want diverged", res)
	}
	res, err = Train(data, nil, e.Domain, TrainConfig{NonPrivate: true, Batch: 30, MaxSteps: 30, EvalEpisodes: 1, Seed: 1, Learner: LearnerConfig{Hidden: []int{8}}})
	if err != nil || res.Diverged {
		t.Errorf("default LR: %+v (%v), want not diverged", res, err)
	}
}

// The accounting: the exact mixture is the zero value; the paper's q = p·b/m only when asked for, and
// optimistic; the calibration hits ε2; a value outside the constants is rejected.
func TestAccountingRate(t *testing.T) {
	if _, ok := (TrainConfig{P: 0.8, Batch: 128, NoiseMultiplier: 2}).StepEvent(3000).(mechanisms.Mixed); !ok {
		t.Fatalf("the zero Accounting gives %v, want the exact mixture", (TrainConfig{P: 0.8, Batch: 128, NoiseMultiplier: 2}).StepEvent(3000))
	}
	cfg := TrainConfig{P: 0.8, Batch: 128, NoiseMultiplier: 2, Epsilon: 2.5, Delta: 1e-5, Accounting: AccountingPaper}
	ev, ok := cfg.StepEvent(3000).(mechanisms.PoissonSampled)
	if !ok || math.Abs(ev.Q-0.8*128/3000.0) > 1e-15 || ev.Event != (mechanisms.GaussianEvent{NoiseMultiplier: 2}) {
		t.Fatalf("paper step event %v, want PoissonSampled(q = p·b/m = %g, Gaussian(z = 2))", cfg.StepEvent(3000), 0.8*128/3000.0)
	}
	paper, err := cfg.SpentEpsilon(3000, 5000)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Accounting = AccountingMixed
	if _, ok := cfg.StepEvent(3000).(mechanisms.Mixed); !ok {
		t.Fatalf("mixed step event %v", cfg.StepEvent(3000))
	}
	mixed, err := cfg.SpentEpsilon(3000, 5000)
	if err != nil {
		t.Fatal(err)
	}
	if !(mixed > paper) {
		t.Errorf("5000 steps: mixture ε %g should exceed the paper's q = p·b/m ε %g", mixed, paper)
	}
	s, err := cfg.CalibrateNoise(3000, 2000)
	if err != nil {
		t.Fatal(err)
	}
	cfg.NoiseMultiplier = s
	at, _ := cfg.SpentEpsilon(3000, 2000)
	cfg.NoiseMultiplier = s * 0.99
	below, _ := cfg.SpentEpsilon(3000, 2000)
	if at > cfg.Epsilon || below <= cfg.Epsilon {
		t.Errorf("calibrated s = %g: ε %g at s and %g at 0.99·s around the target %g", s, at, below, cfg.Epsilon)
	}
	if e, err := (TrainConfig{Batch: 128, Delta: 1e-5}).SpentEpsilon(3000, 100); e != 0 || err != nil {
		t.Errorf("P = 0 spends %g (%v), want 0", e, err)
	}
	cfg.Accounting = Accounting(2)
	if _, err := cfg.SpentEpsilon(3000, 10); err == nil {
		t.Error("Accounting(2) accepted")
	}
}

// FixedLogDelta is the chance that one expert's trajectories are among the T examined: T/n exactly for one
// trajectory per expert, 1 − C(n−N, T)/C(n, T) in general (checked against a direct count), ≈ T/m; and
// FixedLogGuarantee adds it to δ1 and ln(1/(1 − p_T)) to ε1.
func TestFixedLogDelta(t *testing.T) {
	if p, err := FixedLogDelta(3000, 1, 100); err != nil || math.Abs(p-100.0/3000) > 1e-12 {
		t.Errorf("N = 1: %g (%v), want T/n = %g", p, err, 100.0/3000)
	}
	// n = 6, N = 2, T = 2: C(4, 2)/C(6, 2) = 6/15 of the pairs avoid the expert.
	if p, _ := FixedLogDelta(6, 2, 2); math.Abs(p-9.0/15) > 1e-12 {
		t.Errorf("n = 6, N = 2, T = 2: %g, want 9/15", p)
	}
	p, _ := FixedLogDelta(12000, 4, 25) // CartPole here: m = 3000, N = 4, T = 25
	if math.Abs(p-25.0/3000) > 1e-4 || p > 25.0/3000 {
		t.Errorf("m = 3000, N = 4, T = 25: %g, want just under T/m = %g", p, 25.0/3000)
	}
	if p, _ := FixedLogDelta(5, 3, 3); p != 1 {
		t.Errorf("T > n − N: %g, want 1", p)
	}
	for _, bad := range [][3]int{{10, 0, 1}, {10, 1, 0}, {10, 1, 11}, {2, 3, 1}} {
		if _, err := FixedLogDelta(bad[0], bad[1], bad[2]); err == nil {
			t.Errorf("FixedLogDelta%v accepted", bad)
		}
	}
	if e, d := FixedLogGuarantee(7.5, 3e-4, p); math.Abs(e-(7.5-math.Log(1-p))) > 1e-12 || d != 3e-4+p {
		t.Errorf("guarantee (%g, %g)", e, d)
	}
}

// Experts and logs are the same whatever the number of workers.
func TestExpertsDeterministic(t *testing.T) {
	d := AcrobotDomain()
	var logs [2]*Data
	for k, w := range []int{1, 2} {
		e, err := NewExperts(d, ExpertsConfig{Bases: 3, Experts: 12, Workers: w, Seed: 4})
		if err != nil {
			t.Fatal(err)
		}
		if logs[k], err = GenerateData(e, DataConfig{PerExpert: 2, PMin: 0.02, Workers: w, Seed: 5}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range logs[0].Trajs {
		a, b := logs[0].Trajs[i], logs[1].Trajs[i]
		if a.Expert != b.Expert || !slices.Equal(a.Obs, b.Obs) || !slices.Equal(a.Actions, b.Actions) {
			t.Fatalf("trajectory %d differs between 1 and 2 workers", i)
		}
	}
	if _, err := DomainByName("pong"); err == nil {
		t.Error("unknown environment accepted")
	}
	if _, err := NewExperts(d, ExpertsConfig{Bases: 0, Experts: 1}); err == nil {
		t.Error("Bases = 0 accepted")
	}
	e, _ := NewExperts(d, ExpertsConfig{Bases: 1, Experts: 1})
	if _, err := GenerateData(e, DataConfig{PerExpert: 1, PMin: 0.5}); err == nil {
		t.Error("p_min = 0.5 > 1/|A| accepted")
	}
}

// The learners' per-example output errors are the gradients of their losses: the batch gradient matches
// central differences of the mean loss.
func TestLearnerGradients(t *testing.T) {
	e, data := cartpole(t)
	for _, alg := range []Algorithm{CQL, BCQ} {
		l, err := NewLearner(e.Domain, LearnerConfig{Algorithm: alg, Hidden: []int{6}, Polyak: 0.5}, 16, 3)
		if err != nil {
			t.Fatal(err)
		}
		// Make the target differ from the online network.
		for _, w := range l.target.W {
			for i := range w {
				w[i] *= 1.3
			}
		}
		b := newBatch(16, e.Domain.ObsDim)
		rng := rand.New(rand.NewPCG(1, 2))
		for range 16 {
			ti := rng.IntN(len(data.Trajs))
			b.put(data, [2]int{ti, rng.IntN(data.Trajs[ti].Len())}, e.Domain)
		}
		b.term[3] = true
		l.backward(b)
		l.ws.Gradient(l.Net, nil, l.grads)
		l.grads.Scale(1 / float64(b.n))
		for _, at := range [][2]int{{0, 0}, {0, 5}, {1, 3}, {1, 7}} {
			w := l.Net.W[at[0]]
			if at[1] >= len(w) {
				continue
			}
			x, h := w[at[1]], 1e-6
			w[at[1]] = x + h
			up := l.backward(b)
			w[at[1]] = x - h
			down := l.backward(b)
			w[at[1]] = x
			fd, got := (up-down)/(2*h), l.grads.W[at[0]][at[1]]
			if math.Abs(fd-got) > 1e-5*math.Max(1, math.Abs(fd)) {
				t.Errorf("%v: ∂L/∂W%v = %g, finite differences %g", alg, at, got, fd)
			}
		}
	}
}

// Non-private CQL learns CartPole from the experts' log, and private training reports what it spent.
func TestTrainLearns(t *testing.T) {
	e, data := cartpole(t)
	res, err := Train(data, nil, e.Domain, TrainConfig{NonPrivate: true, Batch: 64, MaxSteps: 1500, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Return < 150 { // the uniform policy gets ≈ 22
		t.Errorf("non-private CQL: mean return %v after 1500 steps, want ≥ 150", res.Return)
	}
	p, err := Train(data, nil, e.Domain, TrainConfig{P: 1, Batch: 30, Epsilon: 3, Delta: 1e-3, MaxSteps: 200, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if p.Steps != 200 || p.PrivateSteps != 200 || math.Abs(p.Epsilon-3) > 0.01 || p.NoiseMultiplier <= 0 {
		t.Errorf("calibrated DP-SGD: %d steps (%d private), ε2 spent %g of 3, s = %g", p.Steps, p.PrivateSteps, p.Epsilon, p.NoiseMultiplier)
	}
	for _, bad := range []TrainConfig{
		{P: 1, Batch: 30, Epsilon: 0, Delta: 1e-3, MaxSteps: 10},
		{P: 1, Batch: 30, Epsilon: 1, Delta: 1, MaxSteps: 10},
		{P: 1.5, Batch: 30, Epsilon: 1, Delta: 1e-3, MaxSteps: 10},
		{P: 1, Batch: 301, Epsilon: 1, Delta: 1e-3, MaxSteps: 10},
	} {
		if _, err := Train(data, nil, e.Domain, bad); err == nil {
			t.Errorf("config %+v accepted", bad)
		}
	}
}

// TestDataReleaseEnforcesL: δ' = δ1/(2TL) rests on no examined trajectory being queried past L prefixes.
// L is public: ReleaseParams.L, or the domain's DemoLen when it is 0 (the old code took the data's longest
// trajectory, so the threshold depended on the data, and never bounded the queries): with DemoLen = 5 no
// stable prefix exceeds 5 and the shortened trajectories are counted; an explicit L overrides DemoLen.
func TestDataReleaseEnforcesL(t *testing.T) {
	e, data := cartpole(t)
	short := *e
	dom := *e.Domain
	dom.DemoLen = 5
	short.Domain = &dom
	rel, err := DataRelease(data, &short, ReleaseParams{Epsilon: 3e5, Delta: 0.5, PMin: 0.02, T: 40, Src: rand.NewPCG(5, 6)})
	if err != nil {
		t.Fatal(err)
	}
	if rel.Constants().L != 5 || rel.Cut() == 0 {
		t.Errorf("L = %d, %d trajectories cut", rel.Constants().L, rel.Cut())
	}
	for j, k := range rel.StableLen() {
		if k > 5 {
			t.Errorf("examined trajectory %d kept a prefix of %d > L = 5", j, k)
		}
	}
	rel, err = DataRelease(data, &short, ReleaseParams{Epsilon: 3e5, Delta: 0.5, PMin: 0.02, T: 40, L: 3, Src: rand.NewPCG(5, 6)})
	if err != nil {
		t.Fatal(err)
	}
	if rel.Constants().L != 3 || slices.Max(rel.StableLen()) > 3 {
		t.Errorf("L = 3 asked: L = %d, longest stable prefix %d", rel.Constants().L, slices.Max(rel.StableLen()))
	}
	if _, err := DataRelease(data, &short, ReleaseParams{Epsilon: 1, Delta: 0.5, PMin: 0.02, T: 1, L: -1, Src: rand.NewPCG(5, 6)}); err == nil {
		t.Error("L = −1 accepted")
	}
	dom.DemoLen = 0
	if _, err := DataRelease(data, &short, ReleaseParams{Epsilon: 1, Delta: 0.5, PMin: 0.02, T: 1, Src: rand.NewPCG(5, 6)}); err == nil {
		t.Error("DemoLen = 0 accepted")
	}
	if _, err := DataRelease(data, nil, ReleaseParams{Epsilon: 1, Delta: 0.5, PMin: 0.02, T: 1, Src: rand.NewPCG(5, 6)}); err == nil {
		t.Error("nil experts accepted")
	}
}

// TestNewLearnerErrors: a nil domain (a panic before) or an empty batch is an error.
func TestNewLearnerErrors(t *testing.T) {
	if _, err := NewLearner(nil, LearnerConfig{}, 8, 1); err == nil {
		t.Error("nil domain accepted")
	}
	if _, err := NewLearner(CartPoleDomain(), LearnerConfig{}, 0, 1); err == nil {
		t.Error("maxBatch 0 accepted")
	}
}

// TestAccountingConcurrent: SpentEpsilon and CalibrateNoise called from several goroutines at once (they share
// the package's result caches) give the same answers as called alone; under -race (make race) this checks the
// caches' locking.
func TestAccountingConcurrent(t *testing.T) {
	cfg := TrainConfig{P: 0.5, Batch: 20, NoiseMultiplier: 1.2, Epsilon: 2, Delta: 1e-5, Accounting: AccountingPaper}
	spent := func(steps int) float64 {
		e, err := cfg.SpentEpsilon(1000, steps)
		if err != nil {
			t.Error(err)
		}
		return e
	}
	want := []float64{spent(10), spent(20), spent(40)}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i, steps := range []int{10, 20, 40} {
				if e := spent(steps); e != want[i] {
					t.Errorf("goroutine %d: %d steps spend %g, alone %g", g, steps, e, want[i])
				}
			}
			if _, err := cfg.CalibrateNoise(1000, 30); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
}
