package repro

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestNormalizeText(t *testing.T) {
	for in, want := range map[string]string{
		"the ﬁrst ﬂow":                      "the first flow",
		"an off-\npolicy esti-  \n  mator":  "an offpolicy estimator",
		"off-policy, user-centric":          "offpolicy, usercentric",
		"usercentric":                       "usercentric",
		"“DP-Critic” isn’t — clearly":       `"DPCritic" isn't - clearly`,
		"ε − 1 and x−1":                     "ε - 1 and x1",
		"a\tb \n\n c\u00a0d":                "a b c d",
		"soft\u00adhyphen":                  "softhyphen",
		"  The DP-Actor\r\nexhibited  the ": "The DPActor exhibited the",
	} {
		if got := NormalizeText(in); got != want {
			t.Errorf("NormalizeText(%q) = %q, want %q", in, got, want)
		}
	}
}

const quotesFile = `# Quotes of a test paper.
# paper: test.txt

The DP-Critic achieved the highest perfor-
mance in all environments.

We ﬁx δ in all our experiments, and the noise
decreases rapidly with the batch size.
`

func TestQuotesCheck(t *testing.T) {
	q, err := ParseQuotes(quotesFile)
	if err != nil {
		t.Fatal(err)
	}
	if q.Paper != "test.txt" || len(q.Passages) != 2 {
		t.Fatalf("parsed %+v", q)
	}
	for _, ok := range []string{
		"The DP-Critic achieved the highest performance in all environments.",
		"The DP‑Critic achieved the highest\nperformance",
		"We fix δ in all our experiments",
		"We fix δ in all our experiments, and the noise … with the batch size",
		"We fix δ [...] experiments, and the noise decreases rapidly",
		"DPCritic achieved the highest performance in all",
	} {
		if err := q.Check(ok); err != nil {
			t.Errorf("Check(%q): %v", ok, err)
		}
	}
	for quote, why := range map[string]string{
		"the highest performance in all":                                        "5 consecutive words",
		"the DP-Critic achieved the highest performance":                        "not in the quotes file", // case kept
		"Critic achieved the highest performance in all":                        "not in the quotes file", // not at a word start
		"The DP-Critic achieved the highest performance in all our experiments": "not in the quotes file", // across passages
		"the noise decreases rapidly with the batch … We fix δ":                 "not in the quotes file", // out of order
		"We fix δ … our experiments":                                            "consecutive words",
	} {
		if err := q.Check(quote); err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("Check(%q) = %v, want an error saying %q", quote, err, why)
		}
	}
	if _, err := ParseQuotes("just a passage\n"); err == nil {
		t.Error("a quotes file without its paper parsed")
	}
}

func TestCheckPassagesAndReadPaper(t *testing.T) {
	q, _ := ParseQuotes(quotesFile)
	dir := t.TempDir()
	paper := "Results. The DP-Critic achieved the highest performance\nin all environments. We fix δ in all our experiments, and the noise decreases rapidly with the batch size. End."
	plain := filepath.Join(dir, "plain.txt")
	os.WriteFile(plain, []byte(paper), 0o644)
	record := filepath.Join(dir, "record.txt")
	os.WriteFile(record, []byte(`{"title": "T", "full_text": "Results. The DP-Critic achieved the highest perfor-\nmance in all environments.\nWe \ufb01x \u03b4 in all our experiments, and the noise decreases rapidly with the batch size."}`), 0o644)
	for _, path := range []string{plain, record} {
		text, err := ReadPaper(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := CheckPassages(q, text); err != nil {
			t.Errorf("%s: %v", path, err)
		}
	}
	if err := CheckPassages(q, "The DP-Critic achieved the highest performance in all environments."); err == nil || !strings.Contains(err.Error(), "δ in all our experiments") {
		t.Errorf("a passage missing from the paper: %v", err)
	}
	if _, err := ReadPaper(filepath.Join(dir, "none.txt")); err == nil {
		t.Error("a missing paper read")
	}
}
