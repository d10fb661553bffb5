package mechanisms

import (
	"math"
	"math/big"
	"math/bits"
	"math/rand/v2"
)

// Exact samplers for the secure path. Every random choice below is made from the raw 64-bit words of a
// rand.Source with integer or rational arithmetic only (no float64 rounding), so the distributions are exact
// and the draws are a deterministic function of the source's words: the same seed gives the same releases
// bit for bit on every platform.

// checkSource rejects a nil rand.Source, naming the parameter as the caller spells it.
func checkSource(name string, src rand.Source) error {
	if src == nil {
		return check.Missing(name, "a rand.Source (SecureSource() for releases, a seeded source for simulation)")
	}
	return nil
}

// uniformBelow returns an integer uniform on [0, n), n ≥ 1, by rejection from masked words.
func uniformBelow(src rand.Source, n uint64) uint64 {
	if n&(n-1) == 0 {
		return src.Uint64() & (n - 1)
	}
	mask := uint64(math.MaxUint64) >> bits.LeadingZeros64(n-1)
	for {
		if v := src.Uint64() & mask; v < n {
			return v
		}
	}
}

// bigScratch holds reusable big integers so the samplers do not allocate on every draw.
type bigScratch struct {
	a, b, c, d, e big.Int
	buf           []byte
}

// uniformBelowBig sets z to an integer uniform on [0, n), n ≥ 1, by rejection from masked words.
func (s *bigScratch) uniformBelowBig(src rand.Source, z, n *big.Int) *big.Int {
	if n.IsUint64() {
		return z.SetUint64(uniformBelow(src, n.Uint64()))
	}
	nbits := n.BitLen()
	nbytes := (nbits + 7) / 8
	if cap(s.buf) < nbytes+8 {
		s.buf = make([]byte, nbytes+8)
	}
	buf := s.buf[:nbytes]
	topMask := byte(0xFF >> (uint(nbytes*8 - nbits)))
	for {
		for i := 0; i < nbytes; i += 8 {
			w := src.Uint64()
			for j := 0; j < 8 && i+j < nbytes; j++ {
				buf[i+j] = byte(w >> (8 * j))
			}
		}
		buf[0] &= topMask
		z.SetBytes(buf)
		if z.Cmp(n) < 0 {
			return z
		}
	}
}

// bernoulliExp1 returns true with probability exp(−1) (Canonne, Kamath & Steinke 2020, Algorithm 1 with
// γ = 1: count K = 1, 2, … while Bernoulli(1/K) succeeds; the result is "K odd").
func bernoulliExp1(src rand.Source) bool {
	k := uint64(1)
	for uniformBelow(src, k) == 0 {
		k++
	}
	return k%2 == 1
}

// bernoulliExpFrac returns true with probability exp(−n/d) for integers 0 ≤ n ≤ d, d ≥ 1, by the same
// series: Bernoulli(n/(dK)) is "a uniform draw below d·K is below n".
func (s *bigScratch) bernoulliExpFrac(src rand.Source, n, d uint64) bool {
	k := uint64(1)
	for {
		hi, lo := bits.Mul64(d, k)
		var hit bool
		if hi == 0 {
			hit = uniformBelow(src, lo) < n
		} else { // d·K beyond 64 bits: only after K successes in a row, probability below 1/K!
			s.c.SetUint64(d)
			s.d.SetUint64(k)
			s.c.Mul(&s.c, &s.d)
			s.uniformBelowBig(src, &s.e, &s.c)
			hit = s.e.Cmp(s.d.SetUint64(n)) < 0
		}
		if !hit {
			return k%2 == 1
		}
		k++
	}
}

// bernoulliExpRat returns true with probability exp(−num/den) for num ≥ 0, den > 0 (Canonne, Kamath &
// Steinke 2020, Algorithm 1): ⌊γ⌋ independent exp(−1) trials, then one exp(−frac(γ)) trial. It uses s.a,
// s.b, s.c, s.d, s.e; num and den are not modified and must not be any of them.
func (s *bigScratch) bernoulliExpRat(src rand.Source, num, den *big.Int) bool {
	q, r := s.a.QuoRem(num, den, &s.b)
	whole := uint64(math.MaxUint64)
	if q.IsUint64() {
		whole = q.Uint64()
	}
	for i := uint64(0); i < whole; i++ {
		if !bernoulliExp1(src) {
			return false
		}
	}
	// exp(−r/den) with 0 ≤ r < den.
	for k := int64(1); ; k++ {
		s.c.SetInt64(k)
		s.c.Mul(&s.c, den)
		s.uniformBelowBig(src, &s.d, &s.c)
		if s.d.Cmp(r) >= 0 {
			return k%2 == 1
		}
	}
}

