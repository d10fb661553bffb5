package mechanisms

import (
	"fmt"
	"math"
	"math/big"

	"github.com/dprl-project/dprl/dprl/param"
)

// Order grids over which RDP guarantees are converted to (ε, δ).
var orderGrids = map[string]func() []float64{
	// dp_accounting's default: 1.1, 1.2, …, 10.9, 11, 12, …, 63, 128, 256, 512, 1024 (156 orders).
	"dpa_default": func() []float64 {
		o := tenths()
		for a := 11; a <= 63; a++ {
			o = append(o, float64(a))
		}
		return append(o, 128, 256, 512, 1024)
	},
	// Opacus's default: 1.1, …, 10.9, 12, …, 63 (151 orders). It stops at 63, which is too low when σ ≥ 4
	// and q ≤ 0.01.
	"opacus_default": func() []float64 {
		o := tenths()
		for a := 12; a <= 63; a++ {
			o = append(o, float64(a))
		}
		return o
	},
	// TF-Privacy's command-line tool: 1.25, 1.5, 1.75, 2, 2.25, 2.5, 3, 3.5, 4, 4.5, 5, …, 63, 128, 256, 512.
	"tfp_cli": func() []float64 {
		o := []float64{1.25, 1.5, 1.75, 2, 2.25, 2.5, 3, 3.5, 4, 4.5}
		for a := 5; a <= 63; a++ {
			o = append(o, float64(a))
		}
		return append(o, 128, 256, 512)
	},
}

func tenths() []float64 {
	o := make([]float64, 0, 160)
	for i := 11; i <= 109; i++ {
		o = append(o, float64(i)/10)
	}
	return o
}

// DefaultOrders is the order grid accountants use unless told otherwise: "dpa_default".
const DefaultOrders = "dpa_default"

// Orders returns a fresh copy of a named order grid: "dpa_default", "opacus_default" or "tfp_cli".
func Orders(name string) ([]float64, error) {
	f, ok := orderGrids[name]
	if !ok {
		return nil, check.OneOf("name", name, "dpa_default", "opacus_default", "tfp_cli")
	}
	return f(), nil
}

// IntegerOrders returns the orders lo, lo+1, …, hi (lo ≥ 2). A dense integer grid finds optima that the
// named grids skip: for GPOPE with n = 1000, T = 1000, ε = 0.1 the best order is 92, between dpa_default's
// 63 and 128, and the calibrated σ drops from 6.09 to 5.18.
func IntegerOrders(lo, hi int) []float64 {
	o := make([]float64, 0, max(hi-lo+1, 0))
	for a := max(lo, 2); a <= hi; a++ {
		o = append(o, float64(a))
	}
	return o
}

// RDPGaussian is the Rényi DP of the Gaussian mechanism at order α with noise multiplier z = σ/Δ: α/(2z²).
func RDPGaussian(z, alpha float64) float64 { return alpha / (2 * z * z) }

// maxSeriesOrder is the largest order at which the subsampled-Gaussian series are summed term by term;
// above it the RDP functions return their closed-form upper bounds (see rdpPoissonGaussian and rdpWOR), so
// the work per order is bounded (about 2·10⁴ terms) whatever the order.
const maxSeriesOrder = 1e4

// maxSeriesTerms caps the fractional-order series; a series that has not converged by then (it does on every
// tested input) falls back to the closed-form upper bound.
const maxSeriesTerms = 100000

// checkRDPArgs validates the sampling rate, noise multiplier and order of the subsampled-Gaussian RDP
// functions.
func checkRDPArgs(q, z, alpha float64) error {
	return param.First(checkQ(q), check.In("z", z, param.Positive), check.In("alpha", alpha, param.Interval{Lo: 1, Hi: math.Inf(1)}))
}

// RDPPoissonGaussian returns the RDP at order α > 1 of one step of the Poisson-subsampled Gaussian
// mechanism (sampling rate q, noise multiplier z, add/remove neighbours): Mironov, Talwar & Zhang (2019),
// the exact binomial sum for integer α and their two-series form for fractional α. Everything is summed in
// log space with the signs of the fractional binomial coefficients kept. At orders above 10⁴ it returns
// the upper bound ln(1 − q + q·e^{α(α−1)/(2z²)})/(α − 1) (convexity of t ↦ t^α), which is at most the
// unsampled α/(2z²) and within ln(1/q)/(α − 1) of it.
func RDPPoissonGaussian(q, z, alpha float64) (float64, error) {
	if err := checkRDPArgs(q, z, alpha); err != nil {
		return 0, err
	}
	return rdpPoissonGaussian(q, z, alpha, nil), nil
}

