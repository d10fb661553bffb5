package nn

import (
	"math"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"testing"
)

func randomBatch(rng *rand.Rand, n, width int) []float64 {
	x := make([]float64, n*width)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	return x
}

// batchLoss is the summed Huber loss of Q(s_i, a_i) against targets, as a function of the parameters.
func batchLoss(m *MLP, x []float64, actions []int, targets []float64) float64 {
	ws := NewWorkspace(m, len(actions))
	out := ws.Forward(m, x)
	k := m.Sizes[len(m.Sizes)-1]
	s := 0.0
	for i, a := range actions {
		s += Huber{}.Value(out[i*k+a], targets[i])
	}
	return s
}

// TestGradientCheck compares backprop with central finite differences for ReLU and tanh networks under the
// Huber loss on selected outputs (both its quadratic and linear parts occur).
func TestGradientCheck(t *testing.T) {
	for _, act := range []Activation{ReLU, Tanh} {
		rng := rand.New(rand.NewPCG(1, uint64(act)))
		m, _ := NewMLP([]int{3, 7, 5, 2}, act, rand.NewPCG(2, 2))
		const n = 6
		x := randomBatch(rng, n, 3)
		actions := make([]int, n)
		targets := make([]float64, n)
		for i := range n {
			actions[i] = rng.IntN(2)
			targets[i] = 3 * rng.NormFloat64()
		}
		ws := NewWorkspace(m, n)
		out := ws.Forward(m, x)
		dOut := make([]float64, n*2)
		SelectedLoss(Huber{}, out, 2, actions, targets, dOut)
		ws.Backward(m, dOut)
		g := NewGrads(m)
		ws.Gradient(m, nil, g)
		const h = 1e-6
		check := func(name string, p, gr []float64) {
			for i := range p {
				old := p[i]
				p[i] = old + h
				up := batchLoss(m, x, actions, targets)
				p[i] = old - h
				down := batchLoss(m, x, actions, targets)
				p[i] = old
				num := (up - down) / (2 * h)
				if math.Abs(num-gr[i]) > 1e-5*(1+math.Abs(num)) {
					t.Fatalf("%v %s[%d]: backprop %g, finite difference %g", act, name, i, gr[i], num)
				}
			}
		}
		for l := range m.W {
			check("W", m.W[l], g.W[l])
			check("B", m.B[l], g.B[l])
		}
	}
}

// TestExampleNorms: the ‖δ‖·‖a‖ norms equal the norms of per-example gradients formed explicitly, and the
// noiseless private gradient is the mean of the explicitly clipped gradients.
func TestExampleNorms(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	m, _ := NewMLP([]int{4, 16, 16, 3}, ReLU, rand.NewPCG(4, 4))
	const n = 9
	x := randomBatch(rng, n, 4)
	dOut := randomBatch(rng, n, 3)
	ws := NewWorkspace(m, n)
	ws.Forward(m, x)
	ws.Backward(m, dOut)
	norms := append([]float64(nil), ws.ExampleNormsSq(m, nil)...)
	sorted := append([]float64(nil), norms...)
	slices.Sort(sorted)
	clip := math.Sqrt(sorted[n/2]) // the median: clipping binds on some examples only
	want := NewGrads(m)
	clipped := 0
	for i := range n {
		one := NewWorkspace(m, 1)
		one.Forward(m, x[i*4:(i+1)*4])
		one.Backward(m, dOut[i*3:(i+1)*3])
		g := NewGrads(m)
		one.Gradient(m, nil, g)
		norm := g.Norm()
		if math.Abs(math.Sqrt(norms[i])-norm) > 1e-12*norm {
			t.Fatalf("example %d: trick %g, explicit %g", i, math.Sqrt(norms[i]), norm)
		}
		if norm > clip {
			g.Scale(clip / norm)
			clipped++
		}
		for l := range g.W {
			axpy(1.0/n, g.W[l], want.W[l])
			axpy(1.0/n, g.B[l], want.B[l])
		}
	}
	if clipped == 0 || clipped == n {
		t.Fatalf("clip %g binds on %d of %d examples: choose another", clip, clipped, n)
	}
	got := NewGrads(m)
	if _, dropped, err := ws.ClippedGradient(m, clip, got, nil); err != nil || dropped != 0 {
		t.Fatal(dropped, err)
	}
	for l := range got.W {
		for i := range got.W[l] {
			if math.Abs(got.W[l][i]-want.W[l][i]) > 1e-12 {
				t.Fatalf("layer %d weight %d: %g vs %g", l, i, got.W[l][i], want.W[l][i])
			}
		}
	}
}

