package sweep

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/dprl-project/dprl/dprl/param"
)

// Files a Slurm sweep keeps in its results directory.
const (
	SlurmScript = "sweep.sbatch"    // the script `dprl sweep slurm` writes
	SlurmJobs   = "logs/slurm-jobs" // one line per submission: "array ID OFFSET INDICES", "merge ID DEPENDENCY", "cancel ID"
)

// Exit statuses of `dprl sweep run` that the Slurm script acts on.
const (
	ExitStopped = 75 // stopped by SIGTERM after checkpointing its finished tasks: requeue it (EX_TEMPFAIL)
)

// SlurmOptions configure the sbatch script. Every site option (Time, Mem, Partition, Account, QOS, Extra)
// applies to the array jobs and to the merge job alike.
type SlurmOptions struct {
	Binary    string   // the dprl binary as the compute nodes see it (absolute path, or "dprl" on PATH)
	SpecPath  string   // the spec as the compute nodes see it (normally <Dir>/spec.json)
	Dir       string   // the results directory as the compute nodes see it (absolute)
	CPUs      int      // --cpus-per-task (0: 1); the shard runs that many tasks at once
	Parallel  int      // at most this many array tasks of one array at once (0: no limit)
	Time      string   // --time, e.g. "02:00:00" ("" : the partition's default)
	Mem       string   // --mem, e.g. "4G" ("" : the default)
	Partition string   // --partition ("" : the default)
	Account   string   // --account ("" : the user's default)
	QOS       string   // --qos ("" : the default)
	Extra     []string // further sbatch options, one per element in --name=value form, e.g. "--constraint=avx2"
	// Retries is how many times a failed shard is run again inside its job before the job fails.
	Retries int
	// Grace is the number of seconds before the time limit at which Slurm warns the job's batch shell
	// (--signal=B:USR1@Grace); the shard then finishes its running tasks, checkpoints them and the job
	// requeues itself, to resume after them. 0: no warning. (A plain SIGTERM, from scancel or a preemption,
	// also checkpoints the finished tasks, but does not requeue: the job was meant to end.)
	Grace int
}

// sbatchArg quotes one sbatch option for an #SBATCH line, whose parser splits at blanks outside double
// quotes: --name="value" when the value needs it.
func sbatchArg(opt string) string {
	if !strings.ContainsAny(opt, " \t\"'\\#") {
		return opt
	}
	name, value, ok := strings.Cut(opt, "=")
	if !ok {
		return sbatchQuote(opt)
	}
	return name + "=" + sbatchQuote(value)
}

func sbatchQuote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// slurmPattern escapes % in a path used in a Slurm file name pattern (--output), where %j and %a expand.
func slurmPattern(path string) string { return strings.ReplaceAll(path, "%", "%%") }

func (opt *SlurmOptions) check() error {
	if opt.Binary == "" {
		opt.Binary = "dprl"
	}
	if opt.Dir == "" {
		return check.Missing("Dir", "the results directory as the compute nodes see it")
	}
	opt.Dir = strings.TrimSuffix(opt.Dir, "/")
	if opt.SpecPath == "" {
		opt.SpecPath = opt.Dir + "/" + SpecFile
	}
	// A newline would end an #SBATCH line, and a backslash in an --output path switches off Slurm's %-patterns.
	for _, p := range []struct{ name, v, bad string }{{"Dir", opt.Dir, "\n\r\\"}, {"Binary", opt.Binary, "\n\r"}, {"SpecPath", opt.SpecPath, "\n\r"}} {
		if strings.ContainsAny(p.v, p.bad) {
			return badValue(p.name, p.v, "paths without line breaks%s", map[bool]string{true: " or backslashes (Slurm's file name patterns treat them specially)"}[p.name == "Dir"])
		}
	}
	for _, e := range append([]string{opt.Time, opt.Mem, opt.Partition, opt.Account, opt.QOS}, opt.Extra...) {
		if strings.ContainsAny(e, "\n\r") {
			return badValue("Extra", e, "sbatch options without line breaks")
		}
	}
	for _, e := range opt.Extra {
		if !strings.HasPrefix(e, "-") {
			return badValue("Extra", e, "sbatch options such as --constraint=avx2, one per element")
		}
	}
	return param.First(check.AtLeast("CPUs", opt.CPUs, 0), check.AtLeast("Parallel", opt.Parallel, 0),
		check.Int("Retries", opt.Retries, 0, 100), check.Int("Grace", opt.Grace, 0, 86400))
}

