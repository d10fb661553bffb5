package sweep

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/dprl-project/dprl/dprl/param"
)

// cancelAfter is a log writer that cancels a context once a line contains marker.
type cancelAfter struct {
	marker string
	cancel context.CancelFunc
	log    bytes.Buffer
}

func (c *cancelAfter) Write(b []byte) (int, error) {
	if strings.Contains(string(b), c.marker) {
		c.cancel()
	}
	return c.log.Write(b)
}

// stopShard runs shard i until its log shows marker, then stops it as SIGTERM does, and returns the log.
func stopShard(t *testing.T, p *Plan, dir string, i int, marker string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w := &cancelAfter{marker: marker, cancel: cancel}
	_, err := p.RunShard(i, RunOptions{Dir: dir, Workers: 1, Log: w, Context: ctx})
	if !errors.Is(err, ErrStopped) {
		t.Fatalf("stopped shard: %v, want ErrStopped\n%s", err, w.log.String())
	}
	return w.log.String()
}

func mergedBytes(t *testing.T, p *Plan, dir string) []byte {
	t.Helper()
	runShards(t, p, dir, 0)
	if _, err := Merge(dir, ""); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, MergedFile))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestCheckpointResume: a shard stopped after some tasks keeps them in its checkpoint (status says how
// many), records no failure, and its rerun runs only the others; the merge is byte-identical to one
// process, and the manifest counts the attempts and the resumed tasks.
func TestCheckpointResume(t *testing.T) {
	p := mustPlan(t, demoSpec)
	want := runAll(t, p, 1)
	dir := t.TempDir()
	log := stopShard(t, p, dir, 1, "2/4 tasks done")
	if !strings.Contains(log, "4 tasks (4–7) starting") {
		t.Errorf("log:\n%s", log)
	}
	ckpt := filepath.Join(dir, "shard-00001"+CheckpointExt)
	if n, err := checkpointProgress(ckpt); err != nil || n != 2 {
		t.Fatalf("checkpoint holds %d tasks (%v), want 2", n, err)
	}
	if fileExists(filepath.Join(dir, "shard-00001.failed")) || fileExists(filepath.Join(dir, "shard-00001.json")) {
		t.Error("a stopped shard recorded a failure or a manifest")
	}
	st, _ := ReadStatus(dir)
	if !strings.Contains(st.Partial[1], "shard-00001.ckpt holds 2 finished tasks") {
		t.Errorf("status: %q", st.Partial[1])
	}
	var l bytes.Buffer
	res, err := p.RunShard(1, RunOptions{Dir: dir, Workers: 2, Log: &l})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(l.String(), "attempt 2 resumes: 2 of 4 tasks are in the checkpoint, 2 to run") || strings.Contains(l.String(), "task 4:") || strings.Contains(l.String(), "task 5:") {
		t.Errorf("the rerun did not resume after tasks 4 and 5:\n%s", l.String())
	}
	if m := res.Manifest; m.Attempts != 2 || m.Resumed != 2 || m.Failures != 0 {
		t.Errorf("manifest: attempts %d, resumed %d, failures %d", m.Attempts, m.Resumed, m.Failures)
	}
	if fileExists(ckpt) {
		t.Error("the checkpoint of a complete shard is still there")
	}
	if got := mergedBytes(t, p, dir); !bytes.Equal(got, want) {
		t.Error("the merge after a resume differs from the single-process table")
	}
}

// TestCheckpointDamage: a record cut short (a kill while writing it) or altered afterwards fails its
// checksum and is dropped with everything after it; a checkpoint of another spec is started afresh. Either
// way the shard redoes what it lost and merges to the same bytes.
func TestCheckpointDamage(t *testing.T) {
	p := mustPlan(t, demoSpec)
	want := runAll(t, p, 1)
	for _, c := range []struct {
		name   string
		damage func(data []byte) []byte
		log    string
		kept   int
	}{
		{"torn last record", func(d []byte) []byte { return d[:len(d)-7] }, "dropped a torn checkpoint record", 2},
		{"altered record", func(d []byte) []byte {
			i := bytes.Index(d, []byte("task 5 ")) // the second task's record: flip a byte of its rows
			d[i+120] ^= 1
			return d
		}, "dropped a torn checkpoint record", 1},
		{"garbage appended", func(d []byte) []byte { return append(d, "task 6 4 999999 abc\nxx"...) }, "dropped a torn checkpoint record", 3},
		{"another spec", func(d []byte) []byte { return bytes.Replace(d, []byte(p.Hash), []byte(strings.Repeat("0", 64)), 1) }, "belongs to another spec or sharding", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			stopShard(t, p, dir, 1, "3/4 tasks done")
			path := filepath.Join(dir, "shard-00001"+CheckpointExt)
			data, _ := os.ReadFile(path)
			os.WriteFile(path, c.damage(data), 0o644)
			var l bytes.Buffer
			res, err := p.RunShard(1, RunOptions{Dir: dir, Workers: 1, Log: &l})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(l.String(), c.log) || res.Manifest.Resumed != c.kept {
				t.Errorf("resumed %d tasks, want %d; log:\n%s", res.Manifest.Resumed, c.kept, l.String())
			}
			if got := mergedBytes(t, p, dir); !bytes.Equal(got, want) {
				t.Error("the merge differs from the single-process table")
			}
		})
	}
}