// TestPrivateGradientNoise: with zero loss gradients the private gradient is pure noise with standard deviation
// z·C/n per coordinate.
func TestPrivateGradientNoise(t *testing.T) {
	m, _ := NewMLP([]int{2, 32, 32, 2}, ReLU, rand.NewPCG(6, 6))
	const n, z, c = 8, 1.5, 2.0
	ws := NewWorkspace(m, n)
	ws.Forward(m, make([]float64, n*2))
	ws.Backward(m, make([]float64, n*2))
	g := NewGrads(m)
	if _, _, err := ws.PrivateGradient(m, newDP(t, c, z, rand.NewPCG(7, 7)), g, nil); err != nil {
		t.Fatal(err)
	}
	var s, s2 float64
	k := 0
	g.Each(func(b []float64) {
		for _, v := range b {
			s, s2, k = s+v, s2+v*v, k+1
		}
	})
	want := z * c / n
	sd := math.Sqrt(s2/float64(k) - (s/float64(k))*(s/float64(k)))
	if math.Abs(sd-want) > 4*want/math.Sqrt(2*float64(k)) {
		t.Errorf("noise sd %g, want %g (%d coordinates)", sd, want, k)
	}
}

// TestOptimizersFirstStep: from zero state Adam moves every parameter by LR·sign(g) and RMSprop by
// LR·g/(√(1−α)|g| + ε) ≈ 10·LR·sign(g); SGD by LR·g.
func TestOptimizersFirstStep(t *testing.T) {
	m, _ := NewMLP([]int{2, 3, 1}, Tanh, rand.NewPCG(8, 8))
	g := NewGrads(m)
	rng := rand.New(rand.NewPCG(9, 9))
	g.Each(func(b []float64) {
		for i := range b {
			b[i] = rng.NormFloat64()
		}
	})
	for _, c := range []struct {
		opt  Optimizer
		step func(g float64) float64
	}{
		{&SGD{LR: 0.1}, func(g float64) float64 { return 0.1 * g }},
		{&Adam{}, func(g float64) float64 { return 1e-3 * g / (math.Abs(g) + 1e-8) }},
		{&RMSprop{}, func(g float64) float64 { return 0.01 * g / (math.Sqrt(0.01)*math.Abs(g) + 1e-8) }},
	} {
		net := m.Clone()
		c.opt.Step(net, g)
		for l := range net.W {
			for i := range net.W[l] {
				if d := m.W[l][i] - net.W[l][i]; math.Abs(d-c.step(g.W[l][i])) > 1e-12 {
					t.Fatalf("%T: step %g, want %g", c.opt, d, c.step(g.W[l][i]))
				}
			}
		}
	}
}

// TestLipschitzBound: no pair of inputs changes the output by more than the bound times their distance, and
// for a single linear layer the bound is attained along the top singular vector.
func TestLipschitzBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 10))
	m, _ := NewMLP([]int{3, 16, 16, 2}, ReLU, rand.NewPCG(11, 11))
	L := m.Lipschitz()
	worst := 0.0
	for range 2000 {
		x, y := randomBatch(rng, 1, 3), randomBatch(rng, 1, 3)
		for i := range y {
			y[i] = x[i] + 1e-3*y[i]
		}
		fx, fy := m.Forward(x, nil), m.Forward(y, nil)
		worst = math.Max(worst, dist(fx, fy)/dist(x, y))
	}
	if !(worst <= L) || worst < L/100 {
		t.Errorf("empirical ratio %g vs bound %g", worst, L)
	}
	lin, _ := NewMLP([]int{4, 3}, ReLU, rand.NewPCG(12, 12))
	// power iteration on WᵀW finds the top right singular vector
	v := []float64{1, 1, 1, 1}
	for range 200 {
		u := lin.Forward(v, nil)
		for i := range u {
			u[i] -= lin.B[0][i]
		}
		w := make([]float64, 4)
		for r := range 3 {
			for c := range 4 {
				w[c] += lin.W[0][r*4+c] * u[r]
			}
		}
		n := math.Sqrt(w[0]*w[0] + w[1]*w[1] + w[2]*w[2] + w[3]*w[3])
		for i := range w {
			v[i] = w[i] / n
		}
	}
	zero := lin.Forward(make([]float64, 4), nil)
	if got := dist(lin.Forward(v, nil), zero); math.Abs(got-lin.Lipschitz()) > 1e-9 {
		t.Errorf("linear layer: stretch %g, bound %g", got, lin.Lipschitz())
	}
}

func dist(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += (a[i] - b[i]) * (a[i] - b[i])
	}
	return math.Sqrt(s)
}

// TestTrainingFitsAFunction: Adam with the squared loss fits sin on [−3, 3] to a tenth of the initial loss, and
// two runs from the same seeds agree bit for bit.
func TestTrainingFitsAFunction(t *testing.T) {
	run := func() (*MLP, float64, float64) {
		m, _ := NewMLP([]int{1, 32, 32, 1}, Tanh, rand.NewPCG(13, 13))
		rng := rand.New(rand.NewPCG(14, 14))
		const n = 64
		ws := NewWorkspace(m, n)
		g := NewGrads(m)
		opt := &Adam{LR: 3e-3}
		x, y, dOut := make([]float64, n), make([]float64, n), make([]float64, n)
		acts := make([]int, n)
		var first, last float64
		for it := range 2000 {
			for i := range n {
				x[i] = 6*rng.Float64() - 3
				y[i] = math.Sin(x[i])
			}
			out := ws.Forward(m, x)
			loss := SelectedLoss(Squared{}, out, 1, acts, y, dOut)
			if it == 0 {
				first = loss
			}
			last = loss
			ws.Backward(m, dOut)
			ws.Gradient(m, nil, g)
			g.Scale(1.0 / n)
			opt.Step(m, g)
		}
		return m, first, last
	}
	m1, first, last := run()
	if !(last < first/10) {
		t.Errorf("loss %g → %g", first, last)
	}
	m2, _, _ := run()
	if !reflect.DeepEqual(m1, m2) {
		t.Error("two identical runs differ")
	}
}

