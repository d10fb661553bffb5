package wanghegde2019

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/dprl-project/dprl/dprl/fnq"
	"github.com/dprl-project/dprl/dprl/report"
	"github.com/dprl-project/dprl/envs"
)

// Fig1Sigmas is Fig. 1(a)'s path-noise grid, the code's.
var Fig1Sigmas = []float64{0, 0.2, 0.4, 0.6, 0.8, 1}

// Names of the settings that several figures share.
const (
	NonPrivateName = "σ = 0 (non-private DQN)"
	J10Name        = "σ = 0.4, J = 10"
	NeverName      = "σ = 0.4, J = 1 (never reset)"
)

// SigmaName is the name of Fig. 1's setting with path noise sigma and a fresh path every episode.
func SigmaName(sigma float64) string {
	if sigma == 0 {
		return NonPrivateName
	}
	return fmt.Sprintf("σ = %g", sigma)
}

// Fig1Settings are Fig. 1's learners, all in the code configuration: one per σ of Fig1Sigmas with paths reset
// every episode (σ = 0 is the non-private DQN), then σ = 0.4 with paths reset every 10 episodes and never,
// then the random policy.
func Fig1Settings(episodes int) []Setting {
	var s []Setting
	for _, sigma := range Fig1Sigmas {
		s = append(s, CodeAgent(SigmaName(sigma), sigma, 1, episodes))
	}
	return append(s, CodeAgent(J10Name, 0.4, 10, episodes), CodeAgent(NeverName, 0.4, -1, episodes), RandomPolicy(episodes))
}

// CodeSigma is the path noise of the code configuration in Fig. 2 at eps: Theorem 5's σ at the worked setting
// (ours) of that ε, 0.637 at ε = 0.9 and 1.13 at ε = 0.45 (the paper does not say which σ its Fig. 2 ran).
func CodeSigma(eps float64) float64 {
	if eps == 0.45 {
		return 1.13
	}
	return 0.637
}

// Fig2Panel names the learners of one ε of Fig. 2 in a Runs.
type Fig2Panel struct {
	Epsilon float64
	// The paper's learners, as its caption says ("Same configurations as Figure 1"): functional noise in the
	// code configuration (no privacy guarantee), input perturbation and DP-SGD in the same DQN (ε, δ)-DP,
	// BGP16 (no guarantee for reward functions).
	Code, Input, DPSGD, BGP16 string
	// Algorithm 1 with the corrected calibration, (ε, δ)-DP, in the configuration Choose chose, in the
	// runner-up ("" if none) and in the worked setting (ours); Theorem 5 as printed at the worked setting
	// (no guarantee).
	Ours, RunnerUp, Worked, Printed string
	// The references: Algorithm 1 without noise in each of those configurations, the non-private DQN and the
	// random policy.
	OursNoiseless, RunnerUpNoiseless, WorkedNoiseless, NonPrivate, Random string
}

