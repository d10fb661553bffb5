package kernels

import (
	"bytes"
	"fmt"
	"html"
	"image"
	"image/color"
	"image/png"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/dprl-project/dprl/dprl/figure"
)

// Runner executes notebooks headlessly with nbconvert and writes the executed notebooks and their HTML
// reports into OutDir.
type Runner struct {
	Jupyter string        // the jupyter command; "jupyter" when empty
	Kernel  string        // kernel spec; "gonb-dprl-batch" when empty
	OutDir  string        // where executed .ipynb and .html files go
	Timeout time.Duration // per cell; 30 minutes when zero
	Env     []string      // added to the environment of nbconvert and so of the kernel
	Log     io.Writer     // nbconvert's own output; discarded when nil
}

// Report is the outcome of running one notebook.
type Report struct {
	Notebook string // the source path
	Executed string // the executed .ipynb
	HTML     string // the HTML report
	Duration time.Duration
	Summary
	Err error // nil when the notebook ran, had no error output and showed at least one image
}

// Run executes the notebook at path, checks the executed copy and renders it as HTML. A failing cell does
// not stop the run (nbconvert --allow-errors): the executed notebook and its report are written either way,
// and Report.Err lists every failed cell.
func (r *Runner) Run(path string) (rep Report) {
	rep.Notebook = path
	start := time.Now()
	defer func() { rep.Duration = time.Since(start) }()
	name := strings.TrimSuffix(filepath.Base(path), ".ipynb")
	rep.Executed = filepath.Join(r.OutDir, name+".ipynb")
	rep.HTML = filepath.Join(r.OutDir, name+".html")
	if err := os.MkdirAll(r.OutDir, 0o755); err != nil {
		rep.Err = err
		return rep
	}
	timeout := r.Timeout
	if timeout == 0 {
		timeout = 30 * time.Minute
	}
	kernel := r.Kernel
	if kernel == "" {
		kernel = "gonb-dprl-batch"
	}
	os.Remove(rep.Executed)
	if err := r.nbconvert("--to", "notebook", "--execute", "--allow-errors",
		"--ExecutePreprocessor.kernel_name="+kernel,
		fmt.Sprintf("--ExecutePreprocessor.timeout=%d", int(timeout.Seconds())),
		"--output-dir", r.OutDir, "--output", name+".ipynb", path); err != nil {
		rep.Err = fmt.Errorf("executing %s: %w", path, err)
		return rep
	}
	nb, err := ReadNotebookFile(rep.Executed)
	if err != nil {
		rep.Err = err
		return rep
	}
	rep.Summary = Summarize(nb)
	if err := r.nbconvert("--to", "html", "--output-dir", r.OutDir, rep.Executed); err != nil {
		rep.Err = fmt.Errorf("rendering %s: %w", rep.Executed, err)
		return rep
	}
	rep.Err = CheckExecuted(nb)
	return rep
}

func (r *Runner) nbconvert(args ...string) error {
	jupyter := r.Jupyter
	if jupyter == "" {
		jupyter = "jupyter"
	}
	cmd := exec.Command(jupyter, append([]string{"nbconvert"}, args...)...)
	cmd.Env = append(append(os.Environ(), "PYDEVD_DISABLE_FILE_VALIDATION=1"), r.Env...)
	var tail bytes.Buffer
	w := io.Writer(&tail)
	if r.Log != nil {
		w = io.MultiWriter(&tail, r.Log)
	}
	cmd.Stdout, cmd.Stderr = w, w
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%w\n%s", err, lastLines(tail.String(), 15))
	}
	return nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// Screenshot renders an HTML file in headless Chromium at the given window size and writes a PNG.
func Screenshot(chromium, htmlPath, pngPath string, width, height int) error {
	abs, err := filepath.Abs(htmlPath)
	if err != nil {
		return err
	}
	outAbs, err := filepath.Abs(pngPath)
	if err != nil {
		return err
	}
	profile, err := os.MkdirTemp("", "dprl-chromium-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(profile)
	cmd := exec.Command(chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
		"--hide-scrollbars", "--user-data-dir="+profile, fmt.Sprintf("--window-size=%d,%d", width, height),
		"--screenshot="+outAbs, "file://"+abs)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("chromium: %w\n%s", err, lastLines(string(out), 10))
	}
	if _, err := os.Stat(outAbs); err != nil {
		return fmt.Errorf("chromium wrote no screenshot: %w\n%s", err, lastLines(string(out), 10))
	}
	return nil
}

