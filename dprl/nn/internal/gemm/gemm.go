package gemm

import (
	"fmt"
	"math"
	"math/bits"
	"runtime"
	"sync"
	"unsafe"
)

// Float is the element type: float32 or float64.
type Float interface{ float32 | float64 }

// Mat is a row-major matrix operand: element (i, j) of the stored matrix is Data[i*Stride+j]. With T set
// the product uses its transpose.
type Mat[F Float] struct {
	Data   []F
	Stride int
	T      bool
}

// kc is the depth block: the accumulator of every element restarts at each multiple of kc (see the
// package documentation), so kc is part of the result's definition and does not change with the kernel.
const kc = 256

// mr is the rows of a micro-tile (every kernel's); nrMax the most columns a kernel takes.
const (
	mr    = 12
	nrMax = 32
)

// kernelSet is a pair of micro-kernels (float64, float32) and their tile widths. A kernel sets (or adds
// to) the MR × nr tile at c, stride ldc elements, the product of the packed panels a (kb × MR) and
// b (kb × nr). dot8 marks the sets whose processors run the assembly dot8 (FMA3) for mulDirect.
type kernelSet struct {
	name       string
	nr64, nr32 int
	k64, k32   func(kb int, a, b, c unsafe.Pointer, ldc int, add bool)
	dot8       bool
}

// goKernels is the portable set (kernelGo), with the AVX-512 tile widths.
var goKernels = kernelSet{name: "go", nr64: 16, nr32: 32}

// active is the kernel set Mul uses: the best available; tests switch it.
var active = detected

// parallelFlops is the size (m·n·k) from which a product is split across workers. Waking a second worker
// costs tens of microseconds on a virtual machine (futex), more than it saves below about 4·10⁶: at 2¹⁸ the
// 256 × 256 × 8 and 256 × 4 × 256 products of an MLP step went parallel, and the issue-32 SGD step took
// 2.25 ms on two threads against 1.88 ms with this threshold.
const parallelFlops = 1 << 22

// Mul sets C (m × n, row-major with stride ldc) to op(A)·op(B), or adds it to C when add is set. op(A) is
// m × k and op(B) k × n. It panics if a slice is too short for its shape (a programmer error).
func Mul[F Float](m, n, k int, a, b Mat[F], c []F, ldc int, add bool) {
	checkShape("A", a, m, k)
	checkShape("B", b, k, n)
	if m > 0 && n > 0 && (ldc < n || len(c) < (m-1)*ldc+n) {
		panic(fmt.Sprintf("gemm: C of %d values with stride %d for %d × %d", len(c), ldc, m, n))
	}
	if m == 0 || n == 0 {
		return
	}
	if k == 0 {
		if !add {
			for i := range m {
				clear(c[i*ldc : i*ldc+n])
			}
		}
		return
	}
	if m*n*k < 1<<12 {
		mulDirect(m, n, k, a, b, c, ldc, add)
		return
	}
	ks := active
	nr := ks.nr64
	if unsafe.Sizeof(F(0)) == 4 {
		nr = ks.nr32
	}
	panels := (m + mr - 1) / mr
	workers := 1
	if m*n*k >= parallelFlops {
		workers = min(runtime.GOMAXPROCS(0), panels)
	}
	bw := (n + nr - 1) / nr * nr
	bpp := getBuf[F](bw * kc)
	defer putBuf(bpp)
	bp := *bpp
	for p0 := 0; p0 < k; p0 += kc {
		kb := min(kc, k-p0)
		packB(bp, b, p0, kb, n, nr)
		addBlock := add || p0 > 0
		if workers == 1 {
			rowBlock(ks, 0, m, p0, kb, n, nr, a, bp, c, ldc, addBlock)
			continue
		}
		var wg sync.WaitGroup
		for w := range workers {
			lo, hi := w*panels/workers*mr, min((w+1)*panels/workers*mr, m)
			wg.Go(func() { rowBlock(ks, lo, hi, p0, kb, n, nr, a, bp, c, ldc, addBlock) })
		}
		wg.Wait()
	}
}

