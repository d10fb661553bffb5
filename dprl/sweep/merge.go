package sweep

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Status is the state of a results directory: which of the spec's shards are done, missing (never run, or
// killed before their manifest was written), failed (the run returned an error) or corrupt (a CSV that no
// longer matches its manifest's checksum), and which manifests are foreign (another spec's) or duplicate
// (two manifests claiming one shard).
type Status struct {
	Dir       string
	Spec      *Spec
	Hash      string
	Shards    int
	Done      []int          // complete and verified
	Missing   []int          // no valid manifest (includes Failed and Corrupt)
	Failed    map[int]string // shard → the error recorded in shard-NNNNN.failed
	Corrupt   map[int]string // shard → why its files do not check out
	Partial   map[int]string // missing shards with leftovers (a CSV without manifest, temporary files)
	Foreign   []string       // manifests of another spec, with their hash
	Duplicate []string       // "shard N: a.json, b.json"
	Invalid   []string       // unreadable or inconsistent manifests
	Rows      int            // data rows in the done shards
	Merged    string         // "" or a description of merged.csv
	manifests map[int]*Manifest
	names     map[int]string
}

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
	st := &Status{Dir: dir, Spec: spec, Hash: spec.Hash(), Shards: spec.Shards(), Failed: map[int]string{}, Corrupt: map[int]string{},
		Partial: map[int]string{}, manifests: map[int]*Manifest{}, names: map[int]string{}}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	claims := map[int][]string{}
	valid := map[int]*Manifest{}
	leftovers := map[int][]string{}
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() {
			continue
		}
		var idx int
		if _, err := fmt.Sscanf(n, ".shard-%05d.", &idx); err == nil && strings.Contains(n, ".tmp-") {
			leftovers[idx] = append(leftovers[idx], n)
			continue
		}
		if strings.HasPrefix(n, ".") || n == SpecFile || n == MergedManifest {
			continue
		}
		switch filepath.Ext(n) {
		case ".failed":
			var f Failure
			if b, err := os.ReadFile(filepath.Join(dir, n)); err == nil && json.Unmarshal(b, &f) == nil {
				st.Failed[f.Shard] = f.Error
			}
		case ".csv":
			if _, err := fmt.Sscanf(n, "shard-%05d.csv", &idx); err == nil {
				leftovers[idx] = append(leftovers[idx], n)
			}
		case ".json":
			m, err := readManifest(filepath.Join(dir, n))
			if err != nil {
				st.Invalid = append(st.Invalid, err.Error())
				continue
			}
			if m.Kind != "shard" {
				st.Invalid = append(st.Invalid, fmt.Sprintf("%s: kind %q, want \"shard\"", n, m.Kind))
				continue
			}
			if m.SpecHash != st.Hash {
				st.Foreign = append(st.Foreign, fmt.Sprintf("%s (spec %q, hash %s…; this directory's spec %q has %s…)", n, m.Spec, short(m.SpecHash), spec.Name, short(st.Hash)))
				continue
			}
			first, end, rerr := spec.ShardRange(m.Shard)
			if rerr != nil || m.Shards != st.Shards || m.FirstTask != first || m.EndTask != end {
				st.Invalid = append(st.Invalid, fmt.Sprintf("%s: shard %d of %d with tasks [%d, %d) does not fit the spec's %d shards of %d tasks",
					n, m.Shard, m.Shards, m.FirstTask, m.EndTask, st.Shards, spec.ShardSize))
				continue
			}
			claims[m.Shard] = append(claims[m.Shard], n)
			if _, err := verifyData(dir, m, n); err != nil {
				st.Corrupt[m.Shard] = err.Error()
				continue
			}
			valid[m.Shard] = m
			st.names[m.Shard] = n
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
			st.Partial[i] = strings.Join(leftovers[i], ", ") + " without a manifest (killed mid-run or mid-write?)"
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

// Write prints the summary: counts, then the lists.
func (s *Status) Write(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: spec %s (hash %s…), %d shards: %d done, %d missing, %d failed, %d corrupt; %d rows done\n",
		s.Dir, s.Spec.Name, short(s.Hash), s.Shards, len(s.Done), len(s.Missing), len(s.Failed), len(s.Corrupt), s.Rows)
	if len(s.Missing) > 0 {
		fmt.Fprintf(&b, "missing: %s\n", ranges(s.Missing))
	}
	for _, i := range slices.Sorted(maps.Keys(s.Failed)) {
		fmt.Fprintf(&b, "failed: shard %d: %s\n", i, s.Failed[i])
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
	if s.Merged != "" {
		fmt.Fprintf(&b, "merged: %s\n", s.Merged)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// ranges prints sorted indices compactly: 0–3, 7, 9–10.
func ranges(xs []int) string {
	var parts []string
	for i := 0; i < len(xs); {
		j := i
		for j+1 < len(xs) && xs[j+1] == xs[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d–%d", xs[i], xs[j]))
		} else {
			parts = append(parts, fmt.Sprint(xs[i]))
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}

// MergeError is a directory Merge refuses, with every reason.
type MergeError struct{ Status *Status }

// Error lists every reason, one per line.
func (e *MergeError) Error() string {
	s := e.Status
	var lines []string
	if len(s.Missing) > 0 {
		l := fmt.Sprintf("missing %d of %d shards: %s", len(s.Missing), s.Shards, ranges(s.Missing))
		if len(s.Failed) > 0 {
			l += fmt.Sprintf(" (%d failed)", len(s.Failed))
		}
		lines = append(lines, l+"; rerun the array (complete shards are skipped) or `dprl sweep run SPEC --shard I` for each")
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

// Merge checks dir (ReadStatus) and, if every shard is done and nothing foreign, duplicate, corrupt or
// invalid is there, writes the shards' rows in task order under one header to out (dir/merged.csv when
// empty) and its manifest to dir/merged.json. The bytes equal RunAll's for the same spec. It refuses with a
// *MergeError otherwise and writes nothing.
func Merge(dir, out string) (*Manifest, error) {
	start := time.Now()
	st, err := ReadStatus(dir)
	if err != nil {
		return nil, err
	}
	if !st.Complete() {
		return nil, &MergeError{Status: st}
	}
	var merged bytes.Buffer
	var header []byte
	rows := 0
	for i := range st.Shards {
		m := st.manifests[i]
		data, err := verifyData(dir, m, st.names[i]) // read again: verified bytes only
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
			return nil, fmt.Errorf("sweep: %s: header %q differs from %s's %q", m.File, data[:nl+1], st.manifests[0].File, header)
		}
		merged.Write(data[nl+1:])
		rows += m.Rows
	}
	if out == "" {
		out = filepath.Join(dir, MergedFile)
	}
	outDir, outName := filepath.Dir(out), filepath.Base(out)
	if err := writeAtomic(outDir, outName, merged.Bytes()); err != nil {
		return nil, err
	}
	p := &Plan{Spec: st.Spec, Hash: st.Hash}
	m := p.manifest("merged", -1, 0, st.Spec.Tasks(), rows, outName, merged.Bytes(), start)
	if outDir != filepath.Clean(dir) {
		m.File = out // merged.json then names a file elsewhere: LoadMerged reads dir/merged.csv only
	}
	b, _ := json.MarshalIndent(m, "", "  ")
	if outDir == filepath.Clean(dir) {
		if err := writeAtomic(dir, MergedManifest, append(b, '\n')); err != nil {
			return nil, err
		}
	}
	return m, nil
}
