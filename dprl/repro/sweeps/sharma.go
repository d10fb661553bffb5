package sweeps

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dprl-project/dprl/dprl/expertdp"
	"github.com/dprl-project/dprl/dprl/param"
	"github.com/dprl-project/dprl/dprl/repro/sharma"
	"github.com/dprl-project/dprl/dprl/sweep"
)

// sharmaSetupSeeds are notebook 05's setup seeds (100 + the environment's position in its list).
var sharmaSetupSeeds = map[string]uint64{"cartpole": 100, "acrobot": 101, "lunarlander": 102, "hiv": 103}

type sharmaTask struct {
	job     sharma.Job
	setup   sharma.SetupConfig
	learner expertdp.LearnerConfig
	steps   int
	batch   int
}

func (t *sharmaTask) setupKey() string {
	return fmt.Sprintf("%s/%d/%d/%d/%d", t.job.Env, t.setup.Bases, t.setup.Experts, t.setup.PerExpert, t.setup.Seed)
}

// parseSetting reads "nonprivate", "ours:EPS" or "dpsgd:EPS".
func parseSetting(s string) (sharma.Method, float64, error) {
	bad := badSetting(s)
	name, eps, hasEps := strings.Cut(s, ":")
	var m sharma.Method
	switch name {
	case "nonprivate":
		if hasEps {
			return 0, 0, bad
		}
		return sharma.NonPrivate, 0, nil
	case "ours":
		m = sharma.Ours
	case "dpsgd":
		m = sharma.ExpertDPSGD
	default:
		return 0, 0, bad
	}
	e, err := strconv.ParseFloat(eps, 64)
	if !hasEps || err != nil {
		return 0, 0, bad
	}
	return m, e, check.In("params.setting ε", e, param.Positive)
}

func badSetting(s string) error {
	return &sweep.ValueError{Param: "params.setting", Value: strconv.Quote(s), Allowed: `{"nonprivate", "ours:ε", "dpsgd:ε"} with ε > 0`}
}

func sharmaParams(p sweep.Params) (*sharmaTask, error) {
	if err := p.Known("env", "learner", "setting", "tag", "experts", "steps", "hidden", "batch", "per_expert", "bases", "experts_total", "setup_seed"); err != nil {
		return nil, err
	}
	var t sharmaTask
	var err error
	j := &t.job
	if j.Env, err = p.OneOf("env", "", "cartpole", "acrobot", "lunarlander", "hiv"); err != nil {
		return nil, err
	}
	learner, err := p.OneOf("learner", "cql", "cql", "bcq")
	if err != nil {
		return nil, err
	}
	j.Algorithm = expertdp.CQL
	if learner == "bcq" {
		j.Algorithm = expertdp.BCQ
	}
	setting, err := p.String("setting", "", true)
	if err != nil {
		return nil, err
	}
	if j.Method, j.Epsilon, err = parseSetting(setting); err != nil {
		return nil, err
	}
	if j.Tag, err = p.String("tag", "fig3", false); err != nil {
		return nil, err
	}
	if t.setup.Experts, err = p.Int("experts_total", 3000, 1, 1_000_000); err != nil {
		return nil, err
	}
	if j.Experts, err = p.Int("experts", 0, 0, t.setup.Experts); err != nil {
		return nil, err
	}
	if j.Method == sharma.Ours {
		j.Split = sharma.PaperSplit(j.Env, j.Epsilon, 1, false)
		j.P = sharma.PaperP(j.Env, j.Algorithm, j.Epsilon)
	}
	if t.steps, err = p.Int("steps", 2000, 1, 100_000_000); err != nil {
		return nil, err
	}
	if t.learner.Hidden, err = p.Ints("hidden", nil, 1, 100_000); err != nil {
		return nil, err
	}
	if t.batch, err = p.Int("batch", 128, 1, 1_000_000); err != nil {
		return nil, err
	}
	perExpert := map[string]int{"cartpole": 4, "acrobot": 4, "lunarlander": 1, "hiv": 1}[j.Env]
	if t.setup.PerExpert, err = p.Int("per_expert", perExpert, 1, 100_000); err != nil {
		return nil, err
	}
	if t.setup.Bases, err = p.Int("bases", 30, 1, 100_000); err != nil {
		return nil, err
	}
	if t.setup.Seed, err = p.Uint64("setup_seed", sharmaSetupSeeds[j.Env]); err != nil {
		return nil, err
	}
	return &t, nil
}

var sharmaSetups cache[*sharma.Setup]

// SharmaJobs is one training job of Sharma et al.'s Figs. 3 and 4 (sharma.RunJobs with the task's seed as
// ExperimentConfig.Seed) on a setup of experts and logs built once per process (sharma.NewSetup with
// notebook 05's seeds). Params: env (cartpole, acrobot, lunarlander, hiv), learner (cql, bcq), setting
// ("nonprivate", "ours:ε" with the paper's split and p, "dpsgd:ε" expert-level DP-SGD), tag (fig3),
// experts (m, the first m experts; 0 all), steps (2000; the paper 10⁵), hidden (the learner's widths; 64×64,
// the paper 256×256), batch (128), per_expert (trajectories per expert; the notebook's 4/4/1/1, the paper
// 20), bases (30), experts_total (3000), setup_seed (100–103 by env). Rows: one, the job's outcome
// (sharma.OutcomeTable's columns without seed and fraction, plus note); the fraction of the non-private
// return needs the baseline's rows and is computed after merging.
var SharmaJobs = sweep.Func{
	Cols: []string{"tag", "env", "learner", "method", "epsilon", "eps1", "eps2", "p", "m", "stable", "steps", "private_steps", "s", "eps2_spent", "return", "normalized", "note"},
	Doc:  "Sharma et al. (Figs. 3, 4): one offline-RL training job (ours, expert-level DP-SGD or non-private) and its normalised return",
	Check: func(p sweep.Params) error {
		_, err := sharmaParams(p)
		return err
	},
	Do: func(p sweep.Params, seed uint64) ([][]string, error) {
		t, err := sharmaParams(p)
		if err != nil {
			return nil, err
		}
		st, err := sharmaSetups.get(t.setupKey(), func() (*sharma.Setup, error) { return sharma.NewSetup(t.job.Env, t.setup) })
		if err != nil {
			return nil, err
		}
		out, err := sharma.RunJobs(map[string]*sharma.Setup{t.job.Env: st}, []sharma.Job{t.job},
			sharma.ExperimentConfig{Learner: t.learner, Batch: t.batch, Steps: t.steps, Seed: seed, Workers: 1})
		if err != nil {
			return nil, err
		}
		o := out[0]
		f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
		return [][]string{{o.Tag, o.Env, o.Algorithm.String(), o.Method.String(), f(o.Epsilon), f(o.Split.Eps1), f(o.Split.Eps2), f(o.P),
			strconv.Itoa(o.Experts), strconv.Itoa(o.Stable), strconv.Itoa(o.Steps), strconv.Itoa(o.Private), f(o.S), f(o.Eps2),
			f(o.Return), f(o.Normalized), o.Note}}, nil
	},
}

func init() { sweep.Register("sharma/jobs", SharmaJobs) }
