package seoyang2020

import (
	"math"
	"testing"

	"github.com/dprl-project/dprl/dprl/actorcritic"
)

func TestEpisodeCosines(t *testing.T) {
	dp := [][]float64{{1, 0}, {1, 1}}
	non := [][]float64{{2, 0}, {-1, -1}, {1, 0}}
	got := EpisodeCosines(dp, non, 3)
	if got[0] != 1 || math.Abs(got[1]+1) > 1e-15 || !math.IsNaN(got[2]) {
		t.Errorf("cosines %v, want [1 -1 NaN]", got)
	}
	if Cosine([]float64{0, 0}, []float64{1, 0}) != 0 {
		t.Error("a zero trace must have cosine 0")
	}
}

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
	s, _ := Summarize(rs, 50)
	if s.Diverged != 1 || !math.IsNaN(s.Last) {
		t.Errorf("summary %+v", s)
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
