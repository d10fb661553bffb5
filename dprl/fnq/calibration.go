package fnq

import (
	"math"

	"github.com/dprl-project/dprl/dprl/param"
	"github.com/dprl-project/dprl/mechanisms"
)

// Calibration holds Theorem 5's inputs.
type Calibration struct {
	Epsilon, Delta float64
	T, B           int     // samples and batch size: T′ = T/B SGD steps
	LR             float64 // α
	L              float64 // the network's Lipschitz bound
	K              float64 // the tail level k
	Actions        int     // m
	Resets         int     // J, independent sample paths over the run
	// MActionCorrection multiplies the sensitivity by √m: all m output functions change at every step and m
	// paths are added (package doc, "Corrections"); Theorem 5 as printed uses one action's sensitivity.
	MActionCorrection bool
}

// Constants are Theorem 5's derived quantities and the two noise levels.
type Constants struct {
	Steps     int     // T′ = T/B
	V         float64 // v = 4α(k+1)/B: sup-norm change of Q per unit of reward change, over L
	NormSq    float64 // C = (v² + v)L²: the squared RKHS sensitivity (Lemma 6 with β = 1/v)
	Beta      float64 // β = 1/v, the kernel's rate
	SigmaThm5 float64 // σ = √(2T′ ln(e + ε/δ)·C)/ε (×√m with the correction)
	SigmaGDP  float64 // the smallest σ whose exact μ-GDP profile, μ = √(T′C)/σ, meets (ε, δ)
	// EpsilonGDP and EpsilonKOV are the ε at δ of SigmaThm5 exactly and by the proof's KOV formula.
	EpsilonGDP, EpsilonKOV float64
	// TailMargin is 2k − 8.68√β σ (Theorem 5 needs it positive); TailPaper the paper's tail term
	// J·exp(−margin²/2); TailConservative 2mJ·exp(−(k − 8.68√βσ)²/(2σ²)), the corrected Lemma 8 with both
	// signs, every action and σ in the exponent (package doc, "Corrections"). All at σ = SigmaThm5 (TailAt
	// gives them at any σ).
	TailMargin, TailPaper, TailConservative float64
	// Covered says whether Theorem 5's precondition 2k > 8.68√β·σ holds at σ = SigmaThm5 (TailMargin > 0).
	// When it does not, the theorem certifies nothing: TailPaper and TailConservative are then 1, a
	// placeholder, not a bound.
	Covered bool
}

// Tail is Theorem 5's tail at one path noise σ: the chance that a path leaves [−k, k], which the guarantee
// adds to δ, and the precondition under which the theorem bounds it.
type Tail struct {
	Level   float64 // 8.68√β·σ, the proof's bound on a path's expected supremum
	Margin  float64 // 2k − Level: Theorem 5's precondition is Margin > 0
	Covered bool    // Margin > 0: the theorem as printed applies
	// Paper is the printed tail term J·exp(−Margin²/2) and Conservative the corrected 2mJ·exp(−(k −
	// Level)²/(2σ²)) (package doc, "Corrections"); each is 1 where its precondition fails (not Covered,
	// respectively k ≤ Level): no bound.
	Paper, Conservative float64
}

// TailAt is the tail at path noise sigma for the kernel rate beta (Constants.Beta), with this
// calibration's k, m and J.
func (c Calibration) TailAt(beta, sigma float64) Tail {
	t := Tail{Level: 8.68 * math.Sqrt(beta) * sigma, Paper: 1, Conservative: 1}
	t.Margin = 2*c.K - t.Level
	t.Covered = t.Margin > 0
	if t.Covered {
		t.Paper = math.Min(1, float64(c.Resets)*math.Exp(-t.Margin*t.Margin/2))
	}
	if u := c.K - t.Level; u > 0 {
		t.Conservative = math.Min(1, 2*float64(c.Actions*c.Resets)*math.Exp(-u*u/(2*sigma*sigma)))
	}
	return t
}

