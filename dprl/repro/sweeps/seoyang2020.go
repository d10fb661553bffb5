package sweeps

import (
	"math/rand/v2"
	"strconv"

	"github.com/dprl-project/dprl/dprl/actorcritic"
	"github.com/dprl-project/dprl/dprl/param"
	"github.com/dprl-project/dprl/dprl/repro/seoyang2020"
	"github.com/dprl-project/dprl/dprl/sweep"
	"github.com/dprl-project/dprl/envs"
)

var seoVariants = map[string]actorcritic.Variant{
	"non-dp": actorcritic.NonDP, "dp-actor": actorcritic.DPActor, "dp-critic": actorcritic.DPCritic, "dp-both": actorcritic.DPBoth,
}

type seoTask struct {
	domain   seoyang2020.Domain
	cfg      actorcritic.Config
	baseSeed uint64
}

func seoParams(p sweep.Params) (*seoTask, error) {
	if err := p.Known("domain", "variant", "epsilon", "episodes", "base_seed"); err != nil {
		return nil, err
	}
	name, err := p.OneOf("domain", "", "mdp100", "taxi")
	if err != nil {
		return nil, err
	}
	v, err := p.OneOf("variant", "", "non-dp", "dp-actor", "dp-critic", "dp-both")
	if err != nil {
		return nil, err
	}
	var t seoTask
	for _, d := range seoyang2020.Domains() {
		if d.Name == name {
			t.domain = d
		}
	}
	t.cfg = t.domain.Base
	t.cfg.Variant = seoVariants[v]
	if t.cfg.Epsilon, err = p.Float("epsilon", t.cfg.Epsilon, param.Positive); err != nil {
		return nil, err
	}
	if t.cfg.Episodes, err = p.Int("episodes", 500, 1, 10_000_000); err != nil {
		return nil, err
	}
	if t.baseSeed, err = p.Uint64("base_seed", 2020); err != nil {
		return nil, err
	}
	return &t, nil
}

// SeoYangReturns is one run of Seo and Yang's actor-critic on a domain of seoyang2020.Domains (Table 2's
// settings) with a variant: run r = the task's seed draws from rand.NewPCG(base_seed, r), as run r of
// Domain.RunMany(cfg, runs, base_seed) does, so seeds 0…4 are notebook 06's five default runs. Params:
// domain (mdp100, taxi), variant (non-dp, dp-actor, dp-critic, dp-both), epsilon (10), episodes (500),
// base_seed (2020). Rows: one per episode (its return, length, and the episode the weights diverged at, −1
// if never), enough for seoyang2020.Summarize.
var SeoYangReturns = sweep.Func{
	Cols: []string{"episode", "return", "length", "diverged_at"},
	Doc:  "Seo & Yang 2020 (Fig. 2, Table 3): per-episode returns of one actor-critic run, run index = seed",
	Check: func(p sweep.Params) error {
		_, err := seoParams(p)
		return err
	},
	Do: func(p sweep.Params, seed uint64) ([][]string, error) {
		t, err := seoParams(p)
		if err != nil {
			return nil, err
		}
		env, err := envs.Make(t.domain.Name)
		if err != nil {
			return nil, err
		}
		c := t.cfg
		c.Src = rand.NewPCG(t.baseSeed, seed)
		r, err := actorcritic.Run(env, envs.TabularFeatures{N: t.domain.NumStates}, c)
		if err != nil {
			return nil, err
		}
		out := make([][]string, len(r.Returns))
		for i, ret := range r.Returns {
			length := 0
			if i < len(r.Lengths) {
				length = r.Lengths[i]
			}
			out[i] = []string{strconv.Itoa(i + 1), strconv.FormatFloat(ret, 'g', -1, 64), strconv.Itoa(length), strconv.Itoa(r.DivergedAt)}
		}
		return out, nil
	},
}

func init() { sweep.Register("seoyang2020/returns", SeoYangReturns) }
