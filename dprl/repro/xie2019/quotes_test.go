package xie2019_test

import (
	"testing"

	"github.com/dprl-project/dprl/dprl/repro/claimtest"
)

// TestQuotesInPaper: testdata/quotes.txt, against which the claims' quotes are checked, holds the paper's
// own words (skipped, saying so, where the papers are not at hand).
func TestQuotesInPaper(t *testing.T) { claimtest.QuotesInPaper(t) }
