package audit

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/dprl-project/dprl/dprl/experiment"
	"github.com/dprl-project/dprl/dprl/expertdp"
	"github.com/dprl-project/dprl/dprl/nn"
	"github.com/dprl-project/dprl/mechanisms"
)

// Case is an audit target: the procedure as implemented, a deliberately broken variant the auditor must
// catch, and the ε and δ the implementation claims.
type Case struct {
	Name           string
	Valid, Broken  Procedure
	Epsilon, Delta float64
	Neighbours     string // the neighbouring relation audited
	Break          string // what the broken variant gets wrong
	// PairEpsilon is the exact ε(δ) of the valid variant on the audited pair of inputs where it has a closed
	// form (0: not computed). No test can show more: an audit above it is a bug in the auditor.
	PairEpsilon float64
}

// Catalog is every audit case, in the order of the notebook's table.
func Catalog() []Case {
	return []Case{GaussianCase(), LaplaceCase(), SVTCase(), OUCase(), DPSGDCase(), DPLSWCase(1), GPOPEStepCase(),
		GPOPERunCase(), DataReleaseCase()}
}

// CaseResult is the audit of a case's valid and broken variants.
type CaseResult struct {
	Case          Case
	Valid, Broken *Result
}

// AuditCatalog audits both variants of every case with cfg (its Delta is replaced by each case's δ; the
// broken variant uses Seed + 1); progress sees every run.
func AuditCatalog(cases []Case, cfg Config, progress experiment.Progress) ([]CaseResult, error) {
	out := make([]CaseResult, len(cases))
	for i, c := range cases {
		cfg.Delta = c.Delta
		v, err := Run(c.Valid, cfg, progress)
		if err != nil {
			return nil, fmt.Errorf("audit: %s: %w", c.Name, err)
		}
		b := cfg
		b.Seed++
		br, err := Run(c.Broken, b, progress)
		if err != nil {
			return nil, fmt.Errorf("audit: %s (broken): %w", c.Name, err)
		}
		out[i] = CaseResult{Case: c, Valid: v, Broken: br}
	}
	return out, nil
}

// CatalogTable is the audit table: claimed (ε, δ), the pair's exact ε where known, the audited lower bounds of
// the valid and broken variants at the stated confidence, whether the broken one was caught, runs and time.
func CatalogTable(rs []CaseResult) *experiment.Table {
	t := &experiment.Table{Columns: []string{"mechanism", "neighbours", "claimed ε", "δ", "exact ε of the pair", "audited ε ≥ (valid)",
		"broken variant", "audited ε ≥ (broken)", "caught", "runs", "time"}}
	for _, r := range rs {
		pair := "—"
		if r.Case.PairEpsilon > 0 {
			pair = fmt.Sprintf("%.3f", r.Case.PairEpsilon)
		}
		t.Add(r.Case.Name, r.Case.Neighbours, r.Case.Epsilon, r.Case.Delta, pair, fmt.Sprintf("%.3f", r.Valid.EpsilonLower),
			r.Case.Break, fmt.Sprintf("%.3f", r.Broken.EpsilonLower), r.Broken.EpsilonLower > r.Case.Epsilon,
			r.Valid.Runs+r.Broken.Runs, (r.Valid.Elapsed + r.Broken.Elapsed).Round(time.Millisecond).String())
	}
	return t
}

// SVTCase audits AboveThreshold (ε = 1, Δ = 1, threshold 0) on ten queries: input 0 asks queries of value 0,
// input 1 of value 1 (every query moved by Δ); the statistic is minus the index of the stopping query (10 if
// none stops). The broken variant claims ε = 1 but calibrates its noise for ε = 10.
func SVTCase() Case {
	run := func(eps float64) Procedure {
		return Procedure{Name: "sparse vector", Run: func(nb int, src rand.Source) (float64, error) {
			s, err := mechanisms.NewSparseVector(mechanisms.SparseVectorParams{Epsilon: eps, Sensitivity: 1, Threshold: 0.5, Src: src})
			if err != nil {
				return 0, err
			}
			for i := range 10 {
				if up, _ := s.Above(float64(nb)); up {
					return -float64(i), nil
				}
			}
			return -10, nil
		}}
	}
	return Case{Name: "sparse vector (AboveThreshold)", Valid: run(1), Broken: run(10), Epsilon: 1, Delta: 0,
		Neighbours: "every query moves by ≤ Δ = 1", Break: "noise for ε = 10"}
}

