package sweep

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/dprl-project/dprl/dprl/experiment"
)

// Environment variables that locate results.
const (
	RootEnv   = "DPRL_ROOT"   // the repository root (the notebook kernels set it)
	SweepsEnv = "DPRL_SWEEPS" // overrides <root>/build/sweeps
)

// ModulePath is the module whose go.mod marks the repository root.
const ModulePath = "github.com/dprl-project/dprl"

// Root returns the repository root: $DPRL_ROOT when set, else the nearest directory at or above the working
// directory whose go.mod declares ModulePath.
func Root() (string, error) {
	if r := os.Getenv(RootEnv); r != "" {
		return r, nil
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil {
			for _, line := range strings.Split(string(b), "\n") {
				if f := strings.Fields(line); len(f) == 2 && f[0] == "module" && f[1] == ModulePath {
					return dir, nil
				}
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("sweep: no repository root: set %s or run inside the repository", RootEnv)
		}
		dir = parent
	}
}

// Dir is where the named sweep's results live: $DPRL_SWEEPS/<name>, else <root>/build/sweeps/<name>.
func Dir(name string) (string, error) {
	var root string
	if os.Getenv(SweepsEnv) == "" {
		r, err := Root()
		if err != nil {
			return "", err
		}
		root = r
	}
	return dirIn(root, name), nil
}

// dirIn is Dir for the repository root given.
func dirIn(root, name string) string {
	if d := os.Getenv(SweepsEnv); d != "" {
		return filepath.Join(d, name)
	}
	return filepath.Join(root, "build", "sweeps", name)
}

// SpecPath is the checked-in spec of the named sweep: <root>/sweeps/specs/<name>.json.
func SpecPath(name string) (string, error) {
	r, err := Root()
	if err != nil {
		return "", err
	}
	return specIn(r, name), nil
}

func specIn(root, name string) string { return filepath.Join(root, "sweeps", "specs", name+".json") }

// Result is a merged sweep read back.
type Result struct {
	Dir      string
	Table    *experiment.Table
	Manifest *Manifest // merged.json: spec hash, rows, commit, when
	Spec     *Spec     // the spec the results belong to (the directory's spec.json)
}

// Describe says where the result came from, for a notebook to show: "merged sweep xie2019-fig1a from
// build/sweeps/xie2019-fig1a (12000 rows, 100 seeds, commit 0123abcd, 2025-01-02T03:04:05Z)".
func (r *Result) Describe() string {
	commit := r.Manifest.Commit
	if len(commit) > 12 {
		commit = commit[:12]
	}
	return fmt.Sprintf("merged sweep %s from %s (%d rows, %d seeds, commit %s, %s)", r.Spec.Name, r.Dir, r.Manifest.Rows, r.Spec.Seeds.Len(), commit, r.Manifest.Finished)
}

// ReadMerged reads dir/merged.csv, checking it against dir/merged.json (checksum, rows) and dir/spec.json
// (spec hash). A directory without merged.csv is an error wrapping os.ErrNotExist.
func ReadMerged(dir string) (*Result, error) {
	if _, err := os.Stat(filepath.Join(dir, MergedFile)); err != nil {
		return nil, err
	}
	m, err := readManifest(filepath.Join(dir, MergedManifest))
	if err != nil {
		return nil, fmt.Errorf("sweep: %s: %w (run dprl sweep merge %s)", dir, err, dir)
	}
	if m.Kind != "merged" || m.File != MergedFile {
		return nil, fmt.Errorf("sweep: %s: %s is not the manifest of %s", dir, MergedManifest, MergedFile)
	}
	b, err := os.ReadFile(filepath.Join(dir, SpecFile))
	if err != nil {
		return nil, err
	}
	spec, err := ParseSpec(b)
	if err != nil {
		return nil, fmt.Errorf("sweep: %s: %w", filepath.Join(dir, SpecFile), err)
	}
	if spec.Hash() != m.SpecHash {
		return nil, fmt.Errorf("sweep: %s: %s is of spec hash %s…, %s of %s…: merge again", dir, MergedFile, short(m.SpecHash), SpecFile, short(spec.Hash()))
	}
	data, err := verifyData(dir, m, MergedManifest)
	if err != nil {
		return nil, err
	}
	recs, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		return nil, err
	}
	return &Result{Dir: dir, Table: &experiment.Table{Columns: recs[0], Rows: recs[1:]}, Manifest: m, Spec: spec}, nil
}

// Load reads the named sweep's merged result from Dir(name). ok is false (and err nil) when there is none,
// so the caller runs its default size instead. When the checked-in spec sweeps/specs/<name>.json exists and
// differs from the one the result was computed for, Load returns an error: the result is stale.
func Load(name string) (r *Result, ok bool, err error) {
	root, err := Root()
	if err != nil && os.Getenv(SweepsEnv) == "" {
		return nil, false, err
	}
	return LoadFrom(root, name)
}

// LoadFrom is Load in the repository at root, whatever the working directory: the result in
// $DPRL_SWEEPS/<name> or <root>/build/sweeps/<name>, checked against the spec <root>/sweeps/specs/<name>.json.
// An empty root (no repository) with $DPRL_SWEEPS unset has no result: ok is false.
func LoadFrom(root, name string) (r *Result, ok bool, err error) {
	if root == "" && os.Getenv(SweepsEnv) == "" {
		return nil, false, nil
	}
	dir := dirIn(root, name)
	r, err = ReadMerged(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	if root != "" {
		path := specIn(root, name)
		if cur, err := ReadSpec(path); err == nil && cur.Hash() != r.Manifest.SpecHash {
			return nil, false, fmt.Errorf("sweep: %s is stale: computed for spec hash %s…, %s now has %s…: rerun the sweep or remove the directory",
				dir, short(r.Manifest.SpecHash), path, short(cur.Hash()))
		}
	}
	return r, true, nil
}

// LoadMerged is Load's table alone: the merged tidy table of the named sweep, ok = false when none has been
// merged (run the default size then), an error when one is there but does not check out.
func LoadMerged(name string) (t *experiment.Table, ok bool, err error) {
	r, ok, err := Load(name)
	if !ok || err != nil {
		return nil, ok, err
	}
	return r.Table, true, nil
}

// Where returns the rows of t whose columns have the given values (every key must be a column), as a new
// table with the same columns: Where(t, map[string]string{"domain": "taxi", "variant": "dp-actor"}).
func Where(t *experiment.Table, values map[string]string) (*experiment.Table, error) {
	idx := map[int]string{}
	for k, v := range values {
		i := indexOf(t.Columns, k)
		if i < 0 {
			return nil, badValue("column", k, "the table's columns {%s}", strings.Join(t.Columns, ", "))
		}
		idx[i] = v
	}
	out := &experiment.Table{Columns: t.Columns}
	for _, r := range t.Rows {
		keep := true
		for i, v := range idx {
			if r[i] != v {
				keep = false
				break
			}
		}
		if keep {
			out.Rows = append(out.Rows, r)
		}
	}
	return out, nil
}

func indexOf(cols []string, name string) int {
	for i, c := range cols {
		if c == name {
			return i
		}
	}
	return -1
}

// Columns returns the indices of the named columns of t, or an error naming the first one missing.
func Columns(t *experiment.Table, names ...string) ([]int, error) {
	out := make([]int, len(names))
	for k, n := range names {
		if out[k] = indexOf(t.Columns, n); out[k] < 0 {
			return nil, badValue("column", n, "the table's columns {%s}", strings.Join(t.Columns, ", "))
		}
	}
	return out, nil
}
