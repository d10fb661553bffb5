package report

import (
	"sync"
	"time"

	"github.com/dprl-project/dprl/dprl/param"
	"gonum.org/v1/plot"
)

// Sink receives what an analysis shows, in order. *display.Display implements it.
type Sink interface {
	// Markdown shows Markdown text.
	Markdown(md string)
	// Table shows rows under a header row.
	Table(header []string, rows [][]string)
	// Figure shows a plot at the house size.
	Figure(p *plot.Plot) error
	// Bar starts a progress bar over total units of work.
	Bar(label string, total int) Bar
	// Claims records rows of the claims table (a row replaces an earlier one of the same Key). A notebook's
	// display keeps them for the table at the end of the notebook.
	Claims(rows ...Claim)
}

// Bar is a progress bar: Add reports finished units, Done closes it and returns the time it was open.
type Bar interface {
	Add(n int)
	Done() time.Duration
}

// Item is one thing a Recorder received: exactly one of Markdown, Header/Rows, Plot or Claims is set.
type Item struct {
	Markdown string
	Header   []string
	Rows     [][]string
	Plot     *plot.Plot
	Claims   []Claim
}

// Recorder is a Sink that keeps everything it is given, for tests and for callers that lay out the
// results themselves. Its bars count units (Units) and do nothing else; they may be added to from several
// goroutines at once (Trials and the auditor do), so read Units after the bars are done.
type Recorder struct {
	Items []Item
	Units int // units added to every bar

	mu sync.Mutex
}

// Markdown records md.
func (r *Recorder) Markdown(md string) { r.Items = append(r.Items, Item{Markdown: md}) }

// Markdowns returns the Markdown items recorded, in order.
func (r *Recorder) Markdowns() []string {
	var out []string
	for _, it := range r.Items {
		if it.Markdown != "" {
			out = append(out, it.Markdown)
		}
	}
	return out
}

// Table records a table.
func (r *Recorder) Table(header []string, rows [][]string) {
	r.Items = append(r.Items, Item{Header: header, Rows: rows})
}

// Figure records p; a nil plot is an error.
func (r *Recorder) Figure(p *plot.Plot) error {
	if p == nil {
		return check.Missing("p", "a plot to record")
	}
	r.Items = append(r.Items, Item{Plot: p})
	return nil
}

// Claims records claims rows.
func (r *Recorder) Claims(rows ...Claim) {
	r.Items = append(r.Items, Item{Claims: append([]Claim(nil), rows...)})
}

// ClaimRows returns every claims row recorded, a later row replacing an earlier one of the same Key
// (MergeClaims): the table the rows make.
func (r *Recorder) ClaimRows() []Claim {
	var out []Claim
	for _, it := range r.Items {
		out = MergeClaims(out, it.Claims...)
	}
	return out
}

// Bar returns a bar that adds its units to r.Units.
func (r *Recorder) Bar(string, int) Bar { return &countBar{r: r} }

// Figures is the number of plots recorded; Tables the number of tables.
func (r *Recorder) Figures() int { return r.count(func(it Item) bool { return it.Plot != nil }) }

// Tables is the number of tables recorded.
func (r *Recorder) Tables() int {
	return r.count(func(it Item) bool { return it.Header != nil || it.Rows != nil })
}

func (r *Recorder) count(keep func(Item) bool) int {
	n := 0
	for _, it := range r.Items {
		if keep(it) {
			n++
		}
	}
	return n
}

type countBar struct{ r *Recorder }

func (b *countBar) Add(n int) {
	b.r.mu.Lock()
	b.r.Units += n
	b.r.mu.Unlock()
}
func (b *countBar) Done() time.Duration { return 0 }

// Discard is a Sink that shows nothing (a batch job's).
var Discard Sink = discard{}

type discard struct{}

func (discard) Markdown(string)            {}
func (discard) Table([]string, [][]string) {}
func (discard) Figure(*plot.Plot) error    { return nil }
func (discard) Bar(string, int) Bar        { return nopBar{} }
func (discard) Claims(...Claim)            {}

type nopBar struct{}

func (nopBar) Add(int)             {}
func (nopBar) Done() time.Duration { return 0 }

// check rejects values on behalf of this package.
const check param.Checker = "report"
