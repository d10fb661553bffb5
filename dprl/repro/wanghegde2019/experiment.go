package wanghegde2019

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/dprl-project/dprl/dprl/experiment"
	"github.com/dprl-project/dprl/dprl/fnq"
	"github.com/dprl-project/dprl/dprl/repro"
	"github.com/dprl-project/dprl/envs"
)

// Setting is one labelled learner: Run trains it once on a fresh environment from src; Privacy is what that
// run certifies.
type Setting struct {
	Name    string
	Privacy Privacy
	Run     func(env envs.Env, src rand.Source) (*fnq.Result, error)
}

// Legend is the setting's name with its privacy label, as the figures show it.
func (s Setting) Legend() string { return s.Name + " [" + s.Privacy.Label() + "]" }

// Seed is the seed of every learning curve: seed s of every setting draws from rand.NewPCG(Seed, s).
const Seed = 2019

// RunSettings runs every setting for each of seeds seeds on its own fresh Wang–Hegde environment, in
// parallel (experiment.Trials), and returns every episode return as a tidy Runs table. Seed s gives every
// setting the same stream rand.NewPCG(seed, s) (common random numbers), so the results do not depend on the
// number of workers and settings are paired by seed.
func RunSettings(settings []Setting, seeds int, seed uint64, progress experiment.Progress) (*Runs, error) {
	flat, err := experiment.Trials(len(settings)*seeds, 0, seed, progress, func(i int, _ rand.Source) (*fnq.Result, error) {
		env, err := envs.Make("wanghegde")
		if err != nil {
			return nil, err
		}
		return settings[i/seeds].Run(env, rand.NewPCG(seed, uint64(i%seeds)))
	})
	if err != nil {
		return nil, err
	}
	r := &Runs{Table: experiment.Table{Columns: RunColumns}, Settings: settings, Seeds: repro.FirstRunSeeds(seed, seeds)}
	for i, res := range flat {
		r.add(settings[i/seeds].Name, uint64(i%seeds), res.Returns, divergedCell(res.Diverged))
	}
	return r, nil
}

// ReturnCurves runs the settings as RunSettings does and returns the episode returns as
// [setting][seed][episode].
func ReturnCurves(settings []Setting, seeds int, seed uint64, progress experiment.Progress) ([][][]float64, error) {
	r, err := RunSettings(settings, seeds, seed, progress)
	if err != nil {
		return nil, err
	}
	out := make([][][]float64, len(settings))
	for i, s := range settings {
		if out[i], err = r.Returns(s.Name); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Protocol sizes the learning-curve experiments (Fig. 1, Fig. 2 and the ε sweep).
type Protocol struct {
	Seeds    int // runs per setting; the paper uses 10
	Episodes int // episodes of 50 samples per run of the DQN-based learners; the paper uses 100
}

// DefaultProtocol is the paper's 10 seeds of 100 episodes (quick mode: 2 seeds of 40 episodes).
func DefaultProtocol() Protocol {
	return Protocol{Seeds: experiment.Size(10, 2), Episodes: experiment.Size(100, 40)}
}

// CodeAgent is the functional-noise learner in the authors' code configuration (fnq.Config's defaults: DQN
// with replay, β = 1) with path noise sigma, paths reset every resetEvery episodes (−1: never). σ = 0 is the
// non-private DQN, chosen explicitly (a private method refuses σ = 0). No σ > 0 has a privacy guarantee here
// (Theorem 5 does not cover this configuration).
func CodeAgent(name string, sigma float64, resetEvery, episodes int) Setting {
	p := noGuarantee(codeConfigWhy)
	if sigma == 0 {
		p = nonPrivate("the non-private DQN of the authors' code")
	}
	return Setting{Name: name, Privacy: p, Run: func(env envs.Env, src rand.Source) (*fnq.Result, error) {
		cfg := fnq.Config{Method: fnq.FunctionalNoise, Sigma: sigma, ResetEvery: resetEvery, Episodes: episodes, Src: src}
		if sigma == 0 {
			cfg.Method = fnq.NonPrivate
		}
		return fnq.Run(env, cfg)
	}}
}

// RandomPolicy is the trivial reference: uniformly random actions for episodes episodes of at most 50 steps.
// It reads no reward, so it is 0-DP.
func RandomPolicy(episodes int) Setting {
	return Setting{Name: RandomName, Privacy: dataFree, Run: func(env envs.Env, src rand.Source) (*fnq.Result, error) {
		rng := rand.New(src)
		res := &fnq.Result{}
		for range episodes {
			if _, err := env.Reset(rand.NewPCG(rng.Uint64(), rng.Uint64())); err != nil {
				return nil, err
			}
			ret := 0.0
			for t := 1; ; t++ {
				st, err := env.Step(rng.IntN(env.NumActions()))
				if err != nil {
					return nil, err
				}
				res.Samples++
				ret += st.Reward
				if st.Terminated || st.Truncated || t >= 50 {
					break
				}
			}
			res.Returns = append(res.Returns, ret)
		}
		return res, nil
	}}
}

// RandomName is the random policy's setting name.
const RandomName = "random policy"

// alg1Setting runs Algorithm 1 with cfg and checks that the library's own guarantee agrees with p. A run
// whose network diverged (Result.Diverged) is kept and counted; any other run must end within the
// calibration's Lipschitz bound.
func alg1Setting(name string, p Privacy, cfg fnq.SpecifiedConfig) Setting {
	return Setting{Name: name, Privacy: p, Run: func(env envs.Env, src rand.Source) (*fnq.Result, error) {
		c := cfg
		c.Src = src
		r, err := fnq.RunSpecified(env, c)
		if err != nil {
			return nil, err
		}
		if !r.WithinL && !r.Diverged {
			return nil, fmt.Errorf("wanghegde2019: the trained network's Lipschitz bound %.3g exceeds the calibration's L = %g", r.FinalL, c.L)
		}
		if r.Guaranteed != p.Guarantee || p.Guarantee && math.Abs(r.EpsilonExact-p.Epsilon) > 1e-9*p.Epsilon {
			return nil, fmt.Errorf("wanghegde2019: %s: the run certifies guarantee %v at ε = %g, the label says %v at %g", name, r.Guaranteed, r.EpsilonExact, p.Guarantee, p.Epsilon)
		}
		return &r.Result, nil
	}}
}
