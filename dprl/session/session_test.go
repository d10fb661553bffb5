package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dprl-project/dprl/envs"
	"github.com/dprl-project/dprl/trajectory"
)

// chainData is n trajectories of Balle et al.'s chain (½ stay, ½ advance) from stream seed.
func chainData(t testing.TB, n int, seed uint64) *trajectory.Dataset {
	t.Helper()
	env, err := envs.Make("chain")
	if err != nil {
		t.Fatal(err)
	}
	pol, err := envs.ConstantTable(40, 0.5, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := envs.Collect(env, pol, n, rand.NewPCG(seed, 1), 0)
	if err != nil {
		t.Fatal(err)
	}
	return &trajectory.Dataset{ObsDim: 1, NumActions: 2, Trajectories: tr}
}

// writeData writes d as CSV to dir/name and returns the path.
func writeData(t testing.TB, dir, name string, d *trajectory.Dataset) string {
	t.Helper()
	path := filepath.Join(dir, name)
	var b bytes.Buffer
	if err := d.WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// fixture is a data file and an empty store in a fresh folder.
func fixture(t *testing.T) Config {
	dir := t.TempDir()
	return Config{Data: writeData(t, dir, "data.csv", chainData(t, 30, 1)), Actions: 2, Store: filepath.Join(dir, "store"), Src: rand.NewPCG(1, 1)}
}

var eps01 = Charge{Mechanism: "test release", Epsilon: 0.1, Delta: 1e-7}

// spend charges c and counts the calls of its run.
func spend(s *Session, c Charge) (ran int, err error) {
	err = s.Release(c, func(d *trajectory.Dataset, src rand.Source) error {
		ran++
		rand.New(src).NormFloat64()
		return nil
	})
	return ran, err
}

func TestInitOpenRelease(t *testing.T) {
	cfg := fixture(t)
	if _, err := Open(cfg); !errors.As(err, new(*NoBudgetError)) || !strings.Contains(err.Error(), "dprl budget init") {
		t.Fatalf("open without a budget: %v", err)
	}
	s, err := Init(cfg, Total{Epsilon: 1, Delta: 1e-5})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Init(cfg, Total{Epsilon: 5, Delta: 1e-5}); !errors.As(err, new(*ExistsError)) {
		t.Errorf("a second budget granted: %v", err)
	}
	var seen int
	err = s.Release(eps01, func(d *trajectory.Dataset, src rand.Source) error {
		seen = len(d.Trajectories)
		return nil
	})
	if err != nil || seen != 30 {
		t.Fatalf("release: %v, saw %d trajectories", err, seen)
	}
	// a renamed, reformatted (JSON) and reordered copy is the same dataset, with the same ledger
	d := chainData(t, 30, 1)
	slices.Reverse(d.Trajectories)
	var js bytes.Buffer
	if err := d.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	copyPath := filepath.Join(filepath.Dir(cfg.Data), "renamed.json")
	if err := os.WriteFile(copyPath, js.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	c := cfg
	c.Data = copyPath
	s2, err := Open(c)
	if err != nil {
		t.Fatal(err)
	}
	if s2.Identity().Hash != s.Identity().Hash || s2.LedgerPath() != s.LedgerPath() {
		t.Errorf("the copy is %s with ledger %s, the original %s with %s", s2.Identity().Hash, s2.LedgerPath(), s.Identity().Hash, s.LedgerPath())
	}
	l, err := s2.Ledger()
	if err != nil {
		t.Fatal(err)
	}
	if st := l.Status(); st.Releases != 1 || st.Epsilon != 0.1 || st.EpsilonLeft != 0.9 || l.Records != 30 {
		t.Errorf("the copy's status %+v", st)
	}
	// an edited value is another dataset, without a budget
	d.Trajectories[3].Steps[0].Reward += 0.5
	c.Data = writeData(t, filepath.Dir(cfg.Data), "edited.csv", d)
	if _, err := Open(c); !errors.As(err, new(*NoBudgetError)) {
		t.Errorf("an edited file opened a budget: %v", err)
	}
	// a dataset the store knows keeps its ledger
	c = cfg
	c.Ledger = filepath.Join(filepath.Dir(cfg.Data), "elsewhere.jsonl")
	if _, err := Open(c); err == nil || !strings.Contains(err.Error(), "keeps its ledger at") {
		t.Errorf("another ledger path accepted: %v", err)
	}
}

// TestRefusal: a charge beyond the budget is refused with what was spent, what is left and what was
// asked; run is not called and nothing is written.
func TestRefusal(t *testing.T) {
	cfg := fixture(t)
	s, err := Init(cfg, Total{Epsilon: 0.25, Delta: 1e-5})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := spend(s, eps01); err != nil {
			t.Fatal(err)
		}
	}
	before, _ := os.ReadFile(s.LedgerPath())
	ran, err := spend(s, eps01)
	var be *BudgetError
	if !errors.As(err, &be) || ran != 0 {
		t.Fatalf("third charge: %v, ran %d times", err, ran)
	}
	for _, want := range []string{"test release asks (ε = 0.1, δ = 1e-07)", "spent (ε = 0.2, δ = 2e-07) in 2 releases", "left (ε = 0.05,", "the budget is (ε = 0.25, δ = 1e-05) by basic composition", "Nothing was released"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("refusal %q does not say %q", err, want)
		}
	}
	if after, _ := os.ReadFile(s.LedgerPath()); !bytes.Equal(before, after) {
		t.Error("a refused charge changed the ledger")
	}
	if _, err := spend(s, Charge{Mechanism: "small", Epsilon: 0.05}); err != nil {
		t.Errorf("a charge that fits exactly: %v", err)
	}
}

// TestReleaseErrorWithholdsTheCause: a release that fails on the private data keeps its charge, and its
// message does not repeat what the failure said about the data.
func TestReleaseErrorWithholdsTheCause(t *testing.T) {
	cfg := fixture(t)
	s, err := Init(cfg, Total{Epsilon: 1, Delta: 1e-5})
	if err != nil {
		t.Fatal(err)
	}
	cause := errors.New("trajectory 17 has reward 42")
	err = s.Release(eps01, func(*trajectory.Dataset, rand.Source) error { return cause })
	var re *ReleaseError
	if !errors.As(err, &re) || !errors.Is(err, cause) || strings.Contains(err.Error(), "42") || !strings.Contains(err.Error(), "charge, which stands") {
		t.Errorf("failed release: %v", err)
	}
	if l, _ := s.Ledger(); len(l.Entries) != 1 {
		t.Errorf("the failed release's charge is gone: %d entries", len(l.Entries))
	}
}

// editLine rewrites line i (0-based) of the ledger with f.
func editLine(t *testing.T, path string, i int, f func([]byte) []byte) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSuffix(b, []byte{'\n'}), []byte{'\n'})
	lines[i] = f(lines[i])
	if err := os.WriteFile(path, append(bytes.Join(lines, []byte{'\n'}), '\n'), 0o600); err != nil {
		t.Fatal(err)
	}
}

