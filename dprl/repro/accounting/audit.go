package accounting

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/dprl-project/dprl/dprl/audit"
	"github.com/dprl-project/dprl/dprl/experiment"
	"github.com/dprl-project/dprl/dprl/nn"
	"github.com/dprl-project/dprl/dprl/repro/balle2016"
	"github.com/dprl-project/dprl/dprl/repro/sharma"
	"github.com/dprl-project/dprl/dprl/repro/xie2019"
	"github.com/dprl-project/dprl/mechanisms"
)

// Catalog is every audit case, in the order of the notebook's table.
func Catalog() []audit.Case {
	return []audit.Case{audit.GaussianCase(), audit.LaplaceCase(), audit.SVTCase(), audit.OUCase(), DPSGDCase(), balle2016.DPLSWCase(1), xie2019.GPOPEStepCase(),
		xie2019.GPOPERunCase(), sharma.DataReleaseCase()}
}

// CatalogTable is the audit table: claimed (ε, δ), the pair's exact ε where known, the audited lower bounds of
// the valid and broken variants at the stated confidence, whether the broken one was caught, runs and time.
func CatalogTable(rs []audit.CaseResult) *experiment.Table {
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

// DPSGDCase audits one DP-SGD aggregation on a 4→16→2 network and a batch of 32 examples: input 1 replaces
// one example by a canary whose loss gradient is huge; per-example clipping at C = 1 and noise for the
// replace-one sensitivity 2C at (1, 1e−5). The statistic is the released gradient's projection on the
// canary's clipped gradient. The broken variant skips clipping.
func DPSGDCase() audit.Case {
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
	run := func(clipped bool) audit.Procedure {
		return audit.Procedure{Name: "DP-SGD step", Run: func(nb int, src rand.Source) (float64, error) {
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
	return audit.Case{Name: "DP-SGD step", Valid: run(true), Broken: run(false), Epsilon: 1, Delta: 1e-5,
		Neighbours: "replace one example (batch of 32)", Break: "clipping skipped"}
}