// poissonBound is ln(1 − q + q·e^{α(α−1)/(2z²)})/(α − 1) ≥ the Poisson-subsampled Gaussian RDP.
func poissonBound(q, z, alpha float64) float64 {
	c := alpha / (2 * z * z) * (alpha - 1)
	if math.IsInf(c, 1) {
		return RDPGaussian(z, alpha)
	}
	// ln(1 + q(e^c − 1)) in log space: e^c may overflow.
	return math.Min(logAdd(0, math.Log(q)+logSub(c, 0))/(alpha-1), RDPGaussian(z, alpha))
}

// erfcCache holds, for one (q, z), what the fractional orders of one curve share (it does not depend on α):
// ln erfc((i − z0)/(√2 z)) by i for logAFrac, and the α-free half of the terms of logAFracRec by i.
type erfcCache struct {
	v  []float64
	s0 []float64
}

func rdpPoissonGaussian(q, z, alpha float64, ec *erfcCache) float64 {
	if q == 1 {
		return RDPGaussian(z, alpha)
	}
	up := RDPGaussian(z, alpha)
	if alpha > maxSeriesOrder || math.IsInf(up, 1) {
		return poissonBound(q, z, alpha)
	}
	var r float64
	if alpha == math.Trunc(alpha) {
		la, ok := logAIntRec(q, z, int(alpha))
		if !ok {
			la = logAInt(q, z, int(alpha))
		}
		r = la / (alpha - 1)
	} else {
		la, ok := logAFracRec(q, z, alpha, ec)
		if !ok {
			la = logAFrac(q, z, alpha, ec)
		}
		r = la / (alpha - 1)
	}
	if !(r <= up) {
		// The bounds hold exactly; a series value above them is rounding (or a series that did not
		// converge, NaN).
		return poissonBound(q, z, alpha)
	}
	// RDP is non-negative; with very large noise the log-space sums can round to a hair below 0.
	return math.Max(0, r)
}

// logAInt is ln A_α = ln Σ_{k=0}^{α} C(α,k)(1−q)^{α−k} q^k exp((k²−k)/(2z²)) for integer α. The binomial
// weights sum to 1, so when A_α is close to 1 (tiny RDP) the sum is redone as ln(1 + Σ_{k≥2} C(α,k)
// (1−q)^{α−k} q^k (e^{(k²−k)/(2z²)} − 1)), whose terms are all positive: no cancellation.
func logAInt(q, z float64, alpha int) float64 {
	lq, l1q := math.Log(q), math.Log1p(-q)
	inv := 1 / (2 * z * z)
	a := float64(alpha)
	logC := 0.0 // ln C(α, 0)
	// Online log-sum-exp: one exp per term, no allocation.
	mx, sum := math.Inf(-1), 0.0
	for k := 0; k <= alpha; k++ {
		fk := float64(k)
		if k > 0 {
			logC += math.Log((a - fk + 1) / fk)
		}
		t := logC + fk*lq + (a-fk)*l1q + (fk*fk-fk)*inv
		if t > mx {
			sum = sum*math.Exp(mx-t) + 1
			mx = t
		} else {
			sum += math.Exp(t - mx)
		}
	}
	la := mx + math.Log(sum)
	if la > 1e-4 {
		return la
	}
	logC = math.Log(a * (a - 1) / 2)
	mx, sum = math.Inf(-1), 0.0
	for k := 2; k <= alpha; k++ {
		fk := float64(k)
		if k > 2 {
			logC += math.Log((a - fk + 1) / fk)
		}
		x := (fk*fk - fk) * inv
		lem1 := math.Log(math.Expm1(x)) // ln(e^x − 1)
		if x > 30 {
			lem1 = x + math.Log1p(-math.Exp(-x))
		}
		t := logC + fk*lq + (a-fk)*l1q + lem1
		if t > mx {
			sum = sum*math.Exp(mx-t) + 1
			mx = t
		} else {
			sum += math.Exp(t - mx)
		}
	}
	return logAdd(0, mx+math.Log(sum))
}

