package accounting

import (
	"math"
	"math/rand/v2"

	"github.com/dprl-project/dprl/dprl/audit"
	"github.com/dprl-project/dprl/dprl/nn"
	"github.com/dprl-project/dprl/mechanisms"
)

// dpsgdNet is the audited network (2→8→2, tanh) and a batch of n examples: n − 1 ordinary examples with a
// small loss gradient on output 0 and, in row 0, the worst-case canary for replace-one neighbours: its loss
// gradient is ∓1000 on output 1 (input 0: −, input 1: +). Backpropagation is linear in the output gradient,
// so at any parameters the two canary gradients are exact negatives of each other with norms far above C:
// clipped, they are ∓C·u, ‖g¹ − g⁰‖ = 2C, the replace-one sensitivity, at every step.
type dpsgdNet struct {
	net *nn.MLP
	x   []float64
	n   int
}

func newDPSGDNet(n int) *dpsgdNet {
	net, _ := nn.NewMLP([]int{2, 8, 2}, nn.Tanh, rand.NewPCG(1, 1))
	data := rand.New(rand.NewPCG(2, 2))
	x := make([]float64, n*2)
	for i := range x {
		x[i] = data.NormFloat64()
	}
	return &dpsgdNet{net: net, x: x, n: n}
}

// dOut is the batch's output gradient on input nb (rows from `from` on).
func (d *dpsgdNet) dOut(nb, from int) []float64 {
	o := make([]float64, 0, (d.n-from)*2)
	for i := from; i < d.n; i++ {
		if i == 0 {
			o = append(o, 0, 1000*float64(2*nb-1))
		} else {
			o = append(o, 0.1*float64(i%3-1), 0.05)
		}
	}
	return o
}

// whiteBoxRun is T full-batch DP-SGD steps (nn.Workspace.PrivateGradient, SGD with step 0.05) on input nb
// with noise multiplier z and clip C = 1 (clip ≤ 0: clipping skipped, the broken variant: noise still
// z·C). The adversary sees every released gradient g̃_t and the parameters; it subtracts the other examples'
// clipped sum (known data) and projects on the canary's clipped direction u_t at the same parameters:
// Z_t = ⟨n·g̃_t − S_t, u_t⟩/(zC) is N(±1/z, 1) given the past, so the statistic Σ Z_t is exactly Gaussian
// with means 2T/z apart and variance T: a μ = 2√T/z Gaussian pair, the accountant's worst case.
func (d *dpsgdNet) whiteBoxRun(T int, z, clip float64) audit.Procedure {
	const lr = 0.05
	return audit.Procedure{Name: "DP-SGD (white box)", Run: func(nb int, src rand.Source) (float64, error) {
		net := d.net.Clone()
		rng := rand.New(src)
		ws, wsC := nn.NewWorkspace(net, d.n), nn.NewWorkspace(net, 1)
		g, gO, gC := nn.NewGrads(net), nn.NewGrads(net), nn.NewGrads(net)
		opt := &nn.SGD{LR: lr}
		others := make([]float64, d.n) // scales that keep rows 1 … n−1 of the (already clipped) errors
		for i := 1; i < d.n; i++ {
			others[i] = 1
		}
		var dp *mechanisms.DPSGD // nil: clipping skipped (the broken variant adds its noise by hand)
		if clip > 0 {
			var err error
			// the DP-SGD aggregation draws from the same source as rng, in program order
			if dp, err = mechanisms.NewDPSGD(mechanisms.DPSGDParams{Clip: clip, NoiseMultiplier: z, Src: src}); err != nil {
				return 0, err
			}
		}
		norms := make([]float64, d.n)
		dOut := d.dOut(nb, 0)
		plus := d.dOut(1, 0)[:2]
		stat := 0.0
		for range T {
			// the adversary's canary direction u_t at θ_t: the "+" canary's gradient (known data)
			wsC.Forward(net, d.x[:2])
			wsC.Backward(net, plus)
			wsC.Gradient(net, nil, gC)
			un := gC.Norm()
			// the mechanism
			ws.Forward(net, d.x)
			ws.Backward(net, dOut)
			if dp != nil {
				if _, _, err := ws.PrivateGradient(net, dp, g, norms); err != nil {
					return 0, err
				}
			} else {
				if _, _, err := ws.ClippedGradient(net, math.Inf(1), g, norms); err != nil {
					return 0, err
				}
				inv := 1 / float64(d.n)
				g.Each(func(b []float64) {
					for i := range b {
						b[i] += z * rng.NormFloat64() * inv
					}
				})
			}
			// the adversary's other side: the other examples' clipped sum S_t at θ_t (known data). The
			// aggregation left each example's clipped error in the workspace, so the rows other than the
			// canary's give it without a second backward pass: the same numbers a separate pass computes.
			ws.Gradient(net, others, gO)
			// Z_t
			s := 0.0
			for l := range g.W {
				for i, v := range g.W[l] {
					s += (v*float64(d.n) - gO.W[l][i]) * gC.W[l][i]
				}
				for i, v := range g.B[l] {
					s += (v*float64(d.n) - gO.B[l][i]) * gC.B[l][i]
				}
			}
			stat += s / un / z
			opt.Step(net, g)
		}
		return stat, nil
	}}
}

