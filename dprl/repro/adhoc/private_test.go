package adhoc

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/dprl-project/dprl/dprl/report"
	"github.com/dprl-project/dprl/dprl/session"
	"github.com/dprl-project/dprl/mechanisms"
	"github.com/dprl-project/dprl/trajectory"
)

// drawWatch is the private releases' noise source: it counts every draw and records, at each, how many
// release lines the ledger holds on disk at that moment.
type drawWatch struct {
	src    rand.Source
	ledger string
	seen   []int // release lines on disk at each draw
}

func (w *drawWatch) Uint64() uint64 {
	b, _ := os.ReadFile(w.ledger)
	w.seen = append(w.seen, bytes.Count(b, []byte{'\n'})-1) // minus the budget line
	return w.src.Uint64()
}

// TestNoDrawWithoutLedgerLine runs every path of adhoc that releases on the private file (the release,
// the charged explorer with each estimator, the private selection) and counts: every draw of noise happens
// with the line of its own release already on disk, the n-th release draws only while exactly n lines are
// there, and each of the n ledger lines is followed by draws (nothing charged twice, nothing drawn
// unlisted).
func TestNoDrawWithoutLedgerLine(t *testing.T) {
	a := tinyAnalysis(t)
	if err := writeFiles(a, report.Discard, 60); err != nil {
		t.Fatal(err)
	}
	if err := a.OpenBudget(report.Discard); err != nil {
		t.Fatal(err)
	}
	s, err := session.Open(a.config())
	if err != nil {
		t.Fatal(err)
	}
	w := &drawWatch{src: rand.NewPCG(9, 9), ledger: s.LedgerPath()}
	a.Src = w
	releases := 0
	run := func(name string, n int, f func() error) {
		if err := f(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		releases += n
	}
	run("Release", 1, func() error { return a.Release(report.Discard, DPLSL, 0.5) })
	draw := a.PrivateEstimateDraw()
	for i := range Methods {
		run("PrivateEstimateDraw "+Methods[i].String(), 1, func() error {
			p, err := draw([]float64{0.5, float64(i)})
			if err == nil && !strings.Contains(p.Title.Text, "left ε =") {
				t.Errorf("the charged explorer does not show what is left: %q", p.Title.Text)
			}
			return err
		})
	}
	run("SelectPrivately", 3, func() error { return a.SelectPrivately(report.Discard, []Method{DPLSW, DPLSL}, 0.5, 0.5) })

	l, err := s.Ledger()
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Entries) != releases {
		t.Fatalf("%d ledger lines for %d releases", len(l.Entries), releases)
	}
	if len(w.seen) == 0 || w.seen[0] < 1 {
		t.Fatalf("a draw before any charge (lines at the draws: %v…)", w.seen[:min(len(w.seen), 5)])
	}
	var epochs []int
	for i, n := range w.seen {
		if i > 0 && n < w.seen[i-1] {
			t.Fatalf("draw %d saw %d lines after %d", i, n, w.seen[i-1])
		}
		if len(epochs) == 0 || epochs[len(epochs)-1] != n {
			epochs = append(epochs, n)
		}
	}
	want := make([]int, releases)
	for i := range want {
		want[i] = i + 1
	}
	if !slices.Equal(epochs, want) {
		t.Errorf("draws happened with %v release lines on disk; want every one of %v", epochs, want)
	}
	t.Logf("%d ledger lines, %d draws", len(l.Entries), len(w.seen))
}

// TestSecondReleaseRefused: a second notebook run's release (a new Analysis on the same file, as a
// restarted kernel has) is refused with the budget error, before any noise: the budget of the first run is
// the same after the restart.
func TestSecondReleaseRefused(t *testing.T) {
	a := tinyAnalysis(t)
	a.Budget = session.Total{Epsilon: 1, Delta: 1e-5}
	if err := writeFiles(a, report.Discard, 60); err != nil {
		t.Fatal(err)
	}
	if err := a.Release(report.Discard, DPLSL, 1); err != nil {
		t.Fatal(err)
	}
	again := *a
	again.Src = &drawWatch{src: rand.NewPCG(1, 1), ledger: os.DevNull}
	err := again.Release(report.Discard, DPLSL, 1)
	var be *session.BudgetError
	if !errors.As(err, &be) || be.Status.EpsilonLeft != 0 || be.Status.Releases != 1 {
		t.Fatalf("second release: %v", err)
	}
	if n := len(again.Src.(*drawWatch).seen); n != 0 {
		t.Errorf("the refused release drew %d numbers", n)
	}
}

