package report

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Claim is one row of a reproduction's claims table: what a paper claims (in its own words, and where),
// what we measured, and the verdict. An analysis sends its rows to a Sink (Sink.Claims); package repro
// builds them and decides their verdicts (repro.Tested, repro.Record), and says what each field must hold.
type Claim struct {
	Key   string // stable identifier; a row recorded again under the same key replaces the earlier one
	Kind  string // KindPaper, KindFigure, KindSanity or KindAnalysis ("" for a row not yet classified)
	Claim string // the claim, in our words
	Quote string // a KindPaper row: the paper's own words, at least 6 consecutive words as printed
	Where string // where the paper says it: a section, figure or table ("§7.1", "Fig. 2(a)", "Table 4")
	Paper string // the paper's number or statement

	Measured string // what we measured, e.g. "0.50 [0.20, 0.80]"
	Verdict  string // "reproduced", "not reproduced", "inconclusive" (rows not yet tested: free text)
	// CILow and CIHigh bound the measured quantity (or the difference the test is about) at 95%; Seeds is
	// the number of independent seeds behind it (0: not a tested row).
	CILow, CIHigh float64
	Seeds         int

	// Compare is set on a row that says A beats (or matches) B.
	Compare *Comparison
	// Privacy lists the certified (ε, δ) of every method the row compares.
	Privacy []Privacy
	// Robust is the verdict recomputed under the alternatives of a choice the paper leaves open.
	Robust *Robustness

	Why string // why ours differs from the paper, or what the test was
}

// The kinds of claims row: the paper's own statement (quoted), a reading of one of its figures, a sanity
// check of ours, and an analysis of ours that the paper does not make. The last two are shown in a table of
// their own, apart from the paper's claims.
const (
	KindPaper    = "paper"
	KindFigure   = "figure reading"
	KindSanity   = "sanity check"
	KindAnalysis = "analysis"
)

// Kinds are the kinds of claims row, in the order tables count them.
var Kinds = []string{KindPaper, KindFigure, KindSanity, KindAnalysis}

// OfPaper reports whether c belongs in the paper's table (a paper or figure-reading row, or one not yet
// classified) rather than in the table of our own checks and analyses.
func (c Claim) OfPaper() bool { return c.Kind != KindSanity && c.Kind != KindAnalysis }

// Comparison is what a row that says "A beats B" (or "A matches B") measures besides its test: A against the
// trivial reference of its domain, which A must beat for the comparison to say anything about A.
type Comparison struct {
	A, B    string   // the methods compared, as Privacy names them
	Trivial string   // the trivial reference: "θ = 0", "zero estimate", "random policy", "untrained network"
	Margin  Interval // A's advantage over Trivial with its 95% interval; positive when A is better
}

// Interval is an estimate with its 95% interval.
type Interval struct{ Mean, Low, High float64 }

// String is "mean [low, high]" with three significant digits.
func (i Interval) String() string { return fmt.Sprintf("%.3g [%.3g, %.3g]", i.Mean, i.Low, i.High) }

// Privacy is the certified (ε, δ) of one method a row compares, by the exact accountant; a non-private
// method is listed with NonPrivate set (its Epsilon and Delta unused).
type Privacy struct {
	Method         string
	Epsilon, Delta float64
	NonPrivate     bool
}

// String is "method:ε:δ" ("method:inf:0" for a non-private method).
func (p Privacy) String() string {
	if p.NonPrivate {
		return p.Method + ":inf:0"
	}
	return p.Method + ":" + strconv.FormatFloat(p.Epsilon, 'g', 6, 64) + ":" + strconv.FormatFloat(p.Delta, 'g', 6, 64)
}

// PrivacyList is the privacy column: each method's "method:ε:δ", joined by ";".
func PrivacyList(ps []Privacy) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = p.String()
	}
	return strings.Join(s, ";")
}

// Robustness is a verdict recomputed under each alternative of a choice the paper leaves open. An empty
// Choice says the paper leaves nothing open that could change the verdict.
type Robustness struct {
	Choice       string        // what the paper leaves open, e.g. "regularisation c"
	Alternatives []Alternative // the verdict under each alternative, ours among them or not
}

// Alternative is one setting of an open choice and the verdict the row gets under it.
type Alternative struct{ Setting, Verdict string }

// Text is the robust column of a row whose verdict is verdict: "yes" when every alternative gives verdict,
// else "depends on <choice>", followed by each alternative's verdict; "yes (nothing left open)" without a
// choice; "" for a nil r.
func (r *Robustness) Text(verdict string) string {
	if r == nil {
		return ""
	}
	if r.Choice == "" {
		return "yes (nothing left open)"
	}
	head, alts := "yes", make([]string, len(r.Alternatives))
	for i, a := range r.Alternatives {
		if a.Verdict != verdict {
			head = "depends on " + r.Choice
		}
		alts[i] = a.Setting + ": " + a.Verdict
	}
	return head + " (" + strings.Join(alts, "; ") + ")"
}

