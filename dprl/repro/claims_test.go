package repro

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/dprl-project/dprl/dprl/report"
)

func TestVerdictAndTested(t *testing.T) {
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
}

// comparison is a reproduced "GPOPE beats DP-LSW" row at equal privacy whose GPOPE beats θ = 0.
func comparison() Claim {
	c := Tested(Claim{Key: "c1-v1", Kind: KindPaper, Claim: "GPOPE beats DP-LSW"}, 2, 1.5, 2.5, 10, "%.2f", 1, true)
	c.Compare = &Comparison{A: "GPOPE", B: "DP-LSW", Trivial: "θ = 0", Margin: Interval{Mean: 0.3, Low: 0.1, High: 0.5}}
	c.Privacy = []Privacy{{Method: "GPOPE", Epsilon: 0.1, Delta: 1e-5}, {Method: "DP-LSW", Epsilon: 0.1 * (1 + 1e-7), Delta: 1e-5}, {Method: "LSTD", NonPrivate: true}}
	return c
}

func TestDecide(t *testing.T) {
	if c := comparison(); Decide(c).Verdict != Reproduced || Decide(c).Why != "" || CheckRules(c) != nil {
		t.Errorf("an informative comparison at equal privacy: %+v (%v)", Decide(c), CheckRules(c))
	}
	if c := (Claim{Key: "plain", Verdict: Reproduced, Why: "w"}); !reflect.DeepEqual(Decide(c), c) {
		t.Errorf("a row that compares nothing changed: %+v", Decide(c))
	}

	trivial := comparison()
	trivial.Compare.Margin = Interval{Mean: 0.001, Low: -0.01, High: 0.012}
	unequal := comparison()
	unequal.Privacy[1].Delta = 0.1
	unequal.Why = "the test"
	both := comparison()
	both.Compare.Margin.Low = math.NaN()
	both.Privacy[1].Epsilon = 0.2
	unmeasured := comparison()
	unmeasured.Compare.Trivial = ""
	for name, c := range map[string]struct {
		row  Claim
		want []string
	}{
		"uninformative": {trivial, []string{"uninformative: GPOPE ≈ θ = 0 (GPOPE − θ = 0: 0.001 [-0.01, 0.012])", "the test alone: reproduced"}},
		"unequal":       {unequal, []string{"unequal privacy (GPOPE:0.1:1e-05;DP-LSW:0.1:0.1;LSTD:inf:0)", "the test alone: reproduced. the test"}},
		"both":          {both, []string{"uninformative: GPOPE ≈ θ = 0", "unequal privacy", "DP-LSW:0.2:1e-05"}},
		"no trivial":    {unmeasured, []string{"uninformative: GPOPE was not measured against a trivial reference"}},
	} {
		got := Decide(c.row)
		if got.Verdict != Inconclusive {
			t.Errorf("%s: verdict %q", name, got.Verdict)
		}
		for _, w := range c.want {
			if !strings.Contains(got.Why, w) {
				t.Errorf("%s: why %q lacks %q", name, got.Why, w)
			}
		}
		if again := Decide(got); again.Why != got.Why || again.Verdict != got.Verdict {
			t.Errorf("%s: deciding twice changed the row: %q", name, again.Why)
		}
		if CheckRules(c.row) == nil {
			t.Errorf("%s: a reproduced row that Decide overturns passed CheckRules", name)
		}
		if err := CheckRules(got); err != nil {
			t.Errorf("%s: the decided row fails CheckRules: %v", name, err)
		}
	}
}

// TestRecord: rows reach the sink decided.
func TestRecord(t *testing.T) {
	var rec report.Recorder
	bad := comparison()
	bad.Compare.Margin.Low = -1
	Record(&rec, comparison(), bad)
	rows := rec.ClaimRows()
	if len(rows) != 1 || rows[0].Verdict != Inconclusive || !strings.HasPrefix(rows[0].Why, "uninformative") {
		t.Errorf("recorded %+v", rows)
	}
}

func TestCheckRules(t *testing.T) {
	ok := comparison()
	for name, c := range map[string]Claim{
		"kind":              {Key: "k", Kind: "headline"},
		"robust missing":    {Key: "k", Kind: KindPaper, Verdict: NotReproduced},
		"figure, no robust": {Key: "k", Kind: KindFigure, Verdict: NotReproduced},
		"choice, no alts":   {Key: "k", Kind: KindPaper, Verdict: NotReproduced, Robust: &Robustness{Choice: "c"}},
		"method separator":  {Key: "k", Privacy: []Privacy{{Method: "a:b", Epsilon: 1}}},
		"no method":         {Key: "k", Privacy: []Privacy{{Epsilon: 1}}},
		"delta":             {Key: "k", Privacy: []Privacy{{Method: "a", Epsilon: 1, Delta: 2}}},
		"epsilon":           {Key: "k", Privacy: []Privacy{{Method: "a", Epsilon: math.Inf(1)}}},
	} {
		if err := CheckRules(c); err == nil || !strings.Contains(err.Error(), `claim "k"`) {
			t.Errorf("%s: CheckRules = %v", name, err)
		}
	}
	for name, c := range map[string]Claim{
		"comparison":            ok,
		"unclassified":          {Key: "old", Verdict: NotReproduced},
		"robust":                {Key: "k", Kind: KindFigure, Verdict: NotReproduced, Robust: &Robustness{}},
		"ours, no robust":       {Key: "k", Kind: KindSanity, Verdict: NotReproduced},
		"non-private, no (ε,δ)": {Key: "k", Privacy: []Privacy{{Method: "LSTD", NonPrivate: true}}},
	} {
		if err := CheckRules(c); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestCheckStrict(t *testing.T) {
	q, err := ParseQuotes("# paper: p.txt\nGPOPE beats DP-LSW by an order of magnitude on the chain.\n")
	if err != nil {
		t.Fatal(err)
	}
	full := comparison()
	full.Quote, full.Where = "GPOPE beats DP-LSW by an order of magnitude", "Fig. 1(a)"
	if err := CheckStrict(full, q); err != nil {
		t.Errorf("a complete row: %v", err)
	}
	sanity := Claim{Key: "c1-zero", Kind: KindSanity, Verdict: Reproduced, Seeds: 10}
	if err := CheckStrict(sanity, q); err != nil {
		t.Errorf("a sanity check: %v", err)
	}
	for name, c := range map[string]func(*Claim){
		"no kind":         func(c *Claim) { c.Kind = "" },
		"no quote":        func(c *Claim) { c.Quote = "" },
		"misquote":        func(c *Claim) { c.Quote = "GPOPE beats DP-LSL by an order of magnitude" },
		"no where":        func(c *Claim) { c.Where = "" },
		"figure no where": func(c *Claim) { c.Kind, c.Quote, c.Where = KindFigure, "", "" },
		"no trivial":      func(c *Claim) { c.Compare.Trivial, c.Verdict = "", Inconclusive },
		"B not listed":    func(c *Claim) { c.Privacy = c.Privacy[:1] },
		"no B":            func(c *Claim) { c.Compare.B = "" },
	} {
		row := comparison()
		row.Quote, row.Where = full.Quote, full.Where
		c(&row)
		if err := CheckStrict(row, q); err == nil {
			t.Errorf("%s: passed", name)
		}
	}
	if err := CheckStrict(full, nil); err == nil || !strings.Contains(err.Error(), "no quotes file") {
		t.Errorf("no quotes file: %v", err)
	}
}
