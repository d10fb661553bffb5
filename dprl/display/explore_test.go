package display

import (
	"regexp"
	"strings"
	"testing"
)

func testExplorer() *Explorer {
	return &Explorer{
		Title:    "t <b>",
		Controls: []Control{Slider("ε", []float64{0.1, 0.3, 1}, 0.3), Select("estimator", []string{"A", "B & C"}, 0)},
	}
}

func TestExplorerStateAppliesNewestMessage(t *testing.T) {
	e := testExplorer()
	pos := []int{1, 0}
	s := newExplorerState(e, pos)
	if !s.changed() {
		t.Fatal("nothing drawn yet, but changed() is false")
	}
	if g := s.drew(); g != 1 || s.changed() {
		t.Fatalf("first drawing: generation %d, changed %v", g, s.changed())
	}
	// GoNB may deliver a drag's messages out of order: the newest counts, older ones are dropped.
	if s.take("3 0 2 1") || s.take("2 0 1 1") {
		t.Error("a message without Done reported Done")
	}
	if want := []int{2, 1}; pos[0] != want[0] || pos[1] != want[1] {
		t.Errorf("positions %v after messages 3 then 2, want %v (message 3's)", pos, want)
	}
	if !s.changed() {
		t.Error("positions moved but changed() is false")
	}
	if g := s.drew(); g != 2 {
		t.Errorf("second drawing: generation %d", g)
	}
	// The same state again (a slider's change event after its input events) asks for no new drawing.
	s.take("4 0 2 1")
	if s.changed() {
		t.Error("the same positions again count as a change")
	}
	for _, bad := range []string{"", "5 0 2", "5 0 2 1 0", "5 0 3 1", "5 0 -1 1", "5 0 2 2", "x 0 2 1", "5 0 1.5 1"} {
		if s.take(bad) || pos[0] != 2 || pos[1] != 1 || s.seq != 4 {
			t.Errorf("message %q was applied: positions %v, seq %d", bad, pos, s.seq)
		}
	}
	if !s.take("6 1 0 0") || pos[0] != 0 || pos[1] != 0 {
		t.Errorf("Done with new positions: positions %v", pos)
	}
}

func TestExplorerMarkup(t *testing.T) {
	e := testExplorer()
	c := e.controlsHTML("7", []int{2, 1})
	for _, want := range []string{
		`id="dprl-explorer-7" data-dprl-explorer="7"`, "t &lt;b&gt;",
		`<input type="range" class="dprl-control" id="dprl-ctl-7-0" min="0" max="2" step="1" value="2"/>`,
		`<option value="0">A</option><option value="1" selected>B &amp; C</option>`, `class="dprl-done">Done</button>`,
	} {
		if !strings.Contains(c, want) {
			t.Errorf("controls markup lacks %q:\n%s", want, c)
		}
	}
	if n := strings.Count(c, `class="dprl-control"`); n != 2 {
		t.Errorf("%d controls in the markup, want 2", n)
	}
	f := e.figureHTML("7", 3, []int{2, 1}, "<img/>")
	if !regexp.MustCompile(`^<div class="dprl-explorer-figure" data-dprl-explorer="7" data-dprl-generation="3" data-dprl-state="2 1">` +
		`<div class="dprl-caption"[^>]*>ε = 1, estimator = B &amp; C</div><img/></div>$`).MatchString(f) {
		t.Errorf("figure markup %s", f)
	}
	closed := e.closedHTML("7", "closed at x")
	if !strings.Contains(closed, `class="dprl-explorer dprl-explorer-closed" data-dprl-explorer="7"`) || strings.Contains(closed, "dprl-control") {
		t.Errorf("closed markup %s", closed)
	}
	js := explorerJS("7", "/dprl/explorer/7")
	for _, want := range []string{`getElementById("dprl-explorer-7")`, `comm.send("/dprl/explorer/7"`, `".dprl-control"`, `".dprl-done"`} {
		if !strings.Contains(js, want) {
			t.Errorf("script lacks %q:\n%s", want, js)
		}
	}
}
