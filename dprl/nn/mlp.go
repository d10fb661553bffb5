package nn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"unsafe"

	"github.com/dprl-project/dprl/dprl/nn/internal/gemm"
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

// Float is a network's element type: float64 (MLP) or float32 (MLP32).
type Float = gemm.Float

// Network is a fully connected network Sizes[0] → … → Sizes[L] with Act after every hidden layer, in
// precision F. W[l] is Sizes[l+1] × Sizes[l] row-major, B[l] has Sizes[l+1] entries.
type Network[F Float] struct {
	Sizes []int
	Act   Activation
	W, B  [][]F
}

// MLP is a float64 network.
type MLP = Network[float64]

// MLP32 is a float32 network: half the memory traffic and twice the vector width of MLP, with float32
// rounding in every product.
type MLP32 = Network[float32]

// NewMLP initialises like PyTorch's nn.Linear: weights and biases uniform in ±1/√fan_in.
func NewMLP(sizes []int, act Activation, src rand.Source) (*MLP, error) {
	return NewNetwork[float64](sizes, act, src)
}

// NewNetwork is NewMLP in precision F; a float32 network is the float64 one of the same source rounded to
// float32.
func NewNetwork[F Float](sizes []int, act Activation, src rand.Source) (*Network[F], error) {
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
	m := &Network[F]{Sizes: append([]int(nil), sizes...), Act: act}
	for l := range len(sizes) - 1 {
		in, out := sizes[l], sizes[l+1]
		bound := 1 / math.Sqrt(float64(in))
		w, b := make([]F, out*in), make([]F, out)
		for i := range w {
			w[i] = F(bound * (2*rng.Float64() - 1))
		}
		for i := range b {
			b[i] = F(bound * (2*rng.Float64() - 1))
		}
		m.W, m.B = append(m.W, w), append(m.B, b)
	}
	return m, nil
}

// Layers is the number of weight layers.
func (m *Network[F]) Layers() int { return len(m.W) }

// NumParams is the number of weights and biases.
func (m *Network[F]) NumParams() int {
	n := 0
	for l := range m.W {
		n += len(m.W[l]) + len(m.B[l])
	}
	return n
}

// Clone returns a deep copy (a target network).
func (m *Network[F]) Clone() *Network[F] {
	c := &Network[F]{Sizes: append([]int(nil), m.Sizes...), Act: m.Act}
	for l := range m.W {
		c.W = append(c.W, append([]F(nil), m.W[l]...))
		c.B = append(c.B, append([]F(nil), m.B[l]...))
	}
	return c
}

// CopyFrom overwrites m's parameters with o's (same architecture): the hard target-network update.
func (m *Network[F]) CopyFrom(o *Network[F]) {
	for l := range m.W {
		copy(m.W[l], o.W[l])
		copy(m.B[l], o.B[l])
	}
}

// Lipschitz bounds the network's ℓ2 Lipschitz constant by the product of its weight matrices' spectral norms
// (ReLU and tanh are 1-Lipschitz); NaN when a weight is not finite (a diverged network).
func (m *Network[F]) Lipschitz() float64 {
	L := 1.0
	for l, w := range m.W {
		var svd mat.SVD
		w64 := make([]float64, len(w))
		for i, v := range w {
			w64[i] = float64(v)
			if math.IsNaN(w64[i]) || math.IsInf(w64[i], 0) {
				return math.NaN()
			}
		}
		if !svd.Factorize(mat.NewDense(m.Sizes[l+1], m.Sizes[l], w64), mat.SVDNone) {
			return math.Inf(1)
		}
		L *= svd.Values(nil)[0] // the spectral norm (mat.Norm(·, 2) would be Frobenius)
	}
	return L
}

// ProjectLipschitz scales every weight matrix by (L/bound)^(1/layers) when the network's Lipschitz bound
// (Lipschitz) exceeds L, which brings the bound to L (biases do not change it), and reports whether it did.
// A diverged network (bound NaN) is left as it is.
func (m *Network[F]) ProjectLipschitz(L float64) bool {
	lip := m.Lipschitz()
	if !(lip > L) {
		return false
	}
	f := F(math.Pow(L/lip, 1/float64(m.Layers())))
	for _, w := range m.W {
		for i := range w {
			w[i] *= f
		}
	}
	return true
}

