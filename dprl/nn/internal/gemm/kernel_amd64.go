//go:build !purego

package gemm

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

//go:generate go run asm_gen.go

// detected is the best kernel set the processor and operating system support (golang.org/x/sys/cpu checks
// both: the CPUID feature bits and the register state XGETBV reports enabled).
var detected = detect()

func detect() kernelSet {
	switch {
	case !cpu.X86.HasFMA:
		return goKernels
	case cpu.X86.HasAVX512F:
		return avx512Kernels
	case cpu.X86.HasAVX2:
		return avx2Kernels
	}
	return goKernels
}

var (
	avx512Kernels = kernelSet{"avx512", 16, 32, kernel64, kernel32, true}
	avx2Kernels   = kernelSet{"avx2", 4, 8, kernel64avx2, kernel32avx2, true}
)

// available lists the kernel sets this processor can run, best first.
func available() []kernelSet {
	switch detected.name {
	case "avx512":
		return []kernelSet{avx512Kernels, avx2Kernels, goKernels}
	case "avx2":
		return []kernelSet{avx2Kernels, goKernels}
	}
	return []kernelSet{goKernels}
}

// kernel64 is the 12 × 16 float64 AVX-512 micro-kernel: c (12 rows of 16, stride ldc elements) = (or +=)
// the product of the packed panels a (kb × 12) and b (kb × 16).
//
//go:noescape
func kernel64(kb int, a, b, c unsafe.Pointer, ldc int, add bool)

// kernel32 is the 12 × 32 float32 AVX-512 micro-kernel.
//
//go:noescape
func kernel32(kb int, a, b, c unsafe.Pointer, ldc int, add bool)

// kernel64avx2 is the 12 × 4 float64 AVX2 micro-kernel.
//
//go:noescape
func kernel64avx2(kb int, a, b, c unsafe.Pointer, ldc int, add bool)

// kernel32avx2 is the 12 × 8 float32 AVX2 micro-kernel.
//
//go:noescape
func kernel32avx2(kb int, a, b, c unsafe.Pointer, ldc int, add bool)

// dot8 sets out[t] = Σ_{p<k} x[p]·w[t·stride + p] for t < 8 with dot8x64 or dot8x32 (called directly, so
// that out stays on the caller's stack).
func dot8[F Float](k int, x, w *F, stride int, out *[8]F) {
	if unsafe.Sizeof(F(0)) == 4 {
		dot8x32(k, unsafe.Pointer(x), unsafe.Pointer(w), stride, unsafe.Pointer(out))
	} else {
		dot8x64(k, unsafe.Pointer(x), unsafe.Pointer(w), stride, unsafe.Pointer(out))
	}
}

// dot8x64 sets out[t] = Σ_{p<k} x[p]·w[t·stride + p] for t < 8, each sum accumulated from 0 by fused
// multiply-adds in order (scalar FMA3 instructions).
//
//go:noescape
func dot8x64(k int, x, w unsafe.Pointer, stride int, out unsafe.Pointer)

// dot8x32 is dot8x64 in float32.
//
//go:noescape
func dot8x32(k int, x, w unsafe.Pointer, stride int, out unsafe.Pointer)

// sumSqBlocks runs the set's sumSq kernel for F on blocks·16 values at x (called directly, so that acc
// stays on the caller's stack).
func sumSqBlocks[F Float](ks kernelSet, x *F, blocks int, acc *[16]float64) {
	p := unsafe.Pointer(x)
	switch {
	case ks.name == "avx512" && is32[F]():
		sumSq32(p, blocks, acc)
	case ks.name == "avx512":
		sumSq64(p, blocks, acc)
	case is32[F]():
		sumSq32avx2(p, blocks, acc)
	default:
		sumSq64avx2(p, blocks, acc)
	}
}

// sumSq64 adds the squares of blocks·16 float64 values at x to 16 accumulators (element k of a block to
// accumulator k, by fused multiply-adds in order, from 0) and stores them to acc: AVX-512, two registers.
//
//go:noescape
func sumSq64(x unsafe.Pointer, blocks int, acc *[16]float64)

// sumSq32 is sumSq64 for float32 values, each converted to float64 exactly.
//
//go:noescape
func sumSq32(x unsafe.Pointer, blocks int, acc *[16]float64)

// sumSq64avx2 is sumSq64 with AVX2 and FMA3: four registers.
//
//go:noescape
func sumSq64avx2(x unsafe.Pointer, blocks int, acc *[16]float64)

// sumSq32avx2 is sumSq32 with AVX2 and FMA3.
//
//go:noescape
func sumSq32avx2(x unsafe.Pointer, blocks int, acc *[16]float64)
