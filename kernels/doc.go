// Package kernels holds the project's Jupyter kernel installer (install.sh: GoNB with the kernel specs
// gonb-dprl and gonb-dprl-batch wired to this repository) and the headless notebook runner built on it:
// execute notebooks with Jupyter's nbconvert, check the executed notebooks (no error output, at least one
// inline image), render HTML reports, and check a browser screenshot of a report.
//
// The command in kernels/nbrun drives it; `make notebooks` and `make test` call that command.
package kernels
