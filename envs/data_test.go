package envs

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
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
	agg := Aggregation{N: 40, Size: 2}
	phi := FeatureMatrix(agg, 40)
	if agg.Dim() != 20 || phi[5][2] != 1 || phi[5][3] != 0 {
		t.Errorf("aggregation: dim %d, row 5 %v", agg.Dim(), phi[5])
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

func collectChain(t *testing.T, n int) *Dataset {
	t.Helper()
	pol, _ := ConstantTable(40, 0.5, 0.5)
	tr, err := Collect(must(Make("chain")), pol, n, rand.NewPCG(3, 3), 7)
	if err != nil {
		t.Fatal(err)
	}
	return &Dataset{ObsDim: 1, NumActions: 2, Trajectories: tr}
}

func TestCollectAndFirstVisitReturns(t *testing.T) {
	d := collectChain(t, 3000)
	again := collectChain(t, 3000)
	if d.NumSteps() != again.NumSteps() || !stepEqual(d.Trajectories[17].Steps[3], again.Trajectories[17].Steps[3]) {
		t.Fatal("same seed, different datasets")
	}
	for _, tr := range d.Trajectories {
		if tr.Expert != 7 || tr.Steps[0].Prob != 0.5 {
			t.Fatal("expert tag or behaviour probability missing")
		}
		last := tr.Steps[len(tr.Steps)-1]
		if !last.Terminated && !last.Truncated {
			t.Fatal("a trajectory ends without terminating or truncating")
		}
	}
	// First-visit Monte Carlo converges to the exact values (on states visited often enough).
	avg, visits, err := d.FirstVisitReturns(0.99, 40, func(o []float64) int { return int(o[0]) })
	if err != nil {
		t.Fatal(err)
	}
	pi, _ := ConstantTable(40, 0.5, 0.5)
	v, _ := NewChain(BalleChainParams()).Model().PolicyValue(pi.P, 0.99)
	for s := 30; s < 39; s++ {
		if visits[s] < 500 {
			t.Fatalf("state %d visited by %d trajectories only", s, visits[s])
		}
		if math.Abs(avg[s]-v[s]) > 0.03 {
			t.Errorf("state %d: first-visit average %.4f, exact %.4f (%d visits)", s, avg[s], v[s], visits[s])
		}
	}
}

func stepEqual(a, b TrajStep) bool {
	return a.Action == b.Action && a.Reward == b.Reward && a.Obs[0] == b.Obs[0] && a.NextObs[0] == b.NextObs[0]
}

func TestDatasetRoundTrips(t *testing.T) {
	tr, err := Collect(must(Make("mountaincar")), Uniform{N: 3}, 3, rand.NewPCG(4, 4), 2)
	if err != nil {
		t.Fatal(err)
	}
	d := &Dataset{ObsDim: 2, NumActions: 3, Trajectories: tr}
	var csvBuf, jsonBuf bytes.Buffer
	if err := d.WriteCSV(&csvBuf); err != nil {
		t.Fatal(err)
	}
	if err := d.WriteJSON(&jsonBuf); err != nil {
		t.Fatal(err)
	}
	fromCSV, err := ReadCSV(bytes.NewReader(csvBuf.Bytes()), 3)
	if err != nil {
		t.Fatal(err)
	}
	fromJSON, err := ReadJSON(bytes.NewReader(jsonBuf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	for _, got := range []*Dataset{fromCSV, fromJSON} {
		if len(got.Trajectories) != 3 || got.NumSteps() != d.NumSteps() {
			t.Fatalf("round trip: %d trajectories, %d steps", len(got.Trajectories), got.NumSteps())
		}
		for i, tr := range d.Trajectories {
			for k, s := range tr.Steps {
				g := got.Trajectories[i].Steps[k]
				if g.Obs[0] != s.Obs[0] || g.Obs[1] != s.Obs[1] || g.NextObs[1] != s.NextObs[1] || g.Action != s.Action ||
					g.Reward != s.Reward || g.Terminated != s.Terminated || g.Truncated != s.Truncated || g.Prob != s.Prob ||
					got.Trajectories[i].Expert != 2 {
					t.Fatalf("trajectory %d step %d differs after the round trip", i, k)
				}
			}
		}
	}
}

func TestMalformedFilesNameTheLine(t *testing.T) {
	header := "trajectory,expert,t,obs_0,action,reward,next_obs_0,terminated,truncated,prob\n"
	good := "0,0,0,3,1,0,4,0,0,0.5\n"
	cases := map[string]struct {
		text string
		line int
		msg  string
	}{
		"NaN reward":        {header + good + "0,0,1,4,1,NaN,5,0,0,0.5\n", 3, "reward"},
		"action range":      {header + good + "0,0,1,4,2,0,5,0,0,0.5\n", 3, "action = 2 is not allowed: want an integer in [0, 1]"},
		"missing column":    {header + "0,0,0,3,1,0,4,0,0\n", 2, "row = 9 fields is not allowed: want 10 fields"},
		"not a number":      {header + "0,0,0,x,1,0,4,0,0,0.5\n", 2, "obs_0"},
		"order":             {header + good + "0,0,2,4,1,0,5,0,0,0.5\n", 3, "t = 2 is not allowed: want 1"},
		"wrong header":      {"trajectory,t,obs_0\n", 1, "header"},
		"prob out of range": {header + "0,0,0,3,1,0,4,0,0,1.5\n", 2, "prob = 1.5"},
	}
	for name, c := range cases {
		_, err := ReadCSV(strings.NewReader(c.text), 2)
		var le *DataError
		if !errors.As(err, &le) || le.Line != c.line || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: error %v, want line %d mentioning %q", name, err, c.line, c.msg)
		}
	}
	for _, empty := range []string{"", header} {
		if _, err := ReadCSV(strings.NewReader(empty), 2); err == nil || !strings.Contains(err.Error(), "empty dataset") {
			t.Errorf("empty input %q: %v", empty, err)
		}
	}
	if _, err := ReadJSON(strings.NewReader(`{"obs_dim": 1, "num_actions": 2, "trajectories": [{"expert": 0, "steps": [{"obs": [1, 2], "action": 0, "reward": 0, "next_obs": [1]}]}]}`)); err == nil || !strings.Contains(err.Error(), "trajectories[0].steps[0].obs = 2 values is not allowed: want obs_dim = 1 values") {
		t.Errorf("mismatched observation dimension: %v", err)
	}
}
