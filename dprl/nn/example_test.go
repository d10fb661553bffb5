package nn_test

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/dprl-project/dprl/dprl/nn"
)

// The Huber loss is quadratic within Delta of the target and linear beyond, so large errors have a bounded
// gradient.
func ExampleHuber() {
	h := nn.Huber{Delta: 1}
	for _, p := range []float64{0.5, 3} {
		fmt.Printf("pred %.1f: loss %.3f, derivative %.1f\n", p, h.Value(p, 0), h.Deriv(p, 0))
	}
	// Output:
	// pred 0.5: loss 0.125, derivative 0.5
	// pred 3.0: loss 2.500, derivative 1.0
}

// Each example's gradient norm comes from quantities backpropagation has anyway (for a dense layer,
// ‖δ‖²(‖a‖² + 1) summed over layers), without forming per-example gradients: here it matches the norm of
// the gradient computed for each example alone.
func ExampleWorkspace_ExampleNormsSq() {
	net, _ := nn.NewMLP([]int{2, 4, 1}, nn.Tanh, rand.NewPCG(1, 2))
	x := []float64{0.5, -1, 2, 0.25} // two inputs of dimension 2
	targets := []float64{1, -1}
	ws := nn.NewWorkspace(net, 2)
	out := ws.Forward(net, x)
	dOut := []float64{out[0] - targets[0], out[1] - targets[1]} // squared loss
	ws.Backward(net, dOut)
	norms := ws.ExampleNormsSq(net, nil)

	g := nn.NewGrads(net)
	single := nn.NewWorkspace(net, 1)
	for i := range 2 {
		o := single.Forward(net, x[2*i:2*i+2])
		single.Backward(net, []float64{o[0] - targets[i]})
		single.Gradient(net, nil, g)
		fmt.Printf("example %d: norm %.4f, alone %.4f\n", i, math.Sqrt(norms[i]), g.Norm())
	}
	fmt.Printf("parameters %d, Lipschitz bound %.2f\n", net.NumParams(), net.Lipschitz())
	// Output:
	// example 0: norm 1.2239, alone 1.2239
	// example 1: norm 2.3346, alone 2.3346
	// parameters 17, Lipschitz bound 0.38
}
