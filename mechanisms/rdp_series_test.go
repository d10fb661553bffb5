package mechanisms

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestRDPSeriesRecurrencesPessimistic compares the recurrence forms of ln A_α (logAIntRec, logAFracRec,
// which the RDP functions use) with the term-by-term log-space sums (logAInt, logAFrac) over random
// (q, z, α), integer and fractional: the new value is never below the old beyond the old sums' rounding
// (1e−12 of |ln A| plus 2e−14: against 40-digit sums, TestRDPSeriesExact, the log-space sums lie up to
// 1.3e−14 above the exact fractional values and 4e−14 below an integer one) and above it by at most 1e−9 of
// |ln A| plus 2e−14 (the tail bound and the rounding margins the new forms add).
func TestRDPSeriesRecurrencesPessimistic(t *testing.T) {
	rng := rand.New(rand.NewPCG(32, 1))
	logU := func(lo, hi float64) float64 {
		return math.Exp(math.Log(lo) + rng.Float64()*(math.Log(hi)-math.Log(lo)))
	}
	checked := map[bool]int{}
	for range 4000 {
		q, z := logU(1e-5, 0.9), logU(0.3, 30)
		frac := rng.IntN(2) == 0
		var old, rec float64
		var ok bool
		var alpha float64
		if frac {
			alpha = 1 + logU(1e-3, 63)
			if alpha == math.Trunc(alpha) {
				continue
			}
			old = logAFrac(q, z, alpha, nil)
			rec, ok = logAFracRec(q, z, alpha, nil)
		} else {
			k := 2 + int(logU(1, 2000))
			alpha = float64(k)
			old = logAInt(q, z, k)
			rec, ok = logAIntRec(q, z, k)
		}
		if !ok || math.IsNaN(old) || math.IsInf(old, 0) {
			continue
		}
		checked[frac]++
		lo := old - 1e-12*math.Abs(old) - 2e-14
		hi := old + 1e-9*math.Abs(old) + 2e-14
		if !(rec >= lo && rec <= hi) {
			t.Errorf("q=%g z=%g α=%g: recurrence ln A %.17g, log-space sum %.17g (difference %.3g)", q, z, alpha, rec, old, rec-old)
		}
	}
	if checked[true] < 1000 || checked[false] < 1000 {
		t.Fatalf("only %d fractional and %d integer cases in the recurrences' range", checked[true], checked[false])
	}
}

// TestRDPSeriesExact checks the recurrence forms against 40- and 60-digit sums of the same series (mpmath;
// for the fractional orders the partial sum of 3000 terms and that plus the last term's magnitude, which
// bracket the value): never below the exact value, and above it by at most 1e−9 of it plus 1e−14.
func TestRDPSeriesExact(t *testing.T) {
	for _, c := range []struct{ q, z, alpha, lo, hi float64 }{
		{0.0037265817402148487, 0.49697688650956046, 1.3167621166132815, 0.00011443284552943933677, 0.0001144328455297235448},
		{0.08475719207468825, 1.6102449645205985, 1.099202896173503, 0.00017768396060275739423, 0.0001776839606031329055},
		{0.03681003392642975, 5.474552911531625, 198, 5.1763493680986290963, 5.1763493680986290963},
	} {
		var got float64
		var ok bool
		if c.alpha == math.Trunc(c.alpha) {
			got, ok = logAIntRec(c.q, c.z, int(c.alpha))
		} else {
			got, ok = logAFracRec(c.q, c.z, c.alpha, nil)
		}
		if !ok || got < c.lo || got > c.hi+1e-9*c.hi+1e-14 {
			t.Errorf("q=%g z=%g α=%g: ln A %.17g (ok %v), exact in [%.17g, %.17g]", c.q, c.z, c.alpha, got, ok, c.lo, c.hi)
		}
	}
}
