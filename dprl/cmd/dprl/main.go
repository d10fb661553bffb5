// Command dprl runs the project's experiment sweeps at scale: it plans a sweep spec into shards, runs one
// shard (the shard index from --shard, or from a Slurm job array or a Kubernetes Indexed Job), merges the
// shards into the table one process would have written, and writes the sbatch script and the Indexed Job
// manifest that run it. Install it with
//
//	go install github.com/dprl-project/dprl/dprl/cmd/dprl@latest
//
// Usage:
//
//	dprl sweep plan SPEC                 the shards and the work in each
//	dprl sweep run SPEC [--shard I --of N] [--out DIR] [--workers K] [--force]
//	dprl sweep all SPEC [-o FILE]        every task in this process (the reference for merge)
//	dprl sweep local SPEC [--out DIR]    every shard here in turn (resumable), then merge
//	dprl sweep merge DIR [-o FILE] [--wait]   check every shard, write DIR/merged.csv
//	dprl sweep status DIR                done, running, pending, failed, cancelled and missing shards (exit 1 unless complete)
//	dprl sweep slurm SPEC [-o SCRIPT]    a self-submitting sbatch script: job arrays + a merge job
//	dprl sweep resubmit DIR              submit only the missing, failed and cancelled shards (Slurm)
//	dprl sweep cancel DIR                cancel the sweep's pending and running jobs
//	dprl sweep k8s SPEC --claim PVC [--image IMG] [-o FILE]   an Indexed Job and a merge Job
//	dprl sweep list                      the registered experiments
//	dprl budget init|show FILE ...       a trajectory file's privacy budget (dprl budget -h)
//	dprl version
//
// dprl sweep run exits with status 75 when SIGTERM (or SIGINT) stopped it: its finished tasks are
// checkpointed and a rerun resumes after them (the Slurm script requeues the job when the signal was Slurm's
// warning before the time limit; a Kubernetes pod failure policy does not count it as a failure).
//
// The experiments are the reproduction packages' (github.com/dprl-project/dprl/dprl/repro/sweeps) and
// sweep/demo; the specs of the papers' main figures are in sweeps/specs/. See sweeps/README.md.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	_ "github.com/dprl-project/dprl/dprl/repro/sweeps" // registers the reproduction experiments
	"github.com/dprl-project/dprl/dprl/sweep"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

const usage = `usage:
  dprl sweep plan SPEC
  dprl sweep run SPEC [--shard I [--of N]] [--out DIR] [--workers K] [--force]
  dprl sweep all SPEC [-o FILE] [--workers K]
  dprl sweep local SPEC [--out DIR] [--workers K]
  dprl sweep merge DIR [-o FILE] [--wait [--timeout D] [--poll D] [--give-up-after N]]
  dprl sweep status DIR [--engine auto|slurm|kubernetes|none] [--namespace NS] [--job NAME]
  dprl sweep slurm SPEC [--submit] [--out DIR] [-o SCRIPT] [--dprl PATH] [--cpus N] [--parallel N] [--time T] [--mem M] [--partition P] [--account A] [--qos Q] [--sbatch OPTION]... [--retries N] [--grace S]
  dprl sweep resubmit DIR [--dry-run]
  dprl sweep cancel DIR [--engine auto|slurm|kubernetes] [--namespace NS] [--job NAME]
  dprl sweep k8s SPEC --claim PVC [--image IMAGE] [-o FILE] [--namespace NS] [--parallelism N] [--cpu C] [--memory M] [--retries N] [--grace S] [--mount PATH] [--merge-timeout D]
  dprl sweep list
  dprl budget init FILE --epsilon E --delta D [--filter basic|renyi] [--store DIR]
  dprl budget show FILE [--store DIR]
  dprl version
`