func TestHuberAndReplay(t *testing.T) {
	h := Huber{}
	if h.Value(3, 0) != 2.5 || h.Value(0.5, 0) != 0.125 || h.Deriv(-4, 0) != -1 || h.Deriv(0.3, 0) != 0.3 {
		t.Error("Huber values")
	}
	b, err := NewReplay(3, 1)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		b.Add([]float64{float64(i)}, i, float64(i), []float64{float64(i + 1)}, i == 4)
	}
	if b.Len() != 3 {
		t.Fatalf("len %d", b.Len())
	}
	got := map[float64]bool{}
	for i := range 3 {
		got[b.State(i)[0]] = true
		if b.Next(i)[0] != b.State(i)[0]+1 || b.R[i] != b.State(i)[0] {
			t.Fatal("transition fields out of step")
		}
	}
	if !reflect.DeepEqual(got, map[float64]bool{2: true, 3: true, 4: true}) {
		t.Errorf("kept %v, want the newest three", got)
	}
	if _, err := NewReplay(0, 1); err == nil {
		t.Error("capacity 0 accepted")
	}
	if _, err := NewMLP([]int{3}, ReLU, rand.NewPCG(1, 1)); err == nil {
		t.Error("a one-layer size list accepted")
	}
}

// TestDeterministicAcrossGOMAXPROCS: package gemm splits large products over goroutines; each
// output is still summed in one fixed order, so a DP-SGD step gives the same bits with 1 or 4 threads.
func TestDeterministicAcrossGOMAXPROCS(t *testing.T) {
	step := func() *MLP {
		m, _ := NewMLP([]int{8, 256, 256, 4}, ReLU, rand.NewPCG(1, 1))
		src := rand.NewPCG(2, 2)
		rng := rand.New(src)
		const n = 256
		x, dOut := randomBatch(rng, n, 8), randomBatch(rng, n, 4)
		ws := NewWorkspace(m, n)
		g := NewGrads(m)
		dp := newDP(t, 0.1, 1, src)
		for range 3 {
			ws.Forward(m, x)
			ws.Backward(m, dOut)
			if _, _, err := ws.PrivateGradient(m, dp, g, nil); err != nil {
				t.Fatal(err)
			}
			(&Adam{}).Step(m, g)
		}
		return m
	}
	sameAtGOMAXPROCS1And4(t, "float64 DP-SGD with Adam", func() any { return step() })
}

// sameAtGOMAXPROCS1And4 fails t unless run gives deeply equal results at GOMAXPROCS 1 and 4.
func sameAtGOMAXPROCS1And4(t *testing.T, what string, run func() any) {
	t.Helper()
	old := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(old)
	a := run()
	runtime.GOMAXPROCS(4)
	if b := run(); !reflect.DeepEqual(a, b) {
		t.Errorf("%s differs between GOMAXPROCS 1 and 4", what)
	}
}

// TestLipschitzDiverged: a network with a weight that is not finite has no Lipschitz bound (NaN), and asking
// for one does not panic (the SVD refuses NaN).
func TestLipschitzDiverged(t *testing.T) {
	for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		m, _ := NewMLP([]int{1, 4, 2}, ReLU, rand.NewPCG(1, 1))
		m.W[1][3] = bad
		if L := m.Lipschitz(); !math.IsNaN(L) {
			t.Errorf("weight %g: Lipschitz %g, want NaN", bad, L)
		}
	}
}

// TestProjectLipschitz: a network above the bound is scaled to it, its biases untouched; one below it, or
// diverged, is left alone.
func TestProjectLipschitz(t *testing.T) {
	m, _ := NewMLP([]int{2, 8, 3}, ReLU, rand.NewPCG(4, 4))
	L := m.Lipschitz()
	b := append([]float64(nil), m.B[0]...)
	if m.ProjectLipschitz(2 * L) {
		t.Error("projected a network within its bound")
	}
	if !m.ProjectLipschitz(L/3) || math.Abs(m.Lipschitz()-L/3) > 1e-12*L || !slices.Equal(m.B[0], b) {
		t.Errorf("projected to %g, want %g; biases kept %v", m.Lipschitz(), L/3, slices.Equal(m.B[0], b))
	}
	m.W[0][0] = math.NaN()
	if m.ProjectLipschitz(1) {
		t.Error("projected a diverged network")
	}
}
