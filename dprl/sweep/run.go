package sweep

import (
	"bytes"
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
}

// Failure is what a failed shard leaves in shard-NNNNN.failed.
type Failure struct {
	Shard int    `json:"shard"`
	Error string `json:"error"`
	Host  string `json:"host"`
	Time  string `json:"time"`
}

// RunOptions configure RunShard and RunAll.
type RunOptions struct {
	Dir     string    // the results directory (RunShard); created if missing
	Workers int       // tasks run at once (0: GOMAXPROCS); results do not depend on it
	Log     io.Writer // progress lines (nil: none)
	Force   bool      // rerun a shard even if it is complete
}

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

// runTasks runs tasks [first, end) and returns their output rows (grid values, seed, experiment columns)
// in task order; label prefixes the progress lines.
func (p *Plan) runTasks(first, end int, opt RunOptions, label string) ([][]string, error) {
	log := &logger{w: opt.Log}
	ncols := len(p.Experiment.Columns())
	var mu sync.Mutex
	done, rows := 0, 0
	total := end - first
	log.printf("%s: %d tasks (%d–%d) starting", label, total, first, end-1)
	res, err := experiment.Trials(total, opt.Workers, 0, nil, func(k int, _ rand.Source) ([][]string, error) {
		t, err := p.Spec.Task(first + k)
		if err != nil {
			return nil, err
		}
		out, err := p.Experiment.Run(t.Params, t.Seed)
		where := fmt.Sprintf("task %d (%sseed %d)", t.Index, cellPrefix(p.Spec.CellLabel(t)), t.Seed)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		full := make([][]string, len(out))
		for r, row := range out {
			if len(row) != ncols {
				return nil, check.Errorf(fmt.Sprintf("%s: len(row %d)", where, r), float64(len(row)), "[%d, %d] (one value per column of %s)", ncols, ncols, p.Spec.Experiment)
			}
			full[r] = make([]string, 0, len(p.Columns))
			for _, j := range p.keep {
				full[r] = append(full[r], t.Values[j])
			}
			full[r] = append(append(full[r], fmt.Sprint(t.Seed)), row...)
		}
		mu.Lock()
		done++
		rows += len(out)
		log.printf("%s: %d/%d tasks done, %d rows (task %d: %sseed %d, %d rows)", label, done, total, rows, t.Index, cellPrefix(p.Spec.CellLabel(t)), t.Seed, len(out))
		mu.Unlock()
		return full, nil
	})
	if err != nil {
		var te *experiment.TrialError
		if errors.As(err, &te) && te.Panic == nil {
			err = te.Err // the task's own error already names it
		}
		return nil, err
	}
	var all [][]string
	for _, r := range res {
		all = append(all, r...)
	}
	return all, nil
}

func cellPrefix(cell string) string {
	if cell == "" {
		return ""
	}
	return cell + " "
}

// encodeCSV writes the header and rows as CSV (the one encoder behind shards, merges and RunAll).
func encodeCSV(header []string, rows [][]string) ([]byte, error) {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	if err := w.Write(header); err != nil {
		return nil, err
	}
	if err := w.WriteAll(rows); err != nil {
		return nil, err
	}
	return b.Bytes(), w.Error()
}

// RunAll runs every task of the plan in this process and writes the whole table as CSV to w: the bytes
// that merging the shards gives.
func (p *Plan) RunAll(w io.Writer, opt RunOptions) error {
	rows, err := p.runTasks(0, p.Spec.Tasks(), opt, p.Spec.Name+" (all tasks)")
	if err != nil {
		return err
	}
	b, err := encodeCSV(p.Columns, rows)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
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

// RunShard runs shard i into opt.Dir: its rows to shard-NNNNN.csv, then its manifest to shard-NNNNN.json,
// each written to a temporary file and renamed. A shard whose manifest and CSV check out (same spec hash,
// matching checksum) is skipped unless opt.Force. A directory holding another spec's results is refused.
// On failure the error is also written to shard-NNNNN.failed (Status reports it) and nothing else changes.
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
	// From here on the shard is not complete: drop an old manifest before its CSV is replaced.
	if err := os.Remove(filepath.Join(opt.Dir, name+".json")); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	start := time.Now()
	m, err := p.runShard(i, first, end, opt, label, start)
	if err != nil {
		host, _ := os.Hostname()
		f, _ := json.MarshalIndent(Failure{Shard: i, Error: err.Error(), Host: host, Time: time.Now().UTC().Format(time.RFC3339)}, "", "  ")
		if werr := writeAtomic(opt.Dir, name+".failed", append(f, '\n')); werr != nil {
			log.printf("%s: could not record the failure: %v", label, werr)
		}
		log.printf("%s: FAILED: %v", label, err)
		return nil, fmt.Errorf("%s: %w", label, err)
	}
	os.Remove(filepath.Join(opt.Dir, name+".failed"))
	removeStaleTemps(opt.Dir, name, start)
	log.printf("%s: complete: %d rows in %.1fs, sha256 %s…", label, m.Rows, m.Seconds, m.SHA256[:12])
	return &ShardResult{Shard: i, Manifest: m}, nil
}

func (p *Plan) runShard(i, first, end int, opt RunOptions, label string, start time.Time) (*Manifest, error) {
	rows, err := p.runTasks(first, end, opt, label)
	if err != nil {
		return nil, err
	}
	data, err := encodeCSV(p.Columns, rows)
	if err != nil {
		return nil, err
	}
	name := ShardName(i)
	crashPoint("before-csv")
	if err := writeAtomic(opt.Dir, name+".csv", data); err != nil {
		return nil, err
	}
	crashPoint("after-csv")
	m := p.manifest("shard", i, first, end, len(rows), name+".csv", data, start)
	b, _ := json.MarshalIndent(m, "", "  ")
	if err := writeAtomic(opt.Dir, name+".json", append(b, '\n')); err != nil {
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
		return writeAtomic(dir, SpecFile, p.Spec.Canonical())
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

// writeAtomic writes data to dir/name through a temporary file in dir (synced, then renamed), so a reader
// sees either the old file or the whole new one, never a part.
func writeAtomic(dir, name string, data []byte) error {
	f, err := os.CreateTemp(dir, "."+name+".tmp-*")
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
// file written to its temporary file), after-csv (the CSV renamed, its manifest not yet written) or
// before-csv, the process kills itself with SIGKILL at that point, as a node failure or `scancel -s KILL`
// would.
const CrashEnv = "DPRL_SWEEP_CRASH"

func crashPoint(where string) {
	if os.Getenv(CrashEnv) == where {
		if p, err := os.FindProcess(os.Getpid()); err == nil {
			p.Signal(syscall.SIGKILL)
			time.Sleep(time.Minute) // the signal is asynchronous
		}
	}
}

// removeStaleTemps removes the temporary files of shard name left by runs killed before start.
func removeStaleTemps(dir, name string, start time.Time) {
	matches, _ := filepath.Glob(filepath.Join(dir, "."+name+".*.tmp-*"))
	for _, m := range matches {
		if fi, err := os.Stat(m); err == nil && fi.ModTime().Before(start) {
			os.Remove(m)
		}
	}
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
