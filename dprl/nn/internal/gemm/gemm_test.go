package gemm

import (
	"math"
	"math/big"
	"math/rand/v2"
	"runtime"
	"testing"
)

func randMat[F Float](rng *rand.Rand, rows, cols, stride int) []F {
	x := make([]F, max(rows-1, 0)*stride+cols)
	for i := range x {
		x[i] = F(rng.NormFloat64())
	}
	return x
}

// naive is the product by the defining order (see the package documentation), written independently of
// mulDirect: one accumulator per depth block, fused multiply-adds in order.
func naive[F Float](m, n, k int, a, b Mat[F], c []F, ldc int, add bool) []F {
	out := append([]F(nil), c...)
	for i := range m {
		for j := range n {
			v := out[i*ldc+j]
			for blk := 0; blk*kc < k; blk++ {
				var acc F
				for p := blk * kc; p < min((blk+1)*kc, k); p++ {
					acc = fma(at(a, i, p), at(b, p, j), acc)
				}
				if blk == 0 && !add {
					v = acc
				} else {
					v += acc
				}
			}
			out[i*ldc+j] = v
		}
	}
	return out
}

// fma is x·y + z rounded once, in F.
func fma[F Float](x, y, z F) F {
	if is32[F]() {
		return F(fma32(float32(x), float32(y), float32(z)))
	}
	return F(math.FMA(float64(x), float64(y), float64(z)))
}

type shape struct{ m, n, k int }

var shapes = []shape{
	{1, 1, 1}, {3, 5, 7}, {12, 16, 1}, {12, 32, 3}, {13, 17, 5}, {256, 4, 256}, {4, 256, 256},
	{256, 256, 4}, {256, 8, 256}, {100, 70, 300}, {37, 129, 513}, {25, 33, 256}, {96, 64, 64},
}

// TestMulExact checks every shape, transposition and mode against the defining order bit for bit, with
// the assembly kernels and with the Go kernel, on strides wider than the matrices.
func TestMulExact(t *testing.T) {
	t.Run("float64", func(t *testing.T) { testMulExact[float64](t) })
	t.Run("float32", func(t *testing.T) { testMulExact[float32](t) })
}

func testMulExact[F Float](t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	defer func() { active = detected }()
	for _, ks := range available() {
		active = ks
		for _, s := range shapes {
			for _, ta := range []bool{false, true} {
				for _, tb := range []bool{false, true} {
					for _, add := range []bool{false, true} {
						ar, ac := s.m, s.k
						if ta {
							ar, ac = ac, ar
						}
						br, bc := s.k, s.n
						if tb {
							br, bc = bc, br
						}
						a := Mat[F]{randMat[F](rng, ar, ac, ac+3), ac + 3, ta}
						b := Mat[F]{randMat[F](rng, br, bc, bc+1), bc + 1, tb}
						ldc := s.n + 2
						c := randMat[F](rng, s.m, s.n, ldc)
						want := naive(s.m, s.n, s.k, a, b, c, ldc, add)
						Mul(s.m, s.n, s.k, a, b, c, ldc, add)
						for i := range c {
							if math.Float64bits(float64(c[i])) != math.Float64bits(float64(want[i])) {
								t.Fatalf("%s %v ta=%v tb=%v add=%v: c[%d] = %v, want %v", ks.name, s, ta, tb, add, i, c[i], want[i])
							}
						}
					}
				}
			}
		}
	}
}

// TestMulAccuracy compares with the product in exact arithmetic: the error is within the usual bound
// k·u·Σ|a||b| (u the unit roundoff).
func TestMulAccuracy(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	m, n, k := 40, 50, 600
	a := Mat[float64]{randMat[float64](rng, m, k, k), k, false}
	b := Mat[float64]{randMat[float64](rng, k, n, n), n, false}
	c := make([]float64, m*n)
	Mul(m, n, k, a, b, c, n, false)
	for i := range m {
		for j := range n {
			exact, abs := new(big.Float).SetPrec(2000), 0.0
			for p := range k {
				x, y := at(a, i, p), at(b, p, j)
				exact.Add(exact, new(big.Float).Mul(big.NewFloat(x), big.NewFloat(y)))
				abs += math.Abs(x * y)
			}
			e, _ := exact.Float64()
			if d := math.Abs(c[i*n+j] - e); d > float64(k)*0x1p-53*abs {
				t.Fatalf("c[%d,%d] = %v, exact %v: error %g above %g", i, j, c[i*n+j], e, d, float64(k)*0x1p-53*abs)
			}
		}
	}
}

// TestMulWorkers: the result is the same bit for bit whatever GOMAXPROCS (the rows are split differently).
func TestMulWorkers(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	m, n, k := 256, 256, 300
	a := Mat[float64]{randMat[float64](rng, m, k, k), k, false}
	b := Mat[float64]{randMat[float64](rng, n, k, k), k, true}
	var outs [][]float64
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, procs := range []int{1, 2, 3, 7} {
		runtime.GOMAXPROCS(procs)
		c := make([]float64, m*n)
		Mul(m, n, k, a, b, c, n, false)
		outs = append(outs, c)
	}
	for w := 1; w < len(outs); w++ {
		for i := range outs[0] {
			if outs[w][i] != outs[0][i] {
				t.Fatalf("run %d differs at %d: %v vs %v", w, i, outs[w][i], outs[0][i])
			}
		}
	}
}

