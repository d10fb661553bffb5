package mechanisms

import (
	"math"
	"math/bits"
	"sync"
)

// fftPlans caches the twiddle tables of lengths up to 2²⁰ (about 14 MB for the largest), which are
// read-only once built and shared by every accountant.
var fftPlans sync.Map // int → *realFFT

// planFFT returns the (cached) transform of length n.
func planFFT(n int) *realFFT {
	if f, ok := fftPlans.Load(n); ok {
		return f.(*realFFT)
	}
	f := newRealFFT(n)
	if n <= 1<<20 {
		fftPlans.Store(n, f)
	}
	return f
}

// realFFT transforms real sequences of a power-of-two length n ≥ 4 through one complex radix-2
// Cooley–Tukey transform of length n/2 (even samples as real parts, odd ones as imaginary parts), with
// twiddle factors computed directly by Sincos (so the round-off bounds of Higham 2002, §24.1, hold).
type realFFT struct {
	n    int
	tw   []complex128 // e^{−2πij/(n/2)}, j < n/4
	half []complex128 // e^{−2πik/n}, k ≤ n/2
	rev  []int32      // bit reversal of log₂(n/2) bits
	// stages holds, for each pair of radix-2 stages cfft runs together (butterfly half-sizes L and 2L), the
	// twiddles it reads, W_{2L}^j and W_{4L}^j for j < L, interleaved: copies of entries of tw, laid out in
	// the order they are used.
	stages [][]complex128
}

func newRealFFT(n int) *realFFT {
	m := n / 2
	f := &realFFT{n: n, tw: make([]complex128, m/2), half: make([]complex128, m+1), rev: make([]int32, m)}
	for j := range f.tw {
		s, c := math.Sincos(-2 * math.Pi * float64(j) / float64(m))
		f.tw[j] = complex(c, s)
	}
	for k := range f.half {
		s, c := math.Sincos(-2 * math.Pi * float64(k) / float64(n))
		f.half[k] = complex(c, s)
	}
	shift := 64 - uint(bits.TrailingZeros(uint(m)))
	for i := range f.rev {
		f.rev[i] = int32(bits.Reverse64(uint64(i)) >> shift)
	}
	for L := firstL(m); 4*L <= m; L *= 4 {
		s1, s2 := m/(2*L), m/(4*L)
		st := make([]complex128, 2*L)
		for j := range L {
			st[2*j], st[2*j+1] = f.tw[j*s1], f.tw[j*s2]
		}
		f.stages = append(f.stages, st)
	}
	return f
}

// firstL is the butterfly half-size of cfft's first pair of stages: 2 after a single size-2 stage when
// log₂m is odd, else 1.
func firstL(m int) int {
	if bits.TrailingZeros(uint(m))%2 == 1 {
		return 2
	}
	return 1
}

// cfftBlock is the number of points (64 KB) cfft transforms completely, through every stage that stays
// inside such a block, before it moves on to the next one, so that those stages run in cache.
const cfftBlock = 1 << 12

// cfft transforms z in place (e^{−2πi jk/m} kernel; conj = true for e^{+2πi jk/m}), unnormalised: bit
// reversal, then the radix-2 stages two at a time (one pass over the data per pair), after a single
// size-2 stage when log₂m is odd. The stages whose butterflies stay within blocks of cfftBlock points run
// block by block, the rest over the whole sequence; every butterfly is computed exactly as stage by
// stage, so the order changes nothing in the result.
func (f *realFFT) cfft(z []complex128, conj bool) {
	m := len(z)
	f.bitReverse(z)
	blk := min(m, cfftBlock)
	L0 := firstL(m)
	st := 0 // stages done inside the blocks
	for b := 0; b < m; b += blk {
		zb := z[b : b+blk]
		if L0 == 2 {
			for i := 0; i < blk; i += 2 {
				a, c := zb[i], zb[i+1]
				zb[i], zb[i+1] = a+c, a-c
			}
		}
		st = 0
		for L := L0; 4*L <= blk; L *= 4 {
			radix4(zb, L, f.stages[st], conj)
			st++
		}
	}
	for L := L0 << (2 * st); 4*L <= m; L *= 4 {
		radix4(z, L, f.stages[st], conj)
		st++
	}
}

// revTile is the number of low (and high) index bits bitReverse handles together: it swaps tiles of
// 2^revTile × 2^revTile points, whose rows are whole cache lines, instead of single points scattered over
// the whole sequence.
const revTile = 3

// bitReverse permutes z (of length m = n/2) into bit-reversed order. Write an index as (hi, mid, lo) with
// hi and lo of revTile bits each: its reversal is (rev lo, rev mid, rev hi), so the points with middle bits
// mid trade places with those with middle bits rev mid, a tile at a time.
func (f *realFFT) bitReverse(z []complex128) {
	m := len(z)
	nb := bits.TrailingZeros(uint(m))
	if nb < 2*revTile+2 {
		for i, r := range f.rev {
			if j := int(r); i < j {
				z[i], z[j] = z[j], z[i]
			}
		}
		return
	}
	const A = 1 << revTile
	b := nb - 2*revTile
	sh := uint(revTile + b)
	for mid := 0; mid < 1<<b; mid++ {
		// rev mid, from the full reversal table: rev(mid<<revTile) = (rev mid)<<revTile.
		rmid := int(f.rev[mid<<revTile]) >> revTile
		if rmid < mid {
			continue
		}
		for hi := range A {
			base := hi<<sh | mid<<revTile
			for lo := range A {
				i := base | lo
				if j := int(f.rev[i]); mid < rmid || i < j {
					z[i], z[j] = z[j], z[i]
				}
			}
		}
	}
}

