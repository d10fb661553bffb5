package mechanisms

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// ClipToNorm scales g in place to ℓ2 norm at most c (g·min(1, c/‖g‖), Abadi et al. 2016) and returns its
// norm before clipping.
func ClipToNorm(g []float64, c float64) float64 {
	n := norm2(g)
	if n > c {
		scale(g, c/n)
	}
	return n
}

// NormalizeToNorm rescales g in place to ℓ2 norm exactly c, small gradients included: what Seo & Yang
// (2020) call clipping. It is not clipping: it changes small gradients too. A zero vector stays zero.
// Returns the norm before rescaling.
func NormalizeToNorm(g []float64, c float64) float64 {
	n := norm2(g)
	if n > 0 {
		scale(g, c/n)
	}
	return n
}

func norm2(g []float64) float64 {
	s := 0.0
	for _, v := range g {
		s += v * v
	}
	return math.Sqrt(s)
}

func scale(g []float64, a float64) {
	for i := range g {
		g[i] *= a
	}
}

// DPSGDParams configures the private aggregation of per-example gradients.
type DPSGDParams struct {
	Clip            float64 // C: per-example ℓ2 clipping norm
	NoiseMultiplier float64 // z: the sum gets N(0, (z·C)² I) noise
	Src             rand.Source
}

// DPSGD clips per-example gradients to norm C, sums them and adds N(0, (zC)²) noise to each coordinate:
// the sum has ℓ2 sensitivity C under add/remove of one example (2C under replace-one), so one aggregation
// is the Gaussian mechanism with noise multiplier z (relative to C). Accountants turn z, the sampling rate
// and the number of steps into (ε, δ).
type DPSGD struct {
	p   DPSGDParams
	rng *rand.Rand
}

// NewDPSGD validates p.
func NewDPSGD(p DPSGDParams) (*DPSGD, error) {
	if err := firstErr(inRange("clip", p.Clip, 0, math.Inf(1), false, false),
		inRange("noise multiplier", p.NoiseMultiplier, 0, math.Inf(1), true, false)); err != nil {
		return nil, err
	}
	if p.Src == nil {
		panic("mechanisms: NewDPSGD with a nil rand.Source")
	}
	return &DPSGD{p: p, rng: rand.New(p.Src)}, nil
}

// Aggregate clips each gradient in grads in place, writes their sum plus noise into dst (len(dst) must equal
// every gradient's length) and returns how many gradients were clipped. It does not divide by the batch
// size: callers divide by the expected batch size (Poisson sampling) or the fixed one.
func (a *DPSGD) Aggregate(dst []float64, grads [][]float64) (clipped int, err error) {
	for i, g := range grads {
		if len(g) != len(dst) {
			return 0, &ParamError{Pkg: "mechanisms", Param: fmt.Sprintf("len(grads[%d])", i), Value: float64(len(g)),
				Allowed: fmt.Sprintf("[%d, %d] (the length of dst)", len(dst), len(dst))}
		}
	}
	for i := range dst {
		dst[i] = 0
	}
	for _, g := range grads {
		if ClipToNorm(g, a.p.Clip) > a.p.Clip {
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
	return clipped, nil
}
