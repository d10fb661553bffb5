package audit

// One-run auditing (Steinke, Nasr & Jagielski 2023, "Privacy Auditing with One (1) Training Run").
//
// m canaries are put into one run of the procedure, each independently in one of two neighbouring states with
// probability ½ (S_i = +1: canary i included, or its "+" version; S_i = −1: excluded, or its "−" version),
// so that flipping one S_i moves the input to a neighbour. The auditor scores every canary from the output,
// guesses S_i = +1 for the k highest scores and S_i = −1 for the k lowest (abstaining on the rest: r = 2k
// guesses) and counts the correct guesses W. For an (ε, δ)-DP procedure their Theorem 3.1 (with the δ term
// of their Proposition 5.2) gives, with q = e^ε/(1 + e^ε),
//
//	P[W ≥ v] ≤ P[Binomial(r, q) ≥ v] + 2m·δ·max_{1≤i≤v} P[v − i ≤ Binomial(r, q) < v]/i,
//
// so every ε whose right-hand side is below 1 − conf is rejected; OneRunEpsilon is the largest such ε,
// computed with exact binomial probabilities. The bound needs no assumption about the procedure and no group
// privacy, but it is far from tight for small ε: with m canaries, even a perfect attack on an ε = 1 mechanism
// is limited by the randomized-response accuracy e^ε/(1 + e^ε) ≈ 0.73, so thousands of guesses pin ε to
// about ±0.1 at best, and a Gaussian mechanism's guesses are far less accurate than randomized response's.
//
// RunOneRun chooses k on a separate selection run (its own canary states and noise), then audits one test run
// with that k: the bound is not biased by the choice.

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/dprl-project/dprl/dprl/param"
)

// OneRunProcedure is a procedure audited in one run: Run runs it once with canary i in state +1 when
// include[i] (else −1), drawing all its randomness from src, and returns one score per canary (higher: more
// likely +1).
type OneRunProcedure struct {
	Name     string
	Canaries int
	Run      func(include []bool, src rand.Source) ([]float64, error)
}

// OneRunConfig sets a one-run audit.
type OneRunConfig struct {
	Delta      float64 // the claimed δ
	Confidence float64 // of the lower bound (0.95 if 0)
	Seed       uint64
	// Guesses is k: guess +1 for the k highest and −1 for the k lowest scores (2k ≤ Canaries). 0 chooses k
	// on a selection run first (two runs in all).
	Guesses int
}

// OneRunResult is a one-run audit's outcome.
type OneRunResult struct {
	Name                       string
	Canaries, Guesses, Correct int // m, r = 2k and W on the test run
	EpsilonLower               float64
	Runs                       int // runs of the procedure: 1, or 2 with a selection run
	Elapsed                    time.Duration
	Confidence, Delta          float64
}

// MaxCanaries bounds OneRunProcedure.Canaries.
const MaxCanaries = 1 << 20

// RunOneRun audits p in one run (two if cfg.Guesses is 0).
func RunOneRun(p OneRunProcedure, cfg OneRunConfig) (*OneRunResult, error) {
	if cfg.Confidence == 0 {
		cfg.Confidence = 0.95
	}
	if err := param.First(
		check.Int("Canaries", p.Canaries, 2, MaxCanaries),
		check.In("Delta", cfg.Delta, param.Interval{Lo: 0, Hi: 1, LoClosed: true}),
		check.In("Confidence", cfg.Confidence, param.OpenUnit),
		check.Int("Guesses", cfg.Guesses, 0, p.Canaries/2),
	); err != nil {
		return nil, err
	}
	if p.Run == nil {
		return nil, check.Missing("Run", fmt.Sprintf("a function (OneRunProcedure %q has none)", p.Name))
	}
	start := time.Now()
	res := &OneRunResult{Name: p.Name, Canaries: p.Canaries, Confidence: cfg.Confidence, Delta: cfg.Delta}
	k := cfg.Guesses
	if k == 0 {
		inc, scores, err := oneRun(p, cfg.Seed, 0)
		if err != nil {
			return nil, err
		}
		best := -1.0
		for _, kk := range guessGrid(p.Canaries) {
			v := correctGuesses(inc, scores, kk)
			if e := oneRunEpsilon(p.Canaries, 2*kk, v, cfg.Delta, cfg.Confidence); e > best {
				best, k = e, kk
			}
		}
		res.Runs++
	}
	inc, scores, err := oneRun(p, cfg.Seed, 1)
	if err != nil {
		return nil, err
	}
	res.Runs++
	res.Guesses, res.Correct = 2*k, correctGuesses(inc, scores, k)
	res.EpsilonLower = oneRunEpsilon(p.Canaries, res.Guesses, res.Correct, cfg.Delta, cfg.Confidence)
	res.Elapsed = time.Since(start)
	return res, nil
}

