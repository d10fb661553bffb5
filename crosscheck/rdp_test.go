package crosscheck

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/dprl-project/dprl/mechanisms"
)

type rdpCase struct {
	Kind     string    `json:"kind"` // "poisson" or "wor"
	Q        float64   `json:"q"`
	N        int       `json:"n,omitempty"`
	Batch    int       `json:"batch,omitempty"`
	Sigma    float64   `json:"sigma"`
	Steps    int       `json:"steps"`
	Orders   []float64 `json:"orders"`
	Delta    float64   `json:"delta"`
	OursStep []float64 `json:"ours_step"` // dprl's RDP of one step, per order
	Ours     []float64 `json:"ours"`      // dprl's composed RDP, for dp_accounting's conversion
	grid     string
	ev       mechanisms.Event
}

// rdpRef is ref.py's answer for one case (see rdp_one there): per order, dp_accounting's one-step RDP, the
// reference ln A and which reference it is, and for "wor_exact" the uncapped exact Theorem 27 ln A.
type rdpRef struct {
	DPA         []Num    `json:"dpa"`
	Ref         []Num    `json:"ref"`
	How         []string `json:"how"`
	Exact27     []Num    `json:"exact27"`
	Epsilon     Num      `json:"epsilon"`
	EpsilonOurs Num      `json:"epsilon_of_ours"`
}

// rdpCases draws n cases per sampling scheme: q log-uniform in [1e−4, 1], σ in [0.3, 30], steps in
// [1, 10⁵], δ in [1e−10, 1e−3], and an order grid that is one of the named grids, a random integer range
// or random fractional orders.
func rdpCases(seed uint64, n int) []rdpCase {
	r := rand.New(rand.NewPCG(seed, 21))
	var cases []rdpCase
	for i := range 2 * n {
		c := rdpCase{Sigma: logUniform(r, 0.3, 30), Steps: int(logUniform(r, 1, 1e5)), Delta: logUniform(r, 1e-10, 1e-3)}
		switch k := r.IntN(5); k {
		case 0, 1, 2:
			c.grid = []string{"dpa_default", "opacus_default", "tfp_cli"}[k]
			c.Orders, _ = mechanisms.Orders(c.grid)
		case 3:
			lo := 2 + r.IntN(20)
			c.grid = "integer"
			c.Orders = mechanisms.IntegerOrders(lo, lo+1+r.IntN(200))
		default:
			c.grid = "random"
			for range 1 + r.IntN(40) {
				c.Orders = append(c.Orders, 1+logUniform(r, 0.01, 300))
			}
		}
		if i%2 == 0 {
			c.Kind, c.Q = "poisson", logUniform(r, 1e-4, 1)
			c.ev = mechanisms.PoissonSampled{Q: c.Q, Event: mechanisms.GaussianEvent{NoiseMultiplier: c.Sigma}}
		} else {
			c.Kind, c.N = "wor", int(logUniform(r, 10, 1e5))
			c.Batch = 1 + int(logUniform(r, 1, float64(c.N)))
			if c.Batch > c.N {
				c.Batch = c.N
			}
			c.Q = float64(c.Batch) / float64(c.N)
			c.ev = mechanisms.SampledWithoutReplacement{N: c.N, Batch: c.Batch, Event: mechanisms.GaussianEvent{NoiseMultiplier: c.Sigma}}
		}
		cases = append(cases, c)
	}
	return cases
}

