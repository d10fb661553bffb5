package main

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/dprl-project/dprl/dprl/sweep"
)

// The test binary doubles as the dprl command: with DPRL_TEST_AS_CLI=1 it runs main's run on its
// arguments, so the crash tests can SIGKILL a real process.
func TestMain(m *testing.M) {
	if os.Getenv("DPRL_TEST_AS_CLI") == "1" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

func cli(t *testing.T, env []string, args ...string) *exec.Cmd {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	c := exec.Command(self, args...)
	c.Env = append(append(os.Environ(), "DPRL_TEST_AS_CLI=1"), env...)
	return c
}

// inProcess runs the command line in this process and returns the exit status, stdout and stderr.
func inProcess(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func writeSpec(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "spec.json")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

const slowSpec = `{"name": "slow", "experiment": "sweep/demo", "params": {"rows": 20, "delay": 0.3},
	"grid": {"scale": [1, 2, 3]}, "seeds": {"first": 1, "count": 4}, "shard_size": 4}`

// TestKillAndResume: a shard killed with SIGKILL mid-run, and one killed halfway through writing its
// file, leave nothing merge accepts; rerunning every shard (as resubmitting the array does) runs only what
// is missing, and the merge equals the single-process table byte for byte.
func TestKillAndResume(t *testing.T) {
	spec := writeSpec(t, slowSpec)
	dir := filepath.Join(t.TempDir(), "results")
	if code, _, errs := inProcess("sweep", "run", spec, "--shard", "0", "--of", "3", "--out", dir); code != 0 {
		t.Fatalf("shard 0: %s", errs)
	}

	// SIGKILL mid-run, once a task is done.
	c := cli(t, nil, "sweep", "run", spec, "--shard", "1", "--out", dir, "--workers", "1")
	stderr, _ := c.StderrPipe()
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		if strings.Contains(sc.Text(), "1/4 tasks done") {
			break
		}
	}
	c.Process.Signal(syscall.SIGKILL)
	err := c.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("the shard was not killed: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "shard-00001.json")); err == nil {
		t.Fatal("a killed shard has a manifest")
	}
	code, _, errs := inProcess("sweep", "merge", dir)
	if code != 1 || !strings.Contains(errs, "missing 2 of 3 shards: 1-2") || !strings.Contains(errs, "incomplete: shard 1: shard-00001.ckpt holds 1 finished tasks") {
		t.Fatalf("merge after the kill: %d %s", code, errs)
	}

	// SIGKILL halfway through a task's checkpoint record, halfway through writing the CSV's temporary file,
	// then after the CSV but before its manifest.
	for _, at := range []string{"mid-checkpoint", "mid-write", "after-csv"} {
		c = cli(t, []string{sweep.CrashEnv + "=" + at}, "sweep", "run", spec, "--shard", "1", "--out", dir)
		err = c.Run()
		if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
			t.Fatalf("%s: not killed: %v", at, err)
		}
		code, _, errs = inProcess("sweep", "merge", dir)
		if code != 1 || !strings.Contains(errs, "missing 2 of 3 shards: 1-2") || !strings.Contains(errs, "incomplete: shard 1: ") {
			t.Fatalf("merge after a kill %s: %d %s", at, code, errs)
		}
		code, out, _ := inProcess("sweep", "status", dir)
		if code != 1 || !strings.Contains(out, "partial: shard 1: ") {
			t.Errorf("status after a kill %s: %d %s", at, code, out)
		}
		if at == "mid-write" && !strings.Contains(out, ".shard-00001.csv.tmp-") {
			t.Errorf("status does not show the temporary file: %s", out)
		}
	}

	// Rerun the whole "array": shard 0 is skipped, 1 resumes after its checkpointed tasks, 2 runs.
	for i, want := range []string{"skipped (already complete)", "done", "done"} {
		code, out, errs := inProcess("sweep", "run", spec, "--shard", string(rune('0'+i)), "--out", dir)
		if code != 0 || !strings.Contains(out, want) {
			t.Fatalf("rerun of shard %d: %d %q %s", i, code, out, errs)
		}
		if i == 1 && !strings.Contains(errs, "tasks are in the checkpoint") {
			t.Errorf("shard 1 did not resume from its checkpoint:\n%s", errs)
		}
	}
	if code, out, errs := inProcess("sweep", "merge", dir); code != 0 || !strings.Contains(out, "merged 3 shards of slow: 240 rows") {
		t.Fatalf("merge: %d %s %s", code, out, errs)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*tmp-*")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
	sameAsOneProcess(t, spec, dir)
}

// sameAsOneProcess checks dir's merged table against `dprl sweep all` of spec, byte for byte.
func sameAsOneProcess(t *testing.T, spec, dir string) {
	t.Helper()
	one := filepath.Join(t.TempDir(), "one.csv")
	if code, _, errs := inProcess("sweep", "all", spec, "-o", one, "--workers", "6"); code != 0 {
		t.Fatal(errs)
	}
	a, _ := os.ReadFile(one)
	b, _ := os.ReadFile(filepath.Join(dir, sweep.MergedFile))
	if !bytes.Equal(a, b) || len(a) == 0 {
		t.Error("the merged table differs from the single-process one")
	}
}

func TestShardFromEngineEnvironment(t *testing.T) {
	spec := writeSpec(t, strings.Replace(slowSpec, `"delay": 0.3`, `"delay": 0`, 1))
	dir := t.TempDir()
	for _, c := range []struct {
		env  []string
		want string
	}{
		{[]string{"SLURM_ARRAY_TASK_ID=2", "SLURM_ARRAY_TASK_COUNT=3"}, "shard 2/3 done"},
		{[]string{"JOB_COMPLETION_INDEX=1"}, "shard 1/3 done"},
	} {
		out, err := cli(t, c.env, "sweep", "run", spec, "--out", dir).Output()
		if err != nil || !strings.Contains(string(out), c.want) {
			t.Errorf("%v: %v %s", c.env, err, out)
		}
	}
	out, err := cli(t, []string{"SLURM_ARRAY_TASK_ID=3"}, "sweep", "run", spec, "--out", dir).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "SLURM_ARRAY_TASK_ID = 3 is outside the allowed range [0, 2]") {
		t.Errorf("task id 3 of 3 shards: %v %s", err, out)
	}
	out, err = cli(t, nil, "sweep", "run", spec, "--out", dir).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "shard is missing") {
		t.Errorf("no shard: %v %s", err, out)
	}
	if code, _, errs := inProcess("sweep", "run", spec, "--shard", "0", "--of", "4", "--out", dir); code != 1 ||
		!strings.Contains(errs, "--of = 4 is outside the allowed range [3, 3]") {
		t.Errorf("--of 4: %d %s", code, errs)
	}
}