// siteOptions are the site options as sbatch arguments, in a fixed order.
func (opt *SlurmOptions) siteOptions() []string {
	var out []string
	for _, o := range []struct{ flag, v string }{{"--time", opt.Time}, {"--mem", opt.Mem}, {"--partition", opt.Partition},
		{"--account", opt.Account}, {"--qos", opt.QOS}} {
		if o.v != "" {
			out = append(out, o.flag+"="+o.v)
		}
	}
	return append(out, opt.Extra...)
}

// Slurm writes a bash script that is the job arrays' batch script, their submitter and a runner inside an
// allocation:
//
//   - `bash SCRIPT [SHARDS]` submits the shards (all, or an index list such as 3,7-9) as job arrays of at
//     most the site's MaxArraySize tasks each (read from `scontrol show config`, else 1001; an array's
//     indices are offsets into a block of shards), and one merge job that runs `dprl sweep merge` after all
//     of them (afterany: the merge itself refuses, naming them, if shards are missing);
//   - `sbatch SCRIPT` submits one array of every shard, whose first task submits the merge job;
//   - inside an allocation (SLURM_JOB_ID set, as under salloc), `bash SCRIPT [SHARDS]` runs the shards there
//     with srun, as many at once as the allocation has tasks, then merges.
//
// Each shard runs `dprl sweep run --shard I` in the background of its batch shell, which passes SIGTERM on
// to it: the shard finishes its running tasks, checkpoints them and exits with ExitStopped. When the signal
// was Slurm's warning before the time limit (SIGUSR1, see Grace), the script then requeues the job
// (scontrol requeue), which resumes after the checkpointed tasks when it starts again; after a plain
// SIGTERM (scancel, a preemption) the job ends. A failing shard is run again up to Retries times. Every submission is recorded in logs/slurm-jobs (status, cancel and resubmit read it);
// each shard logs to logs/shard-N.log, every attempt appended.
func (p *Plan) Slurm(opt SlurmOptions) (string, error) {
	if err := opt.check(); err != nil {
		return "", err
	}
	cpus := max(opt.CPUs, 1)
	s := p.Spec
	n := s.Shards()
	job := "dprl-" + s.Name
	var b strings.Builder
	fmt.Fprintf(&b, `#!/bin/bash
# Sweep %s (experiment %s, spec hash %s…): %d tasks in %d shards of %d.
# Written by `+"`dprl sweep slurm`"+`. Use it as
#   bash THIS_SCRIPT             submit every shard: job arrays of at most the site's MaxArraySize tasks
#                                (scontrol show config; 1001 if unknown) and a merge job after all of them
#   bash THIS_SCRIPT 3,7-9       submit only these shards (dprl sweep resubmit DIR works out which)
#   sbatch THIS_SCRIPT           one array of every shard (at most MaxArraySize); its first task submits the merge job
#   salloc ... bash THIS_SCRIPT  inside an allocation: run the shards there with srun, then merge
# Submitting again completes only what is missing: complete shards are skipped, and a stopped or killed
# shard resumes after its checkpointed tasks. Logs: logs/shard-N.log; submissions: logs/slurm-jobs.
`, s.Name, s.Experiment, p.Hash[:12], s.Tasks(), n, s.ShardSize)
	directives := []string{"--job-name=" + job, fmt.Sprintf("--array=0-%d", n-1), "--ntasks=1", fmt.Sprintf("--cpus-per-task=%d", cpus),
		"--output=" + slurmPattern(opt.Dir) + "/logs/slurm-%A_%a.out", "--open-mode=append", "--requeue"}
	if opt.Parallel > 0 {
		directives[1] += fmt.Sprintf("%%%d", opt.Parallel)
	}
	if opt.Grace > 0 {
		directives = append(directives, fmt.Sprintf("--signal=B:USR1@%d", opt.Grace))
	}
	site := opt.siteOptions()
	for _, d := range append(directives, site...) {
		fmt.Fprintf(&b, "#SBATCH %s\n", sbatchArg(d))
	}
	quoted := make([]string, len(site))
	for i, o := range site {
		quoted[i] = ShellQuote(o)
	}
	parallel := ""
	if opt.Parallel > 0 {
		parallel = strconv.Itoa(opt.Parallel)
	}
	r := strings.NewReplacer("@DPRL@", ShellQuote(opt.Binary), "@SPEC@", ShellQuote(opt.SpecPath), "@OUT@", ShellQuote(opt.Dir),
		"@JOB@", ShellQuote(job), "@SHARDS@", strconv.Itoa(n), "@CPUS@", strconv.Itoa(cpus), "@RETRIES@", strconv.Itoa(opt.Retries),
		"@PARALLEL@", parallel, "@SITE@", strings.Join(quoted, " "), "@JOBS@", SlurmJobs, "@STOPPED@", strconv.Itoa(ExitStopped))
	b.WriteString(r.Replace(slurmScript))
	return b.String(), nil
}