// TestShardBusyAndRetries: a shard whose checkpoint another process holds is refused without recording a
// failure; a failed attempt is counted, and the attempt that completes the shard records how many failed.
func TestShardBusyAndRetries(t *testing.T) {
	p := mustPlan(t, demoSpec)
	dir := t.TempDir()
	if err := p.Prepare(dir); err != nil {
		t.Fatal(err)
	}
	first, end, _ := p.Spec.ShardRange(2)
	held, err := openCheckpoint(dir, 2, first, end, p.Hash, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !held.locked {
		t.Skip("no file locks here")
	}
	_, err = p.RunShard(2, RunOptions{Dir: dir})
	var busy *BusyError
	if !errors.As(err, &busy) || busy.Shard != 2 || fileExists(filepath.Join(dir, "shard-00002.failed")) {
		t.Errorf("a shard running elsewhere: %v", err)
	}
	held.close()

	t.Setenv(CrashEnv, "fail-first-attempt")
	_, err = p.RunShard(2, RunOptions{Dir: dir, Workers: 1})
	if err == nil || !strings.Contains(err.Error(), "injected failure") {
		t.Fatalf("first attempt: %v", err)
	}
	st, _ := ReadStatus(dir)
	if f := st.Failed[2]; f.Failures != 1 || !strings.Contains(f.Error, "injected failure") {
		t.Errorf("failure record %+v", f)
	}
	res, err := p.RunShard(2, RunOptions{Dir: dir, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if m := res.Manifest; m.Failures != 1 || m.Attempts != 2 || m.Resumed < 1 || m.Resumed > 3 {
		t.Errorf("manifest after a retry: failures %d, attempts %d, resumed %d", m.Failures, m.Attempts, m.Resumed)
	}
	if fileExists(filepath.Join(dir, "shard-00002.failed")) {
		t.Error("the failure record outlived the shard's completion")
	}
}

// TestStatusOwnsOnlyItsFiles: files that are not the sweep's are named and left alone, not in the way of
// the merge; temporary files of any kind are reported, and the merge removes those older than a minute;
// each leftover's hint says what happened.
func TestStatusOwnsOnlyItsFiles(t *testing.T) {
	p := mustPlan(t, demoSpec)
	dir := t.TempDir()
	runShards(t, p, dir, 0)
	os.WriteFile(filepath.Join(dir, "notes.json"), []byte(`{"mine": true}`), 0o644)
	os.WriteFile(filepath.Join(dir, "results.csv"), []byte("a,b\n1,2\n"), 0o644)
	os.Mkdir(filepath.Join(dir, "plots"), 0o755)
	old := time.Now().Add(-time.Hour)
	for _, n := range []string{".spec.json.tmp-123", ".merged.csv.tmp-456", ".shard-00002.csv.tmp-789"} {
		os.WriteFile(filepath.Join(dir, n), []byte("half"), 0o644)
		os.Chtimes(filepath.Join(dir, n), old, old)
	}
	os.WriteFile(filepath.Join(dir, ".merged.json.tmp-new"), []byte("now"), 0o644) // a write in progress
	st, err := ReadStatus(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	st.Write(&b)
	for _, want := range []string{"ignored: notes.json (not a sweep manifest)", "ignored: plots/ (a directory", "ignored: results.csv (not a sweep file)",
		"temporary: .spec.json.tmp-123 (1h0m0s old)", "temporary: .shard-00002.csv.tmp-789", "temporary: .merged.json.tmp-new (0s old)"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("status lacks %q:\n%s", want, b.String())
		}
	}
	if !st.Complete() {
		t.Fatalf("foreign files count against completeness:\n%s", b.String())
	}
	if _, err := st.Merge(""); err != nil {
		t.Fatal(err)
	}
	for n, kept := range map[string]bool{".spec.json.tmp-123": false, ".merged.csv.tmp-456": false, ".shard-00002.csv.tmp-789": false,
		".merged.json.tmp-new": true, "notes.json": true, "results.csv": true} {
		if fileExists(filepath.Join(dir, n)) != kept {
			t.Errorf("%s: kept %v, want %v", n, !kept, kept)
		}
	}

	// Leftovers of an interrupted shard, each with what happened.
	os.Remove(filepath.Join(dir, "shard-00001.json"))
	os.WriteFile(filepath.Join(dir, ".shard-00001.json.tmp-1"), nil, 0o644)
	os.WriteFile(filepath.Join(dir, "shard-00003.json"), []byte("{trunc"), 0o644)
	st, _ = ReadStatus(dir)
	if p := st.Partial[1]; !strings.Contains(p, "shard-00001.csv without a manifest: the run was killed after writing its CSV and before its manifest") ||
		!strings.Contains(p, ".shard-00001.json.tmp-1: a write of its json was interrupted") {
		t.Errorf("hint for shard 1: %q", p)
	}
	if c := st.Corrupt[3]; !strings.Contains(c, "shard-00003.json: not a sweep manifest") {
		t.Errorf("a damaged manifest of shard 3: %q", c)
	}
}

func TestIndexList(t *testing.T) {
	for _, c := range []struct {
		in   []int
		want string
	}{{nil, ""}, {[]int{4}, "4"}, {[]int{0, 1, 2, 3, 7, 9, 10}, "0-3,7,9-10"}} {
		if got := IndexList(c.in); got != c.want {
			t.Errorf("IndexList(%v) = %q, want %q", c.in, got, c.want)
		}
		if c.want != "" {
			if back, err := ParseIndexList(c.want, 11); err != nil || fmt.Sprint(back) != fmt.Sprint(c.in) {
				t.Errorf("ParseIndexList(%q) = %v %v", c.want, back, err)
			}
		}
	}
	for _, bad := range []string{"", "11", "3-1", "-1", "a", "1,,2", "1-2-3"} {
		if _, err := ParseIndexList(bad, 11); err == nil || !errors.As(err, new(*param.Error)) {
			t.Errorf("ParseIndexList(%q): %v", bad, err)
		}
	}
}

// TestWaitMerge: the merge waits for shards that finish while it waits (and for the first to start), and
// gives up on a shard that failed as often as the engine retries it, or at its deadline.
func TestWaitMerge(t *testing.T) {
	p := mustPlan(t, demoSpec)
	dir := filepath.Join(t.TempDir(), "results")
	go func() {
		time.Sleep(50 * time.Millisecond)
		for i := range p.Spec.Shards() {
			p.RunShard(i, RunOptions{Dir: dir})
			time.Sleep(20 * time.Millisecond)
		}
	}()
	var log bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	m, err := WaitMerge(ctx, dir, "", WaitOptions{Poll: 10 * time.Millisecond, Log: &log})
	if err != nil || m.Rows != 60 {
		t.Fatalf("%v %+v", err, m)
	}
	if !strings.Contains(log.String(), "no shard has started yet") {
		t.Errorf("log:\n%s", log.String())
	}

	dir = t.TempDir()
	runShards(t, p, dir, 0)
	os.Remove(filepath.Join(dir, "shard-00002.json"))
	os.WriteFile(filepath.Join(dir, "shard-00002.failed"), []byte(`{"shard": 2, "error": "boom", "failures": 3}`), 0o644)
	if _, err := WaitMerge(ctx, dir, "", WaitOptions{Poll: time.Millisecond, GiveUpAfter: 3}); err == nil || !strings.Contains(err.Error(), "shard 2 failed 3 times") {
		t.Errorf("give up: %v", err)
	}
	short, cancelShort := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancelShort()
	if _, err := WaitMerge(short, dir, "", WaitOptions{Poll: time.Millisecond}); err == nil || !strings.Contains(err.Error(), "gave up waiting") ||
		!strings.Contains(err.Error(), "missing 1 of 4 shards: 2") {
		t.Errorf("deadline: %v", err)
	}
}

// TestSpecLimits: seed counts, grid products and shard counts that would overflow, wrap or take unbounded
// time are refused at parse time with an error naming the limit, and the counts never wrap.
func TestSpecLimits(t *testing.T) {
	var grid []string
	for k := range 7 {
		var vs []string
		for v := range 1000 {
			vs = append(vs, fmt.Sprint(v))
		}
		grid = append(grid, fmt.Sprintf(`"k%d": [%s]`, k, strings.Join(vs, ",")))
	}
	huge := `{"name": "a", "experiment": "sweep/demo", "grid": {` + strings.Join(grid, ",") + `}, "seeds": [1], "shard_size": 1}`
	for _, c := range []struct{ spec, want string }{
		{huge, "grid cells = 1e+21 is outside the allowed range [1, 1000000]"}, // 1000⁷ wraps a 64-bit product to a small number
		{`{"name": "a", "experiment": "sweep/demo", "seeds": {"first": 0, "count": 1000000001}, "shard_size": 1}`, "seeds.count = 1.000000001e+09 is outside the allowed range [1, 1000000000]"},
		{`{"name": "a", "experiment": "sweep/demo", "seeds": {"first": 18446744073709551615, "count": 2}, "shard_size": 1}`, "seeds.first = 1.8446744073709552e+19 is outside the allowed range [0, 2⁶⁴ − seeds.count]"},
		{`{"name": "a", "experiment": "sweep/demo", "grid": {"x": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]}, "seeds": {"first": 0, "count": 200000000}, "shard_size": 1000}`, "tasks = 2e+09 is outside the allowed range [1, 1000000000] (grid cells × seeds = 10 × 200000000)"},
		{`{"name": "a", "experiment": "sweep/demo", "seeds": {"first": 0, "count": 2000000}, "shard_size": 1}`, "shards = 2e+06 is outside the allowed range [1, 1000000]"},
		{`{"name": "a", "experiment": "sweep/demo", "seeds": [1], "shard_size": 9223372036854775807}`, "shard_size = 9.223372036854776e+18 is outside the allowed range [1, 1000000000]"},
		{`{"name": "a", "experiment": "sweep/demo", "seeds": {"first": 0, "count": 1e30}, "shard_size": 1}`, "seeds ="},
		{`{"name": "a", "experiment": "sweep/demo", "seeds": {"first": -1, "count": 2}, "shard_size": 1}`, "seeds ="},
	} {
		_, err := ParseSpec([]byte(c.spec))
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.As(err, new(*param.Error)) {
			t.Errorf("%.120s…:\n  got  %v\n  want %q", c.spec, err, c.want)
		}
	}
	// At the limits: a billion tasks plan, and the last task and shard are where they should be.
	s, err := ParseSpec([]byte(`{"name": "a", "experiment": "sweep/demo", "grid": {"x": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]},
		"seeds": {"first": 18446744073609551616, "count": 100000000}, "shard_size": 1000}`))
	if err != nil {
		t.Fatal(err)
	}
	if s.Tasks() != MaxTasks || s.Shards() != MaxShards {
		t.Fatalf("tasks %d, shards %d", s.Tasks(), s.Shards())
	}
	last, err := s.Task(MaxTasks - 1)
	if err != nil || last.Seed != math.MaxUint64 || last.Cell != 9 {
		t.Errorf("last task %+v %v", last, err)
	}
	if first, end, err := s.ShardRange(MaxShards - 1); err != nil || first != MaxTasks-1000 || end != MaxTasks {
		t.Errorf("last shard [%d, %d) %v", first, end, err)
	}
	// An unchecked spec saturates instead of wrapping.
	raw := &Spec{Grid: map[string][]any{}, Seeds: Seeds{Count: math.MaxInt / 2}, ShardSize: 1}
	for k := range 4 {
		raw.Grid[fmt.Sprint(k)] = make([]any, 1<<20)
	}
	if raw.Cells() != math.MaxInt || raw.Tasks() != math.MaxInt {
		t.Errorf("unchecked: cells %d, tasks %d", raw.Cells(), raw.Tasks())
	}
}

// TestTaskCostDoesNotGrowWithSeeds: Spec.Task reads its seed without listing the others (a hundred calls on
// a spec of ten million seeds allocate kilobytes, not the 80 MB a list of the seeds takes each time).
func TestTaskCostDoesNotGrowWithSeeds(t *testing.T) {
	s, err := ParseSpec([]byte(`{"name": "a", "experiment": "sweep/demo", "grid": {"scale": [1, 2]}, "seeds": {"first": 5, "count": 10000000}, "shard_size": 100000}`))
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for i := range 100 {
		tk, err := s.Task(i * 199_999)
		if err != nil || tk.Seed != 5+uint64(i*199_999%10_000_000) {
			t.Fatalf("task %d: %+v %v", i*199_999, tk, err)
		}
	}
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 1<<20 {
		t.Errorf("100 tasks allocated %d bytes", got)
	}
}

func BenchmarkTask(b *testing.B) {
	s, err := ParseSpec([]byte(`{"name": "a", "experiment": "sweep/demo", "grid": {"scale": [1, 2], "rows": [1, 2, 3]}, "seeds": {"first": 5, "count": 1000000}, "shard_size": 1000}`))
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; b.Loop(); i++ {
		s.Task(i % s.Tasks())
	}
}

// BenchmarkPlanLargest plans and prints the largest spec allowed: a million shards of a billion tasks.
func BenchmarkPlanLargest(b *testing.B) {
	spec := []byte(`{"name": "a", "experiment": "sweep/demo", "grid": {"scale": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]}, "seeds": {"first": 0, "count": 100000000}, "shard_size": 1000}`)
	for b.Loop() {
		s, err := ParseSpec(spec)
		if err != nil {
			b.Fatal(err)
		}
		p, err := NewPlan(s)
		if err != nil {
			b.Fatal(err)
		}
		var w countWriter
		if err := p.WritePlan(&w); err != nil {
			b.Fatal(err)
		}
	}
}

type countWriter int

func (c *countWriter) Write(b []byte) (int, error) { *c += countWriter(len(b)); return len(b), nil }

// FuzzParseSpec: any input either is refused with an error or gives a spec within the limits whose counts,
// shards, first and last tasks and canonical form are consistent; nothing panics.
func FuzzParseSpec(f *testing.F) {
	f.Add([]byte(demoSpec))
	f.Add([]byte(`{"name": "a", "experiment": "sweep/demo", "seeds": [3, 1, 2], "shard_size": 2, "grid": {"rows": [1, 2], "scale": [0.5, "x", true]}}`))
	f.Add([]byte(`{"name": "a", "experiment": "sweep/demo", "seeds": {"first": 18446744073709551615, "count": 1}, "shard_size": 1000000000}`))
	f.Add([]byte(`{"name": "a", "experiment": "nope", "params": {"a": {"b": [1, {"c": 1e308}]}}, "seeds": {"count": 7}, "shard_size": 3}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseSpec(data)
		if err != nil {
			return
		}
		tasks, shards := s.Tasks(), s.Shards()
		if s.Cells() < 1 || s.Cells() > MaxCells || tasks < 1 || tasks > MaxTasks || shards < 1 || shards > MaxShards || tasks != s.Cells()*s.Seeds.Len() {
			t.Fatalf("cells %d, tasks %d, shards %d", s.Cells(), tasks, shards)
		}
		for _, i := range []int{0, shards - 1} {
			first, end, err := s.ShardRange(i)
			if err != nil || first >= end || end > tasks || (i == shards-1) != (end == tasks) {
				t.Fatalf("shard %d: [%d, %d) of %d: %v", i, first, end, tasks, err)
			}
		}
		for _, i := range []int{0, tasks / 2, tasks - 1} {
			tk, err := s.Task(i)
			if err != nil || tk.Index != i || len(tk.Values) != len(s.Grid) {
				t.Fatalf("task %d: %+v %v", i, tk, err)
			}
		}
		if _, err := s.Task(tasks); err == nil {
			t.Fatal("a task past the end")
		}
		again, err := ParseSpec(s.Canonical())
		if err != nil || again.Hash() != s.Hash() {
			t.Fatalf("the canonical form does not read back: %v\n%s", err, s.Canonical())
		}
		if p, err := NewPlan(s); err == nil {
			var w countWriter
			if err := p.WritePlan(&w); err != nil {
				t.Fatal(err)
			}
		}
	})
}
