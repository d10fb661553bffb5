package sweep

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fakeCommands puts stand-ins for an engine's commands first on PATH: each logs its name and arguments to
// the returned log file, one call per line, then runs its body (bash; $FAKE is the stand-ins' directory).
func fakeCommands(t *testing.T, bodies map[string]string) (log string) {
	t.Helper()
	dir := t.TempDir()
	log = filepath.Join(dir, "calls.log")
	for name, body := range bodies {
		script := "#!/bin/bash\nFAKE=" + ShellQuote(dir) + "\nprintf '%s\\n' \"" + name + " $*\" >>\"$FAKE/calls.log\"\n" + body + "\n"
		if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return log
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return string(b)
}

// fakeSbatch answers --parsable with job ids 101, 102, … and keeps each --wrap command in $FAKE/wrap-ID.
const fakeSbatch = `
n=$(( $(cat "$FAKE/next" 2>/dev/null || echo 100) + 1 )); echo $n >"$FAKE/next"
for a in "$@"; do case $a in --wrap=*) printf '%s' "${a#--wrap=}" >"$FAKE/wrap-$n" ;; esac; done
echo "$n;cluster"`

// slurmScript writes the demo plan's script for a results directory with a space and a quote in its name
// and a dprl binary path with both, and returns the script's path and the directory.
func writeSlurmScript(t *testing.T, p *Plan, opt SlurmOptions) (script, dir string) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "my results", "it's here")
	if opt.Binary == "" {
		opt.Binary = filepath.Join(filepath.Dir(dir), "bin dir", "it's dprl")
	}
	opt.Dir = dir
	if err := p.Prepare(dir); err != nil {
		t.Fatal(err)
	}
	text, err := p.Slurm(opt)
	if err != nil {
		t.Fatal(err)
	}
	script = filepath.Join(dir, SlurmScript)
	if err := os.WriteFile(script, []byte(text), 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("bash", "-n", script).CombinedOutput(); err != nil {
		t.Fatalf("bash -n: %v %s", err, out)
	}
	return script, dir
}

func TestSlurmScript(t *testing.T) {
	p := mustPlan(t, demoSpec)
	opt := SlurmOptions{Binary: "/opt/dprl bin/it's dprl", Dir: "/scratch/my results/50%", CPUs: 2, Parallel: 3, Time: "01:00:00", Mem: "4G",
		Partition: "short", Account: "acme", QOS: "high", Extra: []string{"--comment=two words", "--constraint=avx2"}, Retries: 2, Grace: 90}
	s, err := p.Slurm(opt)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"#SBATCH --array=0-3%3\n", "#SBATCH --cpus-per-task=2\n", "#SBATCH --time=01:00:00\n", "#SBATCH --mem=4G\n",
		"#SBATCH --partition=short\n", "#SBATCH --account=acme\n", "#SBATCH --qos=high\n", "#SBATCH --comment=\"two words\"\n", "#SBATCH --constraint=avx2\n",
		"#SBATCH --signal=B:USR1@90\n", "#SBATCH --requeue\n",
		"#SBATCH --output=\"/scratch/my results/50%%/logs/slurm-%A_%a.out\"\n", // quoted for sbatch's parser, % escaped for Slurm's patterns
		`DPRL=${DPRL:-'/opt/dprl bin/it'\''s dprl'}`, "SPEC='/scratch/my results/50%/spec.json'", "OUT='/scratch/my results/50%'", "RETRIES=2\n",
		"SITE=(--time=01:00:00 --mem=4G --partition=short --account=acme --qos=high '--comment=two words' --constraint=avx2)\n"} {
		if !strings.Contains(s, want) {
			t.Errorf("script lacks %q:\n%s", want, s)
		}
	}
	for _, c := range []struct {
		opt  SlurmOptions
		want string
	}{
		{SlurmOptions{Dir: "/x", CPUs: -1}, "CPUs = -1"},
		{SlurmOptions{Dir: "/x", Retries: -1}, "Retries = -1"},
		{SlurmOptions{Dir: "/x", Grace: -5}, "Grace = -5"},
		{SlurmOptions{}, "Dir is missing"},
		{SlurmOptions{Dir: "/x\ny"}, `Dir = "/x\ny" is not allowed`},
		{SlurmOptions{Dir: `/x\y`}, "Dir = "},
		{SlurmOptions{Dir: "/x", Extra: []string{"account=a"}}, `Extra = "account=a" is not allowed`},
		{SlurmOptions{Dir: "/x", Account: "a\n#SBATCH --x"}, "Extra = "},
	} {
		if _, err := p.Slurm(c.opt); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.opt, err, c.want)
		}
	}
}

