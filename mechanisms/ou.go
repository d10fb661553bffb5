package mechanisms

import (
	"math"
	"math/rand/v2"

	"github.com/dprl-project/dprl/dprl/param"
)

// OUPath is one sample path of the zero-mean Gaussian process on the real line with kernel
// K(x, y) = σ² exp(−β|x − y|) (an Ornstein–Uhlenbeck process), drawn lazily: the value at a new point is
// sampled exactly from its conditional law given the values already drawn, and repeated queries return the
// same value. Because the process is Markov, only the two stored neighbours of x matter (Wang & Hegde 2019,
// App. A eq. 2), so a query costs O(log n) in the number n of stored points: they are kept in a treap.
//
// This is the functional noise of Hall, Rinaldo & Wasserman (2013) that Wang & Hegde add to a Q-function:
// releasing f + g for g on this path is the Gaussian mechanism in the kernel's RKHS. σ and β are fixed at
// construction (Sigma, Beta).
type OUPath struct {
	sigma, beta float64
	rng         *rand.Rand
	nodes       []ouNode
	root        int32
	prio        uint64  // state of the treap's own priority sequence (independent of the noise stream)
	path        []int32 // scratch: the nodes At descended through, root first
}

type ouNode struct {
	x, z        float64
	left, right int32
	prio        uint64
}

const nilNode = -1

// NewOUPath returns an empty path with σ > 0 and β > 0 drawing its noise from src.
func NewOUPath(sigma, beta float64, src rand.Source) (*OUPath, error) {
	if err := param.First(checkSigma(sigma), check.In("beta", beta, param.Positive)); err != nil {
		return nil, err
	}
	if err := checkSource("src", src); err != nil {
		return nil, err
	}
	return &OUPath{sigma: sigma, beta: beta, rng: rand.New(src), root: nilNode}, nil
}

// Sigma is the process's standard deviation σ.
func (p *OUPath) Sigma() float64 { return p.sigma }

// Beta is the kernel's rate β.
func (p *OUPath) Beta() float64 { return p.beta }

// MaxOUPaths bounds the number of paths NewOUPaths makes (one per action).
const MaxOUPaths = 1 << 20

// NewOUPaths returns m independent paths (one per action), each with its own stream derived from src, so
// each path's values do not depend on the order in which the other paths are queried.
func NewOUPaths(m int, sigma, beta float64, src rand.Source) ([]*OUPath, error) {
	if err := param.First(check.Int("m", m, 1, MaxOUPaths), checkSigma(sigma), check.In("beta", beta, param.Positive)); err != nil {
		return nil, err
	}
	if err := checkSource("src", src); err != nil {
		return nil, err
	}
	paths := make([]*OUPath, m)
	for i := range paths {
		p, err := NewOUPath(sigma, beta, rand.NewPCG(src.Uint64(), src.Uint64()))
		if err != nil {
			return nil, err
		}
		paths[i] = p
	}
	return paths, nil
}

// Len is the number of stored points.
func (p *OUPath) Len() int { return len(p.nodes) }

// Reset forgets every stored point: the next queries draw a fresh, independent path.
func (p *OUPath) Reset() {
	p.nodes = p.nodes[:0]
	p.root = nilNode
}

// At returns the path's value at x, sampling it if x is new. x must not be NaN (it panics: a programmer error).
func (p *OUPath) At(x float64) float64 {
	if math.IsNaN(x) {
		panic("mechanisms: OUPath.At(NaN)")
	}
	// One descent finds x itself or its predecessor and successor, and the node a new x hangs from.
	lo, hi := int32(nilNode), int32(nilNode)
	path := p.path[:0]
	for t := p.root; t != nilNode; {
		n := &p.nodes[t]
		path = append(path, t)
		switch {
		case x == n.x:
			return n.z
		case x < n.x:
			hi, t = t, n.left
		default:
			lo, t = t, n.right
		}
	}
	p.path = path
	var mean, sd float64
	switch {
	case lo == nilNode && hi == nilNode:
		mean, sd = 0, p.sigma
	case lo == nilNode: // left of every point
		mean, sd = p.edge(p.nodes[hi].x-x, p.nodes[hi].z)
	case hi == nilNode: // right of every point (the released code used the leftmost point here: a bug)
		mean, sd = p.edge(x-p.nodes[lo].x, p.nodes[lo].z)
	default:
		mean, sd = p.between(x-p.nodes[lo].x, p.nodes[hi].x-x, p.nodes[lo].z, p.nodes[hi].z)
	}
	z := mean + sd*p.rng.NormFloat64()
	p.attach(x, z)
	return z
}