// slurmScript is the body of the script Slurm writes (after its #SBATCH lines).
const slurmScript = `set -euo pipefail
DPRL=${DPRL:-@DPRL@}
SPEC=@SPEC@
OUT=@OUT@
JOB=@JOB@
SHARDS=@SHARDS@
CPUS=@CPUS@
RETRIES=@RETRIES@
PARALLEL=@PARALLEL@
SITE=(@SITE@)
JOBS="$OUT/@JOBS@"

# q quotes for sh, whatever the string holds (a merge job runs its command through sh).
q() { printf "'%s'" "${1//\'/\'\\\'\'}"; }

# expand LIST: the shards of an index list such as 0-3,7, one per line, sorted, each checked.
expand() {
	local part lo hi
	for part in ${1//,/ }; do
		if ! [[ $part =~ ^([0-9]+)(-([0-9]+))?$ ]]; then
			echo "$0: bad shard list '$1': want e.g. 0-3,7 (shards 0-$((SHARDS - 1)))" >&2
			return 2
		fi
		lo=$((10#${BASH_REMATCH[1]}))
		hi=$((10#${BASH_REMATCH[3]:-${BASH_REMATCH[1]}}))
		if ((lo > hi || hi >= SHARDS)); then
			echo "$0: shards $part are outside 0-$((SHARDS - 1))" >&2
			return 2
		fi
	done
	for part in ${1//,/ }; do
		seq "${part%-*}" "${part#*-}"
	done | sort -n -u
}

# submit_merge DEPENDENCY: the merge job, with the site options; prints its id.
submit_merge() {
	local id
	id=$(sbatch --parsable --dependency="$1" --job-name="$JOB-merge" --ntasks=1 --cpus-per-task=1 \
		--output="${OUT//%/%%}/logs/merge-%j.out" --open-mode=append ${SITE[@]+"${SITE[@]}"} \
		--wrap="exec $(q "$DPRL") sweep merge $(q "$OUT")")
	id=${id%%;*}
	echo "merge $id $1" >>"$JOBS"
	echo "$id"
}

# submit [LIST]: job arrays of at most MaxArraySize tasks (indices relative to a block of shards), then
# one merge job after all of them and after the jobs in DPRL_SWEEP_AFTER (id:id, still running).
submit() {
	local list=${1:-0-$((SHARDS - 1))} shards max off idx id count merge ids=()
	shards=$(expand "$list")
	count=$(wc -l <<<"$shards")
	max=$(timeout 30 scontrol show config 2>/dev/null | sed -n 's/^MaxArraySize *= *\([0-9][0-9]*\).*/\1/p' || true)
	max=${DPRL_SWEEP_MAX_ARRAY_SIZE:-${max:-1001}}
	mkdir -p "$OUT/logs"
	while read -r off idx; do
		id=$(sbatch --parsable --array="$idx${PARALLEL:+%$PARALLEL}" --export="ALL,DPRL_SWEEP_OFFSET=$off,DPRL_SWEEP_MERGE_SUBMITTED=1" "$0")
		id=${id%%;*}
		echo "array $id $off $idx" >>"$JOBS"
		echo "submitted array job $id: indices $idx of the block from shard $off"
		ids+=("$id")
	done < <(awk -v max="$max" '
		function put() { if (n) list = list (list == "" ? "" : ",") (lo == hi ? lo : lo "-" hi) }
		{
			b = int($1 / max); i = $1 - b * max
			if (!started || b != cur) { if (started) { put(); print cur * max, list }; cur = b; list = ""; n = 0; started = 1 }
			if (n && i == hi + 1) hi = i; else { put(); lo = i; hi = i; n = 1 }
		}
		END { if (started) { put(); print cur * max, list } }' <<<"$shards")
	merge=$(submit_merge "afterany:$(IFS=:; echo "${ids[*]}")${DPRL_SWEEP_AFTER:+:$DPRL_SWEEP_AFTER}")
	echo "submitted array jobs $(IFS=,; echo "${ids[*]}") ($count shards, at most $max per array) and merge job $merge"
}

# SIGTERM (scancel, a preemption) stops the shard, which checkpoints its finished tasks; SIGUSR1, Slurm's
# warning before the time limit (--signal=B:USR1@GRACE), stops it too, and the job requeues itself.
STOP=
CHILD=
trap 'STOP=${STOP:-end}; [ -z "$CHILD" ] || kill -TERM "$CHILD" 2>/dev/null || true' TERM
trap 'STOP=requeue; [ -z "$CHILD" ] || kill -TERM "$CHILD" 2>/dev/null || true' USR1

# run_shard SHARD: dprl sweep run, retried up to RETRIES times; when stopped (exit @STOPPED@, its finished
# tasks checkpointed) by Slurm's warning, an array task requeues itself.
run_shard() {
	local shard=$1 try rc
	mkdir -p "$OUT/logs"
	exec >>"$OUT/logs/shard-$shard.log" 2>&1
	for ((try = 1; ; try++)); do
		echo "== $(date -u +%Y-%m-%dT%H:%M:%SZ) shard $shard on $(hostname): job ${SLURM_JOB_ID:-none}${SLURM_ARRAY_JOB_ID:+ (array task ${SLURM_ARRAY_JOB_ID}_${SLURM_ARRAY_TASK_ID}, restart ${SLURM_RESTART_COUNT:-0})}, try $try of $((RETRIES + 1))"
		"$DPRL" sweep run "$SPEC" --out "$OUT" --shard "$shard" --workers "${SLURM_CPUS_PER_TASK:-$CPUS}" &
		CHILD=$!
		echo "shard $shard: dprl is process $CHILD"
		rc=0
		wait "$CHILD" || rc=$?
		while kill -0 "$CHILD" 2>/dev/null; do # a signal interrupted wait: the shard is still finishing
			rc=0
			wait "$CHILD" || rc=$?
		done
		CHILD=
		if ((rc == 0)); then
			return 0
		fi
		if ((rc == @STOPPED@)) || [ -n "$STOP" ]; then
			echo "shard $shard stopped (exit $rc) with its finished tasks checkpointed"
			if [ "$STOP" = requeue ] && [ -n "${SLURM_ARRAY_TASK_ID:-}" ]; then
				echo "requeueing job $SLURM_JOB_ID: the shard resumes from its checkpoint when it starts again"
				if timeout 60 scontrol requeue "$SLURM_JOB_ID"; then
					sleep 60 & # Slurm ends this job now
					wait $! || true
					exit 0
				fi
				echo "scontrol requeue $SLURM_JOB_ID: exit status $?"
			fi
			return "$rc"
		fi
		if ((try > RETRIES)); then
			echo "shard $shard failed (exit $rc) after $try tries: dprl sweep status $(q "$OUT")"
			return "$rc"
		fi
		echo "shard $shard failed (exit $rc): retry $try of $RETRIES in ${DPRL_SWEEP_RETRY_DELAY:-5} s"
		sleep "${DPRL_SWEEP_RETRY_DELAY:-5}"
		if [ -n "$STOP" ]; then
			return "$rc"
		fi
	done
}

# in_allocation [LIST]: the shards run here with srun, as many at once as the allocation has tasks, then merge.
in_allocation() {
	local shards slots s failed=0
	shards=$(expand "${1:-0-$((SHARDS - 1))}")
	slots=${SLURM_NTASKS:-1}
	echo "inside allocation $SLURM_JOB_ID: running $(wc -l <<<"$shards") shards with srun, $slots at a time (logs: $OUT/logs/shard-N.log)"
	for s in $shards; do
		while (($(jobs -rp | wc -l) >= slots)); do
			wait -n || failed=$((failed + 1))
		done
		DPRL_SWEEP_SHARD=$s srun --ntasks=1 --cpus-per-task="$CPUS" --exact bash "$0" &
	done
	while (($(jobs -rp | wc -l) > 0)); do
		wait -n || failed=$((failed + 1))
	done
	if ((failed > 0)); then
		echo "$failed shards failed: dprl sweep status $(q "$OUT")" >&2
		exit 1
	fi
	exec "$DPRL" sweep merge "$OUT"
}

if [ -n "${DPRL_SWEEP_SHARD:-}" ]; then # a step of in_allocation
	run_shard "$DPRL_SWEEP_SHARD"
	exit
fi
if [ -n "${SLURM_ARRAY_TASK_ID:-}" ]; then # an array task
	if [ -z "${DPRL_SWEEP_MERGE_SUBMITTED:-}" ] && [ "$SLURM_ARRAY_TASK_ID" = "${SLURM_ARRAY_TASK_MIN:-0}" ] && [ "${SLURM_RESTART_COUNT:-0}" = 0 ]; then
		mkdir -p "$OUT/logs"
		echo "array $SLURM_ARRAY_JOB_ID 0 ${SLURM_ARRAY_TASK_MIN:-0}-${SLURM_ARRAY_TASK_MAX:-$((SHARDS - 1))}" >>"$JOBS"
		echo "submitted merge job $(submit_merge "afterany:$SLURM_ARRAY_JOB_ID")"
	fi
	run_shard $((SLURM_ARRAY_TASK_ID + ${DPRL_SWEEP_OFFSET:-0}))
	exit
fi
if [ -n "${SLURM_JOB_ID:-}" ] && [ -z "${DPRL_SWEEP_SUBMIT:-}" ]; then
	in_allocation "$@"
fi
submit "$@"
`

