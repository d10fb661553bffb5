package audit

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/dprl-project/dprl/dprl/param"
)

// ClopperPearson is the exact two-sided confidence interval at level conf for a binomial proportion with k
// successes in n trials.
func ClopperPearson(k, n int, conf float64) (lo, hi float64) {
	if n <= 0 || k < 0 || k > n || !(conf > 0 && conf < 1) {
		panic(fmt.Sprintf("audit: ClopperPearson(%d, %d, %v): need 0 ≤ k ≤ n, n ≥ 1, 0 < conf < 1", k, n, conf))
	}
	a := (1 - conf) / 2
	if k > 0 {
		lo = distuv.Beta{Alpha: float64(k), Beta: float64(n - k + 1)}.Quantile(a)
	}
	hi = 1
	if k < n {
		hi = distuv.Beta{Alpha: float64(k + 1), Beta: float64(n - k)}.Quantile(1 - a)
	}
	return lo, hi
}

// EpsilonFromRates is the smallest ε consistent with (ε, δ)-DP given a test's false-positive and
// false-negative rates (0 if the rates are consistent with ε = 0).
func EpsilonFromRates(fpr, fnr, delta float64) float64 {
	eps := 0.0
	for _, p := range [][2]float64{{fpr, fnr}, {fnr, fpr}} {
		num := 1 - delta - p[0]
		if num <= 0 {
			continue
		}
		if p[1] <= 0 {
			return math.Inf(1)
		}
		eps = math.Max(eps, math.Log(num/p[1]))
	}
	return eps
}

// Procedure is the audited randomized procedure: Run returns the statistic of one run on input 0 or input 1
// (the two neighbours), drawing all its randomness from src.
type Procedure struct {
	Name string
	Run  func(neighbour int, src rand.Source) (float64, error)
}

// Config sets an audit's size and confidence.
type Config struct {
	Runs       int     // runs per input for the test; as many again choose the threshold
	Delta      float64 // the claimed δ
	Confidence float64 // of the lower bound (0.95 if 0)
	Seed       uint64
	Workers    int
}

// Result is an audit's outcome.
type Result struct {
	Name         string
	EpsilonLower float64 // ε lower bound at the stated confidence
	EpsilonPoint float64 // the same from the observed rates (no confidence correction)
	Threshold    float64
	Above        bool // the test says "input 1" when the statistic is above (true) or below the threshold
	FPR, FNR     float64
	Runs         int // total runs, selection and test, both inputs
	Elapsed      time.Duration
	Confidence   float64
	Delta        float64
}

// Progress receives units of finished work (one per run); *display.Progress implements it. Nil is allowed.
type Progress interface{ Add(n int) }

// MaxRuns bounds Config.Runs: 4·Runs statistics are held in memory.
const MaxRuns = 1 << 22

const check param.Checker = "audit"

// checkConfig fills the default confidence and checks cfg.
func checkConfig(cfg *Config, p Procedure) error {
	if cfg.Confidence == 0 {
		cfg.Confidence = 0.95
	}
	if err := param.First(
		check.Int("Runs", cfg.Runs, 10, MaxRuns),
		check.In("Delta", cfg.Delta, param.Interval{Lo: 0, Hi: 1, LoClosed: true}),
		check.In("Confidence", cfg.Confidence, param.OpenUnit),
		check.AtLeast("Workers", cfg.Workers, 0),
	); err != nil {
		return err
	}
	if p.Run == nil {
		return check.Missing("Run", fmt.Sprintf("a function (Procedure %q has none)", p.Name))
	}
	return nil
}

// Run audits p: 2·Runs runs per input (streams fixed by Seed and the run number, so the result does not
// depend on the number of workers); the first Runs of each choose the threshold and direction that maximise
// the point estimate, the others measure the rates.
func Run(p Procedure, cfg Config, progress Progress) (*Result, error) {
	if err := checkConfig(&cfg, p); err != nil {
		return nil, err
	}
	start := time.Now()
	n := cfg.Runs
	out, err := runAll(p, 4*n, cfg.Workers, cfg.Seed, progress)
	if err != nil {
		return nil, err
	}
	// runs 0 … 2n−1 select, 2n … 4n−1 test; even = input 0, odd = input 1
	split := func(xs []float64) (a, b []float64) {
		for i, x := range xs {
			if i%2 == 0 {
				a = append(a, x)
			} else {
				b = append(b, x)
			}
		}
		return a, b
	}
	sel0, sel1 := split(out[:2*n])
	test0, test1 := split(out[2*n:])
	thr, above := chooseThreshold(sel0, sel1, cfg.Delta, cfg.Confidence)
	slices.Sort(test0)
	slices.Sort(test1)
	fp, fn := says1(test0, thr, above), n-says1(test1, thr, above)
	r := &Result{Name: p.Name, Threshold: thr, Above: above, FPR: float64(fp) / float64(n), FNR: float64(fn) / float64(n),
		Runs: 4 * n, Confidence: cfg.Confidence, Delta: cfg.Delta}
	r.EpsilonPoint = EpsilonFromRates(r.FPR, r.FNR, cfg.Delta)
	r.EpsilonLower = lowerBound(fp, n, fn, n, cfg.Delta, cfg.Confidence)
	r.Elapsed = time.Since(start)
	return r, nil
}