// Validate checks the inputs' ranges.
func (c Calibration) Validate() error {
	return param.First(
		check.In("Epsilon", c.Epsilon, param.OpenUnit), // Proposition 4 needs ε < 1
		check.In("Delta", c.Delta, param.OpenUnit),
		check.AtLeast("B", c.B, 1), check.AtLeast("T", c.T, max(c.B, 1)),
		check.In("LR", c.LR, param.Positive), check.In("L", c.L, param.Positive), check.In("K", c.K, param.Positive),
		check.AtLeast("Actions", c.Actions, 1), check.AtLeast("Resets", c.Resets, 1))
}

// Compute derives the constants.
func (c Calibration) Compute() (*Constants, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	k := &Constants{Steps: c.T / c.B}
	k.V = 4 * c.LR * (c.K + 1) / float64(c.B)
	k.NormSq = (k.V*k.V + k.V) * c.L * c.L
	if c.MActionCorrection {
		k.NormSq *= float64(c.Actions)
	}
	k.Beta = 1 / k.V
	sens := math.Sqrt(k.NormSq)
	var err error
	if k.SigmaThm5, err = mechanisms.KOVGaussianSigma(k.Steps, sens, c.Epsilon, c.Delta); err != nil {
		return nil, err
	}
	muPerSigma := math.Sqrt(float64(k.Steps)) * sens // μ·σ
	if k.SigmaGDP, err = mechanisms.CalibrateNoise(c.Epsilon, 1e-6*muPerSigma, 1e6*muPerSigma, func(s float64) (float64, error) {
		return mechanisms.GDPEpsilon(muPerSigma/s, c.Delta)
	}); err != nil {
		return nil, err
	}
	if k.EpsilonGDP, err = mechanisms.GDPEpsilon(muPerSigma/k.SigmaThm5, c.Delta); err != nil {
		return nil, err
	}
	if k.EpsilonKOV, err = mechanisms.KOVGaussianEpsilon(k.Steps, sens, k.SigmaThm5, c.Delta); err != nil {
		return nil, err
	}
	t := c.TailAt(k.Beta, k.SigmaThm5)
	k.TailMargin, k.TailPaper, k.TailConservative, k.Covered = t.Margin, t.Paper, t.Conservative, t.Covered
	return k, nil
}

// InputPerturbationSigma is the reward noise of Venkitasubramaniam's input perturbation for T released
// rewards, each of sensitivity 1, composed exactly as μ-GDP with μ = √T/σ_r.
func InputPerturbationSigma(T int, eps, delta float64) (float64, error) {
	if T < 1 {
		return 0, check.AtLeast("T", T, 1)
	}
	return gdpSigma(math.Sqrt(float64(T)), eps, delta)
}

// DPSGDNoiseMultiplier is the noise multiplier z (noise std z·2B·C_g on the clipped sum, i.e. 2z·C_g on the
// averaged gradient) for steps DP-SGD steps when every example of every batch may differ between the two
// reward functions: the clipped sum's sensitivity is 2B·C_g and there is no amplification by subsampling, so
// each step is 1/z-GDP and the run √steps/z-GDP.
func DPSGDNoiseMultiplier(steps int, eps, delta float64) (float64, error) {
	if steps < 1 {
		return 0, check.AtLeast("steps", steps, 1)
	}
	return gdpSigma(math.Sqrt(float64(steps)), eps, delta)
}

// gdpSigma is the σ with GDPEpsilon(scale/σ, δ) = ε.
func gdpSigma(scale, eps, delta float64) (float64, error) {
	if err := param.First(check.In("epsilon", eps, param.Positive), check.In("delta", delta, param.OpenUnit)); err != nil {
		return 0, err
	}
	return mechanisms.CalibrateNoise(eps, 1e-6*scale, 1e6*scale, func(s float64) (float64, error) {
		return mechanisms.GDPEpsilon(scale/s, delta)
	})
}
