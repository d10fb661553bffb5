// Package nn is a small neural-network toolkit for the project's deep RL learners: multilayer perceptrons with
// manual backpropagation on gonum's BLAS, per-example gradient norms without materialising per-example
// gradients (for a dense layer the gradient δaᵀ has Frobenius norm ‖δ‖·‖a‖), clipped-and-noised DP-SGD
// gradients, Huber and squared losses, SGD, RMSprop and Adam with PyTorch's defaults, target-network copies, a
// replay buffer and a spectral-norm bound on the network's Lipschitz constant.
//
// Everything is deterministic for a given rand.Source: initialisation, minibatch sampling and noise draw from
// explicit streams, and the matrix products compute each output element in a fixed order.
//
// DP-SGD (Workspace.PrivateGradient) is mechanisms.DPSGD applied to a network's batch: it takes a
// *mechanisms.DPSGD (Clip and NoiseMultiplier in (0, ∞), so it always adds noise) and uses its clip factor
// and noise; ClippedGradient is the noiseless counterpart for audits and baselines. An example whose
// gradient has a NaN or infinite entry is dropped — it contributes zero to the sum, which keeps the
// sensitivity — and counted; norms of huge finite gradients are computed without overflow.
package nn

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// Activation is a hidden layer's nonlinearity (the output layer is linear).
type Activation int

const (
	ReLU Activation = iota
	Tanh
)

func (a Activation) String() string {
	switch a {
	case ReLU:
		return "ReLU"
	case Tanh:
		return "tanh"
	}
	return fmt.Sprintf("Activation(%d)", int(a))
}

// MLP is a fully connected network Sizes[0] → … → Sizes[L] with Act after every hidden layer. W[l] is
// Sizes[l+1] × Sizes[l] row-major, B[l] has Sizes[l+1] entries.
type MLP struct {
	Sizes []int
	Act   Activation
	W, B  [][]float64
}

// NewMLP initialises like PyTorch's nn.Linear: weights and biases uniform in ±1/√fan_in.
func NewMLP(sizes []int, act Activation, src rand.Source) (*MLP, error) {
	if len(sizes) < 2 {
		return nil, check.AtLeast("len(sizes)", len(sizes), 2)
	}
	for i, s := range sizes {
		if err := check.AtLeast(fmt.Sprintf("sizes[%d]", i), s, 1); err != nil {
			return nil, err
		}
	}
	if act != ReLU && act != Tanh {
		return nil, check.Errorf("act", float64(act), "{ReLU, Tanh}")
	}
	if src == nil {
		return nil, check.Missing("src", "a non-nil rand.Source")
	}
	rng := rand.New(src)
	m := &MLP{Sizes: append([]int(nil), sizes...), Act: act}
	for l := range len(sizes) - 1 {
		in, out := sizes[l], sizes[l+1]
		bound := 1 / math.Sqrt(float64(in))
		w, b := make([]float64, out*in), make([]float64, out)
		for i := range w {
			w[i] = bound * (2*rng.Float64() - 1)
		}
		for i := range b {
			b[i] = bound * (2*rng.Float64() - 1)
		}
		m.W, m.B = append(m.W, w), append(m.B, b)
	}
	return m, nil
}

// Layers is the number of weight layers.
func (m *MLP) Layers() int { return len(m.W) }

// NumParams is the number of weights and biases.
func (m *MLP) NumParams() int {
	n := 0
	for l := range m.W {
		n += len(m.W[l]) + len(m.B[l])
	}
	return n
}

// Clone returns a deep copy (a target network).
func (m *MLP) Clone() *MLP {
	c := &MLP{Sizes: append([]int(nil), m.Sizes...), Act: m.Act}
	for l := range m.W {
		c.W = append(c.W, append([]float64(nil), m.W[l]...))
		c.B = append(c.B, append([]float64(nil), m.B[l]...))
	}
	return c
}

