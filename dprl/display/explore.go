package display

import (
	"fmt"
	"html"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dprl-project/dprl/dprl/figure"

	"github.com/janpfeifer/gonb/gonbui"
	"github.com/janpfeifer/gonb/gonbui/comms"
	"github.com/janpfeifer/gonb/gonbui/dom"
	"gonum.org/v1/plot"
)

// HeadlessEnv names the environment variable that says no browser is attached to the kernel (kernels/nbrun
// sets it for headless runs). Explorers then draw their default state at once instead of offering widgets.
const HeadlessEnv = "DPRL_HEADLESS"

// Control is one input of an explorer: a slider over Values (with Options nil) or a drop-down list over
// Options (the value passed on is then the index of the chosen option).
type Control struct {
	Label   string    // shown before the control, e.g. "ε"
	Values  []float64 // a slider's positions, in order
	Options []string  // a drop-down list's entries
	Default int       // the initial position or entry
}

// Slider is a Control over the given values, starting at the value nearest def.
func Slider(label string, values []float64, def float64) Control {
	best := 0
	for i, v := range values {
		if abs(v-def) < abs(values[best]-def) {
			best = i
		}
	}
	return Control{Label: label, Values: values, Default: best}
}

// Select is a drop-down Control over options, starting at entry def.
func Select(label string, options []string, def int) Control {
	return Control{Label: label, Options: options, Default: def}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// value is control c's value at position i.
func (c Control) value(i int) float64 {
	if c.Options != nil {
		return float64(i)
	}
	return c.Values[i]
}

func (c Control) size() int {
	if c.Options != nil {
		return len(c.Options)
	}
	return len(c.Values)
}

func (c Control) text(i int) string {
	if c.Options != nil {
		return c.Options[i]
	}
	return fmt.Sprintf("%g", c.Values[i])
}

// Explorer redraws a figure live as the reader moves its controls.
type Explorer struct {
	Title    string
	Controls []Control
	// Draw makes the figure for one value per control (in the order of Controls).
	Draw func(values []float64) (*plot.Plot, error)
	// Size of the figure; figure.DefaultSize when zero.
	Size figure.Size
	// Idle ends the interaction after this long without a change (30 minutes when zero), so "Run all"
	// never waits forever for a reader who left.
	Idle time.Duration
}

// validate checks the controls before anything is shown.
func (e *Explorer) validate() error {
	if e.Draw == nil {
		return check.Missing("Draw", fmt.Sprintf("a function drawing explorer %q", e.Title))
	}
	for i, c := range e.Controls {
		if c.size() == 0 {
			return check.Missing(fmt.Sprintf("Controls[%d]", i), fmt.Sprintf("values or options for control %q", c.Label))
		}
		if err := check.Int(fmt.Sprintf("Controls[%d].Default", i), c.Default, 0, c.size()-1); err != nil {
			return err
		}
	}
	return nil
}

func (e *Explorer) values(pos []int) []float64 {
	v := make([]float64, len(pos))
	for i, p := range pos {
		v[i] = e.Controls[i].value(p)
	}
	return v
}

// caption lists the controls' current settings.
func (e *Explorer) caption(pos []int) string {
	parts := make([]string, len(pos))
	for i, p := range pos {
		parts[i] = e.Controls[i].Label + " = " + e.Controls[i].text(p)
	}
	return strings.Join(parts, ", ")
}

// Explore shows e with Default. See Display.Explore.
func Explore(e *Explorer) error { return Default.Explore(e) }

// Explore shows the explorer's controls (HTML sliders and drop-down lists that report to the kernel through
// GoNB's comms) above its figure and redraws the figure for every change until the reader presses "Done"
// (or Idle passes); the cell keeps running meanwhile. Headless (HeadlessEnv set, or no browser answers within
// a minute) and outside a notebook it draws the default state once, as Plot would, and returns.
func (d *Display) Explore(e *Explorer) error {
	if err := e.validate(); err != nil {
		return err
	}
	size := e.Size
	if size == (figure.Size{}) {
		size = figure.DefaultSize
	}
	pos := make([]int, len(e.Controls))
	for i, c := range e.Controls {
		pos[i] = c.Default
	}
	drawPNG := func() ([]byte, error) {
		p, err := e.Draw(e.values(pos))
		if err != nil {
			return nil, err
		}
		return figure.PNG(p, size)
	}
	static := func(note string) error {
		png, err := drawPNG()
		if err != nil {
			return err
		}
		d.Markdown(fmt.Sprintf("**%s** (%s%s)", e.Title, e.caption(pos), note))
		return d.png(png, e.Title, size.CSSWidth())
	}
	if !d.Notebook || os.Getenv(HeadlessEnv) != "" {
		return static("; default settings: run in JupyterLab to explore")
	}

	id := gonbui.UniqueId()
	addr := "/dprl/explorer/" + id
	// Never closed: GoNB v0.11.5 keeps its subscriptions' lock when a message comes for an address nobody
	// listens on any more. The cell's program ends soon after Explore.
	states := comms.Listen[string](addr) // subscribing first makes GoNB install its connection in the page
	ctlID, figID := "dprl-explorer-"+id, "dprl-fig-"+id
	gonbui.UpdateHtml(ctlID, e.controlsHTML(id, pos))
	dom.TransientJavascript(explorerJS(id, addr))

	// The script's first message says a browser shows the controls. GoNB's connection in the page can fail
	// to open on a busy machine (its script gives the kernel half a second to acknowledge): while no message
	// comes, ask GoNB to check its connection (it installs a new one when the old one does not answer) and
	// run the script again. Without a browser nothing ever comes.
	var msg string
	deadline := time.After(browserWait)
	retry := time.NewTicker(browserRetry)
	defer retry.Stop()
handshake:
	for {
		select {
		case msg = <-states.C:
			break handshake
		case <-retry.C:
			comms.Start()
			dom.TransientJavascript(explorerJS(id, addr))
		case <-deadline:
			gonbui.UpdateHtml(ctlID, "")
			return static("; no browser answered: default settings")
		}
	}
	st := newExplorerState(e, pos)
	redraw := func() {
		if !st.changed() {
			return // same state: the figure in the page stays (the browser test waits on it)
		}
		gen := st.drew()
		body := ""
		if png, err := drawPNG(); err != nil {
			body = fmt.Sprintf(`<pre class="dprl-explorer-error" style="color:#D55E00">%s</pre>`, html.EscapeString(err.Error()))
		} else {
			body = ImageHTML(png, e.Title, size.CSSWidth())
		}
		gonbui.UpdateHtml(figID, e.figureHTML(id, gen, pos, body))
	}
	done := st.take(msg)
	redraw()
	idle := e.Idle
	if idle <= 0 {
		idle = 30 * time.Minute
	}
	timer := time.NewTimer(idle)
	defer timer.Stop()
	for !done {
		select {
		case msg := <-states.C:
			done = st.take(msg)
			// Take every message queued meanwhile, then draw once.
		drain:
			for !done {
				select {
				case msg := <-states.C:
					done = st.take(msg)
				case <-time.After(60 * time.Millisecond):
					break drain
				}
			}
			redraw()
			timer.Reset(idle)
		case <-timer.C:
			gonbui.UpdateHtml(ctlID, e.closedHTML(id, fmt.Sprintf("closed after %s without a change, at %s", idle, e.caption(pos))))
			return nil
		}
	}
	gonbui.UpdateHtml(ctlID, e.closedHTML(id, fmt.Sprintf("closed at %s (run the cell again to explore)", e.caption(pos))))
	return nil
}

// Explore waits up to browserWait for the browser's first message before it draws the default state (a
// notebook run without a browser and without HeadlessEnv), and runs its script again every browserRetry
// meanwhile.
const (
	browserWait  = 60 * time.Second
	browserRetry = 5 * time.Second
)

// The explorer's markup carries its state for scripts and tests: the root (class dprl-explorer) and the
// figure (class dprl-explorer-figure) both have data-dprl-explorer set to the explorer's id. Each control
// (class dprl-control) has as value its position (an index into Values or Options). The figure has
// data-dprl-state, the positions it was drawn for, space-separated in the order of Controls, and
// data-dprl-generation, which counts the drawings; it is replaced only when the state changes. When the
// explorer ends, the root is replaced by one with class dprl-explorer-closed and no controls.

// controlsHTML is the title, one row per control at positions pos, and the Done button.
func (e *Explorer) controlsHTML(id string, pos []int) string {
	var b strings.Builder
	fmt.Fprintf(&b, `<div class="dprl-explorer" id="dprl-explorer-%s" data-dprl-explorer="%s" style="font-family:sans-serif">`, id, id)
	fmt.Fprintf(&b, `<div style="font-weight:bold;margin-bottom:4px">%s</div>`, html.EscapeString(e.Title))
	for i, c := range e.Controls {
		ctl := fmt.Sprintf("dprl-ctl-%s-%d", id, i)
		fmt.Fprintf(&b, `<div style="display:flex;gap:8px;align-items:center;margin:2px 0"><label for="%s" style="min-width:9em">%s</label>`,
			ctl, html.EscapeString(c.Label))
		if c.Options != nil {
			fmt.Fprintf(&b, `<select class="dprl-control" id="%s">`, ctl)
			for j, o := range c.Options {
				sel := ""
				if j == pos[i] {
					sel = " selected"
				}
				fmt.Fprintf(&b, `<option value="%d"%s>%s</option>`, j, sel, html.EscapeString(o))
			}
			b.WriteString(`</select></div>`)
		} else {
			fmt.Fprintf(&b, `<input type="range" class="dprl-control" id="%s" min="0" max="%d" step="1" value="%d"/></div>`,
				ctl, len(c.Values)-1, pos[i])
		}
	}
	b.WriteString(`<div style="margin:4px 0"><button type="button" class="dprl-done">Done</button></div></div>`)
	return b.String()
}

// closedHTML replaces the controls when the explorer ends.
func (e *Explorer) closedHTML(id, note string) string {
	return fmt.Sprintf(`<div class="dprl-explorer dprl-explorer-closed" data-dprl-explorer="%s" style="font-family:sans-serif">`+
		`<div style="font-weight:bold;margin-bottom:4px">%s</div><div>Explorer %s.</div></div>`,
		id, html.EscapeString(e.Title), html.EscapeString(note))
}

// figureHTML is the caption of positions pos above body (the figure, or the error drawing it).
func (e *Explorer) figureHTML(id string, gen int, pos []int, body string) string {
	return fmt.Sprintf(`<div class="dprl-explorer-figure" data-dprl-explorer="%s" data-dprl-generation="%d" data-dprl-state="%s">`+
		`<div class="dprl-caption" style="font-family:sans-serif;font-size:90%%">%s</div>%s</div>`,
		id, gen, formatPositions(pos), html.EscapeString(e.caption(pos)), body)
}

func formatPositions(pos []int) string {
	parts := make([]string, len(pos))
	for i, p := range pos {
		parts[i] = strconv.Itoa(p)
	}
	return strings.Join(parts, " ")
}

// explorerJS sends the explorer's state to address addr: at once (so Explore knows a browser is there), on
// every change of a control, and with Done (which also disables the controls). A message is
// "SEQ DONE P0 P1 ...": a number that grows with each message, 1 after Done (else 0), and each control's
// position. Run again (Explore's retries), it binds nothing twice and only sends the state again, through
// GoNB's connection of the moment.
func explorerJS(id, addr string) string {
	return fmt.Sprintf(`(() => {
  const root = document.getElementById(%q);
  if (!root) { console.error("dprl explorer %s: no controls in the page"); return; }
  if (!root.dprlSend) {
    const controls = Array.from(root.querySelectorAll(".dprl-control")), done = root.querySelector(".dprl-done");
    let seq = 0;
    root.dprlSend = (end) => {
      const comm = globalThis.gonb_comm;
      if (!comm) { console.error("dprl explorer %s: no GoNB connection in the page"); return; }
      comm.send(%q, [++seq, end ? 1 : 0, ...controls.map(c => c.value)].join(" "));
    };
    for (const c of controls) for (const ev of ["input", "change"]) c.addEventListener(ev, () => root.dprlSend(false));
    done.addEventListener("click", () => { for (const c of [...controls, done]) c.disabled = true; root.dprlSend(true); });
  }
  root.dprlSend(false);
})();`, "dprl-explorer-"+id, id, id, addr)
}

// explorerState follows the browser's messages (see explorerJS) and what was drawn.
type explorerState struct {
	e     *Explorer
	seq   int   // the newest message applied
	pos   []int // the controls' positions (Explore draws from the same slice)
	drawn []int // the positions of the figure on the page; nil before the first drawing
	gen   int   // drawings so far
}

func newExplorerState(e *Explorer, pos []int) *explorerState {
	return &explorerState{e: e, seq: -1, pos: pos}
}

// take applies one message and says whether it reports Done. A message that does not parse, holds a
// position out of range, or is older than one applied (GoNB may deliver messages out of order; each carries
// every control's position) is ignored.
func (s *explorerState) take(msg string) (done bool) {
	f := strings.Fields(msg)
	if len(f) != 2+len(s.pos) {
		return false
	}
	n := make([]int, len(f))
	for i, v := range f {
		x, err := strconv.Atoi(v)
		if err != nil {
			return false
		}
		n[i] = x
	}
	if n[0] <= s.seq {
		return false
	}
	for i, p := range n[2:] {
		if p < 0 || p >= s.e.Controls[i].size() {
			return false
		}
	}
	s.seq = n[0]
	copy(s.pos, n[2:])
	return n[1] == 1
}

// changed says whether the positions differ from the figure's.
func (s *explorerState) changed() bool { return s.drawn == nil || !slices.Equal(s.pos, s.drawn) }

// drew records a drawing at the current positions and returns its generation (1 for the first).
func (s *explorerState) drew() int {
	s.drawn = slices.Clone(s.pos)
	s.gen++
	return s.gen
}
