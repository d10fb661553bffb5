package sweep

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/dprl-project/dprl/dprl/param"
)

const check param.Checker = "sweep"

// ValueError is a bad value that is not a number (a string, a list, a missing field): it names the
// parameter, the value as given and what is allowed. It unwraps to a *param.Error, so callers test for every
// bad input alike with errors.As(err, new(*param.Error)).
type ValueError struct {
	Param   string // the parameter as the user spelled it, e.g. "experiment" or "params.domain"
	Value   string // the value given, quoted where it is a string
	Allowed string // what is allowed
}

// Error says which parameter, its value and what is allowed.
func (e *ValueError) Error() string {
	return fmt.Sprintf("sweep: %s = %s is not allowed: want %s", e.Param, e.Value, e.Allowed)
}

// Unwrap returns the equivalent *param.Error (its Value is NaN: the value is not a number).
func (e *ValueError) Unwrap() error {
	return &param.Error{Pkg: string(check), Param: e.Param, Value: math.NaN(), Allowed: e.Allowed + " (got " + e.Value + ")"}
}

func badValue(name string, v any, allowed string, args ...any) error {
	var s string
	switch x := v.(type) {
	case string:
		s = strconv.Quote(x)
	default:
		b, err := json.Marshal(x)
		if err != nil {
			s = fmt.Sprint(x)
		} else {
			s = string(b)
		}
	}
	return &ValueError{Param: name, Value: s, Allowed: fmt.Sprintf(allowed, args...)}
}

// Spec is a sweep: an experiment, its parameters and seeds, and how many tasks a shard runs. It is read
// from JSON (ParseSpec, ReadSpec); its canonical form (Canonical) and Hash identify it in every manifest.
type Spec struct {
	// Name names the sweep: its results live in build/sweeps/<Name>/ and sweeps/specs/<Name>.json holds the
	// checked-in spec. Letters, digits, '.', '_' and '-'.
	Name string `json:"name"`
	// Experiment is the registered experiment's name (see Register).
	Experiment string `json:"experiment"`
	// Description says what the sweep reproduces (the paper's figure, its size); it is part of the hash.
	Description string `json:"description,omitempty"`
	// Params are the parameters every task gets.
	Params Params `json:"params,omitempty"`
	// Grid maps each varied parameter to its values; the cells are the Cartesian product, keys in sorted
	// order with the first key varying slowest. A key may not also be in Params.
	Grid map[string][]any `json:"grid,omitempty"`
	// Seeds are the seeds each cell runs.
	Seeds Seeds `json:"seeds"`
	// ShardSize is the number of tasks per shard (the last shard may have fewer).
	ShardSize int `json:"shard_size"`
}

// Seeds is a list of seeds, written in JSON either as a list [1, 2, 3] or as a range
// {"first": 1, "count": 100} (first, first+1, …, first+count−1).
type Seeds struct {
	First uint64   // the first seed of a range
	Count int      // the number of seeds of a range (0 with List set)
	List  []uint64 // an explicit list (nil for a range)
}

// Values returns the seeds in order.
func (s Seeds) Values() []uint64 {
	if s.List != nil {
		return slices.Clone(s.List)
	}
	out := make([]uint64, s.Count)
	for i := range out {
		out[i] = s.First + uint64(i)
	}
	return out
}

// At returns seed k (k in [0, Len−1]) without listing the others.
func (s Seeds) At(k int) uint64 {
	if s.List != nil {
		return s.List[k]
	}
	return s.First + uint64(k)
}

// Len is the number of seeds.
func (s Seeds) Len() int {
	if s.List != nil {
		return len(s.List)
	}
	return s.Count
}

// MarshalJSON writes a range as {"first", "count"} and a list as a list.
func (s Seeds) MarshalJSON() ([]byte, error) {
	if s.List != nil {
		return json.Marshal(s.List)
	}
	return json.Marshal(struct {
		First uint64 `json:"first"`
		Count int    `json:"count"`
	}{s.First, s.Count})
}

// UnmarshalJSON reads either form.
func (s *Seeds) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '[' {
		var l []uint64
		if err := json.Unmarshal(b, &l); err != nil {
			return badValue("seeds", string(b), "a list of integers in [0, 2⁶⁴−1] or {\"first\": F, \"count\": N}")
		}
		*s = Seeds{List: l}
		if l == nil {
			s.List = []uint64{}
		}
		return nil
	}
	var r struct {
		First *uint64 `json:"first"`
		Count *int    `json:"count"`
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(&r); err != nil || r.Count == nil {
		return badValue("seeds", string(b), "a list of integers in [0, 2⁶⁴−1] or {\"first\": F, \"count\": N}")
	}
	*s = Seeds{Count: *r.Count}
	if r.First != nil {
		s.First = *r.First
	}
	return nil
}

// The limits of a spec. Beyond them planning (every cell is validated), writing the shards' files or an
// engine's array would not end in reasonable time or memory, and products of counts could overflow; Check
// refuses a spec that exceeds one with an error naming it.
const (
	MaxTasks  = 1_000_000_000 // tasks: grid cells × seeds
	MaxCells  = 1_000_000     // grid cells (the product of the grid's lengths)
	MaxShards = 1_000_000     // shards (⌈tasks / shard_size⌉)
)

