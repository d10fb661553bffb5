package report

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
)

func TestMergeClaimsAndRecorder(t *testing.T) {
	var r Recorder
	r.Claims(Claim{Key: "a", Verdict: "reproduced"}, Claim{Key: "b"})
	r.Markdown("between")
	r.Claims(Claim{Key: "a", Verdict: "not reproduced"}, Claim{Key: "c"})
	got := r.ClaimRows()
	if len(got) != 3 || got[0].Key != "a" || got[0].Verdict != "not reproduced" || got[1].Key != "b" || got[2].Key != "c" {
		t.Errorf("ClaimRows = %+v", got)
	}
	if r.Tables() != 0 || len(r.Markdowns()) != 1 {
		t.Errorf("claims counted as tables or Markdown: %d tables, %q", r.Tables(), r.Markdowns())
	}
}

func TestClaimTableLeavesOutEmptyColumns(t *testing.T) {
	header, cells := ClaimTable([]Claim{{Claim: "x", Paper: "p", Measured: "1", Verdict: "reproduced"}})
	if want := []string{"claim", "paper", "measured here", "verdict"}; !reflect.DeepEqual(header, want) {
		t.Errorf("header %q, want %q", header, want)
	}
	if want := [][]string{{"x", "p", "1", "reproduced"}}; !reflect.DeepEqual(cells, want) {
		t.Errorf("cells %q", cells)
	}
	full := Claim{Claim: "A beats B", Where: "Fig. 1", Quote: "A is much better than B here", Paper: "10×", Measured: "2 [1, 3]", Seeds: 10,
		Compare: &Comparison{A: "A", B: "B", Trivial: "θ = 0", Margin: Interval{0.5, 0.25, 0.75}},
		Privacy: []Privacy{{Method: "A", Epsilon: 1, Delta: 1e-5}, {Method: "B", NonPrivate: true}},
		Verdict: "not reproduced", Robust: &Robustness{Choice: "c", Alternatives: []Alternative{{"c = 1", "not reproduced"}, {"c = 100", "reproduced"}}}, Why: "w"}
	header, cells = ClaimTable([]Claim{full, {Claim: "bare"}})
	if len(header) != 11 || len(cells[1]) != 11 || cells[1][0] != "bare" {
		t.Fatalf("header %q, cells %q", header, cells)
	}
	want := []string{"A beats B", "Fig. 1", "“A is much better than B here”", "10×", "2 [1, 3]", "10", "A − θ = 0: 0.5 [0.25, 0.75]",
		"A:1:1e-05;B:inf:0", "not reproduced", "depends on c (c = 1: not reproduced; c = 100: reproduced)", "w"}
	if !reflect.DeepEqual(cells[0], want) {
		t.Errorf("row\n%q\nwant\n%q", cells[0], want)
	}
}

func TestRobustnessText(t *testing.T) {
	var none *Robustness
	r := &Robustness{Choice: "F", Alternatives: []Alternative{{"F = 1", "not reproduced"}, {"F = 100", "not reproduced"}}}
	for _, c := range []struct {
		r       *Robustness
		verdict string
		want    string
	}{
		{none, "not reproduced", ""},
		{&Robustness{}, "not reproduced", "yes (nothing left open)"},
		{r, "not reproduced", "yes (F = 1: not reproduced; F = 100: not reproduced)"},
		{r, "inconclusive", "depends on F (F = 1: not reproduced; F = 100: not reproduced)"},
	} {
		if got := c.r.Text(c.verdict); got != c.want {
			t.Errorf("Text(%q) = %q, want %q", c.verdict, got, c.want)
		}
	}
}

func TestClaimCounts(t *testing.T) {
	rows := []Claim{{Verdict: "inconclusive", Kind: KindSanity}, {Verdict: "reproduced", Kind: KindPaper}, {Verdict: "partly"}, {Verdict: "reproduced", Kind: KindPaper}}
	if got, want := ClaimCounts(rows), "4 rows: 2 reproduced, 1 inconclusive, 1 partly; 2 paper, 1 sanity check, 1 not classified"; got != want {
		t.Errorf("ClaimCounts = %q, want %q", got, want)
	}
	if got := ClaimCounts(nil); got != "0 rows: none; none" {
		t.Errorf("ClaimCounts(nil) = %q", got)
	}
	if Kinds[0] != KindPaper || len(Kinds) != 4 {
		t.Errorf("counting changed Kinds: %q", Kinds)
	}
}