func checkShape[F Float](name string, x Mat[F], rows, cols int) {
	r, cl := rows, cols
	if x.T {
		r, cl = cols, rows
	}
	if r == 0 || cl == 0 {
		return
	}
	if x.Stride < cl || len(x.Data) < (r-1)*x.Stride+cl {
		panic(fmt.Sprintf("gemm: %s of %d values with stride %d for a stored %d × %d", name, len(x.Data), x.Stride, r, cl))
	}
}

// at is element (i, j) of op(x).
func at[F Float](x Mat[F], i, j int) F {
	if x.T {
		return x.Data[j*x.Stride+i]
	}
	return x.Data[i*x.Stride+j]
}

// mcPanels is how many MR-row panels of A are packed at a time (96 rows × KC: within L2).
const mcPanels = 8

// rowBlock computes rows [lo, hi) of C for the depth block [p0, p0+kb), B already packed in bp.
func rowBlock[F Float](ks kernelSet, lo, hi, p0, kb, n, nr int, a Mat[F], bp []F, c []F, ldc int, add bool) {
	app := getBuf[F](mcPanels * mr * kb)
	defer putBuf(app)
	ap := *app
	var tile [mr * nrMax]F
	for i0 := lo; i0 < hi; i0 += mcPanels * mr {
		i1 := min(i0+mcPanels*mr, hi)
		packA(ap, a, i0, i1, p0, kb)
		for j := 0; j < n; j += nr {
			bpan := bp[j*kb : j*kb+nr*kb]
			for i := i0; i < i1; i += mr {
				apan := ap[(i-i0)*kb : (i-i0)*kb+mr*kb]
				if i+mr <= i1 && j+nr <= n {
					kernel(ks, kb, apan, bpan, c[i*ldc+j:], ldc, add)
					continue
				}
				// An edge tile: into the scratch tile, then the valid part to C.
				kernel(ks, kb, apan, bpan, tile[:], nr, false)
				for r := range min(mr, i1-i) {
					row := c[(i+r)*ldc+j : (i+r)*ldc+min(j+nr, n)]
					t := tile[r*nr : r*nr+len(row)]
					if add {
						for q := range row {
							row[q] += t[q]
						}
					} else {
						copy(row, t)
					}
				}
			}
		}
	}
}

// packA copies rows [i0, i1) and depth [p0, p0+kb) of op(A) into MR-row panels: panel t holds, for each depth
// step p, the MR values op(A)[i0+t·MR+r, p0+p] (zeros past i1). The writes are sequential.
func packA[F Float](dst []F, a Mat[F], i0, i1, p0, kb int) {
	for t := 0; i0+t*mr < i1; t++ {
		pan := dst[t*mr*kb : (t+1)*mr*kb]
		rows := min(mr, i1-i0-t*mr)
		base := i0 + t*mr
		if a.T { // op(A)[i, p] = Data[p·Stride + i]: each depth step is a contiguous run of rows
			for p := range kb {
				d := pan[p*mr : (p+1)*mr]
				copy(d, a.Data[(p0+p)*a.Stride+base:(p0+p)*a.Stride+base+rows])
				clear(d[rows:])
			}
			continue
		}
		var src [mr][]F
		for r := range rows {
			src[r] = a.Data[(base+r)*a.Stride+p0 : (base+r)*a.Stride+p0+kb]
		}
		gather(pan, src[:rows], mr, kb)
	}
}

// gather writes dst[p·w + r] = src[r][p] for p < kb, r < w (zero where r ≥ len(src)), in order.
func gather[F Float](dst []F, src [][]F, w, kb int) {
	if len(src) == w && w == mr {
		s0, s1, s2, s3, s4, s5 := src[0][:kb], src[1][:kb], src[2][:kb], src[3][:kb], src[4][:kb], src[5][:kb]
		s6, s7, s8, s9, s10, s11 := src[6][:kb], src[7][:kb], src[8][:kb], src[9][:kb], src[10][:kb], src[11][:kb]
		for p := range kb {
			d := dst[p*mr : p*mr+mr : p*mr+mr]
			d[0], d[1], d[2], d[3], d[4], d[5] = s0[p], s1[p], s2[p], s3[p], s4[p], s5[p]
			d[6], d[7], d[8], d[9], d[10], d[11] = s6[p], s7[p], s8[p], s9[p], s10[p], s11[p]
		}
		return
	}
	for p := range kb {
		d := dst[p*w : (p+1)*w]
		for r := range src {
			d[r] = src[r][p]
		}
		clear(d[len(src):])
	}
}

