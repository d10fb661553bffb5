// Package sweeps registers the reproduction packages' experiments with package sweep, one file per paper,
// so that `dprl sweep` can run the papers' main figures at full size sharded over a cluster. Each adapter
// turns one task — a grid cell's parameters and one seed — into tidy rows by calling the exported functions
// of its reproduction package; everything that does not depend on the seed (a domain's population moments,
// Xie et al.'s public step-size tuning, Sharma et al.'s experts and logs) is computed once per process and
// cached, deterministically, so every shard computes the same thing.
//
// Where the notebook draws run r from the stream rand.NewPCG(base, r), the adapter does the same with r the
// task's seed (Wang–Hegde), so seeds 0…k−1 of a sweep reproduce the notebook's runs exactly; where
// the reproduction package only runs trials 0…n−1 of one seed (Xie et al.'s Experiment, Sharma et al.'s
// RunJobs), a task runs trial 0 with the task's seed as the package's Seed.
//
// Experiments:
//
//	xie2019/mspbe        Xie et al. 2019, Figs. 1(a), 2(a), 3, 4: MSPBE against n per method and ε
//	wanghegde2019/returns Wang & Hegde 2019, Fig. 1: episode returns of one functional-noise Q-learning run and of the random policy
//	sharma/jobs          Sharma et al., Figs. 3 and 4: one training job's outcome
//	balle2016/rmse       Balle et al. 2016, Fig. 1: RMSE, excess risk and σ of every estimate at one m
package sweeps
