package envs

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestFourierBasis(t *testing.T) {
	f := MountainCarFourier(5)
	if f.Dim() != 36 {
		t.Fatalf("order-5 basis in 2-D has %d features, want 36", f.Dim())
	}
	x := f.Into(make([]float64, 36), []float64{-0.3, 0.01})
	sBar := []float64{(-0.3 + 1.2) / 1.8, (0.01 + 0.07) / 0.14}
	for k, c := range f.Coefficients() {
		want := math.Cos(math.Pi * (c[0]*sBar[0] + c[1]*sBar[1]))
		if math.Abs(x[k]-want) > 1e-15 {
			t.Fatalf("feature %d (c = %v) = %g, want %g", k, c, x[k], want)
		}
	}
	if x[0] != 1 {
		t.Errorf("φ_0 = %g, want 1", x[0])
	}
	steps := f.StepSizes(0.1)
	if steps[0] != 0.1 || math.Abs(steps[7]-0.1/math.Sqrt(2)) > 1e-15 { // c = (1, 1)
		t.Errorf("step sizes %v", steps[:8])
	}
	if _, err := NewFourier(3, []float64{0}, []float64{math.Inf(1)}); err == nil {
		t.Error("infinite bounds accepted")
	}
	tab := FeatureMatrix(TabularFeatures{N: 4}, 4)
	if tab[2][2] != 1 || tab[2][1] != 0 {
		t.Errorf("one-hot rows %v", tab)
	}
}

func TestPolicies(t *testing.T) {
	q := func(dst, obs []float64) []float64 { copy(dst, []float64{1, 3, 2}); return dst }
	g := &Greedy{N: 3, Epsilon: 0.3, Q: q}
	p := g.Probs(make([]float64, 3), nil)
	if math.Abs(p[1]-0.8) > 1e-15 || math.Abs(p[0]-0.1) > 1e-15 {
		t.Errorf("ε-greedy %v", p)
	}
	s := &Softmax{N: 3, Temperature: 1, Q: q}
	p = s.Probs(make([]float64, 3), nil)
	z := math.E + math.Exp(3) + math.Exp(2)
	if math.Abs(p[1]-math.Exp(3)/z) > 1e-15 {
		t.Errorf("softmax %v", p)
	}
	m := MixMin{Base: &Greedy{N: 4, Q: func(dst, _ []float64) []float64 { copy(dst, []float64{0, 0, 5, 1}); return dst }}, PMin: 0.02}
	p = m.Probs(make([]float64, 4), nil)
	if math.Abs(p[2]-0.94) > 1e-15 || p[0] != 0.02 {
		t.Errorf("p_min mixing %v", p)
	}
	// Act draws in proportion to the probabilities.
	tp, _ := ConstantTable(1, 0.2, 0.5, 0.3)
	rng := rand.New(rand.NewPCG(1, 1))
	var counts [3]int
	for range 100000 {
		counts[Act(tp, []float64{0}, rng, nil)]++
	}
	for a, want := range []float64{0.2, 0.5, 0.3} {
		if math.Abs(float64(counts[a])/100000-want) > 0.005 {
			t.Errorf("action %d drawn %d times", a, counts[a])
		}
	}
	if _, err := NewTablePolicy([][]float64{{0.5, 0.6}}); err == nil {
		t.Error("rows not summing to 1 accepted")
	}
}
