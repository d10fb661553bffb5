package accounting

import (
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"

	"github.com/dprl-project/dprl/dprl/audit"
	"github.com/dprl-project/dprl/dprl/param"
	"github.com/dprl-project/dprl/dprl/report"
)

// AuditCSVPath is where `make audit` writes the full tight-audit table: build/audit/audit.csv in the
// repository ($DPRL_ROOT, which the project's kernel sets; the working directory otherwise).
func AuditCSVPath() string {
	return filepath.Join(os.Getenv("DPRL_ROOT"), "build", "audit", "audit.csv")
}

// TightAuditSection shows the tight audit of every mechanism and paper pipeline (TightCatalog). When the
// full table of `make audit` exists at csvPath it is shown as written, with its date; otherwise every row is
// audited here at scale (a fraction of its runs, in (0, 1]) and the table says so: fewer runs give weaker,
// still valid, lower bounds.
func TightAuditSection(out report.Sink, csvPath string, scale float64) error {
	if st, err := os.Stat(csvPath); err == nil {
		rows, err := readCSV(csvPath)
		if err != nil {
			return err
		}
		if len(rows) < 2 {
			return fmt.Errorf("accounting: %s holds no audit rows", csvPath)
		}
		out.Markdown(fmt.Sprintf("The full tight-audit table from `make audit` (`%s`, written %s, %d rows): every bound is a "+
			"one-sided 95%% lower bound on ε; `ratio` is audited/claimed.", csvPath, st.ModTime().UTC().Format("2006-01-02 15:04 UTC"), len(rows)-1))
		out.Table(rows[0], rows[1:])
		return nil
	}
	if err := check.In("scale", scale, auditScale); err != nil {
		return err
	}
	ts, err := TightCatalog()
	if err != nil {
		return err
	}
	bar := out.Bar("tight audit", 0)
	rs, err := audit.AuditTargets(ts, 19, scale, bar, nil)
	bar.Done()
	if err != nil {
		return err
	}
	out.Markdown(fmt.Sprintf("No `make audit` table found at `%s`, so every row was audited here with %.3g of its runs: "+
		"bounds from fewer runs are valid but weaker than the full table's (run `make audit` to get it, then rerun this cell).", csvPath, scale))
	ShowAuditTable(out, rs)
	return nil
}

func readCSV(path string) ([][]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return csv.NewReader(f).ReadAll()
}

// auditScale is the allowed fraction of each row's runs: (0, 1].
var auditScale = param.Interval{Lo: 0, Hi: 1, HiClosed: true}