// logAIntRec is logAInt by recurrences, without a logarithm or exponential per term: with
// t_k = C(α,k)(1−q)^{α−k} q^k e^{x_k}, x_k = (k²−k)/(2z²), it sums
//
//	ln A_α = ln(1 + Σ_{k≥2} t_k (1 − e^{−x_k}))
//
// (the binomial weights sum to 1, so no term cancels), with t_{k+1} = t_k·(α−k)/(k+1)·q/(1−q)·E^k and
// E^k = e^{k/z²} updated by one multiplication. t and the sum carry exact power-of-two scales, so nothing
// overflows or underflows; 1 − e^{−x} is exactly 1 in double precision past x = 40 and costs an expm1
// below. t_k is a product of k factors holding E^0, …, E^{k−1}, so the rounding of E and of the running
// power compounds quadratically: the relative error of the sum is at most ((1 + 1/z²)α² + 8α +
// 3|α ln(1−q)| + 16)·2⁻⁵³, and the sum is raised by that much, so the result is at least the exact ln A_α
// (about 1e−11 above it at α = 512). ok is false outside the range where the factors stay finite (α/z² or
// the first term too large): logAInt then.
func logAIntRec(q, z float64, alpha int) (la float64, ok bool) {
	a := float64(alpha)
	l1q := math.Log1p(-q)
	rho := q / (1 - q)
	if !(a/(z*z)+math.Log(a)+math.Abs(math.Log(rho)) < 600) || alpha < 2 {
		return 0, false
	}
	inv := 1 / (2 * z * z)
	e := math.Exp(1 / (z * z))
	// t = tm·2^te, starting at t_0 = (1−q)^α; the sum Σ = sm·2^se, and f = 2^(te−se) converts a term to the
	// sum's scale. The scales change only when t or the sum leaves [2⁻⁶⁴, 2⁶⁴] (a power of two: exact).
	l0 := a * l1q
	te := int(math.Floor(l0 / math.Ln2))
	tm := math.Exp(l0 - float64(te)*math.Ln2)
	sm, se, f := 0.0, te, 1.0
	h := 1.0 // E^k
	for k := 0; k < alpha; k++ {
		fk := float64(k)
		tm *= (a - fk) / (fk + 1) * rho * h
		h *= e
		if tm > 0x1p64 || tm < 0x1p-64 { // tm stays normal: each factor lies within 2^±900 (checked above)
			m, x := splitExp(tm)
			tm, te = m, te+x
			if te-se > 64 { // the sum is below 2⁻⁶⁴ of the term: move it to the term's scale
				sm, se = sm*pow2(se-te), te
			}
			f = pow2(te - se)
		}
		u := tm
		if x := (fk + 1) * fk * inv; x <= 40 { // x_{k+1}
			u *= -math.Expm1(-x)
		}
		sm += u * f
		if sm > 0x1p64 {
			sm, se = sm*0x1p-64, se+64
			f = pow2(te - se)
		}
	}
	if sm == 0 {
		return 0, true
	}
	sm *= 1 + ((1+1/(z*z))*a*a+8*a+3*math.Abs(l0)+16)*0x1p-53
	if se <= 0 {
		la = math.Log1p(math.Ldexp(sm, se))
	} else {
		la = math.Log(sm) + float64(se)*math.Ln2 + math.Log1p(math.Ldexp(1/sm, -se))
	}
	return la * (1 + 4*0x1p-53), true // and the rounding of the logarithm
}

// pow2 is 2^n, or 0 for n < −1022: a scale that small only drops terms below 2⁻¹⁰²² of the sum, within
// the rounding bound.
func pow2(n int) float64 {
	if n < -1022 {
		return 0
	}
	return math.Float64frombits(uint64(n+1023) << 52)
}

// splitExp returns m in [1, 2) and x with m·2^x = v, for a positive normal v.
func splitExp(v float64) (m float64, x int) {
	b := math.Float64bits(v)
	return math.Float64frombits(b&^(0x7ff<<52) | 1023<<52), int(b>>52&0x7ff) - 1023
}