// MergeClaims adds rows to old: a row whose Key is already there replaces it in place, others are appended
// in order.
func MergeClaims(old []Claim, rows ...Claim) []Claim {
	for _, c := range rows {
		i := 0
		for i < len(old) && old[i].Key != c.Key {
			i++
		}
		if i < len(old) {
			old[i] = c
		} else {
			old = append(old, c)
		}
	}
	return old
}

// SplitClaims separates the rows of the paper's table (Claim.OfPaper) from our own checks and analyses.
func SplitClaims(rows []Claim) (paper, ours []Claim) {
	for _, c := range rows {
		if c.OfPaper() {
			paper = append(paper, c)
		} else {
			ours = append(ours, c)
		}
	}
	return paper, ours
}

// claimColumns are the columns a claims table can show: its header and how a row fills it. A table leaves
// out every optional column that no row fills.
var claimColumns = []struct {
	header string
	always bool
	cell   func(Claim) string
}{
	{header: "claim", always: true, cell: func(c Claim) string { return c.Claim }},
	{header: "where", cell: func(c Claim) string { return c.Where }},
	{header: "the paper's words", cell: func(c Claim) string { return quoted(c.Quote) }},
	{header: "paper", always: true, cell: func(c Claim) string { return c.Paper }},
	{header: "measured here", always: true, cell: func(c Claim) string { return c.Measured }},
	{header: "seeds", cell: func(c Claim) string { return seedCount(c.Seeds) }},
	{header: "A − trivial", cell: trivialCell},
	{header: "privacy (method:ε:δ)", cell: func(c Claim) string { return PrivacyList(c.Privacy) }},
	{header: "verdict", always: true, cell: func(c Claim) string { return c.Verdict }},
	{header: "robust", cell: func(c Claim) string { return c.Robust.Text(c.Verdict) }},
	{header: "why", cell: func(c Claim) string { return c.Why }},
}

func quoted(q string) string {
	if q == "" {
		return ""
	}
	return "“" + q + "”"
}

func seedCount(n int) string {
	if n <= 0 {
		return ""
	}
	return strconv.Itoa(n)
}

func trivialCell(c Claim) string {
	if c.Compare == nil || c.Compare.Trivial == "" {
		return ""
	}
	return c.Compare.A + " − " + c.Compare.Trivial + ": " + c.Compare.Margin.String()
}

// ClaimTable is a claims table: the header and one row of cells per claim, leaving out the optional
// columns (where, quote, seeds, trivial margin, privacy, robust, why) that no row fills.
func ClaimTable(rows []Claim) (header []string, cells [][]string) {
	cells = make([][]string, len(rows))
	for _, col := range claimColumns {
		vals := make([]string, len(rows))
		filled := col.always
		for i, c := range rows {
			vals[i] = col.cell(c)
			filled = filled || vals[i] != ""
		}
		if !filled {
			continue
		}
		header = append(header, col.header)
		for i := range rows {
			cells[i] = append(cells[i], vals[i])
		}
	}
	return header, cells
}

// ClaimCounts says how many rows have each verdict and each kind: "5 rows: 2 reproduced, 1 not reproduced,
// 2 inconclusive; 3 paper, 2 not classified". Verdicts and kinds are listed in a fixed order, then any
// other value in order of appearance.
func ClaimCounts(rows []Claim) string {
	verdicts := counts(rows, []string{"reproduced", "not reproduced", "inconclusive"}, func(c Claim) string { return c.Verdict }, "no verdict")
	kinds := counts(rows, Kinds, func(c Claim) string { return c.Kind }, "not classified")
	noun := "rows"
	if len(rows) == 1 {
		noun = "row"
	}
	return fmt.Sprintf("%d %s: %s; %s", len(rows), noun, verdicts, kinds)
}

