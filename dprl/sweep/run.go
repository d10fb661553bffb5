package sweep

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/dprl-project/dprl/dprl/experiment"
)

// File names inside a results directory.
const (
	SpecFile       = "spec.json"   // the canonical spec the shards belong to
	MergedFile     = "merged.csv"  // the merged table
	MergedManifest = "merged.json" // its manifest
)

// ShardName is the base name of shard i's files: shard-00007 (then .csv, .json, .failed).
func ShardName(i int) string { return fmt.Sprintf("shard-%05d", i) }

// Manifest describes a finished shard (Kind "shard") or a merged table (Kind "merged"). It is written after
// the CSV it describes, so its presence means the CSV was complete; SHA256 lets a reader detect a CSV
// changed or truncated since.
type Manifest struct {
	Kind       string   `json:"kind"`
	Spec       string   `json:"spec"`      // the spec's name
	SpecHash   string   `json:"spec_hash"` // Spec.Hash()
	Experiment string   `json:"experiment"`
	Shard      int      `json:"shard"`  // the shard's index (merged: -1)
	Shards     int      `json:"shards"` // the spec's shard count
	FirstTask  int      `json:"first_task"`
	EndTask    int      `json:"end_task"` // tasks [first_task, end_task)
	Seeds      []uint64 `json:"seeds"`    // the distinct seeds of those tasks, in task order
	Rows       int      `json:"rows"`     // data rows (the header not counted)
	File       string   `json:"file"`     // the CSV's base name
	SHA256     string   `json:"sha256"`   // the CSV's SHA-256, hex
	Module     string   `json:"module"`
	Version    string   `json:"version"`
	Commit     string   `json:"commit"`
	GoVersion  string   `json:"go_version"`
	Host       string   `json:"host"`
	Started    string   `json:"started"` // RFC 3339
	Finished   string   `json:"finished"`
	Seconds    float64  `json:"seconds"`
	// A shard's history: the processes that ran tasks of it (more than one after a kill, a preemption or a
	// retry), the tasks its last process took from the checkpoint, and its failed attempts before it
	// completed.
	Attempts int `json:"attempts,omitempty"`
	Resumed  int `json:"resumed_tasks,omitempty"`
	Failures int `json:"failures,omitempty"`
}

// Failure is what a failed shard leaves in shard-NNNNN.failed.
type Failure struct {
	Shard    int    `json:"shard"`
	Error    string `json:"error"`
	Host     string `json:"host"`
	Time     string `json:"time"`
	Failures int    `json:"failures"` // failed attempts of this shard so far, this one included
}

// RunOptions configure RunShard and RunAll.
type RunOptions struct {
	Dir     string    // the results directory (RunShard); created if missing
	Workers int       // tasks run at once (0: GOMAXPROCS); results do not depend on it
	Log     io.Writer // progress lines (nil: none)
	Force   bool      // rerun a shard even if it is complete (its checkpoint is discarded too)
	// Context stops a shard early when it is cancelled (nil: never): no further task starts, the running
	// ones finish and are checkpointed, and RunShard returns an error wrapping ErrStopped. dprl sweep run
	// cancels it on SIGTERM and SIGINT.
	Context context.Context
}

// ErrStopped is wrapped by the error of a shard stopped through RunOptions.Context: its finished tasks are
// in its checkpoint, and running it again resumes after them.
var ErrStopped = errors.New("stopped early, its finished tasks checkpointed: a rerun resumes after them")

// ShardResult is what RunShard did.
type ShardResult struct {
	Shard    int
	Skipped  bool // the shard was already complete
	Manifest *Manifest
}

type logger struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *logger) printf(format string, args ...any) {
	if l == nil || l.w == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(l.w, format+"\n", args...)
}

// tasksRun is what runTasks produced: each task's rows as CSV, in task order, and the row count.
type tasksRun struct {
	body    []byte
	rows    int
	resumed int // tasks taken from the checkpoint
}