// TestSlurmSubmitSplitsArrays: `bash sweep.sbatch` splits the shards into arrays of at most the site's
// MaxArraySize (as scontrol reports it) whose indices are offsets into blocks of shards, and one merge job
// after all of them, with the site options, whose command survives spaces and quotes in the paths; an
// index list submits only those shards.
func TestSlurmSubmitSplitsArrays(t *testing.T) {
	p := withShardSize(t, demoSpec, 2) // 15 tasks → 8 shards
	log := fakeCommands(t, map[string]string{
		"sbatch":   fakeSbatch,
		"scontrol": `[ "$*" = "show config" ] && printf 'MaxArraySize            = 3\nMaxJobCount             = 10000\n'`,
	})
	script, dir := writeSlurmScript(t, p, SlurmOptions{Account: "acme", Time: "10:00", Extra: []string{"--comment=two words"}})
	out, err := exec.Command("bash", script).CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	calls := readFile(t, log)
	for _, want := range []string{
		"sbatch --parsable --array=0-2 --export=ALL,DPRL_SWEEP_OFFSET=0,DPRL_SWEEP_MERGE_SUBMITTED=1 " + script,
		"sbatch --parsable --array=0-2 --export=ALL,DPRL_SWEEP_OFFSET=3,DPRL_SWEEP_MERGE_SUBMITTED=1 " + script,
		"sbatch --parsable --array=0-1 --export=ALL,DPRL_SWEEP_OFFSET=6,DPRL_SWEEP_MERGE_SUBMITTED=1 " + script,
		"sbatch --parsable --dependency=afterany:101:102:103 --job-name=dprl-demo-merge --ntasks=1 --cpus-per-task=1 --output=" + dir + "/logs/merge-%j.out --open-mode=append --time=10:00 --account=acme --comment=two words --wrap=",
	} {
		if !strings.Contains(calls, want) {
			t.Errorf("no call %q in\n%s", want, calls)
		}
	}
	if !strings.Contains(string(out), "submitted array jobs 101,102,103 (8 shards, at most 3 per array) and merge job 104") {
		t.Errorf("output:\n%s", out)
	}
	if got := readFile(t, filepath.Join(dir, SlurmJobs)); got != "array 101 0 0-2\narray 102 3 0-2\narray 103 6 0-1\nmerge 104 afterany:101:102:103\n" {
		t.Errorf("job record:\n%s", got)
	}
	// The merge job's command, run by sh as Slurm runs a --wrap, reaches the binary and the directory whatever
	// their names hold.
	fake := filepath.Dir(log)
	bin := filepath.Join(filepath.Dir(dir), "bin dir", "it's dprl")
	os.MkdirAll(filepath.Dir(bin), 0o755)
	os.WriteFile(bin, []byte("#!/bin/sh\nfor a in \"$@\"; do echo \"[$a]\"; done\n"), 0o755)
	wrap := readFile(t, filepath.Join(fake, "wrap-104"))
	got, err := exec.Command("sh", "-c", wrap).CombinedOutput()
	if err != nil || string(got) != "[sweep]\n[merge]\n["+dir+"]\n" {
		t.Errorf("merge command %q: %v\n%s", wrap, err, got)
	}

	// Only shards 1 and 4-7: the blocks they fall in.
	os.Remove(log)
	out, err = exec.Command("bash", script, "7,1,4-6").CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	calls = readFile(t, log)
	for _, want := range []string{"--array=1 --export=ALL,DPRL_SWEEP_OFFSET=0,", "--array=1-2 --export=ALL,DPRL_SWEEP_OFFSET=3,", "--array=0-1 --export=ALL,DPRL_SWEEP_OFFSET=6,"} {
		if !strings.Contains(calls, want) {
			t.Errorf("no call with %q in\n%s", want, calls)
		}
	}
	for _, bad := range []string{"8", "2-1", "x", "-1"} {
		if out, err := exec.Command("bash", script, bad).CombinedOutput(); err == nil || !strings.Contains(string(out), "outside 0-7") && !strings.Contains(string(out), "bad shard list") {
			t.Errorf("list %q: %v %s", bad, err, out)
		}
	}
}

