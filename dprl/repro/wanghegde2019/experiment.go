package wanghegde2019

import (
	"math/rand/v2"

	"github.com/dprl-project/dprl/dprl/experiment"
	"github.com/dprl-project/dprl/dprl/fnq"
	"github.com/dprl-project/dprl/envs"
)

// Setting is one labelled learner for ReturnCurves: Run trains it once on a fresh environment from src.
type Setting struct {
	Name string
	Run  func(env envs.Env, src rand.Source) (*fnq.Result, error)
}

// ReturnCurves runs every setting for each of seeds seeds on its own fresh Wang–Hegde environment, in
// parallel, and returns the episode returns as [setting][seed][episode]. Seed s gives every setting the same
// stream rand.NewPCG(seed, s) (common random numbers), so the results do not depend on the number of workers.
func ReturnCurves(settings []Setting, seeds int, seed uint64, progress experiment.Progress) ([][][]float64, error) {
	flat, err := experiment.Trials(len(settings)*seeds, 0, seed, progress, func(i int, _ rand.Source) ([]float64, error) {
		env, err := envs.Make("wanghegde")
		if err != nil {
			return nil, err
		}
		res, err := settings[i/seeds].Run(env, rand.NewPCG(seed, uint64(i%seeds)))
		if err != nil {
			return nil, err
		}
		return res.Returns, nil
	})
	if err != nil {
		return nil, err
	}
	out := make([][][]float64, len(settings))
	for i, r := range flat {
		out[i/seeds] = append(out[i/seeds], r)
	}
	return out, nil
}
