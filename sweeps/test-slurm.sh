#!/usr/bin/env bash
# make test-slurm: dprl sweeps on a real Slurm (sweeps/slurm-local.sh's one-node cluster).
#
# 1. A small real grid (sweeps/specs/test-tiny.json: Wang–Hegde, 8 tasks in 4 shards) submitted with the
#    script `dprl sweep slurm` writes (job array + dependent merge job); the merged table must equal a
#    single-process run (`dprl sweep all`) byte for byte.
# 2. Kill and resume (sweeps/specs/test-kill.json: 4 shards of 3 one-second tasks): one array task is killed
#    with SIGKILL mid-run (scancel --signal=KILL), which cancels the merge job; merge must refuse. A rerun of
#    that shard that kills itself right after renaming its CSV, before its manifest (DPRL_SWEEP_CRASH=
#    after-csv), and a corrupted CSV of a finished shard must be refused by name too. Resubmitting the same
#    script completes only what is missing (the complete shards log "already complete"), and the merged
#    table equals the single-process one byte for byte.
#
# The cluster is started here and stopped at the end, unless it was already up.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
GO=${GO:-/usr/local/go/bin/go}
OUT=$ROOT/build/test-slurm
BIN=$OUT/bin/dprl
START=$(date +%s)

say() { echo "test-slurm: [$(($(date +%s) - START))s] $*"; }
fail() {
	echo "test-slurm: FAIL: $*" >&2
	exit 1
}

rm -rf "$OUT"
mkdir -p "$OUT/bin"
say "building dprl"
"$GO" build -buildvcs=true -o "$BIN" ./dprl/cmd/dprl
say "built"

export DPRL_SLURM_STATE=${DPRL_SLURM_STATE:-/tmp/dprl-slurm-test}
export DPRL_SLURM_PORT=${DPRL_SLURM_PORT:-6837}
started=0
if sweeps/slurm-local.sh running; then
	say "using the running cluster in $DPRL_SLURM_STATE"
else
	sweeps/slurm-local.sh up >/dev/null
	started=1
fi
cleanup() {
	local rc=$?
	if [ $rc -ne 0 ]; then
		sweeps/slurm-local.sh status || true
		for f in "$OUT"/*/logs/*.out; do [ -f "$f" ] && { echo "== $f"; tail -5 "$f"; }; done
	fi
	[ $started = 1 ] && sweeps/slurm-local.sh down || true
	exit $rc
}
trap cleanup EXIT
eval "$(sweeps/slurm-local.sh env)"
export PATH=/usr/sbin:/usr/bin:$PATH

# wait_jobs SECONDS ID...: until none of the jobs is pending or running.
wait_jobs() {
	local t=$1
	shift
	local ids
	ids=$(
		IFS=,
		echo "$*"
	)
	for _ in $(seq "$((t * 2))"); do
		[ -z "$(squeue -h -j "$ids" -t PD,R,CG,CF 2>/dev/null)" ] && return 0
		sleep 0.5
	done
	squeue
	fail "jobs $ids still queued after ${t}s"
}

# submit SCRIPT: bash-submits it, sets ARRAY and MERGE.
submit() {
	local line
	line=$(bash "$1" | tail -1)
	ARRAY=$(echo "$line" | sed -n 's/.*array job \([0-9]*\).*/\1/p')
	MERGE=$(echo "$line" | sed -n 's/.*merge job \([0-9]*\).*/\1/p')
	[ -n "$ARRAY" ] && [ -n "$MERGE" ] || fail "could not submit $1: $line"
	say "submitted array $ARRAY and merge $MERGE"
}

# same_as_one_process SPEC DIR: merged.csv equals `dprl sweep all SPEC`.
same_as_one_process() {
	"$BIN" sweep all "$1" -o "$OUT/one-process.csv" --workers 4 2>/dev/null
	cmp "$2/merged.csv" "$OUT/one-process.csv" || fail "$2/merged.csv differs from the single-process run of $1"
	say "merged table = single-process table, byte for byte ($(wc -l <"$2/merged.csv") lines, sha256 $(sha256sum <"$2/merged.csv" | cut -c1-16)…)"
}

