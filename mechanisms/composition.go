package mechanisms

import (
	"math"

	"github.com/dprl-project/dprl/dprl/param"
)

// AdvancedComposition is the advanced composition theorem (Dwork, Rothblum & Vadhan 2010; Dwork & Roth
// 2014, Thm 3.20): k mechanisms, each (ε0, δ0)-DP, compose adaptively to
// (ε0·sqrt(2k ln(1/δ̃)) + k·ε0·(e^{ε0} − 1), k·δ0 + δ̃)-DP for any slack δ̃ > 0.
func AdvancedComposition(eps0, delta0 float64, k int, deltaSlack float64) (eps, delta float64, err error) {
	if err := param.First(check.In("eps0", eps0, param.Positive), check.In("delta0", delta0, deltaRange),
		check.In("deltaSlack", deltaSlack, param.OpenUnit)); err != nil {
		return 0, 0, err
	}
	if err := check.AtLeast("k", k, 1); err != nil {
		return 0, 0, err
	}
	fk := float64(k)
	eps = eps0*math.Sqrt(2*fk*math.Log(1/deltaSlack)) + fk*eps0*math.Expm1(eps0)
	return eps, fk*delta0 + deltaSlack, nil
}

// AdvancedCompositionEps0 is the per-mechanism ε0 = ε/(2·sqrt(2k ln(1/δ̃))) of Dwork & Roth's Cor. 3.21,
// which makes k-fold composition (ε, kδ0 + δ̃)-DP. The corollary is stated for ε < 1, and its proof bounds
// the second term of AdvancedComposition, k·ε0·(e^{ε0} − 1), by ε/2, which fails at large slack (it needs
// roughly δ̃ ≤ e^{−ε/4}: at ε = 0.9, k = 10, δ̃ = 0.9 the composition is 1.58-DP, not 0.9). So ε ≥ 1 is an
// error naming epsilon, and a slack at which AdvancedComposition(ε0, 0, k, δ̃) exceeds ε is an error naming
// deltaSlack with the largest slack the corollary holds at.
func AdvancedCompositionEps0(eps float64, k int, deltaSlack float64) (float64, error) {
	if err := param.First(check.In("eps", eps, param.OpenUnit), check.In("deltaSlack", deltaSlack, param.OpenUnit)); err != nil {
		if pe, ok := err.(*ParamError); ok && pe.Param == "eps" && eps >= 1 {
			pe.Allowed += " (Dwork & Roth's Corollary 3.21 is stated for ε < 1; use AdvancedComposition or OptimalCompositionEpsilon)"
		}
		return 0, err
	}
	if err := check.AtLeast("k", k, 1); err != nil {
		return 0, err
	}
	eps0At := func(slack float64) float64 { return eps / (2 * math.Sqrt(2*float64(k)*math.Log(1/slack))) }
	holds := func(slack float64) bool {
		e, _, err := AdvancedComposition(eps0At(slack), 0, k, slack)
		return err == nil && e <= eps
	}
	if !holds(deltaSlack) {
		maxSlack := 0.0
		if holds(1e-300) {
			maxSlack = bisectSafe(holds, deltaSlack, 1e-300, 1e-6)
		}
		return 0, check.Errorf("deltaSlack", deltaSlack, "(0, %.6g]: above it Corollary 3.21's step k·ε0·(e^{ε0} − 1) ≤ ε/2 fails and the composition exceeds ε = %g (k = %d)",
			maxSlack, eps, k)
	}
	return eps0At(deltaSlack), nil
}

// MaxOptimalCompositionK is the largest k OptimalCompositionDelta and OptimalCompositionEpsilon accept:
// their sum runs over a window of about 12·√k terms around the binomial's mean.
const MaxOptimalCompositionK = 1_000_000_000

