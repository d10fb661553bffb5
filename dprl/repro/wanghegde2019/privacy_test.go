package wanghegde2019

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/dprl-project/dprl/dprl/fnq"
	"github.com/dprl-project/dprl/dprl/repro"
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

// feasibleArms are the configurations of the selection grid Choose may choose (and the worked settings'):
// every one the notebook can run with a guarantee.
func feasibleArms(t *testing.T) []Alg1Arm {
	var out []Alg1Arm
	for _, c := range SelectionGrid() {
		a, err := NewAlg1Arm(c)
		if err != nil {
			t.Fatal(err)
		}
		if a.Feasible() {
			out = append(out, a)
		}
	}
	if len(out) == 0 {
		t.Fatal("no feasible configuration in the selection grid")
	}
	return out
}

// TestTruePrivacy asserts, for every setting the notebook can run (Fig. 1; Fig. 2 and the ε sweep with any
// configuration Choose can choose; at the default size and in quick mode), that the privacy table it prints
// gives the ε of the exact accountant, written out independently here, at the δ it prints, and that every
// setting without a guarantee is labelled so. Algorithm 1's corrected runs are run once to read the σ that
// actually runs.
func TestTruePrivacy(t *testing.T) {
	arms := feasibleArms(t)
	var settings []Setting
	episodesOf := map[string]int{}
	add := func(episodes int, s []Setting) {
		for _, x := range s {
			if _, ok := episodesOf[x.Name]; !ok {
				episodesOf[x.Name] = episodes
				settings = append(settings, x)
			}
		}
	}
	for _, episodes := range []int{100, 40} {
		add(episodes, Fig1Settings(episodes))
		for i, a := range arms {
			if episodes == 40 && i > 0 {
				break // the DQN baselines depend on the episodes, Algorithm 1 does not
			}
			ch := &Choice{Selection: &Selection{Arms: arms}, Chosen: i, RunnerUp: (i + 1) % len(arms)}
			panels, s, err := Fig2Settings(ch, episodes)
			if err != nil {
				t.Fatal(err)
			}
			add(episodes, s)
			_, sweep, err := SweepSettings(a.Config, panels)
			if err != nil {
				t.Fatal(err)
			}
			add(episodes, sweep)
		}
	}
	header, rows := PrivacyTable(settings)
	if len(header) != 5 || len(rows) != len(settings) {
		t.Fatalf("%d columns, %d rows for %d settings", len(header), len(rows), len(settings))
	}
	checked := 0
	for i, row := range rows {
		name, label, epsCell, deltaCell, basis := row[0], row[1], row[2], row[3], row[4]
		if name != settings[i].Name || !strings.HasSuffix(settings[i].Legend(), "["+label+"]") {
			t.Errorf("row %v does not match the setting's legend %q", row, settings[i].Legend())
		}
		printed := func() (float64, float64) {
			e, err1 := strconv.ParseFloat(epsCell, 64)
			d, err2 := strconv.ParseFloat(deltaCell, 64)
			if err1 != nil || err2 != nil {
				t.Errorf("%s: ε %q, δ %q are not numbers", name, epsCell, deltaCell)
			}
			return e, d
		}
		// wantGDP checks a μ-GDP run: the printed δ is Delta, the printed ε the exact one at it.
		wantGDP := func(mu float64) {
			e, d := printed()
			if label != fmt.Sprintf("ε = %.3g", e) || d != Delta || math.Abs(e-gaussEpsilon(mu, Delta)) > 5e-4*e {
				t.Errorf("%s: prints %s, ε = %s, δ = %s; the exact accountant gives ε = %.6g at δ = %g", name, label, epsCell, deltaCell, gaussEpsilon(mu, Delta), Delta)
			}
		}
		epsOf := func(prefix string) float64 {
			var eps float64
			if _, err := fmt.Sscanf(strings.TrimPrefix(name, prefix), "%g", &eps); err != nil {
				t.Fatalf("%q: %v", name, err)
			}
			return eps
		}
		// config reads "(B = …, α = …, γ = …, k = …, σ = …)" from an Algorithm 1 setting's name.
		config := func() (Alg1Config, float64) {
			var c Alg1Config
			var k, sigma float64
			if _, err := fmt.Sscanf(name[strings.LastIndex(name, "(B = "):], "(B = %d, α = %g, γ = %g, k = %g, σ = %g)", &c.B, &c.LR, &c.Gamma, &k, &sigma); err != nil {
				t.Fatalf("%q: %v", name, err)
			}
			return c, k
		}
		T := 50 * episodesOf[name]
		switch {
		case name == RandomName:
			if label != "ε = 0" || epsCell != "0" || deltaCell != "0" {
				t.Errorf("random policy row %v", row)
			}
		case name == NonPrivateName || strings.HasPrefix(name, "Alg. 1 without noise"):
			if label != NonPrivateLabel || epsCell != "∞" {
				t.Errorf("non-private row %v", row)
			}
		case strings.HasPrefix(name, "σ = ") || strings.HasPrefix(name, "functional noise, code configuration") || strings.HasPrefix(name, "BGP16"):
			if label != NoGuaranteeLabel || epsCell != "—" || deltaCell != "—" {
				t.Errorf("%s has no guarantee but prints %v", name, row)
			}
		case strings.HasPrefix(name, "input perturbation"):
			sr, err := fnq.InputPerturbationSigma(T, epsOf("input perturbation, ε = "), Delta)
			if err != nil {
				t.Fatal(err)
			}
			wantGDP(math.Sqrt(float64(T)) / sr)
		case strings.HasPrefix(name, "DP-SGD"):
			z, err := fnq.DPSGDNoiseMultiplier(T-127, epsOf("DP-SGD, ε = "), Delta)
			if err != nil {
				t.Fatal(err)
			}
			wantGDP(math.Sqrt(float64(T-127)) / z)
		case strings.HasPrefix(name, "Alg. 1 as printed"):
			c, k := config()
			_, _, _, _, level := theorem5(epsOf("Alg. 1 as printed, ε = "), Delta, c.LR, k, 2, Samples, c.B)
			margin := 2*k - level
			if margin >= 0 || label != NoGuaranteeLabel || !strings.Contains(basis, fmt.Sprintf("= %.0f)", margin)) {
				t.Errorf("Theorem 5 as printed (margin %.1f) prints %v", margin, row)
			}
		case strings.HasPrefix(name, "Alg. 1 corrected"):
			eps := epsOf("Alg. 1 corrected, ε = ")
			c, k := config()
			cal, err := Corrected(c.Calibration(eps, 1))
			if err != nil || cal.K != k || !cal.MActionCorrection || math.Abs(cal.Delta-0.99*Delta) > 1e-12*Delta {
				t.Fatalf("%s: the corrected calibration %+v (%v) is not the one named", name, cal, err)
			}
			env, _ := envs.Make("wanghegde")
			res, err := fnq.RunSpecified(env, fnq.SpecifiedConfig{Calibration: cal, UseGDPSigma: true, Gamma: c.Gamma, Explore: 0.1, Src: rand.NewPCG(1, 1)})
			if err != nil {
				t.Fatal(err)
			}
			_, beta, c1, _, _ := theorem5(eps, Delta, c.LR, k, 2, Samples, c.B)
			sigma, steps := res.Sigma, Samples/c.B
			mu := math.Sqrt(float64(Actions*steps)*c1) / sigma
			level := 8.68 * math.Sqrt(beta) * sigma
			tail := 2 * float64(Actions*steps) * math.Exp(-(k-level)*(k-level)/(2*sigma*sigma))
			e, d := printed()
			trueEps := gaussEpsilon(mu, cal.Delta)
			if 2*k <= level || k <= level || math.Abs(e-trueEps) > 5e-4*e || e > eps*(1+1e-9) || math.Abs(e-eps) > 1e-6 ||
				math.Abs(d-(cal.Delta+tail)) > 0.01*d || d > Delta || label != fmt.Sprintf("ε = %g", eps) {
				t.Errorf("%s prints ε = %s, δ = %s; exact: ε = %.6g at δ = %.4g + tail %.3g (k = %g, 8.68√β·σ = %.1f)", name, epsCell, deltaCell, trueEps, cal.Delta, tail, k, level)
			}
		default:
			t.Errorf("setting %q not checked", name)
			continue
		}
		checked++
	}
	if checked != len(settings) || checked < 2*9+len(arms)*8 {
		t.Errorf("checked %d of %d settings", checked, len(settings))
	}
}