// runTasks runs tasks [first, end) (those not already in ckpt, when there is one, each checkpointed as it
// finishes) and returns their rows (grid values, seed, experiment columns) as CSV in task order; label
// prefixes the progress lines.
func (p *Plan) runTasks(first, end int, opt RunOptions, label string, ckpt *checkpoint) (*tasksRun, error) {
	log := &logger{w: opt.Log}
	ncols := len(p.Experiment.Columns())
	out := make([][]byte, end-first)
	rowsOf := make([]int, end-first)
	var todo []int
	for i := first; i < end; i++ {
		if ckpt != nil && ckpt.tasks[i] != nil {
			out[i-first], rowsOf[i-first] = ckpt.tasks[i], ckpt.rows[i]
			continue
		}
		todo = append(todo, i)
	}
	total, resumed := end-first, end-first-len(todo)
	attempt := 0
	if ckpt != nil {
		var err error
		if attempt, err = ckpt.start(); err != nil {
			return nil, err
		}
	}
	if resumed > 0 {
		log.printf("%s: attempt %d resumes: %d of %d tasks are in the checkpoint, %d to run", label, attempt, resumed, total, len(todo))
	} else {
		log.printf("%s: %d tasks (%d–%d) starting", label, total, first, end-1)
	}
	ctx := opt.Context
	if ctx == nil {
		ctx = context.Background()
	}
	inject := os.Getenv(CrashEnv) == "fail-first-attempt" && attempt == 1
	var mu sync.Mutex
	done, rows := resumed, 0
	for _, n := range rowsOf {
		rows += n
	}
	_, err := experiment.Trials(len(todo), opt.Workers, 0, nil, func(k int, _ rand.Source) (struct{}, error) {
		if ctx.Err() != nil {
			return struct{}{}, ErrStopped
		}
		t, err := p.Spec.Task(todo[k])
		if err != nil {
			return struct{}{}, err
		}
		res, err := p.Experiment.Run(t.Params, t.Seed)
		where := fmt.Sprintf("task %d (%sseed %d)", t.Index, cellPrefix(p.Spec.CellLabel(t)), t.Seed)
		if err != nil {
			return struct{}{}, fmt.Errorf("%s: %w", where, err)
		}
		full := make([][]string, len(res))
		for r, row := range res {
			if len(row) != ncols {
				return struct{}{}, check.Errorf(fmt.Sprintf("%s: len(row %d)", where, r), float64(len(row)), "[%d, %d] (one value per column of %s)", ncols, ncols, p.Spec.Experiment)
			}
			full[r] = make([]string, 0, len(p.Columns))
			for _, j := range p.keep {
				full[r] = append(full[r], t.Values[j])
			}
			full[r] = append(append(full[r], fmt.Sprint(t.Seed)), row...)
		}
		b, err := encodeCSV(nil, full)
		if err != nil {
			return struct{}{}, err
		}
		if ckpt != nil {
			if err := ckpt.task(t.Index, len(res), b); err != nil {
				return struct{}{}, fmt.Errorf("%s: checkpointing: %w", where, err)
			}
		}
		mu.Lock()
		out[t.Index-first], rowsOf[t.Index-first] = b, len(res)
		done++
		rows += len(res)
		log.printf("%s: %d/%d tasks done, %d rows (task %d: %sseed %d, %d rows)", label, done, total, rows, t.Index, cellPrefix(p.Spec.CellLabel(t)), t.Seed, len(res))
		mu.Unlock()
		if inject {
			return struct{}{}, fmt.Errorf("%s: injected failure (%s=fail-first-attempt)", where, CrashEnv)
		}
		return struct{}{}, nil
	})
	if err != nil {
		var te *experiment.TrialError
		if errors.As(err, &te) && te.Panic == nil {
			err = te.Err // the task's own error already names it
		}
		if errors.Is(err, ErrStopped) {
			return nil, fmt.Errorf("%d of %d tasks done, %w", done, total, ErrStopped)
		}
		return nil, err
	}
	var body bytes.Buffer
	for _, b := range out {
		body.Write(b)
	}
	return &tasksRun{body: body.Bytes(), rows: rows, resumed: resumed}, nil
}

func cellPrefix(cell string) string {
	if cell == "" {
		return ""
	}
	return cell + " "
}

// encodeCSV writes the header (none when nil) and rows as CSV (the one encoder behind shards, merges and
// RunAll). Rows encode independently, so the encodings of consecutive runs of rows concatenate to the
// encoding of all of them.
func encodeCSV(header []string, rows [][]string) ([]byte, error) {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	if header != nil {
		if err := w.Write(header); err != nil {
			return nil, err
		}
	}
	if err := w.WriteAll(rows); err != nil {
		return nil, err
	}
	return b.Bytes(), w.Error()
}