// says1 is how many statistics of the sorted slice the test calls "input 1": those strictly above the
// threshold (above) or strictly below it.
func says1(sorted []float64, thr float64, above bool) int {
	if above {
		return len(sorted) - upperIndex(sorted, thr)
	}
	return lowerIndex(sorted, thr)
}

// runs/minShareInv is the fewest selection runs on which a candidate threshold must decide each way: 1%.
const minShareInv = 100

// supported reports whether a test that says "input 1" on says1 of total selection runs decides each way on
// at least 1% of them (a perfectly separating threshold qualifies).
func supported(says1, total int) bool {
	return says1*minShareInv >= total && (total-says1)*minShareInv >= total
}

// chooseThreshold tries up to 1000 thresholds (evenly spaced ranks of the pooled selection runs), in both
// directions, and keeps the one with the largest confidence-corrected ε on the selection runs: a point
// estimate would favour far-tail thresholds whose few errors the intervals then swamp.
func chooseThreshold(s0, s1 []float64, delta, conf float64) (float64, bool) {
	all := slices.Concat(s0, s1)
	slices.Sort(all)
	a0, a1 := slices.Clone(s0), slices.Clone(s1)
	slices.Sort(a0)
	slices.Sort(a1)
	best, thr, above := -1.0, all[0], true
	step := max(1, len(all)/1000)
	for k := 0; k < len(all); k += step {
		t := all[k]
		for _, dir := range []bool{true, false} {
			fp, fn := says1(a0, t, dir), len(a1)-says1(a1, t, dir)
			// A threshold that almost never says "1" (or "0") is judged on a handful of runs: the winner's
			// curse would pick one whose test-run interval is wide open. Each decision must be made on at
			// least 1% of the runs (a perfectly separating threshold qualifies).
			if !supported(fp+len(a1)-fn, len(a0)+len(a1)) {
				continue
			}
			if e := lowerBound(fp, len(a0), fn, len(a1), delta, conf); e > best {
				best, thr, above = e, t, dir
			}
		}
	}
	return thr, above
}

// lowerBound is the ε lower bound from fp false positives of n0 and fn false negatives of n1 at confidence
// conf (Clopper–Pearson upper bounds on both rates, the confidence split between them).
func lowerBound(fp, n0, fn, n1 int, delta, conf float64) float64 {
	c := 1 - (1-conf)/2 // each one-sided bound at c
	_, fpHi := ClopperPearson(fp, n0, 2*c-1)
	_, fnHi := ClopperPearson(fn, n1, 2*c-1)
	return EpsilonFromRates(fpHi, fnHi, delta)
}

// upperIndex is the number of elements ≤ t in the sorted slice.
func upperIndex(a []float64, t float64) int {
	i, _ := slices.BinarySearchFunc(a, t, func(x, t float64) int {
		if x <= t {
			return -1
		}
		return 1
	})
	return i
}

// lowerIndex is the number of elements < t in the sorted slice.
func lowerIndex(a []float64, t float64) int {
	i, _ := slices.BinarySearch(a, t)
	return i
}

// Projected is the procedure whose statistic is the projection of a vector release on dir (e.g. the
// difference of the non-private estimates on the two inputs): the natural test for an estimator released
// with noise.
func Projected(name string, dir []float64, release func(neighbour int, src rand.Source) ([]float64, error)) Procedure {
	return Procedure{Name: name, Run: func(nb int, src rand.Source) (float64, error) {
		x, err := release(nb, src)
		if err != nil {
			return 0, err
		}
		if len(x) != len(dir) {
			return 0, check.Errorf("len(release)", float64(len(x)), "[%d, %d] (the length of dir)", len(dir), len(dir))
		}
		s := 0.0
		for i, v := range x {
			s += v * dir[i]
		}
		return s, nil
	}}
}

// runAll runs p for i = 0 … total−1 on input i mod 2 with the stream rand.NewPCG(seed, i), on up to workers
// goroutines (0: GOMAXPROCS), so the statistics do not depend on the number of workers. A panic in p.Run is
// recovered into an error; the error returned is that of the lowest-numbered failing run.
func runAll(p Procedure, total, workers int, seed uint64, progress Progress) ([]float64, error) {
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	out := make([]float64, total)
	errs := make([]error, total)
	one := func(i int) (x float64, err error) {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("panicked: %v", r)
			}
		}()
		return p.Run(i%2, rand.NewPCG(seed, uint64(i)))
	}
	var (
		wg     sync.WaitGroup
		next   atomic.Int64
		failed atomic.Bool
	)
	for range min(workers, max(total, 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !failed.Load() {
				i := int(next.Add(1) - 1)
				if i >= total {
					return
				}
				if out[i], errs[i] = one(i); errs[i] != nil {
					failed.Store(true)
				}
				if progress != nil {
					progress.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("audit: %s: run %d (stream rand.NewPCG(%d, %d)): %w", p.Name, i, seed, i, err)
		}
	}
	return out, nil
}
