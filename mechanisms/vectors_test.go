package mechanisms

import (
	"encoding/csv"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/dprl-project/dprl/dprl/param"
)

// accountingVectors is testdata/accounting.csv (a copy of the project's reference vectors), or
// $DPRL_ACCOUNTING_VECTORS.
func accountingVectors() string {
	if p := os.Getenv("DPRL_ACCOUNTING_VECTORS"); p != "" {
		return p
	}
	return "testdata/accounting.csv"
}

type vectorParams map[string]string

func (p vectorParams) f(t *testing.T, k string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(p[k], 64)
	if err != nil {
		t.Fatalf("parameter %s=%q: %v", k, p[k], err)
	}
	return v
}

func (p vectorParams) i(t *testing.T, k string) int {
	t.Helper()
	v, err := strconv.Atoi(p[k])
	if err != nil {
		t.Fatalf("parameter %s=%q: %v", k, p[k], err)
	}
	return v
}

func (p vectorParams) conversion(t *testing.T) Conversion {
	t.Helper()
	switch p["conversion"] {
	case "classic":
		return ConversionClassic
	case "improved":
		return ConversionImproved
	}
	t.Fatalf("unknown conversion %q", p["conversion"])
	return 0
}

func (p vectorParams) orders(t *testing.T) []float64 {
	t.Helper()
	o, err := Orders(p["orders"])
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func (p vectorParams) poissonGaussian(t *testing.T) Event {
	return PoissonSampled{Q: p.f(t, "q"), Event: GaussianEvent{NoiseMultiplier: p.f(t, "sigma")}}
}

// composedEpsilon records the row's steps of ev in acc (built with error err) and returns ε at its delta.
func composedEpsilon(t *testing.T, acc Accountant, err error, ev Event, p vectorParams) (float64, error) {
	if err != nil {
		return 0, err
	}
	if err := acc.Compose(ev, p.i(t, "steps")); err != nil {
		return 0, err
	}
	return acc.Epsilon(p.f(t, "delta"))
}

// evalVector computes one row's query. Every query of the file's README must be handled here.
func evalVector(t *testing.T, query string, p vectorParams) (float64, error) {
	switch query {
	case "gaussian_sigma_classic":
		return ClassicGaussianSigma(p.f(t, "epsilon"), p.f(t, "delta"), p.f(t, "sensitivity"))
	case "gaussian_sigma_analytic":
		return AnalyticGaussianSigma(p.f(t, "epsilon"), p.f(t, "delta"), p.f(t, "sensitivity"))
	case "gaussian_epsilon_analytic":
		return AnalyticGaussianEpsilon(p.f(t, "sigma"), p.f(t, "delta"), p.f(t, "sensitivity"))
	case "rdp_poisson_gaussian_order":
		return RDPPoissonGaussian(p.f(t, "q"), p.f(t, "sigma"), p.f(t, "alpha"))
	case "rdp_epsilon_poisson_gaussian":
		acc, err := NewRDPAccountant(p.orders(t), p.conversion(t))
		return composedEpsilon(t, acc, err, p.poissonGaussian(t), p)
	case "rdp_epsilon_wor_gaussian":
		if p["relation"] != "replace_one" {
			t.Fatalf("relation %q: only replace_one rows are defined", p["relation"])
		}
		acc, err := NewRDPAccountant(p.orders(t), p.conversion(t))
		ev := SampledWithoutReplacement{N: p.i(t, "n"), Batch: p.i(t, "batch"), Event: GaussianEvent{NoiseMultiplier: p.f(t, "sigma")}}
		return composedEpsilon(t, acc, err, ev, p)
	case "pld_epsilon_poisson_gaussian":
		acc, err := NewPLDAccountant(PLDParams{Discretization: p.f(t, "discretization")})
		return composedEpsilon(t, acc, err, p.poissonGaussian(t), p)
	case "advanced_composition_epsilon":
		eps, _, err := AdvancedComposition(p.f(t, "eps0"), 0, p.i(t, "k"), p.f(t, "delta_slack"))
		return eps, err
	case "optimal_composition_epsilon":
		return OptimalCompositionEpsilon(p.f(t, "eps0"), p.f(t, "delta0"), p.i(t, "k"), p.f(t, "delta"))
	}
	t.Fatalf("unknown query %q", query)
	return 0, nil
}

// TestReferenceVectorsAccounting checks every row of the accounting reference vectors: one subtest per row,
// named by its id, passing iff |got − expected| ≤ max(rel_tol·|expected|, abs_tol).
func TestReferenceVectorsAccounting(t *testing.T) {
	f, err := os.Open(accountingVectors())
	if err != nil {
		t.Fatalf("reference vectors: %v (set DPRL_ACCOUNTING_VECTORS to the file)", err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"id", "query", "params", "expected", "rel_tol", "abs_tol"}
	if strings.Join(rows[0], ",") != strings.Join(want, ",") {
		t.Fatalf("header %v, want %v", rows[0], want)
	}
	if len(rows) < 2 {
		t.Fatal("no reference rows")
	}
	for _, row := range rows[1:] {
		t.Run(row[0], func(t *testing.T) {
			params := vectorParams{}
			for _, kv := range strings.Split(row[2], ";") {
				k, v, ok := strings.Cut(kv, "=")
				if !ok {
					t.Fatalf("bad parameter %q", kv)
				}
				params[k] = v
			}
			expected, err1 := strconv.ParseFloat(row[3], 64)
			rel, err2 := strconv.ParseFloat(row[4], 64)
			abs, err3 := strconv.ParseFloat(row[5], 64)
			if err := param.First(err1, err2, err3); err != nil {
				t.Fatal(err)
			}
			got, err := evalVector(t, row[1], params)
			if err != nil {
				t.Fatalf("%s(%s): %v", row[1], row[2], err)
			}
			tol := math.Max(rel*math.Abs(expected), abs)
			if diff := math.Abs(got - expected); !(diff <= tol) {
				t.Errorf("%s(%s) = %.12g, want %.12g (|diff| %.3g > tolerance %.3g)", row[1], row[2], got, expected, diff, tol)
			}
		})
	}
}