func TestSplitClaims(t *testing.T) {
	paper, ours := SplitClaims([]Claim{{Key: "p", Kind: KindPaper}, {Key: "s", Kind: KindSanity}, {Key: "u"}, {Key: "f", Kind: KindFigure}, {Key: "a", Kind: KindAnalysis}})
	keys := func(cs []Claim) (k []string) {
		for _, c := range cs {
			k = append(k, c.Key)
		}
		return k
	}
	if !reflect.DeepEqual(keys(paper), []string{"p", "u", "f"}) || !reflect.DeepEqual(keys(ours), []string{"s", "a"}) {
		t.Errorf("paper %q, ours %q", keys(paper), keys(ours))
	}
}

func TestWriteClaimsCSV(t *testing.T) {
	tested := Claim{Key: "k", Kind: KindPaper, Claim: "x beats y", Where: "§7", Quote: "x is better than y by far", Measured: "0.50 [0.20, 0.80]", CILow: 0.2, CIHigh: 0.8, Seeds: 10,
		Compare: &Comparison{A: "x", B: "y", Trivial: "θ = 0", Margin: Interval{1, 0.5, 1.5}}, Privacy: []Privacy{{Method: "x", Epsilon: 0.1, Delta: 1e-5}, {Method: "y", Epsilon: 0.1, Delta: 1e-5}},
		Verdict: "reproduced"}
	var b strings.Builder
	if err := WriteClaimsCSV(&b, []string{"nb"}, map[string][]Claim{"nb": {tested, {Key: "u", Claim: "untested", Verdict: "partly"}}}); err != nil {
		t.Fatal(err)
	}
	want := "notebook,key,kind,claim,where,quote,paper,measured,ci_low,ci_high,seeds,trivial,trivial_margin,privacy,verdict,robust,why\n" +
		"nb,k,paper,x beats y,§7,x is better than y by far,,\"0.50 [0.20, 0.80]\",0.2,0.8,10,θ = 0,\"1 [0.5, 1.5]\",x:0.1:1e-05;y:0.1:1e-05,reproduced,,\n" +
		"nb,u,,untested,,,,,,,0,,,,partly,,\n"
	if b.String() != want {
		t.Errorf("csv\n%s\nwant\n%s", b.String(), want)
	}
}

// TestClaimJSON: the JSON form keeps every field, NaN and infinite numbers included.
func TestClaimJSON(t *testing.T) {
	in := []Claim{{Key: "k", Kind: KindFigure, Claim: "c", Quote: "q", Where: "Fig. 2", Paper: "p", Measured: "m", Verdict: "inconclusive",
		CILow: math.NaN(), CIHigh: math.Inf(1), Seeds: 3, Compare: &Comparison{A: "a", B: "b", Trivial: "random policy", Margin: Interval{math.NaN(), -1, math.Inf(-1)}},
		Privacy: []Privacy{{Method: "a", Epsilon: 1, Delta: 1e-5}, {Method: "b", NonPrivate: true}},
		Robust:  &Robustness{Choice: "c", Alternatives: []Alternative{{"c = 1", "reproduced"}}}, Why: "w"}, {Key: "bare"}}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var out []Claim
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	nan := func(x float64) float64 {
		if math.IsNaN(x) {
			return -42
		}
		return x
	}
	for _, cs := range [][]Claim{in, out} {
		cs[0].CILow, cs[0].Compare.Margin.Mean = nan(cs[0].CILow), nan(cs[0].Compare.Margin.Mean)
	}
	if !reflect.DeepEqual(in, out) {
		t.Errorf("round trip\n%+v\n%+v\n(JSON %s)", in, out, b)
	}
}