// logAFracRec is logAFrac in another form of the same series, cheaper per term. Writing the Gaussian
// factor and the erfc together, every term of A0 and A1 shares the factor ½(1−q)^α:
//
//	A_α = ½(1−q)^α Σ_i C(α,i) [f(i) + f(α−i)],  f(j) = e^{j(j−2z0)/(2z²)} erfc((j − z0)/(√2 z))  (A0)
//
// and likewise for A1 with erfc((z0 − j)/(√2 z)) (the powers of q and 1 − q cancel against the exponential
// because z0 = z² ln(1/q − 1) + ½). Where the erfc argument x is at least 10, e^{…} erfc(x) =
// e^{−w²} erfcx(x) with w = z0/(√2 z) and erfcx by its asymptotic series (twelve terms, relative error below
// 1e−16), so no term needs a logarithm and only the few terms with x < 10 an exponential and an erfc. The A0
// parts do not depend on α and are shared through ec. Past i = α + 1 the terms alternate in sign with
// decreasing magnitude, so the rest of the series is at most the last term: the loop stops when that is
// below 1e−15 of the sum and adds it (an upper bound). The terms are summed with compensation, and the sum
// is raised by Σ_i (2i + 8)·2⁻⁵³·|term_i| for the rounding of the binomial coefficients (i factors each),
// the exponentials and erfc, the final logarithms by two roundings each: about 1e−15 in all where ln A is
// small, above the exact value (crosscheck/rdp_test.go holds it within 2e−15 of dp_accounting's). ok is false outside the range of this form (α > 64, or a factor that would overflow): logAFrac then.
func logAFracRec(q, z, alpha float64, ec *erfcCache) (la float64, ok bool) {
	z2 := z * z
	// ln((1−q)/q) without forming 1/q − 1, which loses the digits of 1 − q as q nears 1: the exponents
	// below carry z0, so its error would reach ln A multiplied by j/z².
	z0 := z2*(math.Log1p(-q)-math.Log(q)) + 0.5
	inv, sz := 1/(2*z2), math.Sqrt2*z
	if !(alpha <= 64 && alpha*(alpha-2*z0)*inv < 600 && z0 > 0 && z0 < math.Inf(1)) {
		return 0, false
	}
	ew := math.Exp(-(z0 / sz) * (z0 / sz))
	// part0 is f(j) of A0 (erfc((j − z0)/sz)), part1 of A1 (erfc((z0 − j)/sz)).
	part0 := func(j float64) float64 {
		if x := (j - z0) / sz; x >= 10 {
			return ew * erfcxAsym(x)
		}
		return math.Exp(j*(j-2*z0)*inv) * math.Erfc((j-z0)/sz)
	}
	part1 := func(j float64) float64 {
		if x := (z0 - j) / sz; x >= 10 {
			return ew * erfcxAsym(x)
		}
		return math.Exp(j*(j-2*z0)*inv) * math.Erfc((z0-j)/sz)
	}
	var local erfcCache
	if ec == nil {
		ec = &local
	}
	sum, comp, coef, errSum := 0.0, 0.0, 1.0, 0.0
	for i := 0; i <= maxSeriesTerms; i++ {
		fi := float64(i)
		if i > 0 {
			coef *= (alpha - fi + 1) / fi
		}
		if i == len(ec.s0) {
			ec.s0 = append(ec.s0, part0(fi))
		}
		t := coef * (ec.s0[i] + part1(alpha-fi))
		// Neumaier's compensated sum: thousands of small terms would otherwise round the sum by ~1e−15.
		s := sum + t
		if math.Abs(sum) >= math.Abs(t) {
			comp += (sum - s) + t
		} else {
			comp += (t - s) + sum
		}
		sum = s
		errSum += (2*fi + 8) * math.Abs(t)
		if fi > alpha+1 && math.Abs(t) <= 1e-15*math.Abs(sum) {
			sum += comp + math.Abs(t) + errSum*0x1p-53
			if !(sum > 0) {
				return 0, false
			}
			// ln A = ln ½(1−q)^α + ln sum, the two nearly cancelling: raised by two roundings of each.
			lp, ls := alpha*math.Log1p(-q)-math.Ln2, math.Log(sum)
			return lp + ls + 2*0x1p-53*(math.Abs(lp)+math.Abs(ls)), true
		}
	}
	return 0, false
}

// erfcxAsym is e^{x²} erfc(x) for x ≥ 10 by its asymptotic series (1/(x√π)) Σ_n (−1)^n (2n−1)!!/(2x²)^n,
// twelve terms below x = 20, eight below 40 and six beyond: the first omitted term is below 1e−16 of the
// value.
func erfcxAsym(x float64) float64 {
	y := 1 / (2 * x * x)
	n := 6
	switch {
	case x < 20:
		n = 12
	case x < 40:
		n = 8
	}
	s := 0.0
	for k := n - 1; k >= 1; k-- { // Horner in y: 1 − y(1 − 3y(1 − 5y(…)))
		s = 1 - float64(2*k-1)*y*s
	}
	return s / (x * math.SqrtPi)
}

