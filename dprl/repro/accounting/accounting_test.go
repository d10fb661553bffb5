package accounting

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/dprl-project/dprl/dprl/experiment"
	"github.com/dprl-project/dprl/dprl/figure"
	"github.com/dprl-project/dprl/dprl/fnq"
	"github.com/dprl-project/dprl/mechanisms"
)

// cell reads a numeric table cell.
func cell(t *testing.T, tab *experiment.Table, row int, col string) float64 {
	t.Helper()
	for j, c := range tab.Columns {
		if c == col {
			v, err := strconv.ParseFloat(tab.Rows[row][j], 64)
			if err != nil {
				t.Fatalf("%s row %d: %v", col, row, err)
			}
			return v
		}
	}
	t.Fatalf("no column %q", col)
	return 0
}

func near(t *testing.T, what string, got, want, rel float64) {
	t.Helper()
	if !(math.Abs(got-want) <= rel*math.Abs(want)) {
		t.Errorf("%s = %g, want %g (±%g%%)", what, got, want, 100*rel)
	}
}

// TestMethodOrdering: on a DP-SGD workload the exact PLD is the smallest ε, RDP's improved conversion beats
// the moments accountant's tail bound, Lemma 3's closed form is looser still, and composing per-step
// guarantees (advanced, optimal) is the loosest, with optimal composition below advanced.
func TestMethodOrdering(t *testing.T) {
	for _, T := range []int{10, 1000} {
		w := Workload{Q: 0.01, Z: 1.1, Steps: T, N: 10000}
		e := map[Method]float64{}
		for _, m := range Methods {
			v, err := Epsilon(m, w, 1e-5)
			if err != nil {
				t.Fatalf("T = %d, %v: %v", T, m, err)
			}
			e[m] = v
		}
		t.Logf("T = %d: %v", T, e)
		if !(e[PLD] < e[RDP] && e[RDP] < e[MomentsAccountant] && e[MomentsAccountant] < e[MomentsLemma3]) {
			t.Errorf("T = %d: PLD %g, RDP %g, moments %g, Lemma 3 %g out of order", T, e[PLD], e[RDP], e[MomentsAccountant], e[MomentsLemma3])
		}
		if !(e[OptimalComposition] <= e[AdvancedComposition] && e[RDP] < e[OptimalComposition]) {
			t.Errorf("T = %d: optimal %g, advanced %g, RDP %g", T, e[OptimalComposition], e[AdvancedComposition], e[RDP])
		}
	}
	if _, err := Epsilon(RDP, Workload{Q: 0, Z: 1, Steps: 1}, 1e-5); err == nil {
		t.Error("q = 0 accepted")
	}
	if _, err := Epsilon(RDP, Workload{Q: 0.1, Z: 1, Steps: 1}, 1); err == nil {
		t.Error("δ = 1 accepted")
	}
	if _, err := Epsilon(RDPWithoutReplacement, Workload{Q: 0.1, Z: 1, Steps: 1}, 1e-5); err == nil {
		t.Error("sampling without replacement without N accepted")
	}
}

// TestCompositionIsGDP: without sampling, k Gaussians are exactly √k/z-GDP; PLD agrees within its
// discretisation and RDP is above.
func TestCompositionIsGDP(t *testing.T) {
	tab, err := CompositionTable(2, []int{1, 10, 100}, 1e-5)
	if err != nil {
		t.Fatal(err)
	}
	for i := range tab.Rows {
		gdp := cell(t, tab, i, "μ-GDP (exact)")
		near(t, "PLD vs GDP", cell(t, tab, i, "PLD"), gdp, 0.01)
		if !(cell(t, tab, i, "RDP") > gdp) {
			t.Errorf("row %d: RDP below the exact ε", i)
		}
	}
}

// TestNoiseForRoundTrip: the calibrated multiplier spends the target, and more data needs less noise.
func TestNoiseForRoundTrip(t *testing.T) {
	w := Workload{Q: 0.01, Steps: 500, N: 10000}
	z, err := NoiseFor(RDP, w, 1, 1e-5)
	if err != nil {
		t.Fatal(err)
	}
	w.Z = z
	e, _ := Epsilon(RDP, w, 1e-5)
	near(t, "ε at the calibrated z", e, 1, 1e-3)
	cs := NoiseVsSize([]Method{RDP}, []int{1000, 10000}, 100, 5, 1, 1e-5, 2, nil)
	if !(cs[0].Y[1] < cs[0].Y[0]) {
		t.Errorf("z for n = 1000, 10000: %v", cs[0].Y)
	}
	if _, err := Plot(figure.Options{Title: "t"}, []float64{1000, 10000}, cs); err != nil {
		t.Error(err)
	}
}

