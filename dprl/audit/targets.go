package audit

// Targets: the rows of the tight audit table. A Target is one variant of one mechanism (valid, deliberately
// broken, as published, or corrected) with the claim it is audited against and the method that audits it.
// AuditTargets runs them in order; the caller (dprl/repro/accounting) assembles the catalogue and writes
// the table.

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/dprl-project/dprl/dprl/param"
	"github.com/dprl-project/dprl/mechanisms"
)

// Method is how a target is audited.
type Method string

const (
	// MethodThreshold is Run's assumption-free (ε, δ) threshold test (the ε-DP trade-off at δ = 0).
	MethodThreshold Method = "threshold"
	// MethodGDP is RunTight's μ-GDP lower bound turned into ε(δ): valid only for procedures whose
	// privacy-loss distribution is Gaussian.
	MethodGDP Method = "gdp"
	// MethodOneRun is RunOneRun: Steinke, Nasr & Jagielski's bound from one run with many canaries.
	MethodOneRun Method = "one-run"
)

// Target is one audited variant.
type Target struct {
	Mechanism  string // the row's name, variant included
	Neighbours string
	// Variant is "valid", "corrected", "broken: …" or "published: …".
	Variant string
	// Holds says whether the variant's claim is expected to hold (valid, corrected); a broken or published
	// variant that does not meet its claim is caught when its lower bound exceeds the claim.
	Holds          bool
	Epsilon, Delta float64 // claimed
	// PairEpsilon is the exact ε(δ) of the audited pair where known (0: not known): no sound audit exceeds it.
	PairEpsilon float64
	Method      Method
	Procedure   Procedure        // MethodThreshold, MethodGDP
	OneRun      *OneRunProcedure // MethodOneRun
	// Runs is Config.Runs (per input and half: 4·Runs runs in all); ignored by MethodOneRun.
	Runs int
	Note string // what the audit can and cannot show for this variant
}

// TargetResult is one audited target.
type TargetResult struct {
	Target Target
	// EpsilonLower is the row's bound by its method.
	EpsilonLower float64
	// AssumptionFree is the assumption-free (ε, δ) bound from the same runs (= EpsilonLower for the threshold
	// and one-run methods).
	AssumptionFree float64
	MuLower        float64 // MethodGDP: the μ lower bound (valid for any procedure)
	Runs           int     // runs of the procedure
	Elapsed        time.Duration
}

// Ratio is EpsilonLower over the claimed ε.
func (r TargetResult) Ratio() float64 { return r.EpsilonLower / r.Target.Epsilon }

// Caught reports whether the audit shows the claim false: the lower bound exceeds the claimed ε.
func (r TargetResult) Caught() bool { return r.EpsilonLower > r.Target.Epsilon }

// AuditTargets audits every target in order with streams from seed + i (target i), runs scaled by scale
// (> 0; at least 10 per input and half), and calls done after each (nil allowed).
func AuditTargets(ts []Target, seed uint64, scale float64, progress Progress, done func(TargetResult)) ([]TargetResult, error) {
	if err := check.In("scale", scale, param.Positive); err != nil {
		return nil, err
	}
	out := make([]TargetResult, 0, len(ts))
	for i, t := range ts {
		r, err := AuditTarget(t, seed+uint64(i), scale, progress)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
		if done != nil {
			done(r)
		}
	}
	return out, nil
}

// AuditTarget audits one target (see AuditTargets).
func AuditTarget(t Target, seed uint64, scale float64, progress Progress) (TargetResult, error) {
	if err := check.In("scale", scale, param.Positive); err != nil {
		return TargetResult{}, err
	}
	r := TargetResult{Target: t}
	n := max(10, int(math.Round(float64(t.Runs)*scale)))
	cfg := Config{Runs: n, Delta: t.Delta, Seed: seed}
	switch t.Method {
	case MethodThreshold:
		res, err := Run(t.Procedure, cfg, progress)
		if err != nil {
			return r, fmt.Errorf("audit: %s: %w", t.Mechanism, err)
		}
		r.EpsilonLower, r.AssumptionFree, r.Runs, r.Elapsed = res.EpsilonLower, res.EpsilonLower, res.Runs, res.Elapsed
	case MethodGDP:
		res, err := RunTight(t.Procedure, cfg, progress)
		if err != nil {
			return r, fmt.Errorf("audit: %s: %w", t.Mechanism, err)
		}
		r.EpsilonLower, r.AssumptionFree, r.MuLower, r.Runs, r.Elapsed = res.EpsilonGDP, res.EpsilonLower, res.MuLower, res.Runs, res.Elapsed
	case MethodOneRun:
		if t.OneRun == nil {
			return r, check.Missing("OneRun", fmt.Sprintf("a one-run procedure (target %q)", t.Mechanism))
		}
		res, err := RunOneRun(*t.OneRun, OneRunConfig{Delta: t.Delta, Seed: seed})
		if err != nil {
			return r, fmt.Errorf("audit: %s: %w", t.Mechanism, err)
		}
		r.EpsilonLower, r.AssumptionFree, r.Runs, r.Elapsed = res.EpsilonLower, res.EpsilonLower, res.Runs, res.Elapsed
		if progress != nil {
			progress.Add(res.Runs)
		}
	default:
		return r, check.Errorf("Method", math.NaN(), "{threshold, gdp, one-run} (got %q)", string(t.Method))
	}
	return r, nil
}

// Targets of this package's mechanisms: valid variants at about 10⁵–10⁶ runs, broken ones at 10⁴.

