package wanghegde2019

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/dprl-project/dprl/dprl/audit"
	"github.com/dprl-project/dprl/dprl/fnq"
	"github.com/dprl-project/dprl/dprl/nn"
	"github.com/dprl-project/dprl/envs"
)

// End-to-end audit of functional-noise Q-learning (Wang & Hegde's Algorithm 1, fnq.RunSpecified).
//
// Neighbours are reward functions r and r + 1 on Wang & Hegde's MDP (sup |r − r′| = 1, the package's
// relation), in 50-step episodes. What is audited is the released function Q̃_a = Q_θ(·, a) + g_a after
// training, read black box through its values: the adversary queries Q̃ at a grid of states for both
// actions.
//
// Theorem 5 treats the OU paths as the only noise: its sensitivity bound holds for every network
// initialisation, start state, move and exploration, so its claim covers Algorithm 1 with all of these
// fixed. The audit fixes them (pathsOnly: every draw but the paths' seed comes from one fixed stream), explores
// uniformly (Explore = 1, a data-independent behaviour policy) and takes γ = 10⁻³⁰⁰, so that the bootstrapped
// part of a target, γ·max Q̃, is nothing next to a reward. The trained Q_θ then differs between runs of an
// input only through the paths' values in the prediction errors Q̃(x_b) − y_b of the SGD steps, a small
// effect, and the released function is, nearly, Q_θ plus a Gaussian process: nearly a Gaussian mechanism in
// the kernel's RKHS with μ = ‖ΔQ‖_H/σ. Nearly is not exactly, so every row uses the assumption-free threshold
// test. The statistic is the Gaussian likelihood ratio on the grid, Σ_a ⟨ΔQ_a, Q̃_a − Q⁰_a⟩ in the kernel's
// inner product (the OU process is Markov, so the grid's precision matrix is tridiagonal), with ΔQ and Q⁰
// from two reference runs.

// fnqEpsilon, fnqDelta and fnqLR are the audited claim and step size.
const (
	fnqEpsilon = 0.9
	fnqDelta   = 1e-4
	fnqLR      = 1e-3
	fnqGamma   = 1e-300
)

// FNQAuditCalibration is Theorem 5's input for the audit: ε = 0.9, δ = 10⁻⁴, B samples per step, steps SGD
// steps (T = B·steps samples), step size α = 10⁻³, L = 1, tail level k, two actions, a fresh path every step
// (J = T′) and the √m correction: every correction of the package doc but the ones the theorem's σ cannot
// absorb.
func FNQAuditCalibration(B, steps int, k float64) fnq.Calibration {
	return fnq.Calibration{Epsilon: fnqEpsilon, Delta: fnqDelta, T: B * steps, B: B, LR: fnqLR, L: 1, K: k, Actions: Actions,
		Resets: steps, MActionCorrection: true}
}

// rewardShift adds a constant to every reward of the wrapped environment: the neighbouring reward function.
type rewardShift struct {
	envs.Env
	shift float64
}

// Step is the wrapped environment's step with the reward shifted.
func (e rewardShift) Step(a int) (envs.StepResult, error) {
	r, err := e.Env.Step(a)
	r.Reward += e.shift
	return r, err
}

// pathsOnly is an audited run's rand.Source: every draw comes from a fixed stream except the third and
// fourth, which fnq.RunSpecified turns into the seed of its OU paths (the first two seed the network, the
// rest the start states, moves and exploration). newFNQPair checks that this still isolates the paths.
type pathsOnly struct {
	fixed, noise rand.Source
	n            int
}

// Uint64 is the next draw: from noise for the third and fourth, from fixed otherwise.
func (p *pathsOnly) Uint64() uint64 {
	p.n++
	if p.n == 3 || p.n == 4 {
		return p.noise.Uint64()
	}
	return p.fixed.Uint64()
}

// fnqRelease runs Algorithm 1 on reward function r + nb with the paths drawn from noise.
func fnqRelease(cal fnq.Calibration, nb int, noise rand.Source) (*fnq.SpecifiedResult, error) {
	env := &envs.TimeLimit{Env: rewardShift{envs.NewWangHegde(), float64(nb)}, MaxSteps: 50}
	return fnq.RunSpecified(env, fnq.SpecifiedConfig{Calibration: cal, Gamma: fnqGamma, Explore: 1,
		Src: &pathsOnly{fixed: rand.NewPCG(19, 19), noise: noise}})
}

