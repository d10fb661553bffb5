package gauss

import (
	"math"
	"math/rand/v2"
	"testing"
)

// withPortable runs f with the assembly kernel switched off (a no-op where there is none).
func withPortable(f func()) {
	if !hasAVX512 {
		f()
		return
	}
	setAVX512(false)
	defer setAVX512(true)
	f()
}

// TestKernelMatchesPortable: the assembly kernel and the portable path give the same bits, at lengths
// around the iteration (124) and chunk (1984) boundaries, in both precisions; and the words the kernel
// leaves are math/rand/v2's ChaCha8 outputs.
func TestKernelMatchesPortable(t *testing.T) {
	if !hasAVX512 {
		t.Skip("no AVX-512 kernel on this processor: the portable path is the only one")
	}
	for _, n := range []int{1, 3, 4, 5, 123, 124, 125, 248, 1983, 1984, 1985, 3 * ChunkLen, 4*ChunkLen + 7} {
		key := [4]uint64{uint64(n), 7, 8, 9}
		x := make([]float64, n)
		x32 := make([]float32, n)
		for i := range x {
			x[i] = float64(i%7) - 3
			x32[i] = float32(x[i])
		}
		y, y32 := append([]float64(nil), x...), append([]float32(nil), x32...)
		Add([][]float64{x}, 0.75, 0.5, key)
		Add([][]float32{x32}, 0.75, 0.5, key)
		withPortable(func() {
			Add([][]float64{y}, 0.75, 0.5, key)
			Add([][]float32{y32}, 0.75, 0.5, key)
		})
		for i := range x {
			if math.Float64bits(x[i]) != math.Float64bits(y[i]) || math.Float32bits(x32[i]) != math.Float32bits(y32[i]) {
				t.Fatalf("n = %d, element %d: kernel %v %v, portable %v %v", n, i, x[i], x32[i], y[i], y32[i])
			}
		}
	}
	// The words: one chunk of a vector, against the stdlib generator seeded as Add seeds chunk 0.
	var s scratch
	master := rand.NewChaCha8(seedBytes([4]uint64{1, 2, 3, 4}))
	seed := [4]uint64{master.Uint64(), master.Uint64(), master.Uint64(), master.Uint64()}
	fillChunk(&s, [][]float64{make([]float64, ChunkLen)}, seed, 1, 1)
	ref := rand.NewChaCha8(seedBytes(seed))
	for j := range ChunkLen {
		if w := ref.Uint64(); s.words[j] != w {
			t.Fatalf("word %d = %#x, want %#x", j, s.words[j], w)
		}
	}
}

// TestRetryWords: the words that finish rejected coordinates continue the chunk's generator, past the
// iteration the kernel computes ahead.
func TestRetryWords(t *testing.T) {
	if !hasAVX512 {
		t.Skip("no AVX-512 kernel on this processor")
	}
	seed := [4]uint64{5, 6, 7, 8}
	ref := rand.NewChaCha8(seedBytes(seed))
	var s scratch
	s.startRetry(seed)
	for i := range 3 * iterWords {
		if w, want := s.retryNext(), ref.Uint64(); w != want {
			t.Fatalf("retry word %d = %#x, want %#x", i, w, want)
		}
	}
}
