package xie2019

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/plot"

	"github.com/dprl-project/dprl/dprl/experiment"
	"github.com/dprl-project/dprl/dprl/figure"
	"github.com/dprl-project/dprl/dprl/policyeval"
	"github.com/dprl-project/dprl/dprl/report"
	"github.com/dprl-project/dprl/dprl/repro"
)

// snrN is the dataset size of SignalAndNoise; whyN that of the long runs.
const (
	snrN = 1000
	whyN = 100
)

// whyT are the iteration counts of the long runs: T = n, 10n and n² (the paper's Theorem 3 reaches the
// optimal rate at T ~ n²).
func whyT(n int) []int { return []int{n, 10 * n, n * n} }

// snrT are the iteration counts of SignalAndNoise: T = n, 10n and n².
func snrT(n int) []int { return whyT(n) }

// SignalAndNoise shows why GPOPE stays near θ = 0 on the chain and Mountain Car at n = 1000 and ε = 1: the
// expected gradient at x = 0 is [0; −b], so its norm ‖b‖ is the signal a step carries, against noise of norm
// σ√(2d); after T steps of a constant step from 0 the sum of the updates has signal-to-noise
// ‖b‖√T/(σ√(2d)), and since σ grows with T at fixed ε (like √T once T ≫ n), it saturates. The table shows
// these at T = n, 10n, n² (σ by Theorem 27), the median public gradient norm against the clip C (which covers
// the largest), and how far the noiseless GTD2 gets in T = n steps (the best step of a grid in hindsight,
// labelled so: not a private choice).
func SignalAndNoise(out report.Sink, p Protocol) error {
	chain, err := Chain()
	if err != nil {
		return err
	}
	mc, err := MountainCar(false, experiment.Size(1000, 300))
	if err != nil {
		return err
	}
	gtdSteps := []float64{1e-3, 1e-2, 0.1, 0.3, 1, 3}
	const seed = 2019 ^ 0x7768_7900
	var table, gtd [][]string
	for _, d := range []*Domain{chain, mc} {
		b := floats.Norm(d.True.B, 2)
		pub, err := d.DrawPublic(200, rand.NewPCG(2019, 9))
		if err != nil {
			return err
		}
		norms := GradientNorms(pub.Data, make([]float64, 2*d.Dim()))
		slices.Sort(norms)
		noise := math.Sqrt(2 * float64(d.Dim()))
		for _, T := range snrT(snrN) {
			z, err := sigmaOverC(Calibration, snrN, T, 1, Delta)
			if err != nil {
				return err
			}
			perStep := b / d.Clip / (z * noise)
			table = append(table, []string{d.Name, fmt.Sprint(T), fmt.Sprint(d.Dim()), fmt.Sprintf("%.3g", d.Clip), fmt.Sprintf("%.3g", z),
				fmt.Sprintf("%.3g", b/d.Clip), fmt.Sprintf("%.3g", norms[len(norms)/2]/d.Clip), fmt.Sprintf("%.2g", perStep),
				fmt.Sprintf("%.2g", perStep*math.Sqrt(float64(T)))})
		}
		// the noiseless GTD2 after T = n steps, per trial at each step; the best step by its mean
		bar := out.Bar(d.Name+": GTD2 at T = n", p.Trials)
		res, err := experiment.Trials(p.Trials, 0, seed, bar, func(k int, src rand.Source) ([]float64, error) {
			rng := rand.New(src)
			s, err := d.Draw(snrN, rand.NewPCG(rng.Uint64(), rng.Uint64()))
			if err != nil {
				return nil, err
			}
			z := d.True.MSPBE(make([]float64, d.Dim()))
			out := make([]float64, len(gtdSteps))
			for i, a := range gtdSteps {
				th, _ := run(s.Data, snrN, policyeval.Constant(a), d.Clip, 0, policyeval.SampleOne, rand.NewPCG(rng.Uint64(), rng.Uint64()))
				out[i] = mspbe(d.True, th) / z
			}
			return out, nil
		})
		if err != nil {
			return err
		}
		bar.Done()
		means, _, _ := figure.MeanStd(res)
		best := floats.MinIdx(means)
		col := make([]float64, len(res))
		for k := range res {
			col[k] = res[k][best]
		}
		gtd = append(gtd, []string{d.Name, fmt.Sprint(gtdSteps[best]), fmtCI("%.3g", col)})
	}
	out.Markdown(fmt.Sprintf("**Signal and noise at ε = 1, n = %d** (σ by WBK Theorem 27). ‖ḡ(0)‖ = ‖b‖ is the norm of the expected gradient at "+
		"x = 0; a step adds noise of norm ≈ σ√(2d). The last column is the signal-to-noise ratio of the sum of T updates from 0, "+
		"‖b‖√T/(σ√(2d)): σ grows with T at fixed ε (like √T once T ≫ n), so this ratio saturates as T grows, while it grows "+
		"linearly in n.", snrN))
	out.Table([]string{"domain", "T", "d", "C", "σ / C", "‖ḡ(0)‖ / C", "median ‖gᵢ(0)‖ / C", "SNR per step", "SNR of the T-step sum"}, table)
	out.Markdown(fmt.Sprintf("**The non-private GTD2 after T = n = %d steps** (σ = 0, same clip; the best step of %v in hindsight: not a "+
		"private choice), MSPBE / θ = 0's, mean [95%% interval] over %d trials (trial k: rand.NewPCG(%d, k)):", snrN, gtdSteps, p.Trials, uint64(seed)))
	out.Table([]string{"domain", "best step", "GTD2 / θ = 0"}, gtd)
	return nil
}

