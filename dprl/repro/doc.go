// Package repro holds what the paper reproductions under it share: the claim model of the claims table a
// notebook builds cell by cell, Figure (a plot with the note shown under it), and FullSize, which finds a
// figure's merged full-size sweep. Each
// sub-package reproduces one paper (balle2016, xie2019, wanghegde2019, sharma, seoyang2020) or walks
// through one topic (accounting: mechanisms and accountants; adhoc: private estimates on a user's own
// data). A reproduction package holds the paper's constants, its experiment grids, the published-versus-
// corrected calibrations, the figure and table builders the notebook calls, and the audit cases of the
// paper's algorithms. Library packages never import these packages.
//
// # The claim model
//
// A reproduction records what it found as claims rows (Claim, which is report.Claim) through the
// report.Sink it writes to: Record(out, rows...). In a notebook the display keeps them across cells and
// display.ShowClaims, in the last cell, shows them; in a test a report.Recorder keeps them
// (Recorder.ClaimRows); kernels/nbrun gathers every notebook's into build/notebooks/claims.csv.
//
// Every row has a Kind:
//   - KindPaper: a statement of the paper. Quote holds the paper's own words, at least MinQuoteWords
//     consecutive words exactly as printed (omissions marked "…"), and Where the section, figure or table
//     ("§7.1", "Fig. 2(a)", "Table 4"); Claim restates it in our words, Paper gives the paper's number.
//   - KindFigure: what we read off one of the paper's figures (Where names it; Claim says what is read).
//   - KindSanity: a check of ours (our estimate beats θ = 0, our learner beats the random policy).
//   - KindAnalysis: an analysis of ours that the paper does not make (what a corrected accounting costs).
//
// Sanity checks and analyses are shown in a table of their own, apart from the paper's claims. A setting of
// ours that the paper does not state is labelled "worked setting (ours)", never the paper's.
//
// A verdict rests on a test stated before the run: a 95% interval over at least 10 seeds against a
// boundary (Tested, Verdict), giving Reproduced, NotReproduced or Inconclusive. Record decides every row
// by the rules below (Decide), the only place they are applied:
//   - A comparison ("A beats B", "A matches B") sets Compare: A, B, the trivial reference of the domain
//     (θ = 0 or the zero estimate, the random policy, the untrained network) and A's margin over it with its
//     95% interval (positive: A is better). Unless that interval lies wholly above 0 the row is Inconclusive,
//     why "uninformative: A ≈ <trivial>": beating B says nothing about A when A does no better than the
//     trivial reference.
//   - A comparison lists in Privacy the certified (ε, δ) of every method it compares, by the exact
//     accountant (a non-private method with NonPrivate set). Private methods whose ε or δ differ by more than
//     PrivacyTolerance (relative) make the row Inconclusive, why "unequal privacy".
//   - A NotReproduced paper or figure-reading row carries Robust: the choice the paper leaves open and the verdict recomputed under
//     each alternative ("yes" when they all agree, "depends on <choice>" otherwise); an empty Choice says the
//     paper leaves nothing open.
//
// Quotes are checked against a copy of the quoted sentences in the reproduction package,
// testdata/quotes.txt (Quotes: passages separated by blank lines, "# paper: FILE" naming the paper's text),
// after NormalizeText (ligatures, quotes, dashes, hyphenation at line ends, hyphens inside words and white
// space made plain). The package's tests check their rows with package claimtest: claimtest.Rows applies
// the rules and checks any quote; claimtest.Strict (the mode a package switches on once its rows are
// complete) also wants a Kind on every row, a checked Quote and a Where on every paper row, a Where on every
// figure reading, and a trivial reference and the compared methods' privacy on every comparison;
// claimtest.QuotesInPaper checks the quotes file against the paper itself when the papers are at hand.
// CheckRules, CheckClaim (the rules plus at least 10 seeds and no NaN: what a verdict needs) and CheckStrict
// are the same checks as functions.
package repro