func (m *Network[F]) activate(z []F) {
	switch m.Act {
	case Tanh:
		for i, v := range z {
			z[i] = F(math.Tanh(float64(v)))
		}
	default:
		for i, v := range z {
			z[i] = max(v, 0) // no branch (the signs are random)
		}
	}
}

// Forward evaluates one input into out (allocated if nil) and returns it.
func (m *Network[F]) Forward(x, out []F) []F {
	ws := NewWorkspace(m, 1)
	y := ws.Forward(m, x)
	if out == nil {
		out = make([]F, len(y))
	}
	copy(out, y)
	return out
}

// WorkspaceOf holds a batch's activations and backpropagated errors in precision F. It is tied to one
// architecture and a maximum batch size; a WorkspaceOf is not safe for concurrent use.
type WorkspaceOf[F Float] struct {
	batch  int
	n      int   // rows in use
	acts   [][]F // acts[0] = input, acts[l+1] = layer l's output (after the activation for hidden layers)
	delta  [][]F // delta[l] = ∂loss/∂(pre-activation of layer l), batch × Sizes[l+1]
	scale  []F   // per-example clipping factors
	blocks [][]F // a gradient's blocks, for PrivateGradient's noise
}

// Workspace is the float64 WorkspaceOf.
type Workspace = WorkspaceOf[float64]

// NewWorkspace allocates buffers for batches of up to maxBatch inputs.
func NewWorkspace[F Float](m *Network[F], maxBatch int) *WorkspaceOf[F] {
	ws := &WorkspaceOf[F]{batch: maxBatch, scale: make([]F, maxBatch)}
	for _, s := range m.Sizes {
		ws.acts = append(ws.acts, make([]F, maxBatch*s))
	}
	for _, s := range m.Sizes[1:] {
		ws.delta = append(ws.delta, make([]F, maxBatch*s))
	}
	return ws
}

// matOf is a row-major operand of a product (transposed when t).
func matOf[F Float](data []F, stride int, t bool) gemm.Mat[F] {
	return gemm.Mat[F]{Data: data, Stride: stride, T: t}
}

// Forward evaluates a batch: x holds n = len(x)/Sizes[0] inputs row by row. It returns the n × Sizes[L]
// outputs (a view into the workspace, valid until the next call).
func (ws *WorkspaceOf[F]) Forward(m *Network[F], x []F) []F {
	in := m.Sizes[0]
	n := len(x) / in
	if n*in != len(x) || n > ws.batch || n == 0 {
		panic(fmt.Sprintf("nn: Forward with %d values for inputs of size %d (workspace batch %d)", len(x), in, ws.batch))
	}
	ws.n = n
	copy(ws.acts[0], x)
	for l := range m.W {
		a, z := ws.acts[l], ws.acts[l+1]
		in, out := m.Sizes[l], m.Sizes[l+1]
		for i := range n {
			copy(z[i*out:(i+1)*out], m.B[l])
		}
		// Z = A·Wᵀ + bias
		gemm.Mul(n, out, in, matOf(a, in, false), matOf(m.W[l], in, true), z, out, true)
		if l < len(m.W)-1 {
			m.activate(z[:n*out])
		}
	}
	return ws.acts[len(m.W)][:n*m.Sizes[len(m.W)]]
}

// Backward propagates dOut = ∂loss/∂output (n × Sizes[L], for the batch of the last Forward) to every
// layer's pre-activation error. Gradients are then formed by Gradient, per-example norms by ExampleNormsSq.
func (ws *WorkspaceOf[F]) Backward(m *Network[F], dOut []F) {
	n, L := ws.n, len(m.W)
	copy(ws.delta[L-1], dOut[:n*m.Sizes[L]])
	for l := L - 1; l > 0; l-- {
		in, out := m.Sizes[l], m.Sizes[l+1]
		d := ws.delta[l-1][:n*in]
		// D_{l−1} = D_l·W_l, then times the activation's derivative
		gemm.Mul(n, in, out, matOf(ws.delta[l], out, false), matOf(m.W[l], in, false), d, in, false)
		a := ws.acts[l][:n*in] // this layer's activated output
		switch m.Act {
		case Tanh:
			for i, v := range a {
				d[i] *= 1 - v*v
			}
		default:
			reluMask(d, a)
		}
	}
}

