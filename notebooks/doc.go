// Package notebooks holds no code: this folder keeps the project's GoNB notebooks (00-tour … 07-ad-hoc),
// stored without outputs. Its test checks that every notebook is stored the way the project expects; run
// them with `make notebooks`.
package notebooks
