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
//	dprl sweep merge DIR [-o FILE]       check every shard, write DIR/merged.csv
//	dprl sweep status DIR                done, missing, failed and corrupt shards (exit 1 unless complete)
//	dprl sweep slurm SPEC [-o SCRIPT]    a self-submitting sbatch script: job array + dependent merge job
//	dprl sweep k8s SPEC --image IMG --claim PVC [-o FILE]   an Indexed Job manifest
//	dprl sweep list                      the registered experiments
//	dprl version
//
// The experiments are the reproduction packages' (github.com/dprl-project/dprl/dprl/repro/sweeps) and
// sweep/demo; the specs of the papers' main figures are in sweeps/specs/. See sweeps/README.md.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	_ "github.com/dprl-project/dprl/dprl/repro/sweeps" // registers the reproduction experiments
	"github.com/dprl-project/dprl/dprl/sweep"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

const usage = `usage:
  dprl sweep plan SPEC
  dprl sweep run SPEC [--shard I [--of N]] [--out DIR] [--workers K] [--force]
  dprl sweep all SPEC [-o FILE] [--workers K]
  dprl sweep merge DIR [-o FILE]
  dprl sweep status DIR
  dprl sweep slurm SPEC [--out DIR] [-o SCRIPT] [--dprl PATH] [--cpus N] [--parallel N] [--time T] [--mem M] [--partition P] [--sbatch OPTION]...
  dprl sweep k8s SPEC --image IMAGE --claim PVC [-o FILE] [--namespace NS] [--parallelism N] [--cpu C] [--memory M] [--retries N] [--mount PATH]
  dprl sweep list
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
		"plan": cmdPlan, "run": cmdRun, "all": cmdAll, "merge": cmdMerge, "status": cmdStatus,
		"slurm": cmdSlurm, "k8s": cmdK8s, "list": cmdList,
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
	if errors.As(err, &ue) {
		return 2
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
	pos, err := parse(newFlags("plan", stderr), args, 1, "one spec file")
	if err != nil {
		return err
	}
	p, err := sweep.LoadPlan(pos[0])
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

func cmdRun(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("run", stderr)
	shard := fs.Int("shard", -1, "the shard to run (default: from SLURM_ARRAY_TASK_ID or JOB_COMPLETION_INDEX)")
	of := fs.Int("of", 0, "the number of shards, checked against the spec's")
	out := fs.String("out", "", "results directory (default build/sweeps/<name> in the repository)")
	workers := fs.Int("workers", 0, "tasks run at once (default GOMAXPROCS)")
	force := fs.Bool("force", false, "rerun the shard even if complete")
	pos, err := parse(fs, args, 1, "one spec file")
	if err != nil {
		return err
	}
	p, err := sweep.LoadPlan(pos[0])
	if err != nil {
		return err
	}
	n := p.Spec.Shards()
	if *of != 0 && *of != n {
		return fmt.Errorf("sweep: --of = %d is outside the allowed range [%d, %d]: spec %s has %d shards (dprl sweep plan %s)", *of, n, n, p.Spec.Name, n, pos[0])
	}
	i := *shard
	if i < 0 {
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
	res, err := p.RunShard(i, sweep.RunOptions{Dir: dir, Workers: *workers, Log: stderr, Force: *force})
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
	pos, err := parse(fs, args, 1, "one spec file")
	if err != nil {
		return err
	}
	p, err := sweep.LoadPlan(pos[0])
	if err != nil {
		return err
	}
	if *out == "" {
		return p.RunAll(stdout, sweep.RunOptions{Workers: *workers, Log: stderr})
	}
	tmp := *out + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	if err := p.RunAll(f, sweep.RunOptions{Workers: *workers, Log: stderr}); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, *out)
}

func cmdMerge(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("merge", stderr)
	out := fs.String("o", "", "write the merged table here (default DIR/merged.csv)")
	pos, err := parse(fs, args, 1, "one results directory")
	if err != nil {
		return err
	}
	m, err := sweep.Merge(pos[0], *out)
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

func cmdStatus(args []string, stdout, stderr io.Writer) error {
	pos, err := parse(newFlags("status", stderr), args, 1, "one results directory")
	if err != nil {
		return err
	}
	st, err := sweep.ReadStatus(pos[0])
	if err != nil {
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
	var extra multiFlag
	fs.Var(&extra, "sbatch", "a further #SBATCH option, e.g. --account=abc (repeatable)")
	pos, err := parse(fs, args, 1, "one spec file")
	if err != nil {
		return err
	}
	p, err := sweep.LoadPlan(pos[0])
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
	return writeOut(*script, filepath.Join(dir, "sweep.sbatch"), text, 0o755, stdout, stderr, "bash %[1]s (or sbatch %[1]s)")
}

func writeOut(path, def, text string, mode os.FileMode, stdout, stderr io.Writer, next string) error {
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
	fmt.Fprintf(stdout, "wrote %s; next: "+next+"\n", path)
	return nil
}

func cmdK8s(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("k8s", stderr)
	file := fs.String("o", "", "write the manifest here (default <name>.k8s.yaml; - for standard output)")
	var opt sweep.KubernetesOptions
	fs.StringVar(&opt.Image, "image", "", "container image with dprl on PATH (required)")
	fs.StringVar(&opt.Claim, "claim", "", "PersistentVolumeClaim for the results (required; ReadWriteMany for parallel pods)")
	fs.StringVar(&opt.Namespace, "namespace", "", "namespace (default: the kubectl context's)")
	fs.StringVar(&opt.MountPath, "mount", "/results", "where the claim is mounted; results go to <mount>/<name>")
	fs.IntVar(&opt.Parallelism, "parallelism", 0, "pods at once (0: one per shard)")
	fs.StringVar(&opt.CPU, "cpu", "1", "CPU request and limit per pod")
	fs.StringVar(&opt.Memory, "memory", "2Gi", "memory request and limit per pod")
	fs.IntVar(&opt.Retries, "retries", 2, "retries per shard (backoffLimitPerIndex)")
	pos, err := parse(fs, args, 1, "one spec file")
	if err != nil {
		return err
	}
	p, err := sweep.LoadPlan(pos[0])
	if err != nil {
		return err
	}
	text, err := p.Kubernetes(opt)
	if err != nil {
		return err
	}
	return writeOut(*file, p.Spec.Name+".k8s.yaml", text, 0o644, stdout, stderr, "kubectl apply -f %s")
}
