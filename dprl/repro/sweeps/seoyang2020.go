package sweeps

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/dprl-project/dprl/dprl/actorcritic"
	"github.com/dprl-project/dprl/dprl/param"
	"github.com/dprl-project/dprl/dprl/repro/seoyang2020"
	"github.com/dprl-project/dprl/dprl/sweep"
)

type seoTask struct {
	domain              seoyang2020.Domain
	condition           string
	cfg                 actorcritic.Config
	baseSeed, otherSeed uint64
	cosines             bool
}

func seoParams(p sweep.Params) (*seoTask, error) {
	if err := p.Known("domain", "variant", "epsilon", "episodes", "base_seed", "other_seed", "cosines"); err != nil {
		return nil, err
	}
	name, err := p.OneOf("domain", "", "mdp100", "taxi")
	if err != nil {
		return nil, err
	}
	var t seoTask
	if t.condition, err = p.OneOf("variant", "", seoyang2020.Conditions()...); err != nil {
		return nil, err
	}
	if t.domain, err = seoyang2020.DomainNamed(name); err != nil {
		return nil, err
	}
	def := t.domain.Base.Epsilon
	if t.condition == seoyang2020.Corrected {
		def = seoyang2020.CorrectedEpsilons[0]
	}
	eps, err := p.Float("epsilon", def, param.Positive)
	if err != nil {
		return nil, err
	}
	episodes, err := p.Int("episodes", 500, 1, 10_000_000)
	if err != nil {
		return nil, err
	}
	if t.cfg, err = t.domain.Config(t.condition, eps, episodes); err != nil {
		return nil, err
	}
	if t.baseSeed, err = p.Uint64("base_seed", seoyang2020.Seed); err != nil {
		return nil, err
	}
	if t.otherSeed, err = p.Uint64("other_seed", seoyang2020.OtherSeed); err != nil {
		return nil, err
	}
	if v, ok := p["cosines"]; ok {
		b, isBool := v.(bool)
		if !isBool {
			return nil, check.OneOf("params.cosines", sweep.FormatValue(v), "true", "false")
		}
		t.cosines = b
	}
	return &t, nil
}

// SeoYangReturns is one run of one of notebook 06's conditions (seoyang2020.Conditions, configured by
// seoyang2020.Domain.Config: Table 2's settings) on a domain of seoyang2020.Domains: run r = the task's seed
// draws from rand.NewPCG(base_seed, r), as run r of Domain.RunMany(cfg, runs, base_seed) does, so seeds 0…9
// are the notebook's default runs; the condition non-dp-other-seed is Non-DP drawn from
// rand.NewPCG(other_seed, r) instead. Params: domain (mdp100, taxi), variant (non-dp, dp-actor, dp-critic,
// dp-both, random, corrected, non-dp-other-seed), epsilon (the published variants' per-step ε, default 10;
// the corrected variant's whole-run ε per patient, default 100), episodes (500), base_seed (2020),
// other_seed (2021), cosines (false). Rows: one per episode: its return and length, the episode the weights
// diverged at (−1 if never) and the corrected variant's noisy releases in the run (Episodes·H; 0 for the
// others), enough for seoyang2020.Summarize and Domain.Finals; with cosines, also the cosine of the run's
// end-of-episode traces e_u and e_v with those of the Non-DP run of the same seed from base_seed (Fig. 4,
// Table 4; that run is made in the task as well), else NaN.
var SeoYangReturns = sweep.Func{
	Cols: []string{"episode", "return", "length", "diverged_at", "releases", "cos_u", "cos_v"},
	Doc:  "Seo & Yang 2020 (Figs. 2–4, Tables 3–4, corrected variant): per-episode returns of one actor-critic run, run index = seed",
	Check: func(p sweep.Params) error {
		_, err := seoParams(p)
		return err
	},
	Do: func(p sweep.Params, seed uint64) ([][]string, error) {
		t, err := seoParams(p)
		if err != nil {
			return nil, err
		}
		base := t.baseSeed
		if t.condition == seoyang2020.NonDPOtherSeed {
			base = t.otherSeed
		}
		c := t.cfg
		c.RecordTraces = t.cosines
		r, err := t.domain.Run(c, rand.NewPCG(base, seed))
		if err != nil {
			return nil, err
		}
		if c.Variant == actorcritic.Corrected && r.Releases != c.Episodes*c.MaxEpisodeLen {
			return nil, fmt.Errorf("seoyang2020/returns: the corrected run made %d releases, its accounting assumes %d", r.Releases, c.Episodes*c.MaxEpisodeLen)
		}
		cosU, cosV := make([]float64, c.Episodes), make([]float64, c.Episodes)
		for i := range cosU {
			cosU[i], cosV[i] = math.NaN(), math.NaN()
		}
		if t.cosines {
			non := r
			if t.condition != seoyang2020.NonDP {
				nc, err := t.domain.Config(seoyang2020.NonDP, 0, c.Episodes)
				if err != nil {
					return nil, err
				}
				nc.RecordTraces = true
				if non, err = t.domain.Run(nc, rand.NewPCG(t.baseSeed, seed)); err != nil {
					return nil, err
				}
			}
			cosU, cosV = seoyang2020.EpisodeCosines(r.TraceU, non.TraceU, c.Episodes), seoyang2020.EpisodeCosines(r.TraceV, non.TraceV, c.Episodes)
		}
		out := make([][]string, len(r.Returns))
		for i, ret := range r.Returns {
			length := 0
			if i < len(r.Lengths) {
				length = r.Lengths[i]
			}
			out[i] = []string{strconv.Itoa(i + 1), strconv.FormatFloat(ret, 'g', -1, 64), strconv.Itoa(length), strconv.Itoa(r.DivergedAt),
				strconv.Itoa(r.Releases), strconv.FormatFloat(cosU[i], 'g', -1, 64), strconv.FormatFloat(cosV[i], 'g', -1, 64)}
		}
		return out, nil
	},
}

func init() { sweep.Register("seoyang2020/returns", SeoYangReturns) }
