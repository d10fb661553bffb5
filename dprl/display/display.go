package display

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"html"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/dprl-project/dprl/dprl/figure"
	"github.com/dprl-project/dprl/dprl/param"
	"github.com/dprl-project/dprl/dprl/report"

	"github.com/janpfeifer/gonb/gonbui"
	"github.com/janpfeifer/gonb/gonbui/protocol"
	"gonum.org/v1/plot"
)

// Display is a destination for figures, tables and text.
type Display struct {
	// Notebook selects the GoNB front end. When false, output goes to Out and Dir.
	Notebook bool
	// Out receives text output outside a notebook.
	Out io.Writer
	// Dir receives PNG files outside a notebook; it is created when needed.
	Dir string
	// ClaimsFile keeps the claims rows Claims records, for ShowClaims in a later cell (GoNB runs every cell
	// as a program of its own); empty: they are kept in the Display, for one program.
	ClaimsFile string

	mu      sync.Mutex
	figures int
	claims  []report.Claim
}

// Default is the display the package-level functions use: the notebook when running under GoNB, otherwise
// standard output with figures written to $DPRL_FIGURE_DIR (default: dprl-figures in the working directory).
// In a notebook it keeps claims rows in the kernel's own folder ($GONB_TMP_DIR), so the last cell can show
// every row the cells before it recorded.
var Default = &Display{
	Notebook:   gonbui.IsNotebook,
	Out:        os.Stdout,
	Dir:        defaultDir(),
	ClaimsFile: defaultClaimsFile(),
}

func defaultDir() string {
	if d := os.Getenv("DPRL_FIGURE_DIR"); d != "" {
		return d
	}
	return "dprl-figures"
}

// Plot shows p at figure.DefaultSize.
func Plot(p *plot.Plot) error { return Default.Plot(p, figure.DefaultSize) }

// PlotSize shows p at the given size and resolution.
func PlotSize(p *plot.Plot, s figure.Size) error { return Default.Plot(p, s) }

// Table shows rows under a header row.
func Table(header []string, rows [][]string) { Default.Table(header, rows) }

// Markdown shows Markdown text.
func Markdown(md string) { Default.Markdown(md) }

// NewProgress starts a progress bar over total units of work.
func NewProgress(label string, total int) *Progress { return Default.NewProgress(label, total) }

// Plot renders p as PNG at size s and shows it inline, or writes it to a file in d.Dir named after the
// plot's title and prints the path.
func (d *Display) Plot(p *plot.Plot, s figure.Size) error {
	if p == nil {
		return check.Missing("p", "a plot to show")
	}
	png, err := figure.PNG(p, s)
	if err != nil {
		return err
	}
	return d.png(png, p.Title.Text, s.CSSWidth())
}

// PNG shows encoded PNG bytes inline, or writes them to d.Dir as NNN-name.png and prints the path.
func (d *Display) PNG(png []byte, name string) error { return d.png(png, name, 0) }

// png shows a PNG; a positive width (CSS pixels) is sent as the image's display width, so a figure rendered
// at 2× density shows at its nominal size, sharp on high-DPI screens.
func (d *Display) png(png []byte, name string, width int) error {
	if len(png) == 0 {
		return check.Missing("png", "encoded PNG bytes to show")
	}
	if d.Notebook {
		data := &protocol.DisplayData{Data: map[protocol.MIMEType]any{protocol.MIMEImagePNG: png}}
		if width > 0 {
			// GoNB's pipe cannot carry Jupyter's per-MIME metadata ({"image/png": {"width": …}}), so the
			// sized image goes as an HTML alternative, which JupyterLab and nbconvert prefer over the PNG.
			data.Data[protocol.MIMETextHTML] = ImageHTML(png, name, width)
		}
		gonbui.SendData(data)
		return nil
	}
	d.mu.Lock()
	d.figures++
	n := d.figures
	d.mu.Unlock()
	if err := os.MkdirAll(d.Dir, 0o755); err != nil {
		return fmt.Errorf("display: %w", err)
	}
	path := filepath.Join(d.Dir, fmt.Sprintf("%03d-%s.png", n, slug(name)))
	if err := os.WriteFile(path, png, 0o644); err != nil {
		return fmt.Errorf("display: %w", err)
	}
	fmt.Fprintf(d.Out, "[figure written to %s]\n", path)
	return nil
}

