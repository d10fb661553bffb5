package balle2016

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/dprl-project/dprl/dprl/experiment"
	"github.com/dprl-project/dprl/dprl/policyeval"
)

// TestSetup: the last non-absorbing state's value is ½·1/(1 − 0.99·½) (advance and collect 1, or stay),
// pairs of 39 states give d = 20, and a batch has m trajectories: those envs.BalleEvaluation.Collect records.
func TestSetup(t *testing.T) {
	b, err := NewSetup()
	if err != nil {
		t.Fatal(err)
	}
	if len(b.V) != 39 || math.Abs(b.V[38]-0.5/(1-0.495)) > 1e-12 {
		t.Errorf("V(38) = %v", b.V[38])
	}
	p := b.Problem(2, 1)
	if _, d := p.Phi.Dims(); d != 20 || p.FRange != 1 || p.FMax != 1 {
		t.Errorf("aggregated problem d = %d, F = %v", d, p.FRange)
	}
	if r, c := b.Problem(1, 100).Phi.Dims(); r != 39 || c != 39 {
		t.Errorf("tabular features %d × %d", r, c)
	}
	sig, err := b.Batch(200, rand.NewPCG(1, 1))
	if err != nil || sig.M != 200 {
		t.Fatalf("batch: %v %v", sig, err)
	}
	d, err := b.chain.Collect(200, rand.NewPCG(1, 1))
	if err != nil {
		t.Fatal(err)
	}
	want, err := policyeval.NewSignature(d, 39, b.Gamma, func(o []float64) int { return int(o[0]) })
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(sig.Counts, want.Counts) || !slices.Equal(sig.F, want.F) {
		t.Error("Batch's signature differs from the collected dataset's")
	}
}

// TestGrids: the default grid is the paper's (20 seeds on m = 100, 500, …, 5000) and the selection's is 10
// seeds on six of its sizes; quick mode runs 2 seeds of each on fewer sizes.
func TestGrids(t *testing.T) {
	t.Setenv("DPRL_QUICK", "")
	d, p, s := DefaultGrid(), PaperGrid(), SelectionGrid()
	if p.Trials != 20 || len(p.M) != 11 || p.M[0] != 100 || p.M[1] != 500 || p.M[10] != 5000 {
		t.Errorf("paper grid %+v", p)
	}
	if d.Trials != p.Trials || len(d.M) != len(p.M) {
		t.Errorf("default grid %+v", d)
	}
	if s.Trials != 10 || len(s.M) != 6 || s.M[0] != 100 || s.M[5] != 5000 {
		t.Errorf("selection grid %+v", s)
	}
	t.Setenv("DPRL_QUICK", "1")
	if q := DefaultGrid(); q.Trials != 2 || len(q.M) != 6 || q.M[5] != 5000 {
		t.Errorf("quick grid %+v", q)
	}
	if q := SelectionGrid(); q.Trials != 2 || len(q.M) != 3 {
		t.Errorf("quick selection grid %+v", q)
	}
}