// OptimalCompositionDelta is the exact δ at ε of the k-fold composition of (ε0, δ0)-DP mechanisms (Kairouz,
// Oh & Viswanath 2015; Murtagh & Vadhan 2016, homogeneous case). The worst case is k-fold randomized
// response, whose privacy loss is (k − 2l)·ε0 with probability C(k,l)e^{(k−l)ε0}/(1+e^{ε0})^k; then
// δ(ε) = 1 − (1−δ0)^k·(1 − Σ_l P(l)(1 − e^{ε − (k−2l)ε0})_+). For large k the sum runs over the l within
// √(35k) of the mean and adds Hoeffding's bound 2e^{−70} on the probability of the rest (a pessimistic
// error of at most 1e−30). The sum's terms are all positive (no cancellation), each binomial probability is
// accurate to about 1e−13 whatever k, and the result is rounded up by a bound on its floating-point error,
// so it is never below the exact δ. k must lie in [1, MaxOptimalCompositionK].
func OptimalCompositionDelta(eps0, delta0 float64, k int, eps float64) (float64, error) {
	if err := param.First(check.In("eps0", eps0, param.Positive), check.In("delta0", delta0, deltaRange),
		check.In("epsilon", eps, param.NonNegative), check.Int("k", k, 1, MaxOptimalCompositionK)); err != nil {
		return 0, err
	}
	return optimalDelta(eps0, delta0, k, eps), nil
}

func optimalDelta(eps0, delta0 float64, k int, eps float64) float64 {
	fk := float64(k)
	// l ~ Binomial(k, p) with p = 1/(1+e^{ε0}) (q = 1 − p); outside mean ± t its probability is at most
	// 2e^{−2t²/k}.
	p, q := 1/(1+math.Exp(eps0)), 1/(1+math.Exp(-eps0))
	mean := fk * p
	t := math.Sqrt(35 * fk)
	lo, hi := max(0, int(math.Floor(mean-t))), min(k, int(math.Ceil(mean+t)))
	tail := 0.0
	if lo > 0 || hi < k {
		tail = 2 * math.Exp(-70)
	}
	// Σ over l with loss (k−2l)ε0 > ε of P(l)(1 − e^{ε − loss}): every term positive, so the sum has no
	// cancellation; loss − ε is one fused multiply-add (one rounding). ln P(l) is Loader's saddle-point form
	// every 64 terms and the ratio recurrence P(l)/P(l−1) = (k−l+1)/l·e^{−ε0} in between; errLog bounds the
	// error of each ln P(l) so far.
	var sum lse
	sum.init()
	var logP, errLog, maxErr float64
	n := 0
	for l := lo; l <= hi; l++ {
		d := math.FMA(float64(k-2*l), eps0, -eps) // loss − ε
		if d <= 0 {
			break
		}
		if (l-lo)%64 == 0 {
			logP = logBinomPMF(l, k, p, q)
			errLog = 1e-13 + 16*unitRoundoff*(1+math.Abs(logP))
		} else {
			r := math.Log(float64(k-l+1)/float64(l)) - eps0
			logP += r
			errLog += 2 * unitRoundoff * (math.Abs(logP) + math.Abs(r) + eps0)
		}
		sum.add(logP + math.Log(-math.Expm1(-d)))
		maxErr = math.Max(maxErr, errLog)
		n++
	}
	pure := 0.0
	if n > 0 {
		// The terms' own error (ln P, the factor and the exponential, a few units each) and the online
		// sum's, (n + 8) units, taken upwards.
		pure = math.Exp(sum.log() + maxErr + float64(n+16)*unitRoundoff)
	}
	pure = math.Min(1, pure+tail)
	// δ = 1 − (1−δ0)^k·(1 − pure) = −expm1(k·ln(1−δ0) + ln(1−pure)), the exponent rounded away from 0.
	x := (fk*math.Log1p(-delta0) + math.Log1p(-pure)) * (1 + 4*unitRoundoff)
	return math.Min(1, -math.Expm1(x)*(1+4*unitRoundoff))
}

