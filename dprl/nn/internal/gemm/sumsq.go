package gemm

import "math"

// SumSq returns Σ x_j², in float64 whatever F, in one fixed order: x_j² is added by a fused multiply-add
// to accumulator j mod 16 (each starting at 0, in increasing j), then the sixteen accumulators are summed
// pairwise (accumulator k takes k + 8, then k + 4, k + 2 and k + 1). Sixteen independent sums keep the
// vector units busy; the order makes the result the same bit for bit with every kernel. It is the inner
// loop of the per-example gradient norms of DP-SGD.
func SumSq[F Float](x []F) float64 {
	var acc [16]float64
	blocks := len(x) / 16
	if blocks > 0 {
		if ks := active; ks.dot8 {
			sumSqBlocks(ks, &x[0], blocks, &acc)
		} else {
			sumSqGo(x[:16*blocks], &acc)
		}
	}
	sumSqGo(x[16*blocks:], &acc)
	for w := 8; w > 0; w /= 2 {
		for k := range w {
			acc[k] += acc[k+w]
		}
	}
	return acc[0]
}

// sumSqGo adds x_j² to acc[j mod 16] for x starting at a multiple of 16.
func sumSqGo[F Float](x []F, acc *[16]float64) {
	for j, v := range x {
		f := float64(v)
		acc[j&15] = math.FMA(f, f, acc[j&15])
	}
}
