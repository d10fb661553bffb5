package accounting

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dprl-project/dprl/dprl/report"
)

// TestTightAuditSection: a make-audit CSV is shown as written; a missing one makes the section refuse a
// scale outside (0, 1] with an error naming scale (running the catalog itself is covered by the audit tests).
func TestTightAuditSection(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.csv")
	os.WriteFile(path, []byte("mechanism,ratio\nGaussian,0.97\nLaplace,0.99\n"), 0o644)
	var r report.Recorder
	if err := TightAuditSection(&r, path, 0.5); err != nil {
		t.Fatal(err)
	}
	if r.Tables() != 1 || len(r.Items[1].Rows) != 2 || r.Items[1].Rows[1][0] != "Laplace" || !strings.Contains(r.Items[0].Markdown, "2 rows") {
		t.Errorf("items %+v", r.Items)
	}
	for _, s := range []float64{0, -1, 2} {
		if err := TightAuditSection(&r, filepath.Join(t.TempDir(), "none.csv"), s); err == nil || !strings.Contains(err.Error(), "scale") {
			t.Errorf("scale %g: %v", s, err)
		}
	}
}
