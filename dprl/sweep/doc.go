// Package sweep shards an experiment grid over the batch engines people already have (a Slurm job array,
// a Kubernetes Indexed Job, or a plain loop), resumes what was interrupted and merges the shards into the
// table that one process would have written, byte for byte. It is not a scheduler: it writes the scripts
// and manifests the engines run, and each engine task runs one shard.
//
// A Spec names a registered Experiment, its fixed Params, a Grid of varied parameters and the Seeds. The
// tasks are the grid's cells (keys in sorted order, the first key varying slowest) times the seeds, in that
// order; a shard is a contiguous slice of ShardSize tasks. Every task's work depends on its parameters and
// seed alone, never on the shard it falls in, so any sharding merges to the same bytes.
//
// RunShard writes a shard's tidy rows (CSV: the grid keys, "seed", then the experiment's columns) and then
// its Manifest (spec hash, module version and commit, seeds, row count, the CSV's SHA-256), each through a
// temporary file and a rename, the manifest last: a shard without a manifest, or whose CSV no longer
// matches its checksum, is not complete. A complete shard is skipped when the array is run again. Merge
// refuses missing, duplicate, foreign (another spec's) and corrupted shards by name, then writes merged.csv
// and merged.json; Status summarises a results directory. Slurm and Kubernetes write a self-submitting
// sbatch script (job array plus a dependent merge job) and an Indexed Job manifest.
//
// The command dprl (github.com/dprl-project/dprl/dprl/cmd/dprl) wraps all of this; the reproduction
// experiments are registered by package github.com/dprl-project/dprl/dprl/repro/sweeps, which this package
// does not import. Notebooks read a merged result with LoadMerged.
//
// Bad input (a shard index out of range, an unknown experiment, a parameter of the wrong type) is an error
// naming the parameter, its value and the allowed range, as a *param.Error (string values are wrapped by
// *ValueError, which unwraps to one).
package sweep