// PlotPixels counts the pixels of img drawn in the first three colours of the house palette
// (figure.Color(0..2)), the colours of the project's first figure lines, within ±tol per channel. Nothing else
// on a rendered notebook page uses them, so a count in the hundreds means a plot is visible.
func PlotPixels(img image.Image, tol int) int {
	var palette [3][3]int
	for k := range palette {
		r, g, b, _ := figure.Color(k).RGBA()
		palette[k] = [3]int{int(r >> 8), int(g >> 8), int(b >> 8)}
	}
	n := 0
	bounds := img.Bounds()
	for y := bounds.Min.Y; y < bounds.Max.Y; y++ {
		for x := bounds.Min.X; x < bounds.Max.X; x++ {
			c := color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA)
			for _, p := range palette {
				if abs(int(c.R)-p[0]) <= tol && abs(int(c.G)-p[1]) <= tol && abs(int(c.B)-p[2]) <= tol {
					n++
					break
				}
			}
		}
	}
	return n
}

// CheckScreenshot decodes a PNG screenshot and returns an error unless it shows at least minPixels plot pixels.
func CheckScreenshot(pngPath string, minPixels int) (int, error) {
	f, err := os.Open(pngPath)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", pngPath, err)
	}
	n := PlotPixels(img, 6)
	if n < minPixels {
		return n, fmt.Errorf("%s shows %d plot pixels, want at least %d: no plot visible", pngPath, n, minPixels)
	}
	return n, nil
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// WriteIndex writes an HTML page listing every report with its status, run time, counts and a link to its
// HTML report (relative to the page, which lives in the reports' folder).
func WriteIndex(path string, reports []Report, mode string, total time.Duration) error {
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>dprl notebooks</title>
<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}
td,th{padding:.3em .8em;border-bottom:1px solid #ddd;text-align:left}td.n{text-align:right}
.ok{color:#009E73}.failed{color:#D55E00;font-weight:bold}pre{margin:0;font-size:85%;white-space:pre-wrap}</style>
</head><body>
`)
	failed := 0
	for _, r := range reports {
		if r.Err != nil {
			failed++
		}
	}
	fmt.Fprintf(&b, "<h1>dprl notebooks</h1>\n<p>%d notebooks, %s, %d failed, total %s, finished %s.</p>\n",
		len(reports), html.EscapeString(mode), failed, formatSeconds(total), time.Now().UTC().Format("2006-01-02 15:04 MST"))
	b.WriteString("<table>\n<tr><th>notebook</th><th>status</th><th>run time</th><th>code cells</th><th>images</th><th>report</th></tr>\n")
	for _, r := range reports {
		name := strings.TrimSuffix(filepath.Base(r.Notebook), ".ipynb")
		status, class := "ok", "ok"
		if r.Err != nil {
			status, class = "failed", "failed"
		}
		link := "—"
		if _, err := os.Stat(r.HTML); err == nil {
			link = fmt.Sprintf(`<a href="%s">%s</a>`, html.EscapeString(filepath.Base(r.HTML)), html.EscapeString(filepath.Base(r.HTML)))
		}
		fmt.Fprintf(&b, `<tr><td>%s</td><td class="%s">%s</td><td class="n">%s</td><td class="n">%d</td><td class="n">%d</td><td>%s</td></tr>`+"\n",
			html.EscapeString(name), class, status, formatSeconds(r.Duration), r.CodeCells, r.Images, link)
		if r.Err != nil {
			fmt.Fprintf(&b, "<tr><td></td><td colspan=\"5\"><pre>%s</pre></td></tr>\n", html.EscapeString(r.Err.Error()))
		}
	}
	b.WriteString("</table>\n</body></html>\n")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

func formatSeconds(d time.Duration) string {
	return fmt.Sprintf("%.1f s", d.Seconds())
}
