package crosscheck

import (
	"math"
	"math/rand/v2"
	"testing"

	"dprl/mechanisms"
)

type pldCase struct {
	Q        float64 `json:"q"`
	Sigma    float64 `json:"sigma"`
	Steps    int     `json:"steps"`
	Delta    float64 `json:"delta"`
	H        float64 `json:"h"`
	EpsError float64 `json:"eps_error"`
	DPA      bool    `json:"dpa"`
}

type pldRef struct {
	DPA         Num `json:"dpa"`
	PRVLower    Num `json:"prv_lower"`
	PRVEstimate Num `json:"prv_estimate"`
	PRVUpper    Num `json:"prv_upper"`
}

// pldCases draws n Poisson-subsampled Gaussian cases: σ log-uniform in [0.3, 10], q in [1e−3, 0.2], steps
// in [1, 10⁵] (every tenth case exactly 10⁵), δ in [1e−8, 1e−3], keeping those whose RDP ε is in
// [0.05, 20] (a range where the three accountants' grids are meant to work). dp_accounting's PLD is asked
// for every third case (it takes seconds per case at 10⁵ steps).
func pldCases(seed uint64, n int) []pldCase {
	r := rand.New(rand.NewPCG(seed, 21))
	orders, _ := mechanisms.Orders(mechanisms.DefaultOrders)
	var cases []pldCase
	for len(cases) < n {
		c := pldCase{Q: logUniform(r, 1e-3, 0.2), Sigma: logUniform(r, 0.3, 10), Steps: int(logUniform(r, 1, 1e5)),
			Delta: logUniform(r, 1e-8, 1e-3), H: 1e-3, EpsError: 0.01}
		if len(cases)%10 == 0 {
			c.Steps = 100000
		}
		acc, _ := mechanisms.NewRDPAccountant(orders, mechanisms.ConversionImproved)
		acc.Compose(mechanisms.PoissonSampled{Q: c.Q, Event: mechanisms.GaussianEvent{NoiseMultiplier: c.Sigma}}, c.Steps)
		if e, err := acc.Epsilon(c.Delta); err != nil || e < 0.05 || e > 20 {
			continue
		}
		c.DPA = len(cases)%3 == 0
		cases = append(cases, c)
	}
	return cases
}

// pldTolerance is the error this test allows the PLD accountant at discretisation h on top of the
// references' own: 1% of ε, at least 0.01.
func pldTolerance(eps float64) float64 { return math.Max(0.01, 0.01*eps) }

// TestPLDMatchesReferences: on 200 random Poisson-subsampled Gaussian cases (σ down to 0.3, runs up to 10⁵
// steps), dprl's PLD ε at h = 1e−3 is never below prv_accountant's certified lower bound (eps_error 0.01),
// is at most prv_accountant's upper bound plus pldTolerance, and (every third case) is within pldTolerance
// of dp_accounting's pessimistic PLD at the same h.
func TestPLDMatchesReferences(t *testing.T) {
	py := python(t)
	cases := pldCases(2, 200)
	var refs []pldRef
	if err := Reference(py, "pld", cases, &refs); err != nil {
		t.Fatal(err)
	}
	var worstDPA, worstPRV, worstBelow float64
	fails := map[string]int{}
	nDPA := 0
	for i, c := range cases {
		ev := mechanisms.PoissonSampled{Q: c.Q, Event: mechanisms.GaussianEvent{NoiseMultiplier: c.Sigma}}
		acc, err := mechanisms.NewPLDAccountant(mechanisms.PLDParams{Discretization: c.H})
		if err == nil {
			err = acc.Compose(ev, c.Steps)
		}
		var eps float64
		if err == nil {
			eps, err = acc.Epsilon(c.Delta)
		}
		if err != nil {
			fails["error"]++
			t.Errorf("case %d %v ×%d δ=%g: %v", i, ev, c.Steps, c.Delta, err)
			continue
		}
		ref := refs[i]
		lo, hi, est := float64(ref.PRVLower), float64(ref.PRVUpper), float64(ref.PRVEstimate)
		tol := pldTolerance(eps)
		worstPRV = math.Max(worstPRV, math.Abs(eps-est))
		if eps < lo {
			fails["below prv lower"]++
			worstBelow = math.Max(worstBelow, lo-eps)
			t.Errorf("case %d %v ×%d δ=%g: ε %.6g below prv_accountant's lower bound %.6g (estimate %.6g)", i, ev, c.Steps, c.Delta, eps, lo, est)
		}
		if eps > hi+tol {
			fails["above prv upper+tol"]++
			t.Errorf("case %d %v ×%d δ=%g: ε %.6g above prv_accountant's upper bound %.6g + %.3g", i, ev, c.Steps, c.Delta, eps, hi, tol)
		}
		if c.DPA {
			nDPA++
			d := math.Abs(eps - float64(ref.DPA))
			worstDPA = math.Max(worstDPA, d)
			if !(d <= tol) {
				fails["dp_accounting"]++
				t.Errorf("case %d %v ×%d δ=%g h=%g: ε %.6g, dp_accounting %.6g (diff %.3g > %.3g)", i, ev, c.Steps, c.Delta, c.H, eps, float64(ref.DPA), d, tol)
			}
		}
	}
	t.Logf("%d cases (%d against dp_accounting); largest |ε − prv estimate| %.4g, |ε − dp_accounting| %.4g, largest shortfall below prv lower bound %.4g; failures %v",
		len(cases), nDPA, worstPRV, worstDPA, worstBelow, fails)
}