// TestRDPMatchesDPAccounting checks dprl's per-step RDP on 2×150 random cases (Poisson-subsampled Gaussian
// under add/remove, Gaussian sampled without replacement under replace-one; every order grid) against the
// right reference for each (case, order), and dp_accounting 0.6.0's conversion of dprl's composed curve.
//
// The compared quantity is ln A = (α−1)·RDP of one step, to |ours − ref| ≤ 1e−9·|ref| + 2e−15. ln A, not
// RDP, because RDP = ln A/(α−1) is sensitive to rounding only through ln A; and the absolute 2e−15 because
// both implementations sum series whose terms add up to A ≈ 1, so ln A near 0 carries an absolute rounding
// error of a few ulps of 1 whatever its size (a relative test on RDP ~1e−10 would compare noise).
//
// References (computed by ref.py's rdp_one):
//   - Poisson, integer order: dp_accounting's value where dprl's equals it (both sum the same binomial
//     expansion), else the expansion summed in 60-digit mpmath: dp_accounting's log-space sum of α + 1 terms
//     adding up to ≈ 1 loses ~1e−14 absolute at orders 256–1024 with small q, where dprl is exact.
//   - Poisson, fractional order: dp_accounting's series with the binomial coefficients' signs kept
//     (log_a_poisson_frac_signed). dp_accounting 0.6.0 adds |C(α,i)| for every i, which bounds the value
//     from above but not tightly (4× at α = 1.1 for some q); dprl computes the signed series. dprl must also
//     never exceed dp_accounting's own value (same tolerance). Orders where dp_accounting's series does not
//     converge (it returns ∞: q ≳ 0.3, α < 2) have no reference and are counted, not compared.
//   - Without replacement: where dprl's ln A equals dp_accounting's to the tolerance, that value is taken
//     as checked (two independent implementations of WBK Theorem 27 agree). Elsewhere, and only there
//     because it is the slow part, the reference is Theorem 27 in dp_accounting's form (its split at order
//     256, its interpolation at fractional orders) evaluated exactly in mpmath (WORExact: the χ^m forward
//     differences at a precision proven sufficient), capped by the unsampled α(α−1)/(2z²), which dprl also
//     applies: it holds under replace-one, and dp_accounting does not use it. dp_accounting's float64
//     differences lose their digits for some (q, z) — its value is then wrong in either direction — so
//     where its value does equal the exact one (and the cap does not bind), dprl must equal it too.
//
// The conversion: dp_accounting's compute_epsilon on dprl's composed curve must give dprl's ε to 1e−9
// relative. Where dp_accounting gives ε = 0 and dprl does not, dprl only has to be ≥ it: both apply the
// total-variation rule (ε = 0 when δ² + expm1(−RDP) > 0 at some order), whose test can round either way
// when it holds to within rounding; dprl's larger ε is then the pessimistic side.
func TestRDPMatchesDPAccounting(t *testing.T) {
	py := python(t)
	cases := rdpCases(1, 150)
	for i := range cases {
		c := &cases[i]
		one, err := mechanisms.RDPOf(c.ev, c.Orders)
		if err != nil {
			t.Fatalf("case %d %v: %v", i, c.ev, err)
		}
		c.OursStep = one
		for _, v := range one {
			c.Ours = append(c.Ours, float64(c.Steps)*v)
		}
	}
	var refs []rdpRef
	if err := Reference(py, "rdp", cases, &refs); err != nil {
		t.Fatal(err)
	}
	const tol, abs = 1e-9, 2e-15
	const pessimisticRounding = 1e-14 // see the "signed" case below
	close := func(x, ref float64) bool { return math.Abs(x-ref) <= tol*math.Abs(ref)+abs }
	worst := map[string]float64{} // largest |ours − ref|/(1e−9·|ref| + 2e−15): ≤ 1 passes
	count := map[string]int{}
	failed := map[string]int{}
	check := func(i int, key string, a, got, want float64, ok bool) {
		count[key]++
		worst[key] = math.Max(worst[key], math.Abs(got-want)/(tol*math.Abs(want)+abs))
		if !ok {
			failed[key]++
			if failed[key] <= 5 {
				c := cases[i]
				t.Errorf("%s: case %d %v (%s grid) order %g: %.17g, reference %.17g", key, i, c.ev, c.grid, a, got, want)
			}
		}
	}
	for i, c := range cases {
		ref := refs[i]
		if len(ref.Ref) != len(c.Orders) {
			t.Fatalf("case %d: %d references for %d orders", i, len(ref.Ref), len(c.Orders))
		}
		for j, a := range c.Orders {
			got := (a - 1) * c.OursStep[j]
			want, dpa := float64(ref.Ref[j]), (a-1)*float64(ref.DPA[j])
			switch h := ref.How[j]; h {
			case "dpa_inf":
				count[c.Kind+" orders dp_accounting returns ∞ for (not compared)"]++
			case "dpa":
				check(i, "poisson integer ln A = dp_accounting", a, got, want, close(got, want))
			case "poisson_exact":
				check(i, "poisson integer ln A vs exact sum (where ≠ dp_accounting)", a, got, want, close(got, want))
			case "signed":
				// The fractional-order series sums terms of order one to a value as small as 1e−8 at small
				// z, so dprl's float64 sum carries an absolute rounding error of a few 1e−15. Below the
				// reference (optimistic) the tolerance is the common one; above it (pessimistic) a rounding
				// allowance of 1e−14 absolute is granted, and each use is counted and logged.
				ok := close(got, want)
				if !ok && got > want && got-want <= tol*math.Abs(want)+pessimisticRounding {
					ok = true
					count["poisson fractional ln A above the series within the rounding allowance"]++
					t.Logf("case %d %v order %g: ln A %.17g is %.3g above the series %.17g (pessimistic, within rounding)", i, c.ev, a, got, got-want, want)
				}
				check(i, "poisson fractional ln A vs signed series", a, got, want, ok)
				count["poisson fractional ln A ≤ dp_accounting"]++
				if !(got <= dpa+tol*math.Abs(dpa)+abs) {
					failed["poisson fractional ln A ≤ dp_accounting"]++
					t.Errorf("case %d %v order %g: ln A %.17g above dp_accounting's %.17g", i, c.ev, a, got, dpa)
				}
			case "wor_dpa":
				check(i, "wor ln A = dp_accounting", a, got, want, close(got, want))
			case "wor_exact":
				check(i, "wor ln A vs exact Theorem 27 ∧ cap (where ≠ dp_accounting)", a, got, want, close(got, want))
				ex := float64(ref.Exact27[j])
				if close(dpa, ex) && ex <= (a-1)*mechanisms.RDPGaussian(c.Sigma, a) {
					check(i, "wor ln A = dp_accounting where its value is exact", a, got, dpa, close(got, dpa))
				}
				if !close(dpa, ex) {
					count["wor orders where dp_accounting's value is not exact"]++
				}
				if want < ex {
					count["wor orders where the α/(2z²) cap binds"]++
				}
			default:
				t.Fatalf("case %d order %g: unknown reference %q", i, a, h)
			}
		}
		acc, _ := mechanisms.NewRDPAccountant(c.Orders, mechanisms.ConversionImproved)
		if err := acc.Compose(c.ev, c.Steps); err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		eps, err := acc.Epsilon(c.Delta)
		if err != nil {
			t.Fatalf("case %d %v ×%d δ=%g: %v", i, c.ev, c.Steps, c.Delta, err)
		}
		theirs := float64(ref.EpsilonOurs)
		if theirs == 0 && eps != 0 {
			check(i, c.Kind+" ε ≥ dp_accounting's 0 for our curve (TV rule rounding)", c.Delta, eps, theirs, eps >= theirs)
			t.Logf("case %d %v ×%d δ=%g: ε %.6g, dp_accounting's conversion of our curve 0", i, c.ev, c.Steps, c.Delta, eps)
			continue
		}
		check(i, c.Kind+" ε vs dp_accounting's conversion of our curve", c.Delta, eps, theirs, relDiff(eps, theirs) <= tol)
	}
	t.Logf("%d cases; comparisons %v", len(cases), count)
	t.Logf("largest |ours − ref|/(1e−9·|ref| + 2e−15) (≤ 1 passes) %v", worst)
	t.Logf("failing comparisons %v", failed)
}
