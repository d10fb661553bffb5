package gauss

import (
	"encoding/binary"
	"math"
	"math/bits"
	"math/rand/v2"
	"runtime"
	"sync"
)

// Float is an element type of the vectors Add fills.
type Float interface{ float32 | float64 }

const (
	// iterWords is the number of words one ChaCha8 iteration of math/rand/v2's generator yields (of the 128
	// it computes, the last 4 seed the next iteration).
	iterWords = 124
	// ChunkLen is the number of coordinates that share one generator: 16 iterations.
	ChunkLen = 16 * iterWords
	// parallelMin is the length from which Add splits the chunks across GOMAXPROCS workers.
	parallelMin = 4 * ChunkLen
)

// Add sets x[i] to F((x[i] + sigma·Z_i)·scale), the sum formed in float64 and rounded once, for the
// standard normals Z_i that key defines, where x is the concatenation of the slices of dst in order (see
// the package documentation). The result depends only on key, the values and the total length: not on
// how x is cut into slices, GOMAXPROCS or the processor's instruction set.
func Add[F Float](dst [][]F, sigma, scale float64, key [4]uint64) {
	n := 0
	for _, d := range dst {
		n += len(d)
	}
	if n == 0 {
		return
	}
	chunks := (n + ChunkLen - 1) / ChunkLen
	workers := 1
	if n >= parallelMin {
		workers = min(runtime.GOMAXPROCS(0), chunks)
	}
	if workers == 1 {
		fillChunks(dst, key, 0, chunks, sigma, scale)
		return
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() { fillChunks(dst, key, w*chunks/workers, (w+1)*chunks/workers, sigma, scale) })
	}
	wg.Wait()
}

// scratch is one worker's buffers: a chunk's words (and the kernel's 4 words of slack), its reject bits,
// the rejected coordinates, the generator of the chunks' seeds, and the words that finish the rejected
// coordinates (retryNext).
type scratch struct {
	words       [ChunkLen + 4]uint64
	rej         [16 * ChunkLen / iterWords]uint8
	js          []int
	master, gen rand.ChaCha8
	extra       [iterWords + 4]uint64
	retry       []uint64  // words of the chunk's generator computed ahead, served first
	pending     [4]uint64 // gen's seed, once retry is used up, if !seeded
	seeded      bool
}

// startRetry prepares retryNext to continue the chunk's generator from seed, the seed of the iteration
// after the chunk's last: with the kernel, one iteration ahead (enough for all but about one chunk in
// 10⁵⁰), then gen.
func (s *scratch) startRetry(seed [4]uint64) {
	chacha8x16(&seed, 1, &s.extra[0])
	s.retry, s.pending, s.seeded = s.extra[:iterWords], seed, false
}

