package balle2016

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/dprl-project/dprl/dprl/policyeval"
	"github.com/dprl-project/dprl/dprl/report"
	"github.com/dprl-project/dprl/mechanisms"
)

// lemma1 is Lemma 1's α and β at (ε, δ) in dimension d, written out here rather than taken from the
// library.
func lemma1(eps, delta float64, d int) (alpha, beta float64) {
	l := math.Log(2 / delta)
	return 5 * math.Sqrt(2*l) / eps, eps / (4 * (float64(d) + l))
}

// smoothMax is max_{0≤k≤kMax} e^{−kβ}·a(k) by the full scan.
func smoothMax(beta float64, kMax int, a func(k int) float64) float64 {
	best := 0.0
	for k := 0; k <= kMax; k++ {
		best = math.Max(best, math.Exp(-float64(k)*beta)*a(k))
	}
	return best
}

// independentSigma recomputes a configuration's noise on a batch from the paper's formulas (package doc),
// with the constants of Lemma 1 at ε = 0.1 and the arm's δ, the arm's F, ρ_s = 1/39, the schedule
// λ = ‖Φ‖_F²‖ρ‖∞ + c·m^power, and the norms of the chain's features in closed form: ‖(Γ_ρ^{1/2}Φ)⁺‖₂ = √39
// and ‖Φ‖_F = √39 for both feature sets, ‖Φ‖₂ = 1 (tabular) or √2 (pairs: two states share a column).
func independentSigma(c Config, arm Arm, counts []int, m int, power, sched float64) float64 {
	const rho = 1.0 / 39
	f := arm.F
	d := 39
	phi2 := 1.0
	if c.Aggregate == 2 {
		d, phi2 = 20, math.Sqrt2
	}
	alpha, beta := lemma1(0.1, arm.Delta, d)
	nMax := 0
	for _, n := range counts {
		nMax = max(nMax, n)
	}
	if !c.LSL {
		psi := smoothMax(beta, nMax, func(k int) float64 {
			s := 0.0
			for _, n := range counts {
				den := math.Max(float64(n-k), 1)
				s += rho / (den * den)
			}
			return s
		})
		return alpha * f * math.Sqrt(39) * math.Sqrt(psi)
	}
	phiF, rho2 := math.Sqrt(39), math.Sqrt(39*rho*rho)
	lambda0 := phiF * phiF * rho
	lambda := lambda0 + sched*math.Pow(float64(m), power)
	raised := func(k int) float64 {
		s := 0.0
		for _, n := range counts {
			s += rho * float64(min(n+k, m))
		}
		return s
	}
	if c.Bound == policyeval.LSLPaper {
		psi := smoothMax(beta, m, func(k int) float64 {
			h := phiF*rho*math.Sqrt(raised(k)/(2*lambda)) + rho2
			return h * h
		})
		return 2 * alpha * f * phiF / (lambda - lambda0) * math.Sqrt(psi)
	}
	psi := smoothMax(beta, m, func(k int) float64 {
		h := f*rho2 + phi2*rho*f*math.Sqrt(2*raised(k)/lambda)
		return h * h
	})
	return 2 * alpha * phi2 / lambda * math.Sqrt(psi)
}

