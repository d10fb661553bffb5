package audit

import (
	"fmt"
	"math"
	"math/rand/v2"

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

// CaseResult is the audit of a case's valid and broken variants.
type CaseResult struct {
	Case          Case
	Valid, Broken *Result
}

// AuditCatalog audits both variants of every case with cfg (its Delta is replaced by each case's δ; the
// broken variant uses Seed + 1); progress sees every run.
func AuditCatalog(cases []Case, cfg Config, progress Progress) ([]CaseResult, error) {
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
			g, err := mechanisms.NewGaussian(s, src)
			if err != nil {
				return 0, err
			}
			return g.Release(float64(nb)), nil
		}}
	}
	return Case{Name: "analytic Gaussian", Valid: run(sigma), Broken: run(sigma / 10), Epsilon: 1, Delta: 1e-5,
		Neighbours: "query values differ by ≤ 1", Break: "σ × 0.1", PairEpsilon: GaussianPairEpsilon(1/sigma, 1e-5)}
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

// GaussianPairEpsilon is the ε(δ) of a Gaussian pair with means μ apart in units of σ.
func GaussianPairEpsilon(mu, delta float64) float64 {
	e, err := mechanisms.GDPEpsilon(mu, delta)
	if err != nil {
		panic(err)
	}
	return e
}
