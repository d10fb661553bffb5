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

type sharmaTask struct {
	job            sharma.Job
	setup          sharma.SetupConfig
	learner        expertdp.LearnerConfig
	steps          int
	batch          int
	skipDuplicates bool
	duplicate      bool // the cell's run is another usual cell's (skipped with skip_duplicates)
}

func (t *sharmaTask) setupKey() string {
	return fmt.Sprintf("%s/%d/%d/%d/%d", t.job.Env, t.setup.Bases, t.setup.Experts, t.setup.PerExpert, t.setup.Seed)
}

// sharmaSettings are the settings a cell can run, with their ε.
var sharmaSettings = `{"nonprivate", "untrained", "ours:ε", "dpsgd:ε", "fallback:ε", "stableonly:ε"} with ε > 0`

// parseSetting reads a setting of sharmaSettings: the method's name and its ε (0 for nonprivate and
// untrained).
func parseSetting(s string) (string, float64, error) {
	bad := &sweep.ValueError{Param: "params.setting", Value: strconv.Quote(s), Allowed: sharmaSettings}
	name, eps, hasEps := strings.Cut(s, ":")
	switch name {
	case "nonprivate", "untrained":
		if hasEps {
			return "", 0, bad
		}
		return name, 0, nil
	case "ours", "dpsgd", "fallback", "stableonly":
	default:
		return "", 0, bad
	}
	e, err := strconv.ParseFloat(eps, 64)
	if !hasEps || err != nil {
		return "", 0, bad
	}
	return name, e, check.In("params.setting ε", e, param.Positive)
}

// sharmaJob is the job of setting name at ε on env with alg, and whether another usual cell runs it: ours
// on CartPole, LunarLander and HIV at ε = 5 is expert-level DP-SGD (calibrated noise); fallback and
// stableonly are ours where the paper's split is theirs.
func sharmaJob(name, env string, alg expertdp.Algorithm, eps float64, noise sharma.Noise) (j sharma.Job, duplicate bool) {
	ours := sharma.OursJob(env, alg, eps)
	ours.Noise = noise
	switch name {
	case "nonprivate":
		return sharma.Job{Env: env, Algorithm: alg, Method: sharma.NonPrivate}, false
	case "untrained":
		return sharma.Job{Env: env, Algorithm: alg, Method: sharma.Untrained}, false
	case "ours":
		return ours, ours.Setting().Method == sharma.ExpertDPSGD
	case "dpsgd":
		j = sharma.BaselineJob(env, alg, eps, ours.Split)
		j.Noise = noise
		return j, false
	case "fallback":
		j = sharma.FallbackJob(env, alg, eps)
	default:
		j = sharma.StableOnlyJob(env, alg, eps)
	}
	j.Noise = noise
	return j, j.Setting() == ours.Setting()
}