// RunAll runs every task of the plan in this process and writes the whole table as CSV to w: the bytes
// that merging the shards gives.
func (p *Plan) RunAll(w io.Writer, opt RunOptions) error {
	r, err := p.runTasks(0, p.Spec.Tasks(), opt, p.Spec.Name+" (all tasks)", nil)
	if err != nil {
		return err
	}
	header, err := encodeCSV(p.Columns, nil)
	if err != nil {
		return err
	}
	if _, err = w.Write(header); err != nil {
		return err
	}
	_, err = w.Write(r.body)
	return err
}

// RunLocal runs every shard of the plan into opt.Dir in turn (complete shards are skipped, as RunShard
// does) and merges them into opt.Dir/merged.csv: what `make sweep-local` does, in one process.
func (p *Plan) RunLocal(opt RunOptions) (*Manifest, error) {
	for i := range p.Spec.Shards() {
		if _, err := p.RunShard(i, opt); err != nil {
			return nil, err
		}
	}
	return Merge(opt.Dir, "")
}

// RunShard runs shard i into opt.Dir: each task as it finishes to the checkpoint shard-NNNNN.ckpt, then
// the shard's rows to shard-NNNNN.csv and its manifest to shard-NNNNN.json, each written to a temporary
// file and renamed, then the checkpoint is removed. A shard whose manifest and CSV check out (same spec
// hash, matching checksum) is skipped unless opt.Force; a shard with a checkpoint runs only the tasks not
// in it. A directory holding another spec's results is refused, and so is a shard another process is
// running (*BusyError). On failure the error is also written to shard-NNNNN.failed (Status reports it,
// with the number of failed attempts); a shard stopped through opt.Context returns an error wrapping
// ErrStopped and records no failure.
func (p *Plan) RunShard(i int, opt RunOptions) (*ShardResult, error) {
	first, end, err := p.Spec.ShardRange(i)
	if err != nil {
		return nil, err
	}
	if err := p.Prepare(opt.Dir); err != nil {
		return nil, err
	}
	log := &logger{w: opt.Log}
	label := fmt.Sprintf("%s shard %d/%d", p.Spec.Name, i, p.Spec.Shards())
	name := ShardName(i)
	if !opt.Force {
		if m, err := verifyShard(opt.Dir, name+".json", p.Hash); err == nil {
			log.printf("%s: already complete (%d rows, sha256 %s…), skipped", label, m.Rows, m.SHA256[:12])
			return &ShardResult{Shard: i, Skipped: true, Manifest: m}, nil
		} else if !errors.Is(err, os.ErrNotExist) {
			log.printf("%s: rerunning: %v", label, err)
		}
	}
	start := time.Now()
	ckpt, err := openCheckpoint(opt.Dir, i, first, end, p.Hash, log)
	if err != nil {
		return nil, err
	}
	defer ckpt.close() // a no-op after remove
	if ckpt.dropped > 0 {
		log.printf("%s: dropped a torn checkpoint record (%d bytes, the process was killed while writing it)", label, ckpt.dropped)
	}
	if opt.Force && len(ckpt.tasks) > 0 {
		log.printf("%s: Force: discarding %d checkpointed tasks", label, len(ckpt.tasks))
		if err := ckpt.reset(); err != nil {
			return nil, err
		}
	}
	// From here on the shard is not complete: drop an old manifest before its CSV is replaced.
	if err := os.Remove(filepath.Join(opt.Dir, name+".json")); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	prev, _ := readFailure(filepath.Join(opt.Dir, name+".failed"))
	m, err := p.runShard(i, first, end, opt, label, start, ckpt, prev.Failures)
	if errors.Is(err, ErrStopped) {
		return nil, fmt.Errorf("%s: %w", label, err)
	}
	if err != nil {
		host, _ := os.Hostname()
		f, _ := json.MarshalIndent(Failure{Shard: i, Error: err.Error(), Host: host, Time: time.Now().UTC().Format(time.RFC3339), Failures: prev.Failures + 1}, "", "  ")
		if werr := WriteAtomic(opt.Dir, name+".failed", append(f, '\n')); werr != nil {
			log.printf("%s: could not record the failure: %v", label, werr)
		}
		log.printf("%s: FAILED (failure %d): %v", label, prev.Failures+1, err)
		return nil, fmt.Errorf("%s: %w", label, err)
	}
	if err := ckpt.remove(); err != nil && !errors.Is(err, os.ErrNotExist) {
		log.printf("%s: could not remove its checkpoint: %v", label, err)
	}
	os.Remove(filepath.Join(opt.Dir, name+".failed"))
	removeStaleTemps(opt.Dir, "."+name+".", start)
	log.printf("%s: complete: %d rows in %.1fs (attempt %d, %d tasks resumed), sha256 %s…", label, m.Rows, m.Seconds, m.Attempts, m.Resumed, m.SHA256[:12])
	return &ShardResult{Shard: i, Manifest: m}, nil
}

