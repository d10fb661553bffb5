package mechanisms

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/dprl-project/dprl/dprl/param"
	"github.com/dprl-project/dprl/mechanisms/internal/gauss"
)

// Non-finite gradients. A per-example gradient with a NaN or infinite entry has no meaningful direction to
// clip: the clipping functions set it to zero (it contributes nothing to a sum, so a sum's sensitivity bound
// still holds) and return a NaN norm, which callers count (DPSGD.Aggregate reports how many it dropped).
// Huge finite entries are clipped correctly: norms are computed after scaling by the largest magnitude, so
// squaring 1e308 does not overflow. ClipToNorm even clips a vector whose norm exceeds the largest float64;
// DP-SGD (ClipFactor) drops such a gradient like a non-finite one, since a factor computed from its norm
// alone would be 0 (nn's Workspace.PrivateGradient knows only the norms).

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

// ClipFactor is DP-SGD's per-example clipping factor (Abadi et al. 2016): the gradient of ℓ2 norm norm is
// scaled by min(1, c/norm), so that its norm is at most c. A NaN or +Inf norm — a gradient with a NaN or
// infinite entry, or one whose norm exceeds the largest float64 — gets 0: the gradient is dropped, it
// contributes nothing to the sum, which keeps the sum's sensitivity within c. c is the clip norm, in (0, ∞]
// (+Inf: the factor is 1 for every finite norm); it is not checked here (NewDPSGD checks DPSGDParams.Clip).
//
// DPSGD.Aggregate applies this factor to explicit per-example gradients (through ClipToNorm's exact
// scaling), and nn's Workspace.PrivateGradient to the per-example norms it computes without forming the
// gradients: one rule for both.
func ClipFactor(norm, c float64) float64 {
	if dropNorm(norm) {
		return 0
	}
	if norm > c {
		return c / norm
	}
	return 1
}

// dropNorm reports whether DP-SGD drops a per-example gradient of this norm: NaN or +Inf.
func dropNorm(norm float64) bool { return !(norm <= math.MaxFloat64) }

// DPSGDParams configures the private aggregation of per-example gradients.
type DPSGDParams struct {
	Clip            float64 // C: per-example ℓ2 clipping norm, in (0, ∞)
	NoiseMultiplier float64 // z: the sum gets N(0, (z·C)² I) noise, in (0, ∞): DPSGD always adds noise
	// Src is the noise source: each aggregation (Aggregate, AddNoise, AddScaledNoise; nn's PrivateGradient
	// makes one call for all of a network's blocks) draws four Uint64 from it, a 256-bit key from which its
	// normals are computed (see AddScaledNoise). A rand.Rand holds no state of its own, so a caller that
	// wraps the same Source for other draws (another mechanism on the same stream) interleaves with these
	// in program order.
	Src rand.Source
}

// DPSGD is the one DP-SGD aggregation of this module: it clips per-example gradients to norm C (ClipFactor),
// sums them and adds N(0, (zC)²) noise to each coordinate (AddNoise). The sum has ℓ2 sensitivity C under
// add/remove of one example (2C under replace-one), so one aggregation is the Gaussian mechanism with noise
// multiplier z (relative to C). Accountants turn z, the sampling rate and the number of steps into (ε, δ). A
// gradient with a NaN or infinite entry, or whose norm exceeds the largest float64, is dropped (counts as
// zero, which keeps the sensitivity) and reported.
//
// Aggregate takes explicit per-example gradients. nn's Workspace.PrivateGradient takes a *DPSGD and runs the
// same aggregation on a network's batch without forming per-example gradients: ClipFactor on the example
// norms, then AddNoise on the clipped sum.
type DPSGD struct {
	p   DPSGDParams
	sd  float64 // z·C, checked positive and finite
	rng *rand.Rand
}

// NewDPSGD validates p: Clip and NoiseMultiplier in (0, ∞) with the noise scale NoiseMultiplier·Clip
// positive and finite (two valid factors can underflow to 0 or overflow), Src non-nil. Its errors name the
// field.
func NewDPSGD(p DPSGDParams) (*DPSGD, error) {
	if err := param.First(check.In("Clip", p.Clip, param.Positive), check.In("NoiseMultiplier", p.NoiseMultiplier, param.Positive)); err != nil {
		return nil, err
	}
	if p.Src == nil {
		return nil, check.Missing("Src", "a non-nil rand.Source")
	}
	if sd := p.NoiseMultiplier * p.Clip; !isPositiveFinite(sd) {
		return nil, check.Errorf("NoiseMultiplier", p.NoiseMultiplier, "(0, ∞) with NoiseMultiplier·Clip a positive finite noise scale (Clip = %g, product %g)", p.Clip, sd)
	}
	return &DPSGD{p: p, sd: p.NoiseMultiplier * p.Clip, rng: rand.New(p.Src)}, nil
}

