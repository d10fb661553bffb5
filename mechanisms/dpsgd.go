package mechanisms

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Non-finite gradients. A per-example gradient with a NaN or infinite entry has no meaningful direction to
// clip: the clipping functions set it to zero (it contributes nothing to a sum, so a sum's sensitivity bound
// still holds) and return a NaN norm, which callers count (DPSGD.Aggregate reports how many it dropped).
// Huge finite entries are clipped correctly: norms are computed after scaling by the largest magnitude, so
// squaring 1e308 does not overflow.

// ClipToNorm scales g in place to ℓ2 norm at most c (g·min(1, c/‖g‖), Abadi et al. 2016) and returns its
// norm before clipping (+Inf if that norm exceeds the largest float64, the clipped g being exact anyway).
// A g with a NaN or infinite entry is set to zero and the result is NaN. c must be positive (+Inf: no
// clipping); for c ≤ 0 or NaN every g is set to zero, the only vector whose norm is certainly within c.
func ClipToNorm(g []float64, c float64) float64 {
	m, s, ok := scaledNorm(g)
	if !ok {
		clear(g)
		return math.NaN()
	}
	if !(c > 0) {
		clear(g)
		return m * s
	}
	if m == 0 {
		return 0
	}
	if m*s > c { // m·s may be +Inf: clipped all the same
		rescale(g, m, s, c)
	}
	return m * s
}

// rescale sets g to c·g/‖g‖ with ‖g‖ = m·s.
func rescale(g []float64, m, s, c float64) {
	if m == 1 {
		f := c / s
		for i := range g {
			g[i] *= f
		}
		return
	}
	f := c / s
	for i := range g {
		g[i] = g[i] / m * f
	}
}

// NormalizeToNorm rescales g in place to ℓ2 norm exactly c, small gradients included: what Seo & Yang
// (2020) call clipping. It is not clipping: it changes small gradients too. A zero vector stays zero.
// Returns the norm before rescaling. Non-finite g and invalid c are treated as in ClipToNorm (g zeroed,
// NaN returned for a non-finite g).
func NormalizeToNorm(g []float64, c float64) float64 {
	m, s, ok := scaledNorm(g)
	if !ok {
		clear(g)
		return math.NaN()
	}
	if !(c > 0) || math.IsInf(c, 1) {
		clear(g)
		return m * s
	}
	if m > 0 {
		rescale(g, m, s, c)
	}
	return m * s
}

// scaledNorm returns m and s with ‖g‖ = m·s, computed without overflow or underflow in the squares: when
// Σg_i² is a normal float (the usual case) m = 1 and s is its square root, computed exactly as the plain
// formula so results do not depend on this guard; otherwise m = max|g_i| and s = ‖g/m‖ ∈ [1, √len(g)]
// (m = 0, s = 1 for a zero g). ok is false when g has a NaN or infinite entry.
func scaledNorm(g []float64) (m, s float64, ok bool) {
	sq := 0.0
	for _, v := range g {
		sq += v * v
	}
	if sq >= 0x1p-900 && sq <= math.MaxFloat64 {
		return 1, math.Sqrt(sq), true
	}
	for _, v := range g {
		a := math.Abs(v)
		if !(a <= math.MaxFloat64) {
			return 0, 0, false
		}
		m = max(m, a)
	}
	if m == 0 {
		return 0, 1, true
	}
	for _, v := range g {
		x := v / m
		s += x * x
	}
	return m, math.Sqrt(s), true
}

func norm2(g []float64) float64 {
	m, s, ok := scaledNorm(g)
	if !ok {
		return math.NaN()
	}
	return m * s
}

// DPSGDParams configures the private aggregation of per-example gradients.
type DPSGDParams struct {
	Clip            float64 // C: per-example ℓ2 clipping norm, in (0, ∞)
	NoiseMultiplier float64 // z: the sum gets N(0, (z·C)² I) noise, in (0, ∞): DPSGD always adds noise
	Src             rand.Source
}

// DPSGD clips per-example gradients to norm C, sums them and adds N(0, (zC)²) noise to each coordinate:
// the sum has ℓ2 sensitivity C under add/remove of one example (2C under replace-one), so one aggregation
// is the Gaussian mechanism with noise multiplier z (relative to C). Accountants turn z, the sampling rate
// and the number of steps into (ε, δ). A gradient with a NaN or infinite entry is dropped (counts as zero,
// which keeps the sensitivity) and reported by Aggregate.
type DPSGD struct {
	p   DPSGDParams
	rng *rand.Rand
}

// NewDPSGD validates p.
func NewDPSGD(p DPSGDParams) (*DPSGD, error) {
	if err := firstErr(inRange("Clip", p.Clip, 0, math.Inf(1), false, false),
		inRange("NoiseMultiplier", p.NoiseMultiplier, 0, math.Inf(1), false, false)); err != nil {
		return nil, err
	}
	if p.Src == nil {
		return nil, check.Missing("Src", "a non-nil rand.Source")
	}
	return &DPSGD{p: p, rng: rand.New(p.Src)}, nil
}

// Aggregate clips each gradient in grads in place, writes their sum plus noise into dst (len(dst) must equal
// every gradient's length) and returns how many gradients were clipped and how many were dropped for a NaN
// or infinite entry (set to zero, not summed). It does not divide by the batch size: callers divide by the
// expected batch size (Poisson sampling) or the fixed one.
func (a *DPSGD) Aggregate(dst []float64, grads [][]float64) (clipped, dropped int, err error) {
	for i, g := range grads {
		if len(g) != len(dst) {
			return 0, 0, check.Errorf(fmt.Sprintf("len(grads[%d])", i), float64(len(g)), "[%d, %d] (the length of dst)", len(dst), len(dst))
		}
	}
	clear(dst)
	for _, g := range grads {
		switch n := ClipToNorm(g, a.p.Clip); {
		case math.IsNaN(n):
			dropped++
			continue
		case n > a.p.Clip:
			clipped++
		}
		for i, v := range g {
			dst[i] += v
		}
	}
	sd := a.p.NoiseMultiplier * a.p.Clip
	for i := range dst {
		dst[i] += sd * a.rng.NormFloat64()
	}
	return clipped, dropped, nil
}
