package sweep

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/dprl-project/dprl/dprl/param"
)

// Experiment is what a sweep runs: for one task's parameters and seed, the rows of a tidy table with the
// columns Columns names. Run must be deterministic given (params, seed) — seed streams derived from the seed,
// never from the shard or the time — and safe for concurrent calls (a shard runs several tasks at once).
type Experiment interface {
	Columns() []string
	Run(p Params, seed uint64) ([][]string, error)
}

// Validator is implemented by experiments that check a task's parameters before anything runs (NewPlan
// checks every cell), so a misspelt parameter fails at plan time and not in shard 97.
type Validator interface {
	Validate(p Params) error
}

// Describer is implemented by experiments that describe themselves for `dprl sweep list`.
type Describer interface {
	Describe() string
}

// Func is an Experiment made of functions.
type Func struct {
	Cols  []string                                        // the columns
	Doc   string                                          // a one-line description
	Check func(p Params) error                            // optional parameter check (Validate)
	Do    func(p Params, seed uint64) ([][]string, error) // one task
}

// Columns returns Cols.
func (f Func) Columns() []string { return f.Cols }

// Run calls Do.
func (f Func) Run(p Params, seed uint64) ([][]string, error) { return f.Do(p, seed) }

// Validate calls Check when set.
func (f Func) Validate(p Params) error {
	if f.Check == nil {
		return nil
	}
	return f.Check(p)
}

// Describe returns Doc.
func (f Func) Describe() string { return f.Doc }

var (
	regMu    sync.RWMutex
	registry = map[string]Experiment{}
)

// Register makes an experiment available to specs under name; registering a name twice, an empty name or a
// nil experiment panics (registration happens in init functions).
func Register(name string, e Experiment) {
	regMu.Lock()
	defer regMu.Unlock()
	if name == "" || e == nil {
		panic("sweep: Register needs a name and an experiment")
	}
	if _, dup := registry[name]; dup {
		panic("sweep: experiment " + strconv.Quote(name) + " registered twice")
	}
	registry[name] = e
}

// Lookup returns the experiment registered under name, or an error listing the registered names.
func Lookup(name string) (Experiment, error) {
	regMu.RLock()
	e, ok := registry[name]
	regMu.RUnlock()
	if !ok {
		return nil, badValue("experiment", name, "the registered experiments {%s}", strings.Join(Experiments(), ", "))
	}
	return e, nil
}

// Experiments returns the registered names, sorted.
func Experiments() []string {
	regMu.RLock()
	defer regMu.RUnlock()
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Demo is the experiment registered as "sweep/demo": synthetic rows that need no reproduction package, for
// examples, tests and trying an engine out. Params: rows (rows per task, default 3, in [1, 10⁶]), scale
// (default 1) and delay (seconds of sleep per task, default 0, in [0, 3600]: to watch progress or kill a
// shard mid-run). Row k of seed s is (k, x, y) with x = scale·U and y = x² for U the k-th uniform draw of
// rand.NewPCG(s, 0).
var Demo = Func{
	Cols: []string{"k", "x", "y"},
	Doc:  "synthetic rows (k, x, y = x²) from the seed; params rows, scale, delay (seconds)",
	Check: func(p Params) error {
		_, _, _, err := demoParams(p)
		return err
	},
	Do: func(p Params, seed uint64) ([][]string, error) {
		rows, scale, delay, err := demoParams(p)
		if err != nil {
			return nil, err
		}
		time.Sleep(time.Duration(delay * float64(time.Second)))
		rng := rand.New(rand.NewPCG(seed, 0))
		out := make([][]string, rows)
		for k := range out {
			x := scale * rng.Float64()
			out[k] = []string{strconv.Itoa(k), strconv.FormatFloat(x, 'g', -1, 64), strconv.FormatFloat(x*x, 'g', -1, 64)}
		}
		return out, nil
	},
}

func demoParams(p Params) (rows int, scale, delay float64, err error) {
	if err = p.Known("rows", "scale", "delay"); err != nil {
		return
	}
	if rows, err = p.Int("rows", 3, 1, 1_000_000); err != nil {
		return
	}
	if scale, err = p.Float("scale", 1, param.Finite); err != nil {
		return
	}
	if delay, err = p.Float("delay", 0, param.Interval{Lo: 0, Hi: 3600, LoClosed: true, HiClosed: true}); err != nil {
		return
	}
	return
}

func init() { Register("sweep/demo", Demo) }
