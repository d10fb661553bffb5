package sweep_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/dprl-project/dprl/dprl/sweep"
)

// Shard a small grid of the built-in demo experiment, run the shards (as a job array would), merge, and
// check the merged table against a single-process run.
func Example() {
	spec, err := sweep.ParseSpec([]byte(`{
		"name": "example",
		"experiment": "sweep/demo",
		"params": {"rows": 2},
		"grid": {"scale": [1, 100]},
		"seeds": {"first": 1, "count": 3},
		"shard_size": 4
	}`))
	if err != nil {
		panic(err)
	}
	plan, err := sweep.NewPlan(spec)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%d tasks in %d shards\n", spec.Tasks(), spec.Shards())

	dir, _ := os.MkdirTemp("", "sweep-example")
	defer os.RemoveAll(dir)
	for i := range spec.Shards() { // one engine task each
		if _, err := plan.RunShard(i, sweep.RunOptions{Dir: dir}); err != nil {
			panic(err)
		}
	}
	m, err := sweep.Merge(dir, "")
	if err != nil {
		panic(err)
	}
	merged, _ := os.ReadFile(filepath.Join(dir, sweep.MergedFile))

	var one bytes
	if err := plan.RunAll(&one, sweep.RunOptions{}); err != nil {
		panic(err)
	}
	fmt.Printf("merged %d rows; identical to one process: %v\n", m.Rows, string(merged) == string(one))
	lines := strings.SplitAfter(string(merged), "\n")
	fmt.Print(lines[0] + lines[1] + lines[12])
	// Output:
	// 6 tasks in 2 shards
	// merged 12 rows; identical to one process: true
	// scale,seed,k,x,y
	// 1,1,0,0.23842319087387442,0.05684561794647996
	// 100,3,1,41.54135174516615,1725.683904815619
}

// bytes is a minimal io.Writer collecting what is written.
type bytes []byte

func (b *bytes) Write(p []byte) (int, error) { *b = append(*b, p...); return len(p), nil }
