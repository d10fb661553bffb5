package gauss

//go:generate go run table_gen.go

import "math"

// layers is the number of ziggurat layers: a word's low 8 bits choose one.
const layers = 256

// decode splits a word into its layer i (bits 0–7), its 52-bit position m (bits 12–63) and the point
// x = m·2⁻⁵²·x_i; bit 8 is the sign, bits 9–11 are unused.
func decode(w uint64) (i, m uint64, x float64) {
	i, m = w&(layers-1), w>>12
	return i, m, float64(int64(m)) * width[i]
}

// signed is x with the sign bit of word w (bit 8).
func signed(x float64, w uint64) float64 {
	return math.Float64frombits(math.Float64bits(x) | (w&0x100)<<55)
}

// fast is the ziggurat's one-word step: the signed point of w and whether it lies in its layer's core
// (under x_{i+1}, so certainly under the density). 98.5% of words do (Σ_i (x_{i+1}/x_i)/256).
func fast(w uint64) (z float64, ok bool) {
	i, m, x := decode(w)
	return signed(x, w), m < fastBelow[i]
}

// slow finishes a word that fast did not accept, drawing further words from next: the wedge test against
// the density for layers 1–255, Marsaglia's exact tail beyond r for the base layer, and for a point the
// wedge test rejects a fresh word from next, from the start.
func slow(w uint64, next func() uint64) float64 {
	for {
		i, m, x := decode(w)
		switch {
		case m < fastBelow[i]:
			return signed(x, w)
		case i == 0:
			return signed(tail(next), w)
		}
		if wedge(i, x, float64(next()>>11)*0x1p-53) {
			return signed(x, w)
		}
		w = next()
	}
}

// wedge reports whether the point at x of layer i ≥ 1, beyond x_{i+1}, with a height y a fraction u of the
// way up the layer lies under the density: by the chord where that decides it (chordTest), else against
// math.Exp.
func wedge(i uint64, x, u float64) bool {
	if keep, ok := chordTest(i, x, u); ok {
		return keep
	}
	return math.FMA(u, height[i+1]-height[i], height[i]) < math.Exp(-0.5*x*x)
}

// chordTest decides the wedge test without the exponential for all but about 0.4% of points: where the
// density is convex across the layer it lies under the chord between the layer's corners and within
// chordGap of it, where concave above it and within chordGap. In the layer's units the chord's height at
// x is t = (x_i − x)/(x_i − x_{i+1}); the margin 10⁻⁹ covers the rounding of t.
func chordTest(i uint64, x, u float64) (keep, ok bool) {
	const margin = 1e-9
	lean := chordLean[i]
	if lean == 0 {
		return false, false
	}
	xi, next := width[i]*0x1p52, 0.0
	if i+1 < layers {
		next = width[i+1] * 0x1p52
	}
	t := (xi - x) / (xi - next)
	g := chordGap[i]
	if lean > 0 { // convex: t − g ≤ density ≤ t
		switch {
		case u >= t+margin:
			return false, true
		case u < t-g-margin:
			return true, true
		}
		return false, false
	}
	switch { // concave: t ≤ density ≤ t + g
	case u < t-margin:
		return true, true
	case u >= t+g+margin:
		return false, true
	}
	return false, false
}

// tail draws from the standard normal conditioned on exceeding r (Marsaglia 1964): a = −ln(U₁)/r and
// b = −ln(U₂) until 2b > a², then r + a. Exact, and untruncated: openUniform reaches down to 2⁻¹⁰⁴⁰, so a
// can exceed the largest x whose density is a positive float64.
func tail(next func() uint64) float64 {
	for {
		a := -math.Log(openUniform(next)) / tailStart
		b := -math.Log(openUniform(next))
		if b+b > a*a {
			return tailStart + a
		}
	}
}

// openUniform is a uniform draw from (0, 1): the midpoint (2k+1)·2⁻⁵³ of the cell of a 52-bit k, except
// that the cell [0, 2⁻⁵²) (k = 0) is refined by another draw scaled into it, down to cells of 2⁻¹⁰⁴⁰, so
// that small values keep their probability at every scale.
func openUniform(next func() uint64) float64 {
	scale := 1.0
	for {
		k := next() >> 12
		if k != 0 || scale < 0x1p-988 {
			return float64(2*k+1) * 0x1p-53 * scale
		}
		scale *= 0x1p-52
	}
}