// logBinomPMF is ln P(X = x) for X ~ Binomial(n, p), with q = 1 − p given separately so that neither loses
// precision, by Loader's saddle-point form (Loader 2000, as R's dbinom): ln P = stirlerr(n) − stirlerr(x) −
// stirlerr(n−x) − bd0(x, np) − bd0(n−x, nq) + ½ln(n/(2πx(n−x))), accurate to about 1e−14 whatever n
// (the form through ln C(n, x) loses |ln C|·2⁻⁵³, up to 1e−7 at n = 10⁹).
func logBinomPMF(x, n int, p, q float64) float64 {
	fx, fn := float64(x), float64(n)
	switch x {
	case 0:
		return fn * math.Log(q)
	case n:
		return fn * math.Log(p)
	}
	lc := stirlerr(fn) - stirlerr(fx) - stirlerr(fn-fx) - bd0(fx, fn*p) - bd0(fn-fx, fn*q)
	return lc + 0.5*math.Log(fn/(2*math.Pi*fx*(fn-fx)))
}

// stirlerr is ln n! − ln(√(2πn)·(n/e)^n) for an integer n ≥ 1: through the log-gamma function up to 15,
// above by its asymptotic series (Loader 2000).
func stirlerr(n float64) float64 {
	const s0, s1, s2, s3, s4 = 1.0 / 12, 1.0 / 360, 1.0 / 1260, 1.0 / 1680, 1.0 / 1188
	if n <= 15 {
		lg, _ := math.Lgamma(n + 1)
		return lg - (n+0.5)*math.Log(n) + n - 0.5*math.Log(2*math.Pi)
	}
	nn := n * n
	switch {
	case n > 500:
		return (s0 - s1/nn) / n
	case n > 80:
		return (s0 - (s1-s2/nn)/nn) / n
	case n > 35:
		return (s0 - (s1-(s2-s3/nn)/nn)/nn) / n
	}
	return (s0 - (s1-(s2-(s3-s4/nn)/nn)/nn)/nn) / n
}

// bd0 is x·ln(x/m) + m − x, the deviance term of Loader's form, computed without cancellation when x is
// close to m (by its series in v = (x − m)/(x + m)).
func bd0(x, m float64) float64 {
	if math.Abs(x-m) < 0.1*(x+m) {
		v := (x - m) / (x + m)
		s := (x - m) * v
		ej := 2 * x * v
		v *= v
		for j := 1; j < 1000; j++ {
			ej *= v
			s1 := s + ej/float64(2*j+1)
			if s1 == s {
				return s1
			}
			s = s1
		}
		return s
	}
	return x*math.Log(x/m) + m - x
}

// OptimalCompositionEpsilon is the smallest ε at which the k-fold composition of (ε0, δ0)-DP mechanisms is
// (ε, δ)-DP (the inverse of OptimalCompositionDelta), certified: the upper end of the final bisection bracket
// (relative width 1e−12), where OptimalCompositionDelta, an upper bound on the exact δ, is within δ. δ must
// exceed 1 − (1−δ0)^k and k lie in [1, MaxOptimalCompositionK].
func OptimalCompositionEpsilon(eps0, delta0 float64, k int, delta float64) (float64, error) {
	if _, err := OptimalCompositionDelta(eps0, delta0, k, 0); err != nil {
		return 0, err
	}
	if err := checkDeltaPositive(delta); err != nil {
		return 0, err
	}
	floor := -math.Expm1(float64(k) * math.Log1p(-delta0)) // 1 − (1−δ0)^k
	ok := func(e float64) bool { return optimalDelta(eps0, delta0, k, e) <= delta }
	if delta <= floor || !ok(float64(k)*eps0) {
		return 0, check.Errorf("delta", delta, "(1 − (1 − δ0)^k, 1) = (%s, 1)", param.Format(floor))
	}
	if ok(0) {
		return 0, nil
	}
	// The upper end of the final bracket, where the (rounded-up) δ is within the target.
	return bisectSafe(ok, 0, float64(k)*eps0, 1e-12), nil
}

