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

// Setting is one labelled learner for ReturnCurves: Run trains it once on a fresh environment from src.
type Setting struct {
	Name string
	Run  func(env envs.Env, src rand.Source) (*fnq.Result, error)
}

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

// Protocol sizes the learning-curve experiments (Fig. 1 and Fig. 2).
type Protocol struct {
	Seeds    int // runs per setting; the paper uses 10
	Episodes int // episodes of 50 samples per run; the paper uses 100
}

// DefaultProtocol is 5 seeds of 100 episodes (2 of 40 in quick mode); paperScale raises the seeds to the
// paper's 10.
func DefaultProtocol(paperScale bool) Protocol {
	p := Protocol{Seeds: experiment.Size(5, 2), Episodes: experiment.Size(100, 40)}
	if paperScale {
		p.Seeds = 10
	}
	return p
}

// CodeAgent is the functional-noise learner in the authors' code configuration (fnq.Config's defaults: DQN
// with replay, β = 1) with path noise sigma, paths reset every resetEvery episodes (−1: never). σ = 0 is the
// non-private DQN, chosen explicitly (a private method refuses σ = 0).
func CodeAgent(name string, sigma float64, resetEvery, episodes int) Setting {
	return Setting{Name: name, Run: func(env envs.Env, src rand.Source) (*fnq.Result, error) {
		cfg := fnq.Config{Method: fnq.FunctionalNoise, Sigma: sigma, ResetEvery: resetEvery, Episodes: episodes, Src: src}
		if sigma == 0 {
			cfg.Method = fnq.NonPrivate
		}
		return fnq.Run(env, cfg)
	}}
}

// curves runs the settings (seed 2019) and plots mean ± std of the episode returns against samples (50 per
// episode); it returns the returns as [setting][seed][episode].
func curves(out report.Sink, title string, settings []Setting, p Protocol) ([][][]float64, error) {
	bar := out.Bar(title, len(settings)*p.Seeds)
	res, err := ReturnCurves(settings, p.Seeds, 2019, bar)
	if err != nil {
		return nil, err
	}
	bar.Done()
	var series []figure.Series
	for i, s := range settings {
		xs := make([]float64, len(res[i][0]))
		for k := range xs {
			xs[k] = float64(50 * (k + 1))
		}
		series = append(series, figure.Series{Name: s.Name, X: xs, Y: res[i]})
	}
	fig, err := figure.Curves(figure.Options{Title: title, XLabel: "training samples", YLabel: "episode return", LegendBottom: true}, series...)
	if err != nil {
		return nil, err
	}
	if err := out.Figure(fig); err != nil {
		return nil, err
	}
	return res, nil
}

// tailMean is the mean return over the last fifth of the episodes, over seeds.
func tailMean(runs [][]float64) float64 {
	s, k := 0.0, 0
	for _, r := range runs {
		for _, v := range r[len(r)*4/5:] {
			s, k = s+v, k+1
		}
	}
	return s / float64(k)
}

// headMean is the mean return over the first fifth of the episodes, over seeds.
func headMean(runs [][]float64) float64 {
	s, k := 0.0, 0
	for _, r := range runs {
		for _, v := range r[:len(r)/5] {
			s, k = s+v, k+1
		}
	}
	return s / float64(k)
}