// logAFrac is ln A_α for fractional α: A_α = A0 + A1 with
// A0 = Σ_i C(α,i) q^i (1−q)^{α−i} e^{(i²−i)/(2z²)} · ½erfc((i − z0)/(√2 z)),
// A1 = Σ_i C(α,i) q^{α−i} (1−q)^i e^{(j²−j)/(2z²)} · ½erfc((z0 − j)/(√2 z)), j = α − i,
// z0 = z² ln(1/q − 1) + ½ (Mironov, Talwar & Zhang 2019, §3.3). The series run until their terms are
// below double precision of the sum past i = α + 1. It returns NaN if the series has not converged within
// maxSeriesTerms terms or the signed sum is not positive (the caller then uses its upper bound).
func logAFrac(q, z, alpha float64, ec *erfcCache) float64 {
	lq, l1q := math.Log(q), math.Log1p(-q)
	z2 := z * z
	z0 := z2*(l1q-lq) + 0.5 // as in logAFracRec
	inv, sz := 1/(2*z2), math.Sqrt2*z
	// The signed sum A0 + A1 is kept as sum·e^M with a running maximum M of the terms' log magnitudes:
	// one exp per term, and a rescale only when a larger term arrives.
	sum, M := 0.0, math.Inf(-1)
	// acc adds c·e^s and returns e^{s−M} (after any rescale).
	acc := func(c, s float64) float64 {
		if s > M {
			sum = sum*math.Exp(M-s) + c
			M = s
			return 1
		}
		v := math.Exp(s - M)
		sum += c * v
		return v
	}
	// C(α, i) = coef·e^{logScale}: coef is kept in linear space (one multiply per term) and folded into
	// logScale when its magnitude leaves [1e−100, 1e100], so it can neither overflow nor underflow
	// (C(α, i) reaches 2^α, beyond double range for α > 1024).
	coef, logScale := 1.0, 0.0
	for i := 0; i <= maxSeriesTerms; i++ {
		fi := float64(i)
		if i > 0 {
			coef *= (alpha - fi + 1) / fi
			// |C(α,i)/C(α,i−1)| ≤ α ≤ 10⁴ (maxSeriesOrder), so 8 steps move coef by at most 10³² and a check
			// every 8 keeps it within [1e−132, 1e132].
			if m := math.Abs(coef); i&7 == 0 && (m > 1e100 || m < 1e-100) {
				logScale += math.Log(m)
				coef /= m
			}
		}
		j := alpha - fi
		var e0 float64
		switch {
		case ec == nil:
			e0 = logErfc((fi - z0) / sz)
		case i < len(ec.v):
			e0 = ec.v[i]
		default:
			e0 = logErfc((fi - z0) / sz)
			ec.v = append(ec.v, e0)
		}
		s0 := logScale + fi*lq + j*l1q + (fi*fi-fi)*inv - math.Ln2 + e0
		s1 := logScale + j*lq + fi*l1q + (j*j-j)*inv - math.Ln2 + logErfc((z0-j)/sz)
		v := math.Abs(coef) * (acc(coef, s0) + acc(coef, s1))
		// Past i = α + 1 the coefficients alternate in sign with decreasing magnitude, so the rest of the
		// series is smaller than its first term: stop when that is below double precision of the sum.
		if fi > alpha+1 && v < 1e-16*math.Abs(sum) {
			if !(sum > 0) {
				return math.NaN()
			}
			return M + math.Log(sum)
		}
	}
	return math.NaN()
}

// RDPSampledWithoutReplacementGaussian returns the RDP at order α > 1 of one step of the Gaussian mechanism
// applied to a batch drawn without replacement (q = batch/n) under replace-one neighbours, by Wang, Balle &
// Kasiviswanathan (2019, arXiv:1808.00087). At integer α it is
//
//	ε'(α) ≤ ln(1 + q² C(α,2) min{4(e^{ε(2)} − 1), 2e^{ε(2)}} + Σ_{j=3}^{α} q^j C(α,j) B_j)/(α − 1)
//
// where ε(j) = j·Δ²/(2σ²) is the base mechanism's RDP: pass z = σ/Δ with the replace-one sensitivity Δ
// (Δ = 2C for a clipped gradient of norm C). For α ≤ 256, B_j = min{4·√(D_{2⌊j/2⌋}·D_{2⌈j/2⌉}),
// 2e^{(j−1)ε(j)}}, with D_m the m-th forward difference at 0 of x ↦ e^{(x−1)ε(x)} (the Pearson–Vajda
// χ^m divergence of the Gaussian pair), the paper's Theorem 27, which holds for the Gaussian; above 256,
// B_j = 2e^{(j−1)ε(j)}, its general Theorem 9 with ε(∞) = ∞. This is the bound and split of Google's
// dp_accounting (0.6.0), with the forward differences computed with a rounding-error bound (worForwardDiffs). At fractional α it uses the convexity of (α−1)ε'(α) and interpolates
// linearly between the neighbouring integers (and 1, where it is 0). Every value is capped by the
// unsampled α/(2z²), which also holds under replace-one (each batch pair of a coupling differs in at most
// one record, and Rényi divergence is jointly quasi-convex); above order 10⁴ that cap is returned.
func RDPSampledWithoutReplacementGaussian(q, z, alpha float64) (float64, error) {
	if err := checkRDPArgs(q, z, alpha); err != nil {
		return 0, err
	}
	var fd []float64
	if alpha <= worExactOrder {
		fd = worForwardDiffs(z, int(math.Ceil(alpha)))
	}
	return rdpWOR(q, z, alpha, fd, false), nil
}

// worExactOrder is the largest order at which the Theorem 27 terms are used (dp_accounting's choice: the
// forward differences cost O(α²)).
const worExactOrder = 256