func counts(rows []Claim, order []string, key func(Claim) string, empty string) string {
	order, n := slices.Clone(order), map[string]int{}
	for _, c := range rows {
		k := key(c)
		if n[k] == 0 && !slices.Contains(order, k) {
			order = append(order, k)
		}
		n[k]++
	}
	var parts []string
	for _, k := range order {
		if n[k] == 0 {
			continue
		}
		name := k
		if k == "" {
			name = empty
		}
		parts = append(parts, fmt.Sprintf("%d %s", n[k], name))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// ClaimsCSVColumns are the columns of WriteClaimsCSV.
var ClaimsCSVColumns = []string{"notebook", "key", "kind", "claim", "where", "quote", "paper", "measured", "ci_low", "ci_high", "seeds",
	"trivial", "trivial_margin", "privacy", "verdict", "robust", "why"}

// WriteClaimsCSV writes every notebook's claims (notebook → rows, in the order of names) as one tidy CSV.
// A row without an interval (Seeds = 0) has empty ci_low and ci_high; trivial_margin is "mean [low, high]"
// of A's advantage over the trivial reference; privacy is "method:ε:δ;…"; robust as Robustness.Text writes it.
func WriteClaimsCSV(w io.Writer, names []string, claims map[string][]Claim) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(ClaimsCSVColumns); err != nil {
		return err
	}
	for _, nb := range names {
		for _, c := range claims[nb] {
			lo, hi := "", ""
			if c.Seeds > 0 {
				lo, hi = strconv.FormatFloat(c.CILow, 'g', 6, 64), strconv.FormatFloat(c.CIHigh, 'g', 6, 64)
			}
			trivial, margin := "", ""
			if c.Compare != nil && c.Compare.Trivial != "" {
				trivial, margin = c.Compare.Trivial, c.Compare.Margin.String()
			}
			if err := cw.Write([]string{nb, c.Key, c.Kind, c.Claim, c.Where, c.Quote, c.Paper, c.Measured, lo, hi, strconv.Itoa(c.Seeds),
				trivial, margin, PrivacyList(c.Privacy), c.Verdict, c.Robust.Text(c.Verdict), c.Why}); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// The JSON form of claims (how a notebook keeps them between cells and hands them to the runner) writes a
// NaN or infinite number as the string "NaN", "+Inf" or "-Inf", which plain JSON numbers cannot hold.

// jsonFloat is a float64 whose JSON form can be NaN or infinite.
type jsonFloat float64

// MarshalJSON writes finite values as numbers, others as "NaN", "+Inf" or "-Inf".
func (f jsonFloat) MarshalJSON() ([]byte, error) {
	x := float64(f)
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return json.Marshal(strconv.FormatFloat(x, 'g', -1, 64))
	}
	return json.Marshal(x)
}

// UnmarshalJSON reads what MarshalJSON writes.
func (f *jsonFloat) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		x, err := strconv.ParseFloat(s, 64)
		*f = jsonFloat(x)
		return err
	}
	var x float64
	err := json.Unmarshal(b, &x)
	*f = jsonFloat(x)
	return err
}

type claimJSON struct {
	Key      string          `json:"key"`
	Kind     string          `json:"kind,omitempty"`
	Claim    string          `json:"claim"`
	Quote    string          `json:"quote,omitempty"`
	Where    string          `json:"where,omitempty"`
	Paper    string          `json:"paper"`
	Measured string          `json:"measured"`
	Verdict  string          `json:"verdict"`
	CILow    jsonFloat       `json:"ci_low,omitempty"`
	CIHigh   jsonFloat       `json:"ci_high,omitempty"`
	Seeds    int             `json:"seeds,omitempty"`
	Compare  *comparisonJSON `json:"compare,omitempty"`
	Privacy  []privacyJSON   `json:"privacy,omitempty"`
	Robust   *Robustness     `json:"robust,omitempty"`
	Why      string          `json:"why,omitempty"`
}

type comparisonJSON struct {
	A, B    string
	Trivial string
	Margin  [3]jsonFloat // mean, low, high
}

type privacyJSON struct {
	Method         string
	Epsilon, Delta jsonFloat
	NonPrivate     bool `json:",omitempty"`
}

// MarshalJSON writes c with NaN and infinite numbers as strings.
func (c Claim) MarshalJSON() ([]byte, error) {
	w := claimJSON{Key: c.Key, Kind: c.Kind, Claim: c.Claim, Quote: c.Quote, Where: c.Where, Paper: c.Paper, Measured: c.Measured,
		Verdict: c.Verdict, CILow: jsonFloat(c.CILow), CIHigh: jsonFloat(c.CIHigh), Seeds: c.Seeds, Robust: c.Robust, Why: c.Why}
	if p := c.Compare; p != nil {
		w.Compare = &comparisonJSON{A: p.A, B: p.B, Trivial: p.Trivial,
			Margin: [3]jsonFloat{jsonFloat(p.Margin.Mean), jsonFloat(p.Margin.Low), jsonFloat(p.Margin.High)}}
	}
	for _, p := range c.Privacy {
		w.Privacy = append(w.Privacy, privacyJSON{Method: p.Method, Epsilon: jsonFloat(p.Epsilon), Delta: jsonFloat(p.Delta), NonPrivate: p.NonPrivate})
	}
	return json.Marshal(w)
}

// UnmarshalJSON reads what MarshalJSON writes.
func (c *Claim) UnmarshalJSON(b []byte) error {
	var w claimJSON
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*c = Claim{Key: w.Key, Kind: w.Kind, Claim: w.Claim, Quote: w.Quote, Where: w.Where, Paper: w.Paper, Measured: w.Measured,
		Verdict: w.Verdict, CILow: float64(w.CILow), CIHigh: float64(w.CIHigh), Seeds: w.Seeds, Robust: w.Robust, Why: w.Why}
	if p := w.Compare; p != nil {
		c.Compare = &Comparison{A: p.A, B: p.B, Trivial: p.Trivial,
			Margin: Interval{Mean: float64(p.Margin[0]), Low: float64(p.Margin[1]), High: float64(p.Margin[2])}}
	}
	for _, p := range w.Privacy {
		c.Privacy = append(c.Privacy, Privacy{Method: p.Method, Epsilon: float64(p.Epsilon), Delta: float64(p.Delta), NonPrivate: p.NonPrivate})
	}
	return nil
}