// run is the command line without the process: it returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "version":
		v := sweep.BuildVersion()
		fmt.Fprintf(stdout, "%s %s commit %s %s\n", v.Module, v.Version, v.Commit, v.GoVersion)
		return 0
	case "budget":
		return runBudget(args[1:], stdout, stderr)
	case "sweep":
	default:
		fmt.Fprintf(stderr, "dprl: unknown command %q\n%s", args[0], usage)
		return 2
	}
	if len(args) < 2 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	cmds := map[string]func([]string, io.Writer, io.Writer) error{
		"plan": cmdPlan, "run": cmdRun, "all": cmdAll, "local": cmdLocal, "merge": cmdMerge, "status": cmdStatus,
		"slurm": cmdSlurm, "resubmit": cmdResubmit, "cancel": cmdCancel, "k8s": cmdK8s, "list": cmdList,
	}
	f, ok := cmds[args[1]]
	if !ok {
		fmt.Fprintf(stderr, "dprl sweep: unknown subcommand %q\n%s", args[1], usage)
		return 2
	}
	err := f(args[2:], stdout, stderr)
	var incomplete errIncomplete
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 2
	case errors.As(err, &incomplete):
		return 1
	}
	fmt.Fprintf(stderr, "dprl sweep %s: %v\n", args[1], err)
	var ue usageError
	switch {
	case errors.As(err, &ue):
		return 2
	case errors.Is(err, sweep.ErrStopped):
		return sweep.ExitStopped
	}
	return 1
}

type usageError string

func (e usageError) Error() string { return string(e) }

type errIncomplete struct{}

func (errIncomplete) Error() string { return "incomplete" }

// parse parses flags placed anywhere among the arguments and returns the positional ones, of which it
// wants exactly want.
func parse(fs *flag.FlagSet, args []string, want int, what string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			break
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(pos) != want {
		return nil, usageError(fmt.Sprintf("want %s, got %d arguments %q", what, len(pos), pos))
	}
	return pos, nil
}

// loadPlan parses the flags and the one spec file among args, and plans the spec.
func loadPlan(fs *flag.FlagSet, args []string) (*sweep.Plan, string, error) {
	pos, err := parse(fs, args, 1, "one spec file")
	if err != nil {
		return nil, "", err
	}
	p, err := sweep.LoadPlan(pos[0])
	return p, pos[0], err
}

func newFlags(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("dprl sweep "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}

func cmdList(args []string, stdout, stderr io.Writer) error {
	if _, err := parse(newFlags("list", stderr), args, 0, "no arguments"); err != nil {
		return err
	}
	for _, n := range sweep.Experiments() {
		e, _ := sweep.Lookup(n)
		doc := strings.Join(e.Columns(), ",")
		if d, ok := e.(sweep.Describer); ok {
			doc = d.Describe() + "\n    columns: " + doc
		}
		fmt.Fprintf(stdout, "%s\n    %s\n", n, doc)
	}
	return nil
}

func cmdPlan(args []string, stdout, stderr io.Writer) error {
	p, _, err := loadPlan(newFlags("plan", stderr), args)
	if err != nil {
		return err
	}
	return p.WritePlan(stdout)
}

// outDir is --out, or the sweep's default directory.
func outDir(flagValue string, p *sweep.Plan) (string, error) {
	if flagValue != "" {
		return filepath.Abs(flagValue)
	}
	d, err := sweep.Dir(p.Spec.Name)
	if err != nil {
		d = filepath.Join("build", "sweeps", p.Spec.Name)
	}
	return filepath.Abs(d)
}

// shardFlag is --shard: unset (the engine's environment says), or a shard checked against the spec.
type shardFlag struct {
	set bool
	v   int
}

func (f *shardFlag) String() string { return strconv.Itoa(f.v) }
func (f *shardFlag) Set(s string) error {
	v, err := strconv.Atoi(s)
	if err != nil {
		return fmt.Errorf("want an integer, got %q", s)
	}
	f.set, f.v = true, v
	return nil
}

// stopOnSignal returns a context cancelled by SIGTERM or SIGINT, after which the shard finishes its running
// tasks and checkpoints them; a second SIGINT exits at once. release undoes it.
func stopOnSignal(stderr io.Writer) (ctx context.Context, release func()) {
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-sigs:
			fmt.Fprintf(stderr, "dprl sweep run: %v: finishing the running tasks and checkpointing them (SIGINT again aborts)\n", s)
			cancel()
		case <-done:
			return
		}
		for {
			select {
			case s := <-sigs:
				if s == syscall.SIGINT {
					os.Exit(130)
				}
			case <-done:
				return
			}
		}
	}()
	return ctx, func() { signal.Stop(sigs); close(done); cancel() }
}

