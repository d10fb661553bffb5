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
// which makes k-fold composition (ε, kδ0 + δ̃)-DP when ε < 1 (the corollary's condition; outside it, check
// with AdvancedComposition).
func AdvancedCompositionEps0(eps float64, k int, deltaSlack float64) (float64, error) {
	if err := param.First(checkEpsilon(eps), check.In("deltaSlack", deltaSlack, param.OpenUnit)); err != nil {
		return 0, err
	}
	if err := check.AtLeast("k", k, 1); err != nil {
		return 0, err
	}
	return eps / (2 * math.Sqrt(2*float64(k)*math.Log(1/deltaSlack))), nil
}

// MaxOptimalCompositionK is the largest k OptimalCompositionDelta and OptimalCompositionEpsilon accept:
// their sum runs over a window of about 12·√k terms around the binomial's mean.
const MaxOptimalCompositionK = 1_000_000_000

// OptimalCompositionDelta is the exact δ at ε of the k-fold composition of (ε0, δ0)-DP mechanisms (Kairouz,
// Oh & Viswanath 2015; Murtagh & Vadhan 2016, homogeneous case). The worst case is k-fold randomized
// response, whose privacy loss is (k − 2l)·ε0 with probability C(k,l)e^{(k−l)ε0}/(1+e^{ε0})^k; then
// δ(ε) = 1 − (1−δ0)^k·(1 − Σ_l P(l)(1 − e^{ε − (k−2l)ε0})_+). For large k the sum runs over the l within
// √(35k) of the mean and adds Hoeffding's bound 2e^{−70} on the probability of the rest (a pessimistic
// error of at most 1e−30). k must lie in [1, MaxOptimalCompositionK].
func OptimalCompositionDelta(eps0, delta0 float64, k int, eps float64) (float64, error) {
	if err := param.First(check.In("eps0", eps0, param.Positive), check.In("delta0", delta0, deltaRange),
		check.In("epsilon", eps, param.NonNegative), check.Int("k", k, 1, MaxOptimalCompositionK)); err != nil {
		return 0, err
	}
	return optimalDelta(eps0, delta0, k, eps), nil
}

func optimalDelta(eps0, delta0 float64, k int, eps float64) float64 {
	fk := float64(k)
	logNorm := fk * logAdd(0, eps0) // ln (1 + e^{ε0})^k
	// l ~ Binomial(k, 1/(1+e^{ε0})); outside mean ± t its probability is at most 2e^{−2t²/k}.
	mean := fk / (1 + math.Exp(eps0))
	t := math.Sqrt(35 * fk)
	lo, hi := max(0, int(math.Floor(mean-t))), min(k, int(math.Ceil(mean+t)))
	tail := 0.0
	if lo > 0 || hi < k {
		tail = 2 * math.Exp(-70)
	}
	logC := logComb(fk, float64(lo))
	// Σ over l with loss (k−2l)ε0 > ε of P(l)(1 − e^{ε − loss}) = Σ P(l) − e^ε Σ C(k,l)e^{lε0}/(1+e^{ε0})^k.
	// Both sums online in log space (sum·e^max): one exp per term each.
	var ps, ns lse
	ps.init()
	ns.init()
	for l := lo; l <= hi; l++ {
		fl := float64(l)
		if l > lo {
			logC += math.Log((fk - fl + 1) / fl)
		}
		loss := (fk - 2*fl) * eps0
		if loss <= eps {
			break
		}
		ps.add(logC + (fk-fl)*eps0 - logNorm)
		ns.add(logC + fl*eps0 - logNorm + eps)
	}
	pure := 0.0
	if pos, neg := ps.log(), ns.log(); pos > neg {
		pure = math.Exp(logSub(pos, neg))
	}
	pure = math.Min(1, pure+tail)
	return 1 - math.Pow(1-delta0, fk)*(1-pure)
}

// OptimalCompositionEpsilon is the smallest ε at which the k-fold composition of (ε0, δ0)-DP mechanisms is
// (ε, δ)-DP (the inverse of OptimalCompositionDelta). δ must exceed 1 − (1−δ0)^k and k lie in
// [1, MaxOptimalCompositionK].
func OptimalCompositionEpsilon(eps0, delta0 float64, k int, delta float64) (float64, error) {
	if _, err := OptimalCompositionDelta(eps0, delta0, k, 0); err != nil {
		return 0, err
	}
	if err := checkDeltaPositive(delta); err != nil {
		return 0, err
	}
	floor := 1 - math.Pow(1-delta0, float64(k))
	if delta <= floor {
		return 0, check.Errorf("delta", delta, "(1 − (1 − δ0)^k, 1) = (%s, 1)", param.Format(floor))
	}
	kEps := float64(k) * eps0
	if optimalDelta(eps0, delta0, k, 0) <= delta {
		return 0, nil
	}
	return bisect(func(e float64) float64 { return optimalDelta(eps0, delta0, k, e) - delta }, 0, kEps, 1e-12), nil
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
// σ = Δ·sqrt(2k ln(e + ε/δ))/ε.
func KOVGaussianSigma(k int, sensitivity, eps, delta float64) (float64, error) {
	if err := param.First(checkSensitivity(sensitivity), checkEpsilon(eps), checkDeltaPositive(delta)); err != nil {
		return 0, err
	}
	if err := check.AtLeast("k", k, 1); err != nil {
		return 0, err
	}
	return sensitivity * math.Sqrt(2*float64(k)*math.Log(math.E+eps/delta)) / eps, nil
}
