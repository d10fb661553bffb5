// Package badinput holds the project's bad-input table: one table-driven test (badinput_test.go) that calls
// every public constructor and entry point of the library — mechanisms, accountants, the estimators of every
// algorithm package, the environments, the dataset loaders, the experiment runner, figures and audits — with
// bad or extreme arguments.
//
// Each row names the case, the call (a func() error) and the parameter the error must name, spelled as the
// caller spelled it (the exported field or the argument name), with the offending value where the row gives
// one. A row passes only when the call returns such an error; it fails when the call accepts the input, names
// something else, panics (the panic is recovered and reported), takes longer than the case time limit (a
// hang), or returns a result together with its error (a release that should not have happened).
//
// The table lives in one place so that it grows with the API: a new exported constructor, option or entry
// point gets rows here. Beside it, fields_test.go walks the exported struct types of the privacy packages
// (from their source) and fails on any settable field that could change noise or accounting after
// validation: every type with an exported field must be classified as an input (copied and validated by the
// call that takes it), a report, an object without noise, or an object whose fields are perturbed one by one
// while its private releases must stay the same. The package has no code of its own besides this comment.
package badinput