func TestPlanAndGenerators(t *testing.T) {
	spec := writeSpec(t, slowSpec)
	code, out, _ := inProcess("sweep", "plan", spec)
	if code != 0 || !strings.Contains(out, "3 cells × 4 seeds = 12 tasks; shard size 4 → 3 shards") || !strings.Contains(out, "2      8–11 (4)      scale=3 seeds 1…4 (4)") {
		t.Errorf("plan: %d\n%s", code, out)
	}
	dir := t.TempDir()
	code, out, errs := inProcess("sweep", "slurm", spec, "--out", dir, "--dprl", "/opt/dprl", "-o", "-", "--parallel", "2")
	if code != 0 || !strings.Contains(out, "#SBATCH --array=0-2%2") || !strings.Contains(out, "SPEC="+dir+"/spec.json") {
		t.Errorf("slurm: %d %s\n%s", code, errs, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "spec.json")); err != nil {
		t.Error("slurm did not put the spec into the results directory")
	}
	if code, _, errs := inProcess("sweep", "k8s", spec, "-o", "-"); code != 1 || !strings.Contains(errs, "Claim is missing") {
		t.Errorf("k8s without claim: %d %s", code, errs)
	}
	code, out, _ = inProcess("sweep", "k8s", spec, "--claim", "results", "-o", "-")
	if code != 0 || !strings.Contains(out, "completionMode: \"Indexed\"") || !strings.Contains(out, "completions: 3") ||
		!strings.Contains(out, `image: "`+sweep.DefaultImage+`"`) || !strings.Contains(out, "name: \"dprl-sweep-merge-slow\"") {
		t.Errorf("k8s: %d\n%s", code, out)
	}
	manifest := filepath.Join(t.TempDir(), "my manifest.yaml")
	code, out, _ = inProcess("sweep", "k8s", spec, "--claim", "results", "-o", manifest)
	if code != 0 || out != "wrote "+manifest+"; next: kubectl apply -f '"+manifest+"' (the Indexed Job and the merge Job)\n" {
		t.Errorf("k8s -o: %d %q", code, out)
	}
	code, out, _ = inProcess("sweep", "slurm", spec, "--out", dir)
	if code != 0 || !strings.Contains(out, "next: bash "+filepath.Join(dir, "sweep.sbatch")+" (submits every shard and a merge job)") || strings.Contains(out, "%!") {
		t.Errorf("slurm: %d %q", code, out)
	}
	if code, _, errs := inProcess("sweep", "plan"); code != 2 || !strings.Contains(errs, "want one spec file") {
		t.Errorf("plan without spec: %d %s", code, errs)
	}
	if code, _, _ := inProcess("sweep", "frobnicate"); code != 2 {
		t.Errorf("unknown subcommand: %d", code)
	}
	if code, out, _ := inProcess("sweep", "list"); code != 0 || !strings.Contains(out, "xie2019/mspbe") || !strings.Contains(out, "sweep/demo") {
		t.Errorf("list: %s", out)
	}
	if code, out, _ := inProcess("version"); code != 0 || !strings.Contains(out, "github.com/dprl-project/dprl") {
		t.Errorf("version: %s", out)
	}
}