// radix4 runs the radix-2 stages of half-sizes L and 2L over z (a multiple of 4L long), with the stage
// twiddles tw (W_{2L}^j and W_{4L}^j interleaved; conjugated when conj).
func radix4(z []complex128, L int, tw []complex128, conj bool) {
	tw = tw[:2*L]
	if conj {
		// rot = +i: W_{4L}^{−(j+L)} = i·W_{4L}^{−j}.
		for b := 0; b+4*L <= len(z); b += 4 * L {
			q0 := z[b : b+L]
			q1 := z[b+L : b+2*L]
			q2 := z[b+2*L : b+3*L]
			q3 := z[b+3*L : b+4*L]
			for j := range q0 {
				w1, w2 := cmplxConj(tw[2*j]), cmplxConj(tw[2*j+1])
				t1, t3 := w1*q1[j], w1*q3[j]
				b0, b1 := q0[j]+t1, q0[j]-t1
				b2, b3 := q2[j]+t3, q2[j]-t3
				u, p := w2*b2, w2*b3
				v := complex(-imag(p), real(p)) // i·p, without the general multiplication by complex(0, 1)
				q0[j], q2[j] = b0+u, b0-u
				q1[j], q3[j] = b1+v, b1-v
			}
		}
		return
	}
	// rot = −i: W_{4L}^{j+L} = −i·W_{4L}^j.
	for b := 0; b+4*L <= len(z); b += 4 * L {
		q0 := z[b : b+L]
		q1 := z[b+L : b+2*L]
		q2 := z[b+2*L : b+3*L]
		q3 := z[b+3*L : b+4*L]
		for j := range q0 {
			w1, w2 := tw[2*j], tw[2*j+1]
			t1, t3 := w1*q1[j], w1*q3[j]
			b0, b1 := q0[j]+t1, q0[j]-t1
			b2, b3 := q2[j]+t3, q2[j]-t3
			u, p := w2*b2, w2*b3
			v := complex(imag(p), -real(p)) // −i·p, without the general multiplication by complex(0, −1)
			q0[j], q2[j] = b0+u, b0-u
			q1[j], q3[j] = b1+v, b1-v
		}
	}
}

// forward returns the coefficients X_k = Σ x_j e^{−2πi jk/n} for k = 0..n/2 (x has length n; it is not
// modified). buf, if long enough, is reused.
func (f *realFFT) forward(buf []complex128, x []float64) []complex128 {
	m := f.n / 2
	if cap(buf) < m+1 {
		buf = make([]complex128, m+1)
	}
	z := buf[:m]
	for j := range z {
		z[j] = complex(x[2*j], x[2*j+1])
	}
	f.cfft(z, false)
	out := buf[:m+1]
	z0 := z[0]
	// X_k = E_k + e^{−2πik/n}·O_k, E_k = (Z_k + conj Z_{m−k})/2, O_k = (Z_k − conj Z_{m−k})/(2i); pairs (k, m−k).
	for k := 1; k <= m/2; k++ {
		zk, zm := z[k], z[m-k]
		ek := halve(zk + cmplxConj(zm))
		ok := mulNegHalfI(zk - cmplxConj(zm))
		em := halve(zm + cmplxConj(zk))
		om := mulNegHalfI(zm - cmplxConj(zk))
		out[k] = ek + f.half[k]*ok
		out[m-k] = em + f.half[m-k]*om
	}
	out[0] = complex(real(z0)+imag(z0), 0)
	out[m] = complex(real(z0)-imag(z0), 0)
	return out
}

// inverse writes x_j = (1/n)·Σ_k X_k e^{2πi jk/n} (the real sequence with coefficients X, k = 0..n/2) into x;
// X is overwritten.
func (f *realFFT) inverse(x []float64, X []complex128) {
	m := f.n / 2
	// Z_k = E_k + i·O_k with E_k = (X_k + conj X_{m−k})/2, O_k = (X_k − conj X_{m−k})·e^{2πik/n}/2.
	for k := 0; k <= m/2; k++ {
		xk, xm := X[k], X[m-k]
		ek := halve(xk + cmplxConj(xm))
		ok := halve((xk - cmplxConj(xm)) * cmplxConj(f.half[k]))
		em := halve(xm + cmplxConj(xk))
		om := halve((xm - cmplxConj(xk)) * cmplxConj(f.half[m-k]))
		X[k] = addI(ek, ok)
		if k != m-k && k != 0 {
			X[m-k] = addI(em, om)
		}
	}
	// k = 0 used X_m as its partner; X_0's partner pair is complete now.
	z := X[:m]
	f.cfft(z, true)
	s := 1 / float64(m)
	for j, v := range z {
		x[2*j], x[2*j+1] = real(v)*s, imag(v)*s
	}
}

func cmplxConj(z complex128) complex128 { return complex(real(z), -imag(z)) }

// halve is z/2 (exact), without the general complex division the compiler emits for it.
func halve(z complex128) complex128 { return complex(real(z)*0.5, imag(z)*0.5) }

// mulNegHalfI is z·(−i/2) (exact).
func mulNegHalfI(z complex128) complex128 { return complex(imag(z)*0.5, -real(z)*0.5) }

// addI is a + i·b.
func addI(a, b complex128) complex128 { return complex(real(a)-imag(b), imag(a)+real(b)) }
