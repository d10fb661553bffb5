package wanghegde2019

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/dprl-project/dprl/dprl/experiment"
	"github.com/dprl-project/dprl/dprl/figure"
	"github.com/dprl-project/dprl/dprl/fnq"
	"github.com/dprl-project/dprl/dprl/report"
	"github.com/dprl-project/dprl/dprl/repro"
	"github.com/dprl-project/dprl/envs"
)

// Setting is one labelled learner for ReturnCurves: Run trains it once on a fresh environment from src;
// Privacy is what that run certifies.
type Setting struct {
	Name    string
	Privacy Privacy
	Run     func(env envs.Env, src rand.Source) (*fnq.Result, error)
}

// Legend is the setting's name with its privacy label, as the figures show it.
func (s Setting) Legend() string { return s.Name + " [" + s.Privacy.Label() + "]" }

// Seed is the seed of every learning curve: seed s of every setting draws from rand.NewPCG(Seed, s).
const Seed = 2019

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
	return Setting{Name: "random policy", Privacy: dataFree, Run: func(env envs.Env, src rand.Source) (*fnq.Result, error) {
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

// runCurves runs the settings (seed Seed) under a progress bar.
func runCurves(out report.Sink, label string, settings []Setting, p Protocol) ([][][]float64, error) {
	bar := out.Bar(label, len(settings)*p.Seeds)
	res, err := ReturnCurves(settings, p.Seeds, Seed, bar)
	if err != nil {
		return nil, err
	}
	bar.Done()
	return res, nil
}

// curve is one drawn learning curve: a legend and its runs [seed][episode].
type curve struct {
	name string
	runs [][]float64
}

// plotCurves draws the episode returns against samples (50 per episode) as the mean over seeds with a 95%
// confidence band (Student t), and says which seeds they are.
func plotCurves(out report.Sink, title string, seeds repro.RunSeeds, cs ...curve) error {
	var series []figure.Series
	for _, c := range cs {
		xs := make([]float64, len(c.runs[0]))
		for k := range xs {
			xs[k] = float64(50 * (k + 1))
		}
		series = append(series, figure.Series{Name: c.name, X: xs, Y: c.runs})
	}
	fig, err := figure.Curves(figure.Options{Title: title, XLabel: "training samples", YLabel: "episode return", LegendBottom: true, Band: figure.BandCI95}, series...)
	if err != nil {
		return err
	}
	if err := out.Figure(fig); err != nil {
		return err
	}
	out.Markdown(seedCaption(seeds))
	return nil
}

// lastFifth is each seed's mean return over the last fifth of its episodes.
func lastFifth(runs [][]float64) []float64 {
	out := make([]float64, len(runs))
	for i, r := range runs {
		out[i] = mean(r[len(r)*4/5:])
	}
	return out
}

// firstFifth is each seed's mean return over the first fifth of its episodes.
func firstFifth(runs [][]float64) []float64 {
	out := make([]float64, len(runs))
	for i, r := range runs {
		out[i] = mean(r[:max(1, len(r)/5)])
	}
	return out
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// paired is a·x − b·y seed by seed.
func paired(x []float64, a float64, y []float64, b float64) []float64 {
	out := make([]float64, len(x))
	for i := range x {
		out[i] = a*x[i] - b*y[i]
	}
	return out
}

// ci prints the mean of xs with its 95% t interval.
func ci(xs []float64) string {
	m, lo, hi := experiment.MeanCI(xs, 0.95)
	return fmt.Sprintf("%.2f [%.2f, %.2f]", m, lo, hi)
}

// Fig2Row is one panel of Fig. 2: the privacy level ε (δ = Delta), the σ the code configuration uses (Theorem
// 5's σ at that ε with L = 1, rounded) and the worked setting's step size α and tail level k for Algorithm 1.
type Fig2Row struct {
	Epsilon, Sigma, LR, K float64
}

// Fig2Rows are the panels (ε, σ, α, k) = (0.9, 0.637, 7e−5, 210) and (0.45, 1.13, 3e−5, 420).
func Fig2Rows() []Fig2Row {
	return []Fig2Row{{0.9, 0.637, 7e-5, 210}, {0.45, 1.13, 3e-5, 420}}
}

// The positions of the learners in Fig2Settings.
const (
	F2Code          = iota // functional noise, code configuration: no guarantee
	F2Alg1Paper            // Algorithm 1, published calibration (L = 2): no guarantee
	F2Alg1                 // Algorithm 1, corrected calibration: (ε, δ)-DP
	F2Input                // input perturbation
	F2DPSGD                // DP-SGD
	F2BGP                  // BGP16: no guarantee for reward neighbours
	F2Alg1Noiseless        // Algorithm 1 without noise: non-private
	F2NonPrivate           // non-private DQN
	F2Random               // random policy
)

// Fig2Settings are the nine learners of a Fig. 2 panel, in the order of the F2… constants:
//   - functional noise in the code configuration (σ = row.Sigma, β = 1): no privacy guarantee;
//   - Algorithm 1 (fnq.RunSpecified: T′ = 39 SGD steps on fresh batches of 128, β = 1/v, ε-greedy 0.1 on Q̃,
//     L = 2) with the published calibration (Theorem 5's σ at the paper's k), outside Theorem 5: no
//     privacy guarantee;
//   - Algorithm 1 with the corrected calibration (Corrected): (ε, δ)-DP exactly;
//   - input perturbation with σ_r for the 50·episodes rewards the run sees, as exact μ-GDP;
//   - DP-SGD with clip 1 and z for the update steps (one per sample once the memory holds a batch:
//     50·episodes − 127), as exact μ-GDP;
//   - BGP16 at (ε, δ) per release with return bound 25 (not DP for neighbouring reward functions);
//   - Algorithm 1 without noise, the non-private DQN and the random policy: the references.
//
// Algorithm 1 always takes T = 5000 samples (it is cheap); the other learners take 50·episodes.
func Fig2Settings(row Fig2Row, episodes int) ([]Setting, error) {
	T := 50 * episodes
	sr, err := fnq.InputPerturbationSigma(T, row.Epsilon, Delta)
	if err != nil {
		return nil, err
	}
	ipPriv, err := gdpPrivacy(math.Sqrt(float64(T))/sr, Delta, fmt.Sprintf("%d rewards of sensitivity 1 with N(0, %.4g²) each: μ-GDP, μ = √%d/σ_r", T, sr, T))
	if err != nil {
		return nil, err
	}
	updates := T - 127
	z, err := fnq.DPSGDNoiseMultiplier(updates, row.Epsilon, Delta)
	if err != nil {
		return nil, err
	}
	dpPriv, err := gdpPrivacy(math.Sqrt(float64(updates))/z, Delta, fmt.Sprintf("%d steps, sum sensitivity 2·128·C_g, noise multiplier z = %.4g, no amplification: μ-GDP, μ = √%d/z", updates, z, updates))
	if err != nil {
		return nil, err
	}
	pub := Alg1Calibration(row.Epsilon, row.LR, row.K)
	pubPriv, pubSigma, err := alg1Privacy(pub, false)
	if err != nil {
		return nil, err
	}
	cor, err := Corrected(pub)
	if err != nil {
		return nil, err
	}
	corPriv, corSigma, err := alg1Privacy(cor, true)
	if err != nil {
		return nil, err
	}
	if !corPriv.Guarantee {
		return nil, fmt.Errorf("wanghegde2019: the corrected calibration at ε = %g has no guarantee: %s", row.Epsilon, corPriv.Basis)
	}
	return []Setting{
		CodeAgent(fmt.Sprintf("functional noise, code configuration (σ = %g)", row.Sigma), row.Sigma, 1, episodes),
		alg1Setting(fmt.Sprintf("Algorithm 1, published calibration (k = %g, σ = %.3g)", pub.K, pubSigma), pubPriv,
			fnq.SpecifiedConfig{Calibration: pub, Explore: 0.1, NoGuarantee: true}),
		alg1Setting(fmt.Sprintf("Algorithm 1, corrected (k = %g, σ = %.3g)", cor.K, corSigma), corPriv,
			fnq.SpecifiedConfig{Calibration: cor, UseGDPSigma: true, Explore: 0.1}),
		{Name: fmt.Sprintf("input perturbation (σ_r = %.0f)", sr), Privacy: ipPriv, Run: func(env envs.Env, src rand.Source) (*fnq.Result, error) {
			r, err := fnq.Run(env, fnq.Config{Method: fnq.InputPerturbation, RewardSigma: sr, Episodes: episodes, Src: src})
			if err == nil && r.Samples != T {
				err = fmt.Errorf("wanghegde2019: input perturbation released %d rewards, accounted for %d", r.Samples, T)
			}
			return r, err
		}},
		{Name: fmt.Sprintf("DP-SGD (z = %.0f)", z), Privacy: dpPriv, Run: func(env envs.Env, src rand.Source) (*fnq.Result, error) {
			r, err := fnq.Run(env, fnq.Config{Method: fnq.DPSGD, Clip: 1, Z: z, Episodes: episodes, Src: src})
			if err == nil && r.Updates != updates {
				err = fmt.Errorf("wanghegde2019: DP-SGD took %d steps, accounted for %d", r.Updates, updates)
			}
			return r, err
		}},
		{Name: "BGP16", Privacy: noGuarantee("DP-LSL's guarantee is for neighbouring trajectories, not reward functions, and its releases are not composed"),
			Run: func(env envs.Env, src rand.Source) (*fnq.Result, error) {
				return fnq.RunBGP16(env, fnq.BGPConfig{Episodes: episodes, Epsilon: row.Epsilon, Delta: Delta, ReturnBound: 25, Src: src})
			}},
		alg1Setting("Algorithm 1 without noise", nonPrivate("Algorithm 1's 39 SGD steps without paths"),
			fnq.SpecifiedConfig{Calibration: pub, Explore: 0.1, Noiseless: true}),
		CodeAgent("non-private DQN", 0, 1, episodes),
		RandomPolicy(episodes),
	}, nil
}

// alg1Setting runs Algorithm 1 with cfg and checks that the library's own guarantee agrees with p.
func alg1Setting(name string, p Privacy, cfg fnq.SpecifiedConfig) Setting {
	return Setting{Name: name, Privacy: p, Run: func(env envs.Env, src rand.Source) (*fnq.Result, error) {
		c := cfg
		c.Src = src
		r, err := fnq.RunSpecified(env, c)
		if err != nil {
			return nil, err
		}
		if !r.WithinL {
			return nil, fmt.Errorf("wanghegde2019: the trained network's Lipschitz bound %.3g exceeds the calibration's L = %g", r.FinalL, c.L)
		}
		if r.Guaranteed != p.Guarantee || p.Guarantee && math.Abs(r.EpsilonExact-p.Epsilon) > 1e-9*p.Epsilon {
			return nil, fmt.Errorf("wanghegde2019: %s: the run certifies guarantee %v at ε = %g, the label says %v at %g", name, r.Guaranteed, r.EpsilonExact, p.Guarantee, p.Epsilon)
		}
		return &r.Result, nil
	}}
}