// spentLedger is a session with a budget of ε = 1 and three releases of 0.1.
func spentLedger(t *testing.T) (Config, *Session) {
	cfg := fixture(t)
	s, err := Init(cfg, Total{Epsilon: 1, Delta: 1e-5})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := spend(s, eps01); err != nil {
			t.Fatal(err)
		}
	}
	return cfg, s
}

// TestTamperedLedgerRefused: every way of losing what was spent (an edited line, an edit with the chain
// recomputed, a truncated or missing ledger, a torn last line) stops the session with a *LedgerError
// rather than starting afresh.
func TestTamperedLedgerRefused(t *testing.T) {
	cases := map[string]struct {
		damage func(t *testing.T, path string)
		want   string
	}{
		"edited ε": {func(t *testing.T, p string) {
			editLine(t, p, 2, func(b []byte) []byte { return bytes.Replace(b, []byte(`"epsilon":0.1`), []byte(`"epsilon":0.01`), 1) })
		}, "line 4 was edited, or a line before it was"},
		"edited budget": {func(t *testing.T, p string) {
			editLine(t, p, 0, func(b []byte) []byte { return bytes.Replace(b, []byte(`"epsilon":1`), []byte(`"epsilon":10`), 1) })
		}, "line 2 was edited"},
		"last line edited": {func(t *testing.T, p string) {
			b, _ := os.ReadFile(p)
			lines := bytes.Split(bytes.TrimSuffix(b, []byte{'\n'}), []byte{'\n'})
			lines[3] = bytes.Replace(lines[3], []byte(`"epsilon":0.1`), []byte(`"epsilon":0.01`), 1)
			os.WriteFile(p, append(bytes.Join(lines, []byte{'\n'}), '\n'), 0o600)
		}, "line 4 is not the line the store recorded"},
		"truncated": {func(t *testing.T, p string) {
			b, _ := os.ReadFile(p)
			os.WriteFile(p, b[:bytes.LastIndexByte(b[:len(b)-1], '\n')+1], 0o600)
		}, "was truncated: it has 3 lines, the store recorded 4"},
		"missing": {func(t *testing.T, p string) { os.Remove(p) }, "is missing, though the store"},
		"torn": {func(t *testing.T, p string) {
			f, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
			f.WriteString(`{"v":1,"kind":"rel`)
			f.Close()
		}, "is incomplete"},
		"not json": {func(t *testing.T, p string) {
			editLine(t, p, 1, func([]byte) []byte { return []byte("hello") })
		}, "line 2 is not a ledger line"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			cfg, s := spentLedger(t)
			c.damage(t, s.LedgerPath())
			_, err := Open(cfg)
			var le *LedgerError
			if !errors.As(err, &le) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "refuses to run") {
				t.Errorf("open: %v, want a LedgerError saying %q", err, c.want)
			}
			if _, err := spend(s, eps01); !errors.As(err, &le) {
				t.Errorf("a charge on the damaged ledger: %v", err)
			}
		})
	}
}