// KOVGaussianEpsilon is the ε that Wang & Hegde (2019, Thm 5 proof, after Kairouz et al.) give for k
// Gaussian mechanisms each with sensitivity Δ and noise σ: ε = kΔ²/(2σ²) + sqrt(2kΔ²w/σ²) with
// w = ln(e + sqrt(kΔ²/σ²)/δ). It is an upper bound; GDPEpsilon(sqrt(k)·Δ/σ, δ) is exact.
func KOVGaussianEpsilon(k int, sensitivity, sigma, delta float64) (float64, error) {
	if err := param.First(checkSensitivity(sensitivity), checkSigma(sigma), checkDeltaPositive(delta)); err != nil {
		return 0, err
	}
	if err := check.AtLeast("k", k, 1); err != nil {
		return 0, err
	}
	r := float64(k) * sensitivity * sensitivity / (sigma * sigma) // kΔ²/σ²
	w := math.Log(math.E + math.Sqrt(r)/delta)
	return r/2 + math.Sqrt(2*r*w), nil
}

// KOVGaussianSigma is the sufficient noise of Wang & Hegde's Theorem 5 form for k Gaussian mechanisms:
// σ = Δ·sqrt(2k ln(e + ε/δ))/ε. The form comes from KOVGaussianEpsilon's bound by dropping its first term,
// kΔ²/(2σ²) = ε²/(4 ln(e + ε/δ)) at this σ, which is negligible only for small ε: at ε = 20, δ = 1e−5 the
// σ is exactly (22.06, 1e−5)-DP. So the form is used only where it meets the bound it is derived from,
// KOVGaussianEpsilon(k, Δ, σ, δ) ≤ ε (about ε ≤ 3 at δ = 1e−5); a larger ε is an error naming epsilon with
// the largest valid ε at this δ. There the σ is private, since KOVGaussianEpsilon bounds the exact ε from
// above. AnalyticGaussianSigma(ε, δ, √k·Δ) gives the exact, smaller σ for any ε.
func KOVGaussianSigma(k int, sensitivity, eps, delta float64) (float64, error) {
	if err := param.First(checkSensitivity(sensitivity), check.In("eps", eps, param.Positive), checkDeltaPositive(delta)); err != nil {
		return 0, err
	}
	if err := check.AtLeast("k", k, 1); err != nil {
		return 0, err
	}
	sigmaAt := func(e float64) float64 { return sensitivity * math.Sqrt(2*float64(k)*math.Log(math.E+e/delta)) / e }
	// The form's validity depends on (ε, δ) only (kΔ²/σ² = ε²/(2 ln(e + ε/δ))): check it at k = Δ = 1, so
	// that a σ overflowing for extreme k or Δ does not decide it.
	holds := func(e float64) bool {
		got, err := KOVGaussianEpsilon(1, 1, math.Sqrt(2*math.Log(math.E+e/delta))/e, delta)
		return err == nil && got <= e
	}
	if !holds(eps) {
		maxEps := bisectSafe(holds, eps, 1e-300, 1e-6)
		return 0, check.Errorf("eps", eps, "(0, %.6g] at delta = %g: Wang & Hegde's small-ε form σ = Δ·√(2k ln(e + ε/δ))/ε meets the KOV bound it is derived from only there (use AnalyticGaussianSigma for larger ε)",
			maxEps, delta)
	}
	sigma := sigmaAt(eps)
	if !isPositiveFinite(sigma) {
		return 0, check.Errorf("sensitivity", sensitivity, "(0, ∞) with σ = Δ·√(2k ln(e + ε/δ))/ε positive and finite (k = %d, eps = %g)", k, eps)
	}
	return sigma, nil
}