func cmdRun(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("run", stderr)
	var shard shardFlag
	fs.Var(&shard, "shard", "the shard to run (default: from SLURM_ARRAY_TASK_ID or JOB_COMPLETION_INDEX)")
	of := fs.Int("of", 0, "the number of shards, checked against the spec's")
	out := fs.String("out", "", "results directory (default build/sweeps/<name> in the repository)")
	workers := fs.Int("workers", 0, "tasks run at once (default GOMAXPROCS)")
	force := fs.Bool("force", false, "rerun the shard even if complete")
	p, spec, err := loadPlan(fs, args)
	if err != nil {
		return err
	}
	n := p.Spec.Shards()
	if *of != 0 && *of != n {
		return fmt.Errorf("sweep: --of = %d is outside the allowed range [%d, %d]: spec %s has %d shards (dprl sweep plan %s)", *of, n, n, p.Spec.Name, n, spec)
	}
	i := shard.v
	if shard.set {
		if i < 0 || i >= n {
			return fmt.Errorf("sweep: --shard = %d is outside the allowed range [0, %d]: spec %s has %d shards", i, n-1, p.Spec.Name, n)
		}
	} else {
		var source, warning string
		i, source, warning, err = sweep.ShardFromEnv(os.Getenv, n)
		if err != nil {
			return err
		}
		fmt.Fprintf(stderr, "shard %d from %s\n", i, source)
		if warning != "" {
			fmt.Fprintf(stderr, "warning: %s\n", warning)
		}
	}
	dir, err := outDir(*out, p)
	if err != nil {
		return err
	}
	ctx, release := stopOnSignal(stderr)
	defer release()
	res, err := p.RunShard(i, sweep.RunOptions{Dir: dir, Workers: *workers, Log: stderr, Force: *force, Context: ctx})
	if err != nil {
		return err
	}
	state := "done"
	if res.Skipped {
		state = "skipped (already complete)"
	}
	fmt.Fprintf(stdout, "shard %d/%d %s: %d rows in %s\n", i, n, state, res.Manifest.Rows, filepath.Join(dir, res.Manifest.File))
	return nil
}

func cmdAll(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("all", stderr)
	out := fs.String("o", "", "write the table to this file (default standard output)")
	workers := fs.Int("workers", 0, "tasks run at once (default GOMAXPROCS)")
	p, _, err := loadPlan(fs, args)
	if err != nil {
		return err
	}
	if *out == "" {
		return p.RunAll(stdout, sweep.RunOptions{Workers: *workers, Log: stderr})
	}
	var b bytes.Buffer
	if err := p.RunAll(&b, sweep.RunOptions{Workers: *workers, Log: stderr}); err != nil {
		return err
	}
	return sweep.WriteAtomic(filepath.Dir(*out), filepath.Base(*out), b.Bytes()) // a killed run leaves no half table
}

func cmdLocal(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("local", stderr)
	out := fs.String("out", "", "results directory (default build/sweeps/<name> in the repository)")
	workers := fs.Int("workers", 0, "tasks run at once (default GOMAXPROCS)")
	p, _, err := loadPlan(fs, args)
	if err != nil {
		return err
	}
	dir, err := outDir(*out, p)
	if err != nil {
		return err
	}
	ctx, release := stopOnSignal(stderr)
	defer release()
	m, err := p.RunLocal(sweep.RunOptions{Dir: dir, Workers: *workers, Log: stderr, Context: ctx})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "merged %d shards of %s: %d rows, sha256 %s, in %s\n", m.Shards, m.Spec, m.Rows, m.SHA256, filepath.Join(dir, m.File))
	return nil
}

