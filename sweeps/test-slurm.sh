#!/usr/bin/env bash
# make test-slurm: dprl sweeps on a real Slurm. sweeps/slurm-local.sh starts a one-node cluster for this run
# alone (a fresh state directory, a free port, MaxArraySize lowered to 3) and this run stops it at the end,
# its own daemons and nothing else. Every merged table must equal a single-process run (`dprl sweep all`)
# byte for byte.
#
#  1. Paths, site options, split arrays: test-tiny (Wang–Hegde, 4 shards) run by a dprl binary and into a
#     results directory whose paths hold spaces and quotes, with --account, --qos, --time, --mem,
#     --partition and a free --sbatch option; its 4 shards go as two arrays (MaxArraySize 3); the options are
#     read back from the merge job and an array task with `scontrol show job`.
#  2. Kill, stop, resubmit: test-kill (4 shards of 3 three-second tasks): shard 0's process is killed with
#     SIGKILL after its first task; shard 1 gets the time-limit warning (SIGUSR1, as --signal=B:USR1@grace
#     sends it), passes SIGTERM to its shard, which checkpoints, and requeues itself; it resumes after its
#     finished tasks; the merge job then refuses (shard 0 is missing); shard 3's CSV is corrupted; status, asking
#     squeue, shows all of it; `dprl sweep resubmit` submits only shards 0 and 3, shard 0 resumes from its
#     checkpoint, and the new merge job merges.
#  3. Retries: every shard's first attempt fails after one task; with --retries 1 it runs again in its job
#     and resumes; the manifests count the failure and the attempts.
#  4. Cancel: `dprl sweep cancel` ends a running sweep (its shards checkpoint, none requeues); status shows
#     its shards cancelled.
#  5. In an allocation: `salloc -n 2 bash sweep.sbatch` runs the shards with srun there and merges.
#  6. Two runs at once: a second copy of this script (step 1 only) runs beside this one on its own cluster
#     (the two wait for each other's cluster before step 1); both must pass, and its teardown must leave
#     this run's cluster running.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
LOCAL=$ROOT/sweeps/slurm-local.sh
GO=${GO:-/usr/local/go/bin/go}
SECOND=${DPRL_TEST_SLURM_SECOND:-}
ME="test-slurm${SECOND:+ (second run)}"
START=$(date +%s)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/dprl-test-slurm.XXXXXX")
BIN="$WORK/bin dir/it's dprl"
PROBE=20 # seconds any one call of a Slurm command may take

say() { echo "$ME: [$(($(date +%s) - START))s] $*"; }
fail() {
	echo "$ME: FAIL: $*" >&2
	exit 1
}

