package adhoc

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/dprl-project/dprl/dprl/audit"
	"github.com/dprl-project/dprl/dprl/policyeval"
	"github.com/dprl-project/dprl/envs"
	"github.com/dprl-project/dprl/trajectory"
)

// chainSetup is Balle's chain read with pair aggregation: 2000 (or n) trajectories of the ½-stay policy.
func chainSetup(t testing.TB, n int) (*Setup, *trajectory.Dataset) {
	t.Helper()
	d, err := envs.NewBalleEvaluation().Collect(n, rand.NewPCG(1, 2))
	if err != nil {
		t.Fatal(err)
	}
	s := &Setup{NumStates: 39, State: func(o []float64) int { return int(o[0]) }, Phi: policyeval.StateAggregation(39, 2),
		Rho: policyeval.UniformWeights(39), Gamma: 0.99, ReturnMax: 1,
		Delta: 1e-5, Clip: 1, Steps: 500, StepSize: 0.02, LambdaC: 4}
	return s, d
}

func TestValidate(t *testing.T) {
	s, d := chainSetup(t, 50)
	if err := s.Validate(d); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		mod  func(*Setup)
		want string
	}{
		"rows":      {func(s *Setup) { s.NumStates = 40 }, "mismatched"},
		"weights":   {func(s *Setup) { s.Rho = s.Rho[:10] }, "mismatched"},
		"state":     {func(s *Setup) { s.State = func([]float64) int { return 39 } }, "state 39 is outside the allowed range [0, 38]"},
		"return":    {func(s *Setup) { s.ReturnMax = 0 }, "ReturnMax"},
		"delta":     {func(s *Setup) { s.Delta = 1 }, "Delta"},
		"gamma":     {func(s *Setup) { s.Gamma = math.NaN() }, "Gamma"},
		"lambdaC":   {func(s *Setup) { s.LambdaC = -1 }, "LambdaC"},
		"negweight": {func(s *Setup) { s.Rho = append([]float64{-1}, s.Rho[1:]...) }, "Rho[0]"},
	} {
		bad := *s
		c.mod(&bad)
		if err := bad.Validate(d); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to mention %q", name, err, c.want)
		}
	}
	noClip := *s
	noClip.Clip = 0
	if _, err := noClip.Estimate(GPOPE, d, 1, rand.NewPCG(1, 1)); err == nil || !strings.Contains(err.Error(), "Clip") {
		t.Errorf("GPOPE without a clip: %v", err)
	}
	if _, err := noClip.Estimate(DPLSW, d, 1, rand.NewPCG(1, 1)); err != nil {
		t.Errorf("DP-LSW needs no GPOPE settings: %v", err)
	}
	if err := s.Validate(&trajectory.Dataset{ObsDim: 1, NumActions: 2}); err == nil || !strings.Contains(err.Error(), "empty") {
		t.Errorf("empty dataset: %v", err)
	}
	if _, err := s.Study(d, Methods, []float64{-1}, []int{0}, 1, 1, 1, nil); err == nil || !strings.Contains(err.Error(), "epsilon") {
		t.Errorf("ε = −1: %v", err)
	}
}