// TestPaperTables checks the tables against worked examples of each paper's constants (Balle's chain, a GPOPE
// calibration, Wang & Hegde's Theorem 5, Sharma's Acrobot setting, Seo & Yang's eq. (3)).
func TestPaperTables(t *testing.T) {
	b, err := BalleTable([][2]float64{{0.1, 0.1}}, []int{39})
	if err != nil {
		t.Fatal(err)
	}
	near(t, "Balle α", cell(t, b, 0, "α"), 122.39, 1e-3)
	near(t, "Balle β", cell(t, b, 0, "β"), 5.953e-4, 1e-3)
	x, err := XieTable([]XieRow{{1000, 1000, 1}})
	if err != nil {
		t.Fatal(err)
	}
	near(t, "Xie σ", cell(t, x, 0, "σ"), 1.726, 2e-3)
	near(t, "Xie c₂", cell(t, x, 0, "implied c₂"), 16.1, 5e-3)
	near(t, "Xie Poisson ε", cell(t, x, 0, "ε if Poisson at 1/n, add/remove, Δ = C (not what GPOPE runs)"), 0.18, 0.03)
	w, err := WangHegdeTable([]fnq.Calibration{{Epsilon: 0.9, Delta: 1e-4, T: 5000, B: 50, LR: 0.01, L: 1, K: 230, Actions: 2, Resets: 100}})
	if err != nil {
		t.Fatal(err)
	}
	near(t, "Thm 5 σ", cell(t, w, 0, "σ (Thm 5)"), 22.2, 0.01)
	near(t, "exact ε", cell(t, w, 0, "exact ε, one action (GDP)"), 0.639, 0.01)
	s, err := SharmaTable([]SharmaRow{{"Acrobot", 10, 1.0 / 3000, 25, 200, 0.02}})
	if err != nil {
		t.Fatal(err)
	}
	near(t, "ε'", cell(t, s, 0, "ε'"), 0.120, 0.01)
	near(t, "θ", cell(t, s, 0, "θ"), 443, 0.01)
	near(t, "E[θ̂]", cell(t, s, 0, "E[θ̂]"), 1017, 0.01)
	y, err := SeoYangTable([]float64{1}, 1e-6)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "eq. (3)", cell(t, y, 0, "σ eq. (3)"), 5.299, 1e-3)
	near(t, "typo", cell(t, y, 0, "σ §2.1 typo"), 668, 1e-3)
	near(t, "analytic 2|C|", cell(t, y, 0, "analytic σ, Δ = 2|C|"), 8.449, 1e-3)
	near(t, "100 releases", cell(t, y, 0, "ε of 100 releases, Δ = |C|"), 10.3, 0.01)
	near(t, "10⁴ releases", cell(t, y, 0, "ε of 10⁴ releases, Δ = |C|"), 268, 0.01)
	if p, x := cell(t, y, 0, "ε of 100 releases, Δ = 2|C|"), cell(t, y, 0, "ε of 100 releases, Δ = |C|"); !(p > x) {
		t.Errorf("replace-one releases compose to %g, not above the paper's reading's %g", p, x)
	}
	g, err := GaussianTable([]float64{0.5, 2}, 1e-5)
	if err != nil {
		t.Fatal(err)
	}
	if g.Rows[0][2] != "yes" || g.Rows[1][2] == "yes" || !(cell(t, g, 0, "classic/analytic") > 1) {
		t.Errorf("Gaussian table: %v", g.Rows)
	}
}

// TestGridGapsNeverZeros: with Trials recovering panics, a panicking method must still be a gap (NaN),
// never the zero value of a trial that did not run; negative workers used to index a nil slice.
func TestGridGapsNeverZeros(t *testing.T) {
	c := grid([]Method{PLD, RDP}, 3, 2, nil, func(m Method, i int) (float64, error) {
		if m == RDP && i == 1 {
			panic("boom")
		}
		return 1, nil
	})
	if c[0].Y[0] != 1 || !math.IsNaN(c[1].Y[1]) || c[1].Y[2] != 1 {
		t.Errorf("curves %v %v", c[0].Y, c[1].Y)
	}
	c = grid([]Method{PLD}, 2, -3, nil, func(Method, int) (float64, error) { return 1, nil })
	if len(c[0].Y) != 2 || c[0].Y[0] != 1 {
		t.Errorf("negative workers: %v", c[0].Y)
	}
}

func TestTablesNameTheirArguments(t *testing.T) {
	for want, err := range map[string]error{
		"epsilons[1] = -1": func() error { _, err := GaussianTable([]float64{1, -1}, 1e-5); return err }(),
		"ks[0] = 0":        func() error { _, err := CompositionTable(1, []int{0}, 1e-5); return err }(),
		"z = 0":            func() error { _, err := CompositionTable(0, []int{1}, 1e-5); return err }(),
		"rows[0].Eps1 = 0": func() error {
			_, err := SharmaTable([]SharmaRow{{Eps1: 0, Delta1: 1e-5, PMin: 0.1, T: 1, L: 1}})
			return err
		}(),
		"Q = 2":     func() error { _, err := Epsilon(RDP, Workload{Q: 2, Z: 1, Steps: 1}, 1e-5); return err }(),
		"eps = NaN": func() error { _, err := NoiseFor(RDP, Workload{Q: 0.1, Steps: 1}, math.NaN(), 1e-5); return err }(),
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%v, want %q", err, want)
		}
	}
}

