package sweep

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dprl-project/dprl/dprl/param"
)

const demoSpec = `{
  "name": "demo",
  "experiment": "sweep/demo",
  "params": {"rows": 4},
  "grid": {"scale": [1, 2.5, 10], "delay": [0]},
  "seeds": {"first": 3, "count": 5},
  "shard_size": 4
}`

func mustPlan(t *testing.T, spec string) *Plan {
	t.Helper()
	s, err := ParseSpec([]byte(spec))
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewPlan(s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func withShardSize(t *testing.T, spec string, size int) *Plan {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(spec), &m); err != nil {
		t.Fatal(err)
	}
	m["shard_size"] = size
	b, _ := json.Marshal(m)
	return mustPlan(t, string(b))
}

func runAll(t *testing.T, p *Plan, workers int) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := p.RunAll(&b, RunOptions{Workers: workers}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func runShards(t *testing.T, p *Plan, dir string, workers int) {
	t.Helper()
	for i := range p.Spec.Shards() {
		if _, err := p.RunShard(i, RunOptions{Dir: dir, Workers: workers}); err != nil {
			t.Fatal(err)
		}
	}
}

func TestSpecCanonicalHash(t *testing.T) {
	a := mustPlan(t, demoSpec)
	// The same spec with other spacing, key order and number spellings.
	b := mustPlan(t, `{"shard_size":4,"seeds":{"count":5,"first":3},"grid":{"delay":[0.0],"scale":[1.0,2.5,1e1]},
		"params":{"rows":4.0},"experiment":"sweep/demo","name":"demo"}`)
	if a.Hash != b.Hash {
		t.Errorf("hashes differ:\n%s%s", a.Spec.Canonical(), b.Spec.Canonical())
	}
	c := withShardSize(t, demoSpec, 5)
	if c.Hash == a.Hash {
		t.Error("a different shard size has the same hash")
	}
	list := mustPlan(t, strings.Replace(demoSpec, `{"first": 3, "count": 5}`, `[3, 4, 5, 6, 7]`, 1))
	if got := list.Spec.Seeds.Values(); fmt.Sprint(got) != fmt.Sprint(a.Spec.Seeds.Values()) {
		t.Errorf("seed list %v, range %v", got, a.Spec.Seeds.Values())
	}
}

func TestTaskOrder(t *testing.T) {
	p := mustPlan(t, demoSpec)
	s := p.Spec
	if s.Cells() != 3 || s.Tasks() != 15 || s.Shards() != 4 {
		t.Fatalf("cells %d tasks %d shards %d", s.Cells(), s.Tasks(), s.Shards())
	}
	var got []string
	for i := range s.Tasks() {
		tk, _ := s.Task(i)
		got = append(got, fmt.Sprintf("%s/%d", s.CellLabel(tk), tk.Seed))
	}
	// Keys sorted (delay before scale), the last key fastest, seeds innermost.
	if got[0] != "delay=0 scale=1/3" || got[4] != "delay=0 scale=1/7" || got[5] != "delay=0 scale=2.5/3" || got[14] != "delay=0 scale=10/7" {
		t.Errorf("task order %v", got)
	}
	if fmt.Sprint(p.Columns) != "[delay scale seed k x y]" {
		t.Errorf("columns %v", p.Columns)
	}
	first, end, _ := s.ShardRange(3)
	if first != 12 || end != 15 {
		t.Errorf("last shard [%d, %d)", first, end)
	}
}

// TestMergeIsByteIdentical: every shard size and worker count merges to RunAll's bytes.
func TestMergeIsByteIdentical(t *testing.T) {
	want := runAll(t, mustPlan(t, demoSpec), 1)
	if !bytes.HasPrefix(want, []byte("delay,scale,seed,k,x,y\n0,1,3,0,")) || bytes.Count(want, []byte("\n")) != 1+15*4 {
		t.Fatalf("table:\n%s", want)
	}
	if got := runAll(t, mustPlan(t, demoSpec), 4); !bytes.Equal(got, want) {
		t.Fatal("RunAll depends on the number of workers")
	}
	for _, size := range []int{1, 2, 4, 7, 15, 100} {
		p := withShardSize(t, demoSpec, size)
		dir := t.TempDir()
		runShards(t, p, dir, size%3)
		m, err := Merge(dir, "")
		if err != nil {
			t.Fatalf("shard size %d: %v", size, err)
		}
		got, _ := os.ReadFile(filepath.Join(dir, MergedFile))
		if !bytes.Equal(got, want) {
			t.Errorf("shard size %d: merged table differs from the single-process one", size)
		}
		if m.Rows != 60 || m.Shards != p.Spec.Shards() {
			t.Errorf("shard size %d: manifest %+v", size, m)
		}
		r, err := ReadMerged(dir)
		if err != nil || len(r.Table.Rows) != 60 || r.Table.Columns[2] != "seed" {
			t.Errorf("ReadMerged: %v", err)
		}
	}
}

func TestResumeSkipsCompleteShards(t *testing.T) {
	p := mustPlan(t, demoSpec)
	dir := t.TempDir()
	if _, err := p.RunShard(1, RunOptions{Dir: dir}); err != nil {
		t.Fatal(err)
	}
	before, _ := os.Stat(filepath.Join(dir, "shard-00001.csv"))
	var log bytes.Buffer
	res, err := p.RunShard(1, RunOptions{Dir: dir, Log: &log})
	if err != nil || !res.Skipped || !strings.Contains(log.String(), "already complete") {
		t.Fatalf("second run: %+v %v %q", res, err, log.String())
	}
	after, _ := os.Stat(filepath.Join(dir, "shard-00001.csv"))
	if !after.ModTime().Equal(before.ModTime()) {
		t.Error("a complete shard was rewritten")
	}
	// A corrupted CSV is not complete: the next run redoes it.
	os.WriteFile(filepath.Join(dir, "shard-00001.csv"), []byte("x\n"), 0o644)
	log.Reset()
	res, err = p.RunShard(1, RunOptions{Dir: dir, Log: &log})
	if err != nil || res.Skipped || !strings.Contains(log.String(), "checksum mismatch") {
		t.Fatalf("after corruption: %+v %v %q", res, err, log.String())
	}
	if res, err := p.RunShard(1, RunOptions{Dir: dir, Force: true}); err != nil || res.Skipped {
		t.Errorf("Force: %+v %v", res, err)
	}
}

func mergeErr(t *testing.T, dir string) string {
	t.Helper()
	_, err := Merge(dir, "")
	var me *MergeError
	if !errors.As(err, &me) {
		t.Fatalf("Merge: %v, want a *MergeError", err)
	}
	if _, err := os.Stat(filepath.Join(dir, MergedFile)); err == nil {
		t.Error("a refused merge wrote merged.csv")
	}
	return err.Error()
}

func TestMergeRefuses(t *testing.T) {
	p := mustPlan(t, demoSpec)
	complete := t.TempDir()
	runShards(t, p, complete, 0)
	clone := func() string {
		dir := t.TempDir()
		entries, _ := os.ReadDir(complete)
		for _, e := range entries {
			b, _ := os.ReadFile(filepath.Join(complete, e.Name()))
			os.WriteFile(filepath.Join(dir, e.Name()), b, 0o644)
		}
		return dir
	}
	t.Run("missing", func(t *testing.T) {
		dir := clone()
		os.Remove(filepath.Join(dir, "shard-00001.json"))
		os.Remove(filepath.Join(dir, "shard-00002.json"))
		msg := mergeErr(t, dir)
		if !strings.Contains(msg, "missing 2 of 4 shards: 1-2") || !strings.Contains(msg, "incomplete: shard 1: shard-00001.csv without a manifest") {
			t.Error(msg)
		}
	})
	t.Run("corrupt", func(t *testing.T) {
		dir := clone()
		path := filepath.Join(dir, "shard-00002.csv")
		b, _ := os.ReadFile(path)
		b[len(b)-3] ^= 1
		os.WriteFile(path, b, 0o644)
		msg := mergeErr(t, dir)
		if !strings.Contains(msg, "shard-00002.csv: checksum mismatch: shard-00002.json records sha256") {
			t.Error(msg)
		}
		st, _ := ReadStatus(dir)
		if len(st.Corrupt) != 1 || len(st.Done) != 3 {
			t.Errorf("status %+v", st)
		}
	})
	t.Run("truncated", func(t *testing.T) {
		dir := clone()
		path := filepath.Join(dir, "shard-00000.csv")
		b, _ := os.ReadFile(path)
		os.WriteFile(path, b[:len(b)/2], 0o644)
		if msg := mergeErr(t, dir); !strings.Contains(msg, "shard-00000.csv: checksum mismatch") {
			t.Error(msg)
		}
	})
	t.Run("duplicate", func(t *testing.T) {
		dir := clone()
		b, _ := os.ReadFile(filepath.Join(dir, "shard-00003.json"))
		os.WriteFile(filepath.Join(dir, "shard-00003-copy.json"), b, 0o644)
		if msg := mergeErr(t, dir); !strings.Contains(msg, "duplicate shard: shard 3: shard-00003-copy.json, shard-00003.json") {
			t.Error(msg)
		}
	})
	t.Run("foreign", func(t *testing.T) {
		dir := clone()
		other := withShardSize(t, demoSpec, 3)
		odir := t.TempDir()
		if _, err := other.RunShard(0, RunOptions{Dir: odir}); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(filepath.Join(odir, "shard-00000.json"))
		os.WriteFile(filepath.Join(dir, "other-shard.json"), b, 0o644)
		msg := mergeErr(t, dir)
		if !strings.Contains(msg, "foreign shard: other-shard.json (spec \"demo\", hash "+other.Hash[:12]) {
			t.Error(msg)
		}
	})
	t.Run("foreign directory", func(t *testing.T) {
		other := withShardSize(t, demoSpec, 3)
		_, err := other.RunShard(0, RunOptions{Dir: clone()})
		var pe *param.Error
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), "results directory = ") || !strings.Contains(err.Error(), p.Hash[:12]) {
			t.Errorf("running another spec into the directory: %v", err)
		}
	})
	t.Run("status", func(t *testing.T) {
		dir := clone()
		os.Remove(filepath.Join(dir, "shard-00000.json"))
		st, err := ReadStatus(dir)
		if err != nil || st.Complete() || fmt.Sprint(st.Missing) != "[0]" || len(st.Done) != 3 || st.Rows != 44 {
			t.Fatalf("%+v %v", st, err)
		}
		var b bytes.Buffer
		st.Write(&b)
		if !strings.Contains(b.String(), "4 shards: 3 done, 1 missing; 44 rows done") {
			t.Error(b.String())
		}
	})
}

