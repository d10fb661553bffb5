package seoyang2020

import (
	"math"
	"slices"
	"testing"

	"github.com/dprl-project/dprl/dprl/actorcritic"
	"github.com/dprl-project/dprl/dprl/experiment"
)

func TestSummarize(t *testing.T) {
	rs := []*actorcritic.Result{{Returns: []float64{1, 2, 3, 4}, DivergedAt: -1}, {Returns: []float64{3, 4, 5, 6}, DivergedAt: -1}}
	s, err := Summarize(rs, 2)
	if err != nil {
		t.Fatal(err)
	}
	// first: (1.5 + 3.5)/2, last: (3.5 + 5.5)/2, std of {1,2,3,4,3,4,5,6} (sample).
	if s.First != 2.5 || s.Last != 4.5 || math.Abs(s.Std-math.Sqrt(2.5714285714285716)) > 1e-12 {
		t.Errorf("summary %+v", s)
	}
	if _, err := Summarize(rs, 5); err == nil {
		t.Error("a window longer than the runs was accepted")
	}
	if d := Domains(); len(d) != 2 || d[0].Base.AlphaW != 0.5 || d[1].Base.AlphaV != 0.05 {
		t.Errorf("Table 2 settings: %+v", d)
	}
}

// TestScoreCountsOverflowAtTheLowest: an episode after the weights overflowed (NaN) counts as the lowest
// return an episode can have, so a diverged run never helps a claim.
func TestScoreCountsOverflowAtTheLowest(t *testing.T) {
	d := Domains()[1]
	returns := []float64{-5, -7, math.NaN(), math.NaN()}
	if got := d.Score(returns, 2); got != -2000 {
		t.Errorf("last 2 after overflow: %g, want −2000 (MaxSteps·MinReward)", got)
	}
	if got := d.Score(returns, 10); got != (-5-7-4000)/4.0 {
		t.Errorf("all episodes: %g", got)
	}
	if s := ReturnStd([]float64{1, 3, math.NaN()}); math.Abs(s-math.Sqrt2) > 1e-15 {
		t.Errorf("std over the finite returns: %g", s)
	}
}

// TestTuningGridAndConfig: each condition is tuned over Table 2's step sizes and one step towards less
// noise on each, all values of Table 1; DP-Both runs at ε/√2 per step, the random policy never moves its
// actor and samples π_u, the corrected variant gets H = MaxSteps.
func TestTuningGridAndConfig(t *testing.T) {
	table1 := []float64{0.001, 0.005, 0.01, 0.05, 0.1, 0.5}
	for _, d := range Domains() {
		g := d.TuningGrid()
		if len(g) != 4 || g[0] != d.Table2() {
			t.Errorf("%s: grid %v, want 4 settings, Table 2's first", d.Name, g)
		}
		for _, s := range g {
			if !slices.Contains(table1, s.AlphaU) || !slices.Contains(table1, s.AlphaV) || s.AlphaU > d.Base.AlphaU || s.AlphaV > d.Base.AlphaV {
				t.Errorf("%s: setting %v is not in Table 1 at or below Table 2", d.Name, s)
			}
		}
		s := Setting{AlphaU: 0.1, AlphaV: 0.005}
		both, err := d.Config(DPBoth, 10, 7, s)
		if err != nil || math.Abs(both.Epsilon-10/math.Sqrt2) > 1e-12 || both.AlphaU != 0.1 || both.AlphaV != 0.005 || both.Episodes != 7 {
			t.Errorf("DP-Both config %+v, %v", both, err)
		}
		rnd, err := d.Config(Random, 10, 7, s)
		if err != nil || rnd.AlphaU != 0 || rnd.Acting != actorcritic.Softmax || rnd.Variant != actorcritic.NonDP {
			t.Errorf("random policy %+v, %v", rnd, err)
		}
		soft, err := d.Config(DPActorSoftmax, 5, 7, s)
		if err != nil || soft.Acting != actorcritic.Softmax || soft.Variant != actorcritic.DPActor || soft.Epsilon != 5 {
			t.Errorf("softmax DP-Actor %+v, %v", soft, err)
		}
		corr, err := d.Config(Corrected, 10, 7, d.Table2())
		if err != nil || corr.MaxEpisodeLen != d.MaxSteps || corr.Clip != 1 || !(corr.NoiseMultiplier > 0) {
			t.Errorf("corrected %+v, %v", corr, err)
		}
		if _, err := d.Config("dp", 10, 7, s); err == nil {
			t.Error("an unknown condition was accepted")
		}
	}
}

