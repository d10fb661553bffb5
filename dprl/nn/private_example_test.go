package nn_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/dprl-project/dprl/dprl/nn"
	"github.com/dprl-project/dprl/mechanisms"
)

// The DP-SGD gradient of a batch of two on a linear layer 2 → 1, whose per-example gradient is δ·[x; 1]
// (weights, then bias): example 0 (x = [2, 2], δ = 1) has norm 3 and is clipped to norm C = 1, example 1
// (x = [0, 0], δ = 0.5) has norm 0.5 and is kept. PrivateGradient takes the clip factor and the noise from
// the mechanisms.DPSGD and divides the noisy sum by the batch size; z = 1e−9 only so that the printed values
// are stable.
func ExampleWorkspace_PrivateGradient() {
	m, _ := nn.NewMLP([]int{2, 1}, nn.ReLU, rand.NewPCG(1, 1))
	ws := nn.NewWorkspace(m, 2)
	ws.Forward(m, []float64{2, 2, 0, 0})
	ws.Backward(m, []float64{1, 0.5})
	dp, err := mechanisms.NewDPSGD(mechanisms.DPSGDParams{Clip: 1, NoiseMultiplier: 1e-9, Src: rand.NewPCG(2, 2)})
	if err != nil {
		fmt.Println(err)
		return
	}
	g := nn.NewGrads(m)
	norms, dropped, err := ws.PrivateGradient(m, dp, g, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("norms %.3g, dropped %d\n", norms, dropped)
	fmt.Printf("W ≈ [%.4f %.4f], B ≈ [%.4f]\n", g.W[0][0], g.W[0][1], g.B[0][0])
	// Output:
	// norms [3 0.5], dropped 0
	// W ≈ [0.3333 0.3333], B ≈ [0.4167]
}
