//go:build !amd64 || purego

package gemm

var detected = goKernels

func available() []kernelSet { return []kernelSet{goKernels} }

func dot8[F Float](k int, x, w *F, stride int, out *[8]F) { panic("gemm: no assembly kernel") }
