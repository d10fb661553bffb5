package dprl

import (
	"bytes"
	"math/rand/v2"
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

func TestTrialsAndTable(t *testing.T) {
	f := func(i int, src rand.Source) (float64, error) { return rand.New(src).Float64() + float64(i), nil }
	a, _ := Trials(50, 1, 9, nil, f)
	b, _ := Trials(50, 4, 9, nil, f)
	for i := range a {
		if a[i] != b[i] || int(a[i]) != i {
			t.Fatalf("trial %d: %g with 1 worker, %g with 4", i, a[i], b[i])
		}
	}
	if _, err := Trials(5, 2, 1, nil, func(i int, _ rand.Source) (int, error) {
		if i == 3 {
			return 0, errTest
		}
		return i, nil
	}); err == nil || !strings.Contains(err.Error(), "trial 3") {
		t.Errorf("error %v, want it to name trial 3", err)
	}
	var tb Table
	tb.Columns = []string{"x", "y"}
	tb.Add(1.5, "a")
	var buf bytes.Buffer
	tb.WriteCSV(&buf)
	if buf.String() != "x,y\n1.5,a\n" {
		t.Errorf("csv %q", buf.String())
	}
}

var errTest = &testErr{}

type testErr struct{}

func (*testErr) Error() string { return "boom" }