// oneRun draws the canary states from stream (seed, 2⁶³ + run) and runs p with stream (seed, run).
func oneRun(p OneRunProcedure, seed, run uint64) (inc []bool, scores []float64, err error) {
	bits := rand.New(rand.NewPCG(seed, 1<<63+run))
	inc = make([]bool, p.Canaries)
	for i := range inc {
		inc[i] = bits.IntN(2) == 1
	}
	func() {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("panicked: %v", r)
			}
		}()
		scores, err = p.Run(slices.Clone(inc), rand.NewPCG(seed, run))
	}()
	if err != nil {
		return nil, nil, fmt.Errorf("audit: %s: one-run %d (stream rand.NewPCG(%d, %d)): %w", p.Name, run, seed, run, err)
	}
	if len(scores) != p.Canaries {
		return nil, nil, fmt.Errorf("audit: %s: %d scores for %d canaries", p.Name, len(scores), p.Canaries)
	}
	return inc, scores, nil
}

// guessGrid is the k tried on the selection run: 1%, 2%, 5%, 10%, 20%, 30%, 40% and 50% of m on each side
// (at least 1).
func guessGrid(m int) []int {
	var ks []int
	for _, f := range []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5} {
		k := max(1, int(f*float64(m)/2))
		if len(ks) == 0 || ks[len(ks)-1] != k {
			ks = append(ks, k)
		}
	}
	return ks
}

// correctGuesses counts the correct guesses among "+1" for the k highest scores and "−1" for the k lowest
// (ties broken by index).
func correctGuesses(inc []bool, scores []float64, k int) int {
	idx := make([]int, len(scores))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case scores[a] < scores[b]:
			return -1
		case scores[a] > scores[b]:
			return 1
		}
		return 0
	})
	v := 0
	for _, i := range idx[:k] {
		if !inc[i] {
			v++
		}
	}
	for _, i := range idx[len(idx)-k:] {
		if inc[i] {
			v++
		}
	}
	return v
}

// OneRunEpsilon is the one-run lower bound on ε at confidence conf: the largest ε that the observation of v
// correct guesses out of r, with m canaries, rejects for an (ε, δ)-DP procedure (0 if none).
func OneRunEpsilon(m, r, v int, delta, conf float64) (float64, error) {
	if err := param.First(
		check.Int("m", m, 1, MaxCanaries), check.Int("r", r, 0, m), check.Int("v", v, 0, r),
		check.In("delta", delta, param.Interval{Lo: 0, Hi: 1, LoClosed: true}), check.In("conf", conf, param.OpenUnit),
	); err != nil {
		return 0, err
	}
	return oneRunEpsilon(m, r, v, delta, conf), nil
}

func oneRunEpsilon(m, r, v int, delta, conf float64) float64 {
	alpha := 1 - conf
	if r == 0 || OneRunPValue(m, r, v, 0, delta) >= alpha {
		return 0
	}
	lo, hi := 0.0, 1.0
	for OneRunPValue(m, r, v, hi, delta) < alpha {
		lo, hi = hi, 2*hi
		if hi > 1e3 {
			return math.Inf(1)
		}
	}
	for range 60 {
		mid := (lo + hi) / 2
		if OneRunPValue(m, r, v, mid, delta) < alpha {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// OneRunPValue is Steinke, Nasr & Jagielski's bound on the probability of at least v correct guesses out of
// r with m canaries under (ε, δ)-DP (capped at 1).
func OneRunPValue(m, r, v int, eps, delta float64) float64 {
	q := 1 / (1 + math.Exp(-eps))
	beta := 0.0
	for j := v; j <= r; j++ {
		beta += binomPMF(r, j, q)
	}
	p := beta
	if delta > 0 {
		alpha, sum := 0.0, 0.0
		for i := 1; i <= v; i++ {
			sum += binomPMF(r, v-i, q)
			alpha = math.Max(alpha, sum/float64(i))
		}
		p += alpha * delta * 2 * float64(m)
	}
	return math.Min(p, 1)
}

// binomPMF is P[Binomial(n, q) = k], computed in logs.
func binomPMF(n, k int, q float64) float64 {
	if k < 0 || k > n {
		return 0
	}
	if q <= 0 {
		if k == 0 {
			return 1
		}
		return 0
	}
	if q >= 1 {
		if k == n {
			return 1
		}
		return 0
	}
	ln, _ := math.Lgamma(float64(n + 1))
	lk, _ := math.Lgamma(float64(k + 1))
	lnk, _ := math.Lgamma(float64(n - k + 1))
	return math.Exp(ln - lk - lnk + float64(k)*math.Log(q) + float64(n-k)*math.Log1p(-q))
}