// LongRunData runs the chain at n = 100 with T = n, 10n and n²: GPOPE (σ for ε = 1 by Theorem 27) and the
// noiseless GTD2, each with a constant and a diminishing step, the (initial) step of each (method, schedule,
// T) chosen on TuneRuns public samples over the protocol's grid, as the figures choose theirs; per trial the
// four runs at their public steps, LSTD and θ = 0. Public sample r draws from rand.NewPCG(Seed ^ 0x77687902,
// r), trial k from rand.NewPCG(Seed ^ 0x77687901, k).
func LongRunData(out report.Sink, p Protocol) (*experiment.Table, error) {
	d, err := Chain()
	if err != nil {
		return nil, err
	}
	Ts := whyT(whyN)
	sig := make([]float64, len(Ts))
	for i, T := range Ts {
		z, err := sigmaOverC(Calibration, whyN, T, 1, Delta)
		if err != nil {
			return nil, err
		}
		sig[i] = z * d.Clip
	}
	// The variants: GPOPE and GTD2, each schedule; variant v at T index i runs with sigmaAt(v, i).
	type variant struct {
		private bool
		sc      Schedule
	}
	var variants []variant
	for _, private := range []bool{true, false} {
		for _, sc := range Schedules {
			variants = append(variants, variant{private, sc})
		}
	}
	sigmaAt := func(v variant, i int) float64 {
		if v.private {
			return sig[i]
		}
		return 0
	}
	const seedPublic, seedTrials = Seed ^ 0x7768_7902, Seed ^ 0x7768_7901
	bar := out.Bar("chain, n = 100: public step tuning", p.TuneRuns)
	// scores[r][v][T][step]: the public sample's MSPBE under its own moments
	scores, err := experiment.Trials(p.TuneRuns, 0, seedPublic, bar, func(_ int, src rand.Source) ([][][]float64, error) {
		rng := rand.New(src)
		pub, err := d.DrawPublic(whyN, rand.NewPCG(rng.Uint64(), rng.Uint64()))
		if err != nil {
			return nil, err
		}
		mo := pub.Data.Moments()
		out := make([][][]float64, len(variants))
		for v, va := range variants {
			out[v] = make([][]float64, len(Ts))
			for i, T := range Ts {
				out[v][i] = make([]float64, len(p.Steps))
				for j, a := range p.Steps {
					th, _ := run(pub.Data, T, va.sc.StepSize(a, T), d.Clip, sigmaAt(va, i), policyeval.SampleOne, rand.NewPCG(rng.Uint64(), rng.Uint64()))
					out[v][i][j] = mspbe(mo, th)
				}
			}
		}
		return out, nil
	})
	if err != nil {
		return nil, err
	}
	bar.Done()
	best := make([][]float64, len(variants)) // [v][T]
	for v := range variants {
		best[v] = make([]float64, len(Ts))
		for i := range Ts {
			m := make([]float64, len(p.Steps))
			for r := range scores {
				floats.Add(m, scores[r][v][i])
			}
			best[v][i] = p.Steps[floats.MinIdx(m)] // +Inf (diverged) never wins unless every step diverged
		}
	}
	bar = out.Bar("chain, n = 100: trials", p.Trials)
	res, err := experiment.Trials(p.Trials, 0, seedTrials, bar, func(k int, src rand.Source) ([]Row, error) {
		rng := rand.New(src)
		s, err := d.Draw(whyN, rand.NewPCG(rng.Uint64(), rng.Uint64()))
		if err != nil {
			return nil, err
		}
		var rows []Row
		add := func(r Row) {
			r.N, r.Trial, r.Seed, r.Stream = whyN, k, seedTrials, uint64(k)
			rows = append(rows, r)
		}
		add(Row{Method: MethodZero, MSPBE: d.True.MSPBE(make([]float64, d.Dim()))})
		th, err := s.Data.LSTD(1e-6)
		if err != nil {
			return nil, err
		}
		add(Row{Method: MethodLSTD, MSPBE: d.True.MSPBE(th)})
		for v, va := range variants {
			for i, T := range Ts {
				a := best[v][i]
				th, clipped := run(s.Data, T, va.sc.StepSize(a, T), d.Clip, sigmaAt(va, i), policyeval.SampleOne, rand.NewPCG(rng.Uint64(), rng.Uint64()))
				r := Row{Method: MethodGTD2, T: T, Schedule: va.sc.String(), Step: a, ClippedShare: clipped, MSPBE: mspbe(d.True, th)}
				if va.private {
					r.Method, r.Epsilon, r.Delta, r.Sigma = va.sc.method(), 1, Delta, sigmaAt(va, i)
				}
				add(r)
			}
		}
		return rows, nil
	})
	if err != nil {
		return nil, err
	}
	bar.Done()
	return Table(d.Info(), slices.Concat(res...)), nil
}