// edge is the law of the value at distance a from the one stored neighbour with value zn:
// N(e^{−βa} zn, σ²(1 − e^{−2βa})).
func (p *OUPath) edge(a, zn float64) (mean, sd float64) {
	return math.Exp(-p.beta*a) * zn, p.sigma * math.Sqrt(-math.Expm1(-2*p.beta*a))
}

// between is the law of the value at distance a right of (zl) and c left of (zr) two stored neighbours:
// mean [sinh(βc) zl + sinh(βa) zr]/sinh(β(a+c)), variance σ²(1−e^{−2βa})(1−e^{−2βc})/(1−e^{−2β(a+c)}),
// written with exponentials of negative arguments so that large β(a+c) cannot overflow.
func (p *OUPath) between(a, c, zl, zr float64) (mean, sd float64) {
	ea, ec := -math.Expm1(-2*p.beta*a), -math.Expm1(-2*p.beta*c) // 1 − e^{−2βa}, 1 − e^{−2βc}
	eac := -math.Expm1(-2 * p.beta * (a + c))
	mean = (math.Exp(-p.beta*a)*ec*zl + math.Exp(-p.beta*c)*ea*zr) / eac
	return mean, p.sigma * math.Sqrt(ea*ec/eac)
}

// insert adds (x, z) to the treap, x not stored yet.
func (p *OUPath) insert(x, z float64) {
	path := p.path[:0]
	for t := p.root; t != nilNode; {
		path = append(path, t)
		if x < p.nodes[t].x {
			t = p.nodes[t].left
		} else {
			t = p.nodes[t].right
		}
	}
	p.path = path
	p.attach(x, z)
}

// attach adds (x, z) to the treap as a leaf under the last node of p.path (a descent that did not find x),
// then rotates it up the path while its priority is above its parent's. A treap's shape is fixed by its keys
// and priorities, so this is the tree any insertion order gives.
func (p *OUPath) attach(x, z float64) {
	p.prio += 0x9E3779B97F4A7C15 // splitmix64: deterministic priorities that do not touch the noise stream
	h := p.prio
	h = (h ^ (h >> 30)) * 0xBF58476D1CE4E5B9
	h = (h ^ (h >> 27)) * 0x94D049BB133111EB
	h ^= h >> 31
	p.nodes = append(p.nodes, ouNode{x: x, z: z, left: nilNode, right: nilNode, prio: h})
	n := int32(len(p.nodes) - 1)
	nodes, path := p.nodes, p.path
	if len(path) == 0 {
		p.root = n
		return
	}
	if leaf := path[len(path)-1]; x < nodes[leaf].x {
		nodes[leaf].left = n
	} else {
		nodes[leaf].right = n
	}
	for d := len(path) - 1; d >= 0 && nodes[n].prio > nodes[path[d]].prio; d-- {
		t := path[d]
		if nodes[t].left == n { // rotate right
			nodes[t].left, nodes[n].right = nodes[n].right, t
		} else { // rotate left
			nodes[t].right, nodes[n].left = nodes[n].left, t
		}
		switch {
		case d == 0:
			p.root = n
		case nodes[path[d-1]].left == t:
			nodes[path[d-1]].left = n
		default:
			nodes[path[d-1]].right = n
		}
	}
}

// OURKHSNormSqBound bounds the squared RKHS norm of a function f on [0, 1] for the kernel exp(−β|x−y|)
// (the norm in which the OU path's Gaussian mechanism has sensitivity):
// ‖f‖²_H ≤ (1 + β/2)‖f‖²_∞ + ‖f′‖²_∞/(2β) (Wang & Hegde 2019, Lemma 6).
func OURKHSNormSqBound(supF, supDeriv, beta float64) float64 {
	return (1+beta/2)*supF*supF + supDeriv*supDeriv/(2*beta)
}

// OUSupTail bounds the probability that the path exceeds level k anywhere on [0, 1]:
// P(max g ≥ 8.68·√β·σ + u) ≤ exp(−u²/2) (Wang & Hegde 2019, Lemma 8), with u = k − 8.68√β σ. It returns 1
// when k does not exceed 8.68√β σ (the bound says nothing there).
func OUSupTail(sigma, beta, k float64) float64 {
	u := k - 8.68*math.Sqrt(beta)*sigma
	if u <= 0 {
		return 1
	}
	return math.Exp(-u * u / 2)
}
