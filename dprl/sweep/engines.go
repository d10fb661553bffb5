package sweep

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"
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

// EngineState is what a batch engine reports about a sweep's jobs (Status.AskEngine).
type EngineState struct {
	Name    string           // "slurm" or "kubernetes"
	Summary string           // one line: the jobs asked about and what the engine said
	Shards  map[int]ShardJob // the shards the engine knows a job of (the latest one)
	Merge   []ShardJob       // the merge jobs
	Err     error            // why the engine could not be asked (Shards is then empty)
}

// ShardJob is one engine job (an array task, a pod) and its state.
type ShardJob struct {
	Job    string // the engine's name for it: "123_4" (array job 123, index 4), a pod's name
	State  string // pending, running, completed, failed or cancelled
	Detail string // the engine's own words, e.g. "TIMEOUT" or "PENDING (BeginTime)"
}

// probeTimeout bounds every call of an engine's command (squeue, scancel, kubectl): a controller that does
// not answer makes the call fail, not hang.
const probeTimeout = 30 * time.Second

// engineCommand runs an engine's command with a time limit and returns its standard output; the error
// carries its standard error.
func engineCommand(ctx context.Context, name string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	c := exec.CommandContext(ctx, name, args...)
	var stderr strings.Builder
	c.Stderr = &stderr
	out, err := c.Output()
	if ctx.Err() != nil {
		return out, fmt.Errorf("%s did not answer within %v", name, probeTimeout)
	}
	if err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return out, fmt.Errorf("%s: %w: %s", name, err, msg)
		}
		return out, fmt.Errorf("%s: %w", name, err)
	}
	return out, nil
}

// EngineOptions say which engine AskEngine and Cancel talk to.
type EngineOptions struct {
	// Engine is "slurm", "kubernetes", "none" or "" (auto: Slurm when the directory records Slurm
	// submissions, else none).
	Engine string
	// Namespace and Job name the Kubernetes Jobs (defaults: the kubectl context's namespace, the names
	// KubernetesObjects gives).
	Namespace, Job string
}

func (o EngineOptions) resolve(dir string) (string, error) {
	switch o.Engine {
	case "slurm", "kubernetes", "none":
		return o.Engine, nil
	case "", "auto":
		if recs, err := readSlurmJobs(dir); err == nil && len(recs.arrays) > 0 {
			return "slurm", nil
		}
		return "none", nil
	}
	return "", badValue("engine", o.Engine, "{auto, slurm, kubernetes, none}")
}

// AskEngine asks the engine (squeue or kubectl, each call bounded by a timeout) about the sweep's jobs and
// sets s.Engine; an engine that cannot be asked leaves s.Engine.Err set, not an error: the files still
// say what is done.
func (s *Status) AskEngine(ctx context.Context, opt EngineOptions) error {
	engine, err := opt.resolve(s.Dir)
	if err != nil {
		return err
	}
	switch engine {
	case "slurm":
		s.Engine = askSlurm(ctx, s)
	case "kubernetes":
		s.Engine = askKubernetes(ctx, s, opt)
	}
	return nil
}

// Cancel cancels the sweep's jobs that are still pending or running (scancel, or kubectl delete job for
// Kubernetes) and says what it did; finished shards stay done and a later resubmission runs the rest.
func Cancel(ctx context.Context, dir string, opt EngineOptions) (string, error) {
	st, err := ReadStatus(dir)
	if err != nil {
		return "", err
	}
	engine, err := opt.resolve(dir)
	if err != nil {
		return "", err
	}
	switch engine {
	case "slurm":
		return cancelSlurm(ctx, st)
	case "kubernetes":
		return cancelKubernetes(ctx, st, opt)
	}
	return "", errors.New("sweep: no engine to cancel: " + dir + " records no Slurm submission (pass --engine kubernetes for a Kubernetes sweep)")
}

// shellQuote quotes s for bash (and POSIX sh): as it is when it needs no quoting, else in single quotes.
func ShellQuote(s string) string {
	if s != "" && safeShellRE.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

var safeShellRE = regexp.MustCompile(`^[A-Za-z0-9_./:=+,@%-]+$`)
