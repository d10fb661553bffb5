package balle2016

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/dprl-project/dprl/dprl/policyeval"
	"github.com/dprl-project/dprl/dprl/report"
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
// with the constants of Lemma 1 at ε = δ = 0.1, F = 100, ρ_s = 1/39 and the norms of the chain's features
// in closed form: ‖(Γ_ρ^{1/2}Φ)⁺‖₂ = √39 and ‖Φ‖_F = √39 for both feature sets, ‖Φ‖₂ = 1 (tabular) or √2
// (pairs: two states share a column).
func independentSigma(c Config, counts []int, m int, sched float64) float64 {
	const f, rho = 100.0, 1.0 / 39
	d := 39
	phi2 := 1.0
	if c.Aggregate == 2 {
		d, phi2 = 20, math.Sqrt2
	}
	alpha, beta := lemma1(0.1, 0.1, d)
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
	lambda := lambda0 + sched*math.Pow(float64(m), 0.4)
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
// (Configs) uses Lemma 1's α and β at ε = δ = 0.1 for its dimension, its noise on a batch is the one the
// formulas give with those constants, Lemma 1 certifies exactly ε = 0.1 at δ = 0.1 for them, and the table
// the notebook prints (ShowGuarantees) says so, row by row.
func TestGuarantees(t *testing.T) {
	gs, err := Guarantees()
	if err != nil {
		t.Fatal(err)
	}
	if len(gs) != len(Configs()) || len(gs) != 5 {
		t.Fatalf("%d guarantees for %d configurations", len(gs), len(Configs()))
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
		alpha, beta := lemma1(0.1, 0.1, d)
		if g.D != d || math.Abs(g.Alpha/alpha-1) > 1e-12 || math.Abs(g.Beta/beta-1) > 1e-12 {
			t.Errorf("%s: d = %d, α = %v, β = %v; Lemma 1 at ε = δ = 0.1 gives d = %d, α = %v, β = %v", g.Name, g.D, g.Alpha, g.Beta, d, alpha, beta)
		}
		if math.Abs(g.Epsilon-0.1) > 1e-12 || g.Delta != 0.1 {
			t.Errorf("%s: certified (ε, δ) = (%v, %v), want (0.1, 0.1)", g.Name, g.Epsilon, g.Delta)
		}
		if want := independentSigma(g.Config, sig.Counts, 1000, 100); math.Abs(g.Sigma/want-1) > 1e-9 {
			t.Errorf("%s: σ = %v, the formula gives %v", g.Name, g.Sigma, want)
		}
		want := []string{g.Name, fmt.Sprint(d), fmt.Sprintf("%.4g", alpha), fmt.Sprintf("%.4g", beta), "0.1", "0.1"}
		for j, w := range want {
			if rows[i][j] != w {
				t.Errorf("printed row %d column %d = %q, want %q", i, j, rows[i][j], w)
			}
		}
		if seen[g.Name] {
			t.Errorf("two configurations named %q", g.Name)
		}
		seen[g.Name] = true
	}
}

// TestReleasesMatchFormulas: on a small batch, every configuration's release at several schedule constants
// has the noise the formulas give (the same check as TestGuarantees, away from the printed batch), and the
// paper bound's noise is never below the safe bound's, which its guarantee rests on.
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
		for _, sched := range []float64{0.01, 1, 100, 1e6} {
			r, err := c.release(s, sig, sched, rand.NewPCG(1, 1))
			if err != nil {
				t.Fatal(err)
			}
			if want := independentSigma(c, sig.Counts, 300, sched); math.Abs(r.Sigma/want-1) > 1e-9 {
				t.Errorf("%s, c = %g: σ = %v, the formula gives %v", c.Name, sched, r.Sigma, want)
			}
		}
	}
	for _, sched := range regularisationGrid {
		for _, agg := range []int{1, 2} {
			p := s.Problem(agg, 100)
			lambda, err := policyeval.LambdaSchedule(p, sched, 300)
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
				t.Errorf("aggregate %d, c = %g: paper σ %v below the safe σ %v", agg, sched, rp.Sigma, rs.Sigma)
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
