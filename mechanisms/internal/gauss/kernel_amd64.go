//go:build !purego

package gauss

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

//go:generate go run asm_gen.go

// hasAVX512 reports whether the processor and operating system run AVX-512 (AVX512F with the opmask and
// ZMM state enabled, as golang.org/x/sys/cpu reports it); tests switch it off to run the portable path.
var hasAVX512 = cpu.X86.HasAVX512F

// zig64 runs iters iterations of math/rand/v2's ChaCha8 generator from seed (leaving the next iteration's
// seed in it) and for each writes the iteration's 124 words to words (plus 4 more, overwritten by the next
// iteration), adds σ·z to the elements of dst (124 an iteration, then times scale) whose word the
// ziggurat's fast step accepts, and sets the bits of the others in rej: bit b of byte 16k + r for word
// 8r + b of iteration k.
//
//go:noescape
func zig64(seed *[4]uint64, iters int, dst unsafe.Pointer, words *uint64, rej *uint8, sigma, scale float64)

// zig32 is zig64 for float32 elements (the sum formed in float64, then rounded).
//
//go:noescape
func zig32(seed *[4]uint64, iters int, dst unsafe.Pointer, words *uint64, rej *uint8, sigma, scale float64)

// chacha8x16 writes iters iterations of math/rand/v2's ChaCha8 generator from seed to words (124 words an
// iteration, plus 4 more) and leaves the next iteration's seed in seed.
//
//go:noescape
func chacha8x16(seed *[4]uint64, iters int, words *uint64)

// kernel runs zig64 or zig32 on dst's element type; dst holds iters·124 elements. (Direct calls, so that
// nothing escapes to the heap.)
func kernel[F Float](seed *[4]uint64, iters int, dst []F, words []uint64, rej []uint8, sigma, scale float64) {
	_, _ = words[iters*iterWords+3], rej[iters*16-1]
	p := unsafe.Pointer(&dst[:iters*iterWords][0])
	if unsafe.Sizeof(F(0)) == 4 {
		zig32(seed, iters, p, &words[0], &rej[0], sigma, scale)
	} else {
		zig64(seed, iters, p, &words[0], &rej[0], sigma, scale)
	}
}

// setAVX512 switches the kernel on or off (tests).
func setAVX512(on bool) { hasAVX512 = on && cpu.X86.HasAVX512F }