func byT(r Row) float64 { return float64(r.T) }

// longRunCurves are the long-run plot's curves: GPOPE and GTD2 with each schedule.
var longRunCurves = []curveSpec{
	{"GPOPE, constant step", sel{method: MethodGPOPEConstant, eps: 1}},
	{"GPOPE, diminishing step", sel{method: MethodGPOPEDiminishing, eps: 1}},
	{"GTD2 (σ = 0), constant step", sel{method: MethodGTD2, schedule: Constant.String()}},
	{"GTD2 (σ = 0), diminishing step", sel{method: MethodGTD2, schedule: Diminishing.String()}},
}

// LongRunPlots draws LongRunData's table: the MSPBE against T for GPOPE and GTD2 with each schedule, beside
// LSTD and θ = 0 (drawn flat over T).
func LongRunPlots(t *experiment.Table) ([]*plot.Plot, error) {
	rows, _, _, err := rowsOf(t, "chain")
	if err != nil {
		return nil, err
	}
	Ts := values(rows, func(r Row) bool { return r.T > 0 }, byT)
	flat := append([]Row(nil), rows...)
	for _, r := range rows {
		if r.Method == MethodLSTD || r.Method == MethodZero {
			for _, T := range Ts {
				r.T = int(T)
				flat = append(flat, r)
			}
		}
	}
	p, err := panel{title: fmt.Sprintf("chain, n = %d, ε = 1: long runs, steps tuned on public data", whyN), xlabel: "T (iterations)", ylabel: "MSPBE",
		curves: append(slices.Clone(longRunCurves), ref("LSTD (non-private)", MethodLSTD), ref("θ = 0", MethodZero)), bottom: true}.draw(flat, Ts, byT)
	if err != nil {
		return nil, err
	}
	return []*plot.Plot{p}, nil
}