// readFailure reads a shard's failure record (the zero Failure when there is none); an old record without
// a count counts as one failure.
func readFailure(path string) (Failure, error) {
	var f Failure
	b, err := os.ReadFile(path)
	if err != nil {
		return f, err
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return Failure{Failures: 1}, err
	}
	f.Failures = max(f.Failures, 1)
	return f, nil
}

func (p *Plan) runShard(i, first, end int, opt RunOptions, label string, start time.Time, ckpt *checkpoint, failures int) (*Manifest, error) {
	r, err := p.runTasks(first, end, opt, label, ckpt)
	if err != nil {
		return nil, err
	}
	header, err := encodeCSV(p.Columns, nil)
	if err != nil {
		return nil, err
	}
	data := append(header, r.body...)
	name := ShardName(i)
	crashPoint("before-csv")
	if err := WriteAtomic(opt.Dir, name+".csv", data); err != nil {
		return nil, err
	}
	crashPoint("after-csv")
	m := p.manifest("shard", i, first, end, r.rows, name+".csv", data, start)
	m.Attempts, m.Resumed, m.Failures = ckpt.runs, r.resumed, failures
	b, _ := json.MarshalIndent(m, "", "  ")
	if err := WriteAtomic(opt.Dir, name+".json", append(b, '\n')); err != nil {
		return nil, err
	}
	return m, nil
}

func (p *Plan) manifest(kind string, shard, first, end, rows int, file string, data []byte, start time.Time) *Manifest {
	sum := sha256.Sum256(data)
	host, _ := os.Hostname()
	v := BuildVersion()
	var seeds []uint64
	seen := map[uint64]bool{}
	for k := first; k < end; k++ {
		t, _ := p.Spec.Task(k)
		if !seen[t.Seed] {
			seen[t.Seed] = true
			seeds = append(seeds, t.Seed)
		}
	}
	now := time.Now()
	return &Manifest{Kind: kind, Spec: p.Spec.Name, SpecHash: p.Hash, Experiment: p.Spec.Experiment, Shard: shard, Shards: p.Spec.Shards(),
		FirstTask: first, EndTask: end, Seeds: seeds, Rows: rows, File: file, SHA256: hex.EncodeToString(sum[:]),
		Module: v.Module, Version: v.Version, Commit: v.Commit, GoVersion: v.GoVersion, Host: host,
		Started: start.UTC().Format(time.RFC3339), Finished: now.UTC().Format(time.RFC3339), Seconds: now.Sub(start).Seconds()}
}

// Prepare creates the results directory and writes the canonical spec into it as spec.json, or checks that
// the spec already there is this one (a directory holding another spec's results is refused). RunShard
// calls it; the engine generators call it so that jobs read the spec from the directory.
func (p *Plan) Prepare(dir string) error {
	if dir == "" {
		return check.Missing("Dir", "a results directory")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return p.ensureSpec(dir)
}

// ensureSpec writes the canonical spec into dir, or checks that the one there is the same.
func (p *Plan) ensureSpec(dir string) error {
	path := filepath.Join(dir, SpecFile)
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return WriteAtomic(dir, SpecFile, p.Spec.Canonical())
	case err != nil:
		return err
	}
	s, err := ParseSpec(b)
	if err != nil {
		return fmt.Errorf("sweep: %s: %w", path, err)
	}
	if h := s.Hash(); h != p.Hash {
		return badValue("results directory", dir, "a directory of spec hash %s… (it holds %s, spec %q, hash %s…): use another directory or empty this one",
			p.Hash[:12], SpecFile, s.Name, h[:12])
	}
	return nil
}

// WriteAtomic writes data to dir/name through a temporary file in dir (.name.tmp-*, synced, then renamed),
// so a reader sees either the old file or the whole new one, never a part, and a write killed midway
// leaves only the temporary file (Status reports it, Merge removes it once stale).
func WriteAtomic(dir, name string, data []byte) error {
	f, err := os.CreateTemp(dir, "."+name+tempMarker+"*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp) // no-op after the rename
	if _, err := f.Write(data[:len(data)/2]); err != nil {
		f.Close()
		return err
	}
	crashPoint("mid-write")
	if _, err := f.Write(data[len(data)/2:]); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp, 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp, filepath.Join(dir, name)); err != nil {
		return err
	}
	if d, err := os.Open(dir); err == nil { // make the rename durable
		d.Sync()
		d.Close()
	}
	return nil
}