// CopyFrom overwrites m's parameters with o's (same architecture): the hard target-network update.
func (m *MLP) CopyFrom(o *MLP) {
	for l := range m.W {
		copy(m.W[l], o.W[l])
		copy(m.B[l], o.B[l])
	}
}

// Lipschitz bounds the network's ℓ2 Lipschitz constant by the product of its weight matrices' spectral norms
// (ReLU and tanh are 1-Lipschitz).
func (m *MLP) Lipschitz() float64 {
	L := 1.0
	for l, w := range m.W {
		var svd mat.SVD
		if !svd.Factorize(mat.NewDense(m.Sizes[l+1], m.Sizes[l], w), mat.SVDNone) {
			return math.Inf(1)
		}
		L *= svd.Values(nil)[0] // the spectral norm (mat.Norm(·, 2) would be Frobenius)
	}
	return L
}

func (m *MLP) activate(z []float64) {
	switch m.Act {
	case Tanh:
		for i, v := range z {
			z[i] = math.Tanh(v)
		}
	default:
		for i, v := range z {
			if v < 0 {
				z[i] = 0
			}
		}
	}
}

// Forward evaluates one input into out (allocated if nil) and returns it.
func (m *MLP) Forward(x, out []float64) []float64 {
	ws := NewWorkspace(m, 1)
	y := ws.Forward(m, x)
	if out == nil {
		out = make([]float64, len(y))
	}
	copy(out, y)
	return out
}

// Workspace holds a batch's activations and backpropagated errors. It is tied to one architecture and a
// maximum batch size; a Workspace is not safe for concurrent use.
type Workspace struct {
	batch int
	n     int         // rows in use
	acts  [][]float64 // acts[0] = input, acts[l+1] = layer l's output (after the activation for hidden layers)
	delta [][]float64 // delta[l] = ∂loss/∂(pre-activation of layer l), batch × Sizes[l+1]
	scale []float64   // per-example clipping factors
}

// NewWorkspace allocates buffers for batches of up to maxBatch inputs.
func NewWorkspace(m *MLP, maxBatch int) *Workspace {
	ws := &Workspace{batch: maxBatch, scale: make([]float64, maxBatch)}
	for _, s := range m.Sizes {
		ws.acts = append(ws.acts, make([]float64, maxBatch*s))
	}
	for _, s := range m.Sizes[1:] {
		ws.delta = append(ws.delta, make([]float64, maxBatch*s))
	}
	return ws
}

func general(rows, cols int, data []float64) blas64.General {
	return blas64.General{Rows: rows, Cols: cols, Stride: cols, Data: data[:rows*cols]}
}

// Forward evaluates a batch: x holds n = len(x)/Sizes[0] inputs row by row. It returns the n × Sizes[L]
// outputs (a view into the workspace, valid until the next call).
func (ws *Workspace) Forward(m *MLP, x []float64) []float64 {
	in := m.Sizes[0]
	n := len(x) / in
	if n*in != len(x) || n > ws.batch || n == 0 {
		panic(fmt.Sprintf("nn: Forward with %d values for inputs of size %d (workspace batch %d)", len(x), in, ws.batch))
	}
	ws.n = n
	copy(ws.acts[0], x)
	for l := range m.W {
		a, z := ws.acts[l], ws.acts[l+1]
		out := m.Sizes[l+1]
		for i := range n {
			copy(z[i*out:(i+1)*out], m.B[l])
		}
		blas64.Gemm(blas.NoTrans, blas.Trans, 1, general(n, m.Sizes[l], a), general(out, m.Sizes[l], m.W[l]), 1, general(n, out, z))
		if l < len(m.W)-1 {
			m.activate(z[:n*out])
		}
	}
	return ws.acts[len(m.W)][:n*m.Sizes[len(m.W)]]
}