func TestFailedShard(t *testing.T) {
	Register("sweep/test-fail", Func{Cols: []string{"v"}, Do: func(p Params, seed uint64) ([][]string, error) {
		if a, _ := p.String("a", "", true); seed == 4 && a == "y" {
			return nil, errors.New("boom")
		}
		return [][]string{{fmt.Sprint(seed)}}, nil
	}})
	p := mustPlan(t, `{"name": "f", "experiment": "sweep/test-fail", "grid": {"a": ["x", "y"]}, "seeds": [1, 4], "shard_size": 2}`)
	dir := t.TempDir()
	_, err := p.RunShard(1, RunOptions{Dir: dir})
	if err == nil || !strings.Contains(err.Error(), "task 3 (a=y seed 4): boom") {
		t.Fatalf("error %v", err)
	}
	if _, err := p.RunShard(0, RunOptions{Dir: dir}); err != nil {
		t.Fatal(err)
	}
	st, _ := ReadStatus(dir)
	if len(st.Failed) != 1 || !strings.Contains(st.Failed[1].Error, "boom") || fmt.Sprint(st.Done) != "[0]" {
		t.Errorf("status %+v", st)
	}
	if msg := mergeErr(t, dir); !strings.Contains(msg, "missing 1 of 2 shards: 1 (1 failed)") {
		t.Error(msg)
	}
}