cleanup() {
	local rc=$?
	trap - EXIT
	if [ $rc -ne 0 ]; then
		[ -n "${DPRL_SLURM_STATE:-}" ] && "$LOCAL" status 2>&1 | tail -n 20 || true
		for f in "$WORK"/*/logs/*.log "$WORK"/*/logs/merge-*.out "$WORK"/*/*/logs/*.log; do
			[ -f "$f" ] && { echo "== $f"; tail -n 6 "$f"; }
		done
	fi
	if [ -n "${SECOND_PID:-}" ] && kill -0 "$SECOND_PID" 2>/dev/null; then
		kill -TERM "$SECOND_PID" 2>/dev/null || true # it tears down its own cluster
		wait "$SECOND_PID" 2>/dev/null || true
	fi
	[ -n "${DPRL_SLURM_STATE:-}" ] && "$LOCAL" down >/dev/null 2>&1 || true # this run's cluster only
	if [ $rc -eq 0 ]; then
		rm -rf "$WORK"
	else
		echo "$ME: kept $WORK"
	fi
	exit $rc
}
trap cleanup EXIT
trap 'exit 143' TERM INT

# wait_file PATH SECONDS
wait_file() {
	local end=$((SECONDS + $2))
	while ((SECONDS < end)); do
		[ -e "$1" ] && return 0
		sleep 0.2
	done
	fail "no $1 after $2 s"
}

mkdir -p "$(dirname "$BIN")"
say "building dprl"
"$GO" build -buildvcs=true -o "$BIN" ./dprl/cmd/dprl

if [ -z "$SECOND" ]; then
	DPRL_TEST_SLURM_SECOND=$WORK "$ROOT/sweeps/test-slurm.sh" >"$WORK/second.log" 2>&1 &
	SECOND_PID=$!
	say "started a second run beside this one (process $SECOND_PID)"
fi

unset DPRL_SLURM_STATE DPRL_SLURM_PORT SLURM_CONF
eval "$(DPRL_SLURM_MAX_ARRAY_SIZE=3 "$LOCAL" up 2>"$WORK/up.log")" || {
	cat "$WORK/up.log"
	fail "the cluster did not start"
}
say "cluster up in $DPRL_SLURM_STATE ($(grep -h SlurmctldPort "$SLURM_CONF"), MaxArraySize 3)"
# The two runs meet here, each with its cluster up, so that both clusters run at once from here on.
if [ -n "$SECOND" ]; then
	touch "$SECOND/second-up"
	wait_file "$SECOND/main-up" 120
else
	touch "$WORK/main-up"
	wait_file "$WORK/second-up" 120
	say "the second run's cluster is up too: $(grep -h 'cluster up' "$WORK/second.log" | sed 's/^[^]]*] //')"
fi
export PATH=/usr/sbin:/usr/bin:$PATH
cd "$WORK" # sbatch writes nothing here; the job logs go to each results directory

# sq ARGS...: squeue, bounded.
sq() { timeout "$PROBE" squeue "$@" 2>/dev/null; }

# wait_jobs SECONDS ID...: until none of the jobs is pending, running or requeued.
wait_jobs() {
	local t=$1 ids out
	shift
	ids=$(
		IFS=,
		echo "$*"
	)
	local end=$((SECONDS + t))
	while ((SECONDS < end)); do
		if out=$(sq -h -j "$ids" -t PD,R,CG,CF,S,RQ,RS -o %i) && [ -z "$out" ]; then
			return 0
		fi
		sleep 0.5
	done
	sq -r -j "$ids" || true
	fail "jobs $ids still queued after ${t}s"
}

# wait_log FILE TEXT SECONDS
wait_log() {
	local end=$((SECONDS + $3))
	while ((SECONDS < end)); do
		grep -qsF -- "$2" "$1" && return 0
		sleep 0.2
	done
	fail "no \"$2\" in $1 after $3 s: $(tail -n 3 "$1" 2>/dev/null)"
}

# submit DIR [LIST]: bash DIR/sweep.sbatch; sets ARRAYS (comma-separated) and MERGE.
submit() {
	local line
	line=$(bash "$1/sweep.sbatch" ${2:+"$2"} | tail -n 1)
	ARRAYS=$(sed -n 's/^submitted array jobs \([0-9,]*\) .*/\1/p' <<<"$line")
	MERGE=$(sed -n 's/.* merge job \([0-9]*\)$/\1/p' <<<"$line")
	[ -n "$ARRAYS" ] && [ -n "$MERGE" ] || fail "could not submit $1: $line"
	say "submitted arrays $ARRAYS and merge job $MERGE for $(basename "$1")"
}

# same_as_one_process SPEC DIR: DIR/merged.csv equals dprl sweep all SPEC.
same_as_one_process() {
	"$BIN" sweep all "$1" -o "$WORK/one-process.csv" --workers 2 2>/dev/null
	cmp "$2/merged.csv" "$WORK/one-process.csv" || fail "$2/merged.csv differs from the single-process run of $1"
	say "merged table = single-process table, byte for byte ($(wc -l <"$2/merged.csv") lines, sha256 $(sha256sum <"$2/merged.csv" | cut -c1-16)…)"
}

# job_field ID FIELD: FIELD=value from scontrol show job (values without blanks).
job_field() { timeout "$PROBE" scontrol show job "$1" | tr ' ' '\n' | sed -n "s/^$2=//p" | head -n 1; }

# 1. Spaces and quotes in every path, site options on every job, arrays split at MaxArraySize.
SPACE="$WORK/results with space/it's here"
COMMENT="dprl test-slurm $$"
"$BIN" sweep slurm "$ROOT/sweeps/specs/test-tiny.json" --out "$SPACE" --dprl "$BIN" --account acme --qos normal --time 10:00 --mem 200M \
	--partition local --sbatch "--comment=$COMMENT" >/dev/null