// DPSGDTargets audit DP-SGD white box with the worst-case replace-one canary (gradients ±C, difference 2C)
// on a batch of 8, full batch (no subsampling), so the run is exactly a Gaussian mechanism (one step) or a
// composition of T Gaussian mechanisms (μ = 2√T/z), calibrated exactly for (1, 10⁻⁵): the GDP method
// applies, and the pair's exact ε is the claim. Broken variants: clipping skipped, noise calibrated for
// add/remove (Δ = C) under replace-one neighbours (a subtle factor-2 error only the tight audit catches),
// and, for the 100-step run, noise for one step (composition forgotten).
func DPSGDTargets() []audit.Target {
	const n, delta = 8, 1e-5
	d := newDPSGDNet(n)
	s1, _ := mechanisms.AnalyticGaussianSigma(1, delta, 1) // μ = 1/s1 meets (1, δ) exactly
	nbOne := "replace one example (batch of 8, full batch): canary gradients ±C, ‖g − g′‖ = 2C"
	var ts []audit.Target
	for _, T := range []int{1, 100} {
		z := 2 * math.Sqrt(float64(T)) * s1
		name := "DP-SGD, one step (white box)"
		runs, brokenRuns := 100_000, 20_000
		if T > 1 {
			// 2·10⁴: at 10⁴ the bound's spread across seeds reaches below 0.7 of ε
			name, runs, brokenRuns = "DP-SGD, 100 steps (white box, every iterate)", 20_000, 2_000
		}
		ts = append(ts,
			audit.Target{Mechanism: name, Neighbours: nbOne, Variant: "valid", Holds: true, Epsilon: 1, Delta: delta, PairEpsilon: 1,
				Method: audit.MethodGDP, Procedure: d.whiteBoxRun(T, z, 1), Runs: runs,
				Note: "the worst-case canary makes the statistic exactly Gaussian: the GDP fit is valid and tight"},
			audit.Target{Mechanism: name + ", broken", Neighbours: nbOne, Variant: "broken: clipping skipped", Epsilon: 1, Delta: delta,
				Method: audit.MethodThreshold, Procedure: d.whiteBoxRun(T, z, 0), Runs: 2_000},
			audit.Target{Mechanism: name + ", broken", Neighbours: nbOne, Variant: "broken: noise for add/remove (Δ = C) under replace-one",
				Epsilon: 1, Delta: delta, PairEpsilon: audit.GaussianPairEpsilon(2/s1, delta),
				Method: audit.MethodGDP, Procedure: d.whiteBoxRun(T, z/2, 1), Runs: brokenRuns,
				Note: "the pair's exact ε is 2.15: the threshold test cannot show much more than 1 at δ = 1e−5, the GDP fit can"},
		)
		if T > 1 {
			ts = append(ts, audit.Target{Mechanism: name + ", broken", Neighbours: nbOne, Variant: "broken: noise for one step (composition forgotten)",
				Epsilon: 1, Delta: delta, Method: audit.MethodThreshold, Procedure: d.whiteBoxRun(T, 2*s1, 1), Runs: 2_000})
		}
	}
	return ts
}

// DPSGDOneRunTargets audit DP-SGD in one run (Steinke, Nasr & Jagielski): m = 1000 Dirac gradient canaries
// C·e_i (add/remove: canary i is in the batch iff S_i = +1) in a 1000-parameter model, T = 100 full-batch
// steps of mechanisms.DPSGD (the library's aggregator), noise calibrated for (eps, 10⁻⁵) under add/remove
// (μ = √T/z). White box: canary i's score is the sum over steps of coordinate i of the released sums.
// Broken variant: clipping skipped (the canaries are injected with norm 10C).
func DPSGDOneRunTargets(eps float64) []audit.Target {
	const m, T, delta = 1000, 100, 1e-5
	s1, _ := mechanisms.AnalyticGaussianSigma(eps, delta, 1)
	z := math.Sqrt(T) * s1
	run := func(canaryNorm float64) *audit.OneRunProcedure {
		return &audit.OneRunProcedure{Name: "DP-SGD one run", Canaries: m, Run: func(include []bool, src rand.Source) ([]float64, error) {
			a, err := mechanisms.NewDPSGD(mechanisms.DPSGDParams{Clip: 1, NoiseMultiplier: z, Src: src})
			if err != nil {
				return nil, err
			}
			score := make([]float64, m)
			dst := make([]float64, m)
			var grads [][]float64
			for _, in := range include {
				if in {
					grads = append(grads, make([]float64, m))
				}
			}
			for range T {
				j := 0
				for i, in := range include {
					if in {
						clear(grads[j])
						if canaryNorm <= 1 {
							grads[j][i] = canaryNorm
						} // the broken aggregator does not clip: the canary is added after it
						j++
					}
				}
				if _, _, err := a.Aggregate(dst, grads); err != nil {
					return nil, err
				}
				for i, in := range include {
					if in && canaryNorm > 1 {
						dst[i] += canaryNorm
					}
					score[i] += dst[i]
				}
			}
			return score, nil
		}}
	}
	nb := "add/remove each of 1000 Dirac gradient canaries (norm C)"
	return []audit.Target{
		{Mechanism: "DP-SGD, one run, 1000 canaries", Neighbours: nb, Variant: "valid", Holds: true, Epsilon: eps, Delta: delta,
			PairEpsilon: eps, Method: audit.MethodOneRun, OneRun: run(1),
			Note: "one run bounds ε by the accuracy of membership guesses: far from tight at small ε"},
		{Mechanism: "DP-SGD, one run, 1000 canaries, broken", Neighbours: nb, Variant: "broken: clipping skipped (canary norm 10C)",
			Epsilon: eps, Delta: delta, Method: audit.MethodOneRun, OneRun: run(10)},
	}
}