// retryNext is the chunk generator's next word after the chunk's last whole iteration.
func (s *scratch) retryNext() uint64 {
	if len(s.retry) > 0 {
		w := s.retry[0]
		s.retry = s.retry[1:]
		return w
	}
	if !s.seeded {
		s.gen.Seed(seedBytes(s.pending))
		s.seeded = true
	}
	return s.gen.Uint64()
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

// fillChunks fills chunks [c0, c1) of the vector dst, chunk c from its seed: words 4c to 4c+3 of
// math/rand/v2's ChaCha8 seeded with key.
func fillChunks[F Float](dst [][]F, key [4]uint64, c0, c1 int, sigma, scale float64) {
	s := scratchPool.Get().(*scratch)
	defer scratchPool.Put(s)
	s.master.Seed(seedBytes(key))
	for range 4 * c0 {
		s.master.Uint64()
	}
	v := vector[F]{parts: dst}
	v.seek(c0 * ChunkLen)
	var buf [4][]F
	for range c1 - c0 {
		seed := [4]uint64{s.master.Uint64(), s.master.Uint64(), s.master.Uint64(), s.master.Uint64()}
		fillChunk(s, v.next(buf[:0], ChunkLen), seed, sigma, scale)
	}
}

// vector walks the concatenation of parts.
type vector[F Float] struct {
	parts [][]F
	p, o  int // the current part and offset in it
}

// seek moves i elements on.
func (v *vector[F]) seek(i int) {
	i += v.o
	for v.p < len(v.parts) && i >= len(v.parts[v.p]) {
		i -= len(v.parts[v.p])
		v.p++
	}
	v.o = i
}

// next appends to dst the pieces of the next n elements (fewer at the end) and moves past them.
func (v *vector[F]) next(dst [][]F, n int) [][]F {
	for n > 0 && v.p < len(v.parts) {
		part := v.parts[v.p][v.o:]
		k := min(n, len(part))
		if k > 0 {
			dst = append(dst, part[:k])
		}
		n -= k
		v.o += k
		if v.o == len(v.parts[v.p]) {
			v.p, v.o = v.p+1, 0
		}
	}
	return dst
}

// fillChunk adds one chunk's noise to the pieces of x that the chunk covers: coordinate j takes word j of
// the chunk's generator (math/rand/v2's ChaCha8 seeded with seed) through the ziggurat's fast step; the
// coordinates it rejects are finished in order from the same generator's words after the last whole
// iteration the chunk used.
func fillChunk[F Float](s *scratch, x [][]F, seed [4]uint64, sigma, scale float64) {
	n := 0
	for _, p := range x {
		n += len(p)
	}
	s.js = s.js[:0]
	if hasAVX512 {
		kernelChunk(s, x, &seed, sigma, scale)
		for k := 0; k*iterWords < n; k++ {
			for h := range 2 { // bit b of byte r of an iteration's 16 is its word 8r + b
				for b := binary.LittleEndian.Uint64(s.rej[16*k+8*h:]); b != 0; b &= b - 1 {
					if j := k*iterWords + 64*h + bits.TrailingZeros64(b); j < n {
						s.js = append(s.js, j)
					}
				}
			}
		}
		if len(s.js) == 0 {
			return
		}
		s.startRetry(seed)
	} else {
		words := s.words[:(n+iterWords-1)/iterWords*iterWords]
		s.gen.Seed(seedBytes(seed))
		s.retry, s.seeded = nil, true
		for j := range words {
			words[j] = s.gen.Uint64()
		}
		j := 0
		for _, p := range x {
			for i, w := range words[j : j+len(p)] {
				z, ok := fast(w)
				if !ok {
					s.js = append(s.js, j+i)
					continue
				}
				p[i] = F(math.FMA(sigma, z, float64(p[i])) * scale)
			}
			j += len(p)
		}
	}
	v := vector[F]{parts: x}
	at := 0
	for _, j := range s.js {
		v.seek(j - at)
		at = j
		z := slow(s.words[j], s.retryNext)
		e := &v.parts[v.p][v.o]
		*e = F(math.FMA(sigma, z, float64(*e)) * scale)
	}
}

// kernelChunk runs the assembly kernel over the chunk's pieces x: whole iterations inside one piece in
// place, an iteration that straddles pieces (or the chunk's last, short one) through a copy. It leaves
// the words and reject bits in s and the seed after the chunk's last iteration in seed.
func kernelChunk[F Float](s *scratch, x [][]F, seed *[4]uint64, sigma, scale float64) {
	v := vector[F]{parts: x}
	var tmp [iterWords]F
	var pieces [][]F
	for pos := 0; v.p < len(v.parts); {
		part := v.parts[v.p][v.o:]
		if full := len(part) / iterWords; full > 0 {
			kernel(seed, full, part, s.words[pos:], s.rej[16*pos/iterWords:], sigma, scale)
			v.seek(full * iterWords)
			pos += full * iterWords
			continue
		}
		pieces = v.next(pieces[:0], iterWords)
		k := 0
		for _, p := range pieces {
			k += copy(tmp[k:], p)
		}
		kernel(seed, 1, tmp[:], s.words[pos:], s.rej[16*pos/iterWords:], sigma, scale)
		k = 0
		for _, p := range pieces {
			k += copy(p, tmp[k:])
		}
		pos += iterWords
	}
}

// seedBytes is the 32-byte ChaCha8 seed of four words, little-endian (as rand.ChaCha8 reads its seed).
func seedBytes(k [4]uint64) [32]byte {
	var b [32]byte
	for i, w := range k {
		binary.LittleEndian.PutUint64(b[8*i:], w)
	}
	return b
}
