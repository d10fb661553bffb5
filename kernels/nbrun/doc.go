// Command nbrun executes the project's notebooks headlessly with the gonb-dprl-batch kernel and writes the
// executed notebooks and HTML reports into a folder. It exits non-zero if any cell of any notebook fails or a
// notebook shows no inline image.
//
//	go run ./kernels/nbrun [-out build/notebooks] [-quick] [-screenshot 00-tour] [notebook.ipynb | dir]...
//
// With no arguments it runs every notebook in notebooks/. -quick sets DPRL_QUICK=1 for the kernels (fewer
// trials, same code paths). -screenshot NAME renders NAME's HTML report in headless Chromium and checks that
// the screenshot shows a plot. The kernels run with a temporary folder ($TMPDIR) and a privacy-budget store
// (OUT/budgets) of this run's own, so two runs at once share neither.
//
// It gathers the claims table every executed notebook shows (display.ShowClaims sends its rows under
// display.ClaimsMIME) into OUT/claims.csv (columns report.ClaimsCSVColumns) and lists the rows that do not
// yet stand as verdicts (repro.CheckClaim); -strict-claims makes those a failure.
package main
