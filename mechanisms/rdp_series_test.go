package mechanisms

import (
	"math"
	"math/big"
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

// TestRDPSeriesQNearOne: at sampling rates close to 1 with little noise (z0 = z²·ln((1−q)/q) + ½ just
// above 0, the range of logAFracRec), ln A_α and the RDP are never below their exact values, from 60-digit
// quadrature of the definition and 80-digit sums of the series (mpmath), which agree. ln(1/q − 1) computed
// as written lost the digits of 1 − q, and logAFracRec, whose exponents carry z0 (e^{j(j−2z0)/(2z²)}),
// turned that into ln A 1.4e−7 below the exact value at q = 1 − 1.3e−9.
func TestRDPSeriesQNearOne(t *testing.T) {
	for _, c := range []struct {
		q, z, alpha    float64
		exactLogA, rdp string
	}{
		{0.9999999986766394, 0.1357879349474624, 1.656117089906048, "29.465921382240591137711394948074207", "44.909547145708295546972292280037823"},
		{0.9999999421014597, 0.11246821718123755, 1.4879351000041718, "28.698317143601542391068482478652999", "58.815848958921323918218040892691187"},
		{0.9999218602916342, 0.22993577396171658, 2.9872835787205205, "56.142455549249619856410155091875976", "28.250852646503528152107109003067629"},
		{0.9964690154837521, 0.29767574088562404, 1.3889423371275753, "3.0434177808427213708372697962976667", "7.8248560013266515049217989286864795"},
	} {
		la, ok := logAFracRec(c.q, c.z, c.alpha, nil)
		if !ok {
			t.Errorf("q=%g z=%g α=%g: outside logAFracRec's range", c.q, c.z, c.alpha)
			continue
		}
		r, err := RDPPoissonGaussian(c.q, c.z, c.alpha)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range []struct {
			what  string
			got   float64
			exact string
		}{{"ln A", la, c.exactLogA}, {"RDP", r, c.rdp}} {
			exact, _, err := big.ParseFloat(v.exact, 10, 256, big.ToNearestEven)
			if err != nil {
				t.Fatal(err)
			}
			e, _ := exact.Float64()
			if new(big.Float).SetPrec(256).SetFloat64(v.got).Cmp(exact) < 0 || v.got > e*(1+1e-9) {
				t.Errorf("q=%g z=%g α=%g: %s %.17g, exact %s", c.q, c.z, c.alpha, v.what, v.got, v.exact)
			}
		}
	}
}
