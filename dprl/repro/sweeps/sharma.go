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
	job            sharma.Job
	setup          sharma.SetupConfig
	learner        expertdp.LearnerConfig
	steps          int
	batch          int
	skipDuplicates bool
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
	if err := p.Known("env", "learner", "setting", "tag", "experts", "steps", "hidden", "batch", "per_expert", "bases", "experts_total", "setup_seed", "skip_duplicates"); err != nil {
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
	if t.setup.Experts, err = p.Int("experts_total", sharma.NumExperts, 1, 1_000_000); err != nil {
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
	// DP-SGD samples a batch of experts: no more than the job has (expertdp.TrainConfig checks the same at
	// run time, in every task).
	m := t.setup.Experts
	if j.Experts > 0 {
		m = j.Experts
	}
	if t.batch > m {
		return nil, check.Errorf("params.batch", float64(t.batch), "[1, %d] (a batch samples the job's m = %d experts: params.experts, else params.experts_total)", m, m)
	}
	perExpert := map[string]int{"cartpole": 4, "acrobot": 4, "lunarlander": 1, "hiv": 1}[j.Env]
	if t.setup.PerExpert, err = p.Int("per_expert", perExpert, 1, 100_000); err != nil {
		return nil, err
	}
	if t.setup.Bases, err = p.Int("bases", sharma.NumBases, 1, 100_000); err != nil {
		return nil, err
	}
	if t.setup.Seed, err = p.Uint64("setup_seed", sharmaSetupSeeds[j.Env]); err != nil {
		return nil, err
	}
	if v, ok := p["skip_duplicates"]; ok {
		b, isBool := v.(bool)
		if !isBool {
			val := fmt.Sprint(v)
			if str, isStr := v.(string); isStr {
				val = strconv.Quote(str)
			}
			return nil, &sweep.ValueError{Param: "params.skip_duplicates", Value: val, Allowed: "true or false"}
		}
		t.skipDuplicates = b
	}
	return &t, nil
}

// sharmaCols are sharma.OutcomeTable's columns without seed (the sweep writes the task's) and fraction (it
// needs the non-private runs of other tasks: sharma.Fraction computes it after merging).
var sharmaCols = func() []string {
	var cols []string
	for _, c := range sharma.OutcomeTable(nil).Columns {
		if c != "seed" && c != "fraction" {
			cols = append(cols, c)
		}
	}
	return cols
}()

var sharmaSetups cache[*sharma.Setup]

// SharmaJobs is one training job of Sharma et al.'s Figs. 3 and 4 (sharma.RunJobs with the task's seed as
// ExperimentConfig.Seed) on a setup of experts and logs built once per process (sharma.NewSetup with
// notebook 05's seeds), configured as the notebook's compared runs: the paper's split and Table 1's p for
// ours, δ = 1/m, DP-SGD steps calibrated with the exact mixture accounting (expertdp.AccountingMixed) to
// spend ε2 in exactly the given steps, DataRelease with each domain's public trajectory-length bound L.
// Params: env (cartpole, acrobot, lunarlander, hiv), learner (cql, bcq), setting ("nonprivate", "ours:ε"
// with the paper's split and p, "dpsgd:ε" expert-level DP-SGD), tag (fig3), experts (m, the first m
// experts; 0 all), steps (2000; the paper 10⁵), hidden (the learner's widths; 64×64, the paper 256×256),
// batch (128), per_expert (trajectories per expert; the notebook's 4/4/1/1, the paper 20), bases (30),
// experts_total (3000), setup_seed (100–103 by env), skip_duplicates (false; true: a cell "ours:ε" whose
// job is expert-level DP-SGD, the split giving ε1 = 0 and p = 1 as on CartPole, LunarLander and HIV at
// ε = 5, emits no row, since its runs are the cell "dpsgd:ε"'s, which the notebook uses for both). Rows:
// one, the job's outcome (sharma.OutcomeTable's columns without seed and fraction: sharmaCols), read back
// by sharma.OutcomesFromSweep; the fraction of the non-private return needs the baseline's rows and is
// computed after merging.
var SharmaJobs = sweep.Func{
	Cols: sharmaCols,
	Doc:  "Sharma et al. (Figs. 3, 4): one offline-RL training job (ours, expert-level DP-SGD or non-private; exact accounting) and its normalised return",
	Check: func(p sweep.Params) error {
		_, err := sharmaParams(p)
		return err
	},
	Do: func(p sweep.Params, seed uint64) ([][]string, error) {
		t, err := sharmaParams(p)
		if err != nil {
			return nil, err
		}
		if t.skipDuplicates && t.job.Method == sharma.Ours && t.job.Setting().Method == sharma.ExpertDPSGD {
			return nil, nil
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
		tb := sharma.OutcomeTable(out)
		row := make([]string, 0, len(sharmaCols))
		for k, c := range tb.Columns {
			if c != "seed" && c != "fraction" {
				row = append(row, tb.Rows[0][k])
			}
		}
		return [][]string{row}, nil
	},
}

func init() { sweep.Register("sharma/jobs", SharmaJobs) }
