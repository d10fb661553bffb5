// Package crosscheck compares dprl against the reference libraries live: dp_accounting and prv_accountant
// for the accountants, Gymnasium for the environments. It holds no library code; its tests generate seeded
// random cases, compute dprl's values, ask ref.py (run in the pinned virtual environment that venv.sh builds
// from requirements.lock at build/crosscheck-venv) for the references, and assert the agreement stated on
// each test.
//
// `make crosscheck` (run by `make test`) builds the environment and runs the tests with DPRL_CROSSCHECK=1,
// which makes a missing environment a failure; a plain `go test ./...` skips them when the environment is
// absent. `make bench` runs cmd/bench, which times dprl and the references on the same workloads in one run
// and writes build/bench/ratios.csv.
package crosscheck
