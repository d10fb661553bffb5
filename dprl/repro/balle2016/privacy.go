package balle2016

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/dprl-project/dprl/dprl/policyeval"
	"github.com/dprl-project/dprl/dprl/report"
)

// Config is one kind of private release the notebook runs: DP-LSW, or DP-LSL with one of its two bounds,
// on the tabular (Aggregate = 1, d = 39) or paired (Aggregate = 2, d = 20) features. Every private estimate
// of the notebook is a Config's release in one of the Arms (Config.release).
type Config struct {
	Name      string // as in the figures' legends
	LSL       bool   // DP-LSL (else DP-LSW)
	Bound     policyeval.LSLBound
	Aggregate int
}

// The private configurations of the notebook.
var (
	lswTabular      = Config{Name: "DP-LSW, tabular", Aggregate: 1}
	lswPairs        = Config{Name: "DP-LSW, pairs", Aggregate: 2}
	lslPaperTabular = Config{Name: "DP-LSL (paper bound), tabular", LSL: true, Bound: policyeval.LSLPaper, Aggregate: 1}
	lslPaperPairs   = Config{Name: "DP-LSL (paper bound), pairs", LSL: true, Bound: policyeval.LSLPaper, Aggregate: 2}
	lslSafeTabular  = Config{Name: "DP-LSL (safe bound), tabular", LSL: true, Bound: policyeval.LSLSafe, Aggregate: 1}
)

// Configs lists every private configuration the notebook runs.
func Configs() []Config {
	return []Config{lswTabular, lswPairs, lslPaperTabular, lslPaperPairs, lslSafeTabular}
}

// release runs the configuration on a batch in an arm (its bound F and privacy): DP-LSW ignores the
// schedule; DP-LSL uses λ = Lambda(power, c, m).
func (c Config) release(s *Setup, sig *policyeval.Signature, arm Arm, power, sched float64, src rand.Source) (*policyeval.Release, error) {
	p := s.Problem(c.Aggregate, arm.F)
	if !c.LSL {
		return policyeval.DPLSW(p, sig, arm.Privacy(), false, src)
	}
	lambda, err := Lambda(p, power, sched, sig.M)
	if err != nil {
		return nil, err
	}
	return policyeval.DPLSL(p, sig, lambda, arm.Privacy(), c.Bound, src)
}

// Lemma1Epsilon is the ε that Lemma 1 of Balle et al. (Nissim, Raskhodnikova & Smith's Gaussian
// smooth-sensitivity mechanism) certifies for noise σ = α·S_β with the given α and β in dimension d at δ:
// α = 5√(2 ln(2/δ))/ε and β = ε/(4(d + ln(2/δ))) solved for ε, the larger of the two (the lemma needs both;
// it is stated for ε ≤ 1).
func Lemma1Epsilon(alpha, beta, delta float64, d int) float64 {
	l := math.Log(2 / delta)
	return math.Max(5*math.Sqrt(2*l)/alpha, 4*beta*(float64(d)+l))
}

// Guarantee is a configuration's privacy at one δ of the arms, as the notebook prints it: the constants the
// code used, the ε Lemma 1 certifies for them at δ, and the noise on the m = 1000 batch of NoiseScales
// with the bounds F = 1 and F = 100 (DP-LSL at c = 100 on the code's schedule).
type Guarantee struct {
	Config
	D              int
	Alpha, Beta    float64 // as used by the release
	Epsilon, Delta float64 // Lemma1Epsilon of the constants used, and δ
	Sigma          [2]float64
	Holds          string // why Lemma 1 applies (the smooth bound it rests on)
}

// guaranteeArms are the arms of the guarantee table: one per δ of Arms, and per bound F its σ.
var guaranteeArms = [][2]Arm{{ArmPublic, ArmCodeBound}, {ArmCodeDelta, {Name: "F = 100, δ = 0.05", F: 100, Delta: 0.05}}}