// Backward propagates dOut = ∂loss/∂output (n × Sizes[L], for the batch of the last Forward) to every
// layer's pre-activation error. Gradients are then formed by Gradient, per-example norms by ExampleNormsSq.
func (ws *Workspace) Backward(m *MLP, dOut []float64) {
	n, L := ws.n, len(m.W)
	copy(ws.delta[L-1], dOut[:n*m.Sizes[L]])
	for l := L - 1; l > 0; l-- {
		in, out := m.Sizes[l], m.Sizes[l+1]
		d := ws.delta[l-1][:n*in]
		blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, general(n, out, ws.delta[l]), general(out, in, m.W[l]), 0, general(n, in, d))
		a := ws.acts[l][:n*in] // this layer's activated output
		switch m.Act {
		case Tanh:
			for i, v := range a {
				d[i] *= 1 - v*v
			}
		default:
			for i, v := range a {
				if v <= 0 {
					d[i] = 0
				}
			}
		}
	}
}

// ExampleNormsSq writes each example's squared gradient norm (over all parameters) into dst: for layer l,
// ‖δ_i‖²·(‖a_i‖² + 1), the weight gradient δ_i a_iᵀ's Frobenius norm squared plus the bias's.
func (ws *Workspace) ExampleNormsSq(m *MLP, dst []float64) []float64 {
	if dst == nil {
		dst = make([]float64, ws.n)
	}
	clear(dst[:ws.n])
	for l := range m.W {
		in, out := m.Sizes[l], m.Sizes[l+1]
		for i := range ws.n {
			var dd, aa float64
			for _, v := range ws.delta[l][i*out : (i+1)*out] {
				dd += v * v
			}
			for _, v := range ws.acts[l][i*in : (i+1)*in] {
				aa += v * v
			}
			dst[i] += dd * (aa + 1)
		}
	}
	return dst[:ws.n]
}

// Gradient sets g to Σ_i scale_i·∇ℓ_i (scale nil: all 1) for the batch of the last Backward: one matrix
// product per layer whatever the scales, which is how clipped DP-SGD costs no more than plain SGD. With
// scales it rescales the stored errors, so call ExampleNormsSq first.
func (ws *Workspace) Gradient(m *MLP, scale []float64, g *Grads) {
	n := ws.n
	for l := range m.W {
		in, out := m.Sizes[l], m.Sizes[l+1]
		d := ws.delta[l][:n*out]
		if scale != nil {
			for i := range n {
				for j := i * out; j < (i+1)*out; j++ {
					d[j] *= scale[i]
				}
			}
		}
		blas64.Gemm(blas.Trans, blas.NoTrans, 1, general(n, out, d), general(n, in, ws.acts[l]), 0, general(out, in, g.W[l]))
		clear(g.B[l])
		for i := range n {
			for j, v := range d[i*out : (i+1)*out] {
				g.B[l][j] += v
			}
		}
	}
}

// Grads has the shapes of an MLP's parameters.
type Grads struct{ W, B [][]float64 }

// NewGrads allocates zero gradients for m.
func NewGrads(m *MLP) *Grads {
	g := &Grads{}
	for l := range m.W {
		g.W = append(g.W, make([]float64, len(m.W[l])))
		g.B = append(g.B, make([]float64, len(m.B[l])))
	}
	return g
}

// Each calls fn on every parameter block of g (weights then biases, layer by layer).
func (g *Grads) Each(fn func(block []float64)) {
	for l := range g.W {
		fn(g.W[l])
		fn(g.B[l])
	}
}

// Scale multiplies every entry by c.
func (g *Grads) Scale(c float64) {
	g.Each(func(b []float64) {
		for i := range b {
			b[i] *= c
		}
	})
}

// Norm is the ℓ2 norm over all entries.
func (g *Grads) Norm() float64 {
	s := 0.0
	g.Each(func(b []float64) {
		for _, v := range b {
			s += v * v
		}
	})
	return math.Sqrt(s)
}
