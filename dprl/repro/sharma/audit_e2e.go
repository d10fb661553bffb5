package sharma

import (
	"fmt"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/dprl-project/dprl/dprl/audit"
	"github.com/dprl-project/dprl/dprl/expertdp"
	"github.com/dprl-project/dprl/dprl/param"
	"github.com/dprl-project/dprl/envs"
)

// End-to-end audit of Sharma et al.'s pipeline: DataRelease over all its rounds, then Selective DP-SGD
// (expertdp.Train) on what it released, with the budget split (ε1, δ1) + (ε2, δ2) of Theorem 5.6 and
// expert-level neighbours (one expert, with its demonstrations, added or removed).
//
// The setting (E2ESetting) is CartPole with m = 2000 experts that all balance the pole the same way, so a
// demonstration's prefix has count m·0.98^k while its actions are greedy, above E[θ̂] ≈ 1230 for about 24
// steps; the log holds one greedy demonstration from each of four experts, and DataRelease examines all
// T = 4 (at ε1 = 3, δ1 = 0.9/m). The neighbour adds a canary expert that always pushes left, with its own
// greedy demonstration: no other expert would produce it (they disagree with it from the first steps on), so
// its prefixes are never stable.
//
// The adversary sees the released stable set D_stable (a post-processing of the release, which Theorem 5.6
// composes with the training) and the trained model; its statistic is the number of stable demonstrations
// (then, to break ties, the stable transitions).
//
//   - as the notebook runs it (DataRelease on the fixed log): with the canary in the log, one of the T
//     examined demonstrations is the canary's (probability 4/5 here), that round releases nothing, and
//     D_stable has three demonstrations instead of four. Without it, an empty round needs the sparse vector's
//     noise to push a count of 0.98·m below E[θ̂], about 10⁻⁸. The analysis treats every examined
//     demonstration as a fresh draw from the experts; a fixed log lets one expert's own demonstration be
//     examined with a probability (T/|log|) that no δ covers.
//   - corrected (what the analysis models): every round examines a fresh rollout of an expert drawn
//     uniformly (p_min-mixed, as the log's data are generated); D_unst for the training is the log. The canary
//     is then drawn with probability 1/(m + 1) per round, and the other experts' rollouts also stop early
//     (a first action off the greedy one has probability p_min): the release stays far below the claim.

// E2ESetting is the end-to-end audit's configuration.
type E2ESetting struct {
	M          int     // experts in input 0 (the canary makes m + 1)
	Demos      int     // demonstrations in the log, one from each of the first Demos experts; T = Demos
	PMin       float64 // the experts' minimum action probability
	Eps1, Eps2 float64 // the split (ε1, ε2); δ1 = 0.9/M, δ2 = 0.1/M as in the paper (δ = 1/m)
	P          float64 // probability of a private step
	Batch      int     // b
	Steps      int     // training steps
	Hidden     []int   // the learner's hidden layers
}

// DefaultE2ESetting is the audited configuration: m = 2000, four demonstrations, p_min = 0.02, ε1 = 3,
// ε2 = 1 (the paper's 3/4 split of ε = 4), p = 0.5, b = 64, 20 training steps of a 16-unit CQL learner.
func DefaultE2ESetting() E2ESetting {
	return E2ESetting{M: 2000, Demos: 4, PMin: PMin, Eps1: 3, Eps2: 1, P: 0.5, Batch: 64, Steps: 20, Hidden: []int{16}}
}

// Delta is the claim's δ = δ1 + δ2 = 1/M.
func (s E2ESetting) Delta() float64 { return 1 / float64(s.M) }

// e2ePair is the neighbouring inputs: the expert sets and logs without and with the canary.
type e2ePair struct {
	s       E2ESetting
	dom     *expertdp.Domain
	experts [2]*expertdp.Experts
	logs    [2]*expertdp.Data
}

// balancer and pushLeft are the experts' parameters (CartPole's linear experts score action a on
// ((obs − shift)/scale, 1) with weights a·5 … a·5 + 4): the m experts push right when the pole leans or turns
// right; the canary always pushes left.
func balancer(row []float64) { row[5+2], row[5+3] = 1, 0.5 }
func pushLeft(row []float64) { row[4] = 1 }