// fakeDprl stands in for dprl in an array task: it logs its arguments and, by $FAKE_MODE, succeeds, fails
// the first time, or waits for SIGTERM and exits as a stopped shard does.
const fakeDprl = `#!/bin/bash
echo "dprl $*" >>"$FAKE_LOG"
case ${FAKE_MODE:-ok} in
fail-once) if [ ! -e "$FAKE_LOG.failed" ]; then touch "$FAKE_LOG.failed"; echo "task 3: boom" >&2; exit 1; fi ;;
fail) exit 1 ;;
term) trap 'echo "dprl got TERM" >>"$FAKE_LOG"; exit 75' TERM; touch "$FAKE_LOG.ready"; while :; do sleep 0.1; done ;;
esac
exit 0
`

func fakeDprlBinary(t *testing.T) (bin, log string) {
	t.Helper()
	dir := t.TempDir()
	bin, log = filepath.Join(dir, "dprl"), filepath.Join(dir, "dprl.log")
	if err := os.WriteFile(bin, []byte(fakeDprl), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin, log
}

func arrayTask(script string, env ...string) *exec.Cmd {
	c := exec.Command("bash", script)
	c.Env = append(os.Environ(), append([]string{"SLURM_JOB_ID=109", "SLURM_ARRAY_JOB_ID=107", "SLURM_ARRAY_TASK_ID=1", "SLURM_ARRAY_TASK_MIN=0",
		"DPRL_SWEEP_OFFSET=3", "DPRL_SWEEP_MERGE_SUBMITTED=1", "DPRL_SWEEP_RETRY_DELAY=0"}, env...)...)
	return c
}

// TestSlurmArrayTask: an array task runs shard offset + index; a failing shard is retried up to --retries
// times in its job; SIGUSR1 (the time-limit warning) and SIGTERM reach the shard, which checkpoints and
// stops, and after the warning the task requeues itself.
func TestSlurmArrayTask(t *testing.T) {
	p := withShardSize(t, demoSpec, 2)
	calls := fakeCommands(t, map[string]string{
		"sbatch": fakeSbatch,
		// scontrol requeue: Slurm ends the job soon after, with SIGTERM to its processes.
		// (The batch shell runs scontrol under timeout, in a process group of its own: end the shell's group.)
		"scontrol": `if [ "$1" = requeue ]; then sh=$(ps -o ppid= -p $PPID | tr -d ' '); pg=$(ps -o pgid= -p $sh | tr -d ' '); (sleep 0.5; kill -TERM -- -$pg) & fi`,
	})
	bin, log := fakeDprlBinary(t)
	script, dir := writeSlurmScript(t, p, SlurmOptions{Binary: bin, Retries: 1, CPUs: 2})

	if out, err := arrayTask(script, "FAKE_LOG="+log).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	if got := readFile(t, log); got != "dprl sweep run "+dir+"/spec.json --out "+dir+" --shard 4 --workers 2\n" {
		t.Errorf("the task ran %q, want shard 3+1 = 4", got)
	}
	shardLog := readFile(t, filepath.Join(dir, "logs", "shard-4.log"))
	if !strings.Contains(shardLog, "shard 4 on ") || !strings.Contains(shardLog, "array task 107_1, restart 0), try 1 of 2") {
		t.Errorf("shard log:\n%s", shardLog)
	}

	// Retries: the first try fails, the second succeeds, in the same job.
	os.Remove(log)
	if out, err := arrayTask(script, "FAKE_LOG="+log, "FAKE_MODE=fail-once").CombinedOutput(); err != nil {
		t.Fatalf("retried shard: %v %s", err, out)
	}
	if n := strings.Count(readFile(t, log), "dprl sweep run"); n != 2 {
		t.Errorf("%d runs, want 2 (one retry)", n)
	}
	shardLog = readFile(t, filepath.Join(dir, "logs", "shard-4.log"))
	if !strings.Contains(shardLog, "shard 4 failed (exit 1): retry 1 of 1") || !strings.Contains(shardLog, "task 3: boom") {
		t.Errorf("shard log:\n%s", shardLog)
	}
	os.Remove(log)
	err := arrayTask(script, "FAKE_LOG="+log, "FAKE_MODE=fail").Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || strings.Count(readFile(t, log), "dprl sweep run") != 2 {
		t.Errorf("a shard failing every try: %v, runs:\n%s", err, readFile(t, log))
	}

	// Slurm's warning before the time limit (SIGUSR1 to the batch shell, --signal=B:USR1@grace): the shard is
	// told (SIGTERM), stops with status 75, and the task requeues itself. A plain SIGTERM (scancel, a
	// preemption) stops the shard alike, but the job ends.
	for _, c := range []struct {
		sig     syscall.Signal
		exit    int
		requeue bool
	}{{syscall.SIGUSR1, 0, true}, {syscall.SIGTERM, ExitStopped, false}} {
		os.Remove(log)
		os.Remove(calls)
		os.Remove(log + ".ready")
		cmd := arrayTask(script, "FAKE_LOG="+log, "FAKE_MODE=term")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 200 && !fileExists(log+".ready"); i++ {
			time.Sleep(50 * time.Millisecond)
		}
		cmd.Process.Signal(c.sig)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			}
			if code != c.exit {
				t.Errorf("%v: the stopped task: %v, want exit status %d", c.sig, err, c.exit)
			}
		case <-time.After(20 * time.Second):
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			t.Fatalf("%v: the task did not end", c.sig)
		}
		if !strings.Contains(readFile(t, log), "dprl got TERM") {
			t.Errorf("%v did not reach the shard: %s", c.sig, readFile(t, log))
		}
		if got := strings.Contains(readFile(t, calls), "scontrol requeue 109"); got != c.requeue {
			t.Errorf("%v: requeued %v, want %v: %s", c.sig, got, c.requeue, readFile(t, calls))
		}
	}
	shardLog = readFile(t, filepath.Join(dir, "logs", "shard-4.log"))
	if !strings.Contains(shardLog, "shard 4 stopped (exit 75) with its finished tasks checkpointed") || !strings.Contains(shardLog, "requeueing job 109") {
		t.Errorf("shard log:\n%s", shardLog)
	}
}