// TestRowAloneOrInBatch: a row of A multiplied alone gives the same row of C as within a batch.
func TestRowAloneOrInBatch(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	m, n, k := 256, 64, 300
	a := Mat[float32]{randMat[float32](rng, m, k, k), k, false}
	b := Mat[float32]{randMat[float32](rng, n, k, k), k, true}
	c := make([]float32, m*n)
	Mul(m, n, k, a, b, c, n, false)
	for _, i := range []int{0, 11, 12, 100, 255} {
		row := make([]float32, n)
		Mul(1, n, k, Mat[float32]{a.Data[i*k : (i+1)*k], k, false}, b, row, n, false)
		for j := range row {
			if row[j] != c[i*n+j] {
				t.Fatalf("row %d col %d: alone %v, in batch %v", i, j, row[j], c[i*n+j])
			}
		}
	}
}

// TestFMA32 checks the emulated float32 fused multiply-add against exact rounding, on random values and
// on cases built to sit near a rounding boundary (where rounding twice would go wrong).
func TestFMA32(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	exact := func(x, y, z float32) float32 {
		v := new(big.Float).SetPrec(1000).Mul(big.NewFloat(float64(x)), big.NewFloat(float64(y)))
		v.Add(v, big.NewFloat(float64(z)))
		f, _ := v.Float32()
		return f
	}
	check := func(x, y, z float32) {
		if got, want := fma32(x, y, z), exact(x, y, z); got != want && !(got == 0 && want == 0) {
			t.Fatalf("fma32(%v, %v, %v) = %v, want %v", x, y, z, got, want)
		}
	}
	for range 200000 {
		x, y := float32(rng.NormFloat64()), float32(rng.NormFloat64())
		p := float64(x) * float64(y)
		// z = −(p rounded to float32) plus a few ulps: the sum is tiny and needs the product's low bits.
		z := -float32(p)
		z = math.Float32frombits(math.Float32bits(z) + uint32(rng.IntN(5)) - 2)
		check(x, y, z)
		check(x, y, float32(rng.NormFloat64())*float32(math.Ldexp(1, rng.IntN(60)-30)))
	}
	// A product exactly halfway between two float32 values plus a tiny z: double rounding would tie-break.
	half := float32(1 + 0x1p-23)
	check(half, half, 0x1p-60)
	check(half, half, -0x1p-60)
	check(float32(math.Inf(1)), 1, 1)
	check(3, 4, float32(math.Inf(-1)))
}

func BenchmarkMul256(b *testing.B) {
	for _, ks := range available() {
		b.Run("float64/"+ks.name, func(b *testing.B) { benchMul[float64](b, ks) })
		b.Run("float32/"+ks.name, func(b *testing.B) { benchMul[float32](b, ks) })
	}
}

func benchMul[F Float](b *testing.B, ks kernelSet) {
	active = ks
	defer func() { active = detected }()
	rng := rand.New(rand.NewPCG(1, 1))
	const n = 256
	x := Mat[F]{randMat[F](rng, n, n, n), n, false}
	y := Mat[F]{randMat[F](rng, n, n, n), n, true}
	c := make([]F, n*n)
	for b.Loop() {
		Mul(n, n, n, x, y, c, n, false)
	}
	b.ReportMetric(2*n*n*n/(float64(b.Elapsed().Nanoseconds())/float64(b.N)), "GFLOP/s")
}

// TestSumSq: every kernel gives the defining order's bits (written out here independently), at lengths
// around the block of 16, and the sum is Σ x² to rounding.
func TestSumSq(t *testing.T) {
	t.Run("float64", func(t *testing.T) { testSumSq[float64](t) })
	t.Run("float32", func(t *testing.T) { testSumSq[float32](t) })
}

func testSumSq[F Float](t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	defer func() { active = detected }()
	for _, n := range []int{0, 1, 4, 8, 15, 16, 17, 31, 32, 33, 256, 263, 1000} {
		x := randMat[F](rng, 1, n, n)
		var acc [16]float64
		for j, v := range x {
			acc[j%16] = math.FMA(float64(v), float64(v), acc[j%16])
		}
		r8 := [8]float64{}
		for k := range r8 {
			r8[k] = acc[k] + acc[k+8]
		}
		r4 := [4]float64{r8[0] + r8[4], r8[1] + r8[5], r8[2] + r8[6], r8[3] + r8[7]}
		want := (r4[0] + r4[2]) + (r4[1] + r4[3])
		plain := 0.0
		for _, v := range x {
			plain += float64(v) * float64(v)
		}
		for _, ks := range available() {
			active = ks
			if got := SumSq(x); math.Float64bits(got) != math.Float64bits(want) || math.Abs(got-plain) > 1e-13*plain {
				t.Errorf("%s, n = %d: SumSq = %v, defining order %v, plain sum %v", ks.name, n, got, want, plain)
			}
		}
	}
}