// TestChargeMatchesTheEstimator: a release's charge states what the estimator's calibration gives. GPOPE's
// Rényi curve, converted at δ on the accountant's default orders, is the ε it was calibrated to (at most
// it, and within the calibration's tolerance); DP-LSW and DP-LSL refuse ε > 1 before any charge.
func TestChargeMatchesTheEstimator(t *testing.T) {
	s, _ := chainSetup(t, 1)
	c, err := s.Charge(GPOPE, 600, 0.8)
	if err != nil {
		t.Fatal(err)
	}
	orders, _ := mechanisms.Orders(mechanisms.DefaultOrders)
	curve := make([]float64, len(orders))
	for i, a := range orders {
		curve[i] = c.RDP(a)
	}
	eps, _, err := mechanisms.RDPToEpsilon(orders, curve, s.Delta, mechanisms.ConversionImproved)
	if err != nil {
		t.Fatal(err)
	}
	if !(eps <= 0.8 && eps > 0.79) || c.Epsilon != 0.8 || c.Delta != s.Delta {
		t.Errorf("GPOPE charge (ε = %g, δ = %g), its curve converts to ε = %g", c.Epsilon, c.Delta, eps)
	}
	for _, m := range []Method{DPLSW, DPLSL} {
		c, err := s.Charge(m, 600, 0.5)
		if err != nil || c.RDP != nil || c.Epsilon != 0.5 {
			t.Errorf("%v: %+v, %v", m, c, err)
		}
		if _, err := s.Charge(m, 600, 1.5); err == nil {
			t.Errorf("%v charged at ε = 1.5", m)
		}
	}
	if _, err := s.Charge(DPLSL, 0, 0.5); err == nil {
		t.Error("a charge on 0 trajectories")
	}
}

// TestPredictionScoreIsBounded: the private selection's score lies in [−R², 0] for any trajectory and any
// values, including absurd ones, and is 0 (the best) for values equal to a trajectory's own returns.
func TestPredictionScoreIsBounded(t *testing.T) {
	s, d := chainSetup(t, 50)
	for _, signed := range []bool{false, true} {
		s.Signed = signed
		lo, hi := s.returnRange()
		r := hi - lo
		for _, v := range []float64{-1e9, -1, 0, 0.5, 1e9, math.Inf(1)} {
			vals := make([]float64, s.NumStates)
			for i := range vals {
				vals[i] = v
			}
			for _, tr := range d.Trajectories {
				if sc := s.predictionScore(tr, vals); !(sc >= -r*r && sc <= 0) {
					t.Fatalf("signed=%v values %g: score %g outside [%g, 0]", signed, v, sc, -r*r)
				}
			}
		}
	}
	s.Signed = false
	tr := d.Trajectories[0]
	own := make([]float64, s.NumStates)
	g := 0.0
	for k := len(tr.Steps) - 1; k >= 0; k-- {
		g = tr.Steps[k].Reward + s.Gamma*g
		own[s.State(tr.Steps[k].Obs)] = g // the earliest visit is written last
	}
	if sc := s.predictionScore(tr, own); math.Abs(sc) > 1e-12 {
		t.Errorf("a trajectory's own returns score %g", sc)
	}
}

// TestPrivateReleaseWhateverTheStates: a release on the private file does not fail when some trajectory
// visits an observation the public state map puts outside [0, NumStates): the failure would be visible
// (a *session.ReleaseError, cause withheld or not) and would tell the neighbouring datasets apart with
// certainty. Such a state counts as the nearest valid one.
func TestPrivateReleaseWhateverTheStates(t *testing.T) {
	a := tinyAnalysis(t)
	if err := writeFiles(a, report.Discard, 60); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(a.Data)
	if err != nil {
		t.Fatal(err)
	}
	d, err := trajectory.ReadCSV(f, a.Actions)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	d.Trajectories[17].Steps[0].Obs[0] = float64(a.Setup.NumStates) // one past the last state
	if err := a.Setup.Validate(d); err == nil {
		t.Fatal("the altered file still validates")
	}
	if err := a.Write(report.Discard, d); err != nil {
		t.Fatal(err)
	}
	for _, m := range Methods {
		if err := a.Release(report.Discard, m, 0.5); err != nil {
			t.Errorf("%v on a file with a state outside the map: %v", m, err)
		}
	}
}