// LongRunTable is LongRunData's table as MSPBE / θ = 0's per curve and T, mean [95% interval] over the
// trials, with the publicly tuned (initial) step.
func LongRunTable(t *experiment.Table) (header []string, cells [][]string, err error) {
	rows, _, _, err := rowsOf(t, "chain")
	if err != nil {
		return nil, nil, err
	}
	k := trials(rows)
	Ts := values(rows, func(r Row) bool { return r.T > 0 }, byT)
	header = []string{"estimator"}
	for _, T := range Ts {
		header = append(header, fmt.Sprintf("T = %g", T))
	}
	zero := byTrial(rows, sel{method: MethodZero}, k)
	for _, c := range append(slices.Clone(longRunCurves), ref("LSTD (non-private)", MethodLSTD)) {
		row := []string{c.name}
		for _, T := range Ts {
			s := c.sel
			var a float64
			keep := func(r Row) bool { return s.match(r) && (r.T == int(T) || r.T == 0) }
			var v []float64
			for tr := range k {
				x := math.NaN()
				for _, r := range rows {
					if keep(r) && r.Trial == tr && !r.Diverged() {
						x, a = r.MSPBE/zero[tr], r.Step
					}
				}
				v = append(v, x)
			}
			cellText := fmtCI("%.3g", v)
			if a > 0 {
				cellText += fmt.Sprintf(" (α = %g)", a)
			}
			row = append(row, cellText)
		}
		cells = append(cells, row)
	}
	return header, cells, nil
}

// LongRunClaims records the paper's claim that in the long term a diminishing step beats a constant one,
// from LongRunData's table: at T = n², GPOPE with a diminishing step against a constant one, each at its
// publicly tuned step; the verdict is recomputed at T = 10n and T = n (how long "the long term" is, the paper
// leaves open).
func LongRunClaims(out report.Sink, t *experiment.Table) error {
	rows, info, _, err := rowsOf(t, "chain")
	if err != nil {
		return err
	}
	k := trials(rows)
	Ts := values(rows, func(r Row) bool { return r.T > 0 }, byT)
	at := func(method string, T int) []float64 { return byTrial(rows, sel{method: method, eps: 1, t: T}, k) }
	build := func(T int) (repro.Claim, error) {
		// Both arms at T run with the same σ: one certified ε.
		dim, err := gpopePrivacy("GPOPE, diminishing step", rows, info, sel{method: MethodGPOPEDiminishing, eps: 1, n: whyN, t: T})
		if err != nil {
			return repro.Claim{}, err
		}
		con := dim
		con.Method = "GPOPE, constant step"
		c := repro.Claim{Key: "decay", Kind: repro.KindPaper, Where: "§6 (Theorems 2 and 3); §8",
			Claim: fmt.Sprintf("Chain, n = %d, ε = 1: over many iterations (T = %d) a diminishing step beats a constant one", whyN, T),
			Quote: "Thus, in the long-term (when running many iterations), using a diminishing step size will produce a better solution.",
			Paper: "diminishing better in the long term (theory; no figure)",
			Compare: &repro.Comparison{A: "GPOPE, diminishing step", B: "GPOPE, constant step", Trivial: "θ = 0",
				Margin: interval(logRatio(byTrial(rows, sel{method: MethodZero}, k), at(MethodGPOPEDiminishing, T)))},
			Privacy: []repro.Privacy{dim, con},
			Why: fmt.Sprintf("Test: log₁₀(MSPBE with a constant step / with a diminishing step α_t = α₀/(1 + 10t/T)) per trial (the same private "+
				"sample), each at its step tuned on public data, T = %d; reproduced if above 0.", T)}
		return tested(c, logRatio(at(MethodGPOPEConstant, T), at(MethodGPOPEDiminishing, T)), 0, true, fmt.Sprintf("T = %d: log₁₀ ratio ", T), "%.3g"), nil
	}
	last := int(Ts[len(Ts)-1])
	row, err := build(last)
	if err != nil {
		return err
	}
	var alts []alternative
	for _, T := range Ts[:len(Ts)-1] {
		alt, err := build(int(T))
		if err != nil {
			return err
		}
		alts = append(alts, alternative{fmt.Sprintf("T = %g", T), alt})
	}
	row.Robust = robust("how many iterations the long term is (not stated)", alts...)
	repro.Record(out, row)
	return nil
}