// slurmJobs is what logs/slurm-jobs records.
type slurmJobs struct {
	arrays    []slurmArray
	merges    []string
	cancelled map[string]bool
}

type slurmArray struct {
	id      string
	offset  int
	indices []int // the array's indices, sorted, relative to offset
}

// has reports whether the array ran shard i.
func (a slurmArray) has(i int) bool {
	_, found := slices.BinarySearch(a.indices, i-a.offset)
	return found
}

func readSlurmJobs(dir string) (*slurmJobs, error) {
	f, err := os.Open(filepath.Join(dir, SlurmJobs))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := &slurmJobs{cancelled: map[string]bool{}}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 2 || !jobIDRE.MatchString(fields[1]) {
			continue
		}
		switch fields[0] {
		case "array":
			if len(fields) != 4 {
				continue
			}
			off, err := strconv.Atoi(fields[2])
			idx, ierr := ParseIndexList(fields[3], MaxShards)
			if err != nil || ierr != nil {
				continue
			}
			r.arrays = append(r.arrays, slurmArray{fields[1], off, idx})
		case "merge":
			r.merges = append(r.merges, fields[1])
		case "cancel":
			r.cancelled[fields[1]] = true
		}
	}
	return r, sc.Err()
}

func (r *slurmJobs) ids() []string {
	var ids []string
	for _, a := range r.arrays {
		ids = append(ids, a.id)
	}
	return append(ids, r.merges...)
}

