package session

import (
	"errors"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/dprl-project/dprl/dprl/param"
	"github.com/dprl-project/dprl/mechanisms"
)

// rrDirect is randomized response's Rényi divergence from its definition, (1/(α−1))·log(Σ_o p_o^α q_o^{1−α})
// over the two outcomes with p = (e^ε, 1)/(1 + e^ε) and q = p reversed: (α−1)D = log(e^{αε} + e^{(1−α)ε}) −
// log(1 + e^ε). Its rounding error is a few 1e−16/(α−1).
func rrDirect(eps, alpha float64) float64 {
	return (math.Log(math.Exp(alpha*eps)+math.Exp((1-alpha)*eps)) - math.Log1p(math.Exp(eps))) / (alpha - 1)
}

// TestRandomizedResponseRDP: the closed form matches the definition to 1e−12 (and is not below it by more
// than the definition's own rounding) and stays under both simple bounds ε and αε²/2.
func TestRandomizedResponseRDP(t *testing.T) {
	for _, eps := range []float64{1e-4, 0.01, 0.1, 0.5, 1, 2, 5} {
		for _, a := range []float64{1.01, 1.5, 2, 3, 8, 32, 100} {
			got := RandomizedResponseRDP(eps, a)
			want := rrDirect(eps, a)
			if got < want-5e-14 || got-want > 1e-12*(1+want) {
				t.Errorf("ε = %g, α = %g: %g, definition %g", eps, a, got, want)
			}
			if got > eps || got > a*eps*eps/2*(1+1e-14) {
				t.Errorf("ε = %g, α = %g: %g above min(ε, αε²/2)", eps, a, got)
			}
		}
	}
	if r := RandomizedResponseRDP(1, 1e6); !(r > 0.999 && r <= 1) {
		t.Errorf("large order: %g, want just below ε = 1", r)
	}
	if RandomizedResponseRDP(0, 2) != 0 {
		t.Error("ε = 0 costs something")
	}
}

// TestRandomizedResponseRDPAboveExact: the curve is never below randomized response's exact Rényi divergence,
// computed in 60-digit arithmetic (mpmath) from the definition at the float64 ε and α below, orders close
// to 1 (a Total may name them) included: there the bracket's rounding is amplified by 1/(α−1), and at
// ε = 1e−6, α = 1.0001 the curve was 0 against the exact 5e−13.
func TestRandomizedResponseRDPAboveExact(t *testing.T) {
	for _, c := range []struct {
		eps, alpha float64
		exact      string
	}{
		{1e-06, 1.0001, "5.00049999999958270068547022439e-13"},
		{1e-06, 1.001, "5.00499999999958107802381253847e-13"},
		{1e-06, 1.1, "5.49999999999944077965177333706e-13"},
		{0.001, 1.0001, "5.00049958320835850645522134339e-7"},
		{0.001, 1.001, "5.00499958208170736658994394405e-7"},
		{0.001, 1.01, "5.04999957066587739438174672103e-7"},
		{0.01, 1.0001, "5.00045832124853757283604211636e-5"},
		{0.01, 1.001, "5.00495820858533430908459685166e-5"},
		{0.1, 1.0001, "4.99633624770226296318026514499e-3"},
		{0.3, 1.01, "4.51054034060890471982076551375e-2"},
		{1, 1.0001, "4.62156478435197867809504184208e-1"},
		{1, 1.001, "4.62510259959311658603454507798e-1"},
		{3, 1.001, "2.71625647049013236632469207152"},
		{1e-08, 1.5, "7.50000000000000015758841245193e-17"},
		{0.0001, 1.5, "7.49999998437500076257603722839e-9"},
		{0.01, 1.5, "7.49984375437486592300550396334e-5"},
		{0.1, 2, "9.95858439495622508554392451252e-3"},
		{1, 1024, "9.99693781341624415606990229233e-1"},
		{5, 3, "4.99664232576238493762422544768"},
		{20, 1.25, "1.99999999917557598236612307765e+1"},
	} {
		exact, _, err := big.ParseFloat(c.exact, 10, 256, big.ToNearestEven)
		if err != nil {
			t.Fatal(err)
		}
		got := RandomizedResponseRDP(c.eps, c.alpha)
		if new(big.Float).SetPrec(256).SetFloat64(got).Cmp(exact) < 0 {
			t.Errorf("ε = %g, α = %g: %.17g below the exact %s", c.eps, c.alpha, got, c.exact)
		}
		if e, _ := exact.Float64(); got > e*(1+1e-6)+1e-12 {
			t.Errorf("ε = %g, α = %g: %.17g, far above the exact %s", c.eps, c.alpha, got, c.exact)
		}
	}
}

