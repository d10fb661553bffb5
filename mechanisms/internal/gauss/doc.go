// Package gauss fills vectors with Gaussian noise for the float path of package mechanisms (DP-SGD's
// aggregation): Add sets x[i] = (x[i] + σ·Z_i)·scale for standard normals Z_i computed from a 256-bit key,
// about one nanosecond a coordinate with AVX-512, on several goroutines for long vectors.
//
// # The normals
//
// The vector (the concatenation of Add's slices) is cut into chunks of 1984 coordinates, 16 iterations of
// math/rand/v2's ChaCha8 generator (chacha8rand: an iteration computes 16 ChaCha8 blocks and yields 124
// words, the last 4 of its 128 seeding the next). Chunk c has its own ChaCha8 generator, seeded with words
// 4c to 4c+3 of a ChaCha8 generator seeded with the key. Coordinate j of a chunk takes word j of the
// chunk's generator through one step of a 256-layer ziggurat (Marsaglia & Tsang 2000) for the density
// f(x) = e^{−x²/2}: bits 0–7 choose a layer i, bit 8 the sign, bits 12–63 a point m·2⁻⁵²·x_i across the
// layer's width x_i; if m·2⁻⁵² < x_{i+1}/x_i (an exact integer comparison, fastBelow) the point lies under
// the density and is the value. 98.5% of words end there. The others are finished in coordinate order with
// the words the chunk's generator yields after the chunk's last whole iteration: the wedge test (a height
// uniform in the layer, the point kept if under f) for layers 1–255, Marsaglia's (1964) exact method for
// the tail beyond r = 3.654 for the base layer, and a fresh word from the start when the wedge test fails.
// The generator's words are the stdlib's (rand.ChaCha8), so the noise is as unpredictable as the key.
//
// # Accuracy
//
// The ziggurat is an exact method: every layer has the same area V = 0.004929 (the base layer's
// rectangle and tail included) and is chosen with probability 1/256, a point is uniform in its layer, and
// it is kept exactly when it lies under the density. What separates the output from N(0, 1) is rounding:
// the layer edges are float64 values computed in 320-bit arithmetic and rounded once (table_gen.go), so
// the layers' areas agree to about 10⁻¹⁵ (the tests check 10⁻¹²); a point sits on a grid of 2⁻⁵² of its
// layer's width, which moves P(Z ≤ t) by at most 2⁻⁵² (2·10⁻¹² of the smallest Φ(t) or 1 − Φ(t) for
// |t| ≤ r); the wedge test compares with math.Exp (about one ulp). So P(Z ≤ t) and P(Z > t) are within a
// relative 10⁻¹¹ of Φ(t) and 1 − Φ(t) at every t, the tail included, and the tail is not truncated: its
// uniforms (openUniform) keep a relative resolution of 2⁻⁵² down to 2⁻¹⁰⁴⁰, so Z can exceed 38, beyond
// which the normal density is below the smallest float64, with its correct probability (a uniform of 53
// bits would have cut it at 13.7).
//
// # Determinism and speed
//
// The values depend only on the key, the inputs, σ, the scale and the vector's length. The chunks are
// independent streams, filled in any order on any number of goroutines (Add splits vectors of 4 chunks or
// more across GOMAXPROCS). On amd64 processors with AVX-512 an assembly kernel (kernel_amd64.s, written by
// asm_gen.go) runs 16 ChaCha8 blocks in the lanes of the vector registers and the ziggurat's fast step on
// 8 words at a time, adding σ·z to the accepted coordinates; it gives the same bits as the portable code
// (the tests compare them, and its words with rand.ChaCha8's). x + σ·z is one fused multiply-add (math.FMA),
// so the result is the same for every GOAMD64 level. Across architectures only the rare wedge and tail
// steps could differ, where math.Exp and math.Log are implemented differently, in their last bit.
package gauss
