package display

import (
	"fmt"
	"html"
	"math"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/dprl-project/dprl/dprl/report"
	"github.com/janpfeifer/gonb/gonbui"
)

// Progress is a live progress bar. It is safe for concurrent use: parallel workers may call Add.
//
// In a notebook it is an HTML <progress> element updated in place (at most every NotebookInterval); Done
// leaves the final line in the saved notebook. On a terminal it redraws one line with a carriage return;
// writing to anything else (a log, a pipe) it prints a plain line at most every LogInterval.
type Progress struct {
	d      *Display
	label  string
	total  int
	id     string // notebook display id
	tty    bool
	now    func() time.Time
	start  time.Time
	mu     sync.Mutex
	done   int
	last   time.Time // last time the bar was drawn
	closed bool
}

// Update intervals of a Progress.
const (
	NotebookInterval = 250 * time.Millisecond
	TerminalInterval = 100 * time.Millisecond
	LogInterval      = 10 * time.Second
)

// NewProgress starts a progress bar over total units of work (total ≤ 0 means unknown) and draws it.
func (d *Display) NewProgress(label string, total int) *Progress {
	return d.newProgress(label, total, time.Now)
}

func (d *Display) newProgress(label string, total int, now func() time.Time) *Progress {
	p := &Progress{d: d, label: label, total: total, now: now}
	p.start = now()
	if d.Notebook {
		p.id = "dprl-progress-" + gonbui.UniqueId()
	} else if f, ok := d.Out.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			p.tty = true
		}
	}
	p.mu.Lock()
	p.draw(true)
	p.mu.Unlock()
	return p
}

// Add records n more units of finished work and redraws the bar if its update interval has passed.
func (p *Progress) Add(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	p.done += n
	p.draw(false)
}

// Done marks the work finished, draws the final line (kept in the saved notebook) and returns the elapsed
// time. Later calls to Add and Done do nothing.
func (p *Progress) Done() time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	elapsed := p.now().Sub(p.start)
	if p.closed {
		return elapsed
	}
	p.closed = true
	final := ProgressText(p.label, p.done, p.total, elapsed, true)
	switch {
	case p.d.Notebook:
		gonbui.UpdateHtml(p.id, ProgressHTML(p.label, p.done, p.total, elapsed, true))
	case p.tty:
		fmt.Fprintf(p.d.Out, "\r\033[K%s\n", final)
	default:
		fmt.Fprintln(p.d.Out, final)
	}
	return elapsed
}

// draw redraws the bar when forced or when its update interval has passed. p.mu must be held.
func (p *Progress) draw(force bool) {
	now := p.now()
	interval := LogInterval
	switch {
	case p.d.Notebook:
		interval = NotebookInterval
	case p.tty:
		interval = TerminalInterval
	}
	if !force && now.Sub(p.last) < interval {
		return
	}
	p.last = now
	elapsed := now.Sub(p.start)
	switch {
	case p.d.Notebook:
		gonbui.UpdateHtml(p.id, ProgressHTML(p.label, p.done, p.total, elapsed, false))
	case p.tty:
		fmt.Fprintf(p.d.Out, "\r\033[K%s %s", textBar(p.done, p.total, 30), ProgressText(p.label, p.done, p.total, elapsed, false))
	default:
		fmt.Fprintln(p.d.Out, ProgressText(p.label, p.done, p.total, elapsed, false))
	}
}

// ProgressText is the one-line status of a progress bar: "label 30/120 (25%) · 2.0 s elapsed · ETA 6.0 s"
// while running and "label 120/120 · done in 8.1 s" when finished. The ETA assumes a constant rate and is
// left out until some work is done or when the total is unknown (≤ 0).
func ProgressText(label string, done, total int, elapsed time.Duration, finished bool) string {
	var b strings.Builder
	if label != "" {
		b.WriteString(label + " ")
	}
	if total > 0 {
		fmt.Fprintf(&b, "%d/%d", done, total)
	} else {
		fmt.Fprintf(&b, "%d", done)
	}
	if finished {
		fmt.Fprintf(&b, " · done in %s", report.FormatDuration(elapsed))
		return b.String()
	}
	if total > 0 {
		fmt.Fprintf(&b, " (%.0f%%)", 100*float64(done)/float64(total))
	}
	fmt.Fprintf(&b, " · %s elapsed", report.FormatDuration(elapsed))
	if total > 0 && done > 0 && done < total {
		eta := time.Duration(float64(elapsed) * float64(total-done) / float64(done))
		fmt.Fprintf(&b, " · ETA %s", report.FormatDuration(eta))
	}
	return b.String()
}

// ProgressHTML is the notebook rendering of a progress bar: a <progress> element and the ProgressText line.
// An unknown total (≤ 0) gives an indeterminate bar.
func ProgressHTML(label string, done, total int, elapsed time.Duration, finished bool) string {
	bar := `<progress style="width:24em;vertical-align:middle"></progress>`
	if total > 0 {
		bar = fmt.Sprintf(`<progress value="%d" max="%d" style="width:24em;vertical-align:middle"></progress>`, min(done, total), total)
	}
	return fmt.Sprintf(`<div class="dprl-progress">%s <code>%s</code></div>`, bar,
		html.EscapeString(ProgressText(label, done, total, elapsed, finished)))
}

// textBar draws [#####.....] of the given width.
func textBar(done, total, width int) string {
	if total <= 0 {
		return "[" + strings.Repeat("?", width) + "]"
	}
	k := int(math.Round(float64(width) * float64(max(min(done, total), 0)) / float64(total))) // a negative count draws empty
	return "[" + strings.Repeat("#", k) + strings.Repeat(".", width-k) + "]"
}