# 1. A real grid through the generated script.
TINY=$OUT/tiny
"$BIN" sweep slurm sweeps/specs/test-tiny.json --out "$TINY" --dprl "$BIN" >/dev/null
submit "$TINY/sweep.sbatch"
wait_jobs 120 "$ARRAY" "$MERGE"
[ -f "$TINY/merged.csv" ] || fail "no merged table in $TINY"
"$BIN" sweep status "$TINY" >/dev/null || fail "status of $TINY"
same_as_one_process sweeps/specs/test-tiny.json "$TINY"

# 2. Kill and resume.
KILL=$OUT/kill
"$BIN" sweep slurm sweeps/specs/test-kill.json --out "$KILL" --dprl "$BIN" >/dev/null
submit "$KILL/sweep.sbatch"
first_array=$ARRAY
for _ in $(seq 120); do
	grep -qs "1/3 tasks done" "$KILL"/logs/shard-0-job-*.out && break
	sleep 0.5
done
grep -qs "1/3 tasks done" "$KILL"/logs/shard-0-job-*.out || fail "shard 0 never got going"
scancel --signal=KILL --full "${ARRAY}_0"
say "killed array task ${ARRAY}_0 with SIGKILL mid-run"
wait_jobs 120 "$ARRAY" "$MERGE"
[ ! -e "$KILL/shard-00000.json" ] || fail "the killed shard left a manifest"
[ ! -e "$KILL/merged.csv" ] || fail "the merge job ran although a shard was killed"
if msg=$("$BIN" sweep merge "$KILL" 2>&1); then fail "merge accepted a killed shard: $msg"; fi
echo "$msg" | grep -q "missing 1 of 4 shards: 0" || fail "merge's message: $msg"
say "merge refuses: $(echo "$msg" | sed -n 2p | sed 's/^ *//')"

# The shard again, killing itself between its CSV and its manifest.
sbatch --parsable --export=ALL,DPRL_SWEEP_CRASH=after-csv,DPRL_SWEEP_MERGE_SUBMITTED=1 --array=0 "$KILL/sweep.sbatch" >"$OUT/crash.id"
wait_jobs 60 "$(cut -d';' -f1 <"$OUT/crash.id")"
[ -f "$KILL/shard-00000.csv" ] && [ ! -e "$KILL/shard-00000.json" ] || fail "the crash after the CSV did not leave a CSV without manifest"
if msg=$("$BIN" sweep merge "$KILL" 2>&1); then fail "merge accepted a shard killed mid-write"; fi
echo "$msg" | grep -q "incomplete: shard 0: shard-00000.csv without a manifest" || fail "merge's message: $msg"
say "killed between CSV and manifest: merge refuses: $(echo "$msg" | grep incomplete | sed 's/^ *//')"

# A finished shard's CSV corrupted: refused by name.
printf 'x' >>"$KILL/shard-00003.csv"
if msg=$("$BIN" sweep merge "$KILL" 2>&1); then fail "merge accepted a corrupted shard"; fi
echo "$msg" | grep -q "corrupt: shard-00003.csv: checksum mismatch" || fail "merge's message: $msg"
say "corrupted CSV: merge refuses: $(echo "$msg" | grep corrupt | cut -c1-90 | sed 's/^ *//')…"
"$BIN" sweep status "$KILL" >"$OUT/status.txt" || true
grep -q "4 shards: 2 done, 2 missing" "$OUT/status.txt" || fail "status: $(cat "$OUT/status.txt")"

# Resubmit the same script: only shards 0 and 3 run.
submit "$KILL/sweep.sbatch"
wait_jobs 120 "$ARRAY" "$MERGE"
for i in 1 2; do
	grep -q "already complete" "$KILL/logs/shard-$i-job-$ARRAY.out" || fail "shard $i was rerun: $(cat "$KILL/logs/shard-$i-job-$ARRAY.out")"
done
grep -q "complete: 150 rows" "$KILL/logs/shard-0-job-$ARRAY.out" || fail "shard 0 not completed on resubmission"
grep -q "rerunning: shard-00003.csv: checksum mismatch" "$KILL/logs/shard-3-job-$ARRAY.out" || fail "shard 3 not redone"
[ -f "$KILL/merged.csv" ] || fail "the resubmitted merge job did not merge"
say "resubmission ($first_array → $ARRAY) ran only shards 0 and 3; merge job $MERGE merged"
same_as_one_process sweeps/specs/test-kill.json "$KILL"

say "PASS in $(($(date +%s) - START))s"
echo "1 passed, 0 failed"
