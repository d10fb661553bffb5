package balle2016

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/dprl-project/dprl/dprl/policyeval"
	"github.com/dprl-project/dprl/dprl/report"
)

// Config is one private release the notebook runs: DP-LSW, or DP-LSL with one of its two bounds, on the
// tabular (Aggregate = 1, d = 39) or paired (Aggregate = 2, d = 20) features, always at Privacy() with the
// code's return bound F = 100.
type Config struct {
	Name      string // as in the figures' legends
	LSL       bool   // DP-LSL (else DP-LSW)
	Bound     policyeval.LSLBound
	Aggregate int
}

// The private configurations of the notebook; every private estimate of NoiseScales, Panel2 and Panels34
// comes from one of them (through Config.release).
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

// release runs the configuration on a batch: DP-LSW ignores the schedule constant c; DP-LSL uses
// λ = LambdaSchedule(c, m).
func (c Config) release(s *Setup, sig *policyeval.Signature, sched float64, src rand.Source) (*policyeval.Release, error) {
	p := s.Problem(c.Aggregate, 100)
	if !c.LSL {
		return policyeval.DPLSW(p, sig, Privacy(), false, src)
	}
	lambda, err := policyeval.LambdaSchedule(p, sched, sig.M)
	if err != nil {
		return nil, err
	}
	return policyeval.DPLSL(p, sig, lambda, Privacy(), c.Bound, src)
}

// Lemma1Epsilon is the ε that Lemma 1 of Balle et al. (Nissim, Raskhodnikova & Smith's Gaussian
// smooth-sensitivity mechanism) certifies for noise σ = α·S_β with the given α and β in dimension d at δ:
// α = 5√(2 ln(2/δ))/ε and β = ε/(4(d + ln(2/δ))) solved for ε, the larger of the two (the lemma needs both;
// it is stated for ε ≤ 1).
func Lemma1Epsilon(alpha, beta, delta float64, d int) float64 {
	l := math.Log(2 / delta)
	return math.Max(5*math.Sqrt(2*l)/alpha, 4*beta*(float64(d)+l))
}

// Guarantee is a configuration's privacy as the notebook prints it: the constants the code used, the ε
// Lemma 1 certifies for them at δ, and the noise on the m = 1000 batch of NoiseScales (c = 100 for DP-LSL).
type Guarantee struct {
	Config
	D              int
	Alpha, Beta    float64 // as used by the release
	Epsilon, Delta float64 // Lemma1Epsilon of the constants used, and δ
	Sigma          float64
	Holds          string // why Lemma 1 applies (the smooth bound it rests on)
}

// Guarantees computes the Guarantee of every configuration of Configs.
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
		r, err := c.release(s, sig, 100, rand.NewPCG(1, 1))
		if err != nil {
			return nil, err
		}
		p := s.Problem(c.Aggregate, 100)
		_, d := p.Phi.Dims()
		holds := "Theorem 6: α·F·‖(Γ^{1/2}Φ)⁺‖₂·√Ψ_β is α times a β-smooth bound on the local sensitivity (Lemmas 2–5; spectral norm, the authors' code used the larger Frobenius norm)"
		if c.LSL && c.Bound == policyeval.LSLSafe {
			holds = "the safe bound: a β-smooth bound on the local sensitivity for every λ > 0 (package doc of dprl/policyeval)"
		} else if c.LSL {
			ok, err := paperDominatesSafe(p)
			if err != nil {
				return nil, err
			}
			holds = "through the safe bound, not the paper's derivation: its σ has the same max-over-k (β-smooth) form and is at least the safe bound's σ for every dataset and every λ > ‖ρ‖∞‖Φ‖_F² (here ‖Φ‖_F² ≥ 2‖Φ‖₂², F_max = F_range)"
			if !ok {
				holds = "NO GUARANTEE: the paper's bound does not dominate the safe one on these features"
			}
		}
		out = append(out, Guarantee{Config: c, D: d, Alpha: r.Alpha, Beta: r.Beta, Delta: Privacy().Delta,
			Epsilon: Lemma1Epsilon(r.Alpha, r.Beta, Privacy().Delta, d), Sigma: r.Sigma, Holds: holds})
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
// Lemma 1 certifies for those constants (the same for every configuration: no figure compares releases at
// different ε).
func ShowGuarantees(out report.Sink) error {
	gs, err := Guarantees()
	if err != nil {
		return err
	}
	var rows [][]string
	for _, g := range gs {
		rows = append(rows, []string{g.Name, fmt.Sprint(g.D), fmt.Sprintf("%.4g", g.Alpha), fmt.Sprintf("%.4g", g.Beta),
			fmt.Sprintf("%.3g", g.Epsilon), fmt.Sprintf("%.3g", g.Delta), fmt.Sprintf("%.3g", g.Sigma), g.Holds})
	}
	out.Markdown(fmt.Sprintf("**Privacy of every release in this notebook.** Each is one Gaussian release θ̂ + N(0, σ(X)²I_d) "+
		"with σ(X) = α·S_β(X), S_β a β-smooth upper bound on the local sensitivity; Lemma 1 (Nissim, Raskhodnikova & Smith) "+
		"makes it (ε, δ)-DP under replace-one neighbours (m public) when α ≥ 5√(2 ln(2/δ))/ε and β ≤ ε/(4(d + ln(2/δ))), ε ≤ 1. "+
		"No composition: each estimate is a single release; every figure and claim below compares releases at the same "+
		"(ε, δ) = (%g, %g). The ε column is what Lemma 1 certifies for the α and β the code used; σ is the noise on "+
		"the m = 1000 batch (DP-LSL at c = 100). δ = 0.1 is weak (the paper's value is not legible; see the package documentation).",
		Privacy().Epsilon, Privacy().Delta))
	out.Table([]string{"release", "d", "α used", "β used", "ε (Lemma 1)", "δ", "σ, m = 1000", "why the lemma applies"}, rows)
	return nil
}
