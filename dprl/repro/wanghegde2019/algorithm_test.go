package wanghegde2019_test

import (
	"errors"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"testing"

	"gonum.org/v1/gonum/floats"

	"github.com/dprl-project/dprl/dprl/fnq"
	"github.com/dprl-project/dprl/dprl/nn"
	"github.com/dprl-project/dprl/dprl/repro/claimtest"
	"github.com/dprl-project/dprl/dprl/repro/wanghegde2019"
	"github.com/dprl-project/dprl/envs"
	"github.com/dprl-project/dprl/mechanisms"
)

// The notebook's "Algorithm 1 in code" cell, copied verbatim: TestAlgorithmCellUnchanged keeps the two equal.

// algorithm1 is Wang & Hegde's Algorithm 1 on env with calibration c (σ its exact GDP σ), discount gamma and
// a uniformly random action with probability explore; it returns the episode returns and the network.
func algorithm1(env envs.Env, c fnq.Calibration, gamma, explore float64, src rand.Source) ([]float64, *nn.MLP, error) {
	k, err := c.Compute() // line 5: v = 4α(k+1)/B, C = (v² + v)L², β = 1/v, σ
	if err != nil {
		return nil, nil, err
	}
	rng, m := rand.New(src), c.Actions
	net, err := nn.NewMLP([]int{1, 16, 16, m}, nn.ReLU, rand.NewPCG(rng.Uint64(), rng.Uint64()))
	paths, err2 := mechanisms.NewOUPaths(m, k.SigmaGDP, k.Beta, rand.NewPCG(rng.Uint64(), rng.Uint64()))
	if err := errors.Join(err, err2); err != nil {
		return nil, nil, err
	}
	q := func(ws *nn.Workspace, x []float64) []float64 { // Q_θ(x, a) + ĝ_a(x), paths drawn lazily (lines 14–18)
		out := ws.Forward(net, x)
		for i := range out {
			out[i] += paths[i%m].At(x[i/m])
		}
		return out
	}
	net.ProjectLipschitz(c.L) // Theorem 5 assumes an L-Lipschitz network: scale the weights back to it
	ws1, wsB, g := nn.NewWorkspace(net, 1), nn.NewWorkspace(net, c.B), nn.NewGrads(net)
	xs, acts, ys, dOut := make([]float64, c.B), make([]int, c.B), make([]float64, c.B), make([]float64, c.B*m)
	var returns []float64
	state, ret, done := []float64{0}, 0.0, true
	for j := range k.Steps { // line 6: T′ = T/B steps
		if j%max(1, k.Steps/c.Resets) == 0 { // lines 7–9: a fresh path every T′/J steps
			for _, p := range paths {
				p.Reset()
			}
		}
		for b := range c.B { // line 10: t = jB + b
			if done {
				obs, err := env.Reset(rand.NewPCG(rng.Uint64(), rng.Uint64()))
				if err != nil {
					return nil, nil, err
				}
				state[0], ret, done = obs[0], 0, false
			}
			a := 0
			if rng.Float64() < explore {
				a = rng.IntN(m)
			} else {
				a = floats.MaxIdx(q(ws1, state)) // line 11: a_t = argmax_a Q + ĝ
			}
			st, err := env.Step(a) // line 12
			if err != nil {
				return nil, nil, err
			}
			ret, done = ret+st.Reward, st.Terminated || st.Truncated
			xs[b], acts[b], ys[b] = state[0], a, st.Reward
			if !st.Terminated {
				ys[b] += gamma * floats.Max(q(ws1, st.Obs)) // line 19: y_t = r_t + γ max_a Q + ĝ
			}
			if state[0] = st.Obs[0]; done {
				returns = append(returns, ret)
			}
		}
		nn.SelectedLoss(nn.Squared{}, q(wsB, xs), m, acts, ys, dOut) // line 20: l_t = ½(Q + ĝ − y_t)²
		wsB.Backward(net, dOut)
		wsB.Gradient(net, nil, g)
		g.Scale(1 / float64(c.B))
		nn.SGDStep(c.LR, net, g) // line 22: θ ← θ − α·(1/B)·∇Σ l_t
		net.ProjectLipschitz(c.L)
	}
	return returns, net, nil
}

// TestAlgorithmInCode: the notebook's Algorithm 1, written from library primitives, gives fnq.RunSpecified's
// returns and network bit for bit with the same seed, in the worked setting (ours) and in a configuration of
// the selection grid, at both of Fig. 2's ε.
func TestAlgorithmInCode(t *testing.T) {
	for i, eps := range wanghegde2019.Fig2Epsilons {
		w, _ := wanghegde2019.WorkedConfig(eps)
		for j, cfg := range []wanghegde2019.Alg1Config{w, {B: 512, LR: 0.1, Gamma: 0.5}} {
			cal, err := wanghegde2019.Corrected(cfg.Calibration(eps, 1))
			if err != nil {
				t.Fatal(err)
			}
			env, _ := envs.Make("wanghegde")
			returns, net, err := algorithm1(env, cal, cfg.Gamma, 0.1, rand.NewPCG(uint64(i), uint64(j)))
			if err != nil {
				t.Fatal(err)
			}
			env, _ = envs.Make("wanghegde")
			lib, err := fnq.RunSpecified(env, fnq.SpecifiedConfig{Calibration: cal, UseGDPSigma: true, Gamma: cfg.Gamma, Explore: 0.1, Src: rand.NewPCG(uint64(i), uint64(j))})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(returns, lib.Returns) || !reflect.DeepEqual(net.W, lib.Released.Network().W) || !reflect.DeepEqual(net.B, lib.Released.Network().B) {
				t.Errorf("ε = %g, %s: returns %v, library %v; networks equal %v", eps, cfg, returns, lib.Returns, reflect.DeepEqual(net.W, lib.Released.Network().W))
			}
			if len(returns) < 90 {
				t.Errorf("ε = %g, %s: %d episodes", eps, cfg, len(returns))
			}
		}
	}
}

// TestAlgorithmCellUnchanged: the notebook has exactly one code cell declaring algorithm1, and its declaration is
// this file's, token for token (claimtest.CellFunc).
func TestAlgorithmCellUnchanged(t *testing.T) {
	claimtest.CellFunc(t, filepath.Join("..", "..", "..", "notebooks", "04-wang2019-functional-noise-q-learning.ipynb"), "algorithm_test.go", "algorithm1")
}
