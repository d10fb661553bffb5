package seoyang2020

import (
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/dprl-project/dprl/dprl/actorcritic"
	"github.com/dprl-project/dprl/dprl/experiment"
)

// Cosine is the cosine similarity of two vectors (0 when either is zero).
func Cosine(a, b []float64) float64 {
	na, nb := math.Sqrt(floats.Dot(a, a)), math.Sqrt(floats.Dot(b, b))
	if na == 0 || nb == 0 {
		return 0
	}
	return floats.Dot(a, b) / (na * nb)
}

// cosines are the cosines of one condition's end-of-episode traces (e_u or e_v) with the Non-DP runs':
// paired[r][ep] with the Non-DP run of the same seed; avg[ep] between the traces averaged over all runs
// (Fig. 4's caption: "We averaged the vectors generated from same episode over 10 runs"); without[r][ep]
// the same average leaving run r out of both. NaN where no run recorded the episode's trace (its weights
// had overflowed).
type cosines struct {
	paired, without [][]float64
	avg             []float64
}

// traceCosines computes the cosines of the runs xs with the Non-DP runs ns (same number of runs, traces
// recorded) over `episodes` episodes, of the actor's traces e_u (actor) or the critic's e_v. Sums run over
// the runs in order, so the result does not depend on how the runs were scheduled.
func traceCosines(xs, ns []*actorcritic.Result, episodes int, actor bool) cosines {
	trace := func(r *actorcritic.Result, ep int) []float64 {
		tr := r.TraceV
		if actor {
			tr = r.TraceU
		}
		if ep < len(tr) {
			return tr[ep]
		}
		return nil
	}
	c := cosines{paired: make([][]float64, len(xs)), without: make([][]float64, len(xs)), avg: make([]float64, episodes)}
	for r := range xs {
		c.paired[r], c.without[r] = make([]float64, episodes), make([]float64, episodes)
	}
	var sx, sn, dx, dn []float64
	for ep := range episodes {
		sx, sn = sx[:0], sn[:0]
		nx, nn := 0, 0
		for r := range xs {
			if x := trace(xs[r], ep); x != nil {
				sx = addTo(sx, x)
				nx++
			}
			if n := trace(ns[r], ep); n != nil {
				sn = addTo(sn, n)
				nn++
			}
		}
		c.avg[ep] = math.NaN()
		if nx > 0 && nn > 0 {
			c.avg[ep] = Cosine(sx, sn)
		}
		for r := range xs {
			x, n := trace(xs[r], ep), trace(ns[r], ep)
			c.paired[r][ep], c.without[r][ep] = math.NaN(), math.NaN()
			if x != nil && n != nil {
				c.paired[r][ep] = Cosine(x, n)
			}
			// Leave run r out of both averages.
			kx, kn := nx, nn
			dx, dn = append(dx[:0], sx...), append(dn[:0], sn...)
			if x != nil {
				floats.Sub(dx, x)
				kx--
			}
			if n != nil {
				floats.Sub(dn, n)
				kn--
			}
			if kx > 0 && kn > 0 {
				c.without[r][ep] = Cosine(dx, dn)
			}
		}
	}
	return c
}

// addTo adds x to the sum s (started when s is empty).
func addTo(s, x []float64) []float64 {
	if len(s) == 0 {
		return append(s, x...)
	}
	floats.Add(s, x)
	return s
}

// Jackknife is the jackknife 95% interval of a statistic over n runs from its value on all runs (full) and
// its n leave-one-run-out values: full ± t₀.₉₇₅,ₙ₋₁·√((n−1)/n·Σ(θ₍ᵢ₎ − θ̄)²). NaN values are left out.
func Jackknife(full float64, without []float64) (lo, hi float64) {
	w := experiment.Finite(without)
	n := float64(len(w))
	if n < 2 || math.IsNaN(full) {
		return math.NaN(), math.NaN()
	}
	m := mean(w)
	ss := 0.0
	for _, v := range w {
		ss += (v - m) * (v - m)
	}
	se := math.Sqrt((n - 1) / n * ss)
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: n - 1}.Quantile(0.975)
	return full - t*se, full + t*se
}