// TestCheckedInSpecsPlan: every spec under sweeps/specs plans (its experiment exists and accepts every
// cell's parameters).
func TestCheckedInSpecsPlan(t *testing.T) {
	specs, _ := filepath.Glob("../../../sweeps/specs/*.json")
	if len(specs) < 8 {
		t.Fatalf("found %d specs", len(specs))
	}
	for _, s := range specs {
		p, err := sweep.LoadPlan(s)
		if err != nil {
			t.Error(err)
			continue
		}
		if name := strings.TrimSuffix(filepath.Base(s), ".json"); p.Spec.Name != name {
			t.Errorf("%s: name %q, want the file's %q", s, p.Spec.Name, name)
		}
	}
}

// TestSIGTERMStopsAndResumes: SIGTERM (Slurm's warning before a time limit, a preemption) lets the running
// task finish, checkpoints it and exits with status 75; the rerun resumes after the checkpointed tasks and
// the merge equals the single-process table.
func TestSIGTERMStopsAndResumes(t *testing.T) {
	spec := writeSpec(t, slowSpec)
	dir := filepath.Join(t.TempDir(), "results")
	c := cli(t, nil, "sweep", "run", spec, "--shard", "2", "--out", dir, "--workers", "1")
	stderr, _ := c.StderrPipe()
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stderr)
	var log strings.Builder
	for sc.Scan() {
		log.WriteString(sc.Text() + "\n")
		if strings.Contains(sc.Text(), "1/4 tasks done") {
			c.Process.Signal(syscall.SIGTERM)
		}
	}
	err := c.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != sweep.ExitStopped {
		t.Fatalf("exit %v, want status %d\n%s", err, sweep.ExitStopped, log.String())
	}
	m := regexp.MustCompile(`([1-3]) of 4 tasks done, stopped early`).FindStringSubmatch(log.String())
	if m == nil || !strings.Contains(log.String(), "finishing the running tasks and checkpointing them") {
		t.Fatalf("log:\n%s", log.String())
	}
	k := m[1] // the tasks finished: the one running at the signal finished too
	code, out, _ := inProcess("sweep", "status", dir)
	if code != 1 || !strings.Contains(out, "partial: shard 2: shard-00002.ckpt holds "+k+" finished tasks") || strings.Contains(out, "failure") {
		t.Errorf("status: %d\n%s", code, out)
	}
	code, out, errs := inProcess("sweep", "local", spec, "--out", dir)
	if code != 0 || !strings.Contains(out, "merged 3 shards of slow: 240 rows") || !strings.Contains(errs, "attempt 2 resumes: "+k+" of 4 tasks are in the checkpoint") {
		t.Fatalf("local: %d %s\n%s", code, out, errs)
	}
	sameAsOneProcess(t, spec, dir)
}

// TestBadShardAndForeignFiles: --shard outside the spec's shards (negative too) is an error, not the array
// task's shard; merge names the files it does not own and merges around them.
func TestBadShardAndForeignFiles(t *testing.T) {
	spec := writeSpec(t, strings.Replace(slowSpec, `"delay": 0.3`, `"delay": 0`, 1))
	dir := t.TempDir()
	for _, bad := range []string{"-1", "3", "-99999999999999999999", "x"} {
		c := cli(t, []string{"SLURM_ARRAY_TASK_ID=1"}, "sweep", "run", spec, "--shard", bad, "--out", dir)
		out, err := c.CombinedOutput()
		if err == nil || strings.Contains(string(out), "done") || !strings.Contains(string(out), "shard") {
			t.Errorf("--shard %s: %v %s", bad, err, out)
		}
	}
	if _, out, errs := inProcess("sweep", "run", spec, "--shard", "-1", "--out", dir); !strings.Contains(errs, "--shard = -1 is outside the allowed range [0, 2]") {
		t.Errorf("--shard -1: %s %s", out, errs)
	}
	if code, _, errs := inProcess("sweep", "local", spec, "--out", dir); code != 0 {
		t.Fatal(errs)
	}
	os.WriteFile(filepath.Join(dir, "notes.json"), []byte("{}"), 0o644)
	os.WriteFile(filepath.Join(dir, "plot.csv"), []byte("x\n"), 0o644)
	code, out, errs := inProcess("sweep", "merge", dir)
	if code != 0 || !strings.Contains(errs, "ignored: notes.json (not a sweep manifest)") || !strings.Contains(errs, "ignored: plot.csv (not a sweep file)") || !strings.Contains(out, "merged 3 shards") {
		t.Errorf("merge beside foreign files: %d %s %s", code, out, errs)
	}
	if code, _, errs := inProcess("sweep", "resubmit", dir); code != 1 || !strings.Contains(errs, "has no sweep.sbatch: write it with dprl sweep slurm") {
		t.Errorf("resubmit without a script: %d %s", code, errs)
	}
	if code, _, errs := inProcess("sweep", "cancel", dir); code != 1 || !strings.Contains(errs, "no engine to cancel") {
		t.Errorf("cancel without an engine: %d %s", code, errs)
	}
}