// TestStoppedBetweenLedgerAndRecord: a process stopped after appending its line but before updating the
// store's record leaves a ledger one line ahead; it is accepted (the line chains) and recorded.
func TestStoppedBetweenLedgerAndRecord(t *testing.T) {
	cfg, s := spentLedger(t)
	rec, _ := os.ReadFile(s.knownPath())
	if _, err := spend(s, eps01); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(s.knownPath(), rec, 0o600); err != nil { // as before the fourth charge
		t.Fatal(err)
	}
	s2, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	l, _ := s2.Ledger()
	if st := l.Status(); st.Releases != 4 {
		t.Errorf("%d releases, want 4", st.Releases)
	}
	var k known
	b, _ := os.ReadFile(s.knownPath())
	if json.Unmarshal(b, &k) != nil || k.Lines != 5 {
		t.Errorf("record not brought up to date: %s", b)
	}
}

// The tests below run this test binary again as a helper process: DPRL_SESSION_HELPER names what it does,
// with the data, store, ε and files to signal through in the environment.
const helperEnv = "DPRL_SESSION_HELPER"

func TestMain(m *testing.M) {
	if role := os.Getenv(helperEnv); role != "" {
		os.Exit(helper(role))
	}
	os.Exit(m.Run())
}

// Exit codes of the helper.
const (
	helperOK      = 0
	helperError   = 1
	helperRefused = 3
)

func helper(role string) int {
	eps, _ := strconv.ParseFloat(os.Getenv("EPS"), 64)
	cfg := Config{Data: os.Getenv("DATA"), Actions: 2, Store: os.Getenv("STORE")}
	s, err := Open(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return helperError
	}
	c := Charge{Mechanism: role, Epsilon: eps}
	switch role {
	case "charge-and-hang": // charges, says so, and hangs before drawing any noise
		err = s.Release(c, func(*trajectory.Dataset, rand.Source) error {
			os.WriteFile(os.Getenv("SIGNAL"), []byte("charged"), 0o600)
			time.Sleep(time.Hour)
			return nil
		})
	case "race": // waits for the start file, then charges
		for {
			if _, err := os.Stat(os.Getenv("SIGNAL")); err == nil {
				break
			}
			time.Sleep(time.Millisecond)
		}
		_, err = spend(s, c)
	case "charge":
		_, err = spend(s, c)
	case "status":
		var l *Ledger
		if l, err = s.Ledger(); err == nil {
			fmt.Printf("%g %d\n", l.Status().EpsilonLeft, l.Status().Releases)
		}
	}
	var be *BudgetError
	switch {
	case errors.As(err, &be):
		fmt.Fprintln(os.Stderr, err)
		return helperRefused
	case err != nil:
		fmt.Fprintln(os.Stderr, err)
		return helperError
	}
	return helperOK
}

