#!/usr/bin/env bash
# Regenerates requirements.lock (exact versions and sha256 hashes of every wheel/sdist) from requirements.in.
# Run it only when requirements.in changes; commit both files together.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
tools="$(mktemp -d)"
trap 'rm -rf "$tools"' EXIT
python3 -m venv "$tools/venv"
"$tools/venv/bin/pip" install -q pip-tools
"$tools/venv/bin/pip-compile" --generate-hashes --allow-unsafe --strip-extras --no-header --no-emit-find-links \
	-q -o "$here/requirements.lock" "$here/requirements.in"
