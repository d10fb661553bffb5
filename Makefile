# dprl: the two commands that matter are `make notebooks` (the main job) and `make test` (what CI runs).
SHELL := /bin/bash
GO := /usr/local/go/bin/go
export PATH := /usr/local/go/bin:$(shell /usr/local/go/bin/go env GOPATH 2>/dev/null)/bin:$(PATH)
# Everything Jupyter runs from the project's Python environment build/venv (kernels/requirements.lock), and the
# kernels are registered inside it, so a machine-wide Jupyter or kernel of the same name is never used.
VENV := build/venv
JUPYTER := $(VENV)/bin/jupyter
export JUPYTER_DATA_DIR := $(CURDIR)/$(VENV)/share/jupyter
export PYDEVD_DISABLE_FILE_VALIDATION := 1
ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root)
JUPYTER_FLAGS := --ip=127.0.0.1 --no-browser --ServerApp.root_dir=notebooks $(ROOT_FLAG)

.PHONY: notebooks test vet lint unit race fuzz test-notebooks test-lab kernel lab jupyter strip clean crosscheck crosscheck-venv crosscheck-perf crosscheck-perf-venv bench

## notebooks: install what is missing, execute every notebook at its default size, write HTML reports to build/notebooks/
notebooks: kernel
	$(GO) run ./kernels/nbrun -jupyter $(JUPYTER) -out build/notebooks

## test: go vet, staticcheck, go test, the privacy packages' concurrency tests under the race detector, a short fuzzing pass, the live cross-checks against the reference libraries, the
## sharded sweep on a one-node Slurm, every
## notebook headlessly in quick mode, and JupyterLab driven in a real browser
test: vet lint unit race fuzz crosscheck test-slurm test-notebooks test-lab

vet:
	$(GO) vet ./...

## lint: gofmt and staticcheck, pinned in .ci/tools/go.mod (a module of its own, so the library's go.mod stays clean)
lint:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$unformatted" ]; then echo "gofmt needed: $$unformatted"; exit 1; fi
	$(GO) tool -modfile=.ci/tools/go.mod staticcheck ./...

unit:
	DPRL_CROSSCHECK=0 $(GO) test ./...

## race: the privacy packages' concurrency tests under the race detector: Budget spent from many goroutines,
## accountants sharing the PLD's transform caches, expertdp's accounting caches (about a minute with builds)
race:
	$(GO) test -race -count=1 -run 'Budget|Parallel|Concurrent' ./mechanisms ./dprl/expertdp

## crosscheck: build the pinned cross-check environment (crosscheck/requirements.lock: dp_accounting,
## prv_accountant, Gymnasium with Box2D, dp-accelerator; about 70 MB to download) and run the live cross-checks
## against it; a missing environment fails here. The PyTorch/Opacus agreement tests (CROSSCHECK_PERF_TESTS) need
## the performance-anchor environment and run in `make crosscheck-perf` instead.
CROSSCHECK_PERF_TESTS := ^TestTrainingMatchesPyTorch$$
crosscheck: crosscheck-venv
	DPRL_CROSSCHECK=1 $(GO) test -count=1 -timeout 60m -v -skip '$(CROSSCHECK_PERF_TESTS)' ./crosscheck

crosscheck-venv:
	crosscheck/venv.sh >/dev/null

## crosscheck-perf: build the performance-anchor environment (crosscheck/requirements-perf.lock: the above plus
## PyTorch 2.9.1 and Opacus 1.6.0; about 4.1 GB to download) and run the tests that need it (a name in
## CROSSCHECK_PERF_TESTS that matches no test is an error, not a silent pass)
crosscheck-perf: crosscheck-perf-venv
	@$(GO) test -list '$(CROSSCHECK_PERF_TESTS)' ./crosscheck | grep -q '^Test' || { echo "CROSSCHECK_PERF_TESTS matches no test in ./crosscheck"; exit 1; }
	DPRL_CROSSCHECK=1 $(GO) test -count=1 -timeout 30m -v -run '$(CROSSCHECK_PERF_TESTS)' ./crosscheck

crosscheck-perf-venv:
	crosscheck/venv.sh perf >/dev/null

## bench: the PyTorch/Opacus agreement tests (crosscheck-perf), then time dprl and the reference libraries on the
## same workloads in one run; writes build/bench/ratios.csv
bench: crosscheck-perf
	mkdir -p build/bench
	set -o pipefail; $(GO) test -run '^$$' -bench 'RDPEpsilon10kSteps|RDPDPAcceleratorGrid|PLDEpsilon10kSteps|AnalyticGaussianSigma|Step|Mul256' -benchmem -benchtime 1s ./mechanisms ./envs ./dprl/nn/... | tee build/bench/go-bench.txt
	$(GO) run ./crosscheck/cmd/bench -out build/bench/ratios.csv