// rdpWOR is the without-replacement RDP at α; fd holds worForwardDiffs(z, n) for some n ≥ ⌈α⌉ when
// α ≤ worExactOrder, or is nil for Theorem 9 alone; general selects Theorem 9 as stated (fd nil, no cap by
// α/(2z²) below order 10⁴).
func rdpWOR(q, z, alpha float64, fd []float64, general bool) float64 {
	cap := RDPGaussian(z, alpha)
	if general {
		cap = math.Inf(1) // Theorem 9 as stated
	}
	if q == 1 || alpha > maxSeriesOrder {
		return RDPGaussian(z, alpha)
	}
	lo, hi := math.Floor(alpha), math.Ceil(alpha)
	var r float64
	if lo == hi {
		r = logWORInt(q, z, int(lo), fd) / (alpha - 1)
	} else {
		kLo := 0.0 // (α−1)ε'(α) at α = 1
		if lo >= 2 {
			kLo = logWORInt(q, z, int(lo), fd)
		}
		kHi := logWORInt(q, z, int(hi), fd)
		t := alpha - lo
		r = ((1-t)*kLo + t*kHi) / (alpha - 1)
	}
	if math.IsNaN(r) {
		return RDPGaussian(z, alpha)
	}
	return math.Max(0, math.Min(r, cap))
}

// worForwardDiffs returns d with d[m−1] ≥ ln Δ^m h(0) for every even m ≤ n+2 (odd entries are unused
// and +∞), where h(x) = e^{(x−1)x/(2z²)} is the Gaussian's e^{(x−1)ε(x)} and Δ^m h(0) =
// Σ_k (−1)^{m−k} C(m,k) h(k) = E[(e^L − 1)^m] > 0 (L the privacy loss) is the Pearson–Vajda χ^m
// divergence that Theorem 27 needs. Each value is the float64 sum plus a bound on its rounding error,
// (4m + 8·ln max h + 16)·u·Σ_k C(m,k) h(k); where that bound is not negligible (the sum cancels heavily
// when z is large), the differences are redone in multi-precision arithmetic (bigForwardDiffs). Either way
// the value is an upper bound, never below the true one. dp_accounting 0.6.0 differences repeatedly in
// float64 log space without an error bound, and for some z (7.78, m = 118: a factor 3.5) falls below it.
func worForwardDiffs(z float64, n int) []float64 {
	inv := 1 / (2 * z * z)
	lf := make([]float64, n+3) // ln k!
	for k := 1; k < len(lf); k++ {
		lf[k] = lf[k-1] + math.Log(float64(k))
	}
	d := make([]float64, n+2)
	var redo []int
	const u = 0x1p-53
	for m := 1; m <= n+2; m++ {
		if m%2 == 1 {
			d[m-1] = math.Inf(1)
			continue
		}
		// Positive (k even) and negative (k odd) parts, online in log space.
		var ps, ns lse
		ps.init()
		ns.init()
		for k := 0; k <= m; k++ {
			fk := float64(k)
			t := lf[m] - lf[k] - lf[m-k] + fk*(fk-1)*inv
			if k%2 == 0 {
				ps.add(t)
			} else {
				ns.add(t)
			}
		}
		pos, neg := ps.log(), ns.log()
		maxLog := float64(m) * float64(m-1) * inv
		errLog := math.Log((4*float64(m)+8*maxLog+16)*u) + logAdd(pos, neg)
		diff := logSub(pos, neg)
		d[m-1] = logAdd(diff, errLog)
		if errLog > diff-23 { // the bound exceeds 1e−10 of the value
			redo = append(redo, m)
		}
	}
	if len(redo) > 0 {
		bigForwardDiffs(z, n+2, redo, d)
	}
	return d
}

// maxForwardDiffPrec caps the precision of bigForwardDiffs; beyond it the float64 values with their error
// bounds stand.
const maxForwardDiffPrec = 1 << 14