// rollout is one episode of expert i of e (p_min-mixed; pMin = 0: greedy) on the domain's default
// environment, cut at the demonstration length, with its start and moves from rng.
func rollout(e *expertdp.Experts, i int, pMin float64, rng *rand.Rand) (expertdp.Traj, error) {
	d := e.Domain
	env := d.Env(d.Default, d.DemoLen)
	pol := e.MixedPolicy(i, pMin)
	probs := make([]float64, d.NumActions)
	obs, err := env.Reset(rand.NewPCG(rng.Uint64(), rng.Uint64()))
	if err != nil {
		return expertdp.Traj{}, err
	}
	t := expertdp.Traj{Expert: i, Obs: append([]float64(nil), obs...)}
	for {
		a := envs.Act(pol, obs, rng, probs)
		r, err := env.Step(a)
		if err != nil {
			return expertdp.Traj{}, err
		}
		t.Actions, t.Rewards, t.Obs = append(t.Actions, a), append(t.Rewards, r.Reward), append(t.Obs, r.Obs...)
		obs = r.Obs
		if r.Terminated || r.Truncated {
			t.Terminated = r.Terminated
			return t, nil
		}
	}
}

// newE2EPair builds the experts and the logs: the first Demos experts' greedy demonstrations (seeds
// (1, i)), and in input 1 also the canary's (expert M).
func newE2EPair(s E2ESetting) (*e2ePair, error) {
	if err := checkE2E(s); err != nil {
		return nil, err
	}
	dom := expertdp.CartPoleDomain()
	p := &e2ePair{s: s, dom: dom}
	for nb := range 2 {
		n := s.M + nb
		e := &expertdp.Experts{Domain: dom, Params: mat.NewDense(n, dom.NumParams, nil)}
		for i := range s.M {
			balancer(e.Params.RawRowView(i))
		}
		if nb == 1 {
			pushLeft(e.Params.RawRowView(s.M))
		}
		log := &expertdp.Data{ObsDim: dom.ObsDim, NumActions: dom.NumActions, Experts: n}
		demos := make([]int, 0, s.Demos+1)
		for i := range s.Demos {
			demos = append(demos, i)
		}
		if nb == 1 {
			demos = append(demos, s.M)
		}
		for _, i := range demos {
			t, err := rollout(e, i, 0, rand.New(rand.NewPCG(1, uint64(i))))
			if err != nil {
				return nil, err
			}
			log.Trajs = append(log.Trajs, t)
		}
		p.experts[nb], p.logs[nb] = e, log
	}
	return p, nil
}

// checkE2E checks the setting's fields, naming them.
func checkE2E(s E2ESetting) error {
	return param.First(check.Int("M", s.M, 10, 100_000), check.Int("Demos", s.Demos, 1, s.M),
		check.In("Eps1", s.Eps1, param.Positive), check.In("Eps2", s.Eps2, param.Positive),
		check.In("P", s.P, param.Interval{Lo: 0, Hi: 1, HiClosed: true}), check.Int("Batch", s.Batch, 1, s.M),
		check.Int("Steps", s.Steps, 1, 1_000_000), check.In("PMin", s.PMin, param.Interval{Lo: 0, Hi: 0.5, HiClosed: true}))
}