func appendSlurmJobs(dir string, lines ...string) error {
	f, err := os.OpenFile(filepath.Join(dir, SlurmJobs), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = f.WriteString(strings.Join(lines, "\n") + "\n")
	return errors.Join(err, f.Close())
}

var jobIDRE = regexp.MustCompile(`^[0-9]+$`)

// slurmState maps Slurm's job states to a shard's: pending, running, completed, failed or cancelled.
func slurmState(s string) string {
	switch s {
	case "PENDING", "REQUEUED", "REQUEUE_FED", "REQUEUE_HOLD", "CONFIGURING", "RESV_DEL_HOLD", "SPECIAL_EXIT":
		return "pending"
	case "RUNNING", "COMPLETING", "SUSPENDED", "STAGE_OUT", "SIGNALING", "RESIZING", "STOPPED":
		return "running"
	case "COMPLETED":
		return "completed"
	case "CANCELLED":
		return "cancelled"
	}
	return "failed" // FAILED, TIMEOUT, NODE_FAIL, OUT_OF_MEMORY, PREEMPTED, BOOT_FAIL, DEADLINE
}

// slurmRow is one line of squeue -r for the recorded jobs.
type slurmRow struct {
	jobID, arrayID, index, state, reason string
}

// squeueRows asks squeue about the recorded jobs (array tasks one per line, finished ones while Slurm still
// remembers them).
func squeueRows(ctx context.Context, jobs *slurmJobs) ([]slurmRow, error) {
	out, err := engineCommand(ctx, "squeue", "-h", "-r", "-t", "all", "-j", strings.Join(jobs.ids(), ","), "-o", "%i|%A|%F|%K|%T|%r")
	if err != nil {
		if strings.Contains(err.Error(), "Invalid job id") {
			return nil, nil // Slurm has forgotten every one of them
		}
		return nil, err
	}
	var rows []slurmRow
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Split(line, "|")
		if len(f) != 6 {
			continue
		}
		rows = append(rows, slurmRow{jobID: f[1], arrayID: f[2], index: f[3], state: f[4], reason: f[5]})
	}
	return rows, nil
}