// ouInner is the inner product of u and v in the OU kernel exp(−β|x − y|) restricted to the sorted grid xs
// (uᵀK⁻¹v with K_ij = exp(−β|x_i − x_j|)): the process is Markov, so each point after the first contributes
// its innovation (u_i − ρ_i u_{i−1})(v_i − ρ_i v_{i−1})/(1 − ρ_i²), ρ_i = exp(−β(x_i − x_{i−1})).
func ouInner(xs []float64, beta float64, u, v []float64) float64 {
	s := u[0] * v[0]
	for i := 1; i < len(xs); i++ {
		rho := math.Exp(-beta * (xs[i] - xs[i-1]))
		s += (u[i] - rho*u[i-1]) * (v[i] - rho*v[i-1]) / -math.Expm1(-2*beta*(xs[i]-xs[i-1]))
	}
	return s
}

// grid is n evenly spaced states in [0, 1] (cell centres).
func grid(n int) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = (float64(i) + 0.5) / float64(n)
	}
	return xs
}

// netValues is the trained network's Q(x, a) at every grid point, per action (no noise).
func netValues(net *nn.MLP, xs []float64) [][]float64 {
	ws := nn.NewWorkspace(net, len(xs))
	out := ws.Forward(net, xs)
	m := net.Sizes[len(net.Sizes)-1]
	q := make([][]float64, m)
	for a := range q {
		q[a] = make([]float64, len(xs))
		for i := range xs {
			q[a][i] = out[i*m+a]
		}
	}
	return q
}

// fnqPair is an audited configuration: the reference runs' values on the adversary's grid (input 0's, and
// input 1's minus input 0's), the statistic's normalisation, and for the notes the pair's μ on a fine grid
// (close to ‖ΔQ‖_H/σ from below) and the largest change of Q between the inputs.
type fnqPair struct {
	cal            fnq.Calibration
	k              *fnq.Constants
	xs             []float64
	q0, dq         [][]float64
	muGrid, muFine float64
	maxChange      float64
}

// newFNQPair trains both inputs once for the statistic's direction, checks that the paths are the only
// randomness left (another noise stream gives the same episodes, so the same states, actions and rewards,
// and other paths), and computes the notes' μ.
func newFNQPair(cal fnq.Calibration) (*fnqPair, error) {
	k, err := cal.Compute()
	if err != nil {
		return nil, err
	}
	p := &fnqPair{cal: cal, k: k, xs: grid(min(max(64, int(k.Beta/2)), 4000))}
	fine := grid(min(max(256, int(4*k.Beta)), 40_000))
	var q, qf [2][][]float64
	for nb := range 2 {
		r, err := fnqRelease(cal, nb, rand.NewPCG(1, uint64(nb)))
		if err != nil {
			return nil, err
		}
		again, err := fnqRelease(cal, nb, rand.NewPCG(2, 7))
		if err != nil {
			return nil, err
		}
		if len(r.Returns) == 0 || !slices.Equal(r.Returns, again.Returns) {
			return nil, fmt.Errorf("wanghegde2019: the FNQ audit's runs differ outside the paths (episode returns %v and %v): fnq.RunSpecified no longer draws the paths' seed third and fourth", r.Returns, again.Returns)
		}
		if r.Released.Path(0).At(0.5) == again.Released.Path(0).At(0.5) {
			return nil, fmt.Errorf("wanghegde2019: the FNQ audit's paths do not depend on the run's noise stream")
		}
		q[nb], qf[nb] = netValues(r.Released.Network(), p.xs), netValues(r.Released.Network(), fine)
	}
	p.q0 = q[0]
	mu2, mu2f := 0.0, 0.0
	for a := range q[0] {
		d := make([]float64, len(p.xs))
		for i := range d {
			d[i] = q[1][a][i] - q[0][a][i]
		}
		p.dq = append(p.dq, d)
		mu2 += ouInner(p.xs, k.Beta, d, d)
		df := make([]float64, len(fine))
		for i := range df {
			df[i] = qf[1][a][i] - qf[0][a][i]
			p.maxChange = math.Max(p.maxChange, math.Abs(df[i]))
		}
		mu2f += ouInner(fine, k.Beta, df, df)
	}
	sigma := k.SigmaThm5
	p.muGrid, p.muFine = math.Sqrt(mu2)/sigma, math.Sqrt(mu2f)/sigma
	if !(p.muGrid > 0) {
		return nil, fmt.Errorf("wanghegde2019: the FNQ audit's inputs train the same function")
	}
	return p, nil
}