var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)
var keyRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*$`)

// ParseSpec reads a spec from JSON (unknown fields are errors) and checks it (Check).
func ParseSpec(data []byte) (*Spec, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	d.DisallowUnknownFields()
	var s Spec
	if err := d.Decode(&s); err != nil {
		return nil, fmt.Errorf("sweep: reading the spec: %w", err)
	}
	if d.More() {
		return nil, fmt.Errorf("sweep: reading the spec: data after the spec's JSON object")
	}
	var err error
	if s.Params, err = canonicalParams(s.Params, "params"); err != nil {
		return nil, err
	}
	for k, vs := range s.Grid {
		for i, v := range vs {
			if vs[i], err = canonicalValue(v, fmt.Sprintf("grid.%s[%d]", k, i)); err != nil {
				return nil, err
			}
		}
	}
	if err := s.Check(); err != nil {
		return nil, err
	}
	return &s, nil
}

// ReadSpec reads and parses the spec file at path.
func ReadSpec(path string) (*Spec, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	s, err := ParseSpec(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// Check reports the first problem of the spec: a bad name, no experiment, an empty grid axis, a key in both
// Params and Grid, no seeds, repeated seeds or grid values, a seed range past 2⁶⁴ − 1, a shard size below 1,
// or more cells, tasks or shards than MaxCells, MaxTasks and MaxShards allow. Whether the experiment exists
// and accepts the parameters is NewPlan's business.
func (s *Spec) Check() error {
	if !nameRE.MatchString(s.Name) {
		return badValue("name", s.Name, "names of letters, digits, '.', '_' and '-' starting with a letter or digit")
	}
	if s.Experiment == "" {
		return check.Missing("experiment", "the name of a registered experiment (dprl sweep list)")
	}
	for k := range s.Params {
		if !keyRE.MatchString(k) {
			return badValue("params key", k, "identifiers [A-Za-z][A-Za-z0-9_]*")
		}
	}
	for _, k := range s.GridKeys() {
		if !keyRE.MatchString(k) || k == "seed" {
			return badValue("grid key", k, "identifiers [A-Za-z][A-Za-z0-9_]* other than \"seed\"")
		}
		if len(s.Grid[k]) == 0 {
			return check.Missing("grid."+k, "at least one value")
		}
		if _, ok := s.Params[k]; ok {
			return badValue("grid key", k, "keys not also in params (a parameter is either fixed or varied)")
		}
		seen := map[string]bool{}
		for _, v := range s.Grid[k] {
			f := FormatValue(v)
			if seen[f] {
				return badValue("grid."+k, v, "distinct values (this one is repeated)")
			}
			seen[f] = true
		}
	}
	if s.Seeds.List != nil && len(s.Seeds.List) == 0 {
		return check.Missing("seeds", "at least one seed")
	}
	if s.Seeds.List == nil {
		if err := check.Int("seeds.count", s.Seeds.Count, 1, MaxTasks); err != nil {
			return err
		}
	}
	if s.Seeds.List == nil && s.Seeds.First > math.MaxUint64-uint64(s.Seeds.Count-1) {
		return check.Errorf("seeds.first", float64(s.Seeds.First), "[0, 2⁶⁴ − seeds.count] (the last seed, first + count − 1, must fit in 64 bits)")
	}
	seen := make(map[uint64]bool, len(s.Seeds.List))
	for _, v := range s.Seeds.List {
		if seen[v] {
			return check.Errorf("seeds", float64(v), "distinct seeds (this one is repeated)")
		}
		seen[v] = true
	}
	cells := 1.0 // a float: the product is checked before any integer product could wrap
	for _, vs := range s.Grid {
		cells *= float64(len(vs))
	}
	if cells > MaxCells {
		return check.Errorf("grid cells", cells, "[1, %d] (the product of the grid's lengths; every cell is validated when planning)", MaxCells)
	}
	if tasks := cells * float64(s.Seeds.Len()); tasks > MaxTasks {
		return check.Errorf("tasks", tasks, "[1, %d] (grid cells × seeds = %d × %d)", MaxTasks, int(cells), s.Seeds.Len())
	}
	if err := check.Int("shard_size", s.ShardSize, 1, MaxTasks); err != nil {
		return err
	}
	if n := s.Shards(); n > MaxShards {
		return check.Errorf("shards", float64(n), "[1, %d] (⌈%d tasks / shard_size %d⌉: raise shard_size)", MaxShards, s.Tasks(), s.ShardSize)
	}
	return nil
}

// GridKeys returns the grid's keys in their canonical (sorted) order.
func (s *Spec) GridKeys() []string {
	keys := make([]string, 0, len(s.Grid))
	for k := range s.Grid {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Canonical is the spec's canonical JSON: fields in a fixed order, map keys sorted, numbers in their
// shortest form (1.0 and 1 are the same), strings without HTML escaping, no insignificant space, a final
// newline.
func (s *Spec) Canonical() []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // "&" stays "&"
	if err := enc.Encode(s); err != nil {
		panic(err) // every value is canonical: strings, numbers, bools, lists and maps of them
	}
	var out bytes.Buffer
	if err := json.Compact(&out, b.Bytes()); err != nil {
		panic(err)
	}
	out.WriteByte('\n')
	return out.Bytes()
}

// Hash is the hex SHA-256 of the canonical spec.
func (s *Spec) Hash() string {
	h := sha256.Sum256(s.Canonical())
	return hex.EncodeToString(h[:])
}

// Cells is the number of grid cells (1 for an empty grid). On a spec that has not passed Check the product
// saturates at math.MaxInt instead of wrapping.
func (s *Spec) Cells() int {
	n := 1
	for _, vs := range s.Grid {
		n = mulSat(n, len(vs))
	}
	return n
}

// Tasks is the number of tasks: cells times seeds (saturating, as Cells).
func (s *Spec) Tasks() int { return mulSat(s.Cells(), s.Seeds.Len()) }

// Shards is the number of shards: ⌈Tasks / ShardSize⌉ (0 for a shard size below 1).
func (s *Spec) Shards() int {
	if s.ShardSize < 1 {
		return 0
	}
	t := s.Tasks()
	return t/s.ShardSize + min(t%s.ShardSize, 1)
}

// mulSat is a·b for a, b ≥ 0, or math.MaxInt when that overflows.
func mulSat(a, b int) int {
	if a < 0 || b < 0 {
		return 0
	}
	if b != 0 && a > math.MaxInt/b {
		return math.MaxInt
	}
	return a * b
}

// ShardRange is the tasks [first, end) of shard i; i outside [0, Shards−1] is an error.
func (s *Spec) ShardRange(i int) (first, end int, err error) {
	if err := check.Int("shard", i, 0, s.Shards()-1); err != nil {
		return 0, 0, err
	}
	first = i * s.ShardSize // < Tasks: no overflow
	return first, first + min(s.ShardSize, s.Tasks()-first), nil
}

// Task is one unit of work: a grid cell and a seed.
type Task struct {
	Index  int      // position in the task list
	Cell   int      // the grid cell's index
	Seed   uint64   // the seed
	Params Params   // the spec's Params and the cell's grid values
	Values []string // the cell's grid values formatted (FormatValue), in GridKeys order
}

// Task returns task i of the task list (i in [0, Tasks−1]). Its cost does not grow with the number of seeds
// or cells (it is linear in the number of parameters).
func (s *Spec) Task(i int) (Task, error) {
	if err := check.Int("task", i, 0, s.Tasks()-1); err != nil {
		return Task{}, err
	}
	n := s.Seeds.Len()
	t := Task{Index: i, Cell: i / n, Seed: s.Seeds.At(i % n), Params: make(Params, len(s.Params)+len(s.Grid))}
	for k, v := range s.Params {
		t.Params[k] = v
	}
	keys := s.GridKeys()
	rest := t.Cell
	t.Values = make([]string, len(keys))
	for j := len(keys) - 1; j >= 0; j-- { // the last key varies fastest
		vs := s.Grid[keys[j]]
		v := vs[rest%len(vs)]
		rest /= len(vs)
		t.Params[keys[j]] = v
		t.Values[j] = FormatValue(v)
	}
	return t, nil
}

// CellLabel describes a task's cell as "k1=v1 k2=v2" (empty without a grid).
func (s *Spec) CellLabel(t Task) string {
	var parts []string
	for j, k := range s.GridKeys() {
		parts = append(parts, k+"="+t.Values[j])
	}
	return strings.Join(parts, " ")
}

// canonicalParams canonicalises every value of p.
func canonicalParams(p Params, where string) (Params, error) {
	var err error
	for k, v := range p {
		if p[k], err = canonicalValue(v, where+"."+k); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// canonicalValue turns JSON numbers into int64 (integers that fit) or float64, recursively in lists and
// objects.
func canonicalValue(v any, where string) (any, error) {
	switch x := v.(type) {
	case json.Number:
		if i, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return i, nil
		}
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil || math.IsInf(f, 0) {
			return nil, badValue(where, string(x), "finite numbers")
		}
		if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
			return int64(f), nil
		}
		return f, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			c, err := canonicalValue(e, fmt.Sprintf("%s[%d]", where, i))
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			c, err := canonicalValue(e, where+"."+k)
			if err != nil {
				return nil, err
			}
			out[k] = c
		}
		return out, nil
	case nil:
		return nil, check.Missing(where, "a value (null is not one)")
	case int:
		return int64(x), nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, check.In(where, x, param.Finite)
		}
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return int64(x), nil
		}
		return x, nil
	}
	return v, nil
}

// FormatValue formats a parameter value the way result tables show it: strings as they are, numbers in
// their shortest round-trip form, anything else as compact JSON.
func FormatValue(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case int64:
		return strconv.FormatInt(x, 10)
	case int:
		return strconv.Itoa(x)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
