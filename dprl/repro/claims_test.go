package repro

import (
	"path/filepath"
	"testing"
)

func TestClaimsRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.json")
	if c, err := LoadClaims(path); err != nil || c != nil {
		t.Fatalf("missing file: %v %v", c, err)
	}
	RecordClaims(path, Claim{Key: "a", Claim: "A", Verdict: "reproduced"}, Claim{Key: "b", Claim: "B"})
	RecordClaims(path, Claim{Key: "a", Claim: "A", Verdict: "not reproduced"}, Claim{Key: "c", Claim: "C"})
	c, err := LoadClaims(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(c) != 3 || c[0].Key != "a" || c[0].Verdict != "not reproduced" || c[2].Key != "c" {
		t.Errorf("claims %+v", c)
	}
	if rows := ClaimRows(c); rows[1][0] != "B" {
		t.Errorf("rows %v", rows)
	}
}