// discreteLaplace draws Y with P(Y = y) ∝ exp(−|y|·s/t) on the integers, i.e. the discrete Laplace with
// scale t/s, for integers s, t ≥ 1 (Canonne, Kamath & Steinke 2020, Algorithm 2).
func (s *bigScratch) discreteLaplace(src rand.Source, num, t uint64) int64 {
	for {
		u := uniformBelow(src, t)
		if !s.bernoulliExpFrac(src, u, t) {
			continue
		}
		v := uint64(0)
		for bernoulliExp1(src) {
			v++
		}
		hi, x := bits.Mul64(t, v)
		x, carry := bits.Add64(x, u, 0)
		if hi != 0 || carry != 0 || x > math.MaxInt64 {
			continue // |Y| ≥ 2⁶³·s: never reached in practice; rejecting keeps the result in int64
		}
		y := int64(x / num)
		negative := src.Uint64()&1 == 1
		if negative && y == 0 {
			continue
		}
		if negative {
			return -y
		}
		return y
	}
}

// dyadic writes a positive finite float64 v exactly as m·2^e with m an odd integer (or m = v when v is an
// integer below 2⁶³ with trailing zeros folded into e).
func dyadic(v float64) (m uint64, e int) {
	frac, exp := math.Frexp(v) // v = frac·2^exp, frac ∈ [0.5, 1)
	m = uint64(math.Ldexp(frac, 53))
	e = exp - 53
	tz := bits.TrailingZeros64(m)
	return m >> tz, e + tz
}

// ratOfSquare returns p, q ≥ 1 with v² = p/q exactly, for a positive finite float64 v.
func ratOfSquare(v float64) (p, q *big.Int) {
	m, e := dyadic(v)
	p = new(big.Int).SetUint64(m)
	p.Mul(p, p)
	q = big.NewInt(1)
	if e >= 0 {
		p.Lsh(p, uint(2*e))
	} else {
		q.Lsh(q, uint(-2*e))
	}
	return p, q
}

// discreteGaussianSampler draws from N_Z(0, σ²) with σ² = p/q exactly (Canonne, Kamath & Steinke 2020,
// Algorithm 3): propose Y from the discrete Laplace with scale t = ⌊σ⌋ + 1 and accept it with probability
// exp(−(|Y| − σ²/t)²/(2σ²)), evaluated as a Bernoulli of a rational exponent.
type discreteGaussianSampler struct {
	p, q, t *big.Int
	tU      uint64
	twoPQT2 *big.Int // 2·p·q·t², the exponent's denominator
	qt      *big.Int // q·t
	num     big.Int
	s       bigScratch
}

func newDiscreteGaussianSampler(sigma float64) *discreteGaussianSampler {
	p, q := ratOfSquare(sigma)
	floor := new(big.Int).Quo(p, q)
	floor.Sqrt(floor) // ⌊σ⌋ = ⌊√⌊σ²⌋⌋
	t := floor.Add(floor, big.NewInt(1))
	g := &discreteGaussianSampler{p: p, q: q, t: t, tU: t.Uint64()}
	g.qt = new(big.Int).Mul(q, t)
	g.twoPQT2 = new(big.Int).Mul(p, g.qt)
	g.twoPQT2.Mul(g.twoPQT2, t)
	g.twoPQT2.Lsh(g.twoPQT2, 1)
	return g
}

// sample returns one draw of N_Z(0, σ²).
func (g *discreteGaussianSampler) sample(src rand.Source) int64 {
	for {
		y := g.s.discreteLaplace(src, 1, g.tU)
		ay := y
		if ay < 0 {
			ay = -ay
		}
		// exponent (|Y|·q·t − p)² / (2·p·q·t²)
		g.num.SetInt64(ay)
		g.num.Mul(&g.num, g.qt)
		g.num.Sub(&g.num, g.p)
		g.num.Mul(&g.num, &g.num)
		if g.s.bernoulliExpRat(src, &g.num, g.twoPQT2) {
			return y
		}
	}
}

// uniformStar returns a float64 in (0, 1) distributed as a real uniform on (0, 1) rounded down to a
// float64: the binade [2^−k, 2^−k+1) is chosen with probability 2^−k (k = 1 + the number of leading zero
// bits of a random bit stream) and the 52 mantissa bits uniformly, so every float64 in (0, 1) is reached
// with probability equal to the gap to the next one. This is the U* of Mironov (2012).
func uniformStar(src rand.Source) float64 {
	k := 1
	for {
		w := src.Uint64()
		if w != 0 {
			k += bits.LeadingZeros64(w)
			break
		}
		k += 64
		if k > 1022 {
			break
		}
	}
	mant := src.Uint64() >> 12
	if k > 1022 { // below the normal range (probability 2⁻¹⁰²²): a uniform subnormal
		if mant == 0 {
			mant = 1
		}
		return math.Float64frombits(mant)
	}
	return math.Float64frombits(uint64(1023-k)<<52 | mant)
}
