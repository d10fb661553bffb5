package display

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dprl-project/dprl/dprl/report"
)

var claimRows = []report.Claim{
	{Key: "c1-v1", Kind: report.KindPaper, Claim: "GPOPE beats DP-LSW", Paper: "Fig. 1(a)", Measured: "2 [1.5, 2.5]", Verdict: "reproduced", Seeds: 10},
	{Key: "c1-zero", Kind: report.KindSanity, Claim: "GPOPE beats θ = 0", Paper: "not shown", Measured: "1 [0.99, 1.01]", Verdict: "inconclusive", Seeds: 10},
	{Key: "p1", Claim: "LSW converges faster", Paper: "Fig. 1 (1)", Measured: "3", Verdict: "not reproduced"},
}

// TestClaimsAcrossCells: two displays sharing a claims file stand for two cells of one notebook (two
// programs); the second shows what the first recorded, a row recorded again replacing the first one, and
// the paper's rows apart from our own checks, each table under its counts.
func TestClaimsAcrossCells(t *testing.T) {
	file := filepath.Join(t.TempDir(), "claims.json")
	var out1, out2 bytes.Buffer
	cell1 := &Display{Out: &out1, ClaimsFile: file}
	cell1.Claims(claimRows[:2]...)
	if want := "*Claims recorded* (the table at the end): c1-v1 reproduced · c1-zero inconclusive\n"; out1.String() != want {
		t.Errorf("cell 1 said %q, want %q", out1.String(), want)
	}
	cell2 := &Display{Out: &out2, ClaimsFile: file}
	again := claimRows[0]
	again.Verdict = "not reproduced"
	cell2.Claims(again, claimRows[2])
	rows, err := (&Display{ClaimsFile: file}).RecordedClaims()
	if err != nil || len(rows) != 3 || rows[0].Verdict != "not reproduced" || rows[2].Key != "p1" {
		t.Fatalf("kept %+v, %v", rows, err)
	}
	out2.Reset()
	if err := cell2.ShowClaims(); err != nil {
		t.Fatal(err)
	}
	text := out2.String()
	paper := strings.Index(text, "**The paper's claims** — 2 rows: 2 not reproduced; 1 paper, 1 not classified.")
	ours := strings.Index(text, "**Our own checks and analyses (not the paper's claims)** — 1 row: 1 inconclusive; 1 sanity check.")
	if paper < 0 || ours < paper || strings.Index(text, "GPOPE beats DP-LSW") > ours || strings.Index(text, "GPOPE beats θ = 0") < ours {
		t.Errorf("ShowClaims wrote\n%s", text)
	}
}

func TestClaimsInMemory(t *testing.T) {
	var out bytes.Buffer
	d := &Display{Out: &out}
	if err := d.ShowClaims(); err != nil || !strings.Contains(out.String(), "No claims recorded yet") {
		t.Errorf("no claims: %v %q", err, out.String())
	}
	d.Claims(claimRows...)
	d.Claims()
	rows, err := d.RecordedClaims()
	if err != nil || len(rows) != 3 {
		t.Errorf("kept %d rows, %v", len(rows), err)
	}
}

// TestClaimsFileTrouble: a claims file that cannot be read is reported in the cell and by ShowClaims,
// and the rows are not lost for this program.
func TestClaimsFileTrouble(t *testing.T) {
	file := filepath.Join(t.TempDir(), "claims.json")
	os.WriteFile(file, []byte("not json"), 0o644)
	var out bytes.Buffer
	d := &Display{Out: &out, ClaimsFile: file}
	d.Claims(claimRows[0])
	if !strings.Contains(out.String(), "not kept for the table") {
		t.Errorf("cell said %q", out.String())
	}
	if err := d.ShowClaims(); err == nil {
		t.Error("ShowClaims read a broken claims file")
	}
	if rows, _ := d.RecordedClaims(); len(rows) != 1 || rows[0].Key != "c1-v1" {
		t.Errorf("rows lost: %+v", rows)
	}
}