// Params returns the validated parameters (a copy: a new noise level is a new NewDPSGD call).
func (a *DPSGD) Params() DPSGDParams { return a.p }

// ClipFactor is ClipFactor(norm, C): the factor by which a per-example gradient of ℓ2 norm norm is scaled
// (min(1, C/norm); 0 for a NaN or +Inf norm, whose gradient is dropped).
func (a *DPSGD) ClipFactor(norm float64) float64 { return ClipFactor(norm, a.p.Clip) }

// AddNoise adds the aggregation's noise to sum, the sum of one batch's clipped per-example gradients:
// sum[i] + zC·Z_i rounded once, for independent standard normals Z_i (AddScaledNoise with scale 1). A
// sum held in several slices (a network's layers) goes to AddScaledNoise, which takes them as one vector.
func (a *DPSGD) AddNoise(sum []float64) { AddScaledNoise(a, 1, sum) }

// AddScaledNoise sets x[i] = (x[i] + zC·Z_i)·scale for the aggregation a, where x is the concatenation of
// the slices of sum in order (a network's gradient blocks), with x[i] + zC·Z_i formed in float64 and
// rounded once, the product rounded to F: the noisy sum and its division by the batch size (scale = 1/n)
// in one pass, in either precision. Every call draws a fresh 256-bit key from a's Src (four Uint64, x
// empty or not) and computes the standard normals Z_i from it, however x is cut into slices:
//
//   - the coordinates are cut into chunks of 1984 (16 iterations of math/rand/v2's ChaCha8 generator);
//     chunk c is driven by a ChaCha8 generator whose seed is words 4c to 4c+3 of a ChaCha8 generator seeded
//     with the key;
//   - coordinate j of a chunk is word j of the chunk's generator through one step of a 256-layer ziggurat
//     (Marsaglia & Tsang 2000): 98.5% of words give their normal at once; the others are completed,
//     in coordinate order, with the words that follow the chunk's last whole iteration (wedge test against
//     the density; Marsaglia's exact tail beyond r = 3.654).
//
// So the Z_i are as unpredictable as Src (ChaCha8 expands the key), the same key gives the same bits
// whatever GOMAXPROCS and with or without AVX-512 (large vectors are filled on several goroutines, with an
// assembly kernel where the processor has AVX-512, bit-identical to the portable code), and P(Z_i ≤ t)
// and P(Z_i > t) are within a relative 10⁻¹¹ of Φ(t) and 1 − Φ(t) at every t, the tail included and not
// truncated (package gauss states the bounds and tests the law). The scale is applied after the noise: a
// post-processing, which changes no privacy guarantee. This replaced one NormFloat64 per coordinate drawn
// from Src (one call per block of a network), so the noise stream of a seed changed then.
func AddScaledNoise[F float32 | float64](a *DPSGD, scale float64, sum ...[]F) {
	key := [4]uint64{a.rng.Uint64(), a.rng.Uint64(), a.rng.Uint64(), a.rng.Uint64()}
	gauss.Add(sum, a.sd, scale, key)
}

// Aggregate clips each gradient in grads in place, writes their sum plus noise into dst (len(dst) must equal
// every gradient's length) and returns how many gradients were clipped and how many were dropped (set to
// zero, not summed): those with a NaN or infinite entry or a norm beyond the largest float64, whose
// ClipFactor is 0. Clipping scales exactly to norm C (ClipToNorm), huge finite entries included. It does not
// divide by the batch size: callers divide by the expected batch size (Poisson sampling) or the fixed one.
func (a *DPSGD) Aggregate(dst []float64, grads [][]float64) (clipped, dropped int, err error) {
	for i, g := range grads {
		if len(g) != len(dst) {
			return 0, 0, check.Errorf(fmt.Sprintf("len(grads[%d])", i), float64(len(g)), "[%d, %d] (the length of dst)", len(dst), len(dst))
		}
	}
	clear(dst)
	for _, g := range grads {
		switch n := ClipToNorm(g, a.p.Clip); {
		case dropNorm(n):
			clear(g)
			dropped++
			continue
		case n > a.p.Clip:
			clipped++
		}
		for i, v := range g {
			dst[i] += v
		}
	}
	a.AddNoise(dst)
	return clipped, dropped, nil
}