submit "$SPACE"
[ "$(grep -c '^array ' "$SPACE/logs/slurm-jobs")" = 2 ] && grep -q '^array [0-9]* 0 0-2$' "$SPACE/logs/slurm-jobs" &&
	grep -q '^array [0-9]* 3 0$' "$SPACE/logs/slurm-jobs" || fail "4 shards at MaxArraySize 3: $(cat "$SPACE/logs/slurm-jobs")"
say "4 shards at MaxArraySize 3 went as two arrays: $(grep '^array' "$SPACE/logs/slurm-jobs" | cut -d' ' -f2- | tr '\n' ';')"
wait_jobs 240 ${ARRAYS//,/ } "$MERGE"
[ -f "$SPACE/merged.csv" ] || fail "no merged table in $SPACE: $(cat "$SPACE"/logs/merge-*.out)"
same_as_one_process "$ROOT/sweeps/specs/test-tiny.json" "$SPACE"
for job in "$MERGE" "${ARRAYS%%,*}_0"; do
	for kv in "Account=acme" "Partition=local" "TimeLimit=00:10:00" "MinMemoryNode=200M"; do
		got=$(job_field "$job" "${kv%%=*}")
		[ "$got" = "${kv#*=}" ] || fail "job $job: ${kv%%=*}=$got, want ${kv#*=}"
	done
	timeout "$PROBE" scontrol show job "$job" >"$WORK/job.txt"
	grep -qF "Comment=$COMMENT" "$WORK/job.txt" || fail "job $job lacks the --sbatch option --comment: $(cat "$WORK/job.txt")"
	grep -qF "StdOut=$SPACE/logs/" "$WORK/job.txt" || fail "job $job does not log into $SPACE/logs: $(cat "$WORK/job.txt")"
done
grep -q '^#SBATCH --qos=normal$' "$SPACE/sweep.sbatch" && grep -q "^SITE=(.*--qos=normal" "$SPACE/sweep.sbatch" || fail "--qos is not on every job"
say "read back from merge job $MERGE and array task ${ARRAYS%%,*}_0: Account=acme Partition=local TimeLimit=00:10:00 MinMemoryNode=200M Comment, output in the spaced directory (--qos is on both submissions; a cluster without a QOS database does not record it)"

if [ -n "$SECOND" ]; then
	say "PASS in $(($(date +%s) - START))s"
	exit 0
fi

# 2. Kill, stop, resubmit.
KILL="$WORK/kill"
KILLSPEC="$ROOT/sweeps/specs/test-kill.json"
"$BIN" sweep slurm "$KILLSPEC" --out "$KILL" --dprl "$BIN" >/dev/null
submit "$KILL"
first=${ARRAYS%%,*}
# Shard 1 first: the signal must reach it before its last task starts (within one task's 3 s of its first
# task's end), or it finishes its running task, is complete and has nothing to requeue; SIGKILL by process
# id reaches shard 0 at once, and it has two tasks (6 s) left after its first.
wait_log "$KILL/logs/shard-1.log" "1/3 tasks done" 120
timeout "$PROBE" scancel --signal=USR1 --batch "${first}_1" # what --signal=B:USR1@GRACE sends before the time limit
wait_log "$KILL/logs/shard-0.log" "1/3 tasks done" 120
# SIGKILL to the shard's process, as the OOM killer or a crash would (scancel --signal=KILL goes through
# Slurm's SIGTERM first, which a shard answers by checkpointing, as shard 1 does).
pid=$(sed -n 's/^shard 0: dprl is process \([0-9]*\)$/\1/p' "$KILL/logs/shard-0.log" | tail -n 1)
[ -n "$pid" ] && kill -KILL "$pid" || fail "no process of shard 0 to kill: $(cat "$KILL/logs/shard-0.log")"
say "killed shard 0's process $pid (array task ${first}_0) with SIGKILL after its first task"
wait_log "$KILL/logs/shard-1.log" "requeueing job" 60
say "the time-limit warning (SIGUSR1) to array task ${first}_1 (shard 1): SIGTERM to the shard, $(grep -h 'tasks done, stopped early' "$KILL/logs/shard-1.log" | sed 's/.*: \([0-9]* of 3 tasks done\).*/\1/'), checkpointed, requeued"
# A requeued job waits two minutes (BeginTime) before it may start again: let it start now.
for _ in $(seq 150); do
	state=$(sq -h -r -j "${first}_1" -o '%T %r')
	case $state in
	"PENDING BeginTime") timeout "$PROBE" scontrol update jobid="${first}_1" starttime=now || true ;;
	RUNNING* | COMPLETED* | "") break ;;
	esac
	sleep 0.2
