// Package repro holds what the paper reproductions under it share: the claims table a notebook builds cell by
// cell (Claim, RecordClaims, ShowClaims). Each sub-package reproduces one paper (balle2016, xie2019,
// wanghegde2019, sharma, seoyang2020) or walks through one topic (accounting: mechanisms and accountants;
// adhoc: private estimates on a user's own data). A reproduction package holds the paper's constants, its
// experiment grids, the published-versus-corrected calibrations, the figure and table builders the notebook
// calls, and the audit cases of the paper's algorithms. Library packages never import these packages.
package repro
