//go:build !amd64 || purego

package gemm

var detected = goKernels

func available() []kernelSet { return []kernelSet{goKernels} }

func dot8[F Float](k int, x, w *F, stride int, out *[8]F) { panic("gemm: no assembly kernel") }

func sumSqBlocks[F Float](ks kernelSet, x *F, blocks int, acc *[16]float64) {
	panic("gemm: no assembly kernel")
}