// Fig1 reproduces Fig. 1 in the code configuration: (a) learning curves for path noise σ ∈ {0, 0.2, …, 1}
// with paths reset every episode, with a table of the mean return over the first and last fifth; (b) σ = 0.4
// with paths reset every 1 or 10 episodes or never. It records two claims: the agent converges with limited
// sub-optimality for small σ (σ = 0.2 within 80% and σ = 0.4 within 70% of the non-private last-fifth return),
// and resetting every episode learns at least as well as never resetting.
func Fig1(out report.Sink, p Protocol) error {
	var settings []Setting
	sigmas := []float64{0, 0.2, 0.4, 0.6, 0.8, 1}
	for _, s := range sigmas {
		settings = append(settings, CodeAgent(fmt.Sprintf("σ = %g", s), s, 1, p.Episodes))
	}
	res, err := curves(out, "Fig. 1(a): paths reset every episode (J = 100)", settings, p)
	if err != nil {
		return err
	}
	var t [][]string
	for i, s := range sigmas {
		t = append(t, []string{fmt.Sprint(s), fmt.Sprintf("%.2f", headMean(res[i])), fmt.Sprintf("%.2f", tailMean(res[i]))})
	}
	out.Table([]string{"σ", "mean return, first fifth", "last fifth"}, t)

	jRes, err := curves(out, "Fig. 1(b): σ = 0.4, resetting every 1, 10 episodes or never", []Setting{
		CodeAgent("J = 100 (every episode)", 0.4, 1, p.Episodes), CodeAgent("J = 10", 0.4, 10, p.Episodes), CodeAgent("J = 1 (never)", 0.4, -1, p.Episodes)}, p)
	if err != nil {
		return err
	}
	base, s2, s4 := tailMean(res[0]), tailMean(res[1]), tailMean(res[2])
	return repro.RecordClaims(repro.ClaimsFile(Notebook),
		repro.Claim{Key: "f1", Claim: "With a fresh path every round the algorithm converges with limited sub-optimality, especially for σ < 0.4",
			Paper: "Fig. 1", Measured: fmt.Sprintf("last-fifth return: σ = 0: %.2f, 0.2: %.2f, 0.4: %.2f, 1: %.2f", base, s2, s4, tailMean(res[5])),
			Verdict: verdict(s2 > 0.8*base && s4 > 0.7*base, "reproduced")},
		repro.Claim{Key: "f1-j", Claim: "Resetting the path more often (larger J) learns better",
			Paper: "Fig. 1, recommends J = T/B", Measured: fmt.Sprintf("σ = 0.4, last fifth: J = 100: %.2f, J = 10: %.2f, J = 1: %.2f", tailMean(jRes[0]), tailMean(jRes[1]), tailMean(jRes[2])),
			Verdict: verdict(tailMean(jRes[0]) >= tailMean(jRes[2]), "reproduced")})
}

// Fig2Row is one panel of Fig. 2: the privacy level ε (δ = Delta), the σ the code configuration uses (Theorem
// 5's σ at that ε, rounded) and the worked setting's step size α and tail level k for Algorithm 1.
type Fig2Row struct {
	Epsilon, Sigma, LR, K float64
}

// Fig2Rows are the panels (ε, σ, α, k) = (0.9, 0.637, 7e−5, 210) and (0.45, 1.13, 3e−5, 420).
func Fig2Rows() []Fig2Row {
	return []Fig2Row{{0.9, 0.637, 7e-5, 210}, {0.45, 1.13, 3e-5, 420}}
}

// Fig2Settings are the six learners of a Fig. 2 panel, in this order: functional noise in the code
// configuration; Algorithm 1 as specified (fnq.RunSpecified: T′ = 39 SGD steps on fresh batches of 128,
// β = 1/v, ε-greedy 0.1 on Q̃, σ from Theorem 5 with L = 2, which covers the initial network's spectral bound
// of 1.42, and a run fails if the trained network leaves it); input perturbation with σ_r for 5000 rewards;
// DP-SGD with clip 1 and z for the update steps (one per sample once the memory holds a batch: 50·episodes −
// 127); BGP16 at (ε, δ) per release with return bound 25 (not DP for neighbouring reward functions); and the
// non-private DQN.
func Fig2Settings(row Fig2Row, episodes int) ([]Setting, error) {
	const delta = Delta
	sr, err := fnq.InputPerturbationSigma(Samples, row.Epsilon, delta)
	if err != nil {
		return nil, err
	}
	updates := episodes*50 - 127
	z, err := fnq.DPSGDNoiseMultiplier(updates, row.Epsilon, delta)
	if err != nil {
		return nil, err
	}
	cal := fnq.Calibration{Epsilon: row.Epsilon, Delta: delta, T: Samples, B: 128, LR: row.LR, L: 2, K: row.K, Actions: Actions, Resets: 39}
	calc, err := cal.Compute()
	if err != nil {
		return nil, err
	}
	return []Setting{
		CodeAgent(fmt.Sprintf("functional noise, code configuration (σ = %g)", row.Sigma), row.Sigma, 1, episodes),
		{Name: fmt.Sprintf("functional noise, Algorithm 1 (L = 2, σ = %.3g)", calc.SigmaThm5), Run: func(env envs.Env, src rand.Source) (*fnq.Result, error) {
			r, err := fnq.RunSpecified(env, fnq.SpecifiedConfig{Calibration: cal, Explore: 0.1, Src: src})
			if err != nil {
				return nil, err
			}
			if !r.WithinL {
				return nil, fmt.Errorf("the trained network's Lipschitz bound %.3g exceeds the calibration's L = %g", r.FinalL, cal.L)
			}
			return &r.Result, nil
		}},
		{Name: fmt.Sprintf("input perturbation (σ_r = %.0f)", sr), Run: func(env envs.Env, src rand.Source) (*fnq.Result, error) {
			return fnq.Run(env, fnq.Config{Method: fnq.InputPerturbation, RewardSigma: sr, Episodes: episodes, Src: src})
		}},
		{Name: fmt.Sprintf("DP-SGD (z = %.0f)", z), Run: func(env envs.Env, src rand.Source) (*fnq.Result, error) {
			return fnq.Run(env, fnq.Config{Method: fnq.DPSGD, Clip: 1, Z: z, Episodes: episodes, Src: src})
		}},
		{Name: "BGP16 (not DP here)", Run: func(env envs.Env, src rand.Source) (*fnq.Result, error) {
			return fnq.RunBGP16(env, fnq.BGPConfig{Episodes: episodes, Epsilon: row.Epsilon, Delta: delta, ReturnBound: 25, Src: src})
		}},
		{Name: "non-private DQN", Run: func(env envs.Env, src rand.Source) (*fnq.Result, error) {
			return fnq.Run(env, fnq.Config{Episodes: episodes, Src: src})
		}},
	}, nil
}

