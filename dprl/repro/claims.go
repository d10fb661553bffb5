package repro

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/dprl-project/dprl/dprl/report"
)

// Claim is one row of a notebook's reproduction table (report.Claim: the row a report.Sink receives). The
// package doc says what each kind of row must hold; Record decides the verdicts of comparison rows.
type Claim = report.Claim

// The parts of a claim row, as report defines them.
type (
	// Comparison is what a row saying "A beats (or matches) B" measures against the trivial reference.
	Comparison = report.Comparison
	// Interval is an estimate with its 95% interval.
	Interval = report.Interval
	// Privacy is the certified (ε, δ) of one compared method.
	Privacy = report.Privacy
	// Robustness is a verdict recomputed under the alternatives of a choice the paper leaves open.
	Robustness = report.Robustness
	// Alternative is one setting of an open choice and the verdict under it.
	Alternative = report.Alternative
)

// The kinds of row (report.KindPaper, …).
const (
	KindPaper    = report.KindPaper    // the paper's own statement, quoted
	KindFigure   = report.KindFigure   // what we read off one of the paper's figures
	KindSanity   = report.KindSanity   // a check of ours, not the paper's (its own table)
	KindAnalysis = report.KindAnalysis // an analysis of ours that the paper does not make (its own table)
)

// The verdicts a tested claim can get.
const (
	Reproduced    = "reproduced"     // the interval lies wholly on the side the paper claims
	NotReproduced = "not reproduced" // the interval lies wholly on the other side
	Inconclusive  = "inconclusive"   // the interval straddles the boundary
)

// Verdict decides a claim from a 95% interval [lo, hi] of the measured quantity, against a test stated
// before the run: the paper claims the quantity is above boundary (above = true) or below it.
func Verdict(lo, hi, boundary float64, above bool) string {
	switch {
	case math.IsNaN(lo) || math.IsNaN(hi):
		return Inconclusive
	case above && lo > boundary, !above && hi < boundary:
		return Reproduced
	case above && hi < boundary, !above && lo > boundary:
		return NotReproduced
	}
	return Inconclusive
}

// Tested is a claim row decided by Verdict: the measured text is "mean [lo, hi]" (formatted with format,
// e.g. "%.3g"), and the interval and seed count are kept.
func Tested(c Claim, mean, lo, hi float64, seeds int, format string, boundary float64, above bool) Claim {
	c.Measured = fmt.Sprintf(format+" ["+format+", "+format+"]", mean, lo, hi)
	c.CILow, c.CIHigh, c.Seeds = lo, hi, seeds
	c.Verdict = Verdict(lo, hi, boundary, above)
	return c
}

// Record decides every row by the rules of Decide and sends the rows to out (report.Sink.Claims). It is how
// a reproduction records its claims.
func Record(out report.Sink, rows ...Claim) {
	decided := make([]Claim, len(rows))
	for i, c := range rows {
		decided[i] = Decide(c)
	}
	out.Claims(decided...)
}

// PrivacyTolerance is the relative difference below which two certified ε (or δ) count as equal.
const PrivacyTolerance = 1e-6

// Decide applies the verdict rules of a comparison (a row with Compare set; other rows are returned as they
// are). The row is Inconclusive, whatever its test said, when
//   - A does not beat the trivial reference (Compare.Margin's interval is not wholly above 0, or no trivial
//     reference was measured): why "uninformative: A ≈ <trivial>";
//   - the private methods it lists in Privacy differ in ε or δ by more than PrivacyTolerance (relative):
//     why "unequal privacy".
//
// The reasons are put before the row's Why, with the verdict the test alone gave. Deciding a row twice
// changes nothing.
func Decide(c Claim) Claim {
	reasons := decideReasons(c)
	if len(reasons) == 0 {
		return c
	}
	prefix := strings.Join(reasons, "; ")
	if strings.HasPrefix(c.Why, prefix) {
		return c
	}
	why := prefix + "; the test alone: " + c.Verdict
	if c.Why != "" {
		why += ". " + c.Why
	}
	c.Verdict, c.Why = Inconclusive, why
	return c
}

// decideReasons are the reasons a comparison row cannot be reproduced or not reproduced.
func decideReasons(c Claim) []string {
	if c.Compare == nil {
		return nil
	}
	var reasons []string
	if p := c.Compare; p.Trivial == "" {
		reasons = append(reasons, fmt.Sprintf("uninformative: %s was not measured against a trivial reference", p.A))
	} else if !(p.Margin.Low > 0) {
		reasons = append(reasons, fmt.Sprintf("uninformative: %s ≈ %s (%s − %s: %s)", p.A, p.Trivial, p.A, p.Trivial, p.Margin))
	}
	if unequalPrivacy(c.Privacy) {
		reasons = append(reasons, "unequal privacy ("+report.PrivacyList(c.Privacy)+")")
	}
	return reasons
}