func sharmaParams(p sweep.Params) (*sharmaTask, error) {
	if err := p.Known("env", "learner", "setting", "tag", "experts", "steps", "hidden", "batch", "per_expert", "bases", "experts_total", "setup_seed",
		"skip_duplicates", "noise", "primary_noise"); err != nil {
		return nil, err
	}
	var t sharmaTask
	var err error
	j := &t.job
	env, err := p.OneOf("env", "", "cartpole", "acrobot", "lunarlander", "hiv")
	if err != nil {
		return nil, err
	}
	learner, err := p.OneOf("learner", "cql", "cql", "bcq")
	if err != nil {
		return nil, err
	}
	alg := expertdp.CQL
	if learner == "bcq" {
		alg = expertdp.BCQ
	}
	noises := map[string]sharma.Noise{"calibrated": sharma.NoiseCalibrated, "paper": sharma.NoisePaper}
	noise, err := p.OneOf("noise", "calibrated", "calibrated", "paper")
	if err != nil {
		return nil, err
	}
	primary, err := p.OneOf("primary_noise", noise, "calibrated", "paper")
	if err != nil {
		return nil, err
	}
	setting, err := p.String("setting", "", true)
	if err != nil {
		return nil, err
	}
	name, eps, err := parseSetting(setting)
	if err != nil {
		return nil, err
	}
	*j, t.duplicate = sharmaJob(name, env, alg, eps, noises[noise])
	if noise != primary {
		// A run without DP-SGD steps is the same in both regimes: the primary cell makes it.
		other := *j
		other.Noise = noises[primary]
		t.duplicate = t.duplicate || other.Setting() == j.Setting()
	}
	if j.Tag, err = p.String("tag", "fig3", false); err != nil {
		return nil, err
	}
	if noise != primary {
		j.Tag += "/alt"
	}
	if t.setup.Experts, err = p.Int("experts_total", sharma.NumExperts, 1, 1_000_000); err != nil {
		return nil, err
	}
	if j.Experts, err = p.Int("experts", 0, 0, t.setup.Experts); err != nil {
		return nil, err
	}
	if t.steps, err = p.Int("steps", 1000, 1, 100_000_000); err != nil {
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
	def := sharma.NewConfig(false)
	perExpert := 0
	for _, s := range def.Sizes {
		if s.Env == env {
			perExpert = s.PerExpert
		}
	}
	if t.setup.PerExpert, err = p.Int("per_expert", perExpert, 1, 100_000); err != nil {
		return nil, err
	}
	if t.setup.Bases, err = p.Int("bases", sharma.NumBases, 1, 100_000); err != nil {
		return nil, err
	}
	if t.setup.Seed, err = p.Uint64("setup_seed", sharma.SetupSeed(env)); err != nil {
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

// sharmaCols are sharma.OutcomeTable's columns without seed (the sweep writes the task's).
var sharmaCols = func() []string {
	var cols []string
	for _, c := range sharma.OutcomeTable(nil).Columns {
		if c != "seed" {
			cols = append(cols, c)
		}
	}
	return cols
}()

var sharmaSetups cache[*sharma.Setup]

// SharmaJobs is one run of Sharma et al.'s Figs. 3 and 4 (sharma.RunJobs with the task's seed as
// ExperimentConfig.Seed) on a setup of experts and logs built once per process (sharma.NewSetup with
// notebook 05's seeds, sharma.SetupSeed), configured as the notebook's runs: δ = 1/m, DP-SGD steps under
// the exact mixture accounting, DataRelease with each domain's public trajectory-length bound L.
// Params: env (cartpole, acrobot, lunarlander, hiv), learner (cql, bcq), setting ("nonprivate"; "untrained",
// the initial network; "ours:ε", the paper's split, Table 1's p and the fallback to DP-SGD; "dpsgd:ε",
// expert-level DP-SGD at the certified (ε, δ) of ours:ε; "fallback:ε", App. B.3's 3/4 split with Table 1's p
// and the fallback; "stableonly:ε", D_stable alone with the whole budget released), noise ("calibrated": s
// spends the budget in exactly the given steps; "paper": the paper's s until the budget is spent or the
// steps, a cap), primary_noise (the figure's regime, by default noise: a run in the other regime is tagged
// tag + "/alt", the alternative its claims' robust column reports), tag (fig3), experts (m, the first m
// experts; 0 all), steps (1000; the paper 10⁵ and more), hidden (the learner's widths; 64×64, the paper
// 256×256), batch (128), per_expert (trajectories per expert; the notebook's 4/4/1/1, the paper 20), bases
// (30), experts_total (3000), setup_seed (sharma.SetupSeed), skip_duplicates (false; true: a cell whose run
// another usual cell makes emits no row: ours:ε that is expert-level DP-SGD, as on CartPole, LunarLander and
// HIV at ε = 5 with calibrated noise, fallback:ε or stableonly:ε that is ours:ε, and a run without DP-SGD
// steps in the regime that is not the primary one). Rows: one, the run's
// outcome (sharma.OutcomeTable's columns without seed: sharmaCols), read back by sharma.OutcomesFromSweep.
var SharmaJobs = sweep.Func{
	Cols: sharmaCols,
	Doc:  "Sharma et al. (Figs. 3, 4): one offline-RL run (ours, expert-level DP-SGD at ours' certificate, non-private or untrained; exact accounting) and its normalised return",
	Check: func(p sweep.Params) error {
		_, err := sharmaParams(p)
		return err
	},
	Do: func(p sweep.Params, seed uint64) ([][]string, error) {
		t, err := sharmaParams(p)
		if err != nil {
			return nil, err
		}
		if t.skipDuplicates && t.duplicate {
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
			if c != "seed" {
				row = append(row, tb.Rows[0][k])
			}
		}
		return [][]string{row}, nil
	},
}

func init() { sweep.Register("sharma/jobs", SharmaJobs) }
