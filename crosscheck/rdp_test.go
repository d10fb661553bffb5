package crosscheck

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"dprl/mechanisms"
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
	Ours     []float64 `json:"ours"`                  // dprl's composed RDP, for dp_accounting's conversion
	Quad     []float64 `json:"quad_orders,omitempty"` // fractional orders to integrate numerically
	grid     string
	ev       mechanisms.Event
	relation string
}

type rdpRef struct {
	RDP         []Num `json:"rdp"`
	Epsilon     Num   `json:"epsilon"`
	EpsilonOurs Num   `json:"epsilon_of_ours"`
	Quad        []Num `json:"quad"`
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

// TestRDPMatchesDPAccounting: on 2×150 random cases (Poisson-subsampled Gaussian under add/remove, Gaussian
// sampled without replacement under replace-one; every order grid) the composed RDP agrees to 1e−9
// relative with:
//   - dp_accounting 0.6.0 at integer orders (both schemes) and at fractional orders without replacement
//     (both interpolate between integer orders);
//   - at fractional orders of the Poisson scheme, dp_accounting's series sums absolute values of its terms and
//     overestimates (by up to 4× at α = 1.1), so there the reference is an mpmath quadrature of the defining
//     integral at two orders per case, and dprl must also not exceed dp_accounting's value;
//
// and dp_accounting's conversion of dprl's RDP curve gives dprl's ε to 1e−9 relative.
// Orders dp_accounting excludes (+∞ where its fractional series does not converge) are counted, not compared.
func TestRDPMatchesDPAccounting(t *testing.T) {
	py := python(t)
	cases := rdpCases(1, 150)
	qr := rand.New(rand.NewPCG(1, 22))
	for i := range cases {
		c := &cases[i]
		one, err := mechanisms.RDPOf(c.ev, c.Orders)
		if err != nil {
			t.Fatalf("case %d %v: %v", i, c.ev, err)
		}
		for _, v := range one {
			c.Ours = append(c.Ours, float64(c.Steps)*v)
		}
		if c.Kind == "poisson" {
			var frac []float64
			for _, a := range c.Orders {
				if a != math.Trunc(a) {
					frac = append(frac, a)
				}
			}
			for range min(2, len(frac)) {
				c.Quad = append(c.Quad, frac[qr.IntN(len(frac))])
			}
		}
	}
	var refs []rdpRef
	if err := Reference(py, "rdp", cases, &refs); err != nil {
		t.Fatal(err)
	}
	const tol = 1e-9
	worst := map[string]float64{}
	count := map[string]int{}
	failed := map[string]int{}
	excluded := 0
	check := func(i int, key string, a, got, want float64) {
		count[key]++
		if math.Abs(got) < 1e-300 && math.Abs(want) < 1e-300 {
			return
		}
		d := relDiff(got, want)
		worst[key] = math.Max(worst[key], d)
		if !(d <= tol) {
			failed[key]++
			if failed[key] <= 3 {
				c := cases[i]
				t.Errorf("%s: case %d %v ×%d (%s grid) order %g: %.17g, reference %.17g (rel %.3g)", key, i, c.ev, c.Steps, c.grid, a, got, want, d)
			}
		}
	}
	for i, c := range cases {
		ref := refs[i]
		for j, a := range c.Orders {
			got, want := c.Ours[j], float64(ref.RDP[j])
			if math.IsInf(want, 1) {
				excluded++
				continue
			}
			switch {
			case a == math.Trunc(a):
				check(i, c.Kind+" integer orders vs dp_accounting", a, got, want)
			case c.Kind == "wor":
				check(i, "wor fractional orders vs dp_accounting", a, got, want)
			default:
				count["poisson fractional orders ≤ dp_accounting"]++
				if got > want*(1+tol) {
					failed["poisson fractional orders ≤ dp_accounting"]++
					t.Errorf("case %d %v order %g: RDP %.17g above dp_accounting's %.17g", i, c.ev, a, got, want)
				}
			}
		}
		for k, a := range c.Quad {
			j := slices.Index(c.Orders, a)
			check(i, "poisson fractional orders vs quadrature", a, c.Ours[j], float64(ref.Quad[k]))
		}
		acc, _ := mechanisms.NewRDPAccountant(c.Orders, mechanisms.ConversionImproved)
		if err := acc.Compose(c.ev, c.Steps); err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		eps, err := acc.Epsilon(c.Delta)
		if err != nil {
			t.Fatalf("case %d %v ×%d δ=%g: %v", i, c.ev, c.Steps, c.Delta, err)
		}
		check(i, c.Kind+" ε vs dp_accounting's conversion of our curve", c.Delta, eps, float64(ref.EpsilonOurs))
	}
	t.Logf("%d cases; comparisons %v", len(cases), count)
	t.Logf("largest relative differences %v", worst)
	t.Logf("failing comparisons %v; %d (case, order) pairs dp_accounting excluded (+∞)", failed, excluded)
}