// GaussianCase audits the analytic Gaussian mechanism at (1, 1e−5) on a sensitivity-1 query; the broken
// variant has a tenth of the noise.
func GaussianCase() Case {
	sigma, _ := mechanisms.AnalyticGaussianSigma(1, 1e-5, 1)
	run := func(s float64) Procedure {
		return Procedure{Name: "Gaussian", Run: func(nb int, src rand.Source) (float64, error) {
			return float64(nb) + s*rand.New(src).NormFloat64(), nil
		}}
	}
	return Case{Name: "analytic Gaussian", Valid: run(sigma), Broken: run(sigma / 10), Epsilon: 1, Delta: 1e-5,
		Neighbours: "query values differ by ≤ 1", Break: "σ × 0.1", PairEpsilon: gdpEpsilon(1/sigma, 1e-5)}
}

// LaplaceCase audits the Laplace mechanism at ε = 1 on a sensitivity-1 query; the broken variant has a tenth
// of the noise.
func LaplaceCase() Case {
	run := func(b float64) Procedure {
		return Procedure{Name: "Laplace", Run: func(nb int, src rand.Source) (float64, error) {
			l, err := mechanisms.NewLaplaceScale(b, src)
			if err != nil {
				return 0, err
			}
			return l.Release(float64(nb)), nil
		}}
	}
	return Case{Name: "Laplace", Valid: run(1), Broken: run(0.1), Epsilon: 1, Delta: 0,
		Neighbours: "query values differ by ≤ 1", Break: "scale × 0.1", PairEpsilon: 1}
}

// OUCase audits the functional mechanism of Wang & Hegde (Prop. 4): a released function f + g with g an OU
// path (β = 1) and neighbouring functions differing by a constant c whose RKHS norm is 1
// (‖c‖²_H = c²(1 + β/2)), σ = √(2 ln(1.25/δ))/ε for (ε, δ) = (0.9, 1e−4). The adversary queries the release at
// 100 points and averages. The broken variant answers every query with fresh noise (a path that is not kept),
// so averaging many queries removes it: the reason the sampler must answer consistently.
func OUCase() Case {
	const eps, delta, beta, queries = 0.9, 1e-4, 1.0, 100
	sigma := math.Sqrt(2*math.Log(1.25/delta)) / eps
	c := 1 / math.Sqrt(1+beta/2)
	run := func(consistent bool) Procedure {
		return Procedure{Name: "OU functional noise", Run: func(nb int, src rand.Source) (float64, error) {
			p, err := mechanisms.NewOUPath(sigma, beta, src)
			if err != nil {
				return 0, err
			}
			s := 0.0
			for i := range queries {
				if !consistent {
					p.Reset()
				}
				s += c*float64(nb) + p.At(float64(i)/(queries-1))
			}
			return s / queries, nil
		}}
	}
	return Case{Name: "OU functional mechanism", Valid: run(true), Broken: run(false), Epsilon: eps, Delta: delta,
		Neighbours: "released functions differ by f with ‖f‖_H ≤ 1", Break: "fresh noise per query"}
}

// DPSGDCase audits one DP-SGD aggregation on a 4→16→2 network and a batch of 32 examples: input 1 replaces
// one example by a canary whose loss gradient is huge; per-example clipping at C = 1 and noise for the
// replace-one sensitivity 2C at (1, 1e−5). The statistic is the released gradient's projection on the
// canary's clipped gradient. The broken variant skips clipping.
func DPSGDCase() Case {
	const n, clip = 32, 1.0
	z, _ := mechanisms.AnalyticGaussianSigma(1, 1e-5, 2) // noise std in units of C for Δ = 2C
	net, _ := nn.NewMLP([]int{4, 16, 2}, nn.Tanh, rand.NewPCG(1, 1))
	data := rand.New(rand.NewPCG(2, 2))
	x := make([]float64, n*4)
	for i := range x {
		x[i] = data.NormFloat64()
	}
	dOut := func(nb int) []float64 {
		d := make([]float64, n*2)
		for i := range n {
			d[i*2] = 0.1 // a small loss gradient on output 0 for every ordinary example
		}
		if nb == 1 {
			d[0], d[1] = 0, 1000 // the canary (example 0): a huge gradient on output 1
		}
		return d
	}
	// the canary's clipped gradient direction, flattened
	ws := nn.NewWorkspace(net, n)
	ws.Forward(net, x)
	ws.Backward(net, dOut(1))
	scale := make([]float64, n) // only the canary
	scale[0] = 1
	u := nn.NewGrads(net)
	ws.Gradient(net, scale, u)
	un := u.Norm()
	run := func(clipped bool) Procedure {
		return Procedure{Name: "DP-SGD step", Run: func(nb int, src rand.Source) (float64, error) {
			ws := nn.NewWorkspace(net, n)
			ws.Forward(net, x)
			ws.Backward(net, dOut(nb))
			g := nn.NewGrads(net)
			c := clip
			if !clipped {
				c = 1e300 // never binds
			}
			noise := rand.New(src)
			// the clipped mean without noise, then the noise for clip C on the sum (the broken variant
			// forgets to clip, not to add noise)
			if _, _, err := ws.ClippedGradient(net, c, g, nil); err != nil {
				return 0, err
			}
			for range net.NumParams() {
				noise.NormFloat64() // the stream as when this step drew zero-scaled noise: same numbers as before
			}
			s := 0.0
			for l := range g.W {
				for i, v := range g.W[l] {
					s += (v*n + z*clip*noise.NormFloat64()) * u.W[l][i]
				}
				for i, v := range g.B[l] {
					s += (v*n + z*clip*noise.NormFloat64()) * u.B[l][i]
				}
			}
			return s / un, nil
		}}
	}
	return Case{Name: "DP-SGD step", Valid: run(true), Broken: run(false), Epsilon: 1, Delta: 1e-5,
		Neighbours: "replace one example (batch of 32)", Break: "clipping skipped"}
}

