// Command nbrun executes the project's notebooks headlessly with the gonb-dprl-batch kernel and writes the
// executed notebooks and HTML reports into a folder. It exits non-zero if any cell of any notebook fails or a
// notebook shows no inline image.
//
//	go run ./kernels/nbrun [-out build/notebooks] [-quick] [-screenshot 00-tour] [notebook.ipynb | dir]...
//
// With no arguments it runs every notebook in notebooks/. -quick sets DPRL_QUICK=1 for the kernels (fewer
// trials, same code paths). -screenshot NAME renders NAME's HTML report in headless Chromium and checks that
// the screenshot shows a plot.
package main
