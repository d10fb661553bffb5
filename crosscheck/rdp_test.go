package crosscheck

import (
	"math"
	"math/rand/v2"
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
	grid     string
	ev       mechanisms.Event
	relation string
}

type rdpRef struct {
	RDP     []Num `json:"rdp"`
	Epsilon Num   `json:"epsilon"`
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
// sampled without replacement under replace-one; every order grid), the composed RDP at each order equals
// dp_accounting 0.6.0's to 1e−9 relative (orders where both are below 1e−300 count as equal), and so does ε
// at δ (dp_accounting converts with the improved conversion).
func TestRDPMatchesDPAccounting(t *testing.T) {
	py := python(t)
	cases := rdpCases(1, 150)
	var refs []rdpRef
	if err := Reference(py, "rdp", cases, &refs); err != nil {
		t.Fatal(err)
	}
	const tol = 1e-9
	worst := map[string]float64{}
	failed := map[string]int{}
	excluded := 0
	for i, c := range cases {
		one, err := mechanisms.RDPOf(c.ev, c.Orders)
		if err != nil {
			t.Errorf("case %d %v: %v", i, c.ev, err)
			continue
		}
		bad := false
		for j, a := range c.Orders {
			got, want := float64(c.Steps)*one[j], float64(refs[i].RDP[j])
			if math.IsInf(want, 1) {
				// dp_accounting excludes an order (+∞) where its fractional-order series fails to converge.
				excluded++
				continue
			}
			if math.Abs(got) < 1e-300 && math.Abs(want) < 1e-300 {
				continue
			}
			d := relDiff(got, want)
			worst[c.Kind+" rdp"] = math.Max(worst[c.Kind+" rdp"], d)
			if !(d <= tol) && !bad {
				bad = true
				failed[c.Kind+" rdp"]++
				t.Errorf("case %d %v ×%d (%s grid) order %g: RDP %.17g, dp_accounting %.17g (rel %.3g)", i, c.ev, c.Steps, c.grid, a, got, want, d)
			}
		}
		acc, _ := mechanisms.NewRDPAccountant(c.Orders, mechanisms.ConversionImproved)
		if err := acc.Compose(c.ev, c.Steps); err != nil {
			t.Errorf("case %d: %v", i, err)
			continue
		}
		eps, err := acc.Epsilon(c.Delta)
		if err != nil {
			t.Errorf("case %d %v ×%d δ=%g: %v (dp_accounting ε %g)", i, c.ev, c.Steps, c.Delta, err, float64(refs[i].Epsilon))
			continue
		}
		d := relDiff(eps, float64(refs[i].Epsilon))
		worst[c.Kind+" ε"] = math.Max(worst[c.Kind+" ε"], d)
		if !(d <= tol) {
			failed[c.Kind+" ε"]++
			t.Errorf("case %d %v ×%d (%s grid) δ=%g: ε %.17g, dp_accounting %.17g (rel %.3g)", i, c.ev, c.Steps, c.grid, c.Delta, eps, float64(refs[i].Epsilon), d)
		}
	}
	t.Logf("%d cases; largest relative differences %v; failing cases %v; %d (case, order) pairs dp_accounting excluded (+∞)",
		len(cases), worst, failed, excluded)
}
