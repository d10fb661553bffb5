package mechanisms

import (
	"fmt"
	"math"
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
		return nil, fmt.Errorf("mechanisms: unknown order grid %q (want dpa_default, opacus_default or tfp_cli)", name)
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

// RDPPoissonGaussian returns the RDP at order α > 1 of one step of the Poisson-subsampled Gaussian
// mechanism (sampling rate q, noise multiplier z, add/remove neighbours): Mironov, Talwar & Zhang (2019),
// the exact binomial sum for integer α and their two-series form for fractional α. Everything is summed in
// log space with the signs of the fractional binomial coefficients kept.
func RDPPoissonGaussian(q, z, alpha float64) (float64, error) {
	if err := firstErr(checkQ(q), inRange("noise multiplier", z, 0, math.Inf(1), false, false), checkOrder(alpha)); err != nil {
		return 0, err
	}
	return rdpPoissonGaussian(q, z, alpha), nil
}

func rdpPoissonGaussian(q, z, alpha float64) float64 {
	if q == 1 {
		return RDPGaussian(z, alpha)
	}
	// RDP is non-negative; with very large noise the log-space sums can round to a hair below 0.
	if alpha == math.Trunc(alpha) && alpha < 1e6 {
		return math.Max(0, logAInt(q, z, int(alpha))/(alpha-1))
	}
	return math.Max(0, logAFrac(q, z, alpha)/(alpha-1))
}

// logAInt is ln Σ_{k=0}^{α} C(α,k)(1−q)^{α−k} q^k exp((k²−k)/(2z²)).
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
	return mx + math.Log(sum)
}

// logAFrac is ln A_α for fractional α: A_α = A0 + A1 with
// A0 = Σ_i C(α,i) q^i (1−q)^{α−i} e^{(i²−i)/(2z²)} · ½erfc((i − z0)/(√2 z)),
// A1 = Σ_i C(α,i) q^{α−i} (1−q)^i e^{(j²−j)/(2z²)} · ½erfc((z0 − j)/(√2 z)), j = α − i,
// z0 = z² ln(1/q − 1) + ½ (Mironov, Talwar & Zhang 2019, §3.3). The series run until their terms are
// below double precision of the sum past i = α + 1.
func logAFrac(q, z, alpha float64) float64 {
	lq, l1q := math.Log(q), math.Log1p(-q)
	z2 := z * z
	z0 := z2*math.Log(1/q-1) + 0.5
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
	// C(α, i) in linear space: for fractional α its magnitude stays between ~1e−60 and C(11, 5) on the grids
	// used here, so no logarithm is needed per term; the magnitude enters M through the log of the rest.
	coef := 1.0
	for i := 0; ; i++ {
		fi := float64(i)
		if i > 0 {
			coef *= (alpha - fi + 1) / fi
		}
		j := alpha - fi
		s0 := fi*lq + j*l1q + (fi*fi-fi)*inv - math.Ln2 + logErfc((fi-z0)/sz)
		s1 := j*lq + fi*l1q + (j*j-j)*inv - math.Ln2 + logErfc((z0-j)/sz)
		v := math.Abs(coef) * (acc(coef, s0) + acc(coef, s1))
		// Past i = α + 1 the coefficients alternate in sign with decreasing magnitude, so the rest of the
		// series is smaller than its first term: stop when that is below double precision of the sum.
		if fi > alpha+1 && (v < 1e-16*math.Abs(sum) || i > 100000) {
			return M + math.Log(sum)
		}
	}
}

// RDPSampledWithoutReplacementGaussian returns the RDP at order α > 1 of one step of the Gaussian mechanism
// applied to a batch drawn without replacement (q = batch/n) under replace-one neighbours, by Wang, Balle &
// Kasiviswanathan (2019), Thm 9, with the Gaussian's ε(∞) = ∞:
//
//	ε'(α) ≤ ln(1 + q² C(α,2) min{4(e^{ε(2)} − 1), 2e^{ε(2)}} + Σ_{j=3}^{α} 2 q^j C(α,j) e^{(j−1)ε(j)})/(α − 1)
//
// where ε(j) = j·Δ²/(2σ²) is the base mechanism's RDP: pass z = σ/Δ with the replace-one sensitivity Δ
// (Δ = 2C for a clipped gradient of norm C). The bound holds at integer α; at fractional α it uses the
// convexity of (α−1)ε'(α) and interpolates linearly between the neighbouring integers (and 1, where it is 0).
func RDPSampledWithoutReplacementGaussian(q, z, alpha float64) (float64, error) {
	if err := firstErr(checkQ(q), inRange("noise multiplier", z, 0, math.Inf(1), false, false), checkOrder(alpha)); err != nil {
		return 0, err
	}
	return rdpWOR(q, z, alpha), nil
}