done
wait_jobs 240 ${ARRAYS//,/ } "$MERGE"
grep -q "(array task ${first}_1, restart 1)" "$KILL/logs/shard-1.log" || fail "shard 1 was not requeued: $(cat "$KILL/logs/shard-1.log")"
grep -q "attempt 2 resumes: [12] of 3 tasks are in the checkpoint" "$KILL/logs/shard-1.log" || fail "shard 1 did not resume: $(cat "$KILL/logs/shard-1.log")"
say "shard 1 $(grep -ho 'resumes: [12] of 3 tasks are in the checkpoint' "$KILL/logs/shard-1.log") after its requeue (restart $(grep -o 'restart [0-9]*' "$KILL/logs/shard-1.log" | tail -n 1 | cut -d' ' -f2)), and completed"
[ ! -e "$KILL/merged.csv" ] || fail "merged although shard 0 was killed"
grep -q "missing 1 of 4 shards: 0" "$KILL/logs/merge-$MERGE.out" || fail "merge job's log: $(cat "$KILL/logs/merge-$MERGE.out")"
say "merge job $MERGE refused: $(grep -h 'missing 1 of 4' "$KILL/logs/merge-$MERGE.out" | cut -d';' -f1 | sed 's/^ *//')"
printf 'x' >>"$KILL/shard-00003.csv"
"$BIN" sweep status "$KILL" >"$WORK/status.txt" && fail "status of an incomplete sweep exited 0"
for want in "4 shards: 2 done, 1 failed, 1 corrupt" "done: 1-2" "failed: 0" "engine: shard 0: job ${first}_0 FAILED" \
	"partial: shard 0: shard-00000.ckpt holds 1 finished tasks" "corrupt: shard 3: shard-00003.csv: checksum mismatch" "merge job $MERGE FAILED" \
	"next: dprl sweep resubmit"; do
	grep -qF -- "$want" "$WORK/status.txt" || fail "status lacks \"$want\": $(cat "$WORK/status.txt")"
done
say "status (asking squeue): $(head -n 1 "$WORK/status.txt" | sed 's/.*), //')"
runs1=$(grep -c '^== ' "$KILL/logs/shard-1.log")
runs2=$(grep -c '^== ' "$KILL/logs/shard-2.log")
out=$("$BIN" sweep resubmit "$KILL")
grep -q "resubmitted shards 0,3" <<<"$out" || fail "resubmit: $out"
line=$(grep '^submitted array jobs' <<<"$out")
ARRAYS=$(sed -n 's/^submitted array jobs \([0-9,]*\) .*/\1/p' <<<"$line")
MERGE=$(sed -n 's/.* merge job \([0-9]*\)$/\1/p' <<<"$line")
say "dprl sweep resubmit: shards 0,3 as arrays $ARRAYS, merge job $MERGE"
wait_jobs 240 ${ARRAYS//,/ } "$MERGE"
grep -q "attempt 2 resumes: 1 of 3 tasks are in the checkpoint, 2 to run" "$KILL/logs/shard-0.log" || fail "shard 0 did not resume from its checkpoint: $(tail -n 8 "$KILL/logs/shard-0.log")"
grep -q "rerunning: shard-00003.csv: checksum mismatch" "$KILL/logs/shard-3.log" || fail "shard 3 not redone: $(tail -n 5 "$KILL/logs/shard-3.log")"
[ "$(grep -c '^== ' "$KILL/logs/shard-1.log")" = "$runs1" ] && [ "$(grep -c '^== ' "$KILL/logs/shard-2.log")" = "$runs2" ] || fail "the resubmission ran shard 1 or 2 again"
[ -f "$KILL/merged.csv" ] || fail "the new merge job did not merge: $(cat "$KILL/logs/merge-$MERGE.out")"
say "only shards 0 (resumed after its 1 checkpointed task) and 3 (corrupt) ran again; merge job $MERGE merged"
same_as_one_process "$KILLSPEC" "$KILL"

# 3. Retries.
RETRY="$WORK/retry"
cat >"$WORK/retry.json" <<'EOF'
{"name": "test-retry", "experiment": "sweep/demo", "params": {"rows": 20, "delay": 0.2}, "grid": {"scale": [1, 3]},
 "seeds": {"first": 1, "count": 3}, "shard_size": 3}
EOF
"$BIN" sweep slurm "$WORK/retry.json" --out "$RETRY" --dprl "$BIN" --retries 1 >/dev/null
DPRL_SWEEP_CRASH=fail-first-attempt DPRL_SWEEP_RETRY_DELAY=1 submit "$RETRY"
wait_jobs 240 ${ARRAYS//,/ } "$MERGE"
for i in 0 1; do
	grep -q "shard $i failed (exit 1): retry 1 of 1" "$RETRY/logs/shard-$i.log" || fail "shard $i was not retried: $(cat "$RETRY/logs/shard-$i.log")"
	grep -q '"attempts": 2' "$RETRY/shard-0000$i.json" && grep -q '"failures": 1' "$RETRY/shard-0000$i.json" || fail "manifest of shard $i: $(cat "$RETRY/shard-0000$i.json")"
done
say "--retries 1: each shard's injected first failure was retried in its job and resumed (manifests: \"failures\": 1, \"attempts\": 2)"
same_as_one_process "$WORK/retry.json" "$RETRY"

# 4. Cancel.
CANCEL="$WORK/cancel"
sed 's/"delay": 3/"delay": 5/; s/"name": "test-kill"/"name": "test-cancel"/' "$KILLSPEC" >"$WORK/cancel.json"
"$BIN" sweep slurm "$WORK/cancel.json" --out "$CANCEL" --dprl "$BIN" >/dev/null
submit "$CANCEL"
wait_log "$CANCEL/logs/shard-0.log" "3 tasks (0–2) starting" 120
wait_log "$CANCEL/logs/shard-1.log" "3 tasks (3–5) starting" 120
"$BIN" sweep status "$CANCEL" >"$WORK/status.txt" || true
grep -q "^running: 0-1 (jobs " "$WORK/status.txt" && grep -q "^pending: 2-3 (jobs " "$WORK/status.txt" || fail "status of a running sweep: $(cat "$WORK/status.txt")"
out=$("$BIN" sweep cancel "$CANCEL")
grep -q "^cancelled array jobs ${ARRAYS} and merge jobs $MERGE" <<<"$out" || fail "cancel: $out"
wait_jobs 120 ${ARRAYS//,/ } "$MERGE"
"$BIN" sweep status "$CANCEL" >"$WORK/status.txt" || true
grep -q "^cancelled: 0-3$" "$WORK/status.txt" || fail "status after cancel: $(cat "$WORK/status.txt")"
say "dprl sweep cancel: $out; status: cancelled: 0-3"

# 5. Inside an allocation.
ALLOC="$WORK/alloc"
"$BIN" sweep slurm "$ROOT/sweeps/specs/test-tiny.json" --out "$ALLOC" --dprl "$BIN" >/dev/null
timeout 300 salloc --ntasks=2 --cpus-per-task=1 bash "$ALLOC/sweep.sbatch" >"$WORK/salloc.log" 2>&1 || fail "salloc: $(cat "$WORK/salloc.log")"
grep -q "inside allocation [0-9]*: running 4 shards with srun, 2 at a time" "$WORK/salloc.log" || fail "salloc: $(cat "$WORK/salloc.log")"
say "salloc --ntasks=2 bash sweep.sbatch ran the 4 shards with srun inside the allocation and merged"
same_as_one_process "$ROOT/sweeps/specs/test-tiny.json" "$ALLOC"

# 6. The second run.
second=0
wait "$SECOND_PID" || second=$?
SECOND_PID=
[ $second = 0 ] || {
	cat "$WORK/second.log"
	fail "the second run beside this one failed"
}
"$LOCAL" running || fail "the second run's teardown stopped this run's cluster"
say "the second run passed on its own cluster at the same time: $(tail -n 1 "$WORK/second.log" | sed 's/^[^]]*] //'); this cluster still runs"

say "PASS in $(($(date +%s) - START))s"
echo "1 passed, 0 failed"