// bigForwardDiffs recomputes d[m−1] for the listed even m by repeated differencing in big.Float, of
// h̃(k) = b^{k(k−1)/2} with b the float64 e^{1/z²} rounded up two ulps: h̃ is h for a noise multiplier
// z̃ ≤ z, whose χ^m divergences are at least the true ones (they grow as the noise shrinks), so the result
// stays an upper bound. The precision comes from the lower bound Δ^m h(0) = E[Y^m] ≥ (E[Y²])^{m/2} (Y =
// e^L − 1, m even) with E[Y²] = e^{1/z²} − 1, and each value carries the bound N³·2^N·2^{−prec}·max_{k≤m} h(k)
// on the rounding of N levels of differencing (level m involves h(0), …, h(m) only). A value is replaced only where it is smaller.
func bigForwardDiffs(z float64, N int, redo []int, d []float64) {
	c := 1 / (z * z)
	if c > 700 {
		return
	}
	lnD2 := math.Log(math.Expm1(c))
	lnMax := func(m int) float64 { return float64(m) * float64(m-1) / 2 * c } // ln max_{k≤m} h(k)
	base := 96 + float64(N) + 3*math.Log2(float64(N))
	bits := 0.0
	want := make([]bool, N+1)
	last := 0
	for _, m := range redo {
		if need := base + (lnMax(m)-float64(m)/2*lnD2)/math.Ln2; need <= maxForwardDiffPrec {
			bits = math.Max(bits, need)
			want[m] = true
			last = max(last, m)
		}
	}
	if last == 0 {
		return
	}
	prec := uint(bits+63) / 64 * 64
	b := math.Nextafter(math.Nextafter(math.Exp(c), math.Inf(1)), math.Inf(1))
	bb := new(big.Float).SetPrec(prec).SetFloat64(b)
	vec := make([]*big.Float, N+1)
	pw := new(big.Float).SetPrec(prec).SetFloat64(1) // b^{k−1}
	for k := range vec {
		vec[k] = new(big.Float).SetPrec(prec).SetFloat64(1)
		if k >= 2 {
			pw.Mul(pw, bb)
			vec[k].Mul(vec[k-1], pw)
		}
	}
	mant := new(big.Float)
	for m := 1; m <= last; m++ {
		for j := 0; j+m <= N; j++ {
			vec[j].Sub(vec[j+1], vec[j])
		}
		if !want[m] {
			continue
		}
		v := math.Inf(-1)
		if vec[0].Sign() > 0 {
			e := vec[0].MantExp(mant)
			mf, _ := mant.Float64()
			v = math.Log(mf) + float64(e)*math.Ln2
		}
		errLog := 3*math.Log(float64(N)) + float64(N)*math.Ln2 - float64(prec)*math.Ln2 + lnMax(m)
		d[m-1] = math.Min(d[m-1], logAdd(v, errLog))
	}
}

// logComb is ln C(n, k) through the log-gamma function.
func logComb(n, k float64) float64 {
	a, _ := math.Lgamma(n + 1)
	b, _ := math.Lgamma(k + 1)
	c, _ := math.Lgamma(n - k + 1)
	return a - b - c
}

// logWORInt is (α−1)·ε'(α) of the without-replacement bound at integer α ≥ 2; fd is used when
// α ≤ worExactOrder.
func logWORInt(q, z float64, alpha int, fd []float64) float64 {
	if alpha == 1 {
		return 0
	}
	cgf := func(x float64) float64 { return x * (x + 1) / (2 * z * z) } // (x)·ε(x+1)
	e2 := 2 / (2 * z * z)
	lq := math.Log(q)
	a := float64(alpha)
	// min{4(e^{ε(2)} − 1), 2e^{ε(2)}} in log space.
	logF2m1 := e2 + math.Log1p(-math.Exp(-e2))
	acc := logAdd(0, 2*lq+logComb(a, 2)+math.Min(math.Log(4)+logF2m1, e2+math.Ln2))
	exact := alpha <= worExactOrder && len(fd) >= alpha+1
	for j := 3; j <= alpha; j++ {
		fj := float64(j)
		s := math.Ln2 + cgf(fj-1)
		if exact {
			lo, hi := fd[2*(j/2)-1], fd[2*((j+1)/2)-1]
			s = math.Min(math.Log(4)+0.5*(lo+hi), s)
		}
		acc = logAdd(acc, s+fj*lq+logComb(a, fj))
	}
	return acc
}

// Conversion selects how an RDP curve is turned into (ε, δ).
type Conversion int

const (
	// ConversionImproved is ε = RDP(α) + ln((α−1)/α) − (ln δ + ln α)/(α−1) (Balle et al. 2020; Canonne,
	// Kamath & Steinke 2020), never worse than the classic one.
	ConversionImproved Conversion = iota
	// ConversionClassic is ε = RDP(α) + ln(1/δ)/(α−1) (Mironov 2017).
	ConversionClassic
)

// String names the conversion ("improved", "classic"), or gives Conversion(n) for any other value.
func (c Conversion) String() string {
	switch c {
	case ConversionImproved:
		return "improved"
	case ConversionClassic:
		return "classic"
	}
	return fmt.Sprintf("Conversion(%d)", int(c))
}

