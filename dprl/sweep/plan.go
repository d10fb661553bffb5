package sweep

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// Plan is a checked spec bound to its experiment: the task list, the shards and the output columns.
type Plan struct {
	Spec       *Spec
	Hash       string     // Spec.Hash()
	Experiment Experiment // the registered experiment
	// Columns are the output columns: the grid keys (but those the experiment reports as a column of its
	// own), "seed", then the experiment's columns.
	Columns []string
	keep    []int // the grid keys with a column, as indices into GridKeys
}

// NewPlan looks up the spec's experiment, checks every grid cell's parameters with it (when it is a
// Validator) and the columns (no experiment column may repeat a grid key or "seed").
func NewPlan(s *Spec) (*Plan, error) {
	if err := s.Check(); err != nil {
		return nil, err
	}
	e, err := Lookup(s.Experiment)
	if err != nil {
		return nil, err
	}
	// A grid key the experiment reports itself (a column of the same name) gets no column of its own.
	var cols []string
	var keep []int
	for j, k := range s.GridKeys() {
		if !slices.Contains(e.Columns(), k) {
			cols = append(cols, k)
			keep = append(keep, j)
		}
	}
	cols = append(cols, "seed")
	for _, c := range e.Columns() {
		if slices.Contains(cols, c) {
			return nil, badValue("experiment column", c, "names other than \"seed\" and distinct (experiment %s has columns %s)",
				s.Experiment, strings.Join(e.Columns(), ", "))
		}
		cols = append(cols, c)
	}
	p := &Plan{Spec: s, Hash: s.Hash(), Experiment: e, Columns: cols, keep: keep}
	if v, ok := e.(Validator); ok {
		seeds := s.Seeds.Len()
		for c := range s.Cells() {
			t, _ := s.Task(c * seeds)
			if err := v.Validate(t.Params); err != nil {
				if cell := s.CellLabel(t); cell != "" {
					return nil, fmt.Errorf("%w (grid cell %s)", err, cell)
				}
				return nil, err
			}
		}
	}
	return p, nil
}

// LoadPlan reads the spec at path and plans it.
func LoadPlan(path string) (*Plan, error) {
	s, err := ReadSpec(path)
	if err != nil {
		return nil, err
	}
	p, err := NewPlan(s)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// WritePlan prints the plan: the spec, its hash, the grid, the task and shard counts, then one line per
// shard with its tasks, cells and seeds.
func (p *Plan) WritePlan(w io.Writer) error {
	s := p.Spec
	var b strings.Builder
	fmt.Fprintf(&b, "spec %s: experiment %s, hash %s\n", s.Name, s.Experiment, p.Hash[:16])
	if s.Description != "" {
		fmt.Fprintf(&b, "  %s\n", s.Description)
	}
	for _, k := range s.GridKeys() {
		var vs []string
		for _, v := range s.Grid[k] {
			vs = append(vs, FormatValue(v))
		}
		fmt.Fprintf(&b, "grid %s = [%s]\n", k, strings.Join(vs, ", "))
	}
	fmt.Fprintf(&b, "%d cells × %d seeds = %d tasks; shard size %d → %d shards\n", s.Cells(), s.Seeds.Len(), s.Tasks(), s.ShardSize, s.Shards())
	fmt.Fprintf(&b, "columns: %s\n", strings.Join(p.Columns, ","))
	fmt.Fprintf(&b, "%-6s %-13s %s\n", "shard", "tasks", "work")
	for i := range s.Shards() {
		first, end, _ := s.ShardRange(i)
		fmt.Fprintf(&b, "%-6d %-13s %s\n", i, fmt.Sprintf("%d–%d (%d)", first, end-1, end-first), p.describeTasks(first, end))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// describeTasks summarises tasks [first, end): per cell, its seed range; a shard spanning more than
// maxParts cells shows the first and last few. Its cost grows with the cells shown, not the tasks.
func (p *Plan) describeTasks(first, end int) string {
	const maxParts = 6
	s := p.Spec
	n := s.Seeds.Len()
	part := func(i int) (string, int) {
		j := min(end, (i/n+1)*n) // the end of task i's cell within the shard
		t, _ := s.Task(i)
		seeds := fmt.Sprintf("seed %d", t.Seed)
		if j-i > 1 {
			seeds = fmt.Sprintf("seeds %d…%d (%d)", t.Seed, s.Seeds.At((j-1)%n), j-i)
		}
		if cell := s.CellLabel(t); cell != "" {
			seeds = cell + " " + seeds
		}
		return seeds, j
	}
	cells := (end-1)/n - first/n + 1
	var parts []string
	for i := first; i < end; {
		if len(parts) == maxParts-2 && cells > maxParts {
			parts = append(parts, fmt.Sprintf("… (%d cells in all)", cells))
			i = max(i, (end-1)/n*n) // the last cell
		}
		var d string
		d, i = part(i)
		parts = append(parts, d)
	}
	return strings.Join(parts, "; ")
}