func fileExists(path string) bool { _, err := os.Stat(path); return err == nil }

// TestSlurmInAllocation: with SLURM_JOB_ID set (inside salloc), `bash sweep.sbatch` runs every shard with
// srun, SLURM_NTASKS at once, then merges.
func TestSlurmInAllocation(t *testing.T) {
	p := withShardSize(t, demoSpec, 4) // 4 shards
	calls := fakeCommands(t, map[string]string{"srun": `while [[ $1 == -* ]]; do shift; done; exec "$@"`})
	bin, log := fakeDprlBinary(t)
	script, dir := writeSlurmScript(t, p, SlurmOptions{Binary: bin})
	c := exec.Command("bash", script)
	c.Env = append(os.Environ(), "SLURM_JOB_ID=55", "SLURM_NTASKS=2", "FAKE_LOG="+log)
	out, err := c.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(string(out), "inside allocation 55: running 4 shards with srun, 2 at a time") {
		t.Errorf("output:\n%s", out)
	}
	got := readFile(t, log)
	for i := range 4 {
		if !strings.Contains(got, "--shard "+string(rune('0'+i))+" ") {
			t.Errorf("shard %d did not run:\n%s", i, got)
		}
	}
	if !strings.HasSuffix(got, "dprl sweep merge "+dir+"\n") {
		t.Errorf("no merge after the shards:\n%s", got)
	}
	if n := strings.Count(readFile(t, calls), "srun --ntasks=1 --cpus-per-task=1 --exact bash "+script); n != 4 {
		t.Errorf("%d srun steps, want 4:\n%s", n, readFile(t, calls))
	}
}

// squeueFake answers squeue from $FAKE/squeue.out.
const squeueFake = `cat "$FAKE/squeue.out" 2>/dev/null`