// RDPToEpsilon returns min over the orders of the (ε at δ) that each order's RDP value gives, and the order
// attaining it. ε is clamped at 0. An infinite RDP value gives ε = ∞ at its order; if every order does,
// ε = ∞ (no guarantee). The improved conversion also uses, at every order, the total-variation bound
// δ ≥ √(1 − e^{−RDP}) (KL ≤ RDP at any order > 1; Bretagnolle–Huber): ε = 0 when it already holds, as
// dp_accounting does.
func RDPToEpsilon(orders, rdp []float64, delta float64, conv Conversion) (eps, order float64, err error) {
	if err := param.First(checkDeltaPositive(delta), checkCurve(orders, rdp), checkConversion(conv)); err != nil {
		return 0, 0, err
	}
	eps = math.Inf(1)
	order = orders[0]
	ld := math.Log(delta)
	for i, a := range orders {
		var e float64
		switch {
		case math.IsInf(rdp[i], 1):
			e = math.Inf(1)
		case conv == ConversionClassic:
			e = rdp[i] - ld/(a-1)
		case delta*delta+math.Expm1(-rdp[i]) > 0:
			e = 0
		default:
			e = rdp[i] + math.Log1p(-1/a) - (ld+math.Log(a))/(a-1)
		}
		if e < eps {
			eps, order = e, a
		}
	}
	return math.Max(eps, 0), order, nil
}

// RDPToDelta returns min over the orders of the δ at ε that each order's RDP value gives (at most 1), and
// the order attaining it. The improved conversion also uses δ ≤ √(1 − e^{−RDP}) (see RDPToEpsilon).
func RDPToDelta(orders, rdp []float64, epsilon float64, conv Conversion) (delta, order float64, err error) {
	if err := param.First(check.In("epsilon", epsilon, param.NonNegative), checkCurve(orders, rdp),
		checkConversion(conv)); err != nil {
		return 0, 0, err
	}
	logDelta := math.Inf(1)
	order = orders[0]
	for i, a := range orders {
		var ld float64
		switch {
		case math.IsInf(rdp[i], 1):
			ld = math.Inf(1)
		case conv == ConversionClassic:
			ld = (a - 1) * (rdp[i] - epsilon)
		default:
			ld = (a-1)*(rdp[i]-epsilon+math.Log1p(-1/a)) - math.Log(a)
			tv := math.Inf(-1)
			if rdp[i] > 0 {
				tv = 0.5 * math.Log(-math.Expm1(-rdp[i]))
			}
			ld = math.Min(ld, tv)
		}
		if ld < logDelta {
			logDelta, order = ld, a
		}
	}
	return math.Min(math.Exp(logDelta), 1), order, nil
}

func checkCurve(orders, rdp []float64) error {
	if len(orders) != len(rdp) {
		return check.Errorf("rdp", float64(len(rdp)), "one RDP value per order (%d orders)", len(orders))
	}
	if err := checkOrders(orders); err != nil {
		return err
	}
	for i := range orders {
		if math.IsNaN(rdp[i]) || rdp[i] < 0 {
			return check.Errorf(fmt.Sprintf("rdp[%d]", i), rdp[i], "[0, ∞]")
		}
	}
	return nil
}

// MomentsFromRDP returns the moments-accountant view of an RDP curve (Abadi et al. 2016): the log moment
// α_M(λ) = λ·RDP(λ+1) at λ = order − 1.
func MomentsFromRDP(orders, rdp []float64) (lambdas, logMoments []float64) {
	lambdas, logMoments = make([]float64, len(orders)), make([]float64, len(orders))
	for i, a := range orders {
		lambdas[i] = a - 1
		logMoments[i] = (a - 1) * rdp[i]
	}
	return lambdas, logMoments
}

// MomentsDelta is the moments accountant's tail bound δ = min_λ exp(α_M(λ) − λε) (Abadi et al. 2016, Thm 2),
// the same number as the classic RDP conversion.
func MomentsDelta(lambdas, logMoments []float64, epsilon float64) float64 {
	ld := math.Inf(1)
	for i, l := range lambdas {
		ld = math.Min(ld, logMoments[i]-l*epsilon)
	}
	return math.Min(math.Exp(ld), 1)
}

// AbadiLemma3LogMoment is the leading term of Abadi et al.'s Lemma 3 upper bound on the log moment of one
// Poisson-subsampled Gaussian step, q²λ(λ+1)/((1−q)σ²), stated for σ ≥ 1 and λ ≤ σ² ln(1/(qσ)) and
// omitting an O(q³λ³/σ³) term. For small q it is about twice the exact log moment λ·RDP(λ+1).
func AbadiLemma3LogMoment(q, sigma, lambda float64) float64 {
	return q * q * lambda * (lambda + 1) / ((1 - q) * sigma * sigma)
}

// worOrderNeed is the largest ⌈α⌉ ≤ worExactOrder among the orders: how far the forward differences of
// the without-replacement bound must go.
func worOrderNeed(orders []float64) int {
	n := 2
	for _, a := range orders {
		if a <= worExactOrder {
			n = max(n, int(math.Ceil(a)))
		}
	}
	return n
}