func cmdMerge(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("merge", stderr)
	out := fs.String("o", "", "write the merged table here (default DIR/merged.csv)")
	wait := fs.Bool("wait", false, "wait until every shard is done, then merge (a Kubernetes merge Job does this)")
	timeout := fs.Duration("timeout", 0, "with --wait: give up after this long (0: never)")
	poll := fs.Duration("poll", 30*time.Second, "with --wait: look at the directory this often")
	giveUp := fs.Int("give-up-after", 0, "with --wait: give up when a shard has failed this many times (0: never)")
	pos, err := parse(fs, args, 1, "one results directory")
	if err != nil {
		return err
	}
	var m *sweep.Manifest
	if *wait {
		ctx := context.Background()
		if *timeout > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, *timeout)
			defer cancel()
		}
		m, err = sweep.WaitMerge(ctx, pos[0], *out, sweep.WaitOptions{Poll: *poll, GiveUpAfter: *giveUp, Log: stderr})
	} else {
		var st *sweep.Status
		if st, err = sweep.ReadStatus(pos[0]); err != nil {
			return err
		}
		for _, f := range st.Ignored {
			fmt.Fprintf(stderr, "ignored: %s\n", f)
		}
		m, err = st.Merge(*out)
	}
	if err != nil {
		return err
	}
	path := m.File
	if !filepath.IsAbs(path) {
		path = filepath.Join(pos[0], path)
	}
	fmt.Fprintf(stdout, "merged %d shards of %s: %d rows, sha256 %s, in %s\n", m.Shards, m.Spec, m.Rows, m.SHA256, path)
	return nil
}

// engineFlags are the options that say which engine status and cancel ask.
func engineFlags(fs *flag.FlagSet) *sweep.EngineOptions {
	var opt sweep.EngineOptions
	fs.StringVar(&opt.Engine, "engine", "auto", "auto (Slurm when DIR records Slurm submissions), slurm, kubernetes or none")
	fs.StringVar(&opt.Namespace, "namespace", "", "Kubernetes namespace (default: the kubectl context's)")
	fs.StringVar(&opt.Job, "job", "", "Kubernetes Indexed Job name (default dprl-sweep-<name>)")
	return &opt
}

func cmdStatus(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("status", stderr)
	opt := engineFlags(fs)
	pos, err := parse(fs, args, 1, "one results directory")
	if err != nil {
		return err
	}
	st, err := sweep.ReadStatus(pos[0])
	if err != nil {
		return err
	}
	if err := st.AskEngine(context.Background(), *opt); err != nil {
		return err
	}
	if err := st.Write(stdout); err != nil {
		return err
	}
	if !st.Complete() {
		return errIncomplete{}
	}
	return nil
}

func cmdCancel(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("cancel", stderr)
	opt := engineFlags(fs)
	pos, err := parse(fs, args, 1, "one results directory")
	if err != nil {
		return err
	}
	msg, err := sweep.Cancel(context.Background(), pos[0], *opt)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, msg)
	return nil
}

func cmdResubmit(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("resubmit", stderr)
	dry := fs.Bool("dry-run", false, "say which shards would be submitted, submit nothing")
	pos, err := parse(fs, args, 1, "one results directory")
	if err != nil {
		return err
	}
	shards, err := sweep.Resubmit(context.Background(), pos[0], sweep.ResubmitOptions{DryRun: *dry, Log: stdout})
	switch {
	case err != nil:
		return err
	case len(shards) == 0:
		fmt.Fprintf(stdout, "nothing to resubmit: every shard of %s is done, pending or running (dprl sweep status %s)\n", pos[0], pos[0])
	case *dry:
		fmt.Fprintf(stdout, "would submit shards %s: bash %s %s\n", sweep.IndexList(shards), filepath.Join(pos[0], sweep.SlurmScript), sweep.IndexList(shards))
	default:
		fmt.Fprintf(stdout, "resubmitted shards %s\n", sweep.IndexList(shards))
	}
	return nil
}

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, " ") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