// Fig2Settings are the learners of Fig. 2 in every panel of Fig2Epsilons, for the configuration chosen by ch
// and the alternatives (without the non-private DQN and the random policy, which are Fig. 1's), and the
// panels naming them. Every DQN-based learner runs episodes episodes; Algorithm 1 takes Samples samples:
//   - functional noise in the code configuration, σ = CodeSigma(ε), β = 1: no privacy guarantee;
//   - input perturbation with σ_r for the 50·episodes rewards the run sees, as exact μ-GDP;
//   - DP-SGD with clip 1 and z for the update steps (one per sample once the memory holds a batch:
//     50·episodes − 127), as exact μ-GDP;
//   - BGP16 at (ε, δ) per release with return bound 25 (not DP for neighbouring reward functions);
//   - Algorithm 1 (fnq.RunSpecified) with the corrected calibration (Corrected) in the chosen configuration,
//     the runner-up and the worked setting (ours), each beside its run without noise; and Theorem 5 as printed
//     at the worked setting, outside the theorem at L = 2: no privacy guarantee.
func Fig2Settings(ch *Choice, episodes int) ([]Fig2Panel, []Setting, error) {
	T := 50 * episodes
	updates := T - 127
	if updates < 1 {
		return nil, nil, fmt.Errorf("wanghegde2019: Fig. 2 needs at least 3 episodes (DP-SGD takes a step once 128 samples are in memory), got %d", episodes)
	}
	var settings []Setting
	var alg1 []Setting // after the DQN learners: the cheap runs fill the workers last
	noiseless := map[Alg1Config]string{}
	refOf := func(c Alg1Config) string {
		if n, ok := noiseless[c]; ok {
			return n
		}
		s := noiselessSetting(c)
		noiseless[c] = s.Name
		alg1 = append(alg1, s)
		return s.Name
	}
	var panels []Fig2Panel
	for e, eps := range Fig2Epsilons {
		sr, err := fnq.InputPerturbationSigma(T, eps, Delta)
		if err != nil {
			return nil, nil, err
		}
		ipPriv, err := gdpPrivacy(math.Sqrt(float64(T))/sr, Delta, fmt.Sprintf("%d rewards of sensitivity 1 with N(0, %.4g²) each: μ-GDP, μ = √%d/σ_r", T, sr, T))
		if err != nil {
			return nil, nil, err
		}
		z, err := fnq.DPSGDNoiseMultiplier(updates, eps, Delta)
		if err != nil {
			return nil, nil, err
		}
		dpPriv, err := gdpPrivacy(math.Sqrt(float64(updates))/z, Delta, fmt.Sprintf("%d steps, sum sensitivity 2·128·C_g, noise multiplier z = %.4g, no amplification: μ-GDP, μ = √%d/z", updates, z, updates))
		if err != nil {
			return nil, nil, err
		}
		sigma := CodeSigma(eps)
		code := CodeAgent(fmt.Sprintf("functional noise, code configuration, σ = %g", sigma), sigma, 1, episodes)
		ip := Setting{Name: fmt.Sprintf("input perturbation, ε = %g (σ_r = %.0f)", eps, sr), Privacy: ipPriv, Run: func(env envs.Env, src rand.Source) (*fnq.Result, error) {
			r, err := fnq.Run(env, fnq.Config{Method: fnq.InputPerturbation, RewardSigma: sr, Episodes: episodes, Src: src})
			if err == nil && r.Samples != T {
				err = fmt.Errorf("wanghegde2019: input perturbation released %d rewards, accounted for %d", r.Samples, T)
			}
			return r, err
		}}
		dp := Setting{Name: fmt.Sprintf("DP-SGD, ε = %g (z = %.0f)", eps, z), Privacy: dpPriv, Run: func(env envs.Env, src rand.Source) (*fnq.Result, error) {
			r, err := fnq.Run(env, fnq.Config{Method: fnq.DPSGD, Clip: 1, Z: z, Episodes: episodes, Src: src})
			if err == nil && r.Updates != updates {
				err = fmt.Errorf("wanghegde2019: DP-SGD took %d steps, accounted for %d", r.Updates, updates)
			}
			return r, err
		}}
		bgp := Setting{Name: fmt.Sprintf("BGP16, ε = %g per release", eps),
			Privacy: noGuarantee("DP-LSL's guarantee is for neighbouring trajectories, not reward functions, and its releases are not composed"),
			Run: func(env envs.Env, src rand.Source) (*fnq.Result, error) {
				return fnq.RunBGP16(env, fnq.BGPConfig{Episodes: episodes, Epsilon: eps, Delta: Delta, ReturnBound: 25, Src: src})
			}}
		settings = append(settings, code, ip, dp, bgp)
		p := Fig2Panel{Epsilon: eps, Code: code.Name, Input: ip.Name, DPSGD: dp.Name, BGP16: bgp.Name, NonPrivate: NonPrivateName, Random: RandomName}

		corrected := func(a Alg1Arm, label string) (string, string, error) {
			if a.Why[e] != "" {
				return "", "", fmt.Errorf("wanghegde2019: %s has no corrected calibration at ε = %g: %s", a.Config, eps, a.Why[e])
			}
			s := alg1Setting(fmt.Sprintf("Alg. 1 corrected, ε = %g, %s (%s, k = %g, σ = %.3g)", eps, label, a.Config, a.Cal[e].K, a.Sigma[e]),
				a.Privacy[e], fnq.SpecifiedConfig{Calibration: a.Cal[e], UseGDPSigma: true, Gamma: a.Config.Gamma, Explore: alg1Explore})
			alg1 = append(alg1, s)
			return s.Name, refOf(a.Config), nil
		}
		if p.Ours, p.OursNoiseless, err = corrected(ch.Arms[ch.Chosen], "chosen"); err != nil {
			return nil, nil, err
		}
		if ch.RunnerUp >= 0 {
			if p.RunnerUp, p.RunnerUpNoiseless, err = corrected(ch.Arms[ch.RunnerUp], "runner-up"); err != nil {
				return nil, nil, err
			}
		}
		wc, wk := WorkedConfig(eps)
		wa, err := NewAlg1Arm(wc)
		if err != nil {
			return nil, nil, err
		}
		if p.Worked, p.WorkedNoiseless, err = corrected(wa, "worked (ours)"); err != nil {
			return nil, nil, err
		}
		pub := wc.Calibration(eps, wk)
		pubPriv, pubSigma, err := alg1Privacy(pub, false)
		if err != nil {
			return nil, nil, err
		}
		printed := alg1Setting(fmt.Sprintf("Alg. 1 as printed, ε = %g, worked (ours) (%s, k = %g, σ = %.3g)", eps, wc, wk, pubSigma),
			pubPriv, fnq.SpecifiedConfig{Calibration: pub, Gamma: wc.Gamma, Explore: alg1Explore, NoGuarantee: true})
		alg1 = append(alg1, printed)
		p.Printed = printed.Name
		panels = append(panels, p)
	}
	return panels, append(settings, alg1...), nil
}

