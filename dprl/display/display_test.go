package display

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dprl-project/dprl/dprl/figure"

	"gonum.org/v1/plot/vg"
)

func terminal(t *testing.T) (*Display, *bytes.Buffer) {
	var out bytes.Buffer
	return &Display{Out: &out, Dir: filepath.Join(t.TempDir(), "figs")}, &out
}

func TestPlotOutsideNotebookWritesPNG(t *testing.T) {
	d, out := terminal(t)
	p, err := figure.Curves(figure.Options{Title: "Return vs episodes (ε = 1)"},
		figure.Series{Name: "a", X: []float64{0, 1, 2}, Y: [][]float64{{0, 1, 4}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Plot(p, figure.Size{Width: 8 * vg.Centimeter, Height: 5 * vg.Centimeter, DPI: 100}); err != nil {
		t.Fatal(err)
	}
	if err := d.Plot(p, figure.DefaultSize); err != nil {
		t.Fatal(err)
	}
	want := []string{"001-return-vs-episodes-1.png", "002-return-vs-episodes-1.png"}
	for i, name := range want {
		path := filepath.Join(d.Dir, name)
		if !strings.Contains(out.String(), "[figure written to "+path+"]") {
			t.Errorf("output %q does not announce %s", out.String(), path)
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if i == 0 && img.Bounds().Dx() != 315 { // 8 cm at 100 dpi
			t.Errorf("%s is %d px wide, want 315", name, img.Bounds().Dx())
		}
	}
}

func TestTableFormats(t *testing.T) {
	header := []string{"claim", "ε", "RMSE"}
	rows := [][]string{{"DP-LSW <beats> LSL & co", "0.1", "1.5e-3"}, {"short"}}
	gotHTML := TableHTML(header, rows)
	wantHTML := `<table class="dprl-table"><thead><tr><th>claim</th><th>ε</th><th>RMSE</th></tr></thead><tbody>` +
		`<tr><td>DP-LSW &lt;beats&gt; LSL &amp; co</td><td style="text-align:right">0.1</td><td style="text-align:right">1.5e-3</td></tr>` +
		`<tr><td>short</td></tr></tbody></table>`
	if gotHTML != wantHTML {
		t.Errorf("TableHTML:\n got %s\nwant %s", gotHTML, wantHTML)
	}
	d, out := terminal(t)
	d.Table(header, rows)
	wantText := "claim                    ε    RMSE\n" +
		"------------------------------------\n" +
		"DP-LSW <beats> LSL & co  0.1  1.5e-3\n" +
		"short\n"
	if out.String() != wantText {
		t.Errorf("text table:\n%q\nwant\n%q", out.String(), wantText)
	}
}

func TestMarkdownOutsideNotebook(t *testing.T) {
	d, out := terminal(t)
	d.Markdown("## Title\n\ntext\n\n")
	if out.String() != "## Title\n\ntext\n" {
		t.Errorf("got %q", out.String())
	}
}

func TestProgressText(t *testing.T) {
	cases := []struct {
		done, total int
		elapsed     time.Duration
		finished    bool
		want        string
	}{
		{0, 120, 0, false, "trials 0/120 (0%) · 0.00 s elapsed"},
		{30, 120, 2 * time.Second, false, "trials 30/120 (25%) · 2.0 s elapsed · ETA 6.0 s"},
		{120, 120, 185 * time.Second, true, "trials 120/120 · done in 3m05s"},
		{7, 0, 2 * time.Hour, false, "trials 7 · 2h00m elapsed"},
	}
	for _, c := range cases {
		if got := ProgressText("trials", c.done, c.total, c.elapsed, c.finished); got != c.want {
			t.Errorf("ProgressText(%d, %d, %v, %v) = %q, want %q", c.done, c.total, c.elapsed, c.finished, got, c.want)
		}
	}
	got := ProgressHTML("a<b", 5, 10, time.Second, false)
	want := `<div class="dprl-progress"><progress value="5" max="10" style="width:24em;vertical-align:middle"></progress> ` +
		`<code>a&lt;b 5/10 (50%) · 1.0 s elapsed · ETA 1.0 s</code></div>`
	if got != want {
		t.Errorf("ProgressHTML:\n got %s\nwant %s", got, want)
	}
	if got := ProgressHTML("", 3, 0, 0, false); !strings.Contains(got, `<progress style=`) || strings.Contains(got, "max=") {
		t.Errorf("unknown total should give an indeterminate bar: %s", got)
	}
}

// fakeClock advances only when told to.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

func TestProgressThrottlesAndKeepsFinalLine(t *testing.T) {
	d, out := terminal(t) // a bytes.Buffer is not a terminal: plain lines every LogInterval
	clk := &fakeClock{t: time.Unix(0, 0)}
	p := d.newProgress("run", 4, clk.now)
	p.Add(1) // within the interval: not drawn
	clk.t = clk.t.Add(LogInterval)
	p.Add(1) // drawn
	clk.t = clk.t.Add(time.Second)
	p.Add(2) // not drawn
	if el := p.Done(); el != LogInterval+time.Second {
		t.Errorf("Done returned %v", el)
	}
	p.Add(5) // after Done: ignored
	p.Done()
	want := "run 0/4 (0%) · 0.00 s elapsed\n" +
		"run 2/4 (50%) · 10.0 s elapsed · ETA 10.0 s\n" +
		"run 4/4 · done in 11.0 s\n"
	if out.String() != want {
		t.Errorf("progress output:\n%q\nwant\n%q", out.String(), want)
	}
}

func TestProgressConcurrentAdds(t *testing.T) {
	d, _ := terminal(t)
	p := d.NewProgress("", 800)
	done := make(chan bool)
	for range 8 {
		go func() {
			for range 100 {
				p.Add(1)
			}
			done <- true
		}()
	}
	for range 8 {
		<-done
	}
	p.Done()
	if p.done != 800 {
		t.Errorf("counted %d, want 800", p.done)
	}
}

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{
		"":                              "figure",
		"Fig. 1(a): RMSE vs batch size": "fig-1-a-rmse-vs-batch-size",
		"ε ≥ 1 !!":                      "1",
		strings.Repeat("ab ", 30):       "ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-a",
	} {
		if got := slug(in); got != want {
			t.Errorf("slug(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestProgressBarNegativeCount: a negative count made strings.Repeat panic in the text bar.
func TestProgressBarNegativeCount(t *testing.T) {
	if got := textBar(-5, 10, 4); got != "[....]" {
		t.Errorf("textBar(-5, 10, 4) = %q", got)
	}
	if err := (&Display{}).PNG(nil, "x"); err == nil {
		t.Error("an empty PNG was accepted")
	}
	if err := (&Display{}).Plot(nil, figure.DefaultSize); err == nil {
		t.Error("a nil plot was accepted")
	}
}