// reluMask zeroes d[i] where a[i] = +0, for a the output of max(·, 0) (never negative): ReLU's derivative,
// with bit operations instead of a branch (the signs are random, so a branch mispredicts half the time).
func reluMask[F Float](d, a []F) {
	a = a[:len(d)]
	if unsafe.Sizeof(F(0)) == 4 {
		d, a := unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(d))), len(d)), unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(a))), len(a))
		for i, b := range a {
			d[i] &= uint32(-int32(b) >> 31)
		}
		return
	}
	d64, a64 := unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(d))), len(d)), unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(a))), len(a))
	for i, b := range a64 {
		d64[i] &= uint64(-int64(b) >> 63)
	}
}

// ExampleNormsSq writes each example's squared gradient norm (over all parameters) into dst: for layer l,
// ‖δ_i‖²·(‖a_i‖² + 1), the weight gradient δ_i a_iᵀ's Frobenius norm squared plus the bias's. The sums are
// in float64 whatever F.
func (ws *WorkspaceOf[F]) ExampleNormsSq(m *Network[F], dst []float64) []float64 {
	if dst == nil {
		dst = make([]float64, ws.n)
	}
	clear(dst[:ws.n])
	for l := range m.W {
		in, out := m.Sizes[l], m.Sizes[l+1]
		for i := range ws.n {
			dst[i] += gemm.SumSq(ws.delta[l][i*out:(i+1)*out]) * (gemm.SumSq(ws.acts[l][i*in:(i+1)*in]) + 1)
		}
	}
	return dst[:ws.n]
}

// Gradient sets g to Σ_i scale_i·∇ℓ_i (scale nil: all 1) for the batch of the last Backward: one matrix
// product per layer whatever the scales, which is how clipped DP-SGD costs no more than plain SGD. With
// scales it rescales the stored errors (in the pass that sums the bias gradient), so call ExampleNormsSq
// first; the workspace then holds each example's scaled errors.
func (ws *WorkspaceOf[F]) Gradient(m *Network[F], scale []F, g *GradsOf[F]) {
	n := ws.n
	for l := range m.W {
		in, out := m.Sizes[l], m.Sizes[l+1]
		d := ws.delta[l][:n*out]
		gb := g.B[l][:out]
		clear(gb)
		for i := range n {
			row := d[i*out : (i+1)*out]
			if scale == nil {
				for j, v := range row { // G_B = column sums of D
					gb[j] += v
				}
				continue
			}
			s := scale[i]
			for j, v := range row {
				v *= s
				row[j] = v
				gb[j] += v
			}
		}
		// G_W = Dᵀ·A
		gemm.Mul(out, in, n, matOf(d, out, true), matOf(ws.acts[l], in, false), g.W[l], in, false)
	}
}

// GradsOf has the shapes of a network's parameters.
type GradsOf[F Float] struct{ W, B [][]F }

// Grads is the float64 GradsOf.
type Grads = GradsOf[float64]

// NewGrads allocates zero gradients for m.
func NewGrads[F Float](m *Network[F]) *GradsOf[F] {
	g := &GradsOf[F]{}
	for l := range m.W {
		g.W = append(g.W, make([]F, len(m.W[l])))
		g.B = append(g.B, make([]F, len(m.B[l])))
	}
	return g
}

// Each calls fn on every parameter block of g (weights then biases, layer by layer).
func (g *GradsOf[F]) Each(fn func(block []F)) {
	for l := range g.W {
		fn(g.W[l])
		fn(g.B[l])
	}
}

// Scale multiplies every entry by c.
func (g *GradsOf[F]) Scale(c F) {
	g.Each(func(b []F) {
		for i := range b {
			b[i] *= c
		}
	})
}

// Norm is the ℓ2 norm over all entries (summed in float64).
func (g *GradsOf[F]) Norm() float64 {
	s := 0.0
	g.Each(func(b []F) { s += gemm.SumSq(b) })
	return math.Sqrt(s)
}
