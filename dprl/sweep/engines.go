package sweep

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/dprl-project/dprl/dprl/param"
)

// Environment variables that select a shard when RunShard's caller has no --shard.
const (
	SlurmTaskEnv  = "SLURM_ARRAY_TASK_ID"
	SlurmCountEnv = "SLURM_ARRAY_TASK_COUNT"
	K8sIndexEnv   = "JOB_COMPLETION_INDEX"
)

// ShardFromEnv picks the shard from the engine's environment: SLURM_ARRAY_TASK_ID (with
// SLURM_ARRAY_TASK_COUNT, which may not exceed shards: an array may cover a subset, as when resubmitting the
// missing shards) or Kubernetes' JOB_COMPLETION_INDEX. It returns the shard, where it came from, and a
// warning worth logging ("" if none); neither variable set is an error saying what to pass.
func ShardFromEnv(getenv func(string) string, shards int) (shard int, source, warning string, err error) {
	parse := func(name string) (int, error) {
		v := getenv(name)
		i, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return 0, badValue(name, v, "integers in %s", "[0, "+strconv.Itoa(shards-1)+"]")
		}
		return i, nil
	}
	switch {
	case getenv(SlurmTaskEnv) != "":
		i, err := parse(SlurmTaskEnv)
		if err != nil {
			return 0, "", "", err
		}
		if err := check.Int(SlurmTaskEnv, i, 0, shards-1); err != nil {
			return 0, "", "", fmt.Errorf("%w (the spec has %d shards: submit --array=0-%d)", err, shards, shards-1)
		}
		if getenv(SlurmCountEnv) != "" {
			n, err := parse(SlurmCountEnv)
			if err != nil {
				return 0, "", "", err
			}
			if err := check.Int(SlurmCountEnv, n, 1, shards); err != nil {
				return 0, "", "", fmt.Errorf("%w (the spec has %d shards: submit --array=0-%d)", err, shards, shards-1)
			}
			if n < shards {
				warning = fmt.Sprintf("the array has %d tasks for %d shards (resubmitting a subset?)", n, shards)
			}
		}
		return i, SlurmTaskEnv, warning, nil
	case getenv(K8sIndexEnv) != "":
		i, err := parse(K8sIndexEnv)
		if err != nil {
			return 0, "", "", err
		}
		if err := check.Int(K8sIndexEnv, i, 0, shards-1); err != nil {
			return 0, "", "", fmt.Errorf("%w (the spec has %d shards: completions: %d)", err, shards, shards)
		}
		return i, K8sIndexEnv, "", nil
	}
	return 0, "", "", check.Missing("shard", fmt.Sprintf("--shard I with I in [0, %d], or %s / %s from the engine", shards-1, SlurmTaskEnv, K8sIndexEnv))
}

// SlurmOptions configure the sbatch script.
type SlurmOptions struct {
	Binary    string   // the dprl binary as the compute nodes see it (absolute path, or "dprl" on PATH)
	SpecPath  string   // the spec as the compute nodes see it (normally <Dir>/spec.json)
	Dir       string   // the results directory as the compute nodes see it (absolute)
	CPUs      int      // --cpus-per-task (0: 1); the shard runs that many tasks at once
	Parallel  int      // at most this many array tasks at once (0: no limit)
	Time      string   // --time, e.g. "02:00:00" ("" : the partition's default)
	Mem       string   // --mem, e.g. "4G" ("" : the default)
	Partition string   // --partition ("" : the default)
	Extra     []string // further #SBATCH option lines, e.g. "--account=abc"
}

