package audit

// Tight audits (issue #19).
//
// Run's threshold test turns one (FPR, FNR) pair into the smallest ε consistent with (ε, δ)-DP. At a small δ
// that test must sit in the far tail of the statistic, where few runs fall, so for the Gaussian mechanism it
// reaches only about 0.3 of ε at δ = 1e−5 with 10⁴ runs and little more with 10⁶. RunTight audits with the
// whole trade-off curve instead, following Nasr, Hayes, Steinke, Balle, Tramèr, Jagielski, Carlini & Terzis
// (2023), "Tight Auditing of Differentially Private Machine Learning":
//
//   - A mechanism is μ-GDP when every test has FNR ≥ Φ(Φ⁻¹(1 − FPR) − μ) (Dong, Roth & Su 2019), i.e.
//     Φ⁻¹(1 − FPR) − Φ⁻¹(FNR) ≤ μ. With Clopper–Pearson upper bounds FPR⁺, FNR⁺ (each at one-sided level
//     1 − (1 − conf)/2, measured on runs that did not choose the threshold) μ⁻ = Φ⁻¹(1 − FPR⁺) − Φ⁻¹(FNR⁺) is a
//     lower confidence bound on μ* = inf{μ : the mechanism is μ-GDP}. This needs no assumption: MuLower is
//     valid for every mechanism. The central threshold (FPR ≈ FNR ≈ Φ(−μ/2)) is where it is measured best, so
//     10⁵ runs pin μ to a few per cent.
//   - EpsilonGDP = ε_{μ⁻}(δ), the ε at δ of a μ⁻-GDP mechanism, is a lower bound on the mechanism's ε(δ) only
//     if its privacy-loss distribution is Gaussian (its trade-off curve is exactly some G_μ): the Gaussian
//     mechanism, a composition of Gaussian mechanisms with data-independent sensitivities (full-batch DP-SGD
//     observed white-box, functional noise queried at one point). For a subsampled or mixed mechanism the
//     trade-off curve is not Gaussian and ε_{μ*}(δ) can exceed the true ε(δ), so EpsilonGDP is then no bound:
//     audit those with the assumption-free EpsilonLower, which RunTight reports beside it.
//   - EpsilonLower is Run's bound with its own threshold, chosen on the same selection runs for the largest
//     confidence-corrected ε(δ) and measured on the same test runs. At δ = 0 it is the ε-DP trade-off
//     FPR + e^ε FNR ≥ 1 (pure DP: Laplace, sparse vector), where a central threshold on the likelihood-ratio
//     statistic is tight.
//
// No bound is optimistic: thresholds are chosen on the first half of the runs and every reported bound is
// computed from the other half only. The two bounds (μ and ε) are separate statements, each at the stated
// confidence.
//
// Sweep repeats an audit at growing run counts, which shows how the bound approaches the claim.

import (
	"fmt"
	"math"
	"slices"
	"time"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/dprl-project/dprl/dprl/param"
	"github.com/dprl-project/dprl/mechanisms"
)

// TightResult is RunTight's outcome.
type TightResult struct {
	Name string
	// MuLower is a lower confidence bound on the smallest μ for which the procedure is μ-GDP (valid for any
	// procedure); MuPoint is the same from the observed rates.
	MuLower, MuPoint float64
	// EpsilonGDP is the ε at δ of a MuLower-GDP mechanism: a lower bound on the procedure's ε(δ) only when
	// its privacy-loss distribution is Gaussian (see the package comment in tight.go).
	EpsilonGDP float64
	// EpsilonLower is the assumption-free (ε, δ) lower bound (Run's test, its own threshold).
	EpsilonLower float64
	// The GDP test: its threshold, direction and rates on the test runs.
	Threshold float64
	Above     bool
	FPR, FNR  float64
	// The (ε, δ) test.
	EpsThreshold float64
	EpsAbove     bool
	EpsFPR       float64
	EpsFNR       float64
	Runs         int // total runs, selection and test, both inputs
	Elapsed      time.Duration
	Confidence   float64
	Delta        float64
}

// MuFromRates is Φ⁻¹(1 − fpr) − Φ⁻¹(fnr): the smallest μ for which a μ-GDP mechanism admits a test with
// these rates (−Inf when a rate is 1; the caller clamps).
func MuFromRates(fpr, fnr float64) float64 {
	n := distuv.UnitNormal
	if fpr >= 1 || fnr >= 1 {
		return math.Inf(-1)
	}
	return n.Quantile(1-fpr) - n.Quantile(fnr)
}