// procedure is the audited pipeline on input nb: the release (fresh draws or the fixed log), the training,
// and the statistic on D_stable.
func (p *e2ePair) procedure(fresh bool, acc expertdp.Accounting) audit.Procedure {
	s := p.s
	delta1, delta2 := 0.9/float64(s.M), 0.1/float64(s.M)
	name := "Sharma pipeline, fixed log"
	if fresh {
		name = "Sharma pipeline, fresh draws"
	}
	return audit.Procedure{Name: name, Run: func(nb int, src rand.Source) (float64, error) {
		rng := rand.New(src)
		e, log := p.experts[nb], p.logs[nb]
		rp := expertdp.ReleaseParams{Epsilon: s.Eps1, Delta: delta1, PMin: s.PMin, T: s.Demos, Src: rand.NewPCG(rng.Uint64(), rng.Uint64())}
		data := log
		var rel *expertdp.Release
		if !fresh {
			var err error
			if rel, err = expertdp.DataRelease(log, e, rp); err != nil {
				return 0, err
			}
		} else {
			// T fresh rollouts of uniformly drawn experts; D_stable from them, D_unst the whole log.
			draws := &expertdp.Data{ObsDim: log.ObsDim, NumActions: log.NumActions, Experts: log.Experts}
			for range s.Demos {
				t, err := rollout(e, rng.IntN(e.Len()), s.PMin, rng)
				if err != nil {
					return 0, err
				}
				draws.Trajs = append(draws.Trajs, t)
			}
			r, err := expertdp.DataRelease(draws, e, rp)
			if err != nil {
				return 0, err
			}
			data = &expertdp.Data{ObsDim: log.ObsDim, NumActions: log.NumActions, Experts: log.Experts,
				Trajs: append(append([]expertdp.Traj(nil), log.Trajs...), draws.Trajs...)}
			rel = r.PrependLog(log)
		}
		cfg := expertdp.TrainConfig{Learner: expertdp.LearnerConfig{Hidden: s.Hidden}, P: s.P, Batch: s.Batch, Epsilon: s.Eps2, Delta: delta2,
			Accounting: acc, MaxSteps: s.Steps, EvalEpisodes: 1, Seed: rng.Uint64()}
		if _, err := expertdp.Train(data, rel, p.dom, cfg); err != nil {
			return 0, err
		}
		return float64(len(rel.Stable())) + float64(rel.StableTransitions())/1e6, nil
	}}
}

// E2ETargets are the end-to-end rows of the tight audit table (see the comment above E2ESetting): the
// corrected pipeline (fresh draws, mixture accounting), valid, and the pipeline as the notebook runs it
// (fixed log, the paper's accounting), which the audit catches. Both claim (ε1 + ε2, 1/m). The privacy loss
// is discrete and mixed, not Gaussian: threshold test only.
func E2ETargets(s E2ESetting) ([]audit.Target, error) {
	p, err := newE2EPair(s)
	if err != nil {
		return nil, err
	}
	nb := fmt.Sprintf("add/remove one expert with its demonstration (m = %d experts, %d demonstrations in the log; the canary pushes left)", s.M, s.Demos)
	eps := s.Eps1 + s.Eps2
	c, err := expertdp.Constants(s.Eps1, 0.9/float64(s.M), s.PMin, s.Demos, p.dom.DemoLen)
	if err != nil {
		return nil, err
	}
	detail := fmt.Sprintf("T = %d rounds (ε′ = %.3f, E[θ̂] = %.0f), then %d steps of Selective DP-SGD (p = %g, b = %d)", s.Demos, c.EpsPrime, c.MeanThreshold(), s.Steps, s.P, s.Batch)
	return []audit.Target{
		{Mechanism: "Sharma et al. pipeline end to end (DataRelease + Selective DP-SGD), corrected", Neighbours: nb,
			Variant: "corrected: examined demonstrations drawn fresh", Holds: true, Epsilon: eps, Delta: s.Delta(),
			Method: audit.MethodThreshold, Procedure: p.procedure(true, expertdp.AccountingMixed), Runs: 500,
			Note: detail + "; every round rolls out a uniformly drawn expert, as the analysis models: the canary is drawn with probability 1/(m+1)"},
		{Mechanism: "Sharma et al. pipeline end to end, as the notebook runs it", Neighbours: nb,
			Variant: "published: DataRelease examines the fixed log", Epsilon: eps, Delta: s.Delta(),
			Method: audit.MethodThreshold, Procedure: p.procedure(false, expertdp.AccountingPaper), Runs: 800,
			Note: detail + "; the canary's own demonstration is examined with probability T/|log| and its round releases nothing"},
	}, nil
}