// Guarantees computes the Guarantee of every configuration of Configs at every δ of Arms.
func Guarantees() ([]Guarantee, error) {
	s, err := NewSetup()
	if err != nil {
		return nil, err
	}
	sig, err := s.Batch(1000, rand.NewPCG(2016, 1000))
	if err != nil {
		return nil, err
	}
	var out []Guarantee
	for _, c := range Configs() {
		for _, arms := range guaranteeArms {
			g := Guarantee{Config: c, Delta: arms[0].Delta}
			for i, arm := range arms {
				r, err := c.release(s, sig, arm, CodePower, 100, rand.NewPCG(1, 1))
				if err != nil {
					return nil, err
				}
				g.Alpha, g.Beta, g.Sigma[i] = r.Alpha, r.Beta, r.Sigma
			}
			p := s.Problem(c.Aggregate, 1)
			_, g.D = p.Phi.Dims()
			g.Epsilon = Lemma1Epsilon(g.Alpha, g.Beta, g.Delta, g.D)
			g.Holds = "Theorem 6: α·F·‖(Γ^{1/2}Φ)⁺‖₂·√Ψ_β is α times a β-smooth bound on the local sensitivity (Lemmas 2–5; spectral norm, the authors' code used the larger Frobenius norm)"
			if c.LSL && c.Bound == policyeval.LSLSafe {
				g.Holds = "the safe bound: a β-smooth bound on the local sensitivity for every λ > 0 (package doc of dprl/policyeval)"
			} else if c.LSL {
				ok, err := paperDominatesSafe(p)
				if err != nil {
					return nil, err
				}
				g.Holds = "through the safe bound, not the paper's derivation: its σ has the same max-over-k (β-smooth) form and is at least the safe bound's σ for every dataset and every λ > ‖ρ‖∞‖Φ‖_F² (here ‖Φ‖_F² ≥ 2‖Φ‖₂², F_max = F_range)"
				if !ok {
					g.Holds = "NO GUARANTEE: the paper's bound does not dominate the safe one on these features"
				}
			}
			out = append(out, g)
		}
	}
	return out, nil
}

// paperDominatesSafe says whether DP-LSL's paper bound gives at least the safe bound's noise for every
// dataset and every admissible λ on p. Both smooth bounds are max_k e^{−kβ}(a + b·√R(k))² with the same β
// and R(k) = Σ_s ρ_s min(n_s + k, m), times a scale; the paper's constant term F_max‖Φ‖_F‖ρ‖₂/(λ − λ₀) is at
// least the safe F_range‖Φ‖₂‖ρ‖₂/λ when F_max‖Φ‖_F ≥ F_range‖Φ‖₂ (λ − λ₀ < λ), and the ratio of the
// √R terms, paper over safe, is ‖Φ‖_F²·λ/(2‖Φ‖₂²(λ − λ₀)) ≥ ‖Φ‖_F²/(2‖Φ‖₂²): it is at least 1 when
// ‖Φ‖_F² ≥ 2‖Φ‖₂².
func paperDominatesSafe(p *policyeval.Problem) (bool, error) {
	var svd mat.SVD
	if !svd.Factorize(p.Phi, mat.SVDNone) {
		return false, fmt.Errorf("balle2016: SVD of the features failed")
	}
	spec := svd.Values(nil)[0]
	frob := mat.Norm(p.Phi, 2)
	return p.FMax*frob >= p.FRange*spec && frob*frob >= 2*spec*spec, nil
}

// ShowGuarantees shows, before any result, the privacy of every private release of the notebook: the
// guarantee as the theorem gives it, the constants and noise the code actually uses, and the ε that
// Lemma 1 certifies for those constants (the same for every configuration: no claim compares releases at
// different (ε, δ)).
func ShowGuarantees(out report.Sink) error {
	gs, err := Guarantees()
	if err != nil {
		return err
	}
	var rows [][]string
	for _, g := range gs {
		rows = append(rows, []string{g.Name, fmt.Sprint(g.D), fmt.Sprintf("%.4g", g.Alpha), fmt.Sprintf("%.4g", g.Beta),
			fmt.Sprintf("%.3g", g.Epsilon), fmt.Sprintf("%.3g", g.Delta), fmt.Sprintf("%.3g", g.Sigma[0]), fmt.Sprintf("%.3g", g.Sigma[1]), g.Holds})
	}
	out.Markdown("**Privacy of every release in this notebook.** Each is one Gaussian release θ̂ + N(0, σ(X)²I_d) " +
		"with σ(X) = α·S_β(X), S_β a β-smooth upper bound on the local sensitivity; Lemma 1 (Nissim, Raskhodnikova & Smith) " +
		"makes it (ε, δ)-DP under replace-one neighbours (one whole trajectory replaced; m public) when α ≥ 5√(2 ln(2/δ))/ε " +
		"and β ≤ ε/(4(d + ln(2/δ))), ε ≤ 1. No composition: each estimate is a single release. ε = 0.1 everywhere (the " +
		"authors' code); δ = 0.1 (as recalled from the paper) in the claims, δ = 0.05 (the authors' March 2016 code) as an " +
		"alternative; every claim compares releases at the same (ε, δ). The ε column is what Lemma 1 certifies for the α and " +
		"β the code used. σ is the noise on one m = 1000 batch (DP-LSL at c = 100, λ ∝ m^0.4) with the public return bound " +
		"F = 1 (every return of the chain is in [0, 1]) and with the authors' code's F = R_max/(1 − γ) = 100; the bound " +
		"changes the noise, not the guarantee. δ = 0.1 is weak (a failure probability of one in ten): the paper's value is not legible.")
	out.Table([]string{"release", "d", "α used", "β used", "ε (Lemma 1)", "δ", "σ, m = 1000, F = 1", "σ, F = 100", "why the lemma applies"}, rows)
	return nil
}