// TestGuarantees is the privacy-truth test of notebook 02: every private configuration the notebook runs
// (Configs), at every δ of the arms, uses Lemma 1's α and β at ε = 0.1 and that δ for its dimension, its noise
// on a batch is the one the formulas give with those constants and F = 1 or 100, Lemma 1 certifies exactly
// ε = 0.1 at δ for them, and the table the notebook prints (ShowGuarantees) says so, row by row.
func TestGuarantees(t *testing.T) {
	gs, err := Guarantees()
	if err != nil {
		t.Fatal(err)
	}
	if len(gs) != 2*len(Configs()) || len(Configs()) != 5 {
		t.Fatalf("%d guarantees for %d configurations", len(gs), len(Configs()))
	}
	deltas := map[float64]bool{}
	for _, a := range Arms() {
		deltas[a.Delta] = true
	}
	s, err := NewSetup()
	if err != nil {
		t.Fatal(err)
	}
	sig, err := s.Batch(1000, rand.NewPCG(2016, 1000))
	if err != nil {
		t.Fatal(err)
	}
	var r report.Recorder
	if err := ShowGuarantees(&r); err != nil {
		t.Fatal(err)
	}
	if r.Tables() != 1 {
		t.Fatalf("%d tables", r.Tables())
	}
	rows := r.Items[1].Rows
	seen := map[string]bool{}
	for i, g := range gs {
		d := 39
		if g.Aggregate == 2 {
			d = 20
		}
		alpha, beta := lemma1(0.1, g.Delta, d)
		if g.D != d || math.Abs(g.Alpha/alpha-1) > 1e-12 || math.Abs(g.Beta/beta-1) > 1e-12 {
			t.Errorf("%s: d = %d, α = %v, β = %v; Lemma 1 at ε = 0.1, δ = %v gives d = %d, α = %v, β = %v", g.Name, g.D, g.Alpha, g.Beta, g.Delta, d, alpha, beta)
		}
		if math.Abs(g.Epsilon-0.1) > 1e-12 || !deltas[g.Delta] {
			t.Errorf("%s: certified (ε, δ) = (%v, %v), want ε = 0.1 at a δ of the arms", g.Name, g.Epsilon, g.Delta)
		}
		for k, f := range []float64{1, 100} {
			want := independentSigma(g.Config, Arm{F: f, Delta: g.Delta}, sig.Counts, 1000, CodePower, 100)
			if math.Abs(g.Sigma[k]/want-1) > 1e-9 {
				t.Errorf("%s, δ = %v, F = %v: σ = %v, the formula gives %v", g.Name, g.Delta, f, g.Sigma[k], want)
			}
		}
		want := []string{g.Name, fmt.Sprint(d), fmt.Sprintf("%.4g", alpha), fmt.Sprintf("%.4g", beta), "0.1", fmt.Sprint(g.Delta)}
		for j, w := range want {
			if rows[i][j] != w {
				t.Errorf("printed row %d column %d = %q, want %q", i, j, rows[i][j], w)
			}
		}
		name := fmt.Sprint(g.Name, g.Delta)
		if seen[name] {
			t.Errorf("two rows for %q", name)
		}
		seen[name] = true
	}
	if len(seen) != 2*len(Configs()) || len(deltas) != 2 {
		t.Errorf("%d rows for %d δ", len(seen), len(deltas))
	}
}

// TestReleasesMatchFormulas: on a small batch, every configuration's release in every arm, for every
// exponent and several schedule constants, has the noise the formulas give (the same check as
// TestGuarantees, away from the printed batch), and the paper bound's noise is never below the safe
// bound's, which its guarantee rests on.
func TestReleasesMatchFormulas(t *testing.T) {
	s, err := NewSetup()
	if err != nil {
		t.Fatal(err)
	}
	sig, err := s.Batch(300, rand.NewPCG(5, 5))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range Configs() {
		for _, arm := range Arms() {
			for _, power := range Powers {
				for _, sched := range []float64{0.01, 1, 100, 1e6} {
					r, err := c.release(s, sig, arm, power, sched, rand.NewPCG(1, 1))
					if err != nil {
						t.Fatal(err)
					}
					if want := independentSigma(c, arm, sig.Counts, 300, power, sched); math.Abs(r.Sigma/want-1) > 1e-9 {
						t.Errorf("%s, %s, p = %g, c = %g: σ = %v, the formula gives %v", c.Name, arm.Name, power, sched, r.Sigma, want)
					}
				}
			}
		}
	}
	for _, sched := range CGrid {
		for _, power := range Powers {
			for _, agg := range []int{1, 2} {
				p := s.Problem(agg, 100)
				lambda, err := Lambda(p, power, sched, 300)
				if err != nil {
					t.Fatal(err)
				}
				rp, err := policyeval.DPLSL(p, sig, lambda, Privacy(), policyeval.LSLPaper, rand.NewPCG(1, 1))
				if err != nil {
					t.Fatal(err)
				}
				rs, err := policyeval.DPLSL(p, sig, lambda, Privacy(), policyeval.LSLSafe, rand.NewPCG(1, 1))
				if err != nil {
					t.Fatal(err)
				}
				if rp.Sigma < rs.Sigma {
					t.Errorf("aggregate %d, p = %g, c = %g: paper σ %v below the safe σ %v", agg, power, sched, rp.Sigma, rs.Sigma)
				}
			}
		}
	}
}