// CrashEnv names the fault-injection hook the crash tests use: with DPRL_SWEEP_CRASH=mid-write (half of a
// file written to its temporary file), mid-checkpoint (half of a task's checkpoint record written),
// after-csv (the CSV renamed, its manifest not yet written) or before-csv, the process kills itself with
// SIGKILL at that point, as a node failure or `scancel -s KILL` would; with fail-first-attempt, a shard's
// first attempt fails (an error, as a transient fault would) once its first task is checkpointed.
const CrashEnv = "DPRL_SWEEP_CRASH"

func crashPoint(where string) {
	if os.Getenv(CrashEnv) == where {
		if p, err := os.FindProcess(os.Getpid()); err == nil {
			p.Signal(syscall.SIGKILL)
			time.Sleep(time.Minute) // the signal is asynchronous
		}
	}
}

// tempMarker is in the name of every temporary file WriteAtomic creates: .<name>.tmp-<random>.
const tempMarker = ".tmp-"

// isTemp reports whether a directory entry is one of WriteAtomic's temporary files.
func isTemp(name string) bool {
	return strings.HasPrefix(name, ".") && strings.Contains(name, tempMarker)
}

// removeStaleTemps removes the temporary files in dir whose names start with prefix (every one with
// prefix "." ) and that were last modified before cutoff: left by writes that were killed.
func removeStaleTemps(dir, prefix string, cutoff time.Time) (removed []string) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		n := e.Name()
		if !isTemp(n) || !strings.HasPrefix(n, prefix) {
			continue
		}
		if fi, err := e.Info(); err == nil && fi.ModTime().Before(cutoff) && os.Remove(filepath.Join(dir, n)) == nil {
			removed = append(removed, n)
		}
	}
	return removed
}

// readManifest reads a manifest file.
func readManifest(path string) (*Manifest, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var m Manifest
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(&m); err != nil {
		return nil, fmt.Errorf("%s: not a sweep manifest: %v", filepath.Base(path), err)
	}
	return &m, nil
}

// ChecksumError is a CSV file whose SHA-256 differs from its manifest's: the file was changed or cut short
// after the manifest was written.
type ChecksumError struct {
	File     string // the CSV's base name
	Manifest string // the manifest's base name
	Want     string // the manifest's checksum
	Got      string // the file's
}

// Error names the file, its manifest and both checksums.
func (e *ChecksumError) Error() string {
	return fmt.Sprintf("%s: checksum mismatch: %s records sha256 %s…, the file has %s…: the file is corrupted (delete it and %s, then rerun the shard)",
		e.File, e.Manifest, short(e.Want), short(e.Got), e.Manifest)
}

// verifyShard reads the manifest dir/manifestName and checks it belongs to hash and that its CSV matches
// its checksum and row count; it returns the manifest. A missing manifest is an error wrapping
// os.ErrNotExist.
func verifyShard(dir, manifestName, hash string) (*Manifest, error) {
	m, err := readManifest(filepath.Join(dir, manifestName))
	if err != nil {
		return nil, err
	}
	if m.SpecHash != hash {
		return m, fmt.Errorf("%s: foreign shard: spec hash %s…, this directory's spec has %s…", manifestName, short(m.SpecHash), short(hash))
	}
	_, err = verifyData(dir, m, manifestName)
	return m, err
}

// verifyData checks m's CSV against its checksum and row count and returns its bytes.
func verifyData(dir string, m *Manifest, manifestName string) ([]byte, error) {
	if m.File == "" || filepath.Base(m.File) != m.File {
		return nil, badValue(manifestName+": file", m.File, "a file name inside the results directory")
	}
	data, err := os.ReadFile(filepath.Join(dir, m.File))
	if err != nil {
		return nil, fmt.Errorf("%s: %w (named by %s)", m.File, err, manifestName)
	}
	sum := sha256.Sum256(data)
	if got := hex.EncodeToString(sum[:]); got != m.SHA256 {
		return nil, &ChecksumError{File: m.File, Manifest: manifestName, Want: m.SHA256, Got: got}
	}
	recs, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", m.File, err)
	}
	if len(recs)-1 != m.Rows {
		return nil, check.Errorf(m.File+": rows", float64(len(recs)-1), "[%d, %d] (the manifest's row count)", m.Rows, m.Rows)
	}
	return data, nil
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}
