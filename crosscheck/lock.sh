#!/usr/bin/env bash
# Regenerates the two locks (exact versions and sha256 hashes of every wheel/sdist): requirements.lock from
# requirements.in (the cross-check environment), then requirements-perf.lock from requirements-perf.in (the
# performance-anchor environment: the first plus PyTorch and Opacus, constrained to the first's versions).
# pip-compile keeps the versions already in a lock unless an .in file asks otherwise. Run it only when an
# .in file changes; commit the .in and .lock files together.
set -euo pipefail
cd "$(dirname "$0")"
tools="$(mktemp -d)"
trap 'rm -rf "$tools"' EXIT
python3 -m venv "$tools/venv"
"$tools/venv/bin/pip" install -q pip-tools
for name in requirements requirements-perf; do
	"$tools/venv/bin/pip-compile" --generate-hashes --allow-unsafe --strip-extras --no-header --no-emit-find-links \
		-q -o "$name.lock" "$name.in"
done