// GaussianTargets are the analytic Gaussian mechanism at (1, 10⁻⁵) on a sensitivity-1 query: audited with
// the GDP method (its privacy loss is Gaussian), with the assumption-free threshold test for comparison,
// and its broken variant (σ × 0.1).
func GaussianTargets() []Target {
	c := GaussianCase()
	base := Target{Mechanism: "Gaussian (analytic)", Neighbours: c.Neighbours, Variant: "valid", Holds: true, Epsilon: c.Epsilon,
		Delta: c.Delta, PairEpsilon: c.PairEpsilon, Procedure: c.Valid}
	gdp, thr, br := base, base, base
	gdp.Method, gdp.Runs = MethodGDP, 1_000_000
	gdp.Note = "GDP fit of a Gaussian pair: tight as runs grow"
	thr.Mechanism, thr.Method, thr.Runs = "Gaussian (analytic), assumption-free", MethodThreshold, 1_000_000
	thr.Note = "threshold test at δ = 1e−5: the far tail limits it to ~0.4 of ε even at 10⁶ runs"
	br.Mechanism, br.Variant, br.Holds, br.Method, br.Runs, br.Procedure = "Gaussian (analytic), broken", "broken: σ × 0.1", false, MethodThreshold, 10_000, c.Broken
	br.PairEpsilon = 0
	return []Target{gdp, thr, br}
}

// LaplaceTargets are the Laplace mechanism at ε = 1 (scale 1, sensitivity 1) audited with the
// likelihood-ratio statistic (x clamped to [0, 1]) and the ε-DP trade-off, and its broken variant (scale × 0.1).
func LaplaceTargets() []Target {
	run := func(b float64) Procedure {
		return Procedure{Name: "Laplace (LR)", Run: func(nb int, src rand.Source) (float64, error) {
			l, err := mechanisms.NewLaplaceScale(b, src)
			if err != nil {
				return 0, err
			}
			// The likelihood ratio of Lap(0, b) against Lap(1, b) is monotone in x clamped to [0, 1]. The
			// clamp has exact atoms at 0 and 1; the textbook form |x| − |x − 1| would not: it rounds
			// differently for the two inputs and reads the release's low-order bits (Mironov 2012).
			return min(max(l.Release(float64(nb)), 0), 1), nil
		}}
	}
	c := LaplaceCase()
	return []Target{
		{Mechanism: "Laplace", Neighbours: c.Neighbours, Variant: "valid", Holds: true, Epsilon: 1, PairEpsilon: 1, Method: MethodThreshold,
			Procedure: run(1), Runs: 100_000, Note: "ε-DP trade-off with the likelihood-ratio statistic: tight"},
		{Mechanism: "Laplace, broken", Neighbours: c.Neighbours, Variant: "broken: scale × 0.1", Epsilon: 1, Method: MethodThreshold,
			Procedure: run(0.1), Runs: 10_000},
	}
}

// SVTTargets are AboveThreshold (SVTCase) and its broken variant.
func SVTTargets() []Target {
	c := SVTCase()
	return []Target{
		{Mechanism: "sparse vector (AboveThreshold)", Neighbours: c.Neighbours, Variant: "valid", Holds: true, Epsilon: c.Epsilon,
			Method: MethodThreshold, Procedure: c.Valid, Runs: 100_000,
			Note: "ten queries all moved by Δ: the stopping index's distribution is not the worst case of the analysis (ε/2 to the threshold, ε/2 to the queries)"},
		{Mechanism: "sparse vector, broken", Neighbours: c.Neighbours, Variant: "broken: " + c.Break, Epsilon: c.Epsilon,
			Method: MethodThreshold, Procedure: c.Broken, Runs: 10_000},
	}
}

// OUDiracTargets audit the functional mechanism (Wang & Hegde Prop. 4, (ε, δ) = (0.9, 10⁻⁴), β = 1) with the
// worst case an adversary can place: a Dirac canary, the kernel section f = k(x₀, ·) = exp(−β|x₀ − ·|),
// whose RKHS norm is exactly 1 (‖k(x₀, ·)‖²_H = k(x₀, x₀)). The neighbouring released functions are g and
// f + g; the value at x₀ is then a sufficient statistic (the likelihood ratio of the whole path is a function
// of it), so one query at x₀ is the optimal test and the pair is exactly the Gaussian mechanism with μ = 1/σ.
// The adversary nevertheless asks 100 times at x₀ and averages, which changes nothing for a sampler that
// answers consistently; the broken variant draws fresh noise per query, so the average removes it.
func OUDiracTargets() []Target {
	const eps, delta, beta, x0, queries = 0.9, 1e-4, 1.0, 0.5, 100
	sigma := math.Sqrt(2*math.Log(1.25/delta)) / eps
	run := func(consistent bool) Procedure {
		return Procedure{Name: "OU functional noise, Dirac canary", Run: func(nb int, src rand.Source) (float64, error) {
			p, err := mechanisms.NewOUPath(sigma, beta, src)
			if err != nil {
				return 0, err
			}
			s := 0.0
			for range queries {
				if !consistent {
					p.Reset()
				}
				s += float64(nb) + p.At(x0) // f(x₀) = k(x₀, x₀) = 1 on input 1
			}
			return s / queries, nil
		}}
	}
	nb := "released functions differ by the kernel section k(x₀, ·), ‖·‖_H = 1"
	return []Target{
		{Mechanism: "OU functional mechanism (Dirac canary)", Neighbours: nb, Variant: "valid", Holds: true, Epsilon: eps, Delta: delta,
			PairEpsilon: GaussianPairEpsilon(1/sigma, delta), Method: MethodGDP, Procedure: run(true), Runs: 300_000,
			Note: "Prop. 4's classical σ is loose: the pair's exact ε is below the claim"},
		{Mechanism: "OU functional mechanism, broken", Neighbours: nb, Variant: "broken: fresh noise per query", Epsilon: eps, Delta: delta,
			Method: MethodThreshold, Procedure: run(false), Runs: 10_000},
	}
}