func TestBadInput(t *testing.T) {
	for _, c := range []struct{ spec, want string }{
		{`{"name": "a b", "experiment": "sweep/demo", "seeds": [1], "shard_size": 1}`, `name = "a b" is not allowed`},
		{`{"name": "a", "seeds": [1], "shard_size": 1}`, `experiment is missing`},
		{`{"name": "a", "experiment": "nope", "seeds": [1], "shard_size": 1}`, `experiment = "nope" is not allowed: want the registered experiments {`},
		{`{"name": "a", "experiment": "sweep/demo", "seeds": [1], "shard_size": 0}`, `shard_size = 0 is outside the allowed range [1, 1000000000]`},
		{`{"name": "a", "experiment": "sweep/demo", "seeds": {"first": 1, "count": 0}, "shard_size": 1}`, `seeds.count = 0 is outside the allowed range [1, 1000000000]`},
		{`{"name": "a", "experiment": "sweep/demo", "seeds": [1, 1], "shard_size": 1}`, `seeds = 1 is not allowed: want distinct seeds`},
		{`{"name": "a", "experiment": "sweep/demo", "seeds": "x", "shard_size": 1}`, `seeds = "\"x\"" is not allowed`},
		{`{"name": "a", "experiment": "sweep/demo", "seeds": [1], "shard_size": 1, "grid": {"rows": []}}`, `grid.rows is missing`},
		{`{"name": "a", "experiment": "sweep/demo", "seeds": [1], "shard_size": 1, "grid": {"rows": [1, 1]}}`, `grid.rows = 1 is not allowed: want distinct values`},
		{`{"name": "a", "experiment": "sweep/demo", "seeds": [1], "shard_size": 1, "grid": {"rows": [1]}, "params": {"rows": 2}}`, `grid key = "rows" is not allowed: want keys not also in params`},
		{`{"name": "a", "experiment": "sweep/demo", "seeds": [1], "shard_size": 1, "params": {"rows": 0}}`, `params.rows = 0 is outside the allowed range [1, 1000000]`},
		{`{"name": "a", "experiment": "sweep/demo", "seeds": [1], "shard_size": 1, "grid": {"delay": [0, -1]}}`, `params.delay = -1 is outside the allowed range [0, 3600] (grid cell delay=-1)`},
		{`{"name": "a", "experiment": "sweep/demo", "seeds": [1], "shard_size": 1, "params": {"rowz": 2}}`, `params key = "rowz" is not allowed: want {rows, scale, delay}`},
		{`{"name": "a", "experiment": "sweep/demo", "seeds": [1], "shard_size": 1, "params": {"scale": "big"}}`, `params.scale = "big" is not allowed: want numbers in (-∞, ∞)`},
		{`{"name": "a", "experiment": "sweep/demo", "seeds": [1], "shard_size": 1, "extra": 1}`, `unknown field "extra"`},
	} {
		s, err := ParseSpec([]byte(c.spec))
		if err == nil {
			_, err = NewPlan(s)
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s:\n  got  %v\n  want %q", c.spec, err, c.want)
			continue
		}
		if !strings.Contains(c.want, "unknown field") && !errors.As(err, new(*param.Error)) {
			t.Errorf("%s: %v is not a *param.Error", c.spec, err)
		}
	}
	p := mustPlan(t, demoSpec)
	if _, err := p.RunShard(4, RunOptions{Dir: t.TempDir()}); err == nil || !strings.Contains(err.Error(), "shard = 4 is outside the allowed range [0, 3]") {
		t.Errorf("shard 4 of 4: %v", err)
	}
	if _, err := p.RunShard(0, RunOptions{}); err == nil || !strings.Contains(err.Error(), "Dir is missing") {
		t.Errorf("no Dir: %v", err)
	}
}