// TestSampledGaussianProfile: the closed-form single step agrees with the PLD accountant (above it by less
// than the PLD's certified gap), is the Gaussian's exact ε at q = 1, and falls with q.
func TestSampledGaussianProfile(t *testing.T) {
	for _, c := range []struct{ q, z, delta float64 }{{0.01, 1.1, 1e-5}, {0.1, 0.7, 1e-7}, {0.001, 3, 1e-6}, {1, 2, 1e-5}} {
		e, err := SampledGaussianEpsilon(c.q, c.z, c.delta)
		if err != nil {
			t.Fatal(err)
		}
		a, _ := mechanisms.NewPLDAccountant(mechanisms.PLDParams{})
		var ev mechanisms.Event = mechanisms.PoissonSampled{Q: c.q, Event: mechanisms.GaussianEvent{NoiseMultiplier: c.z}}
		if c.q == 1 {
			ev = mechanisms.GaussianEvent{NoiseMultiplier: c.z}
		}
		if err := a.Compose(ev, 1); err != nil {
			t.Fatal(err)
		}
		pld, lower, err := a.EpsilonBounds(c.delta)
		if err != nil {
			t.Fatal(err)
		}
		if !(e >= lower-1e-9 && e <= pld+1e-9) {
			t.Errorf("q = %g, z = %g: closed form %g outside the PLD's certified [%g, %g]", c.q, c.z, e, lower, pld)
		}
		if d := SampledGaussianDelta(c.q, c.z, e); math.Abs(d-c.delta) > 1e-6*c.delta {
			t.Errorf("q = %g, z = %g: δ(ε) = %g, want %g", c.q, c.z, d, c.delta)
		}
	}
	g, _ := mechanisms.GDPEpsilon(0.5, 1e-5)
	if e, _ := SampledGaussianEpsilon(1, 2, 1e-5); math.Abs(e-g) > 1e-9 {
		t.Errorf("q = 1: %g, the Gaussian's exact ε is %g", e, g)
	}
	if a, b := SampledGaussianDelta(0.01, 1, 1), SampledGaussianDelta(0.02, 1, 1); !(a < b) {
		t.Errorf("δ(1) at q = 0.01, 0.02: %g, %g", a, b)
	}
	if _, err := SampledGaussianEpsilon(0, 1, 1e-5); err == nil {
		t.Error("q = 0 accepted")
	}
}

// TestNoiseNear: the multiplier meets the target and one rel smaller does not, from a guess on either side;
// it agrees with NoiseFor to rel; Lemma 3 refuses outside its conditions.
func TestNoiseNear(t *testing.T) {
	w := Workload{Q: 0.01, Steps: 500, N: 10000}
	ref, err := NoiseFor(RDP, w, 1, 1e-5)
	if err != nil {
		t.Fatal(err)
	}
	for _, guess := range []float64{0.4, ref, 30} {
		z, err := NoiseNear(RDP, w, 1, 1e-5, guess, 1e-4)
		if err != nil {
			t.Fatal(err)
		}
		w.Z = z
		e, _ := Epsilon(RDP, w, 1e-5)
		w.Z = z / (1 + 1e-4)
		e2, _ := Epsilon(RDP, w, 1e-5)
		if !(e <= 1 && e2 > 1) || math.Abs(z-ref) > 1e-4*ref {
			t.Errorf("guess %g: z = %g (NoiseFor %g), ε = %g, ε(z/(1+rel)) = %g", guess, z, ref, e, e2)
		}
	}
	if z, err := NoiseNear(RDP, Workload{Q: 0.01, Steps: 1, N: 100}, 100, 1e-5, 5, 1e-3); err != nil || z != 0.3 {
		t.Errorf("a target every z meets: %g, %v, want the range's lower end 0.3", z, err)
	}
	if _, err := NoiseNear(RDP, Workload{Q: 1, Steps: 1e6}, 0.01, 1e-5, 5, 1e-3); err == nil {
		t.Error("an unreachable target accepted")
	}
	if _, err := Epsilon(MomentsLemma3, Workload{Q: 0.01, Z: 0.9, Steps: 10}, 1e-5); err == nil {
		t.Error("Lemma 3 at z < 1 accepted")
	}
	if _, err := Epsilon(MomentsLemma3, Workload{Q: 0.1, Z: 1.1, Steps: 10}, 1e-5); err == nil {
		t.Error("Lemma 3 at q ≥ 1/(16z) accepted")
	}
	if _, err := NoiseFor(MomentsLemma3, Workload{Q: 0.1, Steps: 10}, 1, 1e-5); err == nil {
		t.Error("Lemma 3 calibrated at q = 0.1, where no z meets its conditions")
	}
	if z, err := NoiseFor(MomentsLemma3, Workload{Q: 0.01, Steps: 1000}, 2, 1e-5); err != nil || z < 1 || z >= 1/(16*0.01) {
		t.Errorf("Lemma 3's z = %g (%v) outside its conditions", z, err)
	}
}