// TestBatchEstimates: on one batch of m = 1000 (a panel-2 size) every estimator, arm, exponent and c is there
// once; each estimate is the library's on the documented stream (DP-LSW from PCG(u, 1), DP-LSL from PCG(u′, 2),
// the safe bound from PCG(u′, 3)); LSL at the code's exponent uses policyeval.LambdaSchedule; and since the
// arms share their noise draw and no return of the chain exceeds 1, F = 100 moves every estimate exactly 100
// times as far from its non-private solution as F = 1.
func TestBatchEstimates(t *testing.T) {
	s, err := NewSetup()
	if err != nil {
		t.Fatal(err)
	}
	const m = 1000
	sig, err := s.Batch(m, rand.NewPCG(3, 4))
	if err != nil {
		t.Fatal(err)
	}
	est, err := s.BatchEstimates(sig, rand.NewPCG(5, 6))
	if err != nil {
		t.Fatal(err)
	}
	perFeatures := 2 + len(Powers)*len(CGrid) + len(Arms())*(1+len(Powers)*len(CGrid))
	if want := 2*perFeatures + len(CGrid); len(est) != want {
		t.Fatalf("%d estimates, want %d", len(est), want)
	}
	find := func(estimator, features string, arm Arm, power, c float64) Estimate {
		t.Helper()
		var found []Estimate
		for _, e := range est {
			if e.Estimator == estimator && e.Features == features && (e.Arm == "" || e.Arm == arm.Name) &&
				(math.IsNaN(e.Power) || e.Power == power) && (math.IsNaN(e.C) || e.C == c) {
				found = append(found, e)
			}
		}
		if len(found) != 1 {
			t.Fatalf("%d estimates %s %s %s p = %g c = %g", len(found), estimator, features, arm.Name, power, c)
		}
		return found[0]
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for _, f := range features {
		uW, uL := rng.Uint64(), rng.Uint64()
		p := s.Problem(f.agg, 1)
		lambda, err := policyeval.LambdaSchedule(p, 10, m)
		if err != nil {
			t.Fatal(err)
		}
		lsl, err := policyeval.LSL(p, sig, lambda)
		if err != nil {
			t.Fatal(err)
		}
		if got := find(EstimatorLSL, f.name, Arm{}, CodePower, 10); got.RMSE != policyeval.RMSE(p.Phi, lsl, s.V, p.Rho) {
			t.Errorf("%s: LSL(c = 10) RMSE %v", f.name, got.RMSE)
		}
		for _, arm := range Arms() {
			pa := s.Problem(f.agg, arm.F)
			w, err := policyeval.DPLSW(pa, sig, arm.Privacy(), false, rand.NewPCG(uW, 1))
			if err != nil {
				t.Fatal(err)
			}
			if got := find(EstimatorDPLSW, f.name, arm, 0, 0); got.Sigma != w.Sigma || got.RMSE != policyeval.RMSE(pa.Phi, w.Theta, s.V, pa.Rho) {
				t.Errorf("%s, %s: DP-LSW %+v, library σ %v", f.name, arm.Name, got, w.Sigma)
			}
			lambda, err := Lambda(pa, 1, 100, m)
			if err != nil {
				t.Fatal(err)
			}
			l, err := policyeval.DPLSL(pa, sig, lambda, arm.Privacy(), policyeval.LSLPaper, rand.NewPCG(uL, 2))
			if err != nil {
				t.Fatal(err)
			}
			if got := find(EstimatorDPLSL, f.name, arm, 1, 100); got.Sigma != l.Sigma || got.RMSE != policyeval.RMSE(pa.Phi, l.Theta, s.V, pa.Rho) {
				t.Errorf("%s, %s: DP-LSL(p = 1, c = 100) %+v, library σ %v", f.name, arm.Name, got, l.Sigma)
			}
		}
		for _, e := range []string{EstimatorDPLSW, EstimatorDPLSL} {
			a, b := find(e, f.name, ArmPublic, CodePower, 1000), find(e, f.name, ArmCodeBound, CodePower, 1000)
			if math.Abs(b.Sigma/a.Sigma-100) > 1e-9 {
				t.Errorf("%s %s: σ(F = 100)/σ(F = 1) = %v", e, f.name, b.Sigma/a.Sigma)
			}
		}
	}
	p := s.Problem(1, 1)
	lambda, err := policyeval.LambdaSchedule(p, 1, m)
	if err != nil {
		t.Fatal(err)
	}
	rng = rand.New(rand.NewPCG(5, 6))
	rng.Uint64()
	rng.Uint64()
	rng.Uint64()
	safe, err := policyeval.DPLSL(p, sig, lambda, Privacy(), policyeval.LSLSafe, rand.NewPCG(rng.Uint64(), 3))
	if err != nil {
		t.Fatal(err)
	}
	if got := find(EstimatorDPLSLSafe, FeaturesTabular, ArmPublic, CodePower, 1); got.Sigma != safe.Sigma {
		t.Errorf("safe bound σ %v, library %v", got.Sigma, safe.Sigma)
	}
}

// tinyData is a run of two trials on two batch sizes, and its choice.
func tinyData(t *testing.T) (*Data, *Choice) {
	t.Helper()
	d, err := RunData(Grid{Trials: 2, M: []float64{100, 1000}}, 7, nil)
	if err != nil {
		t.Fatal(err)
	}
	ch, err := Choose(d)
	if err != nil {
		t.Fatal(err)
	}
	return d, ch
}

// TestRunData: the table holds every estimate of every (seed, m) once, with the seeds as trial ranks and
// numbers that round-trip; a second run gives the same table.
func TestRunData(t *testing.T) {
	d, _ := tinyData(t)
	if !slices.Equal(d.Seeds, []uint64{0, 1}) || !slices.Equal(d.M, []float64{100, 1000}) {
		t.Fatalf("seeds %v, m %v", d.Seeds, d.M)
	}
	again, err := RunData(Grid{Trials: 2, M: []float64{100, 1000}}, 7, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(again.Table.Rows) != len(d.Table.Rows) || !slices.EqualFunc(d.Table.Rows, again.Table.Rows, slices.Equal) {
		t.Error("two runs of the same grid and seed differ")
	}
	v, err := d.curve(dplslKey(FeaturesPairs, ArmCodeDelta, 0, 0.01), sigmaOf)
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range v {
		for _, x := range row {
			if !(x > 0) {
				t.Fatalf("σ %v", v)
			}
		}
	}
	if _, err := d.curve(key{FeaturesPairs, "nonsense", "", -1, -1}, rmseOf); err == nil || !strings.Contains(err.Error(), "no nonsense") {
		t.Errorf("a missing curve: %v", err)
	}
}

// TestChoose: the chosen c of every arm and exponent is the grid's lowest overall RMSE, recomputed here from
// the table's rows; a c with a non-finite RMSE on one batch is never chosen.
func TestChoose(t *testing.T) {
	d, ch := tinyData(t)
	overall := func(t *experiment.Table, estimator, arm string, power, c float64) float64 {
		sum, n := 0.0, 0
		for _, r := range t.Rows {
			if r[2] == estimator && r[4] == arm && r[5] == strconv.FormatFloat(power, 'g', -1, 64) && r[6] == strconv.FormatFloat(c, 'g', -1, 64) {
				x, _ := strconv.ParseFloat(r[7], 64)
				sum, n = sum+x, n+1
			}
		}
		if n != 2*2*2 { // seeds × batch sizes × features
			panic(n)
		}
		return sum / float64(n)
	}
	for _, arm := range Arms() {
		for _, p := range Powers {
			best, bestC := math.Inf(1), 0.0
			for _, c := range CGrid {
				if s := overall(d.Table, EstimatorDPLSL, arm.Name, p, c); s < best {
					best, bestC = s, c
				}
			}
			if ch.Of(arm, p) != bestC {
				t.Errorf("%s, p = %g: chose c = %g, the rows give %g", arm.Name, p, ch.Of(arm, p), bestC)
			}
		}
	}
	// Spoil the primary arm's chosen c on one batch: another c must win.
	c := ch.Of(ArmPublic, CodePower)
	tb := &experiment.Table{Columns: d.Table.Columns}
	spoiled := false
	for _, r := range d.Table.Rows {
		r = slices.Clone(r)
		if !spoiled && r[2] == EstimatorDPLSL && r[4] == ArmPublic.Name && r[5] == "0.4" && r[6] == strconv.FormatFloat(c, 'g', -1, 64) {
			r[7], spoiled = "NaN", true
		}
		tb.Rows = append(tb.Rows, r)
	}
	d2, err := NewData(tb, "spoiled")
	if err != nil {
		t.Fatal(err)
	}
	ch2, err := Choose(d2)
	if err != nil {
		t.Fatal(err)
	}
	if !spoiled || ch2.Of(ArmPublic, CodePower) == c {
		t.Errorf("a c with a NaN RMSE was chosen (%g)", c)
	}
	if got := ch.Of(Arm{Name: "none"}, CodePower); !math.IsNaN(got) {
		t.Errorf("an arm the selection did not run: %v", got)
	}
}

// TestAlternatives: the claims' alternatives are the other arms at their chosen c, the neighbours of DP-LSL's
// c, last round's F = 100 with c = 100, and for the non-private LSL its neighbours, DP-LSL's c and c = 1.
func TestAlternatives(t *testing.T) {
	ch := &Choice{C: map[string]map[float64]float64{}, LSLC: 0.01}
	for _, a := range Arms() {
		ch.C[a.Name] = map[float64]float64{0: 10, CodePower: 100, 1: 1000}
	}
	ch.C[ArmCodeBound.Name][CodePower] = 1e4
	var got []string
	for _, s := range ch.Alternatives() {
		got = append(got, s.Arm.Name+"|"+strconv.FormatFloat(s.C, 'g', -1, 64)+"|"+strconv.FormatFloat(s.LSLC, 'g', -1, 64))
	}
	want := []string{"F = 100, δ = 0.1|10000|0.01", "F = 1, δ = 0.05|100|0.01", "F = 1, δ = 0.1|10|0.01", "F = 1, δ = 0.1|1000|0.01",
		"F = 100, δ = 0.1|100|0.01", "F = 1, δ = 0.1|100|0.1", "F = 1, δ = 0.1|100|100", "F = 1, δ = 0.1|100|1"}
	if !slices.Equal(got, want) {
		t.Errorf("alternatives %q\nwant %q", got, want)
	}
	if m := ch.Main(); m.Arm != ArmPublic || m.C != 100 || m.LSLC != 0.01 || m.PowerC[1] != 1000 {
		t.Errorf("main setting %+v", m)
	}
}