// Fig2 reproduces Fig. 2: for each row of Fig2Rows, the learning curves of Fig2Settings. It records per ε
// whether the code-configuration agent beats input perturbation and DP-SGD by more than 2 in last-fifth
// return and whether BGP16 is within 2 of it; at ε = 0.45 also whether input perturbation and DP-SGD fail to
// improve (last fifth less than 2 above the first fifth).
func Fig2(out report.Sink, p Protocol) error {
	claimsFile := repro.ClaimsFile(Notebook)
	for _, row := range Fig2Rows() {
		settings, err := Fig2Settings(row, p.Episodes)
		if err != nil {
			return err
		}
		res, err := curves(out, fmt.Sprintf("Fig. 2: ε = %g, δ = 1e−4", row.Epsilon), settings, p)
		if err != nil {
			return err
		}
		ours, ip, dp, bgp := tailMean(res[0]), tailMean(res[2]), tailMean(res[3]), tailMean(res[4])
		key := fmt.Sprintf("f2-%g", row.Epsilon)
		if err := repro.RecordClaims(claimsFile,
			repro.Claim{Key: key, Claim: fmt.Sprintf("ε = %g: ours significantly outperforms input perturbation and DP-SGD", row.Epsilon),
				Paper: "Fig. 2", Measured: fmt.Sprintf("last fifth: ours (code config.) %.2f, Algorithm 1 %.2f, input pert. %.2f, DP-SGD %.2f", ours, tailMean(res[1]), ip, dp),
				Verdict: verdict(ours > ip+2 && ours > dp+2, "reproduced (code configuration)")},
			repro.Claim{Key: key + "-bgp", Claim: fmt.Sprintf("ε = %g: BGP16 performs similarly to ours", row.Epsilon),
				Paper: "Fig. 2", Measured: fmt.Sprintf("last fifth: BGP16 %.2f vs ours %.2f", bgp, ours),
				Verdict: verdict(math.Abs(bgp-ours) < 2, "reproduced")}); err != nil {
			return err
		}
		if row.Epsilon == 0.45 {
			if err := repro.RecordClaims(claimsFile, repro.Claim{Key: "f2-flat", Claim: "At ε = 0.45 input perturbation and DP-SGD do not improve during training",
				Paper: "Fig. 2(b)", Measured: fmt.Sprintf("first → last fifth: input pert. %.2f → %.2f, DP-SGD %.2f → %.2f", headMean(res[2]), ip, headMean(res[3]), dp),
				Verdict: verdict(ip < headMean(res[2])+2 && dp < headMean(res[3])+2, "reproduced")}); err != nil {
				return err
			}
		}
	}
	return nil
}