// gaussianCharge is a Gaussian release with noise multiplier z: (ε, δ) from the classic calibration's
// inverse and its exact Rényi curve α/(2z²).
func gaussianCharge(eps, delta float64) (Charge, float64) {
	z := math.Sqrt(2*math.Log(1.25/delta)) / eps
	return Charge{Mechanism: "Gaussian", Epsilon: eps, Delta: delta, RDP: func(a float64) float64 { return mechanisms.RDPGaussian(z, a) }}, z
}

var renyi = Total{Epsilon: 1, Delta: 1e-5, Filter: Renyi}
var basic = Total{Epsilon: 1, Delta: 1e-5, Filter: Basic}

// TestFilterNeverBelowExactComposition: whatever a filter admits, the exact composition of what it admitted
// (non-adaptively, the best an adversary could hope for) stays within its total. Gaussians are composed
// exactly in μ-GDP (mechanisms.GDPAccountant), (ε0, δ0)-releases by the optimal composition theorem
// (mechanisms.OptimalCompositionEpsilon).
func TestFilterNeverBelowExactComposition(t *testing.T) {
	for _, total := range []Total{basic, renyi, {Epsilon: 3, Delta: 1e-6, Filter: Renyi}, {Epsilon: 0.5, Delta: 1e-4, Filter: Renyi, Orders: []float64{8}}} {
		for _, eps := range []float64{0.02, 0.1, 0.4} {
			c, z := gaussianCharge(eps, 1e-8)
			k, err := total.Capacity(c, 1e5)
			if err != nil {
				t.Fatal(err)
			}
			if k == 0 {
				continue
			}
			exact, err := mechanisms.GDPEpsilon(math.Sqrt(float64(k))/z, total.Delta)
			if err != nil {
				t.Fatal(err)
			}
			if exact > total.Epsilon {
				t.Errorf("%v: %d Gaussians at z = %.4g admitted, exactly ε = %.5g at δ = %g", total, k, z, exact, total.Delta)
			}
			for _, e0 := range []float64{eps, eps / 4} {
				for _, d0 := range []float64{0, 1e-9} {
					c := Charge{Mechanism: "(ε0, δ0)-DP", Epsilon: e0, Delta: d0}
					k, err := total.Capacity(c, 5000)
					if err != nil {
						t.Fatal(err)
					}
					if k == 0 {
						continue
					}
					opt, err := mechanisms.OptimalCompositionEpsilon(e0, d0, k, total.Delta)
					if err != nil {
						t.Fatal(err)
					}
					if opt > total.Epsilon*(1+1e-9) {
						t.Errorf("%v: %d (%g, %g)-releases admitted, optimal composition ε = %.6g", total, k, e0, d0, opt)
					}
				}
			}
		}
	}
}

// TestAdaptiveGaussiansWithinTotal: an analyst picks each Gaussian's noise after seeing the previous
// output (here: a random draw standing in for it) and asks until refused, then asks smaller ones; the
// exact composition of everything the Rényi filter admitted stays within the total.
func TestAdaptiveGaussiansWithinTotal(t *testing.T) {
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 3))
		a, _ := newAccount(renyi)
		gdp := &mechanisms.GDPAccountant{}
		out := 0.0
		for range 500 {
			eps := 0.02 + 0.3*math.Abs(math.Tanh(out)) // the next release's ε depends on the last output
			c, z := gaussianCharge(eps, 1e-9)
			e, err := a.t.entry(c)
			if err != nil {
				t.Fatal(err)
			}
			if a.add(e) {
				if err := gdp.Compose(mechanisms.GaussianEvent{NoiseMultiplier: z}, 1); err != nil {
					t.Fatal(err)
				}
				out = rng.NormFloat64() * z
			} else {
				out = rng.NormFloat64() // refused: the analyst tries something else
			}
		}
		exact, err := gdp.Epsilon(renyi.Delta)
		if err != nil {
			t.Fatal(err)
		}
		if st := a.status(); exact > renyi.Epsilon || st.Epsilon > renyi.Epsilon || st.Releases == 0 {
			t.Errorf("seed %d: %d releases, filter says ε = %g, exact ε = %g", seed, st.Releases, st.Epsilon, exact)
		}
	}
}

