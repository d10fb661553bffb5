//go:build !amd64 || purego

package gemm

var detected = goKernels

func available() []kernelSet { return []kernelSet{goKernels} }
