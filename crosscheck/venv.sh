#!/usr/bin/env bash
# Creates (or reuses) the cross-check virtual environment at build/crosscheck-venv from requirements.lock with
# `pip install --require-hashes`: every package is pinned and hash-checked. Prints the venv's python path.
# The venv is rebuilt when the lock changes (its hash is stored in the venv).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
venv="${DPRL_CROSSCHECK_VENV:-$root/build/crosscheck-venv}"
lock="$here/requirements.lock"
stamp="$venv/.lock-sha256"
want="$(sha256sum "$lock" | cut -d' ' -f1)"
if [[ -x "$venv/bin/python" && -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
	echo "$venv/bin/python"
	exit 0
fi
rm -rf "$venv"
python3 -m venv "$venv" >&2
"$venv/bin/pip" install -q --disable-pip-version-check --require-hashes --no-deps -r "$lock" >&2
"$venv/bin/python" -c 'import dp_accounting, prv_accountant, gymnasium, Box2D, torch, opacus, dp_accelerator' >&2
echo "$want" >"$stamp"
echo "$venv/bin/python"
