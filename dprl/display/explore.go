package display

import (
	"fmt"
	"html"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/dprl-project/dprl/dprl/figure"

	"github.com/janpfeifer/gonb/gonbui"
	"github.com/janpfeifer/gonb/gonbui/widgets"
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

// Explore shows the explorer's controls (GoNB sliders and drop-down lists) above its figure and redraws the
// figure for every change until the reader presses "Done" (or Idle passes); the cell keeps running meanwhile.
// Headless (HeadlessEnv set, or no browser answers within a few seconds) and outside a notebook it draws the
// default state once, as Plot would, and returns.
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

	// The layout: one row per control, a Done button, then the figure (updated in place).
	id := gonbui.UniqueId()
	var b strings.Builder
	fmt.Fprintf(&b, `<div class="dprl-explorer" id="dprl-explorer-%s" style="font-family:sans-serif">`, id)
	fmt.Fprintf(&b, `<div style="font-weight:bold;margin-bottom:4px">%s</div>`, html.EscapeString(e.Title))
	for i, c := range e.Controls {
		fmt.Fprintf(&b, `<div style="display:flex;gap:8px;align-items:center;margin:2px 0">`+
			`<label style="min-width:9em">%s</label><span class="dprl-control" id="dprl-ctl-%s-%d"></span></div>`,
			html.EscapeString(c.Label), id, i)
	}
	fmt.Fprintf(&b, `<div id="dprl-done-%s" style="margin:4px 0"></div></div>`, id)
	gonbui.DisplayHtml(b.String())

	// Widgets wait for the browser's first message in Done(); without a browser that never comes.
	type update struct{ control, pos int }
	updates := make(chan update, 64)
	ready := make(chan *widgets.ButtonBuilder, 1)
	go func() {
		for i, c := range e.Controls {
			parent := fmt.Sprintf("dprl-ctl-%s-%d", id, i)
			var ch <-chan int
			if c.Options != nil {
				w := widgets.Select(c.Options).SetDefault(c.Default).AppendTo(parent).Done()
				ch = w.Listen().C
			} else {
				w := widgets.Slider(0, len(c.Values)-1, c.Default).AppendTo(parent).Done()
				ch = w.Listen().C
			}
			go func(i int, ch <-chan int) {
				for v := range ch {
					updates <- update{i, v}
				}
			}(i, ch)
		}
		ready <- widgets.Button("Done").AppendTo("dprl-done-" + id).Done()
	}()
	var done *widgets.ButtonBuilder
	select {
	case done = <-ready:
	case <-time.After(8 * time.Second):
		return static("; no browser answered: default settings")
	}
	clicks := done.Listen().C

	figID := "dprl-fig-" + id
	var mu sync.Mutex
	redraw := func() {
		mu.Lock()
		defer mu.Unlock()
		png, err := drawPNG()
		if err != nil {
			gonbui.UpdateHtml(figID, fmt.Sprintf(`<pre style="color:#D55E00">%s: %s</pre>`, html.EscapeString(e.caption(pos)), html.EscapeString(err.Error())))
			return
		}
		gonbui.UpdateHtml(figID, fmt.Sprintf(`<div class="dprl-explorer-figure"><div class="dprl-caption" style="font-family:sans-serif;font-size:90%%">%s</div>`+
			`%s</div>`, html.EscapeString(e.caption(pos)), ImageHTML(png, e.Title, size.CSSWidth())))
	}
	redraw()
	idle := e.Idle
	if idle <= 0 {
		idle = 30 * time.Minute
	}
	timer := time.NewTimer(idle)
	for {
		select {
		case u := <-updates:
			if u.pos < 0 || u.pos >= e.Controls[u.control].size() {
				continue
			}
			pos[u.control] = u.pos
			// Take every change queued meanwhile, then draw once.
		drain:
			for {
				select {
				case u := <-updates:
					if u.pos >= 0 && u.pos < e.Controls[u.control].size() {
						pos[u.control] = u.pos
					}
				case <-time.After(60 * time.Millisecond):
					break drain
				}
			}
			redraw()
			timer.Reset(idle)
		case <-clicks:
			gonbui.DisplayMarkdown(fmt.Sprintf("Explorer closed at %s (run the cell again to explore).", e.caption(pos)))
			return nil
		case <-timer.C:
			gonbui.DisplayMarkdown(fmt.Sprintf("Explorer closed after %s without a change, at %s.", idle, e.caption(pos)))
			return nil
		}
	}
}
