// Package crosscheck compares dprl against the reference libraries live: dp_accounting and prv_accountant
// for the accountants, Gymnasium for the environments, PyTorch and Opacus for training. It holds no library
// code; its tests generate seeded random cases, compute dprl's values, ask ref.py for the references, and
// assert the agreement stated on each test.
//
// ref.py runs in one of two pinned virtual environments that venv.sh builds with hash-checked pip installs:
//   - the cross-check environment (requirements.lock, at build/crosscheck-venv; Python): dp_accounting,
//     prv_accountant, Gymnasium with Box2D and dp-accelerator, about 70 MB to download;
//   - the performance-anchor environment (requirements-perf.lock, at build/crosscheck-perf-venv;
//     PerfPython, `venv.sh perf`): the same versions plus PyTorch and Opacus, about 4.1 GB to download
//     (PyPI's torch is the CUDA build).
//
// `make crosscheck` (run by `make test`) builds the first and runs every test but the PyTorch/Opacus ones
// (the Makefile's CROSSCHECK_PERF_TESTS, skipped there by name); `make crosscheck-perf` (run by `make bench`)
// builds the second and runs those. Both set DPRL_CROSSCHECK=1, which makes a missing environment a
// failure, never a skip; a plain `go test ./...` skips a test whose environment is absent, and
// DPRL_CROSSCHECK=0 (`make unit`) skips them all. `make bench` then runs cmd/bench in the
// performance-anchor environment, which times dprl and the references on the same workloads in one run and
// writes build/bench/ratios.csv. lock.sh regenerates both locks from requirements.in and
// requirements-perf.in.
package crosscheck