// DataReleaseCase audits one round of Sharma et al.'s DataRelease (the SVT part A_2, which is (ε', 0)-DP for
// a fixed trajectory): the log is one public 40-step CartPole trajectory τ, examined with T = 1, and the
// neighbouring expert sets are m = 140 experts that all play τ's actions greedily, against the same plus one
// more such expert: the worst case, moving every prefix count by its largest possible amount,
// (1 − p_min)^k. ε1 = √(32·ln(2/δ1)) at δ1 = 0.01 makes ε' = 1, and m puts the counts near the threshold
// (θ̂ ≈ 115, so about 10 steps pass). The statistic is the released stable prefix length. The broken variant
// runs the same loop with a tenth of both Laplace noises.
func DataReleaseCase() Case {
	const m, L, pMin, delta1 = 140, 40, 0.02, 0.01
	eps1 := math.Sqrt(32 * math.Log(2/delta1))
	dom := expertdp.CartPoleDomain()
	// Every expert plays action 1 when the pole angle is positive, 0 otherwise; τ alternates the sign.
	tau := expertdp.Traj{Obs: make([]float64, (L+1)*4), Actions: make([]int, L), Rewards: make([]float64, L)}
	for k := range L + 1 {
		tau.Obs[k*4+2] = 0.01 * float64(1-2*(k%2))
		if k < L {
			tau.Actions[k] = 1 - k%2
		}
	}
	sets := [2]*expertdp.Experts{}
	logs := [2]*expertdp.Data{}
	for nb := range 2 {
		e := &expertdp.Experts{Domain: dom, Params: mat.NewDense(m+nb, dom.NumParams, nil)}
		for i := range m + nb {
			e.Params.Set(i, 5+2, 1) // action 1's score on the normalised angle
		}
		sets[nb] = e
		logs[nb] = &expertdp.Data{ObsDim: 4, NumActions: 2, Experts: m + nb, Trajs: []expertdp.Traj{tau}}
	}
	c, _ := expertdp.Constants(eps1, delta1, pMin, 1, L)
	valid := Procedure{Name: "DataRelease round", Run: func(nb int, src rand.Source) (float64, error) {
		r, err := expertdp.DataRelease(logs[nb], sets[nb], expertdp.ReleaseParams{Epsilon: eps1, Delta: delta1, PMin: pMin, T: 1, Src: src})
		if err != nil {
			return 0, err
		}
		return float64(r.StableLen[0]), nil
	}}
	broken := Procedure{Name: "DataRelease round, noise × 0.1", Run: func(nb int, src rand.Source) (float64, error) {
		counter, err := expertdp.NewPrefixCounter(sets[nb], pMin)
		if err != nil {
			return 0, err
		}
		thrNoise, _ := mechanisms.NewLaplaceScale(c.ThresholdScale/10, src)
		qNoise, _ := mechanisms.NewLaplaceScale(c.QueryScale/10, src)
		thr := c.MeanThreshold() + thrNoise.Sample()
		counter.Start(&logs[nb].Trajs[0])
		kept := 0
		for {
			count, ok := counter.Next()
			if !ok || count+qNoise.Sample() <= thr {
				break
			}
			kept++
		}
		return float64(kept), nil
	}}
	return Case{Name: "DataRelease (one SVT round)", Valid: valid, Broken: broken, Epsilon: c.EpsPrime, Delta: 0,
		Neighbours: "expert sets differing in one expert (all of whose actions match τ)", Break: "Laplace noise × 0.1"}
}

// gdpEpsilon is the ε(δ) of a Gaussian pair with means μ apart in units of σ.
func gdpEpsilon(mu, delta float64) float64 {
	e, err := mechanisms.GDPEpsilon(mu, delta)
	if err != nil {
		panic(err)
	}
	return e
}