// TestSlurmStatusResubmitCancel: status asks squeue about the recorded jobs and sorts the shards into
// done, running, pending, failed, cancelled and missing, with pasteable index lists; resubmit submits only
// the shards that are neither done nor queued, cancelling the old pending merge job; cancel scancels the
// active jobs and the shards they leave are shown cancelled.
func TestSlurmStatusResubmitCancel(t *testing.T) {
	p := withShardSize(t, demoSpec, 2) // 8 shards
	log := fakeCommands(t, map[string]string{"sbatch": fakeSbatch, "squeue": squeueFake, "scancel": "", "scontrol": ""})
	fake := filepath.Dir(log)
	script, dir := writeSlurmScript(t, p, SlurmOptions{})
	if out, err := exec.Command("bash", script).CombinedOutput(); err != nil { // array 101, merge 102
		t.Fatalf("%v %s", err, out)
	}
	for _, i := range []int{0, 1} {
		if _, err := p.RunShard(i, RunOptions{Dir: dir}); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(dir, "shard-00002.failed"), []byte(`{"shard": 2, "error": "boom", "failures": 1}`), 0o644)
	os.WriteFile(filepath.Join(fake, "squeue.out"), []byte(`101_2|111|101|2|FAILED|NonZeroExitCode
101_3|112|101|3|RUNNING|None
101_4|101|101|4|PENDING|Resources
101_5|113|101|5|TIMEOUT|TimeLimit
101_6|114|101|6|CANCELLED|None
102|102|102|N/A|PENDING|Dependency
`), 0o644)
	st, err := ReadStatus(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.AskEngine(context.Background(), EngineOptions{}); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	st.Write(&b)
	for _, want := range []string{"8 shards: 2 done, 1 running, 1 pending, 2 failed, 1 cancelled, 1 missing; ", "done: 0-1\n", "running: 3 (jobs 101_3)\n",
		"pending: 4 (jobs 101_4)\n", "failed: 2,5\n", "cancelled: 6\n", "missing: 7\n", "engine: shard 5: job 101_5 TIMEOUT (TimeLimit)",
		"failure: shard 2 (1 failed attempts", "merge job 102 PENDING", "next: dprl sweep resubmit "} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("status lacks %q:\n%s", want, b.String())
		}
	}

	// Resubmit: shards 2, 5, 6, 7 (not 3 and 4, still queued); the pending merge job 102 is cancelled and the
	// new merge job waits for array 101 too.
	os.Remove(log)
	shards, err := Resubmit(context.Background(), dir, ResubmitOptions{})
	if err != nil || IndexList(shards) != "2,5-7" {
		t.Fatalf("resubmitted %v: %v", shards, err)
	}
	calls := readFile(t, log)
	for _, want := range []string{"scancel 102\n", "--array=2,5-7 --export=ALL,DPRL_SWEEP_OFFSET=0,", "--dependency=afterany:103:101 "} {
		if !strings.Contains(calls, want) {
			t.Errorf("no %q in calls:\n%s", want, calls)
		}
	}
	if dry, err := Resubmit(context.Background(), dir, ResubmitOptions{DryRun: true}); err != nil || IndexList(dry) != "2,5-7" {
		t.Errorf("dry run: %v %v", dry, err)
	}

	// Cancel: the active jobs (array 101's running and pending tasks, the new array 103 and merge 104).
	os.WriteFile(filepath.Join(fake, "squeue.out"), []byte("101_3|112|101|3|RUNNING|None\n103_0|103|103|0|PENDING|Priority\n104|104|104|N/A|PENDING|Dependency\n"), 0o644)
	os.Remove(log)
	msg, err := Cancel(context.Background(), dir, EngineOptions{})
	if err != nil || !strings.Contains(msg, "cancelled array jobs 101,103 and merge jobs 104") {
		t.Errorf("cancel: %q %v", msg, err)
	}
	if calls := readFile(t, log); !strings.Contains(calls, "scancel 101 103 104") {
		t.Errorf("calls:\n%s", calls)
	}
	// Slurm forgets them; the record keeps them cancelled.
	os.WriteFile(filepath.Join(fake, "squeue.out"), nil, 0o644)
	st, _ = ReadStatus(dir)
	st.AskEngine(context.Background(), EngineOptions{Engine: "slurm"})
	if states := st.States(); IndexList(states["cancelled"]) != "2-7" {
		t.Errorf("after cancel: %v", states)
	}

	// A controller that does not answer: status still reads the files and says why.
	fakeCommands(t, map[string]string{"squeue": `echo "slurm_load_jobs error: Unable to contact slurm controller" >&2; exit 1`})
	st, _ = ReadStatus(dir)
	st.AskEngine(context.Background(), EngineOptions{})
	b.Reset()
	st.Write(&b)
	if !strings.Contains(b.String(), "engine: slurm could not be asked: squeue: exit status 1: slurm_load_jobs error: Unable to contact") {
		t.Errorf("status without a controller:\n%s", b.String())
	}
}