// unequalPrivacy reports whether two private methods of ps differ in ε or δ by more than PrivacyTolerance.
func unequalPrivacy(ps []Privacy) bool {
	var first *Privacy
	for i := range ps {
		p := &ps[i]
		if p.NonPrivate {
			continue
		}
		if first == nil {
			first = p
			continue
		}
		if !relEqual(p.Epsilon, first.Epsilon) || !relEqual(p.Delta, first.Delta) {
			return true
		}
	}
	return false
}

func relEqual(a, b float64) bool {
	return a == b || math.Abs(a-b) <= PrivacyTolerance*math.Max(math.Abs(a), math.Abs(b))
}

// CheckRules reports what breaks the claim model in a row, whatever its size: a kind that is not one of the
// four; a reproduced comparison that Decide would not let stand (uninformative or at unequal privacy); a
// not-reproduced paper or figure-reading row without Robust; an open choice without alternatives; a privacy
// entry that is not a method with a valid (ε, δ). Rows without a Kind (not yet rewritten) and our own sanity
// checks and analyses are spared the Robust rule: it is about the paper's claims.
func CheckRules(c Claim) error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("claim %q: "+format, append([]any{c.Key}, args...)...))
	}
	switch c.Kind {
	case "", KindPaper, KindFigure, KindSanity, KindAnalysis:
	default:
		bad("kind %q is not one of %q", c.Kind, report.Kinds)
	}
	if r := decideReasons(c); len(r) > 0 && c.Verdict != Inconclusive {
		bad("verdict %q although %s (record rows with repro.Record)", c.Verdict, strings.Join(r, "; "))
	}
	if (c.Kind == KindPaper || c.Kind == KindFigure) && c.Verdict == NotReproduced && c.Robust == nil {
		bad("not reproduced without robust: recompute the verdict under each alternative the paper leaves open")
	}
	if r := c.Robust; r != nil && r.Choice != "" && len(r.Alternatives) == 0 {
		bad("robust: choice %q without alternatives", r.Choice)
	}
	for _, p := range c.Privacy {
		switch {
		case p.Method == "" || strings.ContainsAny(p.Method, ":;"):
			bad("privacy: method %q must be a non-empty name without ':' or ';'", p.Method)
		case p.NonPrivate:
		case !(p.Epsilon >= 0) || math.IsInf(p.Epsilon, 0) || !(p.Delta >= 0 && p.Delta <= 1):
			bad("privacy: %s has ε = %g, δ = %g; want ε ≥ 0 finite and δ in [0, 1]", p.Method, p.Epsilon, p.Delta)
		}
	}
	return errors.Join(errs...)
}

// CheckClaim reports what keeps a claim row from standing as a verdict: CheckRules, a NaN anywhere, fewer
// than 10 seeds, or a verdict other than Reproduced, NotReproduced or Inconclusive (nil when it stands).
func CheckClaim(c Claim) error {
	var err error
	switch {
	case strings.Contains(c.Measured, "NaN") || math.IsNaN(c.CILow) || math.IsNaN(c.CIHigh):
		err = fmt.Errorf("claim %q: measured %q has a NaN", c.Key, c.Measured)
	case c.Seeds < 10:
		err = fmt.Errorf("claim %q: %d seeds, want at least 10", c.Key, c.Seeds)
	case c.Verdict != Reproduced && c.Verdict != NotReproduced && c.Verdict != Inconclusive:
		err = fmt.Errorf("claim %q: verdict %q is not one of %q, %q, %q", c.Key, c.Verdict, Reproduced, NotReproduced, Inconclusive)
	}
	return errors.Join(CheckRules(c), err)
}

// CheckStrict is the complete-row check a reproduction switches on once its rows are rewritten: CheckRules;
// a Kind on every row; on a KindPaper row a Quote that q holds (Quotes.Check) and a Where; on a KindFigure
// row a Where; on a comparison row A, B and a trivial reference, and A and B listed in Privacy. A Quote on a
// row of any kind must be in q.
func CheckStrict(c Claim, q *Quotes) error {
	errs := []error{CheckRules(c)}
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("claim %q: "+format, append([]any{c.Key}, args...)...))
	}
	switch c.Kind {
	case "":
		bad("no kind (one of %q)", report.Kinds)
	case KindPaper:
		if c.Quote == "" {
			bad("a paper row without the paper's words (Quote)")
		}
		fallthrough
	case KindFigure:
		if c.Where == "" {
			bad("a %s row without Where (section, figure or table)", c.Kind)
		}
	}
	if c.Quote != "" {
		if err := q.Check(c.Quote); err != nil {
			bad("%v", err)
		}
	}
	if p := c.Compare; p != nil {
		if p.A == "" || p.B == "" || p.Trivial == "" {
			bad("a comparison needs A, B and the trivial reference (A %q, B %q, trivial %q)", p.A, p.B, p.Trivial)
		}
		for _, m := range []string{p.A, p.B} {
			if !listed(c.Privacy, m) {
				bad("%q is compared but not listed in Privacy (%s)", m, report.PrivacyList(c.Privacy))
			}
		}
	}
	return errors.Join(errs...)
}

func listed(ps []Privacy, method string) bool {
	for _, p := range ps {
		if p.Method == method {
			return true
		}
	}
	return false
}
