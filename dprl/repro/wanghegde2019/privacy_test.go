package wanghegde2019

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/dprl-project/dprl/dprl/fnq"
	"github.com/dprl-project/dprl/dprl/report"
	"github.com/dprl-project/dprl/envs"
)

// gaussDelta is the exact δ(ε) of a μ-GDP mechanism (the Gaussian mechanism's privacy profile, Balle & Wang
// 2018): Φ(−ε/μ + μ/2) − e^ε·Φ(−ε/μ − μ/2). Written out here so the test does not use the accountant it checks.
func gaussDelta(eps, mu float64) float64 {
	phi := func(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }
	return phi(-eps/mu+mu/2) - math.Exp(eps)*phi(-eps/mu-mu/2)
}

// gaussEpsilon inverts gaussDelta in ε by bisection.
func gaussEpsilon(mu, delta float64) float64 {
	lo, hi := 0.0, 100.0
	for range 200 {
		mid := (lo + hi) / 2
		if gaussDelta(mid, mu) > delta {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// theorem5 is Theorem 5 written out: v = 4α(k+1)/B, β = 1/v, one action's C₁ = (v² + v)L², the theorem's σ
// (one action) and the level 8.68√β·σ of its precondition.
func theorem5(eps, delta, lr, k, L float64, T, B int) (v, beta, c1, sigma, level float64) {
	v = 4 * lr * (k + 1) / float64(B)
	beta, c1 = 1/v, (v*v+v)*L*L
	sigma = math.Sqrt(2*float64(T/B)*math.Log(math.E+eps/delta)*c1) / eps
	return v, beta, c1, sigma, 8.68 * math.Sqrt(beta) * sigma
}

// TestTruePrivacy asserts, for every configuration the notebook runs (Fig. 1, both panels of Fig. 2 and the
// ε sweep, at the default size and in quick mode), that the privacy table it prints gives the ε of the exact
// accountant, written out independently here, at the δ it prints, and that every configuration without a
// guarantee is labelled so. Algorithm 1's corrected runs are run once to read the σ that actually runs.
func TestTruePrivacy(t *testing.T) {
	type group struct {
		name     string
		settings []Setting
		eps      float64 // the panel's ε (0: several)
		row      Fig2Row
	}
	var groups []group
	for _, episodes := range []int{100, 40} {
		groups = append(groups, group{name: fmt.Sprintf("Fig. 1, %d episodes", episodes), settings: Fig1Settings(episodes)})
		for _, row := range Fig2Rows() {
			s, err := Fig2Settings(row, episodes)
			if err != nil {
				t.Fatal(err)
			}
			groups = append(groups, group{fmt.Sprintf("Fig. 2 ε = %g, %d episodes", row.Epsilon, episodes), s, row.Epsilon, row})
		}
	}
	sweep, err := SweepSettings()
	if err != nil {
		t.Fatal(err)
	}
	groups = append(groups, group{name: "ε sweep", settings: sweep, row: Fig2Rows()[0]})
	episodesOf := func(g string) int {
		if strings.HasSuffix(g, " 40 episodes") {
			return 40
		}
		return 100
	}
	checked := 0
	for _, g := range groups {
		var r report.Recorder
		PrivacyTable(&r, g.settings)
		if r.Tables() != 1 || len(r.Items[0].Rows) != len(g.settings) {
			t.Fatalf("%s: %d tables", g.name, r.Tables())
		}
		for i, row := range r.Items[0].Rows {
			name, label, epsCell, deltaCell, basis := row[0], row[1], row[2], row[3], row[4]
			if name != g.settings[i].Name || !strings.HasSuffix(g.settings[i].Legend(), "["+label+"]") {
				t.Errorf("%s: row %v does not match the setting's legend %q", g.name, row, g.settings[i].Legend())
			}
			printed := func() (float64, float64) {
				e, err1 := strconv.ParseFloat(epsCell, 64)
				d, err2 := strconv.ParseFloat(deltaCell, 64)
				if err1 != nil || err2 != nil {
					t.Errorf("%s / %s: ε %q, δ %q are not numbers", g.name, name, epsCell, deltaCell)
				}
				return e, d
			}
			// wantGDP checks a μ-GDP run: the printed δ is Delta, the printed ε the exact one at it.
			wantGDP := func(mu float64) {
				e, d := printed()
				if label != fmt.Sprintf("ε = %.3g", e) || d != Delta || math.Abs(e-gaussEpsilon(mu, Delta)) > 5e-4*e {
					t.Errorf("%s / %s: prints %s, ε = %s, δ = %s; the exact accountant gives ε = %.6g at δ = %g", g.name, name, label, epsCell, deltaCell, gaussEpsilon(mu, Delta), Delta)
				}
			}
			T := 50 * episodesOf(g.name)
			switch {
			case name == "random policy":
				if label != "ε = 0" || epsCell != "0" || deltaCell != "0" {
					t.Errorf("%s: random policy row %v", g.name, row)
				}
			case strings.Contains(name, "non-private") || name == "Algorithm 1 without noise":
				if label != NonPrivateLabel || epsCell != "∞" {
					t.Errorf("%s: non-private row %v", g.name, row)
				}
			case strings.HasPrefix(name, "σ = ") || strings.HasPrefix(name, "functional noise, code configuration") || name == "BGP16":
				if label != NoGuaranteeLabel || epsCell != "—" || deltaCell != "—" {
					t.Errorf("%s: %s has no guarantee but prints %v", g.name, name, row)
				}
			case strings.HasPrefix(name, "input perturbation"):
				sr, err := fnq.InputPerturbationSigma(T, g.eps, Delta)
				if err != nil {
					t.Fatal(err)
				}
				wantGDP(math.Sqrt(float64(T)) / sr)
			case strings.HasPrefix(name, "DP-SGD"):
				z, err := fnq.DPSGDNoiseMultiplier(T-127, g.eps, Delta)
				if err != nil {
					t.Fatal(err)
				}
				wantGDP(math.Sqrt(float64(T-127)) / z)
			case strings.HasPrefix(name, "Algorithm 1, published"):
				_, _, _, _, level := theorem5(g.eps, Delta, g.row.LR, g.row.K, 2, Samples, 128)
				margin := 2*g.row.K - level
				if margin >= 0 || label != NoGuaranteeLabel || !strings.Contains(basis, fmt.Sprintf("= %.0f)", margin)) {
					t.Errorf("%s: published Algorithm 1 (margin %.1f) prints %v", g.name, margin, row)
				}
			case strings.HasPrefix(name, "Algorithm 1, corrected"):
				eps := g.eps
				if eps == 0 {
					if _, err := fmt.Sscanf(name, "Algorithm 1, corrected, ε = %g", &eps); err != nil {
						t.Fatalf("%s: %q: %v", g.name, name, err)
					}
				}
				var k float64
				if _, err := fmt.Sscanf(name[strings.Index(name, "(k = "):], "(k = %g,", &k); err != nil {
					t.Fatalf("%s: %q: %v", g.name, name, err)
				}
				// Run it once and read the σ that runs.
				cal, err := Corrected(Alg1Calibration(eps, g.row.LR, g.row.K))
				if err != nil || cal.K != k || !cal.MActionCorrection || math.Abs(cal.Delta-0.99*Delta) > 1e-12*Delta {
					t.Fatalf("%s: %s: the corrected calibration %+v (%v) is not the one named", g.name, name, cal, err)
				}
				env, _ := envs.Make("wanghegde")
				res, err := fnq.RunSpecified(env, fnq.SpecifiedConfig{Calibration: cal, UseGDPSigma: true, Explore: 0.1, Src: rand.NewPCG(1, 1)})
				if err != nil {
					t.Fatal(err)
				}
				_, beta, c1, _, _ := theorem5(eps, Delta, g.row.LR, k, 2, Samples, 128)
				sigma := res.Sigma
				steps := Samples / 128
				mu := math.Sqrt(float64(Actions*steps)*c1) / sigma
				level := 8.68 * math.Sqrt(beta) * sigma
				tail := 2 * float64(Actions*steps) * math.Exp(-(k-level)*(k-level)/(2*sigma*sigma))
				e, d := printed()
				trueEps := gaussEpsilon(mu, cal.Delta)
				if 2*k <= level || k <= level || math.Abs(e-trueEps) > 5e-4*e || math.Abs(e-eps) > 1e-9 ||
					math.Abs(d-(cal.Delta+tail)) > 0.01*d || d > Delta || label != fmt.Sprintf("ε = %g", eps) {
					t.Errorf("%s: %s prints ε = %s, δ = %s; exact: ε = %.6g at δ = %.4g + tail %.3g (k = %g, 8.68√β·σ = %.1f)", g.name, name, epsCell, deltaCell, trueEps, cal.Delta, tail, k, level)
				}
			default:
				t.Errorf("%s: setting %q not checked", g.name, name)
				continue
			}
			checked++
		}
	}
	if checked != 2*(9+2*9)+8 {
		t.Errorf("checked %d configurations", checked)
	}
}

// TestCorrectedIsSmallest: the corrected k is the smallest integer at which the corrected tail fits its share
// of δ, and the calibration it returns is (ε, δ)-DP with both outputs.
func TestCorrectedIsSmallest(t *testing.T) {
	for _, row := range Fig2Rows() {
		c, err := Corrected(Alg1Calibration(row.Epsilon, row.LR, row.K))
		if err != nil {
			t.Fatal(err)
		}
		fits := func(k float64) bool {
			c.K = k
			x, err := c.Compute()
			if err != nil {
				t.Fatal(err)
			}
			tl := c.TailAt(x.Beta, x.SigmaGDP)
			return tl.Covered && tl.Conservative <= TailShare*Delta
		}
		k := c.K
		if !c.MActionCorrection || math.Abs(c.Delta-0.99*Delta) > 1e-12*Delta || !fits(k) || fits(k-1) || k != math.Floor(k) {
			t.Errorf("ε = %g: k* = %g, correction %v, δ' = %g", row.Epsilon, k, c.MActionCorrection, c.Delta)
		}
	}
}

// The corrected calibration of Algorithm 1 at the two Fig. 2 settings (L = 2, a fresh path every step).
func ExampleCorrected() {
	for _, row := range Fig2Rows() {
		c, _ := Corrected(Alg1Calibration(row.Epsilon, row.LR, row.K))
		k, _ := c.Compute()
		fmt.Printf("ε = %g: k = %g (paper %g), σ = %.3g (Theorem 5 at the paper's k: not covered)\n", row.Epsilon, c.K, row.K, k.SigmaGDP)
	}
	// Output:
	// ε = 0.9: k = 551 (paper 210), σ = 2.15 (Theorem 5 at the paper's k: not covered)
	// ε = 0.45: k = 1016 (paper 420), σ = 3.54 (Theorem 5 at the paper's k: not covered)
}
