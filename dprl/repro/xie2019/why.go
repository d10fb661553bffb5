package xie2019

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/floats"

	"github.com/dprl-project/dprl/dprl/experiment"
	"github.com/dprl-project/dprl/dprl/figure"
	"github.com/dprl-project/dprl/dprl/policyeval"
	"github.com/dprl-project/dprl/dprl/report"
)

// snrN is the dataset size of WhyTrivial's signal-and-noise table; whyN that of its plot.
const (
	snrN = 1000
	whyN = 100
)

// whyT are the iteration counts of WhyTrivial's plot: T = n, 10n and n².
func whyT(n int) []int { return []int{n, 10 * n, n * n} }

// whySteps are the step grids of WhyTrivial's plot, for GPOPE and for the noiseless GTD2; each curve takes,
// at each T, the step whose mean MSPBE over the trials is smallest (chosen in hindsight, which favours GPOPE).
var whySteps = map[bool][]float64{true: {1e-6, 1e-5, 1e-4, 1e-3}, false: {0.1, 0.3, 1, 3}}

// snrRow is one row of the signal-and-noise table: the accounting that calibrates σ and T as a function of n.
type snrRow struct {
	acc  policyeval.GPOPEAccounting
	name string
	T    func(n int) int
}

// whySNR are the rows of the signal-and-noise table: the paper's σ at T = n and 10n, and Theorem 27's at
// T = n² (where Theorem 9 cannot reach small ε for small n).
var whySNR = []snrRow{
	{policyeval.AccountingTheorem9, "T = n (paper's σ)", func(n int) int { return n }},
	{policyeval.AccountingTheorem9, "T = 10n (paper's σ)", func(n int) int { return 10 * n }},
	{policyeval.AccountingTight, "T = n² (σ by WBK Thm 27)", func(n int) int { return n * n }},
}

