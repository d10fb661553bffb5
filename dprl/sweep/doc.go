// Package sweep shards an experiment grid over the batch engines people already have (Slurm job arrays,
// a Kubernetes Indexed Job, or a plain loop), resumes what was interrupted and merges the shards into the
// table that one process would have written, byte for byte. It is not a scheduler: it writes the scripts
// and manifests the engines run, and each engine task runs one shard.
//
// A Spec names a registered Experiment, its fixed Params, a Grid of varied parameters and the Seeds. The
// tasks are the grid's cells (keys in sorted order, the first key varying slowest) times the seeds, in that
// order; a shard is a contiguous slice of ShardSize tasks. Every task's work depends on its parameters and
// seed alone, never on the shard it falls in, so any sharding merges to the same bytes. A spec is limited
// to MaxCells cells, MaxTasks tasks and MaxShards shards (checked before any product could overflow), and
// Spec.Task costs the same whatever the number of seeds, so planning is linear in the cells and shards.
//
// RunShard appends each finished task's rows to the shard's checkpoint (one record per task, with its
// SHA-256, synced), so a shard killed, timed out or stopped resumes after its last finished task; a
// cancelled RunOptions.Context (SIGTERM in the dprl command) stops it after the running tasks, checkpointed.
// When every task is done it writes the shard's tidy rows (CSV: the grid keys, "seed", then the
// experiment's columns) and then its Manifest (spec hash, module version and commit, seeds, row count, the
// CSV's SHA-256, attempts, resumed tasks and failures), each through a temporary file and a rename, the
// manifest last: a shard without a manifest, or whose CSV no longer matches its checksum, is not complete.
// A complete shard is skipped when the array is run again. Merge refuses missing, duplicate, foreign
// (another spec's) and corrupted shards by name, leaves files it does not own alone (naming them), then
// writes merged.csv and merged.json; WaitMerge waits for the shards first. ReadStatus summarises a results
// directory, and Status.AskEngine adds what squeue or kubectl say (running, pending, failed, cancelled).
//
// Slurm writes a bash script that submits the shards as job arrays no larger than the site's MaxArraySize
// with one merge job after them, every site option on every job, that retries failed shards, requeues a
// shard warned of its time limit, and runs the shards with srun inside an allocation; Resubmit and Cancel
// act on the jobs it recorded. Kubernetes writes an Indexed Job and a merge Job.
//
// The command dprl (github.com/dprl-project/dprl/dprl/cmd/dprl) wraps all of this; the reproduction
// experiments are registered by package github.com/dprl-project/dprl/dprl/repro/sweeps, which this package
// does not import. Notebooks read a merged result with LoadMerged.
//
// Bad input (a shard index out of range, an unknown experiment, a parameter of the wrong type, a spec past
// a limit, a path a script cannot hold) is an error naming the parameter, its value and the allowed range,
// as a *param.Error (string values are wrapped by *ValueError, which unwraps to one).
package sweep