func askSlurm(ctx context.Context, s *Status) *EngineState {
	jobs, err := readSlurmJobs(s.Dir)
	if err != nil {
		return &EngineState{Name: "slurm", Err: fmt.Errorf("no Slurm submission recorded (%v)", err)}
	}
	rows, err := squeueRows(ctx, jobs)
	if err != nil {
		return &EngineState{Name: "slurm", Err: err}
	}
	return askSlurmRows(s, jobs, rows)
}

// askSlurmRows sorts what squeue said about the recorded jobs by shard.
func askSlurmRows(s *Status, jobs *slurmJobs, rows []slurmRow) *EngineState {
	e := &EngineState{Name: "slurm", Shards: map[int]ShardJob{}}
	offset := map[string]int{}
	for _, a := range jobs.arrays {
		offset[a.id] = a.offset
	}
	rank := map[string]int{"running": 3, "pending": 2}
	for _, r := range rows {
		if slices.Contains(jobs.merges, r.jobID) {
			e.Merge = append(e.Merge, ShardJob{Job: r.jobID, State: slurmState(r.state), Detail: r.state})
			continue
		}
		off, ok := offset[r.arrayID]
		idx, err := strconv.Atoi(r.index)
		if !ok || err != nil {
			continue
		}
		detail := r.state
		if r.reason != "" && r.reason != "None" {
			detail += " (" + r.reason + ")"
		}
		j := ShardJob{Job: r.arrayID + "_" + r.index, State: slurmState(r.state), Detail: detail}
		if jobs.cancelled[r.arrayID] && j.State == "failed" {
			j.State = "cancelled"
		}
		shard := off + idx
		// The latest job of a shard counts, an active one before any finished one.
		if old, seen := e.Shards[shard]; seen && (rank[old.State] > rank[j.State] || rank[old.State] == rank[j.State] && jobLess(r.arrayID, old.Job)) {
			continue
		}
		e.Shards[shard] = j
	}
	known := len(e.Shards)
	// A shard Slurm has forgotten stays cancelled when the last array that ran it was cancelled.
	for _, i := range s.Missing {
		if _, ok := e.Shards[i]; ok {
			continue
		}
		for k := len(jobs.arrays) - 1; k >= 0; k-- {
			if a := jobs.arrays[k]; a.has(i) {
				if jobs.cancelled[a.id] {
					e.Shards[i] = ShardJob{Job: a.id, State: "cancelled", Detail: "cancelled by dprl sweep cancel"}
				}
				break
			}
		}
	}
	ids := jobs.ids()
	e.Summary = fmt.Sprintf("squeue reports on %d shards of the recorded jobs %s", known, abbreviate(ids, 6))
	for _, m := range e.Merge {
		e.Summary += fmt.Sprintf("; merge job %s %s", m.Job, m.Detail)
	}
	return e
}

// jobLess reports whether array job a was submitted before the one of task b ("123_4").
func jobLess(a, b string) bool {
	x, _ := strconv.Atoi(a)
	y, _ := strconv.Atoi(strings.SplitN(b, "_", 2)[0])
	return x < y
}

// activeJobs returns the recorded array and merge jobs that are still pending or running.
func activeJobs(rows []slurmRow, jobs *slurmJobs) (arrays, merges []string) {
	seen := map[string]bool{}
	for _, r := range rows {
		st := slurmState(r.state)
		if (st != "pending" && st != "running") || seen[r.arrayID] {
			continue
		}
		seen[r.arrayID] = true
		if slices.Contains(jobs.merges, r.jobID) {
			merges = append(merges, r.jobID)
		} else {
			arrays = append(arrays, r.arrayID)
		}
	}
	slices.SortFunc(arrays, cmpJobID)
	slices.SortFunc(merges, cmpJobID)
	return arrays, merges
}

