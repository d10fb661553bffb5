package mechanisms

import (
	"math"
	"math/bits"
	"math/cmplx"
	"math/rand/v2"
	"testing"
)

// TestRealFFT compares the transform with a direct DFT and checks that inverse(forward(x)) = x.
func TestRealFFT(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{4, 8, 16, 32, 64, 1024, 2048} {
		x := make([]float64, n)
		for i := range x {
			x[i] = r.Float64() - 0.3
		}
		f := newRealFFT(n)
		X := f.forward(nil, x)
		for k := 0; k <= n/2; k++ {
			var want complex128
			for j, v := range x {
				want += complex(v, 0) * cmplx.Exp(complex(0, -2*math.Pi*float64(j*k)/float64(n)))
			}
			if cmplx.Abs(X[k]-want) > 1e-12*float64(n) {
				t.Errorf("n=%d k=%d: %v, want %v", n, k, X[k], want)
			}
		}
		y := make([]float64, n)
		f.inverse(y, X)
		for i := range x {
			if math.Abs(y[i]-x[i]) > 1e-13 {
				t.Errorf("n=%d: round trip x[%d] = %g, want %g", n, i, y[i], x[i])
				break
			}
		}
	}
}

// BenchmarkRealFFT262144 is one forward and one inverse transform of the length of the PLD benchmark's grid.
func BenchmarkRealFFT262144(b *testing.B) {
	const n = 1 << 18
	f := newRealFFT(n)
	r := rand.New(rand.NewPCG(1, 2))
	x := make([]float64, n)
	for i := range x[:n/8] {
		x[i] = r.Float64()
	}
	buf := make([]complex128, n/2+1)
	for b.Loop() {
		X := f.forward(buf, x)
		f.inverse(x, X)
	}
}

// cfftStageByStage is the transform cfft computes, one pair of radix-2 stages at a time over the whole
// sequence, with the twiddles read from tw by stride (the order before cfft was blocked).
func cfftStageByStage(f *realFFT, z []complex128, conj bool) {
	m := len(z)
	for i, r := range f.rev {
		if j := int(r); i < j {
			z[i], z[j] = z[j], z[i]
		}
	}
	L := 1
	if bits.TrailingZeros(uint(m))%2 == 1 {
		for i := 0; i < m; i += 2 {
			a, b := z[i], z[i+1]
			z[i], z[i+1] = a+b, a-b
		}
		L = 2
	}
	rot := complex(0, -1)
	if conj {
		rot = complex(0, 1)
	}
	for ; 4*L <= m; L *= 4 {
		s1, s2 := m/(2*L), m/(4*L)
		for b := 0; b < m; b += 4 * L {
			for j := range L {
				w1, w2 := f.tw[j*s1], f.tw[j*s2]
				if conj {
					w1, w2 = cmplxConj(w1), cmplxConj(w2)
				}
				i0, i1, i2, i3 := b+j, b+L+j, b+2*L+j, b+3*L+j
				t1, t3 := w1*z[i1], w1*z[i3]
				b0, b1 := z[i0]+t1, z[i0]-t1
				b2, b3 := z[i2]+t3, z[i2]-t3
				u, v := w2*b2, rot*(w2*b3)
				z[i0], z[i2] = b0+u, b0-u
				z[i1], z[i3] = b1+v, b1-v
			}
		}
	}
}

// TestCFFTBlockedIsStageByStage: the blocked transform gives the stage-by-stage one bit for bit, below,
// at and above the block size, both ways.
func TestCFFTBlockedIsStageByStage(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{4, 8, 16, 64, 2 * cfftBlock, 4 * cfftBlock, 8 * cfftBlock, 64 * cfftBlock} {
		f := newRealFFT(n)
		for _, conj := range []bool{false, true} {
			z := make([]complex128, n/2)
			for i := range z {
				z[i] = complex(r.NormFloat64(), r.NormFloat64())
			}
			want := append([]complex128(nil), z...)
			cfftStageByStage(f, want, conj)
			f.cfft(z, conj)
			for i := range z {
				if math.Float64bits(real(z[i])) != math.Float64bits(real(want[i])) ||
					math.Float64bits(imag(z[i])) != math.Float64bits(imag(want[i])) {
					t.Fatalf("n=%d conj=%v: z[%d] = %v, stage by stage %v", n, conj, i, z[i], want[i])
				}
			}
		}
	}
}
