package repro

import (
	"math"
	"path/filepath"
	"strings"
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

func TestVerdictAndCSV(t *testing.T) {
	for _, c := range []struct {
		lo, hi float64
		above  bool
		want   string
	}{{1, 2, true, Reproduced}, {-2, -1, true, NotReproduced}, {-1, 1, true, Inconclusive}, {-2, -1, false, Reproduced}, {1, 2, false, NotReproduced}, {math.NaN(), 1, true, Inconclusive}} {
		if got := Verdict(c.lo, c.hi, 0, c.above); got != c.want {
			t.Errorf("Verdict(%g, %g, 0, %v) = %q, want %q", c.lo, c.hi, c.above, got, c.want)
		}
	}
	c := Tested(Claim{Key: "k", Claim: "x beats y"}, 0.5, 0.2, 0.8, 10, "%.2f", 0, true)
	if c.Measured != "0.50 [0.20, 0.80]" || c.Verdict != Reproduced || CheckClaim(c) != nil {
		t.Errorf("tested claim %+v (check: %v)", c, CheckClaim(c))
	}
	if CheckClaim(Claim{Key: "few", Seeds: 3, Verdict: Reproduced}) == nil || CheckClaim(Claim{Key: "free", Seeds: 10, Verdict: "partly"}) == nil {
		t.Error("a row with 3 seeds or a free-text verdict passed the check")
	}
	var b strings.Builder
	if err := WriteClaimsCSV(&b, []string{"nb"}, map[string][]Claim{"nb": {c, {Claim: "untested", Verdict: "partly"}}}); err != nil {
		t.Fatal(err)
	}
	want := "notebook,claim,paper,measured,ci_low,ci_high,seeds,verdict\nnb,x beats y,,\"0.50 [0.20, 0.80]\",0.2,0.8,10,reproduced\nnb,untested,,,,,0,partly\n"
	if b.String() != want {
		t.Errorf("csv\n%s\nwant\n%s", b.String(), want)
	}
}

func TestClaimsDir(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(ClaimsDirEnv, dir)
	if got := ClaimsFile("nb"); got != filepath.Join(dir, "dprl-claims-nb.json") {
		t.Errorf("ClaimsFile = %s", got)
	}
}