// TestChoose picks, per domain and condition, the setting with the best mean score over its tuning runs;
// a tie goes to the earlier setting.
func TestChoose(t *testing.T) {
	tab := &experiment.Table{Columns: tuningColumns}
	for _, r := range []struct {
		cond   string
		au, av float64
		score  float64
	}{{DPActor, 0.5, 0.01, -300}, {DPActor, 0.5, 0.01, -100}, {DPActor, 0.1, 0.01, -150}, {DPActor, 0.1, 0.01, -190},
		{DPCritic, 0.5, 0.01, -100}, {DPCritic, 0.1, 0.01, -100}} {
		tab.Add("mdp100", r.cond, r.au, r.av, 0, r.score, 0)
	}
	got, err := Choose(tab)
	if err != nil {
		t.Fatal(err)
	}
	if got["mdp100/"+DPActor] != (Setting{0.1, 0.01}) || got["mdp100/"+DPCritic] != (Setting{0.5, 0.01}) {
		t.Errorf("chosen %v", got)
	}
	tab.Rows[0][5] = "x"
	if _, err := Choose(tab); err == nil {
		t.Error("a non-numeric score was accepted")
	}
}

// TestMethodPrivacy: compared methods are at the same composed ε per patient: DP-Actor, DP-Critic and
// softmax DP-Actor at ε per step, DP-Both (two noised vectors per step) at ε/√2; Non-DP is listed as not
// private.
func TestMethodPrivacy(t *testing.T) {
	for _, d := range Domains() {
		var eps []float64
		for _, c := range []string{DPActor, DPCritic, DPBoth, DPActorSoftmax} {
			p, err := MethodPrivacy(d, c, 10)
			if err != nil || p.Delta != Delta || p.NonPrivate {
				t.Fatalf("%s: %+v %v", c, p, err)
			}
			eps = append(eps, p.Epsilon)
		}
		for _, e := range eps[1:] {
			if math.Abs(e-eps[0]) > 1e-9*eps[0] {
				t.Errorf("%s: composed ε %v differ", d.Name, eps)
			}
		}
		if p, _ := MethodPrivacy(d, NonDP, 10); !p.NonPrivate || p.Method != "Non-DP" {
			t.Errorf("Non-DP: %+v", p)
		}
		// Twice the releases at the same per-step ε cost more: DP-Both at 10 per step is not DP-Actor's ε.
		sigma := actorcritic.PublishedSigma(10, Delta)
		one, _ := ComposedPublishedEpsilon(sigma, d.MaxSteps, Delta)
		two, _ := ComposedPublishedEpsilon(sigma, 2*d.MaxSteps, Delta)
		if !(two > 1.5*one) || math.Abs(one-eps[0]) > 1e-9*one {
			t.Errorf("%s: one release per step %g, two %g, DP-Actor listed %g", d.Name, one, two, eps[0])
		}
	}
}

