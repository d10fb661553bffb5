package accounting

import (
	"bytes"
	"encoding/csv"
	"testing"

	"github.com/dprl-project/dprl/dprl/audit"
	"github.com/dprl-project/dprl/dprl/report"
)

// TestTightCatalogCheap runs the whole tight catalogue at 1% of its runs (seconds): at least 14 rows, every
// variant expected to hold audits below its claim and below its pair's exact ε, and the CSV has the issue's
// columns first. (Power and the catching of every broken variant need the full runs: make audit;
// audit_sound_test.go checks soundness over ten seeds, the power goals and the new broken variants.)
func TestTightCatalogCheap(t *testing.T) {
	ts, err := TightCatalog()
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) < 14 {
		t.Fatalf("%d rows, want at least 14", len(ts))
	}
	rs, err := audit.AuditTargets(ts, 19, 0.01, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		if r.Target.Holds && r.Caught() {
			t.Errorf("%s (%s): %g above the claim %g", r.Target.Mechanism, r.Target.Variant, r.EpsilonLower, r.Target.Epsilon)
		}
		if r.Target.Holds && r.Target.PairEpsilon > 0 && r.EpsilonLower > r.Target.PairEpsilon {
			t.Errorf("%s: %g above the pair's exact ε %g", r.Target.Mechanism, r.EpsilonLower, r.Target.PairEpsilon)
		}
	}
	var b bytes.Buffer
	if err := WriteAuditCSV(&b, rs); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"mechanism", "neighbours", "claimed_epsilon", "delta", "audited_epsilon_lower", "ratio", "runs", "method", "broken_variant_caught", "seconds"}
	for i, c := range want {
		if recs[0][i] != c {
			t.Errorf("column %d = %q, want %q", i, recs[0][i], c)
		}
	}
	if len(recs) != len(rs)+1 {
		t.Errorf("%d records for %d rows", len(recs), len(rs))
	}
	var rec report.Recorder
	ShowAuditTable(&rec, rs)
	if rec.Tables() != 1 {
		t.Errorf("ShowAuditTable showed %d tables", rec.Tables())
	}
}
