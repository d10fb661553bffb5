#!/usr/bin/env bash
# Creates (or reuses) one of the two reference virtual environments with `pip install --require-hashes`
# (every package pinned and hash-checked) and prints its python path:
#   venv.sh        the cross-check environment (requirements.lock: dp_accounting, prv_accountant, Gymnasium
#                  with Box2D, dp-accelerator) at $DPRL_CROSSCHECK_VENV or build/crosscheck-venv;
#   venv.sh perf   the performance-anchor environment (requirements-perf.lock: the same plus PyTorch and
#                  Opacus) at $DPRL_CROSSCHECK_PERF_VENV or build/crosscheck-perf-venv.
# An environment is rebuilt when its lock changes (the lock's hash is stored in it).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
modules=dp_accounting,prv_accountant,gymnasium,Box2D,dp_accelerator
case "${1:-}" in
"")
	venv="${DPRL_CROSSCHECK_VENV:-$root/build/crosscheck-venv}"
	lock="$here/requirements.lock"
	;;
perf)
	venv="${DPRL_CROSSCHECK_PERF_VENV:-$root/build/crosscheck-perf-venv}"
	lock="$here/requirements-perf.lock"
	modules+=,torch,opacus
	;;
*)
	echo "usage: $0 [perf]" >&2
	exit 2
	;;
esac
stamp="$venv/.lock-sha256"
want="$(sha256sum "$lock" | cut -d' ' -f1)"
if [[ -x "$venv/bin/python" && -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
	echo "$venv/bin/python"
	exit 0
fi
rm -rf "$venv"
python3 -m venv "$venv" >&2
"$venv/bin/pip" install -q --disable-pip-version-check --require-hashes --no-deps -r "$lock" >&2
"$venv/bin/python" -c "import $modules" >&2
echo "$want" >"$stamp"
echo "$venv/bin/python"
