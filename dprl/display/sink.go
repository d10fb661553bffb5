package display

import (
	"fmt"
	"html"
	"os"

	"gonum.org/v1/plot"

	"github.com/dprl-project/dprl/dprl/figure"
	"github.com/dprl-project/dprl/dprl/report"

	"github.com/janpfeifer/gonb/gonbui"
)

// A Display is where the reproductions and analyses of the project show their results.
var _ report.Sink = (*Display)(nil)

// Figure shows p at figure.DefaultSize (report.Sink's figure method).
func (d *Display) Figure(p *plot.Plot) error { return d.Plot(p, figure.DefaultSize) }

// Bar starts a progress bar (report.Sink's progress method).
func (d *Display) Bar(label string, total int) report.Bar { return d.NewProgress(label, total) }

// exit ends the cell's program; tests replace it.
var exit = os.Exit

// Check is how a notebook cell ends: a nil error does nothing; any other error is shown (in a notebook as a
// red block with the whole message, elsewhere on standard error) and the cell's program exits with status 1,
// so Jupyter marks the cell failed and a headless run reports it. Cells call Check instead of panicking.
// In a notebook Check first waits until GoNB has received everything the cell sent (gonbui.Sync): output
// still in the pipe when the cell's program exits can otherwise be lost.
func Check(err error) { Default.Check(err) }

// Check shows a non-nil err on d and exits with status 1; see the package-level Check.
func (d *Display) Check(err error) {
	if err == nil {
		if d.Notebook {
			gonbui.Sync()
		}
		return
	}
	if d.Notebook {
		gonbui.DisplayHtml(ErrorHTML(err))
		gonbui.Sync()
	} else {
		fmt.Fprintf(os.Stderr, "error: %v\n", err)
	}
	exit(1)
}

// ErrorHTML is the notebook's rendering of an error: the message, escaped, in a red block.
func ErrorHTML(err error) string {
	return `<div class="dprl-error" style="color:#a40000;background:#fff0f0;border-left:4px solid #a40000;padding:6px 10px;white-space:pre-wrap;font-family:monospace">` +
		"error: " + html.EscapeString(err.Error()) + "</div>"
}

// Show runs an analysis written against report.Sink on Default and ends the cell with Check: for a cell whose
// analysis takes nothing but the sink: display.Show(accounting.NoiseTable).
func Show(analysis func(out report.Sink) error) { Check(analysis(Default)) }
