//go:build !amd64 || purego

package gauss

const hasAVX512 = false

func kernel[F Float](seed *[4]uint64, iters int, dst []F, words []uint64, rej []uint8, sigma, scale float64) {
	panic("gauss: no assembly kernel")
}

func setAVX512(bool) {}

func chacha8x16(seed *[4]uint64, iters int, words *uint64) { panic("gauss: no assembly kernel") }