## fuzz: run every fuzz target for FUZZTIME (seed corpora under each package's testdata/fuzz)
FUZZTIME ?= 15s
FUZZ_TARGETS := ./trajectory:FuzzReadCSV ./trajectory:FuzzReadJSON ./mechanisms:FuzzPLDParams ./mechanisms:FuzzRDPParams ./dprl/sweep:FuzzParseSpec ./mechanisms:FuzzCalibrationInverses
fuzz:
	@for t in $(FUZZ_TARGETS); do \
		$(GO) test $${t%%:*} -run '^$$' -fuzz "^$${t##*:}\$$" -fuzztime $(FUZZTIME) -fuzzminimizetime 2s || exit 1; \
	done

test-notebooks:
	kernels/install.sh --browser
	$(GO) run ./kernels/nbrun -jupyter $(JUPYTER) -quick -out build/test-notebooks -screenshot 00-tour

## test-lab: JupyterLab in headless Chromium (Playwright): runs notebooks 00, 02 and 07 through the UI, screenshots in build/lab/.
## Stress mode: `make test-lab LABTEST_REPEAT=20 LABTEST_BURN=2` runs it 20 times (build/lab/run-NN/) while 2 processes
## keep the CPUs busy, and writes the pass count and time per run to build/lab/stress.txt
LABTEST_REPEAT ?= 1
LABTEST_BURN ?= 0
test-lab:
	kernels/install.sh --browser
	$(VENV)/bin/python kernels/labtest.py --out build/lab --repeat $(LABTEST_REPEAT) --burn $(LABTEST_BURN)

## kernel: create build/venv from the lock, install goimports, gopls and GoNB where missing; register the kernels
kernel:
	kernels/install.sh

## lab: JupyterLab on 127.0.0.1 (port 8888 or the next free one) with the Go (dprl) kernel; prints the URL with its token
lab: kernel
	$(JUPYTER) lab $(JUPYTER_FLAGS)

jupyter: lab

## strip: remove outputs and execution counts from the notebooks before committing
strip:
	$(JUPYTER) nbconvert --clear-output --inplace --ClearMetadataPreprocessor.enabled=True \
		--ClearMetadataPreprocessor.preserve_nb_metadata_mask='[("kernelspec",), ("language_info", "name")]' notebooks/*.ipynb

clean:
	rm -rf build dprl-figures

## audit: the tight privacy audit table (every mechanism and paper pipeline, valid and broken/published variants):
## writes build/audit/audit.csv, sweep.csv and audit.md and prints the table
.PHONY: audit
audit:
	$(GO) run ./dprl/repro/accounting/cmd/audit -out build/audit

## ---- sweeps at scale (dprl/cmd/dprl; sweeps/README.md) ----
.PHONY: dprl test-slurm sweep-plan sweep-local sweep-slurm slurm-up slurm-down

## dprl: build the sweep command (with its commit stamped) into build/bin/dprl
dprl:
	$(GO) build -buildvcs=true -o build/bin/dprl ./dprl/cmd/dprl

## test-slurm: a one-node Slurm of its own (installs slurm-wlm and munge when missing; a fresh state directory,
## a free port, MaxArraySize 3) runs the generated script: paths with spaces and quotes, site options read
## back, split arrays, a SIGKILLed shard and a time-limit requeue that resume from their checkpoints,
## resubmit, retries, cancel, salloc, and a second run beside it; every merged table must equal the
## single-process run byte for byte (sweeps/test-slurm.sh)
test-slurm:
	sweeps/test-slurm.sh

## sweep-plan SPEC=sweeps/specs/NAME.json: the shards and the work in each
SPEC ?= sweeps/specs/xie2019-fig1a.json
sweep-plan: dprl
	build/bin/dprl sweep plan $(SPEC)

## sweep-local SPEC=...: run every shard of SPEC here, one after another (resumable: a stopped shard resumes
## from its checkpoint), and merge into build/sweeps/<name>/merged.csv, where the notebooks look for it
sweep-local: dprl
	build/bin/dprl sweep local $(SPEC)

## sweep-slurm SPEC=...: write build/sweeps/<name>/sweep.sbatch and submit it (arrays + merge job)
sweep-slurm: dprl
	build/bin/dprl sweep slurm $(SPEC) --dprl $(CURDIR)/build/bin/dprl --submit

## slurm-up / slurm-down: the one-node Slurm of sweeps/slurm-local.sh; slurm-up prints the exports to paste
## (DPRL_SLURM_STATE and SLURM_CONF), which slurm-down then reads
slurm-up:
	sweeps/slurm-local.sh up
slurm-down:
	sweeps/slurm-local.sh down

## ---- container images (docker/README.md) ----
.PHONY: image test-image

## image: the JupyterLab image localhost/dprl-lab and the command image localhost/dprl-cmd, built with buildah
## (chroot isolation, no daemon) on a Debian 12 root filesystem from debootstrap; needs root
image:
	docker/image.sh

## test-image: inside the images, a notebook run headlessly through the registered kernel, JupyterLab's
## /api/status on loopback, and a small sweep planned, run and merged by the command image (docker/test-image.sh)
test-image:
	docker/test-image.sh
