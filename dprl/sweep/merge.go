package sweep

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Status is the state of a results directory: which of the spec's shards are done, missing (never run, or
// killed before their manifest was written), failed (the run returned an error) or corrupt (a CSV that no
// longer matches its manifest's checksum), which manifests are foreign (another spec's) or duplicate (two
// manifests claiming one shard), and what else is there: checkpoints of unfinished shards, temporary files
// of interrupted writes, and files that are not the sweep's (ignored). Engine, when set (AskEngine), adds
// what the batch engine knows: pending, running and cancelled shards.
type Status struct {
	Dir       string
	Spec      *Spec
	Hash      string
	Shards    int
	Done      []int           // complete and verified
	Missing   []int           // no valid manifest (includes Failed and Corrupt)
	Failed    map[int]Failure // shard → its shard-NNNNN.failed (the last error and the number of failures)
	Corrupt   map[int]string  // shard → why its files do not check out
	Partial   map[int]string  // missing shards with leftovers: a checkpoint, a CSV without manifest, temporary files
	Foreign   []string        // manifests of another spec, with their hash
	Duplicate []string        // "shard N: a.json, b.json"
	Invalid   []string        // manifests inconsistent with the spec
	Ignored   []string        // files that are not the sweep's, with what they are: left alone and not in the way
	Temps     []string        // temporary files of interrupted writes, with their age (Merge removes stale ones)
	Rows      int             // data rows in the done shards
	Merged    string          // "" or a description of merged.csv
	Engine    *EngineState    // what the engine reports (nil: not asked)
	manifests map[int]*Manifest
	names     map[int]string
}

// shardFileRE matches the files a shard owns: its CSV, manifest, failure record and checkpoint.
var shardFileRE = regexp.MustCompile(`^shard-([0-9]{5,})\.(csv|json|failed|ckpt)$`)

// ownFiles are the other files of a results directory (logs/ holds the engines' logs and job records).
var ownFiles = map[string]bool{SpecFile: true, MergedFile: true, MergedManifest: true, SlurmScript: true, "logs": true}

