package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/dprl-project/dprl/dprl/session"
	"github.com/dprl-project/dprl/trajectory"
)

// Three one-step trajectories in the project's CSV format.
const tinyTrajectories = `trajectory,expert,t,obs_0,action,reward,next_obs_0,terminated,truncated,prob
0,0,0,0,1,1,1,1,0,0.5
1,0,0,0,0,0,0,1,0,0.5
2,0,0,1,1,1,2,1,0,0.5
`

// A data owner grants a trajectory file its budget once; a second grant is refused; show verifies the
// ledger and prints it (here the grant alone; times and the temporary folder are masked).
func Example_budget() {
	dir, _ := os.MkdirTemp("", "dprl-budget")
	defer os.RemoveAll(dir)
	data := filepath.Join(dir, "trajectories.csv")
	os.WriteFile(data, []byte(tinyTrajectories), 0o600)
	store := filepath.Join(dir, "store")
	for _, args := range [][]string{
		{"budget", "init", data, "--epsilon", "1", "--delta", "1e-5", "--store", store},
		{"budget", "init", data, "--epsilon", "5", "--delta", "1e-5", "--store", store},
		{"budget", "show", data, "--store", store},
	} {
		var out bytes.Buffer
		code := run(args, &out, &out)
		text := stamp.ReplaceAllString(strings.ReplaceAll(out.String(), dir, "$DIR"), "YYYY-MM-DD hh:mm:ss")
		fmt.Printf("$ dprl %s (exit %d)\n%s", strings.Join(args[:2], " "), code, text)
	}
	// Output:
	// $ dprl budget init (exit 0)
	// granted (ε = 1, δ = 1e-05) by basic composition to dataset sha256:98b5eb87f696dad562128d986d966e86ad8a58c16ca9ae7969a803e30824147a ($DIR/trajectories.csv, 3 trajectories)
	// ledger $DIR/store/98b5eb87f696dad562128d986d966e86ad8a58c16ca9ae7969a803e30824147a.jsonl
	// $ dprl budget init (exit 1)
	// dprl budget init: session: dataset sha256:98b5eb87f696… ($DIR/trajectories.csv) already has a privacy budget (ledger $DIR/store/98b5eb87f696dad562128d986d966e86ad8a58c16ca9ae7969a803e30824147a.jsonl); a budget is granted once per dataset
	// $ dprl budget show (exit 0)
	// dataset sha256:98b5eb87f696dad562128d986d966e86ad8a58c16ca9ae7969a803e30824147a ($DIR/trajectories.csv, 3 trajectories)
	// ledger  $DIR/store/98b5eb87f696dad562128d986d966e86ad8a58c16ca9ae7969a803e30824147a.jsonl (verified)
	// #  time (UTC)           release                                          ε  δ  spent after   left after
	// -------------------------------------------------------------------------------------------------------------
	// 0  YYYY-MM-DD hh:mm:ss  budget: (ε = 1, δ = 1e-05) by basic composition        ε = 0, δ = 0  ε = 1, δ = 1e-05
	// spent (ε = 0, δ = 0) in 0 releases, left (ε = 1, δ = 1e-05)
}

var stamp = regexp.MustCompile(`\d{4}-\d\d-\d\d \d\d:\d\d:\d\d`)

// TestBudgetShow: after releases through a session, show lists them with what is left; a file without a
// budget, a damaged ledger and bad flags give the right exit status and say why.
func TestBudgetShow(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "t.csv")
	if err := os.WriteFile(data, []byte(tinyTrajectories), 0o600); err != nil {
		t.Fatal(err)
	}
	store := filepath.Join(dir, "store")
	if code, out, errs := inProcess("budget", "show", data, "--store", store); code != 1 || !strings.Contains(errs, "no privacy budget") || out != "" {
		t.Errorf("show without a budget: exit %d, %q %q", code, out, errs)
	}
	if code, out, errs := inProcess("budget", "init", data, "--epsilon", "1", "--delta", "1e-5", "--filter", "renyi", "--store", store); code != 0 || !strings.Contains(out, "Rényi filter over 20 orders") {
		t.Fatalf("init: exit %d, %q %q", code, out, errs)
	}
	s, err := session.Open(session.Config{Data: data, Store: store, Src: rand.NewPCG(1, 1)})
	if err != nil {
		t.Fatal(err)
	}
	for _, eps := range []float64{0.2, 0.3} {
		if err := s.Release(session.Charge{Mechanism: fmt.Sprintf("mean at ε = %g", eps), Epsilon: eps, Delta: 1e-7}, func(*trajectory.Dataset, rand.Source) error { return nil }); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errs := inProcess("budget", "show", data, "--store", store)
	if code != 0 || !strings.Contains(out, "mean at ε = 0.2") || !strings.Contains(out, "mean at ε = 0.3") || !strings.Contains(out, "in 2 releases") {
		t.Errorf("show: exit %d\n%s%s", code, out, errs)
	}
	os.WriteFile(s.LedgerPath(), []byte("{}\n"), 0o600)
	if code, _, errs := inProcess("budget", "show", data, "--store", store); code != 1 || !strings.Contains(errs, "refuses to run") {
		t.Errorf("show on a damaged ledger: exit %d, %q", code, errs)
	}
	for _, args := range [][]string{
		{"budget"}, {"budget", "grant", data}, {"budget", "init", data}, {"budget", "init", data, "--epsilon", "1"},
		{"budget", "show"}, {"budget", "show", data, data},
	} {
		if code, _, _ := inProcess(args...); code != 2 {
			t.Errorf("%q: exit %d, want 2 (usage)", args, code)
		}
	}
	if code, _, errs := inProcess("budget", "init", data, "--epsilon", "1", "--delta", "1e-5", "--filter", "pld", "--store", filepath.Join(dir, "s2")); code != 1 || !strings.Contains(errs, "filter") {
		t.Errorf("an unknown filter: exit %d, %q", code, errs)
	}
}
