package badinput_test

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/dprl-project/dprl/dprl/sweep"
)

// sweepRows are the sweep package's rows: specs whose counts would overflow, wrap or make planning
// unbounded, shards out of range, and engine options that would break the scripts and manifests.
func sweepRows(t *testing.T) []row {
	spec := func(seeds, grid string, shardSize string) func() error {
		return func() error {
			s, err := sweep.ParseSpec([]byte(fmt.Sprintf(`{"name": "b", "experiment": "sweep/demo", "grid": {%s}, "seeds": %s, "shard_size": %s}`, grid, seeds, shardSize)))
			if err != nil {
				return rel(s, err)
			}
			p, err := sweep.NewPlan(s)
			if err != nil {
				return rel(p, err)
			}
			return p.WritePlan(io.Discard)
		}
	}
	// 1000⁷ cells: the 64-bit product wraps to a small number, under which nothing would be validated.
	var axes []string
	for k := range 7 {
		vs := make([]string, 1000)
		for v := range vs {
			vs[v] = fmt.Sprint(v)
		}
		axes = append(axes, fmt.Sprintf(`"k%d": [%s]`, k, strings.Join(vs, ",")))
	}
	plan := func() *sweep.Plan {
		s, err := sweep.ParseSpec([]byte(`{"name": "b", "experiment": "sweep/demo", "grid": {"scale": [1, 2]}, "seeds": {"first": 0, "count": 3}, "shard_size": 2}`))
		if err != nil {
			t.Fatal(err)
		}
		p, err := sweep.NewPlan(s)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}()
	shardOf := func(v string) func() error {
		return func() error {
			_, _, _, err := sweep.ShardFromEnv(func(k string) string {
				if k == sweep.SlurmTaskEnv {
					return v
				}
				return ""
			}, 3)
			return err
		}
	}
	slurm := func(o sweep.SlurmOptions) func() error { return func() error { return rel(plan.Slurm(o)) } }
	k8s := func(o sweep.KubernetesOptions) func() error {
		return func() error { return rel(plan.KubernetesObjects(o)) }
	}
	return []row{
		{"sweep.ParseSpec/grid of 1000⁷ cells (wraps int64)", "grid cells", "1e+21", spec(`[1]`, strings.Join(axes, ","), "1")},
		{"sweep.ParseSpec/seeds.count=1e9+1", "seeds.count", "1.000000001e+09", spec(`{"first": 0, "count": 1000000001}`, "", "1")},
		{"sweep.ParseSpec/seeds.count=1e30", "seeds", "", spec(`{"first": 0, "count": 1e30}`, "", "1")},
		{"sweep.ParseSpec/seeds.count=-1", "seeds.count", "-1", spec(`{"first": 0, "count": -1}`, "", "1")},
		{"sweep.ParseSpec/seeds past 2⁶⁴−1", "seeds.first", "1.8446744073709552e+19", spec(`{"first": 18446744073709551615, "count": 2}`, "", "1")},
		{"sweep.ParseSpec/tasks=2e9", "tasks", "2e+09", spec(`{"first": 0, "count": 200000000}`, `"x": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]`, "1000")},
		{"sweep.ParseSpec/shards=2e6", "shards", "2e+06", spec(`{"first": 0, "count": 2000000}`, "", "1")},
		{"sweep.ParseSpec/shard_size=MaxInt64", "shard_size", "9.223372036854776e+18", spec(`[1]`, "", "9223372036854775807")},
		{"sweep.ParseSpec/shard_size=0", "shard_size", "0", spec(`[1]`, "", "0")},
		// A billion tasks whose last cell is invalid: planning validates every cell without listing the seeds.
		{"sweep.NewPlan/1e9 tasks, the last cell bad", "params.rows", "0", spec(`{"first": 0, "count": 100000000}`, `"rows": [1, 2, 3, 4, 5, 6, 7, 8, 9, 0]`, "1000")},
		{"sweep.Spec.ShardRange/shard=-1", "shard", "-1", func() error { _, _, err := plan.Spec.ShardRange(-1); return err }},
		{"sweep.Spec.Task/task=-1", "task", "-1", func() error { return rel(plan.Spec.Task(-1)) }},
		{"sweep.Plan.RunShard/shard=-1", "shard", "-1", func() error { return rel(plan.RunShard(-1, sweep.RunOptions{Dir: t.TempDir()})) }},
		{"sweep.Plan.RunShard/shard=3 of 3", "shard", "3", func() error { return rel(plan.RunShard(3, sweep.RunOptions{Dir: t.TempDir()})) }},
		{"sweep.Plan.RunShard/Dir empty", "Dir", "", func() error { return rel(plan.RunShard(0, sweep.RunOptions{})) }},
		{"sweep.ShardFromEnv/SLURM_ARRAY_TASK_ID=-1", sweep.SlurmTaskEnv, "-1", shardOf("-1")},
		{"sweep.ShardFromEnv/SLURM_ARRAY_TASK_ID=3 of 3", sweep.SlurmTaskEnv, "3", shardOf("3")},
		{"sweep.ShardFromEnv/SLURM_ARRAY_TASK_ID=x", sweep.SlurmTaskEnv, "x", shardOf("x")},
		{"sweep.ParseIndexList/8 of 8", "shards", "8", func() error { return rel(sweep.ParseIndexList("0-3,8", 8)) }},
		{"sweep.ParseIndexList/3-1", "shards", "3-1", func() error { return rel(sweep.ParseIndexList("3-1", 8)) }},
		{"sweep.Plan.Slurm/Dir with a newline", "Dir", "", slurm(sweep.SlurmOptions{Dir: "/a\n#SBATCH --x"})},
		{"sweep.Plan.Slurm/Dir with a backslash", "Dir", "", slurm(sweep.SlurmOptions{Dir: `/a\b`})},
		{"sweep.Plan.Slurm/Retries=-1", "Retries", "-1", slurm(sweep.SlurmOptions{Dir: "/a", Retries: -1})},
		{"sweep.Plan.Slurm/Grace=-1", "Grace", "-1", slurm(sweep.SlurmOptions{Dir: "/a", Grace: -1})},
		{"sweep.Plan.Slurm/Parallel=-1", "Parallel", "-1", slurm(sweep.SlurmOptions{Dir: "/a", Parallel: -1})},
		{"sweep.Plan.Slurm/Extra without a dash", "Extra", "account=x", slurm(sweep.SlurmOptions{Dir: "/a", Extra: []string{"account=x"}})},
		{"sweep.Plan.KubernetesObjects/Claim empty", "Claim", "", k8s(sweep.KubernetesOptions{})},
		{"sweep.Plan.KubernetesObjects/Retries=-1", "Retries", "-1", k8s(sweep.KubernetesOptions{Claim: "c", Retries: -1})},
		{"sweep.Plan.KubernetesObjects/MountPath relative", "MountPath", "results", k8s(sweep.KubernetesOptions{Claim: "c", MountPath: "results"})},
		{"sweep.Plan.KubernetesObjects/Image with a newline", "Image", "", k8s(sweep.KubernetesOptions{Claim: "c", Image: "a\nb"})},
		{"sweep.Status.AskEngine/engine=pbs", "engine", "pbs", func() error {
			dir := t.TempDir()
			if _, err := plan.RunShard(0, sweep.RunOptions{Dir: dir}); err != nil {
				return errors.Join(errors.New("fixture"), err)
			}
			st, err := sweep.ReadStatus(dir)
			if err != nil {
				return err
			}
			return st.AskEngine(t.Context(), sweep.EngineOptions{Engine: "pbs"})
		}},
	}
}