// ReturnEpsilons are the ε at which the ε sweep runs the corrected Algorithm 1 in the chosen configuration
// (where its corrected calibration gives a guarantee; Fig. 2's ε reuse Fig. 2's runs).
var ReturnEpsilons = []float64{0.1, 0.2, 0.45, 0.7, 0.9, 0.99}

// SweepPoint is one ε of the ε sweep: the setting's name in the Runs ("" where no guarantee is possible, with
// the reason in Why).
type SweepPoint struct {
	Epsilon   float64
	Name, Why string
}

// SweepSettings are the ε sweep's learners beyond Fig. 2's: the corrected Algorithm 1 in configuration c at
// every ε of ReturnEpsilons that is not one of Fig2Epsilons, and the points of the sweep (at Fig. 2's ε,
// the name panels gives).
func SweepSettings(c Alg1Config, panels []Fig2Panel) ([]SweepPoint, []Setting, error) {
	var pts []SweepPoint
	var settings []Setting
	for _, eps := range ReturnEpsilons {
		if i := slices.IndexFunc(panels, func(p Fig2Panel) bool { return p.Epsilon == eps }); i >= 0 {
			pts = append(pts, SweepPoint{Epsilon: eps, Name: panels[i].Ours})
			continue
		}
		cor, err := Corrected(c.Calibration(eps, 1))
		if noTailLevel(err) {
			pts = append(pts, SweepPoint{Epsilon: eps, Why: "no tail level k gives a guarantee"})
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		p, sigma, err := alg1Privacy(cor, true)
		if err != nil {
			return nil, nil, err
		}
		if !p.Guarantee {
			pts = append(pts, SweepPoint{Epsilon: eps, Why: p.Basis})
			continue
		}
		s := alg1Setting(fmt.Sprintf("Alg. 1 corrected, ε = %g, chosen (%s, k = %g, σ = %.3g)", eps, c, cor.K, sigma), p,
			fnq.SpecifiedConfig{Calibration: cor, UseGDPSigma: true, Gamma: c.Gamma, Explore: alg1Explore})
		settings = append(settings, s)
		pts = append(pts, SweepPoint{Epsilon: eps, Name: s.Name})
	}
	return pts, settings, nil
}

// Curves is the data of every learning curve of this package: Fig. 1's runs (from a run or the merged
// full-size sweeps), and Fig. 2's and the ε sweep's runs (with the non-private DQN and the random policy,
// Fig. 1's runs when they share its seeds), the panels and sweep points naming them, and the choice of
// Algorithm 1's configuration behind them.
type Curves struct {
	Fig1, Fig2 *Runs
	Panels     []Fig2Panel
	Sweep      []SweepPoint
	Choice     *Choice
}

// CurvesData runs every learning curve once, in one pool on every core (seed Seed, p.Seeds seeds, p.Episodes
// episodes for the DQN-based learners): Fig1Settings, Fig2Settings and SweepSettings for the configuration
// chosen by ch. With both merged Fig. 1 sweeps present in the repository at root, Fig. 1 is read from them
// (repro.FullSize says which on out) and the rest runs. Nothing else is computed: figures and claims read
// the Curves.
func CurvesData(out report.Sink, root string, p Protocol, ch *Choice) (*Curves, error) {
	c := &Curves{Choice: ch}
	var err error
	var fig2 []Setting
	if c.Panels, fig2, err = Fig2Settings(ch, p.Episodes); err != nil {
		return nil, err
	}
	pts, sweep, err := SweepSettings(ch.Arms[ch.Chosen].Config, c.Panels)
	if err != nil {
		return nil, err
	}
	c.Sweep = pts
	fig2 = append(fig2, sweep...)
	fig1 := Fig1Settings(p.Episodes)
	fromSweep, err := fig1FromSweeps(out, root)
	if err != nil {
		return nil, err
	}
	shared := []string{NonPrivateName, RandomName}
	all := fig2
	if fromSweep == nil {
		all = append(slices.Clone(fig1), fig2...)
	} else {
		for _, s := range fig1 {
			if slices.Contains(shared, s.Name) {
				all = append([]Setting{s}, all...)
			}
		}
	}
	bar := out.Bar("learning curves", len(all)*p.Seeds)
	runs, err := RunSettings(all, p.Seeds, Seed, bar)
	if err != nil {
		return nil, err
	}
	bar.Done()
	runs.Source = fmt.Sprintf("a run of %d seeds of %d episodes (Algorithm 1: %d samples)", p.Seeds, p.Episodes, Samples)
	c.Fig2 = runs.subset(append(names(fig2), shared...)...)
	if c.Fig1 = fromSweep; c.Fig1 == nil {
		c.Fig1 = runs.subset(names(fig1)...)
	}
	return c, nil
}

// names are the settings' names.
func names(settings []Setting) []string {
	out := make([]string, len(settings))
	for i, s := range settings {
		out[i] = s.Name
	}
	return out
}

// subset is the runs of the named settings (which must be in r).
func (r *Runs) subset(names ...string) *Runs {
	out := &Runs{Seeds: r.Seeds, Source: r.Source}
	out.Table.Columns = r.Table.Columns
	keep := map[string]bool{}
	for _, n := range names {
		keep[n] = true
	}
	for _, s := range r.Settings {
		if keep[s.Name] {
			out.Settings = append(out.Settings, s)
		}
	}
	for _, row := range r.Table.Rows {
		if keep[row[0]] {
			out.Table.Rows = append(out.Table.Rows, row)
		}
	}
	return out
}