// packB copies depth [p0, p0+kb) of op(B) (k × n) into NR-column panels: panel t holds, for each depth step
// p, the NR values op(B)[p0+p, t·NR+j] (zeros past n).
func packB[F Float](dst []F, b Mat[F], p0, kb, n, nr int) {
	var src [nrMax][]F
	for j0 := 0; j0 < n; j0 += nr {
		pan := dst[j0*kb : j0*kb+nr*kb]
		cols := min(nr, n-j0)
		if b.T { // op(B)[p, j] = Data[j·Stride + p]: gather the columns' rows
			for j := range cols {
				src[j] = b.Data[(j0+j)*b.Stride+p0 : (j0+j)*b.Stride+p0+kb]
			}
			gather(pan, src[:cols], nr, kb)
			continue
		}
		for p := range kb {
			row := pan[p*nr : (p+1)*nr]
			copy(row, b.Data[(p0+p)*b.Stride+j0:(p0+p)*b.Stride+j0+cols])
			clear(row[cols:])
		}
	}
}

// mulDirect is the product without the micro-kernel, for small shapes: dot products of rows where op(B) is
// a transposed matrix and op(A) is not (the forward pass), else rows of C accumulated from rows of op(B). The
// accumulation order is the kernel's (see the package documentation), so the bits are the same.
func mulDirect[F Float](m, n, k int, a, b Mat[F], c []F, ldc int, add bool) {
	if b.T && !a.T {
		for i := range m {
			arow := a.Data[i*a.Stride : i*a.Stride+k]
			crow := c[i*ldc : i*ldc+n]
			for p0 := 0; p0 < k; p0 += kc {
				p1 := min(p0+kc, k)
				var acc [8]F
				for j := 0; j < n; j += 8 {
					// Eight columns at a time: eight independent chains of fused multiply-adds.
					w := min(8, n-j)
					if w == 8 && active.dot8 {
						_ = b.Data[(j+7)*b.Stride+p1-1] // the eight rows lie inside b
						dot8(p1-p0, &arow[p0], &b.Data[j*b.Stride+p0], b.Stride, &acc)
					} else {
						var rows [8][]F
						for t := range w {
							rows[t] = b.Data[(j+t)*b.Stride+p0 : (j+t)*b.Stride+p1]
						}
						dotFMA(acc[:w], arow[p0:p1], rows[:w])
					}
					for t := range w {
						if add || p0 > 0 {
							crow[j+t] += acc[t]
						} else {
							crow[j+t] = acc[t]
						}
					}
				}
			}
		}
		return
	}
	// op(B) row p: b's row p, or (b transposed) row p of a copy bt.
	bRows, bStride := b.Data, b.Stride
	var acc []F
	if b.T {
		p := getBuf[F](k*n + n)
		defer putBuf(p)
		bt := *p
		for q := range k {
			for j := range n {
				bt[q*n+j] = b.Data[j*b.Stride+q]
			}
		}
		bRows, bStride, acc = bt[:k*n], n, bt[k*n:]
	} else {
		p := getBuf[F](n)
		defer putBuf(p)
		acc = *p
	}
	for i := range m {
		row := c[i*ldc : i*ldc+n]
		for p0 := 0; p0 < k; p0 += kc {
			clear(acc)
			for p := p0; p < min(p0+kc, k); p++ {
				fmaRow(acc, at(a, i, p), bRows[p*bStride:p*bStride+n])
			}
			if add || p0 > 0 {
				for j := range row {
					row[j] += acc[j]
				}
			} else {
				copy(row, acc)
			}
		}
	}
}

// kernel multiplies an MR-row panel by an nr-column panel into a tile of C with the set's kernel (kernelGo
// for the portable set). The tile must lie inside c.
func kernel[F Float](ks kernelSet, kb int, a, b, c []F, ldc int, add bool) {
	k := ks.k64
	if unsafe.Sizeof(F(0)) == 4 {
		k = ks.k32
	}
	if k == nil {
		kernelGo(kb, a, b, c, ldc, add)
		return
	}
	k(kb, unsafe.Pointer(&a[0]), unsafe.Pointer(&b[0]), unsafe.Pointer(&c[0]), ldc, add)
}

