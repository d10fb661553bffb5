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
	twc  []complex128 // their conjugates
	half []complex128 // e^{−2πik/n}, k ≤ n/2
	rev  []int32      // bit reversal of log₂(n/2) bits
}

func newRealFFT(n int) *realFFT {
	m := n / 2
	f := &realFFT{n: n, tw: make([]complex128, m/2), twc: make([]complex128, m/2), half: make([]complex128, m+1), rev: make([]int32, m)}
	for j := range f.tw {
		s, c := math.Sincos(-2 * math.Pi * float64(j) / float64(m))
		f.tw[j], f.twc[j] = complex(c, s), complex(c, -s)
	}
	for k := range f.half {
		s, c := math.Sincos(-2 * math.Pi * float64(k) / float64(n))
		f.half[k] = complex(c, s)
	}
	shift := 64 - uint(bits.TrailingZeros(uint(m)))
	for i := range f.rev {
		f.rev[i] = int32(bits.Reverse64(uint64(i)) >> shift)
	}
	return f
}

// cfft transforms z in place (e^{−2πi jk/m} kernel; conj = true for e^{+2πi jk/m}), unnormalised: bit
// reversal, then the radix-2 stages two at a time (one pass over the data per pair), after a single
// size-2 stage when log₂m is odd.
func (f *realFFT) cfft(z []complex128, conj bool) {
	m := len(z)
	for i, r := range f.rev {
		if j := int(r); i < j {
			z[i], z[j] = z[j], z[i]
		}
	}
	tw := f.tw
	if conj {
		tw = f.twc
	}
	L := 1 // current butterfly half-size
	if bits.TrailingZeros(uint(m))%2 == 1 {
		for i := 0; i < m; i += 2 {
			a, b := z[i], z[i+1]
			z[i], z[i+1] = a+b, a-b
		}
		L = 2
	}
	// rot is −i (forward) or +i (inverse): W_{4L}^{j+L} = rot·W_{4L}^j.
	rot := complex(0, -1)
	if conj {
		rot = complex(0, 1)
	}
	for ; 4*L <= m; L *= 4 {
		s1, s2 := m/(2*L), m/(4*L)
		for b := 0; b < m; b += 4 * L {
			q0 := z[b : b+L]
			q1 := z[b+L : b+2*L]
			q2 := z[b+2*L : b+3*L]
			q3 := z[b+3*L : b+4*L]
			for j := range q0 {
				w1, w2 := tw[j*s1], tw[j*s2]
				t1, t3 := w1*q1[j], w1*q3[j]
				b0, b1 := q0[j]+t1, q0[j]-t1
				b2, b3 := q2[j]+t3, q2[j]-t3
				u, v := w2*b2, rot*(w2*b3)
				q0[j], q2[j] = b0+u, b0-u
				q1[j], q3[j] = b1+v, b1-v
			}
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
		ek := (zk + cmplxConj(zm)) / 2
		ok := (zk - cmplxConj(zm)) * complex(0, -0.5)
		em := (zm + cmplxConj(zk)) / 2
		om := (zm - cmplxConj(zk)) * complex(0, -0.5)
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
		ek := (xk + cmplxConj(xm)) / 2
		ok := (xk - cmplxConj(xm)) * cmplxConj(f.half[k]) / 2
		em := (xm + cmplxConj(xk)) / 2
		om := (xm - cmplxConj(xk)) * cmplxConj(f.half[m-k]) / 2
		X[k] = ek + complex(0, 1)*ok
		if k != m-k && k != 0 {
			X[m-k] = em + complex(0, 1)*om
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