// muLowerBound is MuFromRates at the Clopper–Pearson upper bounds of both rates (confidence split between
// them), clamped at 0.
func muLowerBound(fp, n0, fn, n1 int, conf float64) float64 {
	c := 1 - (1-conf)/2
	_, fpHi := ClopperPearson(fp, n0, 2*c-1)
	_, fnHi := ClopperPearson(fn, n1, 2*c-1)
	return math.Max(0, MuFromRates(fpHi, fnHi))
}

// RunTight audits p with 2·Runs runs per input (the same streams as Run: the first Runs of each input choose
// the thresholds, the others measure): a lower confidence bound on its GDP parameter μ, the ε(δ) that μ gives
// for Gaussian-shaped procedures, and the assumption-free (ε, δ) bound.
func RunTight(p Procedure, cfg Config, progress Progress) (*TightResult, error) {
	if err := checkConfig(&cfg, p); err != nil {
		return nil, err
	}
	start := time.Now()
	n := cfg.Runs
	out, err := runAll(p, 4*n, cfg.Workers, cfg.Seed, progress)
	if err != nil {
		return nil, err
	}
	r := tightFromStatistics(p.Name, out, cfg)
	r.Elapsed = time.Since(start)
	return r, nil
}

// tightFromStatistics evaluates the 4n statistics of runAll (runs 0 … 2n−1 select, 2n … 4n−1 test; even =
// input 0, odd = input 1).
func tightFromStatistics(name string, out []float64, cfg Config) *TightResult {
	n := len(out) / 4
	split := func(xs []float64) (a, b []float64) {
		a, b = make([]float64, 0, len(xs)/2), make([]float64, 0, len(xs)/2)
		for i, x := range xs {
			if i%2 == 0 {
				a = append(a, x)
			} else {
				b = append(b, x)
			}
		}
		slices.Sort(a)
		slices.Sort(b)
		return a, b
	}
	sel0, sel1 := split(out[:2*n])
	test0, test1 := split(out[2*n:])
	r := &TightResult{Name: name, Runs: 4 * n, Confidence: cfg.Confidence, Delta: cfg.Delta}

	// GDP: the threshold with the largest μ lower bound on the selection runs.
	r.Threshold, r.Above = chooseMuThreshold(sel0, sel1, cfg.Confidence)
	fp, fn := says1(test0, r.Threshold, r.Above), n-says1(test1, r.Threshold, r.Above)
	r.FPR, r.FNR = float64(fp)/float64(n), float64(fn)/float64(n)
	r.MuPoint = math.Max(0, MuFromRates(r.FPR, r.FNR))
	r.MuLower = muLowerBound(fp, n, fn, n, cfg.Confidence)
	r.EpsilonGDP = gdpEpsilon(r.MuLower, cfg.Delta)

	// (ε, δ): Run's selection on the same runs.
	r.EpsThreshold, r.EpsAbove = chooseThreshold(sel0, sel1, cfg.Delta, cfg.Confidence)
	fp, fn = says1(test0, r.EpsThreshold, r.EpsAbove), n-says1(test1, r.EpsThreshold, r.EpsAbove)
	r.EpsFPR, r.EpsFNR = float64(fp)/float64(n), float64(fn)/float64(n)
	r.EpsilonLower = lowerBound(fp, n, fn, n, cfg.Delta, cfg.Confidence)
	return r
}

// gdpEpsilon is the ε at δ of μ-GDP (0 for μ = 0; at δ = 0 a μ-GDP mechanism with μ > 0 has no finite ε).
func gdpEpsilon(mu, delta float64) float64 {
	if mu <= 0 {
		return 0
	}
	if delta <= 0 {
		return math.Inf(1)
	}
	e, err := mechanisms.GDPEpsilon(mu, delta)
	if err != nil {
		return math.NaN()
	}
	return e
}

// chooseMuThreshold tries up to 400 thresholds (evenly spaced ranks of the pooled selection runs) in both
// directions and keeps the one with the largest μ lower bound on the
// selection runs.
func chooseMuThreshold(a0, a1 []float64, conf float64) (float64, bool) {
	all := slices.Concat(a0, a1)
	slices.Sort(all)
	best, thr, above := -1.0, all[len(all)/2], true
	step := max(1, len(all)/400)
	for k := 0; k < len(all); k += step {
		t := all[k]
		for _, dir := range []bool{true, false} {
			fp, fn := says1(a0, t, dir), len(a1)-says1(a1, t, dir)
			if !supported(fp+len(a1)-fn, len(a0)+len(a1)) {
				continue
			}
			if m := muLowerBound(fp, len(a0), fn, len(a1), conf); m > best {
				best, thr, above = m, t, dir
			}
		}
	}
	return thr, above
}

