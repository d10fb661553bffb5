package display

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/dprl-project/dprl/dprl/report"

	"github.com/janpfeifer/gonb/gonbui"
	"github.com/janpfeifer/gonb/gonbui/protocol"
)

// ClaimsMIME is the MIME type under which ShowClaims sends, in a notebook, the rows it shows as JSON (a
// list of report.Claim), beside their HTML: the executed notebook carries its claims table in a form a
// program reads (kernels/nbrun gathers them into claims.csv). Front ends show the HTML.
const ClaimsMIME = "application/vnd.dprl.claims+json"

// claimsFileName is the file in GoNB's per-kernel folder ($GONB_TMP_DIR) where a notebook's cells keep their
// claims rows: each cell is a program of its own, and the folder lives as long as the kernel.
const claimsFileName = "dprl-claims.json"

// defaultClaimsFile is where Default keeps claims rows: in a notebook, a file in the kernel's own folder; else
// nowhere (in memory, for one program).
func defaultClaimsFile() string {
	if d := os.Getenv(protocol.GONB_TMP_DIR_ENV); gonbui.IsNotebook && d != "" {
		return filepath.Join(d, claimsFileName)
	}
	return ""
}

// Claims records claims rows (report.Sink's claims method) for ShowClaims, a row replacing an earlier one of
// the same Key, and says in one line which rows this call recorded and their verdicts. With ClaimsFile set
// (in a notebook: a file of the kernel's, so a later cell sees them) the rows are kept there, else in d.
// A file that cannot be read or written is reported in that line; the rows then stay in d.
func (d *Display) Claims(rows ...report.Claim) {
	if len(rows) == 0 {
		return
	}
	parts := make([]string, len(rows))
	for i, c := range rows {
		parts[i] = fmt.Sprintf("%s %s", c.Key, c.Verdict)
	}
	line := "*Claims recorded* (the table at the end): " + strings.Join(parts, " · ")
	if err := d.keepClaims(rows); err != nil {
		line += fmt.Sprintf(" (**not kept for the table:** %v)", err)
	}
	d.Markdown(line)
}

// keepClaims merges rows into the kept ones.
func (d *Display) keepClaims(rows []report.Claim) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.ClaimsFile == "" {
		d.claims = report.MergeClaims(d.claims, rows...)
		return nil
	}
	old, err := readClaims(d.ClaimsFile)
	if err != nil {
		d.claims = report.MergeClaims(d.claims, rows...)
		return err
	}
	b, err := json.Marshal(report.MergeClaims(old, rows...))
	if err == nil {
		err = os.WriteFile(d.ClaimsFile, b, 0o600)
	}
	if err != nil {
		d.claims = report.MergeClaims(d.claims, rows...)
	}
	return err
}

// RecordedClaims is every claims row d has kept, in first-recorded order.
func (d *Display) RecordedClaims() ([]report.Claim, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.ClaimsFile == "" {
		return append([]report.Claim(nil), d.claims...), nil
	}
	kept, err := readClaims(d.ClaimsFile)
	return report.MergeClaims(kept, d.claims...), err
}

// readClaims reads a claims file (none yet: no rows).
func readClaims(path string) ([]report.Claim, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("display: %w", err)
	}
	var rows []report.Claim
	if err := json.Unmarshal(b, &rows); err != nil {
		return nil, fmt.Errorf("display: %s: %w", path, err)
	}
	return rows, nil
}

// ShowClaims shows every claims row Default has kept: the paper's claims, then our own sanity checks and
// analyses in a table of their own, each under a line counting its rows per verdict and per kind.
func ShowClaims() error { return Default.ShowClaims() }

// ShowClaims shows the claims rows d has kept (see the package-level ShowClaims). In a notebook the rows go
// along as JSON under ClaimsMIME.
func (d *Display) ShowClaims() error {
	rows, err := d.RecordedClaims()
	if err != nil {
		return err
	}
	if len(rows) == 0 {
		d.Markdown("*No claims recorded yet:* run the cells above first.")
		return nil
	}
	paper, ours := report.SplitClaims(rows)
	if len(paper) > 0 {
		d.claimTable("The paper's claims", paper)
	}
	if len(ours) > 0 {
		d.claimTable("Our own checks and analyses (not the paper's claims)", ours)
	}
	if d.Notebook {
		b, err := json.Marshal(rows)
		if err != nil {
			return fmt.Errorf("display: claims: %w", err)
		}
		gonbui.SendData(&protocol.DisplayData{Data: map[protocol.MIMEType]any{
			ClaimsMIME:            string(b),
			protocol.MIMETextHTML: `<span class="dprl-claims-data"></span>`,
		}})
	}
	return nil
}

// claimTable shows one claims table under its title and counts.
func (d *Display) claimTable(title string, rows []report.Claim) {
	d.Markdown(fmt.Sprintf("**%s** — %s.", title, report.ClaimCounts(rows)))
	d.Table(report.ClaimTable(rows))
}
