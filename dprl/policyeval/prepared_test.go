package policyeval

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats"

	"github.com/dprl-project/dprl/envs"
)

// mountainCarTrajs are off-policy Mountain Car feature trajectories (order-3 Fourier basis, 16 dense features).
func mountainCarTrajs(t testing.TB, n int) []FeatureTrajectory {
	t.Helper()
	env, _ := envs.Make("mountaincar")
	tr, err := envs.Collect(env, envs.MixMin{Base: envs.Uniform{N: 3}, PMin: 0.2}, n, rand.NewPCG(4, 4), 0)
	if err != nil {
		t.Fatal(err)
	}
	target := &envs.Greedy{N: 3, Q: func(dst, o []float64) []float64 { dst[0], dst[1], dst[2] = -o[1], 0, o[1]; return dst }}
	ft, err := Featurize(tr, envs.MountainCarFourier(3), envs.MixMin{Base: target, PMin: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	return ft
}

// transitionMoments is SampleMoments written out transition by transition, the definition Prepared's sums
// must agree with.
func transitionMoments(trajs []FeatureTrajectory, gamma float64) (a, c [][]float64, b []float64) {
	d := len(trajs[0].Phi[0])
	a, c, b = make([][]float64, d), make([][]float64, d), make([]float64, d)
	for i := range d {
		a[i], c[i] = make([]float64, d), make([]float64, d)
	}
	n := 0.0
	for _, tr := range trajs {
		for k := range tr.R {
			phi, next := tr.Phi[k], tr.Phi[k+1]
			for i := range d {
				b[i] += tr.Rho[k] * tr.R[k] * phi[i]
				for j := range d {
					a[i][j] += tr.Rho[k] * phi[i] * (phi[j] - gamma*next[j])
					c[i][j] += phi[i] * phi[j]
				}
			}
			n++
		}
	}
	for i := range d {
		b[i] /= n
		floats.Scale(1/n, a[i])
		floats.Scale(1/n, c[i])
	}
	return a, c, b
}

// TestPreparedGradientAndMoments: on dense (Fourier, off-policy) and sparse (tabular chain) features, the
// prepared gradient of every trajectory equals Gradient's pass over its transitions at random x, the prepared
// moments equal the transition-by-transition sums, a Subset shares them, and LSTD and WIS-LSTD solve them.
func TestPreparedGradientAndMoments(t *testing.T) {
	chain, _ := chainFeatureTrajs(t, 60, 9)
	for _, c := range []struct {
		name   string
		trajs  []FeatureTrajectory
		sparse bool
	}{{"mountain car", mountainCarTrajs(t, 20), false}, {"chain", chain, true}} {
		const gamma = 0.97
		p, err := Prepare(c.trajs, gamma)
		if err != nil {
			t.Fatal(err)
		}
		d := p.Dim()
		if p.Len() != len(c.trajs) || d != len(c.trajs[0].Phi[0]) || p.Gamma() != gamma {
			t.Fatalf("%s: %d trajectories of dimension %d", c.name, p.Len(), d)
		}
		for i := range p.trajs {
			if (p.trajs[i].dense == nil) != c.sparse {
				t.Fatalf("%s: trajectory %d stored sparse = %v", c.name, i, p.trajs[i].dense == nil)
			}
			if p.Transitions(i) != len(c.trajs[i].R) {
				t.Fatalf("%s: trajectory %d has %d transitions, want %d", c.name, i, p.Transitions(i), len(c.trajs[i].R))
			}
		}
		rng := rand.New(rand.NewPCG(1, 2))
		x, got, want := make([]float64, 2*d), make([]float64, 2*d), make([]float64, 2*d)
		for i, tr := range c.trajs {
			for j := range x {
				x[j] = rng.NormFloat64()
			}
			p.Gradient(got, i, x)
			Gradient(want, tr, gamma, x[:d], x[d:])
			for j := range got {
				if math.Abs(got[j]-want[j]) > 1e-12*(1+math.Abs(want[j])) {
					t.Fatalf("%s: trajectory %d, entry %d: prepared %g, by transitions %g", c.name, i, j, got[j], want[j])
				}
			}
		}
		a, cc, b := transitionMoments(c.trajs, gamma)
		mo := p.Moments()
		for i := range d {
			if math.Abs(mo.B[i]-b[i]) > 1e-12 {
				t.Fatalf("%s: b[%d] = %g, want %g", c.name, i, mo.B[i], b[i])
			}
			for j := range d {
				if math.Abs(mo.A.At(i, j)-a[i][j]) > 1e-12 || math.Abs(mo.C.At(i, j)-cc[i][j]) > 1e-12 {
					t.Fatalf("%s: (%d, %d): A %g want %g, C %g want %g", c.name, i, j, mo.A.At(i, j), a[i][j], mo.C.At(i, j), cc[i][j])
				}
			}
		}
		sub := p.Subset([]int{2, 0, 2})
		sub.Gradient(got, 0, x)
		p.Gradient(want, 2, x)
		if sub.Len() != 3 || !floats.Equal(got, want) {
			t.Errorf("%s: subset gradient %v, want %v", c.name, got, want)
		}
		// LSTD solves Â θ = b̂ with the ridge on the averaged A; WIS-LSTD on the summed one.
		th, err := p.LSTD(1e-6)
		if err != nil {
			t.Fatal(err)
		}
		res := make([]float64, d)
		for i := range d {
			res[i] = b[i] - floats.Dot(a[i], th) - 1e-6*th[i]
		}
		if r := floats.Norm(res, 2); r > 1e-8*(1+floats.Norm(b, 2)) {
			t.Errorf("%s: LSTD residual %g", c.name, r)
		}
		w0, _ := p.WISLSTD(0)
		l0, _ := p.LSTD(0)
		if c.sparse && !floats.EqualApprox(w0, l0, 1e-8) { // on-policy and without ridge the two agree
			t.Errorf("%s: WIS-LSTD(0) %v, LSTD(0) %v", c.name, w0, l0)
		}
	}
}

// TestPreparedRefusesBadInput: Prepare checks the data once and names what is wrong, and a prepared run
// refuses another discount.
func TestPreparedRefusesBadInput(t *testing.T) {
	ft, _ := chainFeatureTrajs(t, 5, 1)
	if _, err := Prepare(ft, 1.5); err == nil || !strings.Contains(err.Error(), "gamma") {
		t.Errorf("γ = 1.5: %v", err)
	}
	bad := append([]FeatureTrajectory(nil), ft...)
	bad[3] = FeatureTrajectory{Phi: bad[3].Phi, Rho: bad[3].Rho, R: append([]float64{math.NaN()}, bad[3].R[1:]...)}
	if _, err := Prepare(bad, 0.9); err == nil || !strings.Contains(err.Error(), "trajectory 3") {
		t.Errorf("NaN reward: %v", err)
	}
	p, err := Prepare(ft, 0.9)
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.GPOPE(GPOPEConfig{Gamma: 0.99, Iterations: 1, Step: Constant(1), Clip: 1, Sigma: 1, Src: rand.NewPCG(1, 1)})
	if err == nil || !strings.Contains(err.Error(), "Gamma = 0.99") {
		t.Errorf("another γ: %v", err)
	}
}

// TestGPOPEIsPreparedGPOPE: GPOPE on trajectories is the prepared run, bit for bit, and a prepared dataset
// runs several configurations with the same results as fresh ones.
func TestGPOPEIsPreparedGPOPE(t *testing.T) {
	ft := mountainCarTrajs(t, 30)
	p, err := Prepare(ft, 0.99)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []GPOPESampling{SampleOne, SamplePoisson} {
		cfg := GPOPEConfig{Gamma: 0.99, Iterations: 200, Step: Constant(0.05), Clip: 2, Sigma: 0.3, Sampling: s, Src: rand.NewPCG(7, 7)}
		a, err := GPOPE(ft, cfg)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Src = rand.NewPCG(7, 7)
		b, err := p.GPOPE(cfg)
		if err != nil || !floats.Equal(a, b) {
			t.Errorf("%v: GPOPE %v, prepared %v (%v)", s, a, b, err)
		}
	}
}

// BenchmarkPreparedGradient times one stacked gradient, dense (Mountain Car, order-5 Fourier: 36 features)
// and sparse (tabular chain, 40 states), against the pass over the transitions (Gradient).
func BenchmarkPreparedGradient(b *testing.B) {
	env, _ := envs.Make("mountaincar")
	tr, _ := envs.Collect(env, envs.Uniform{N: 3}, 20, rand.NewPCG(1, 1), 0)
	for i := range tr {
		tr[i].Steps = tr[i].Steps[:min(len(tr[i].Steps), 130)]
	}
	mc, _ := Featurize(tr, envs.MountainCarFourier(5), nil)
	bc, _ := newBalleChain()
	chainEnv, _ := envs.Make("chain")
	ctr, _ := envs.Collect(chainEnv, bc.Policy, 20, rand.NewPCG(1, 1), 0)
	chain, _ := Featurize(ctr, envs.TabularFeatures{N: 40}, nil)
	for _, c := range []struct {
		name  string
		trajs []FeatureTrajectory
	}{{"mountaincar-36", mc}, {"chain-40", chain}} {
		p, _ := Prepare(c.trajs, 0.99)
		d := p.Dim()
		x, g := make([]float64, 2*d), make([]float64, 2*d)
		for j := range x {
			x[j] = 0.1 * float64(j%7)
		}
		b.Run(c.name+"/prepared", func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				p.Gradient(g, i%p.Len(), x)
			}
		})
		b.Run(c.name+"/transitions", func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				Gradient(g, c.trajs[i%len(c.trajs)], 0.99, x[:d], x[d:])
			}
		})
		b.Run(c.name+"/prepare", func(b *testing.B) {
			for b.Loop() {
				if _, err := Prepare(c.trajs, 0.99); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