func shellQuote(s string) string {
	if s != "" && regexp.MustCompile(`^[A-Za-z0-9_./:=+-]+$`).MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Slurm writes a bash script that is both the job array's batch script and its own submitter. `bash
// SCRIPT` submits the array (one task per shard) and a merge job that runs `dprl sweep merge` once every
// task has succeeded (afterok); `sbatch SCRIPT` submits the array, whose first task then submits the merge
// job. Either, run again, completes only the missing shards. Logs go to <Dir>/logs/, which the script
// creates in submit mode and which must exist for a plain sbatch (dprl sweep slurm creates it).
func (p *Plan) Slurm(opt SlurmOptions) (string, error) {
	if opt.Binary == "" {
		opt.Binary = "dprl"
	}
	if opt.Dir == "" {
		return "", check.Missing("Dir", "the results directory as the compute nodes see it")
	}
	if opt.SpecPath == "" {
		opt.SpecPath = strings.TrimSuffix(opt.Dir, "/") + "/" + SpecFile
	}
	if err := param.First(check.AtLeast("CPUs", opt.CPUs, 0), check.AtLeast("Parallel", opt.Parallel, 0)); err != nil {
		return "", err
	}
	cpus := max(opt.CPUs, 1)
	s := p.Spec
	n := s.Shards()
	job := "dprl-" + s.Name
	array := fmt.Sprintf("0-%d", n-1)
	if opt.Parallel > 0 {
		array += fmt.Sprintf("%%%d", opt.Parallel)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "#!/bin/bash\n")
	fmt.Fprintf(&b, "# Sweep %s (experiment %s, spec hash %s…): %d tasks in %d shards of %d.\n", s.Name, s.Experiment, p.Hash[:12], s.Tasks(), n, s.ShardSize)
	fmt.Fprintf(&b, "# Written by `dprl sweep slurm`. Submit with\n")
	fmt.Fprintf(&b, "#   bash %s     # the array and a merge job that runs after every shard succeeded\n", "THIS_SCRIPT")
	fmt.Fprintf(&b, "#   sbatch %s   # the array; its first task submits the merge job\n", "THIS_SCRIPT")
	fmt.Fprintf(&b, "# Submitting again completes only what is missing: complete shards are skipped.\n")
	fmt.Fprintf(&b, "#SBATCH --job-name=%s\n", job)
	fmt.Fprintf(&b, "#SBATCH --array=%s\n", array)
	fmt.Fprintf(&b, "#SBATCH --ntasks=1\n")
	fmt.Fprintf(&b, "#SBATCH --cpus-per-task=%d\n", cpus)
	fmt.Fprintf(&b, "#SBATCH --output=%s/logs/shard-%%a-job-%%A.out\n", strings.TrimSuffix(opt.Dir, "/"))
	if opt.Time != "" {
		fmt.Fprintf(&b, "#SBATCH --time=%s\n", opt.Time)
	}
	if opt.Mem != "" {
		fmt.Fprintf(&b, "#SBATCH --mem=%s\n", opt.Mem)
	}
	if opt.Partition != "" {
		fmt.Fprintf(&b, "#SBATCH --partition=%s\n", opt.Partition)
	}
	for _, e := range opt.Extra {
		fmt.Fprintf(&b, "#SBATCH %s\n", e)
	}
	fmt.Fprintf(&b, `set -euo pipefail
DPRL=${DPRL:-%s}
SPEC=%s
OUT=%s
MERGE_JOB=%s

submit_merge() { # $1: the array job's id
	sbatch --parsable --dependency="afterok:$1" --kill-on-invalid-dep=yes --job-name="$MERGE_JOB" \
		--ntasks=1 --cpus-per-task=1 --output="$OUT/logs/merge-job-%%j.out" %s--wrap="exec $DPRL sweep merge $OUT"
}

if [ -z "${SLURM_ARRAY_TASK_ID:-}" ]; then
	if [ -n "${SLURM_JOB_ID:-}" ]; then
		echo "this script is a job array's: submit it with sbatch, or run it with bash to submit" >&2
		exit 2
	fi
	mkdir -p "$OUT/logs"
	array=$(sbatch --parsable --export=ALL,DPRL_SWEEP_MERGE_SUBMITTED=1 "$0")
	array=${array%%%%;*}
	merge=$(submit_merge "$array")
	merge=${merge%%%%;*}
	echo "submitted array job $array (%d shards) and merge job $merge"
	echo "array=$array merge=$merge" >"$OUT/logs/submitted"
	exit 0
fi

if [ "$SLURM_ARRAY_TASK_ID" = "${SLURM_ARRAY_TASK_MIN:-0}" ] && [ -z "${DPRL_SWEEP_MERGE_SUBMITTED:-}" ]; then
	merge=$(submit_merge "$SLURM_ARRAY_JOB_ID") && echo "submitted merge job ${merge%%%%;*}"
fi
exec "$DPRL" sweep run "$SPEC" --out "$OUT" --workers "${SLURM_CPUS_PER_TASK:-%d}"
`, shellQuote(opt.Binary), shellQuote(opt.SpecPath), shellQuote(strings.TrimSuffix(opt.Dir, "/")), shellQuote(job+"-merge"), partitionFlag(opt.Partition), n, cpus)
	return b.String(), nil
}

func partitionFlag(p string) string {
	if p == "" {
		return ""
	}
	return "--partition=" + shellQuote(p) + " "
}

// KubernetesOptions configure the Indexed Job manifest.
type KubernetesOptions struct {
	Image       string // a container image with the dprl binary on PATH (required)
	Claim       string // the PersistentVolumeClaim the results go to (ReadWriteMany when pods share it; required)
	Namespace   string // "" : the kubectl context's
	MountPath   string // where the claim is mounted (default /results); results go to <MountPath>/<spec name>
	Parallelism int    // pods at once (0: every shard)
	CPU         string // the container's CPU request and limit, e.g. "2" (default "1"); also GOMAXPROCS
	Memory      string // the memory request and limit, e.g. "4Gi" (default "2Gi")
	Retries     int    // backoffLimitPerIndex: retries of one shard (default 2)
}

// Object is an ordered JSON/YAML object (key order is kept when written).
type Object []Field

// Field is one key of an Object.
type Field struct {
	Key   string
	Value any // string, int, bool, Object or []any
}

// MarshalJSON writes the fields in order.
func (o Object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(f.Key)
		v, err := json.Marshal(f.Value)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

var dnsLabel = regexp.MustCompile(`[^a-z0-9-]+`)

// K8sName turns a spec name into a DNS-1123 label (lower case, digits and '-', at most 63 characters,
// starting and ending alphanumeric) with the given prefix.
func K8sName(prefix, name string) string {
	s := dnsLabel.ReplaceAllString(strings.ToLower(prefix+name), "-")
	if len(s) > 63 {
		s = s[:63]
	}
	return strings.Trim(s, "-")
}

// KubernetesObjects returns the manifest's two objects: a ConfigMap holding the canonical spec and an
// Indexed Job (completionMode Indexed, one completion per shard, restartPolicy Never, the results claim
// mounted) whose pods run `dprl sweep run` with the shard from JOB_COMPLETION_INDEX.
func (p *Plan) KubernetesObjects(opt KubernetesOptions) ([]Object, error) {
	if opt.Image == "" {
		return nil, check.Missing("Image", "a container image with dprl on PATH")
	}
	if opt.Claim == "" {
		return nil, check.Missing("Claim", "a PersistentVolumeClaim name for the results")
	}
	if err := param.First(check.AtLeast("Parallelism", opt.Parallelism, 0), check.AtLeast("Retries", opt.Retries, 0)); err != nil {
		return nil, err
	}
	if opt.MountPath == "" {
		opt.MountPath = "/results"
	}
	if opt.CPU == "" {
		opt.CPU = "1"
	}
	if opt.Memory == "" {
		opt.Memory = "2Gi"
	}
	retries := opt.Retries
	if retries == 0 {
		retries = 2
	}
	n := p.Spec.Shards()
	par := n
	if opt.Parallelism > 0 {
		par = min(opt.Parallelism, n)
	}
	name := K8sName("dprl-sweep-", p.Spec.Name)
	cmName := K8sName("dprl-sweep-spec-", p.Spec.Name)
	labels := Object{{"app.kubernetes.io/name", "dprl-sweep"}, {"dprl/spec", K8sName("", p.Spec.Name)}, {"dprl/spec-hash", p.Hash[:16]}}
	meta := func(n string) Object {
		o := Object{{"name", n}}
		if opt.Namespace != "" {
			o = append(o, Field{"namespace", opt.Namespace})
		}
		return append(o, Field{"labels", labels})
	}
	out := strings.TrimSuffix(opt.MountPath, "/") + "/" + p.Spec.Name
	workers := "1"
	if c, err := strconv.ParseFloat(opt.CPU, 64); err == nil && c >= 1 {
		workers = strconv.Itoa(int(math.Floor(c)))
	}
	cm := Object{{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", meta(cmName)},
		{"data", Object{{SpecFile, string(p.Spec.Canonical())}}}}
	res := Object{{"cpu", opt.CPU}, {"memory", opt.Memory}}
	job := Object{{"apiVersion", "batch/v1"}, {"kind", "Job"}, {"metadata", meta(name)},
		{"spec", Object{
			{"completionMode", "Indexed"},
			{"completions", n},
			{"parallelism", par},
			{"backoffLimitPerIndex", retries},
			{"template", Object{
				{"metadata", Object{{"labels", labels}}},
				{"spec", Object{
					{"restartPolicy", "Never"},
					{"containers", []any{Object{
						{"name", "shard"},
						{"image", opt.Image},
						{"command", []any{"dprl", "sweep", "run", "/spec/" + SpecFile, "--out", out, "--workers", workers}},
						{"env", []any{Object{{"name", "GOMAXPROCS"}, {"value", workers}}}},
						{"resources", Object{{"requests", res}, {"limits", res}}},
						{"volumeMounts", []any{
							Object{{"name", "results"}, {"mountPath", opt.MountPath}},
							Object{{"name", "spec"}, {"mountPath", "/spec"}, {"readOnly", true}},
						}},
					}}},
					{"volumes", []any{
						Object{{"name", "results"}, {"persistentVolumeClaim", Object{{"claimName", opt.Claim}}}},
						Object{{"name", "spec"}, {"configMap", Object{{"name", cmName}}}},
					}},
				}},
			}},
		}}}
	return []Object{cm, job}, nil
}

// Kubernetes writes KubernetesObjects as a YAML manifest for `kubectl apply -f`; the pods read the shard from
// JOB_COMPLETION_INDEX, and after the Job completes `dprl sweep merge <MountPath>/<name>` (in any pod that
// mounts the claim) merges. The header comment says so.
func (p *Plan) Kubernetes(opt KubernetesOptions) (string, error) {
	objs, err := p.KubernetesObjects(opt)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Sweep %s (experiment %s, spec hash %s…): %d tasks in %d shards of %d.\n", p.Spec.Name, p.Spec.Experiment, p.Hash[:12], p.Spec.Tasks(), p.Spec.Shards(), p.Spec.ShardSize)
	fmt.Fprintf(&b, "# Written by `dprl sweep k8s`. kubectl apply -f THIS_FILE; after `kubectl wait --for=condition=complete job/%s`,\n", K8sName("dprl-sweep-", p.Spec.Name))
	fmt.Fprintf(&b, "# merge with `dprl sweep merge <mount>/%s` where the claim %s is mounted. Re-applying (after deleting the Job)\n", p.Spec.Name, opt.Claim)
	fmt.Fprintf(&b, "# completes only the missing shards.\n")
	for i, o := range objs {
		if i > 0 {
			b.WriteString("---\n")
		}
		writeYAML(&b, o, 0)
	}
	return b.String(), nil
}

// writeYAML writes v in block style; scalars are JSON-encoded (valid YAML flow scalars).
func writeYAML(b *strings.Builder, v any, indent int) {
	pad := strings.Repeat("  ", indent)
	switch x := v.(type) {
	case Object:
		for _, f := range x {
			k, _ := json.Marshal(f.Key)
			key := string(k)
			if regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_./-]*$`).MatchString(f.Key) {
				key = f.Key
			}
			switch c := f.Value.(type) {
			case Object:
				fmt.Fprintf(b, "%s%s:\n", pad, key)
				writeYAML(b, c, indent+1)
			case []any:
				fmt.Fprintf(b, "%s%s:\n", pad, key)
				writeYAML(b, c, indent+1)
			default:
				fmt.Fprintf(b, "%s%s: %s\n", pad, key, scalar(c))
			}
		}
	case []any:
		for _, e := range x {
			switch c := e.(type) {
			case Object:
				var sub strings.Builder
				writeYAML(&sub, c, indent+1)
				s := sub.String()
				// the first line's indentation becomes "- "
				fmt.Fprintf(b, "%s- %s", pad, strings.TrimPrefix(s, strings.Repeat("  ", indent+1)))
			default:
				fmt.Fprintf(b, "%s- %s\n", pad, scalar(c))
			}
		}
	}
}

func scalar(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	return strings.TrimSuffix(b.String(), "\n")
}