// procedure is the audited run: Algorithm 1 on input nb, then the likelihood-ratio statistic of the
// released function's values on the grid (noiseless: the released function without its paths, Algorithm 1
// as printed).
func (p *fnqPair) procedure(name string, noiseless bool) audit.Procedure {
	sigma := p.k.SigmaThm5
	norm := p.muGrid * sigma * sigma
	return audit.Procedure{Name: name, Run: func(nb int, src rand.Source) (float64, error) {
		r, err := fnqRelease(p.cal, nb, src)
		if err != nil {
			return 0, err
		}
		q := netValues(r.Released.Network(), p.xs)
		s := 0.0
		for a := range q {
			y := q[a]
			for i, x := range p.xs {
				if !noiseless {
					y[i] += r.Released.Path(a).At(x) // Q̃_a(x) = Released.Value(x, a)
				}
				y[i] -= p.q0[a][i]
			}
			s += ouInner(p.xs, p.k.Beta, p.dq[a], y)
		}
		return s / norm, nil
	}}
}

// FNQTargets are functional-noise Q-learning's rows of the tight audit table, all with the claim
// (ε, δ) = (0.9, 10⁻⁴) of Theorem 5's σ with the √m correction, J = T′ fresh paths, the Lipschitz bound
// enforced and k past the corrected tail (the corrected tail term is below 10⁻²⁶⁰, so δ is the claim's):
//
//   - valid: B = 128, T′ = 8 steps, k = 420. Here Theorem 5's per-step bound v = 4α(k + 1)/B is above the
//     whole change the training makes (measured on the audited pair, in the row's note), so the claim's
//     premise holds; the released function's pair is far below the claim.
//   - broken: the same run releasing Q_θ without its paths (Algorithm 1 as printed, before the typo fix the
//     package doc lists): the pair separates perfectly.
//   - published: B = 4096, T′ = 1, k = 60, inside every precondition of Theorem 5. v shrinks like 1/B, but a
//     neighbouring reward function changes the reward of every sample in the batch, so the step's change in Q
//     does not shrink (it is about α whatever B): one released function alone is far above the claim, and
//     the threshold test shows it.
func FNQTargets() ([]audit.Target, error) {
	valid, err := newFNQPair(FNQAuditCalibration(128, 8, 420))
	if err != nil {
		return nil, err
	}
	big, err := newFNQPair(FNQAuditCalibration(4096, 1, 60))
	if err != nil {
		return nil, err
	}
	nb := "reward functions r and r + 1 (sup-norm 1) on Wang & Hegde's MDP; the released Q̃ read on a grid"
	approx := func(mu float64) float64 { return audit.GaussianPairEpsilon(mu, fnqDelta) }
	return []audit.Target{
		{Mechanism: "functional-noise Q-learning (Algorithm 1, B = 128)", Neighbours: nb, Variant: "valid", Holds: true,
			Epsilon: fnqEpsilon, Delta: fnqDelta, Method: audit.MethodThreshold,
			Procedure: valid.procedure("FNQ, B = 128", false), Runs: 250,
			Note: fmt.Sprintf("T′ = 8, k = 420, σ = %.3g: the trained Q moved by at most %.3g over the whole run, below Theorem 5's per-step v = %.3g; nearly a Gaussian pair with μ ≈ %.3f (ε ≈ %.3f), far below the claim",
				valid.k.SigmaThm5, valid.maxChange, valid.k.V, valid.muFine, approx(valid.muFine))},
		{Mechanism: "functional-noise Q-learning (Algorithm 1, B = 128), broken", Neighbours: nb,
			Variant: "broken: released without its noise (Algorithm 1 as printed)", Epsilon: fnqEpsilon, Delta: fnqDelta,
			Method: audit.MethodThreshold, Procedure: valid.procedure("FNQ without noise", true), Runs: 200},
		{Mechanism: "functional-noise Q-learning (Algorithm 1, B = 4096)", Neighbours: nb,
			Variant: "published: Theorem 5's step bound v = 4α(k+1)/B at B = 4096", Epsilon: fnqEpsilon, Delta: fnqDelta,
			Method: audit.MethodThreshold, Procedure: big.procedure("FNQ, B = 4096", false), Runs: 150,
			Note: fmt.Sprintf("T′ = 1, k = 60, σ = %.3g: one step moved Q by %.3g, %.0f times v = %.3g (every sample's reward differs, so the change does not shrink with B); the released function alone is nearly a Gaussian pair with μ ≈ %.2f, ε ≈ %.1f",
				big.k.SigmaThm5, big.maxChange, big.maxChange/big.k.V, big.k.V, big.muFine, approx(big.muFine))},
	}, nil
}