// Sweep audits p with RunTight at each run count in runs (per input and half, as Config.Runs), the other
// settings from cfg: how the bounds approach the claim as the number of runs grows. Each audit uses its own
// runs (streams from cfg.Seed + i for the i-th count).
func Sweep(p Procedure, cfg Config, runs []int, progress Progress) ([]*TightResult, error) {
	if len(runs) == 0 {
		return nil, check.Missing("runs", "at least one run count")
	}
	out := make([]*TightResult, len(runs))
	for i, n := range runs {
		c := cfg
		c.Runs = n
		c.Seed = cfg.Seed + uint64(i)
		r, err := RunTight(p, c, progress)
		if err != nil {
			return nil, fmt.Errorf("audit: sweep at runs[%d] = %d: %w", i, n, err)
		}
		out[i] = r
	}
	return out, nil
}

// SweepRepeated is Sweep with repeats independent audits at each run count, each at confidence
// 1 − (1 − conf)/repeats: it keeps the audit with the largest μ bound (its EpsilonGDP with it) and, separately,
// the largest assumption-free EpsilonLower. By the union bound each of the two is still a lower bound at
// confidence conf, and the best of several audits does not dip where one audit's held-out threshold landed
// badly, so the bounds approach the claim as the runs grow. Audit j at the i-th count uses the streams of
// seed cfg.Seed + i·repeats + j; the result's Runs and Elapsed add up all the repeats, its rates are the
// kept μ audit's.
func SweepRepeated(p Procedure, cfg Config, runs []int, repeats int, progress Progress) ([]*TightResult, error) {
	if len(runs) == 0 {
		return nil, check.Missing("runs", "at least one run count")
	}
	if err := check.Int("repeats", repeats, 1, 1000); err != nil {
		return nil, err
	}
	if cfg.Confidence == 0 {
		cfg.Confidence = 0.95
	}
	if err := check.In("Confidence", cfg.Confidence, param.OpenUnit); err != nil {
		return nil, err
	}
	conf := cfg.Confidence
	out := make([]*TightResult, len(runs))
	for i, n := range runs {
		var best *TightResult
		bestEps, total, elapsed := 0.0, 0, time.Duration(0)
		for j := range repeats {
			c := cfg
			c.Runs, c.Seed, c.Confidence = n, cfg.Seed+uint64(i*repeats+j), 1-(1-conf)/float64(repeats)
			r, err := RunTight(p, c, progress)
			if err != nil {
				return nil, fmt.Errorf("audit: sweep at runs[%d] = %d, repeat %d: %w", i, n, j, err)
			}
			if best == nil || r.MuLower > best.MuLower {
				best = r
			}
			bestEps = math.Max(bestEps, r.EpsilonLower)
			total += r.Runs
			elapsed += r.Elapsed
		}
		best.EpsilonLower, best.Runs, best.Elapsed, best.Confidence = bestEps, total, elapsed, conf
		out[i] = best
	}
	return out, nil
}

// TradeOffPoint is one test of an empirical trade-off curve: at a threshold, the false-positive rate and the
// Clopper–Pearson upper bound on the false-negative rate.
type TradeOffPoint struct {
	Threshold, FPR, FNR, FNRUpper float64
}

// TradeOff is the empirical trade-off curve (FPR against FNR, the test saying "input 1" above each
// threshold) of statistics s0 (input 0) and s1 (input 1) at up to points thresholds evenly spaced in rank,
// with one-sided upper bounds on FNR at level conf: what an f-DP claim is compared with.
func TradeOff(s0, s1 []float64, points int, conf float64) ([]TradeOffPoint, error) {
	if err := param.First(check.Int("points", points, 2, 1<<20), check.In("conf", conf, param.OpenUnit)); err != nil {
		return nil, err
	}
	if len(s0) == 0 {
		return nil, check.Missing("s0", "statistics of input 0")
	}
	if len(s1) == 0 {
		return nil, check.Missing("s1", "statistics of input 1")
	}
	a0, a1 := slices.Clone(s0), slices.Clone(s1)
	slices.Sort(a0)
	slices.Sort(a1)
	all := slices.Concat(a0, a1)
	slices.Sort(all)
	out := make([]TradeOffPoint, 0, points)
	for k := range points {
		t := all[min(len(all)-1, k*(len(all)-1)/(points-1))]
		fp, fn := says1(a0, t, true), len(a1)-says1(a1, t, true)
		_, hi := ClopperPearson(fn, len(a1), 2*conf-1)
		out = append(out, TradeOffPoint{Threshold: t, FPR: float64(fp) / float64(len(a0)), FNR: float64(fn) / float64(len(a1)), FNRUpper: hi})
	}
	return out, nil
}