// TestLambda: the code's exponent is policyeval.LambdaSchedule exactly; the others add c·m^p to its first
// term.
func TestLambda(t *testing.T) {
	s, err := NewSetup()
	if err != nil {
		t.Fatal(err)
	}
	p := s.Problem(1, 1)
	want, err := policyeval.LambdaSchedule(p, 7, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := Lambda(p, CodePower, 7, 1000); err != nil || got != want {
		t.Errorf("Lambda(0.4) = %v, LambdaSchedule %v (%v)", got, want, err)
	}
	if got, err := Lambda(p, 1, 7, 1000); err != nil || math.Abs(got-(1+7000)) > 1e-9 {
		t.Errorf("Lambda(1) = %v (%v)", got, err)
	}
	if got, err := Lambda(p, 0, 7, 1000); err != nil || math.Abs(got-8) > 1e-12 {
		t.Errorf("Lambda(0) = %v (%v)", got, err)
	}
}

// TestCertified: the privacy a claim lists for a release is Lemma 1's certificate of its constants: ε = 0.1
// at the arm's δ in either dimension.
func TestCertified(t *testing.T) {
	for _, arm := range Arms() {
		for _, d := range []int{20, 39} {
			p, err := certified("m", arm, d)
			if err != nil || math.Abs(p.Epsilon-0.1) > 1e-12 || p.Delta != arm.Delta || p.NonPrivate || p.Method != "m" {
				t.Errorf("%s, d = %d: %+v %v", arm.Name, d, p, err)
			}
		}
	}
}

// TestPaperDominatesSafe: the dominance holds on both feature sets of the chain and fails for one feature
// shared by every state (‖Φ‖_F = ‖Φ‖₂), where the paper's DP-LSL bound has no guarantee from the safe one.
func TestPaperDominatesSafe(t *testing.T) {
	s, err := NewSetup()
	if err != nil {
		t.Fatal(err)
	}
	for _, agg := range []int{1, 2} {
		if ok, err := paperDominatesSafe(s.Problem(agg, 100)); err != nil || !ok {
			t.Errorf("aggregate %d: %v %v", agg, ok, err)
		}
	}
	ones := make([]float64, 39)
	for i := range ones {
		ones[i] = 1
	}
	p := &policyeval.Problem{Phi: mat.NewDense(39, 1, ones), Rho: s.Problem(1, 1).Rho, FMax: 1, FRange: 1}
	if ok, err := paperDominatesSafe(p); err != nil || ok {
		t.Errorf("one shared feature: %v %v", ok, err)
	}
}

// TestLemma1Epsilon: the certified ε of Lemma 1's own constants is the ε they were made for; less noise
// (smaller α) or a larger β certifies a larger ε.
func TestLemma1Epsilon(t *testing.T) {
	for _, eps := range []float64{0.05, 0.1, 1} {
		for _, delta := range []float64{1e-5, 0.1} {
			for _, d := range []int{1, 20, 39} {
				a, b := lemma1(eps, delta, d)
				if got := Lemma1Epsilon(a, b, delta, d); math.Abs(got/eps-1) > 1e-12 {
					t.Errorf("ε = %v, δ = %v, d = %d: certified %v", eps, delta, d, got)
				}
				if got := Lemma1Epsilon(a/2, b, delta, d); math.Abs(got/(2*eps)-1) > 1e-12 {
					t.Errorf("half the α certifies %v, want %v", got, 2*eps)
				}
				if got := Lemma1Epsilon(a, 3*b, delta, d); math.Abs(got/(3*eps)-1) > 1e-12 {
					t.Errorf("three times β certifies %v, want %v", got, 3*eps)
				}
			}
		}
	}
}

// TestPrivacy: ε = δ = 0.1 with Lemma 1 constants (the zero variant) in the primary arm, with the public
// bound F = 1; the other arms change F or δ only.
func TestPrivacy(t *testing.T) {
	if p := Privacy(); p.Epsilon != 0.1 || p.Delta != 0.1 || p.Variant != mechanisms.SmoothLemma1 || ArmPublic.F != 1 {
		t.Errorf("%+v, F = %v", p, ArmPublic.F)
	}
	if a := Arms(); len(a) != 3 || a[0] != ArmPublic || a[1].F != 100 || a[1].Delta != 0.1 || a[2].F != 1 || a[2].Delta != 0.05 {
		t.Errorf("arms %+v", a)
	}
}

// TestNoiseScales: two tables; DP-LSW's α at ε = δ = 0.1 is 5√(2 ln 20)/0.1 ≈ 122 in every row, the F = 100
// column is the F = 1 column times 100, and DP-LSL's λ at c = 1, m = 1000 is 1 + 1000^0.4 ≈ 16.8.
func TestNoiseScales(t *testing.T) {
	if testing.Short() {
		t.Skip("collects 5000-trajectory batches")
	}
	var r report.Recorder
	if err := NoiseScales(&r); err != nil {
		t.Fatal(err)
	}
	if r.Tables() != 2 || r.Figures() != 0 {
		t.Fatalf("%d tables, %d figures", r.Tables(), r.Figures())
	}
	lsw := r.Items[1].Rows
	if len(lsw) != 6 {
		t.Fatalf("%d DP-LSW rows", len(lsw))
	}
	for _, row := range lsw {
		f1, err1 := strconv.ParseFloat(row[7], 64)
		f100, err100 := strconv.ParseFloat(row[8], 64)
		if row[5] != "122" || err1 != nil || err100 != nil || math.Abs(f100/(100*f1)-1) > 0.01 {
			t.Errorf("row %q", row)
		}
	}
	if lsl := r.Items[3].Rows; lsl[0][1] != "16.8" {
		t.Errorf("λ(c = 1) = %s", lsl[0][1])
	}
}