func rdpWOR(q, z, alpha float64) float64 {
	lo, hi := math.Floor(alpha), math.Ceil(alpha)
	if lo == hi {
		return math.Max(0, logWORInt(q, z, int(lo))/(alpha-1))
	}
	kLo := 0.0 // (α−1)ε'(α) at α = 1
	if lo >= 2 {
		kLo = logWORInt(q, z, int(lo))
	}
	kHi := logWORInt(q, z, int(hi))
	t := alpha - lo
	return ((1-t)*kLo + t*kHi) / (alpha - 1)
}

// logWORInt is (α−1)·ε'(α) of Thm 9 at integer α ≥ 2.
func logWORInt(q, z float64, alpha int) float64 {
	eps := func(j float64) float64 { return RDPGaussian(z, j) }
	lq := math.Log(q)
	a := float64(alpha)
	logC2 := math.Log(a * (a - 1) / 2)
	e2 := eps(2)
	// min{4(e^{ε(2)} − 1), 2e^{ε(2)}} in log space.
	second := math.Min(math.Log(4)+logSub(e2, 0), math.Log(2)+e2)
	acc := logAdd(0, 2*lq+logC2+second)
	logC := logC2
	for j := 3; j <= alpha; j++ {
		fj := float64(j)
		logC += math.Log((a - fj + 1) / fj)
		acc = logAdd(acc, math.Log(2)+fj*lq+logC+(fj-1)*eps(fj))
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

func (c Conversion) String() string {
	if c == ConversionClassic {
		return "classic"
	}
	return "improved"
}

// RDPToEpsilon returns min over the orders of the (ε at δ) that each order's RDP value gives, and the order
// attaining it. ε is clamped at 0.
func RDPToEpsilon(orders, rdp []float64, delta float64, conv Conversion) (eps, order float64, err error) {
	if err := firstErr(checkDeltaPositive(delta), checkCurve(orders, rdp)); err != nil {
		return 0, 0, err
	}
	eps = math.Inf(1)
	ld := math.Log(delta)
	for i, a := range orders {
		var e float64
		if conv == ConversionClassic {
			e = rdp[i] - ld/(a-1)
		} else {
			e = rdp[i] + math.Log1p(-1/a) - (ld+math.Log(a))/(a-1)
		}
		if e < eps {
			eps, order = e, a
		}
	}
	return math.Max(eps, 0), order, nil
}

// RDPToDelta returns min over the orders of the δ at ε that each order's RDP value gives (at most 1), and
// the order attaining it.
func RDPToDelta(orders, rdp []float64, epsilon float64, conv Conversion) (delta, order float64, err error) {
	if err := firstErr(inRange("epsilon", epsilon, 0, math.Inf(1), true, false), checkCurve(orders, rdp)); err != nil {
		return 0, 0, err
	}
	logDelta := math.Inf(1)
	for i, a := range orders {
		var ld float64
		if conv == ConversionClassic {
			ld = (a - 1) * (rdp[i] - epsilon)
		} else {
			ld = (a-1)*(rdp[i]-epsilon+math.Log1p(-1/a)) - math.Log(a)
		}
		if ld < logDelta {
			logDelta, order = ld, a
		}
	}
	return math.Min(math.Exp(logDelta), 1), order, nil
}

func checkCurve(orders, rdp []float64) error {
	if len(orders) == 0 || len(orders) != len(rdp) {
		return fmt.Errorf("mechanisms: %d orders for %d RDP values: need the same, non-zero number", len(orders), len(rdp))
	}
	for i, a := range orders {
		if err := checkOrder(a); err != nil {
			return err
		}
		if math.IsNaN(rdp[i]) || rdp[i] < 0 {
			return &ParamError{Pkg: "mechanisms", Param: fmt.Sprintf("rdp[%d]", i), Value: rdp[i], Allowed: "[0, ∞]"}
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