// TestCertified: a claim lists a private setting at its panel's target (ε, δ) only when the setting's exact ε
// and δ do not exceed it.
func TestCertified(t *testing.T) {
	ok := Setting{Name: "x", Privacy: Privacy{Guarantee: true, Epsilon: 0.9 - 1e-12, Delta: 0.99e-4}}
	if p, err := certified(ok, "m", 0.9); err != nil || p != (repro.Privacy{Method: "m", Epsilon: 0.9, Delta: Delta}) {
		t.Errorf("%+v %v", p, err)
	}
	for _, bad := range []Privacy{{Guarantee: true, Epsilon: 0.91, Delta: Delta}, {Guarantee: true, Epsilon: 0.9, Delta: 2e-4}, noGuarantee("none"), nonPrivate("np")} {
		if _, err := certified(Setting{Name: "y", Privacy: bad}, "m", 0.9); err == nil {
			t.Errorf("%+v certified at (0.9, 1e-4)", bad)
		}
	}
}

// TestCorrectedIsSmallest: the corrected k is the smallest integer at which the corrected tail fits its share
// of δ, and the calibration it returns is (ε, δ)-DP with both outputs.
func TestCorrectedIsSmallest(t *testing.T) {
	for _, eps := range Fig2Epsilons {
		w, _ := WorkedConfig(eps)
		for _, cfg := range []Alg1Config{w, {B: 512, LR: 0.1, Gamma: 0.5}} {
			c, err := Corrected(cfg.Calibration(eps, 1))
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
				t.Errorf("ε = %g, %s: k* = %g, correction %v, δ' = %g", eps, cfg, k, c.MActionCorrection, c.Delta)
			}
		}
	}
	// Past the step-size ceiling no tail level will do.
	if _, err := Corrected(Alg1Config{B: 32, LR: 0.3, Gamma: 0.5}.Calibration(0.9, 1)); !noTailLevel(err) {
		t.Errorf("B = 32, α = 0.3: %v, want no tail level", err)
	}
}

// The corrected calibration of Algorithm 1 at the worked settings (ours) of Fig. 2 (L = 2, a fresh path every
// step), beside the tail level the worked setting uses with Theorem 5 as printed.
func ExampleCorrected() {
	for _, eps := range Fig2Epsilons {
		w, k0 := WorkedConfig(eps)
		c, _ := Corrected(w.Calibration(eps, k0))
		k, _ := c.Compute()
		fmt.Printf("ε = %g: k = %g (as printed: %g), σ = %.3g\n", eps, c.K, k0, k.SigmaGDP)
	}
	// Output:
	// ε = 0.9: k = 551 (as printed: 210), σ = 2.15
	// ε = 0.45: k = 1016 (as printed: 420), σ = 3.54
}