// TestStudy: results are identical for 1 and 2 workers, more ε means less error for DP-LSW and DP-LSL, they
// do not run at ε > 1 (no guarantee: the smooth-sensitivity constants need ε ≤ 1) while GPOPE does, the
// non-private counterparts of LSW are the reference itself, and Needed reads the size curve.
func TestStudy(t *testing.T) {
	s, d := chainSetup(t, 600)
	eps := []float64{0.1, 1, 100}
	a, err := s.Study(d, Methods, eps, []int{0}, 4, 7, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := s.Study(d, Methods, eps, []int{0}, 4, 7, 2, nil)
	for i := range a {
		if a[i] != b[i] && !(math.IsNaN(a[i].Error) && math.IsNaN(b[i].Error)) {
			t.Fatalf("row %d differs with 2 workers: %+v vs %+v", i, a[i], b[i])
		}
	}
	mean := func(m Method, e float64) float64 {
		sum, n := 0.0, 0
		for _, r := range a {
			if r.Method == m && r.Eps == e && r.Err == "" {
				sum += r.Error
				n++
			}
		}
		return sum / float64(n)
	}
	for _, m := range []Method{DPLSW, DPLSL} {
		if !(mean(m, 1) < mean(m, 0.1)) {
			t.Errorf("%v: error %g at ε = 1, %g at ε = 0.1", m, mean(m, 1), mean(m, 0.1))
		}
	}
	for _, r := range a {
		refused := strings.Contains(r.Err, "Epsilon = 100 is outside the allowed range (0, 1]")
		if r.Eps == 100 && (r.Method == GPOPE) == refused {
			t.Errorf("%v at ε = 100: failure %q", r.Method, r.Err)
		}
	}
	if got := NeededTable(a, []int{600}, [][2]float64{{100, 1e9}}); got[0][2] != "not run" || got[0][4] != "600" {
		t.Errorf("needed at ε = 100: %v", got)
	}
	ref, _ := s.Reference(d)
	lsw, _ := s.NonPrivate(DPLSW, d, nil)
	if e := s.Error(lsw, ref); e != 0 {
		t.Errorf("LSW vs its own reference: %g", e)
	}
	rows := []Row{{Method: DPLSW, M: 100, Error: 3}, {Method: DPLSW, M: 1000, Error: 0.5}, {Method: DPLSW, M: 10000, Error: 0.1}}
	if got := Needed(rows, []Method{DPLSW}, []int{100, 1000, 10000}, 0.6)[DPLSW]; got != 1000 {
		t.Errorf("Needed = %d, want 1000", got)
	}
	if got := Needed(rows, []Method{DPLSW}, []int{100, 1000, 10000}, 0.01)[DPLSW]; got != 0 {
		t.Errorf("Needed for an unreachable target = %d, want 0", got)
	}
}

func TestResample(t *testing.T) {
	_, d := chainSetup(t, 50)
	sub := Resample(d, 30, rand.NewPCG(1, 1))
	seen := map[*trajectory.Step]bool{}
	for _, tr := range sub.Trajectories {
		if seen[&tr.Steps[0]] {
			t.Fatal("a trajectory drawn twice without replacement")
		}
		seen[&tr.Steps[0]] = true
	}
	if big := Resample(d, 200, rand.NewPCG(1, 1)); len(big.Trajectories) != 200 {
		t.Errorf("bootstrap size %d", len(big.Trajectories))
	}
}

// TestAuditOnData: the canary sits in the least-visited state with an extreme reward, and DP-LSW audits
// below its claim on the user's data.
func TestAuditOnData(t *testing.T) {
	s, d := chainSetup(t, 300)
	c, err := s.Canary(d)
	if err != nil {
		t.Fatal(err)
	}
	_, counts, _ := d.FirstVisitReturns(s.Gamma, s.NumStates, s.State)
	k := s.State(c.Steps[0].Obs)
	for _, n := range counts {
		if n < counts[k] {
			t.Fatalf("canary state %d has %d visits, another has %d", k, counts[k], n)
		}
	}
	if r := c.Steps[0].Reward; r != 0 && r != s.ReturnMax {
		t.Errorf("canary reward %g is not extreme", r)
	}
	res, err := s.Audit(DPLSW, d, 1, audit.Config{Runs: 1000, Seed: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !(res.EpsilonLower < 1) {
		t.Errorf("DP-LSW audits at %g ≥ its claimed ε = 1", res.EpsilonLower)
	}
}

func TestRowsRoundTrip(t *testing.T) {
	rows := []Row{{Method: GPOPE, Eps: 0.1, M: 500, Trial: 2, Error: math.NaN(), Sigma: math.NaN(), Err: "no σ, meets ε"},
		{Method: DPLSL, Eps: 1, M: 2000, Trial: 0, Error: 0.123456789, Sigma: 0.5}}
	var b strings.Builder
	if err := RowsTable(rows).WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	got, err := ReadRows(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[1] != rows[1] || got[0].Err != rows[0].Err || !math.IsNaN(got[0].Error) || got[0].Method != GPOPE {
		t.Errorf("round trip: %+v", got)
	}
	if _, err := ReadRows(strings.NewReader("a,b\n")); err == nil {
		t.Error("a foreign table accepted")
	}
}
