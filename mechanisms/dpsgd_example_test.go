package mechanisms_test

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/dprl-project/dprl/mechanisms"
)

// One DP-SGD aggregation with clip norm C = 1: the per-example gradient [3, 4] (norm 5) is scaled by its clip
// factor 1/5 to [0.6, 0.8], [0.3, 0.4] lies inside the ball (factor 1), and [NaN, 1] is dropped (factor 0).
// The sum gets N(0, (zC)²) noise on every coordinate; z = 1e−9 only so that the printed sum is stable (a
// private run uses z around 1). Without noise there is no DPSGD at all: NewDPSGD refuses z = 0.
func ExampleDPSGD() {
	dp, err := mechanisms.NewDPSGD(mechanisms.DPSGDParams{Clip: 1, NoiseMultiplier: 1e-9, Src: rand.NewPCG(1, 2)})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("clip factors:", dp.ClipFactor(5), dp.ClipFactor(0.5), dp.ClipFactor(math.NaN()))
	sum := make([]float64, 2)
	clipped, dropped, err := dp.Aggregate(sum, [][]float64{{3, 4}, {0.3, 0.4}, {math.NaN(), 1}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("noisy sum ≈ [%.4f %.4f], %d clipped, %d dropped\n", sum[0], sum[1], clipped, dropped)
	_, err = mechanisms.NewDPSGD(mechanisms.DPSGDParams{Clip: 1, Src: rand.NewPCG(1, 2)})
	fmt.Println(err)
	// Output:
	// clip factors: 0.2 1 0
	// noisy sum ≈ [0.9000 1.2000], 1 clipped, 1 dropped
	// mechanisms: NoiseMultiplier = 0 is outside the allowed range (0, ∞)
}