func TestShardFromEnv(t *testing.T) {
	env := func(kv ...string) func(string) string {
		m := map[string]string{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return func(k string) string { return m[k] }
	}
	for _, c := range []struct {
		env        func(string) string
		shard      int
		source, ok string
	}{
		{env(SlurmTaskEnv, "3", SlurmCountEnv, "5"), 3, SlurmTaskEnv, ""},
		{env(SlurmTaskEnv, "2", SlurmCountEnv, "2"), 2, SlurmTaskEnv, "warning"},
		{env(K8sIndexEnv, "4"), 4, K8sIndexEnv, ""},
		{env(SlurmTaskEnv, "5"), 0, "", "SLURM_ARRAY_TASK_ID = 5 is outside the allowed range [0, 4]"},
		{env(SlurmTaskEnv, "1", SlurmCountEnv, "9"), 0, "", "SLURM_ARRAY_TASK_COUNT = 9 is outside the allowed range [1, 5]"},
		{env(K8sIndexEnv, "x"), 0, "", `JOB_COMPLETION_INDEX = "x" is not allowed: want integers in [0, 4]`},
		{env(), 0, "", "shard is missing"},
	} {
		i, src, warn, err := ShardFromEnv(c.env, 5)
		switch {
		case c.source == "":
			if err == nil || !strings.Contains(err.Error(), c.ok) {
				t.Errorf("want %q, got %v", c.ok, err)
			}
		case err != nil || i != c.shard || src != c.source || (warn != "") != (c.ok == "warning"):
			t.Errorf("got %d %q %q %v, want %d %q", i, src, warn, err, c.shard, c.source)
		}
	}
}

func TestLoadMerged(t *testing.T) {
	root := t.TempDir()
	t.Setenv(RootEnv, root)
	t.Setenv(SweepsEnv, "")
	if _, ok, err := LoadMerged("demo"); ok || err != nil {
		t.Fatalf("no results: ok %v, %v", ok, err)
	}
	p := mustPlan(t, demoSpec)
	dir, _ := Dir("demo")
	if dir != filepath.Join(root, "build", "sweeps", "demo") {
		t.Errorf("Dir = %s", dir)
	}
	runShards(t, p, dir, 0)
	if _, ok, err := LoadMerged("demo"); ok || err != nil {
		t.Fatalf("shards without merge: ok %v, %v", ok, err)
	}
	if _, err := Merge(dir, ""); err != nil {
		t.Fatal(err)
	}
	tb, ok, err := LoadMerged("demo")
	if !ok || err != nil || len(tb.Rows) != 60 || tb.Columns[5] != "y" {
		t.Fatalf("LoadMerged: %v %v", ok, err)
	}
	r, _, _ := Load("demo")
	if !strings.Contains(r.Describe(), "merged sweep demo from "+dir+" (60 rows, 5 seeds, commit ") {
		t.Error(r.Describe())
	}
	// The checked-in spec changed since: stale.
	os.MkdirAll(filepath.Join(root, "sweeps", "specs"), 0o755)
	os.WriteFile(filepath.Join(root, "sweeps", "specs", "demo.json"), withShardSize(t, demoSpec, 2).Spec.Canonical(), 0o644)
	if _, ok, err := LoadMerged("demo"); ok || err == nil || !strings.Contains(err.Error(), "is stale") {
		t.Errorf("stale: %v %v", ok, err)
	}
	os.WriteFile(filepath.Join(root, "sweeps", "specs", "demo.json"), []byte(demoSpec), 0o644)
	if _, ok, err := LoadMerged("demo"); !ok || err != nil {
		t.Errorf("current spec: %v %v", ok, err)
	}
	// A corrupted merged table is an error, not a silent fallback.
	os.WriteFile(filepath.Join(dir, MergedFile), []byte("delay\n"), 0o644)
	if _, _, err := LoadMerged("demo"); err == nil || !strings.Contains(err.Error(), "merged.csv: checksum mismatch") {
		t.Errorf("corrupt merged.csv: %v", err)
	}
}

func TestWritePlan(t *testing.T) {
	var b bytes.Buffer
	mustPlan(t, demoSpec).WritePlan(&b)
	for _, want := range []string{"3 cells × 5 seeds = 15 tasks; shard size 4 → 4 shards",
		"1      4–7 (4)       delay=0 scale=1 seed 7; delay=0 scale=2.5 seeds 3…5 (3)"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("plan lacks %q:\n%s", want, b.String())
		}
	}
}