// helperCmd is this test binary as a helper doing role on cfg's data.
func helperCmd(cfg Config, role string, eps float64, signal string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+role, "DATA="+cfg.Data, "STORE="+cfg.Store, fmt.Sprintf("EPS=%g", eps), "SIGNAL="+signal)
	return cmd
}

// TestKilledBetweenChargeAndRelease: a process killed (SIGKILL) after its charge and before its release
// leaves the charge in the ledger: the budget counts it, though nothing was released.
func TestKilledBetweenChargeAndRelease(t *testing.T) {
	cfg := fixture(t)
	if _, err := Init(cfg, Total{Epsilon: 1, Delta: 1e-5}); err != nil {
		t.Fatal(err)
	}
	signal := filepath.Join(t.TempDir(), "charged")
	cmd := helperCmd(cfg, "charge-and-hang", 0.4, signal)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		if _, err := os.Stat(signal); err == nil {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("the helper never charged")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	s, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	l, err := s.Ledger()
	if err != nil {
		t.Fatal(err)
	}
	if st := l.Status(); st.Releases != 1 || st.EpsilonLeft != 0.6 || l.Entries[0].Mechanism != "charge-and-hang" {
		t.Errorf("after the kill: %+v, entries %+v", st, l.Entries)
	}
}

// TestRaceForTheLastEpsilon: four processes start together, each asking for the last 0.5 of the budget;
// exactly one gets it and the others are refused with a *BudgetError.
func TestRaceForTheLastEpsilon(t *testing.T) {
	cfg := fixture(t)
	s, err := Init(cfg, Total{Epsilon: 1, Delta: 1e-5})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := spend(s, Charge{Mechanism: "first half", Epsilon: 0.5}); err != nil {
		t.Fatal(err)
	}
	start := filepath.Join(t.TempDir(), "go")
	var cmds []*exec.Cmd
	for range 4 {
		cmd := helperCmd(cfg, "race", 0.5, start)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	time.Sleep(200 * time.Millisecond) // every helper has opened the session and waits
	os.WriteFile(start, nil, 0o600)
	codes := map[int]int{}
	for _, cmd := range cmds {
		cmd.Wait()
		codes[cmd.ProcessState.ExitCode()]++
	}
	if codes[helperOK] != 1 || codes[helperRefused] != 3 {
		t.Errorf("exit codes %v: want one success and three refusals", codes)
	}
	l, err := s.Ledger()
	if err != nil {
		t.Fatal(err)
	}
	if st := l.Status(); st.Releases != 2 || st.EpsilonLeft != 0 {
		t.Errorf("after the race: %+v", st)
	}
}

// TestRestartKeepsTheBudget: a process spends and exits; a new process (a restarted kernel) sees the same
// remaining budget and continues from it.
func TestRestartKeepsTheBudget(t *testing.T) {
	cfg := fixture(t)
	if _, err := Init(cfg, Total{Epsilon: 1, Delta: 1e-5}); err != nil {
		t.Fatal(err)
	}
	for _, step := range []struct {
		role string
		eps  float64
	}{{"charge", 0.3}, {"charge", 0.5}} {
		if out, err := helperCmd(cfg, step.role, step.eps, "").CombinedOutput(); err != nil {
			t.Fatalf("%s %g: %v\n%s", step.role, step.eps, err, out)
		}
	}
	out, err := helperCmd(cfg, "status", 0, "").Output()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(out)); got != "0.2 2" {
		t.Errorf("the third process sees %q left, want 0.2 after 2 releases", got)
	}
	if err := helperCmd(cfg, "charge", 0.3, "").Run(); err == nil || err.(*exec.ExitError).ExitCode() != helperRefused {
		t.Errorf("0.3 more after a restart: %v, want a refusal", err)
	}
}
