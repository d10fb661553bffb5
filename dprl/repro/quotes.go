package repro

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"unicode"
)

// MinQuoteWords is the fewest consecutive words of the paper a paper row's Quote must hold.
const MinQuoteWords = 6

// Quotes is a reproduction package's copy of the sentences its claims quote (testdata/quotes.txt), so that
// its tests can check every Quote without the paper, which the repository does not hold.
//
// The file holds passages copied from the paper as printed, separated by blank lines; a line starting with
// "#" is a comment, and the comment "# paper: FILE" names the paper's text among the papers (the project's
// shared/papers folder; its README lists them), against which the passages themselves are checked when it
// is there (CheckPassages).
type Quotes struct {
	Paper    string   // the paper's text file, e.g. "002_487bd153e9f1f780.txt"
	Passages []string // each passage as written in the file, lines joined
}

// ReadQuotes reads a quotes file (see Quotes).
func ReadQuotes(path string) (*Quotes, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("repro: quotes: %w", err)
	}
	q, err := ParseQuotes(string(b))
	if err != nil {
		return nil, fmt.Errorf("repro: %s: %w", path, err)
	}
	return q, nil
}

// ParseQuotes parses the text of a quotes file (see Quotes); it must name its paper.
func ParseQuotes(text string) (*Quotes, error) {
	q := &Quotes{}
	var cur []string
	flush := func() {
		if len(cur) > 0 {
			q.Passages = append(q.Passages, strings.Join(cur, "\n"))
			cur = nil
		}
	}
	for _, line := range strings.Split(text, "\n") {
		t := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(t, "#"):
			if name, ok := strings.CutPrefix(t, "# paper:"); ok {
				q.Paper = strings.TrimSpace(name)
			}
		case t == "":
			flush()
		default:
			cur = append(cur, line)
		}
	}
	flush()
	if q.Paper == "" {
		return nil, errors.New(`no "# paper: FILE" line naming the paper's text`)
	}
	return q, nil
}

// ellipsis marks words left out of a quote: "...", "…", "[...]" or "[…]".
var ellipsis = regexp.MustCompile(`\[?(\.\.\.|…)\]?`)

// Check reports whether quote is the paper's words: after NormalizeText, it lies within one passage of q,
// starting at a word; words left out are marked by an ellipsis ("…", "...", "[…]"), each part found in
// order, and the longest part has at least MinQuoteWords words.
func (q *Quotes) Check(quote string) error {
	if q == nil {
		return fmt.Errorf("quote %q: no quotes file to check it against", quote)
	}
	var parts []string
	longest := 0
	for _, p := range ellipsis.Split(NormalizeText(quote), -1) {
		if p = strings.TrimSpace(p); p != "" {
			parts = append(parts, p)
			longest = max(longest, len(strings.Fields(p)))
		}
	}
	if longest < MinQuoteWords {
		return fmt.Errorf("quote %q: %d consecutive words, want at least %d", quote, longest, MinQuoteWords)
	}
	for _, passage := range q.Passages {
		if containsInOrder(" "+NormalizeText(passage), parts) {
			return nil
		}
	}
	return fmt.Errorf("quote %q is not in the quotes file of %s (after normalisation: %q)", quote, q.Paper, strings.Join(parts, " … "))
}

// containsInOrder reports whether each part occurs in text, starting at a word (after a space), each after
// the one before.
func containsInOrder(text string, parts []string) bool {
	for _, p := range parts {
		i := strings.Index(text, " "+p)
		if i < 0 {
			return false
		}
		text = text[i+1+len(p):]
	}
	return true
}

// CheckPassages reports every passage of q that is not in paper, the paper's text (ReadPaper), after
// NormalizeText: the check that the quotes file is the paper's words.
func CheckPassages(q *Quotes, paper string) error {
	text := " " + NormalizeText(paper)
	var errs []error
	for _, p := range q.Passages {
		if !strings.Contains(text, " "+NormalizeText(p)) {
			errs = append(errs, fmt.Errorf("passage not in %s: %q", q.Paper, p))
		}
	}
	return errors.Join(errs...)
}

// ReadPaper reads a paper's text from the papers folder: the file as is, or for a JSON record (one of the
// papers is stored so) its "full_text".
func ReadPaper(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	if strings.HasPrefix(strings.TrimSpace(string(b)), "{") {
		var rec struct {
			FullText string `json:"full_text"`
		}
		if err := json.Unmarshal(b, &rec); err != nil {
			return "", fmt.Errorf("repro: %s: %w", path, err)
		}
		return rec.FullText, nil
	}
	return string(b), nil
}

// typography maps what typesetting and text extraction change to plain characters: ligatures, curly
// quotes and primes, dashes and the minus sign, unusual spaces; soft hyphens and zero-width spaces vanish.
var typography = strings.NewReplacer(
	"ﬀ", "ff", "ﬁ", "fi", "ﬂ", "fl", "ﬃ", "ffi", "ﬄ", "ffl", "ﬅ", "st", "ﬆ", "st",
	"‘", "'", "’", "'", "‚", "'", "‛", "'", "′", "'", "`", "'",
	"“", `"`, "”", `"`, "„", `"`, "‟", `"`, "″", `"`, "«", `"`, "»", `"`,
	"‐", "-", "‑", "-", "‒", "-", "–", "-", "—", "-", "―", "-", "−", "-",
	"\u00ad", "", "\u200b", "", "\u00a0", " ", "\u2002", " ", "\u2003", " ", "\u2009", " ", "\u202f", " ",
)

// lineEndHyphen is a hyphen at the end of a line (a word split by typesetting).
var lineEndHyphen = regexp.MustCompile(`-[ \t]*\r?\n\s*`)

// NormalizeText is the form in which quotes are compared with the paper: typography made plain (ligatures,
// quotes, dashes, spaces), words split at a line end joined, every hyphen inside a word dropped (so
// "off-policy", "off-\npolicy" and an extraction's "offpolicy" agree), and every run of white space,
// line breaks included, one space. Letter case and other punctuation are kept.
func NormalizeText(s string) string {
	s = lineEndHyphen.ReplaceAllString(typography.Replace(s), "")
	r := []rune(s)
	var b strings.Builder
	for i, c := range r {
		if c == '-' && i > 0 && i+1 < len(r) && !unicode.IsSpace(r[i-1]) && !unicode.IsSpace(r[i+1]) {
			continue
		}
		b.WriteRune(c)
	}
	return strings.Join(strings.Fields(b.String()), " ")
}