// ReadStatus inspects dir, whose spec.json (written by the first shard run) says what it should hold.
func ReadStatus(dir string) (*Status, error) {
	b, err := os.ReadFile(filepath.Join(dir, SpecFile))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("sweep: %s has no %s: no shard of any spec has run there", dir, SpecFile)
		}
		return nil, err
	}
	spec, err := ParseSpec(b)
	if err != nil {
		return nil, fmt.Errorf("sweep: %s: %w", filepath.Join(dir, SpecFile), err)
	}
	st := &Status{Dir: dir, Spec: spec, Hash: spec.Hash(), Shards: spec.Shards(), Failed: map[int]Failure{}, Corrupt: map[int]string{},
		Partial: map[int]string{}, manifests: map[int]*Manifest{}, names: map[int]string{}}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	claims := map[int][]string{}
	valid := map[int]*Manifest{}
	leftovers := map[int][]string{}
	now := time.Now()
	for _, e := range entries {
		n := e.Name()
		if isTemp(n) {
			age := "age unknown"
			if fi, err := e.Info(); err == nil {
				age = now.Sub(fi.ModTime()).Round(time.Second).String() + " old"
			}
			st.Temps = append(st.Temps, fmt.Sprintf("%s (%s)", n, age))
			if m := shardFileRE.FindStringSubmatch(strings.SplitN(n[1:], tempMarker, 2)[0]); m != nil {
				idx, _ := strconv.Atoi(m[1])
				leftovers[idx] = append(leftovers[idx], fmt.Sprintf("%s: a write of its %s was interrupted", n, m[2]))
			}
			continue
		}
		if ownFiles[n] {
			continue
		}
		m := shardFileRE.FindStringSubmatch(n)
		idx := -1
		if m != nil {
			idx, _ = strconv.Atoi(m[1])
		}
		switch {
		case e.IsDir():
			st.Ignored = append(st.Ignored, n+"/ (a directory the sweep does not use)")
		case m != nil && m[2] == "failed":
			f, err := readFailure(filepath.Join(dir, n))
			if err != nil {
				f.Error = fmt.Sprintf("(%s is unreadable: %v)", n, err)
			}
			st.Failed[idx] = f
		case m != nil && m[2] == "csv":
			leftovers[idx] = append(leftovers[idx], n+" without a manifest: the run was killed after writing its CSV and before its manifest (or the file was put here by hand); a rerun of the shard replaces it")
		case m != nil && m[2] == "ckpt":
			k, err := checkpointProgress(filepath.Join(dir, n))
			if err != nil {
				leftovers[idx] = append(leftovers[idx], err.Error())
			} else {
				leftovers[idx] = append(leftovers[idx], fmt.Sprintf("%s holds %d finished tasks: the shard was stopped or killed mid-run, and a rerun resumes after them", n, k))
			}
		case filepath.Ext(n) == ".json":
			man, err := readManifest(filepath.Join(dir, n))
			switch {
			case (err != nil || man.Kind == "") && m != nil:
				if err == nil {
					err = fmt.Errorf("%s: not a sweep manifest (no kind)", n)
				}
				st.Corrupt[idx] = err.Error()
				continue
			case err != nil || man.Kind == "":
				st.Ignored = append(st.Ignored, n+" (not a sweep manifest)")
				continue
			case man.Kind != "shard":
				st.Ignored = append(st.Ignored, fmt.Sprintf("%s (a sweep manifest of kind %q, not a shard's)", n, man.Kind))
				continue
			}
			if man.SpecHash != st.Hash {
				st.Foreign = append(st.Foreign, fmt.Sprintf("%s (spec %q, hash %s…; this directory's spec %q has %s…)", n, man.Spec, short(man.SpecHash), spec.Name, short(st.Hash)))
				continue
			}
			first, end, rerr := spec.ShardRange(man.Shard)
			if rerr != nil || man.Shards != st.Shards || man.FirstTask != first || man.EndTask != end {
				st.Invalid = append(st.Invalid, fmt.Sprintf("%s: shard %d of %d with tasks [%d, %d) does not fit the spec's %d shards of %d tasks",
					n, man.Shard, man.Shards, man.FirstTask, man.EndTask, st.Shards, spec.ShardSize))
				continue
			}
			claims[man.Shard] = append(claims[man.Shard], n)
			if _, err := verifyData(dir, man, n); err != nil {
				st.Corrupt[man.Shard] = err.Error()
				continue
			}
			valid[man.Shard] = man
			st.names[man.Shard] = n
		default:
			st.Ignored = append(st.Ignored, n+" (not a sweep file)")
		}
	}
	for _, i := range slices.Sorted(maps.Keys(claims)) {
		if len(claims[i]) > 1 {
			st.Duplicate = append(st.Duplicate, fmt.Sprintf("shard %d: %s", i, strings.Join(claims[i], ", ")))
		}
	}
	for i := range st.Shards {
		m, ok := valid[i]
		if ok && len(claims[i]) == 1 {
			st.Done = append(st.Done, i)
			st.manifests[i] = m
			st.Rows += m.Rows
			delete(st.Failed, i) // an older failure, since rerun
			continue
		}
		if len(claims[i]) > 1 {
			continue // reported as a duplicate
		}
		st.Missing = append(st.Missing, i)
		if _, corrupt := st.Corrupt[i]; !corrupt && len(leftovers[i]) > 0 {
			st.Partial[i] = strings.Join(leftovers[i], "; ")
		}
	}
	if m, err := readManifest(filepath.Join(dir, MergedManifest)); err == nil {
		if m.SpecHash != st.Hash {
			st.Merged = fmt.Sprintf("%s is of another spec (hash %s…)", MergedFile, short(m.SpecHash))
		} else if _, err := verifyData(dir, m, MergedManifest); err != nil {
			st.Merged = "invalid: " + err.Error()
		} else {
			st.Merged = fmt.Sprintf("%s: %d rows, finished %s", m.File, m.Rows, m.Finished)
		}
	}
	return st, nil
}

// Complete reports whether every shard is done and nothing foreign, duplicate or invalid is in the way.
func (s *Status) Complete() bool {
	return len(s.Done) == s.Shards && len(s.Foreign) == 0 && len(s.Duplicate) == 0 && len(s.Invalid) == 0
}