// kernelGo is the portable micro-kernel: tile (MR × nr, stride ldc) of C = (or +=) the product of an MR-row
// panel and an nr-column panel of depth kb.
func kernelGo[F Float](kb int, a, b, c []F, ldc int, add bool) {
	nr := len(b) / kb
	var acc [mr * nrMax]F
	for p := range kb {
		ap, bp := a[p*mr:(p+1)*mr], b[p*nr:(p+1)*nr]
		for r, av := range ap {
			fmaRow(acc[r*nr:(r+1)*nr], av, bp)
		}
	}
	for r := range mr {
		row := c[r*ldc : r*ldc+nr]
		if add {
			for j := range row {
				row[j] += acc[r*nr+j]
			}
		} else {
			copy(row, acc[r*nr:(r+1)*nr])
		}
	}
}

// fmaRow sets acc[j] = x·b[j] + acc[j] rounded once, for every j.
func fmaRow[F Float](acc []F, x F, b []F) {
	b = b[:len(acc)]
	if is32[F]() {
		a, bb, xf := as32(acc), as32(b), float32(x)
		for j, v := range bb {
			a[j] = fma32(xf, v, a[j])
		}
		return
	}
	a, bb, xf := as64(acc), as64(b), float64(x)
	for j, v := range bb {
		a[j] = math.FMA(xf, v, a[j])
	}
}

// is32 reports whether F is float32; as64 and as32 view a []F as its concrete type (no interface
// conversion: a slice converted to an interface is allocated).
func is32[F Float]() bool { return unsafe.Sizeof(F(0)) == 4 }

func as64[F Float](x []F) []float64 {
	return unsafe.Slice((*float64)(unsafe.Pointer(unsafe.SliceData(x))), len(x))
}

func as32[F Float](x []F) []float32 {
	return unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(x))), len(x))
}

// dotFMA sets acc[t] = Σ_p x[p]·ys[t][p] (len(acc) = len(ys) ≤ 8), each accumulated from 0 by fused
// multiply-adds in order.
func dotFMA[F Float](acc []F, x []F, ys [][]F) {
	for t, y := range ys {
		y := y[:len(x)]
		if is32[F]() {
			var s float32
			for p, v := range as32(x) {
				s = fma32(v, as32(y)[p], s)
			}
			acc[t] = F(s)
			continue
		}
		s := 0.0
		for p, v := range as64(x) {
			s = math.FMA(v, as64(y)[p], s)
		}
		acc[t] = F(s)
	}
}

// fma32 is the float32 fused multiply-add, exactly rounded: the product of two float32 values is exact in
// float64; the sum is rounded to float64 with round-to-odd (from the exact error of the rounded-to-nearest
// sum), and a round-to-odd value with at least two more bits than float32 rounds to float32 exactly as the
// exact sum would.
func fma32(x, y, z float32) float32 {
	p, w := float64(x)*float64(y), float64(z)
	s := p + w
	if math.IsInf(s, 0) || math.IsNaN(s) {
		return float32(s)
	}
	bb := s - p
	e := (p - (s - bb)) + (w - bb) // s + e = p + w exactly
	if bits := math.Float64bits(s); e != 0 && bits&1 == 0 {
		if (e > 0) == (s > 0) {
			bits++
		} else {
			bits--
		}
		s = math.Float64frombits(bits)
	}
	return float32(s)
}

// pools holds scratch buffers by element size ([0] float32, [1] float64) and capacity class (2^c).
var pools [2][40]sync.Pool

// getBuf returns a pooled buffer of n values (*p[:n]); return it with putBuf(p).
func getBuf[F Float](n int) *[]F {
	i, c := int(unsafe.Sizeof(F(0))/8), bits.Len(uint(max(n, 64)-1))
	if p, ok := pools[i][c].Get().(*[]F); ok {
		*p = (*p)[:n]
		return p
	}
	b := make([]F, n, 1<<c)
	return &b
}

func putBuf[F Float](p *[]F) {
	i, c := int(unsafe.Sizeof(F(0))/8), bits.Len(uint(cap(*p)-1))
	pools[i][c].Put(p)
}