// ImageHTML is an <img> showing png inline (a data URI) at the given width in CSS pixels.
func ImageHTML(png []byte, alt string, width int) string {
	return fmt.Sprintf(`<img class="dprl-figure" alt="%s" width="%d" src="data:image/png;base64,%s"/>`,
		html.EscapeString(alt), width, base64.StdEncoding.EncodeToString(png))
}

// Table shows rows under a header as an HTML table, or as aligned plain text outside a notebook.
// Rows may be shorter or longer than the header.
func (d *Display) Table(header []string, rows [][]string) {
	if d.Notebook {
		gonbui.DisplayHtml(TableHTML(header, rows))
		return
	}
	io.WriteString(d.Out, TableText(header, rows))
}

// Markdown renders md in a notebook, or prints it unchanged.
func (d *Display) Markdown(md string) {
	if d.Notebook {
		gonbui.DisplayMarkdown(md)
		return
	}
	io.WriteString(d.Out, strings.TrimRight(md, "\n")+"\n")
}

// TableHTML formats a table as HTML, escaping every cell. Cells that look numeric are right-aligned.
func TableHTML(header []string, rows [][]string) string {
	var b strings.Builder
	b.WriteString(`<table class="dprl-table">`)
	if len(header) > 0 {
		b.WriteString("<thead><tr>")
		for _, h := range header {
			fmt.Fprintf(&b, "<th>%s</th>", html.EscapeString(h))
		}
		b.WriteString("</tr></thead>")
	}
	b.WriteString("<tbody>")
	for _, r := range rows {
		b.WriteString("<tr>")
		for _, c := range r {
			if numeric.MatchString(c) {
				fmt.Fprintf(&b, `<td style="text-align:right">%s</td>`, html.EscapeString(c))
			} else {
				fmt.Fprintf(&b, "<td>%s</td>", html.EscapeString(c))
			}
		}
		b.WriteString("</tr>")
	}
	b.WriteString("</tbody></table>")
	return b.String()
}

var numeric = regexp.MustCompile(`^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*%?\s*$`)

// TableText formats a table as plain text with columns padded to their widest cell and a rule under the header.
func TableText(header []string, rows [][]string) string {
	all := append([][]string{header}, rows...)
	var widths []int
	for _, r := range all {
		for i, c := range r {
			if i >= len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	var b bytes.Buffer
	line := func(r []string) {
		for i, c := range r {
			if i > 0 {
				b.WriteString("  ")
			}
			b.WriteString(c)
			if i < len(r)-1 {
				b.WriteString(strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c)))
			}
		}
		b.WriteByte('\n')
	}
	if len(header) > 0 {
		line(header)
		total := 0
		for i, w := range widths {
			total += w
			if i > 0 {
				total += 2
			}
		}
		b.WriteString(strings.Repeat("-", total) + "\n")
	}
	for _, r := range rows {
		line(r)
	}
	return b.String()
}

var nonSlug = regexp.MustCompile(`[^a-z0-9]+`)

// slug turns a title into a file-name fragment: lower case letters and digits joined by '-', at most 40
// characters, "figure" when nothing is left.
func slug(title string) string {
	s := strings.Trim(nonSlug.ReplaceAllString(strings.ToLower(title), "-"), "-")
	if len(s) > 40 {
		s = strings.TrimRight(s[:40], "-")
	}
	if s == "" {
		return "figure"
	}
	return s
}

// check rejects values on behalf of this package.
const check param.Checker = "display"