func cmdSlurm(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("slurm", stderr)
	out := fs.String("out", "", "results directory as the compute nodes see it (default build/sweeps/<name>, absolute)")
	script := fs.String("o", "", "write the script here (default <out>/sweep.sbatch; - for standard output)")
	bin := fs.String("dprl", "", "the dprl binary as the compute nodes see it (default this executable)")
	var opt sweep.SlurmOptions
	fs.IntVar(&opt.CPUs, "cpus", 1, "--cpus-per-task; the shard runs that many tasks at once")
	fs.IntVar(&opt.Parallel, "parallel", 0, "at most this many array tasks at once (0: no limit)")
	fs.StringVar(&opt.Time, "time", "", "--time per shard, e.g. 02:00:00")
	fs.StringVar(&opt.Mem, "mem", "", "--mem per shard, e.g. 4G")
	fs.StringVar(&opt.Partition, "partition", "", "--partition")
	fs.StringVar(&opt.Account, "account", "", "--account")
	fs.StringVar(&opt.QOS, "qos", "", "--qos")
	fs.IntVar(&opt.Retries, "retries", 0, "run a failed shard again up to this many times in its job")
	fs.IntVar(&opt.Grace, "grace", 120, "seconds before the time limit at which Slurm sends SIGTERM (the shard checkpoints and requeues itself; 0: none)")
	var extra multiFlag
	fs.Var(&extra, "sbatch", "a further sbatch option for every job, e.g. --constraint=avx2 (repeatable)")
	submit := fs.Bool("submit", false, "submit the script right away (bash SCRIPT)")
	p, _, err := loadPlan(fs, args)
	if err != nil {
		return err
	}
	dir, err := outDir(*out, p)
	if err != nil {
		return err
	}
	opt.Dir, opt.Extra, opt.Binary = dir, extra, *bin
	if opt.Binary == "" {
		if opt.Binary, err = os.Executable(); err != nil {
			opt.Binary = "dprl"
		}
	}
	// The script runs the spec copied into the results directory, so later edits of the spec file cannot
	// mix two specs' shards; logs/ must exist before sbatch opens the first log.
	if err := os.MkdirAll(filepath.Join(dir, "logs"), 0o755); err != nil {
		return err
	}
	if err := p.Prepare(dir); err != nil {
		return err
	}
	text, err := p.Slurm(opt)
	if err != nil {
		return err
	}
	path := *script
	if path == "" {
		path = filepath.Join(dir, sweep.SlurmScript)
	}
	if *submit && path == "-" {
		return usageError("--submit needs the script in a file, not -o -")
	}
	if err := writeOut(path, "", text, 0o755, stdout, func(path string) string {
		return "bash " + sweep.ShellQuote(path) + " (submits every shard and a merge job)"
	}); err != nil || !*submit {
		return err
	}
	c := exec.Command("bash", path)
	c.Stdout, c.Stderr = stdout, stderr
	return c.Run()
}

// writeOut writes text to path (def when empty, standard output for "-") and says what to do next.
func writeOut(path, def, text string, mode os.FileMode, stdout io.Writer, next func(path string) string) error {
	if path == "-" {
		_, err := io.WriteString(stdout, text)
		return err
	}
	if path == "" {
		path = def
	}
	if err := os.WriteFile(path, []byte(text), mode); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s; next: %s\n", path, next(path))
	return nil
}

func cmdK8s(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("k8s", stderr)
	file := fs.String("o", "", "write the manifest here (default <name>.k8s.yaml; - for standard output)")
	var opt sweep.KubernetesOptions
	fs.StringVar(&opt.Image, "image", sweep.DefaultImage, "container image whose entrypoint is dprl (docker/cmd.Dockerfile builds dprl-cmd)")
	fs.StringVar(&opt.Claim, "claim", "", "PersistentVolumeClaim for the results (required; ReadWriteMany for parallel pods)")
	fs.StringVar(&opt.Namespace, "namespace", "", "namespace (default: the kubectl context's)")
	fs.StringVar(&opt.MountPath, "mount", "/results", "where the claim is mounted; results go to <mount>/<name>")
	fs.IntVar(&opt.Parallelism, "parallelism", 0, "pods at once (0: one per shard)")
	fs.StringVar(&opt.CPU, "cpu", "1", "CPU request and limit per pod")
	fs.StringVar(&opt.Memory, "memory", "2Gi", "memory request and limit per pod")
	fs.IntVar(&opt.Retries, "retries", 2, "retries per shard (backoffLimitPerIndex); the merge Job gives up after that many failures plus one")
	fs.IntVar(&opt.Grace, "grace", 120, "terminationGracePeriodSeconds: time a stopped shard has to checkpoint")
	fs.DurationVar(&opt.MergeTimeout, "merge-timeout", 7*24*time.Hour, "how long the merge Job waits for the shards")
	p, _, err := loadPlan(fs, args)
	if err != nil {
		return err
	}
	text, err := p.Kubernetes(opt)
	if err != nil {
		return err
	}
	return writeOut(*file, p.Spec.Name+".k8s.yaml", text, 0o644, stdout, func(path string) string {
		return "kubectl apply -f " + sweep.ShellQuote(path) + " (the Indexed Job and the merge Job)"
	})
}