// TestRenyiAllowsMoreReleases is the comparison the package doc and notebook 07 quote: at the same total
// (ε = 1, δ = 1e−5), how many releases of one kind each filter admits. Gaussians with a Rényi curve gain
// more than tenfold; small (ε, δ)-releases (DP-LSW, DP-LSL through randomized response's curve) gain
// when there are many of them; a handful of large ones fit better by basic composition.
func TestRenyiAllowsMoreReleases(t *testing.T) {
	g, _ := gaussianCharge(0.1, 1e-7)
	cases := []struct {
		name       string
		c          Charge
		basic      int
		moreThan   float64 // the Rényi count is above this multiple of the basic count
		atMostLess int     // or, for large releases, at most this many fewer
	}{
		{"Gaussian (0.1, 1e-7) with its Rényi curve", g, 10, 10, 0},
		{"(0.01, 1e-9)-DP", Charge{Mechanism: "a", Epsilon: 0.01, Delta: 1e-9}, 100, 3, 0},
		{"(0.02, 1e-9)-DP", Charge{Mechanism: "a", Epsilon: 0.02, Delta: 1e-9}, 50, 2, 0},
		{"(0.1, 1e-8)-DP", Charge{Mechanism: "a", Epsilon: 0.1, Delta: 1e-8}, 10, 0, 1},
		{"(1, 1e-6)-DP", Charge{Mechanism: "a", Epsilon: 1, Delta: 1e-6}, 1, 0, 1},
	}
	for _, c := range cases {
		b, err := basic.Capacity(c.c, 1e6)
		if err != nil {
			t.Fatal(err)
		}
		r, err := renyi.Capacity(c.c, 1e6)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%-45s basic %4d, Rényi %4d", c.name, b, r)
		if b != c.basic {
			t.Errorf("%s: basic composition admits %d, want %d (= ε/ε0)", c.name, b, c.basic)
		}
		if c.moreThan > 0 && !(float64(r) > c.moreThan*float64(b)) {
			t.Errorf("%s: Rényi filter admits %d, want more than %g × %d", c.name, r, c.moreThan, b)
		}
		if c.moreThan == 0 && r < b-c.atMostLess {
			t.Errorf("%s: Rényi filter admits %d, basic %d", c.name, r, b)
		}
	}
}

// TestBasicIsExact: ten charges of 0.1 use up ε = 1 exactly; the eleventh, however small, is refused, and
// the refusal changes nothing.
func TestBasicIsExact(t *testing.T) {
	a, _ := newAccount(Total{Epsilon: 1, Delta: 0, Filter: Basic})
	for i := range 10 {
		if !a.add(Entry{Mechanism: "x", Epsilon: 0.1}) {
			t.Fatalf("charge %d refused", i+1)
		}
	}
	if a.add(Entry{Mechanism: "x", Epsilon: math.SmallestNonzeroFloat64}) {
		t.Error("a charge beyond the exact total admitted")
	}
	if st := a.status(); st.Epsilon != 1 || st.EpsilonLeft != 0 || st.Releases != 10 {
		t.Errorf("status %+v", st)
	}
}

func TestTotalAndChargeValidation(t *testing.T) {
	for name, c := range map[string]struct {
		t     Total
		param string
	}{
		"eps":         {Total{Epsilon: 0, Delta: 1e-5}, "Epsilon"},
		"delta":       {Total{Epsilon: 1, Delta: 1}, "Delta"},
		"renyi delta": {Total{Epsilon: 1, Delta: 0, Filter: Renyi}, "Delta"},
		"filter":      {Total{Epsilon: 1, Delta: 1e-5, Filter: 7}, "Filter"},
		"orders":      {Total{Epsilon: 1, Delta: 1e-5, Filter: Renyi, Orders: []float64{2, 1.5}}, "Orders[1]"},
		"order one":   {Total{Epsilon: 1, Delta: 1e-5, Filter: Renyi, Orders: []float64{1}}, "Orders[0]"},
		"empty":       {Total{Epsilon: 1, Delta: 1e-5, Filter: Renyi, Orders: []float64{}}, "Orders"},
		"approx":      {Total{Epsilon: 1, Delta: 1e-5, Filter: Renyi, ApproxDelta: 1e-5}, "ApproxDelta"},
	} {
		_, err := c.t.withDefaults()
		var pe *param.Error
		if !errors.As(err, &pe) || pe.Param != c.param {
			t.Errorf("%s: %v, want a param.Error naming %s", name, err, c.param)
		}
	}
	for name, c := range map[string]Charge{
		"no name": {Epsilon: 1},
		"eps 0":   {Mechanism: "x"},
		"eps inf": {Mechanism: "x", Epsilon: math.Inf(1)},
		"delta 1": {Mechanism: "x", Epsilon: 1, Delta: 1},
		"rdp nan": {Mechanism: "x", Epsilon: 1, RDP: func(float64) float64 { return math.NaN() }},
		"rdp neg": {Mechanism: "x", Epsilon: 1, RDP: func(float64) float64 { return -1 }},
	} {
		if _, err := renyi.Capacity(c, 1); err == nil {
			t.Errorf("%s: charge accepted", name)
		}
	}
	if k, err := ParseFilter("rényi"); err != nil || k != Renyi || k.String() != "renyi" || Basic.String() != "basic" {
		t.Errorf("filter names: %v %v", k, err)
	}
	if _, err := ParseFilter("pld"); err == nil {
		t.Error("unknown filter accepted")
	}
}