// States sorts the shards that are not done by what is known of them, the engine's word on a shard's
// latest job first: "running" and "pending" (the engine says so), "corrupt" (its files do not check out),
// "cancelled" (the engine or `dprl sweep cancel` says so), "failed" (a failure record, or the engine's
// FAILED, TIMEOUT, … state), and "missing" (nothing is known: never run, or killed without a trace).
func (s *Status) States() map[string][]int {
	out := map[string][]int{}
	for _, i := range s.Missing {
		state := "missing"
		var eng string
		if s.Engine != nil {
			eng = s.Engine.Shards[i].State
		}
		_, failed := s.Failed[i]
		_, corrupt := s.Corrupt[i]
		switch { // the engine's word on the shard's latest job first: it is newer than any failure record
		case eng == "running" || eng == "pending":
			state = eng
		case corrupt:
			state = "corrupt"
		case eng == "cancelled":
			state = "cancelled"
		case failed || eng == "failed":
			state = "failed"
		}
		out[state] = append(out[state], i)
	}
	return out
}

// stateOrder is the order Write lists the states in.
var stateOrder = []string{"running", "pending", "failed", "cancelled", "corrupt", "missing"}

// Write prints the summary: the counts, one line per state with its shards as an index list that
// `sbatch --array` and `dprl sweep resubmit` accept (0-3,7,9-10), the details of failures, partial and
// corrupt shards, and what is ignored.
func (s *Status) Write(w io.Writer) error {
	var b strings.Builder
	states := s.States()
	counts := []string{fmt.Sprintf("%d done", len(s.Done))}
	for _, k := range stateOrder {
		if len(states[k]) > 0 {
			counts = append(counts, fmt.Sprintf("%d %s", len(states[k]), k))
		}
	}
	fmt.Fprintf(&b, "%s: spec %s (hash %s…), %d shards: %s; %d rows done\n", s.Dir, s.Spec.Name, short(s.Hash), s.Shards, strings.Join(counts, ", "), s.Rows)
	if s.Engine != nil {
		if s.Engine.Err != nil {
			fmt.Fprintf(&b, "engine: %s could not be asked: %v (the states below are from the files alone)\n", s.Engine.Name, s.Engine.Err)
		} else {
			fmt.Fprintf(&b, "engine: %s\n", s.Engine.Summary)
		}
	}
	if len(s.Done) > 0 {
		fmt.Fprintf(&b, "done: %s\n", IndexList(s.Done))
	}
	for _, k := range stateOrder {
		if len(states[k]) == 0 {
			continue
		}
		line := k + ": " + IndexList(states[k])
		if s.Engine != nil && (k == "running" || k == "pending") {
			var jobs []string
			for _, i := range states[k] {
				jobs = append(jobs, s.Engine.Shards[i].Job)
			}
			line += " (jobs " + abbreviate(jobs, 8) + ")"
		}
		b.WriteString(line + "\n")
	}
	for _, i := range slices.Sorted(maps.Keys(s.Failed)) {
		f := s.Failed[i]
		fmt.Fprintf(&b, "failure: shard %d (%d failed attempts, last on %s at %s): %s\n", i, f.Failures, f.Host, f.Time, f.Error)
	}
	if s.Engine != nil {
		for _, i := range s.Missing {
			if e := s.Engine.Shards[i]; e.State == "failed" || e.State == "cancelled" {
				fmt.Fprintf(&b, "engine: shard %d: job %s %s\n", i, e.Job, e.Detail)
			}
		}
	}
	for _, i := range slices.Sorted(maps.Keys(s.Corrupt)) {
		fmt.Fprintf(&b, "corrupt: shard %d: %s\n", i, s.Corrupt[i])
	}
	for _, i := range slices.Sorted(maps.Keys(s.Partial)) {
		fmt.Fprintf(&b, "partial: shard %d: %s\n", i, s.Partial[i])
	}
	for _, f := range s.Foreign {
		fmt.Fprintf(&b, "foreign: %s\n", f)
	}
	for _, d := range s.Duplicate {
		fmt.Fprintf(&b, "duplicate: %s\n", d)
	}
	for _, d := range s.Invalid {
		fmt.Fprintf(&b, "invalid: %s\n", d)
	}
	for _, t := range s.Temps {
		fmt.Fprintf(&b, "temporary: %s: left by an interrupted write (merge removes those older than %v)\n", t, staleTempAge)
	}
	for _, f := range s.Ignored {
		fmt.Fprintf(&b, "ignored: %s\n", f)
	}
	if s.Merged != "" {
		fmt.Fprintf(&b, "merged: %s\n", s.Merged)
	}
	if todo := s.Resubmittable(); len(todo) > 0 {
		fmt.Fprintf(&b, "next: dprl sweep resubmit %s (runs %s), or dprl sweep run %s --shard I for each\n", ShellQuote(s.Dir), IndexList(todo), ShellQuote(filepath.Join(s.Dir, SpecFile)))
	} else if s.Complete() && !strings.HasPrefix(s.Merged, MergedFile) {
		fmt.Fprintf(&b, "next: dprl sweep merge %s\n", ShellQuote(s.Dir))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Resubmittable returns the shards that are neither done nor pending or running: what a resubmission runs.
func (s *Status) Resubmittable() []int {
	var out []int
	for _, i := range s.Missing {
		if s.Engine != nil {
			if st := s.Engine.Shards[i].State; st == "running" || st == "pending" {
				continue
			}
		}
		out = append(out, i)
	}
	return out
}

func abbreviate(xs []string, n int) string {
	if len(xs) <= n {
		return strings.Join(xs, ", ")
	}
	return strings.Join(xs[:n-1], ", ") + fmt.Sprintf(", … %s (%d in all)", xs[len(xs)-1], len(xs))
}

// IndexList prints sorted indices as a list that `sbatch --array` accepts: 0-3,7,9-10.
func IndexList(xs []int) string {
	var parts []string
	for i := 0; i < len(xs); {
		j := i
		for j+1 < len(xs) && xs[j+1] == xs[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d-%d", xs[i], xs[j]))
		} else {
			parts = append(parts, strconv.Itoa(xs[i]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

// ParseIndexList reads an index list (0-3,7,9-10) of shards in [0, shards−1] and returns the sorted,
// distinct indices.
func ParseIndexList(list string, shards int) ([]int, error) {
	bad := func() error {
		return badValue("shards", list, "a list of shards in [0, %d] such as 0-3,7,9-10", shards-1)
	}
	seen := map[int]bool{}
	for _, part := range strings.Split(list, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			return nil, bad()
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil {
				return nil, bad()
			}
		}
		if a < 0 || b < a || b >= shards {
			return nil, bad()
		}
		for i := a; i <= b; i++ {
			seen[i] = true
		}
	}
	return slices.Sorted(maps.Keys(seen)), nil
}

// MergeError is a directory Merge refuses, with every reason.
type MergeError struct{ Status *Status }

// Error lists every reason, one per line.
func (e *MergeError) Error() string {
	s := e.Status
	var lines []string
	if len(s.Missing) > 0 {
		l := fmt.Sprintf("missing %d of %d shards: %s", len(s.Missing), s.Shards, IndexList(s.Missing))
		if len(s.Failed) > 0 {
			l += fmt.Sprintf(" (%d failed)", len(s.Failed))
		}
		lines = append(lines, l+"; dprl sweep resubmit "+ShellQuote(s.Dir)+" (Slurm) runs only those, or dprl sweep run "+ShellQuote(filepath.Join(s.Dir, SpecFile))+" --shard I for each")
	}
	for _, i := range slices.Sorted(maps.Keys(s.Corrupt)) {
		lines = append(lines, "corrupt: "+s.Corrupt[i])
	}
	for _, i := range slices.Sorted(maps.Keys(s.Partial)) {
		lines = append(lines, fmt.Sprintf("incomplete: shard %d: %s", i, s.Partial[i]))
	}
	for _, f := range s.Foreign {
		lines = append(lines, "foreign shard: "+f)
	}
	for _, d := range s.Duplicate {
		lines = append(lines, "duplicate shard: "+d)
	}
	for _, d := range s.Invalid {
		lines = append(lines, "invalid manifest: "+d)
	}
	return fmt.Sprintf("sweep: cannot merge %s (spec %s, %d shards):\n  %s", s.Dir, s.Spec.Name, s.Shards, strings.Join(lines, "\n  "))
}

// staleTempAge is how old a temporary file must be before Merge removes it: writes take far less, so an
// older one was left by a process killed while writing.
const staleTempAge = time.Minute

// Merge checks dir (ReadStatus) and, if every shard is done and nothing foreign, duplicate, corrupt or
// invalid is there, writes the shards' rows in task order under one header to out (dir/merged.csv when
// empty) and its manifest to dir/merged.json. The bytes equal RunAll's for the same spec. It refuses with a
// *MergeError otherwise and writes nothing. Files that are not the sweep's are left alone (Status.Ignored
// names them); temporary files older than a minute are removed.
func Merge(dir, out string) (*Manifest, error) {
	st, err := ReadStatus(dir)
	if err != nil {
		return nil, err
	}
	return st.Merge(out)
}

// Merge merges the directory s describes, as Merge(s.Dir, out) does, without reading its status again.
func (s *Status) Merge(out string) (*Manifest, error) {
	start := time.Now()
	if !s.Complete() {
		return nil, &MergeError{Status: s}
	}
	dir := s.Dir
	var merged bytes.Buffer
	var header []byte
	rows := 0
	for i := range s.Shards {
		m := s.manifests[i]
		data, err := verifyData(dir, m, s.names[i]) // read again: verified bytes only
		if err != nil {
			return nil, err
		}
		nl := bytes.IndexByte(data, '\n')
		if nl < 0 {
			return nil, fmt.Errorf("sweep: %s has no header line", m.File)
		}
		if header == nil {
			header = data[:nl+1]
			merged.Write(header)
		} else if !bytes.Equal(data[:nl+1], header) {
			return nil, fmt.Errorf("sweep: %s: header %q differs from %s's %q", m.File, data[:nl+1], s.manifests[0].File, header)
		}
		merged.Write(data[nl+1:])
		rows += m.Rows
	}
	if out == "" {
		out = filepath.Join(dir, MergedFile)
	}
	outDir, outName := filepath.Dir(out), filepath.Base(out)
	if err := WriteAtomic(outDir, outName, merged.Bytes()); err != nil {
		return nil, err
	}
	p := &Plan{Spec: s.Spec, Hash: s.Hash}
	m := p.manifest("merged", -1, 0, s.Spec.Tasks(), rows, outName, merged.Bytes(), start)
	if outDir != filepath.Clean(dir) {
		m.File = out // merged.json then names a file elsewhere: LoadMerged reads dir/merged.csv only
	}
	b, _ := json.MarshalIndent(m, "", "  ")
	if outDir == filepath.Clean(dir) {
		if err := WriteAtomic(dir, MergedManifest, append(b, '\n')); err != nil {
			return nil, err
		}
	}
	removeStaleTemps(dir, ".", start.Add(-staleTempAge))
	return m, nil
}

// WaitOptions configure WaitMerge.
type WaitOptions struct {
	Poll        time.Duration // between looks at the directory (0: 30 s)
	GiveUpAfter int           // give up when a shard has failed this many times (0: never)
	Log         io.Writer     // a line each time the state changes (nil: none)
}

// WaitMerge waits until every shard of dir is done, then merges (Merge): what a Kubernetes merge Job runs
// beside the Indexed Job. It gives up with an error when ctx ends (a deadline) or when a shard has failed
// opt.GiveUpAfter times (the engine has then stopped retrying it); a directory without spec.json yet is
// waited for too, since the first shard writes it. Foreign, duplicate or invalid manifests stop it at
// once: waiting cannot mend them.
func WaitMerge(ctx context.Context, dir, out string, opt WaitOptions) (*Manifest, error) {
	poll := opt.Poll
	if poll <= 0 {
		poll = 30 * time.Second
	}
	log := &logger{w: opt.Log}
	last := ""
	for {
		st, err := ReadStatus(dir)
		switch {
		case err == nil && st.Complete():
			return st.Merge(out)
		case err == nil && (len(st.Foreign) > 0 || len(st.Duplicate) > 0 || len(st.Invalid) > 0):
			return nil, &MergeError{Status: st}
		case err == nil:
			for i, f := range st.Failed {
				if opt.GiveUpAfter > 0 && f.Failures >= opt.GiveUpAfter {
					return nil, fmt.Errorf("sweep: shard %d failed %d times, the retries the engine allows: giving up the merge of %s: %s", i, f.Failures, dir, f.Error)
				}
			}
			if now := fmt.Sprintf("%d of %d shards done", len(st.Done), st.Shards); now != last {
				log.printf("waiting for %s: %s", dir, now)
				last = now
			}
		case errors.Is(err, os.ErrNotExist) || strings.Contains(err.Error(), "has no "+SpecFile):
			if last != "none" {
				log.printf("waiting for %s: no shard has started yet", dir)
				last = "none"
			}
		default:
			return nil, err
		}
		select {
		case <-ctx.Done():
			if st != nil {
				return nil, fmt.Errorf("sweep: gave up waiting (%v): %w", ctx.Err(), &MergeError{Status: st})
			}
			return nil, fmt.Errorf("sweep: gave up waiting for %s (%v): no shard has started", dir, ctx.Err())
		case <-time.After(poll):
		}
	}
}