// WhyTrivial explains why GPOPE stays at θ = 0 in every figure, and what more iterations and diminishing
// steps change. First, on the chain and Mountain Car at n = 1000 and ε = 1: the expected gradient at x = 0 is
// [0; −b], so its norm ‖b‖ is the signal a step carries, against noise of norm σ√(2d); after T steps of a
// constant step from 0 the sum of the updates has signal-to-noise ‖b‖√T/(σ√(2d)), and since σ grows with T
// at fixed ε (like √T once T ≫ n), it saturates. The table shows these, the median public gradient norm against the
// clip C (which covers the largest), and how far the noiseless GTD2 gets in T = n steps (best step of the
// grid, chosen in hindsight). Then a plot on the chain at n = 100: MSPBE / θ = 0's against T = n, 10n and n²
// for GPOPE and the noiseless GTD2, each with a constant and a diminishing step α_t = α₀/(1 + 10t/T), α₀ from
// whySteps chosen in hindsight (which favours GPOPE), σ for ε = 1 by Theorem 27 (Theorem 9's floor exceeds
// ε = 1 at T = n² for n = 100), with LSTD and θ = 0; bands are 95% t-intervals over the protocol's trials.
func WhyTrivial(out report.Sink, p Protocol) error {
	chain, err := Chain()
	if err != nil {
		return err
	}
	mc, err := MountainCar(false, experiment.Size(1000, 300))
	if err != nil {
		return err
	}
	gtdSteps := []float64{1e-3, 1e-2, 0.1, 0.3, 1, 3}
	var table [][]string
	var gtd [][]string
	for _, d := range []*Domain{chain, mc} {
		b := floats.Norm(d.True.B, 2)
		_, pub, err := d.DrawPublic(200, rand.NewPCG(2019, 9))
		if err != nil {
			return err
		}
		zero := make([]float64, d.Dim())
		norms := GradientNorms(pub, d.Gamma, zero, zero)
		slices.Sort(norms)
		noise := math.Sqrt(2 * float64(d.Dim()))
		for _, r := range whySNR {
			T := r.T(snrN)
			priv, err := PrivacyRun{Accounting: r.acc, N: snrN, T: T, Epsilon: 1}.Account()
			if err != nil {
				return err
			}
			perStep := b / d.Clip / (priv.SigmaOverC * noise)
			table = append(table, []string{d.Name, r.name, fmt.Sprint(d.Dim()), fmt.Sprintf("%.3g", d.Clip), fmt.Sprintf("%.3g", priv.SigmaOverC),
				fmt.Sprintf("%.3g", b/d.Clip), fmt.Sprintf("%.3g", norms[len(norms)/2]/d.Clip), fmt.Sprintf("%.2g", perStep),
				fmt.Sprintf("%.2g", perStep*math.Sqrt(float64(T)))})
		}
		// the noiseless GTD2 after T = n steps, per trial at each step; the best step by its mean
		bar := out.Bar(d.Name+": GTD2 at T = n", p.Trials)
		res, err := experiment.Trials(p.Trials, 0, 2019^0x7768_7900, bar, func(k int, src rand.Source) ([]float64, error) {
			rng := rand.New(src)
			_, ft, err := d.Draw(snrN, rand.NewPCG(rng.Uint64(), rng.Uint64()))
			if err != nil {
				return nil, err
			}
			z := d.True.MSPBE(zero)
			out := make([]float64, len(gtdSteps))
			for i, a := range gtdSteps {
				th, _, _ := runGPOPE(ft, d.Gamma, snrN, a, d.Clip, 0, true, policyeval.SampleOne, rand.NewPCG(rng.Uint64(), rng.Uint64()))
				out[i] = math.NaN()
				if th != nil {
					out[i] = d.True.MSPBE(th) / z
				}
			}
			return out, nil
		})
		if err != nil {
			return err
		}
		bar.Done()
		mean, _, _ := figure.MeanStd(res)
		best := floats.MinIdx(mean)
		col := make([]float64, len(res))
		for k := range res {
			col[k] = res[k][best]
		}
		gtd = append(gtd, []string{d.Name, fmt.Sprint(gtdSteps[best]), fmtCI("%.3g", col)})
	}
	out.Markdown(fmt.Sprintf("**Signal and noise at ε = 1, n = %d.** ‖ḡ(0)‖ = ‖b‖ is the norm of the expected gradient at x = 0; a "+
		"step adds noise of norm ≈ σ√(2d). The last column is the signal-to-noise ratio of the sum of T updates from 0, "+
		"‖b‖√T/(σ√(2d)): σ grows with T at fixed ε (like √T once T ≫ n), so this ratio saturates as T grows, while it grows "+
		"linearly in n.", snrN))
	out.Table([]string{"domain", "T", "d", "C", "σ / C", "‖ḡ(0)‖ / C", "median ‖gᵢ(0)‖ / C", "SNR per step", "SNR of the T-step sum"}, table)
	out.Markdown(fmt.Sprintf("**The non-private GTD2 after T = n = %d steps** (σ = 0, same clip; the best step of %v in hindsight), "+
		"MSPBE / θ = 0's, mean [95%% interval] over %d trials (trial k: rand.NewPCG(%d, k)):", snrN, gtdSteps, p.Trials, uint64(2019^0x7768_7900)))
	out.Table([]string{"domain", "best step", "GTD2 / θ = 0"}, gtd)

	// The plot: the chain at n = whyN, T = n, 10n, n².
	Ts := whyT(whyN)
	type variant struct {
		name       string
		private    bool
		diminish   bool
		sigmaOverC []float64 // per T
	}
	sig := make([]float64, len(Ts))
	for i, T := range Ts {
		priv, err := PrivacyRun{Accounting: policyeval.AccountingTight, N: whyN, T: T, Epsilon: 1}.Account()
		if err != nil {
			return err
		}
		sig[i] = priv.SigmaOverC
	}
	variants := []variant{
		{"GPOPE, constant step", true, false, sig},
		{"GPOPE, diminishing step", true, true, sig},
		{"GTD2 (σ = 0), constant step", false, false, nil},
		{"GTD2 (σ = 0), diminishing step", false, true, nil},
	}
	// res[k][v][T][step], and per trial LSTD / θ = 0 at index len(variants)
	const seedWhy = 2019 ^ 0x7768_7901
	bar := out.Bar("chain: T = n, 10n, n²", p.Trials)
	res, err := experiment.Trials(p.Trials, 0, seedWhy, bar, func(k int, src rand.Source) ([][][]float64, error) {
		rng := rand.New(src)
		_, ft, err := chain.Draw(whyN, rand.NewPCG(rng.Uint64(), rng.Uint64()))
		if err != nil {
			return nil, err
		}
		z := chain.True.MSPBE(make([]float64, chain.Dim()))
		out := make([][][]float64, len(variants)+1)
		for v, va := range variants {
			out[v] = make([][]float64, len(Ts))
			for i, T := range Ts {
				out[v][i] = make([]float64, len(whySteps[va.private]))
				for j, a := range whySteps[va.private] {
					step := policyeval.Constant(a)
					if va.diminish {
						step = policyeval.Diminishing(a, float64(T)/10)
					}
					sigma := 0.0
					if va.private {
						sigma = va.sigmaOverC[i] * chain.Clip
					}
					th, _, _ := runGPOPESchedule(ft, chain.Gamma, T, step, chain.Clip, sigma, !va.private, policyeval.SampleOne, rand.NewPCG(rng.Uint64(), rng.Uint64()))
					out[v][i][j] = math.NaN()
					if th != nil {
						out[v][i][j] = chain.True.MSPBE(th) / z
					}
				}
			}
		}
		th, err := policyeval.LSTD(ft, chain.Gamma, 1e-6)
		if err != nil {
			return nil, err
		}
		out[len(variants)] = [][]float64{{chain.True.MSPBE(th) / z}}
		return out, nil
	})
	if err != nil {
		return err
	}
	bar.Done()
	xs := make([]float64, len(Ts))
	for i, T := range Ts {
		xs[i] = float64(T)
	}
	var series []figure.Series
	var summary [][]string
	for v, va := range variants {
		y := make([][]float64, p.Trials)
		for k := range y {
			y[k] = make([]float64, len(Ts))
		}
		row := []string{va.name}
		for i := range Ts {
			per := make([][]float64, p.Trials)
			for k := range per {
				per[k] = res[k][v][i]
			}
			mean, _, _ := figure.MeanStd(per)
			best := 0
			for j := range mean {
				if mean[j] < mean[best] || math.IsNaN(mean[best]) {
					best = j
				}
			}
			col := make([]float64, p.Trials)
			for k := range y {
				y[k][i], col[k] = per[k][best], per[k][best]
			}
			row = append(row, fmt.Sprintf("%s (α₀ = %g)", fmtCI("%.3g", col), whySteps[va.private][best]))
		}
		summary = append(summary, row)
		series = append(series, figure.Series{Name: va.name, X: xs, Y: y})
	}
	lstd, ones := make([][]float64, p.Trials), make([][]float64, p.Trials)
	lcol := make([]float64, p.Trials)
	for k := range lstd {
		lcol[k] = res[k][len(variants)][0][0]
		lstd[k] = []float64{lcol[k], lcol[k], lcol[k]}
		ones[k] = []float64{1, 1, 1}
	}
	series = append(series, figure.Series{Name: "LSTD (non-private)", X: xs, Y: lstd}, figure.Series{Name: "θ = 0", X: xs, Y: ones})
	pl, err := figure.Curves(figure.Options{Title: fmt.Sprintf("chain, n = %d, ε = 1: MSPBE / θ = 0's against T", whyN), XLabel: "T (iterations)",
		YLabel: "MSPBE / MSPBE(θ = 0)", LogX: true, LogY: true, Band: figure.BandCI95, LegendBottom: true}, series...)
	if err != nil {
		return err
	}
	if err := out.Figure(pl); err != nil {
		return err
	}
	out.Markdown(fmt.Sprintf("Chain, n = %d, ε = 1 (σ/C = %.3g, %.3g, %.3g at T = %d, %d, %d by WBK Theorem 27), MSPBE / θ = 0's, mean "+
		"[95%% interval] over %d trials (trial k: rand.NewPCG(%d, k)), each at the α₀ with the smallest mean, of %v for GPOPE and %v for "+
		"GTD2 (chosen in hindsight: not private, and favourable to GPOPE); diminishing: α_t = α₀/(1 + 10t/T). LSTD: %s.", whyN, sig[0], sig[1], sig[2],
		Ts[0], Ts[1], Ts[2], p.Trials, uint64(seedWhy), whySteps[true], whySteps[false], fmtCI("%.3g", lcol)))
	out.Table([]string{"estimator", fmt.Sprintf("T = %d", Ts[0]), fmt.Sprintf("T = %d", Ts[1]), fmt.Sprintf("T = %d", Ts[2])}, summary)
	return nil
}
