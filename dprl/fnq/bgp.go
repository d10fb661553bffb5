package fnq

import (
	"math/rand/v2"

	"gonum.org/v1/gonum/floats"

	"github.com/dprl-project/dprl/dprl/param"
	"github.com/dprl-project/dprl/dprl/policyeval"
	"github.com/dprl-project/dprl/envs"
	"github.com/dprl-project/dprl/mechanisms"
)

// BGPConfig is the output-perturbation baseline of Wang & Hegde's Fig. 2 (BGP16, package doc, "Baselines"): the
// state interval is cut into Bins bins, every Every episodes DP-LSL (Balle et al.) estimates Q on the
// (bin, action) pairs from the first-visit returns of the episodes since the last estimate, and the agent
// acts ε-greedily on it. Its privacy is about trajectories, not reward functions, so it is NOT differentially
// private in Wang & Hegde's neighbouring model (and its repeated releases are not composed): it is a utility
// reference only.
type BGPConfig struct {
	Episodes, Bins, Every int     // 100, 20, 10
	Gamma                 float64 // 0.999
	Epsilon, Delta        float64 // DP-LSL's (ε, δ) per release; ε ∈ (0, 1], where the smooth-sensitivity constants hold
	Explore               float64 // ε-greedy probability: 0.1
	LSLC                  float64 // λ schedule constant (λ = ‖Φ‖²_F‖ρ‖∞ + c·m^0.4): 100
	// ReturnBound is the public bound F on |return| that DP-LSL's sensitivity rests on; it has no default
	// and must be set (25 is the E.1 MDP's maximum: 50 steps of reward at most 0.5).
	ReturnBound float64
	// MaxEpisodeLen cuts an episode after this many steps, so an environment without a time limit cannot
	// make a run endless: 50, the E.1 MDP's horizon.
	MaxEpisodeLen int
	Src           rand.Source
}

// RunBGP16 trains the baseline on a one-dimensional environment with states in [0, 1].
func RunBGP16(env envs.Env, cfg BGPConfig) (*Result, error) {
	orDefault(&cfg.Episodes, 100)
	orDefault(&cfg.Bins, 20)
	orDefault(&cfg.Every, 10)
	orDefault(&cfg.Gamma, 0.999)
	orDefault(&cfg.Explore, 0.1)
	orDefault(&cfg.LSLC, 100)
	orDefault(&cfg.MaxEpisodeLen, 50)
	if cfg.Src == nil {
		return nil, check.Missing("Src", "an explicit rand.Source for every run")
	}
	if err := param.First(check.AtLeast("Episodes", cfg.Episodes, 1), check.AtLeast("Bins", cfg.Bins, 1),
		check.AtLeast("Every", cfg.Every, 1), check.In("Gamma", cfg.Gamma, param.Probability),
		check.In("Explore", cfg.Explore, param.Probability), check.In("LSLC", cfg.LSLC, param.NonNegative),
		check.AtLeast("MaxEpisodeLen", cfg.MaxEpisodeLen, 1),
		check.In("Epsilon", cfg.Epsilon, mechanisms.SmoothEpsilonRange), check.In("Delta", cfg.Delta, param.OpenUnit),
		check.In("ReturnBound", cfg.ReturnBound, param.Positive)); err != nil {
		return nil, err
	}
	if env == nil {
		return nil, check.Missing("env", "an environment")
	}
	if err := check.AtLeast("env.NumActions()", env.NumActions(), 1); err != nil {
		return nil, err
	}
	m := env.NumActions()
	n := cfg.Bins * m
	prob := &policyeval.Problem{Phi: policyeval.StateAggregation(n, 1), Rho: policyeval.UniformWeights(n), FMax: cfg.ReturnBound, FRange: cfg.ReturnBound}
	bin := func(s float64) int { return min(cfg.Bins-1, max(0, int(s*float64(cfg.Bins)))) }
	rng := rand.New(cfg.Src)
	Q := make([]float64, n)
	res := &Result{}
	var batch [][]step
	for ep := range cfg.Episodes {
		obs, err := env.Reset(rand.NewPCG(rng.Uint64(), rng.Uint64()))
		if err != nil {
			return nil, err
		}
		s := obs[0]
		var traj []step
		ret := 0.0
		for t := 1; ; t++ {
			var a int
			if rng.Float64() < cfg.Explore {
				a = rng.IntN(m)
			} else {
				a = floats.MaxIdx(Q[bin(s)*m : (bin(s)+1)*m])
			}
			st, err := env.Step(a)
			if err != nil {
				return nil, err
			}
			res.Samples++
			ret += st.Reward
			traj = append(traj, step{bin(s)*m + a, st.Reward})
			s = st.Obs[0]
			if st.Terminated || st.Truncated || t >= cfg.MaxEpisodeLen {
				break
			}
		}
		res.Returns = append(res.Returns, ret)
		batch = append(batch, traj)
		if (ep+1)%cfg.Every != 0 {
			continue
		}
		sig, err := firstVisit(batch, n, cfg.Gamma)
		if err != nil {
			return nil, err
		}
		batch = batch[:0]
		lambda, err := policyeval.LambdaSchedule(prob, cfg.LSLC, sig.M)
		if err != nil {
			return nil, err
		}
		r, err := policyeval.DPLSL(prob, sig, lambda, policyeval.PrivacyParams{Epsilon: cfg.Epsilon, Delta: cfg.Delta}, policyeval.LSLSafe, rand.NewPCG(rng.Uint64(), rng.Uint64()))
		if err != nil {
			return nil, err
		}
		copy(Q, r.Theta)
		res.Updates++
	}
	return res, nil
}

type step struct {
	pair   int
	reward float64
}

// firstVisit is the first-visit Monte Carlo signature over (bin, action) pairs.
func firstVisit(trajs [][]step, n int, gamma float64) (*policyeval.Signature, error) {
	states, rewards := make([][]int, len(trajs)), make([][]float64, len(trajs))
	for i, tr := range trajs {
		states[i], rewards[i] = make([]int, len(tr)), make([]float64, len(tr))
		for t, st := range tr {
			states[i][t], rewards[i][t] = st.pair, st.reward
		}
	}
	return policyeval.NewEpisodeSignature(states, rewards, n, gamma)
}