// TestTraceCosines: the paired cosine compares each run with the Non-DP run of its seed; Fig. 4's caption
// averages each condition's traces over the runs first; leaving a run out drops it from both averages; an
// episode no run recorded (weights overflowed) is NaN.
func TestTraceCosines(t *testing.T) {
	res := func(traces ...[]float64) *actorcritic.Result {
		return &actorcritic.Result{TraceU: traces}
	}
	xs := []*actorcritic.Result{res([]float64{1, 0}), res([]float64{0, 1})}
	ns := []*actorcritic.Result{res([]float64{1, 0}), res([]float64{1, 0})}
	c := traceCosines(xs, ns, 2, true)
	if c.paired[0][0] != 1 || c.paired[1][0] != 0 {
		t.Errorf("paired %v", c.paired)
	}
	// Averages (0.5, 0.5) and (1, 0): cos = 1/√2; without run 0: (0, 1)·(1, 0) = 0; without run 1: 1.
	if math.Abs(c.avg[0]-1/math.Sqrt2) > 1e-15 || c.without[0][0] != 0 || c.without[1][0] != 1 {
		t.Errorf("caption %v, without %v", c.avg, c.without)
	}
	if !math.IsNaN(c.avg[1]) || !math.IsNaN(c.paired[0][1]) || !math.IsNaN(c.without[0][1]) {
		t.Errorf("an episode without traces: %v %v %v", c.avg[1], c.paired[0][1], c.without[0][1])
	}
	if Cosine([]float64{0, 0}, []float64{1, 0}) != 0 {
		t.Error("a zero trace must have cosine 0")
	}
}

// TestJackknife: the interval is full ± t₀.₉₇₅,ₙ₋₁ · √((n−1)/n · Σ(θ₍ᵢ₎ − θ̄)²).
func TestJackknife(t *testing.T) {
	// without = {1, 2, 3}: θ̄ = 2, Σ = 2, se = √(2/3 · 2) = 2/√3; t₀.₉₇₅,₂ = 4.302652729911275.
	lo, hi := Jackknife(5, []float64{1, 2, 3, math.NaN()})
	h := 4.302652729911275 * 2 / math.Sqrt(3)
	if math.Abs(lo-(5-h)) > 1e-9 || math.Abs(hi-(5+h)) > 1e-9 {
		t.Errorf("[%g, %g], want 5 ± %g", lo, hi, h)
	}
	if lo, _ := Jackknife(1, []float64{2}); !math.IsNaN(lo) {
		t.Error("one leave-one-out value gave an interval")
	}
}

// TestDivergenceIsReported: at ε = 0.1 the published DP-Critic's normalisation constant grows with the update
// and the noise with it, until the weights overflow. The run must say so instead of carrying NaN weights.
func TestDivergenceIsReported(t *testing.T) {
	d := Domains()[1]
	c := d.Base
	c.Variant, c.Epsilon = actorcritic.DPCritic, 0.1
	rs, err := d.RunMany(c, 1, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := rs[0]
	if r.DivergedAt < 0 {
		t.Fatal("the run did not report divergence")
	}
	if len(r.Returns) != c.Episodes || !math.IsNaN(r.Returns[c.Episodes-1]) || math.IsNaN(r.Returns[0]) {
		t.Errorf("returns after divergence: %d entries, last %v, first %v", len(r.Returns), r.Returns[c.Episodes-1], r.Returns[0])
	}
	if s, _ := Summarize(rs, 50); s.Diverged != 1 || !math.IsNaN(s.Last) {
		t.Errorf("summary %+v", s)
	}
	if got := d.Score(r.Returns, 50); got != d.Lowest() {
		t.Errorf("score of the last 50 after divergence %g, want %g", got, d.Lowest())
	}
}

func TestComposedPublishedEpsilon(t *testing.T) {
	// Composing the published per-step releases only makes things worse with more steps.
	e1, _ := ComposedPublishedEpsilon(actorcritic.PublishedSigma(10, 1e-6), 100, 1e-6)
	e2, _ := ComposedPublishedEpsilon(actorcritic.PublishedSigma(10, 1e-6), 10000, 1e-6)
	if !(e1 > 10 && e2 > e1) {
		t.Errorf("composed published ε: %g (100 releases), %g (10⁴)", e1, e2)
	}
	if _, err := ComposedPublishedEpsilon(math.NaN(), 10, 1e-5); err == nil {
		t.Error("σ = NaN accepted")
	}
	if _, err := Summarize([]*actorcritic.Result{{Returns: []float64{1}}}, 0); err == nil {
		t.Error("window 0 accepted")
	}
}