func cmpJobID(a, b string) int {
	x, _ := strconv.Atoi(a)
	y, _ := strconv.Atoi(b)
	return x - y
}

func cancelSlurm(ctx context.Context, st *Status) (string, error) {
	jobs, err := readSlurmJobs(st.Dir)
	if err != nil {
		return "", fmt.Errorf("sweep: %s records no Slurm submission: %w", st.Dir, err)
	}
	rows, err := squeueRows(ctx, jobs)
	if err != nil {
		return "", err
	}
	arrays, merges := activeJobs(rows, jobs)
	ids := append(arrays, merges...)
	if len(ids) == 0 {
		return "nothing to cancel: no job of " + st.Dir + " is pending or running", nil
	}
	if _, err := engineCommand(ctx, "scancel", ids...); err != nil {
		return "", err
	}
	var lines []string
	for _, id := range ids {
		lines = append(lines, "cancel "+id)
	}
	if err := appendSlurmJobs(st.Dir, lines...); err != nil {
		return "", err
	}
	return fmt.Sprintf("cancelled array jobs %s and merge jobs %s; finished shards stay done (dprl sweep resubmit %s runs the rest)",
		orNone(arrays), orNone(merges), ShellQuote(st.Dir)), nil
}

func orNone(xs []string) string {
	if len(xs) == 0 {
		return "(none)"
	}
	return strings.Join(xs, ",")
}

// ResubmitOptions configure Resubmit.
type ResubmitOptions struct {
	DryRun bool      // say what would be submitted, submit nothing
	Log    io.Writer // the script's output (nil: discarded)
}

// Resubmit submits, through the directory's sweep.sbatch, only the shards that are neither done nor
// pending or running (squeue says which): missing, failed, corrupt and cancelled ones, as arrays with an
// index list. Pending merge jobs of earlier submissions are cancelled, and the new merge job waits for the
// arrays still running too. It returns the shards submitted.
func Resubmit(ctx context.Context, dir string, opt ResubmitOptions) ([]int, error) {
	st, err := ReadStatus(dir)
	if err != nil {
		return nil, err
	}
	script := filepath.Join(dir, SlurmScript)
	if _, err := os.Stat(script); err != nil {
		return nil, fmt.Errorf("sweep: %s has no %s: write it with dprl sweep slurm SPEC --out %s", dir, SlurmScript, ShellQuote(dir))
	}
	var rows []slurmRow
	jobs, err := readSlurmJobs(dir)
	if err == nil {
		if rows, err = squeueRows(ctx, jobs); err != nil {
			return nil, fmt.Errorf("sweep: cannot tell which shards are still queued: %w", err)
		}
		st.Engine = askSlurmRows(st, jobs, rows)
	} else {
		jobs = &slurmJobs{cancelled: map[string]bool{}}
	}
	todo := st.Resubmittable()
	if len(todo) == 0 {
		return nil, nil
	}
	arrays, merges := activeJobs(rows, jobs)
	if opt.DryRun {
		return todo, nil
	}
	var pending []string
	for _, r := range rows {
		if slices.Contains(merges, r.jobID) && slurmState(r.state) == "pending" {
			pending = append(pending, r.jobID)
		}
	}
	if len(pending) > 0 {
		if _, err := engineCommand(ctx, "scancel", pending...); err != nil {
			return nil, err
		}
		lines := make([]string, len(pending))
		for i, id := range pending {
			lines[i] = "cancel " + id
		}
		if err := appendSlurmJobs(dir, lines...); err != nil {
			return nil, err
		}
	}
	c := exec.CommandContext(ctx, "bash", script, IndexList(todo))
	c.Env = append(os.Environ(), "DPRL_SWEEP_SUBMIT=1", "DPRL_SWEEP_AFTER="+strings.Join(arrays, ":"))
	c.Stdout, c.Stderr = opt.Log, opt.Log
	if opt.Log == nil {
		c.Stdout, c.Stderr = io.Discard, io.Discard
	}
	if err := c.Run(); err != nil {
		return nil, fmt.Errorf("sweep: bash %s %s: %w", script, IndexList(todo), err)
	}
	return todo, nil
}
