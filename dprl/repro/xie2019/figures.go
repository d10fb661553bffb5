package xie2019

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/dprl-project/dprl/dprl/experiment"
	"github.com/dprl-project/dprl/dprl/figure"
	"github.com/dprl-project/dprl/dprl/policyeval"
	"github.com/dprl-project/dprl/dprl/report"
	"github.com/dprl-project/dprl/dprl/repro"
)

// SaddlePoint checks GTD2's saddle-point form on Mountain Car's population moments (on-policy, 36 Fourier
// features): L(θ, w*(θ)) = ½ MSPBE(θ) at three random θ; then it shows how far the non-private, unclipped
// algorithm (σ = 0, step 0.3) gets in T = 1000, 10⁴ and 10⁵ iterations from n = 1000 trajectories, beside
// θ = 0 and LSTD's closed form.
func SaddlePoint(out report.Sink) error {
	d, err := MountainCar(false, experiment.Size(1000, 200))
	if err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(2019, 0))
	var rows [][]string
	for range 3 {
		theta := make([]float64, d.Dim())
		for i := range theta {
			theta[i] = rng.NormFloat64()
		}
		w, err := d.True.DualOptimum(theta)
		if err != nil {
			return err
		}
		rows = append(rows, []string{fmt.Sprintf("%.6g", d.True.Lagrangian(theta, w)), fmt.Sprintf("%.6g", d.True.MSPBE(theta)/2)})
	}
	out.Markdown(fmt.Sprintf("Mountain Car, on-policy: population moments from %d transitions.", d.MomentTransitions))
	out.Table([]string{"L(θ, w*(θ))", "½ MSPBE(θ)"}, rows)

	_, ft, err := d.Draw(1000, rand.NewPCG(2019, 1))
	if err != nil {
		return err
	}
	lstd, err := policyeval.LSTD(ft, d.Gamma, 1e-6)
	if err != nil {
		return err
	}
	rows = [][]string{{"θ = 0", "", fmt.Sprintf("%.3g", d.True.MSPBE(make([]float64, d.Dim())))}, {"LSTD", "", fmt.Sprintf("%.3g", d.True.MSPBE(lstd))}}
	for _, T := range []int{1000, 10000, experiment.Size(100000, 20000)} {
		th, err := policyeval.GPOPE(ft, policyeval.GPOPEConfig{Gamma: d.Gamma, Iterations: T, Step: policyeval.Constant(0.3), Clip: 1e6, NonPrivate: true, Src: rand.NewPCG(2019, 2)})
		if err != nil {
			return err
		}
		rows = append(rows, []string{"GTD2, α = 0.3", fmt.Sprint(T), fmt.Sprintf("%.3g", d.True.MSPBE(th))})
	}
	out.Markdown("Non-private estimates from n = 1000 trajectories (rewards scaled by 1 − γ):")
	out.Table([]string{"estimator", "T", "MSPBE"}, rows)
	return nil
}

// Protocol is what the paper leaves open and this reproduction fixes for every figure, beyond the choices
// every figure shares (T = n, δ = 1e−5, seed 2019, the clip rule of Domain.Clip, DP-LSW/DP-LSL at δ = 0.1
// with schedule constant c = 100).
type Protocol struct {
	Trials   int       // trials per figure
	TuneRuns int       // public samples of size n averaged per grid step when tuning the step size
	Steps    []float64 // the public step-size search grid
}

// Seed is the seed of every figure's trials and of the public step-size tuning (Protocol.Config).
const Seed = 2019

// paperTuneRuns is the number of public samples the step size is tuned on outside quick mode.
const paperTuneRuns = 3

// StepGrid is the public step-size search grid: half decades 1e−6, 3e−6, …, 1, 3.
func StepGrid() []float64 {
	return []float64{1e-6, 3e-6, 1e-5, 3e-5, 1e-4, 3e-4, 1e-3, 3e-3, 0.01, 0.03, 0.1, 0.3, 1, 3}
}

// DefaultProtocol runs 10 trials (2 in quick mode) and tunes the step on 3 public samples (1 in quick mode)
// over StepGrid.
func DefaultProtocol() Protocol {
	return Protocol{Trials: experiment.Size(10, 2), TuneRuns: experiment.Size(paperTuneRuns, 1), Steps: StepGrid()}
}

// PaperProtocol is DefaultProtocol with the paper's 100 trials.
func PaperProtocol() Protocol {
	p := DefaultProtocol()
	p.Trials = 100
	return p
}

// Config is the experiment configuration for dataset sizes ns and privacy levels eps under the protocol.
func (p Protocol) Config(ns []int, eps []float64) Config {
	return Config{N: ns, Epsilons: eps, Delta: 1e-5, Trials: p.Trials, Seed: Seed, Steps: p.Steps,
		TuneRuns: p.TuneRuns, LSWDelta: 0.1, LSLC: 100}
}

// run tunes the step size on public data, then runs the trials, with progress bars; it shows the tuned steps.
func run(out report.Sink, d *Domain, cfg Config) ([]Row, error) {
	bar := out.Bar(d.Name+": public step tuning", len(cfg.N)*cfg.TuneRuns)
	tu, err := Tune(d, cfg, bar)
	if err != nil {
		return nil, err
	}
	bar.Done()
	bar = out.Bar(d.Name+": trials", cfg.Trials)
	rows, err := Experiment(d, cfg, tu, bar)
	if err != nil {
		return nil, err
	}
	bar.Done()
	showTuning(out, d.Name, d.Clip, tu, rows)
	return rows, nil
}

// showTuning shows the clip bound and, per (n, ε), σ, the tuned step, the share of clipped GPOPE gradients
// over the trials and the step tuned for GTD2.
func showTuning(out report.Sink, name string, clip float64, tu []Tuning, rows []Row) {
	var t [][]string
	for _, x := range tu {
		t = append(t, []string{fmt.Sprint(x.N), fmt.Sprint(x.Epsilon), fmt.Sprintf("%.3g", x.Sigma), fmt.Sprint(x.Best),
			fmt.Sprintf("%.0f%%", 100*clippedShare(rows, x.N, x.Epsilon)), fmt.Sprint(x.GTD2Best)})
	}
	out.Markdown(fmt.Sprintf("**%s**: C = %.3g, T = n, δ = 1e−5, one trajectory per step (the paper's accounting; the privacy of "+
		"every run is in the ledger at the end); σ, the tuned step, the share of clipped GPOPE gradients and the step tuned for the "+
		"non-private GTD2:", name, clip))
	out.Table([]string{"n", "ε", "σ", "tuned step", "clipped", "GTD2 step"}, t)
}

// clippedShare is the mean share of clipped gradients of the tuned-step GPOPE runs at (n, ε).
func clippedShare(rows []Row, n int, eps float64) float64 {
	s, k := 0.0, 0
	for _, r := range rows {
		if r.Method == MethodGPOPE && r.N == n && r.Epsilon == eps {
			s, k = s+r.ClippedShare, k+1
		}
	}
	return s / float64(k)
}

func byN(r Row) float64    { return float64(r.N) }
func byStep(r Row) float64 { return r.Step }

// nonPrivate reports whether a method's rows carry ε = 0.
func nonPrivate(m string) bool {
	return m == MethodLSTD || m == MethodWISLSTD || m == MethodZero || m == MethodGTD2
}

func floatsOf(ns []int) []float64 {
	out := make([]float64, len(ns))
	for i, n := range ns {
		out[i] = float64(n)
	}
	return out
}

// curves plots the MSPBE (times scale) of the methods at each ε against x (log–log) with 95% t-interval
// bands over the trials; a non-private method is drawn once.
func curves(out report.Sink, title, xlabel, ylabel string, rows []Row, methods []string, eps []float64, xs []float64, x func(Row) float64, scale float64) error {
	var series []figure.Series
	for _, m := range methods {
		for _, e := range eps {
			y := Curve(rows, m, e, xs, x)
			for _, r := range y {
				for i := range r {
					r[i] *= scale
				}
			}
			name := m
			if len(eps) > 1 && !nonPrivate(m) {
				name = fmt.Sprintf("%s, ε = %g", m, e)
			}
			series = append(series, figure.Series{Name: name, X: xs, Y: y})
			if nonPrivate(m) {
				break
			}
		}
	}
	p, err := figure.Curves(figure.Options{Title: title, XLabel: xlabel, YLabel: ylabel, LogX: true, LogY: true, Band: figure.BandCI95}, series...)
	if err != nil {
		return err
	}
	return out.Figure(p)
}

// meanAt is the mean MSPBE of a method at (n, ε) over the trials whose run did not diverge.
func meanAt(rows []Row, method string, n int, eps float64) float64 {
	s, k := 0.0, 0
	for _, r := range rows {
		if r.Method == method && r.N == n && (r.Epsilon == eps || nonPrivate(method)) && !math.IsInf(r.MSPBE, 0) {
			s, k = s+r.MSPBE, k+1
		}
	}
	return s / float64(k)
}

// The grids of the figures (PrivacyRuns lists their GPOPE configurations).
var (
	fig1aN   = []int{500, 1000, 2000, 5000}
	fig1aEps = []float64{0.1, 1}
	fig1bEps = []float64{0.1, 1}
	mcEps    = []float64{0.1, 0.5, 1, 2}
	hivEps   = []float64{0.5, 1, 2}
)

// mcN are Mountain Car's dataset sizes (quick: the two smaller).
func mcN(quick bool) []int {
	if quick {
		return []int{500, 1000}
	}
	return []int{500, 1000, 2000}
}

// hivN are the HIV simulator's dataset sizes.
func hivN(quick bool) []int {
	if quick {
		return []int{100, 150}
	}
	return []int{100, 250, 500}
}

// Fig1a reproduces Fig. 1(a): the chain, MSPBE against n = 500, 1000, 2000, 5000 at ε = 0.1 and 1, for GPOPE
// (tuned, 10× and 0.1× step), DP-LSW, DP-LSL (paper and safe bound), the non-private LSTD and GTD2, and θ = 0.
// Claims at ε = 0.1, each tested on the per-trial values (paired within a trial's private sample) with a 95%
// t-interval: GPOPE beats DP-LSW and DP-LSL by 10× (log₁₀ of the MSPBE ratio above 1, at the n where it is
// smallest), the mis-tuned steps beat both in most (n, step) cases (the share per trial above ½), and GPOPE
// beats θ = 0 at n = 5000 (the MSPBE ratio below 1).
//
// When the merged sweep SweepFig1a is in the repository at root (repro.FullSize), the figure, the tuning table and the claims
// come from its rows (its n and trials; it must have run the protocol's step-size search) and nothing is
// run; otherwise the protocol's trials run.
func Fig1a(out report.Sink, root string, p Protocol) error {
	full, ok, err := repro.FullSize(out, root, SweepFig1a)
	if err != nil {
		return err
	}
	var rows []Row
	ns, epss, k, note := fig1aN, fig1aEps, p.Trials, seedsNote(p.Trials, Seed)
	if ok {
		s, err := fromSweep(full, p, "chain", 0.1)
		if err != nil {
			return err
		}
		s.showTuning(out, "chain")
		rows, ns, epss, k, note = s.rows, s.ns, s.eps, s.trials, s.seeds
	} else {
		d, err := Chain()
		if err != nil {
			return err
		}
		if rows, err = run(out, d, p.Config(fig1aN, fig1aEps)); err != nil {
			return err
		}
	}
	// Eight curves (the palette's size): DP-LSL with the safe bound is in the rows, not drawn; it lies at θ = 0.
	methods := []string{MethodGPOPE, MethodGPOPE10x, MethodGPOPETenth, MethodDPLSW,
		MethodDPLSLPaper, MethodLSTD, MethodGTD2, MethodZero}
	for _, e := range epss {
		if err := curves(out, fmt.Sprintf("Fig. 1(a): chain, ε = %g", e), "n (trajectories)", "MSPBE", rows, methods, []float64{e}, floatsOf(ns), byN, 1); err != nil {
			return err
		}
	}
	out.Markdown(note)

	const eps = 0.1
	weakest := func(method string) (int, []float64) {
		bestN, best, worst := 0, []float64(nil), math.Inf(1)
		for _, n := range ns {
			x := logRatio(byTrial(rows, method, n, eps, k), byTrial(rows, MethodGPOPE, n, eps, k))
			if m, _, _ := ci(x); best == nil || m < worst {
				bestN, best, worst = n, x, m
			}
		}
		return bestN, best
	}
	nV1, v1 := weakest(MethodDPLSW)
	nV2, v2 := weakest(MethodDPLSLPaper)
	share := make([]float64, k) // per trial: the share of (n, mis-tuned step) cases that beat both V1 and V2
	for t := range k {
		won, cases := 0, 0
		for _, n := range ns {
			base := math.Min(byTrial(rows, MethodDPLSW, n, eps, k)[t], byTrial(rows, MethodDPLSLPaper, n, eps, k)[t])
			for _, m := range []string{MethodGPOPE10x, MethodGPOPETenth} {
				cases++
				if byTrial(rows, m, n, eps, k)[t] < base {
					won++
				}
			}
		}
		share[t] = float64(won) / float64(cases)
	}
	nMax := ns[len(ns)-1]
	zero := ratio(byTrial(rows, MethodGPOPE, nMax, eps, k), byTrial(rows, MethodZero, nMax, 0, k))
	repro.Record(out,
		tested(repro.Claim{Key: "c1-v1", Claim: "Chain: GPOPE beats output perturbation V1 (DP-LSW) by an order of magnitude", Paper: "Fig. 1(a)",
			Why: "Test: log₁₀(MSPBE of DP-LSW / MSPBE of GPOPE) per trial (same private sample), ε = 0.1, at the n where its mean is smallest; reproduced if its 95% interval lies above 1 (10×)."},
			v1, 1, true, fmt.Sprintf("n = %d: log₁₀ ratio ", nV1), "%.3g"),
		tested(repro.Claim{Key: "c1-v2", Claim: "Chain: GPOPE beats output perturbation V2 (DP-LSL) by an order of magnitude", Paper: "Fig. 1(a)",
			Why: "Test: log₁₀(MSPBE of DP-LSL with the paper's bound / MSPBE of GPOPE) per trial, ε = 0.1, at the n where its mean is smallest; reproduced if above 1. With the authors' λ schedule DP-LSL shrinks towards 0 and sits near θ = 0, as GPOPE does."},
			v2, 1, true, fmt.Sprintf("n = %d: log₁₀ ratio ", nV2), "%.3g"),
		tested(repro.Claim{Key: "c1-mis", Claim: "Chain: with 10× or 0.1× the tuned step GPOPE usually still beats V1 and V2", Paper: "Fig. 1(a)",
			Why: fmt.Sprintf("Test: per trial, the share of the %d (n, mis-tuned step) cases at ε = 0.1 whose MSPBE is below both DP-LSW's and DP-LSL's; reproduced if its mean's interval lies above ½.", 2*len(ns))},
			share, 0.5, true, "share of cases ", "%.3g"),
		tested(repro.Claim{Key: "c1-zero", Kind: repro.KindSanity, Claim: "Chain: the private estimate is informative (beats θ = 0)", Paper: "not shown",
			Why: fmt.Sprintf("Test: GPOPE's MSPBE / θ = 0's per trial at n = %d, ε = 0.1; reproduced if below 1. GPOPE stays at θ = 0: see the section on why.", nMax)},
			zero, 1, false, "MSPBE / θ = 0: ", "%.4f"))
	return nil
}

// stepPanel plots a step sweep's GPOPE and noiseless GTD2 curves beside the non-private LSTD (WIS-LSTD
// off-policy) and θ = 0, each a constant per trial; it returns GPOPE's series.
func stepPanel(out report.Sink, title string, rows []Row, eps float64, steps []float64, trials int) (figure.Series, error) {
	constant := func(method string) [][]float64 {
		ys := make([][]float64, trials)
		for _, r := range rows {
			if r.Method == method && r.Trial < trials {
				ys[r.Trial] = make([]float64, len(steps))
				for i := range steps {
					ys[r.Trial][i] = r.MSPBE
				}
			}
		}
		return slices.DeleteFunc(ys, func(y []float64) bool { return y == nil })
	}
	ls := MethodLSTD
	if len(constant(ls)) == 0 {
		ls = MethodWISLSTD
	}
	series := []figure.Series{
		{Name: "GPOPE", X: steps, Y: Curve(rows, MethodGPOPEAtStep, eps, steps, byStep)},
		{Name: "GTD2 (σ = 0)", X: steps, Y: Curve(rows, MethodGTD2AtStep, eps, steps, byStep)},
		{Name: ls, X: steps, Y: constant(ls)},
		{Name: "θ = 0", X: steps, Y: constant(MethodZero)},
	}
	p, err := figure.Curves(figure.Options{Title: title, XLabel: "step size α", YLabel: "MSPBE", LogX: true, LogY: true, Band: figure.BandCI95}, series...)
	if err != nil {
		return figure.Series{}, err
	}
	return series[0], out.Figure(p)
}

// stepRange is, per trial, the width in decades of the steps whose MSPBE is within 2× of that trial's best.
func stepRange(y [][]float64, steps []float64) []float64 {
	out := make([]float64, len(y))
	for t, row := range y {
		best := math.Inf(1)
		for _, v := range row {
			if !math.IsNaN(v) {
				best = math.Min(best, v)
			}
		}
		lo, hi := math.Inf(1), 0.0
		for i, v := range row {
			if v <= 2*best {
				lo, hi = math.Min(lo, steps[i]), math.Max(hi, steps[i])
			}
		}
		out[t] = math.Log10(hi / lo)
	}
	return out
}

// Fig1b reproduces Fig. 1(b): on the chain at n = 1000, GPOPE at every step of the protocol's grid on each
// trial's private data (ε = 0.1 and 1), beside the same runs without noise, LSTD and θ = 0. The claim, at
// ε = 0.1: per trial, the steps within 2× of the trial's best MSPBE span at least a decade (tested by the
// 95% interval of the mean width).
func Fig1b(out report.Sink, p Protocol) error {
	d, err := Chain()
	if err != nil {
		return err
	}
	cfg := p.Config([]int{1000}, []float64{0.1})
	for _, e := range fig1bEps {
		bar := out.Bar(fmt.Sprintf("ε = %g", e), cfg.Trials)
		rows, err := StepSweep(d, cfg, 1000, e, bar)
		if err != nil {
			return err
		}
		bar.Done()
		gpope, err := stepPanel(out, fmt.Sprintf("Fig. 1(b): chain, n = 1000, ε = %g", e), rows, e, p.Steps, cfg.Trials)
		if err != nil {
			return err
		}
		if e != 0.1 {
			continue
		}
		repro.Record(out, tested(repro.Claim{Key: "c1-steps", Claim: "Chain: accuracy is stable over a very wide range of step sizes",
			Paper: "Fig. 1(b)", Why: "Test: per trial, the width in decades of the steps whose MSPBE is within 2× of that trial's best, ε = 0.1; reproduced if its mean's interval lies above 1 decade. Trivially so: there GPOPE ≈ θ = 0."},
			stepRange(gpope.Y, p.Steps), 1, true, "decades within 2× of the best: ", "%.3g"))
	}
	out.Markdown(seedsNote(cfg.Trials, cfg.Seed^0x7377_6565))
	return nil
}

// MountainCarFigures reproduces Fig. 2(a) (on-policy, ε = 1, every method), Fig. 3(a) (on-policy, GPOPE at
// ε = 0.1, 0.5, 1, 2) and Fig. 3(b) (off-policy, GPOPE and WIS-LSTD) on Mountain Car for n = 500, 1000,
// 2000 (500, 1000 in quick mode), each with the non-private GTD2 and θ = 0, and a table of GPOPE's MSPBE
// relative to θ = 0 at the largest n. DP-LSW runs at ε ≤ 1 only (Lemma 1's constants give no guarantee at
// ε = 2). Claims, each tested by a 95% interval over trials: GPOPE beats DP-LSW by 100× over n and ε ≤ 1
// (log₁₀ ratio above 2 in the weakest cell), GPOPE at ε = 1 is within 10× of LSTD at the largest n (log₁₀
// ratio below 1), and the on- and off-policy ratios to θ = 0 agree within a factor 3 (|difference of
// log₁₀| below log₁₀ 3, at the ε where it is largest).
//
// When the merged sweep SweepFig2_3 is in the repository at root (repro.FullSize), both domains' figures, tuning tables and
// claims come from its rows and nothing is run; otherwise the protocol's trials run.
func MountainCarFigures(out report.Sink, root string, p Protocol) error {
	full, ok, err := repro.FullSize(out, root, SweepFig2_3)
	if err != nil {
		return err
	}
	var rowsOn, rowsOff []Row
	ns, epss, k, note := mcN(experiment.Quick()), mcEps, p.Trials, seedsNote(p.Trials, Seed)
	if ok {
		on, err := fromSweep(full, p, "mountaincar", 1)
		if err != nil {
			return err
		}
		off, err := fromSweep(full, p, "mountaincar-off", 1)
		if err != nil {
			return err
		}
		if !slices.Equal(on.ns, off.ns) || !slices.Equal(on.eps, off.eps) || on.trials != off.trials {
			return fmt.Errorf("xie2019: merged sweep %s: on-policy n = %v, ε = %v over %d trials; off-policy n = %v, ε = %v over %d",
				full.Spec.Name, on.ns, on.eps, on.trials, off.ns, off.eps, off.trials)
		}
		on.showTuning(out, "mountaincar")
		off.showTuning(out, "mountaincar-off")
		rowsOn, rowsOff, ns, epss, k, note = on.rows, off.rows, on.ns, on.eps, on.trials, on.seeds
	} else {
		momentTrajs := experiment.Size(1000, 300)
		on, err := MountainCar(false, momentTrajs)
		if err != nil {
			return err
		}
		off, err := MountainCar(true, momentTrajs)
		if err != nil {
			return err
		}
		cfg := p.Config(ns, mcEps)
		if rowsOn, err = run(out, on, cfg); err != nil {
			return err
		}
		if rowsOff, err = run(out, off, cfg); err != nil {
			return err
		}
	}
	xs := floatsOf(ns)
	for _, f := range []struct {
		title   string
		rows    []Row
		methods []string
		eps     []float64
	}{
		{"Fig. 2(a): Mountain Car on-policy, ε = 1", rowsOn,
			[]string{MethodGPOPE, MethodGPOPE10x, MethodGPOPETenth, MethodDPLSW, MethodLSTD, MethodGTD2, MethodZero}, []float64{1}},
		{"Fig. 3(a): Mountain Car on-policy, GPOPE for several ε", rowsOn, []string{MethodGPOPE, MethodLSTD, MethodGTD2, MethodZero}, epss},
		{"Fig. 3(b): Mountain Car off-policy (π uniform), several ε", rowsOff, []string{MethodGPOPE, MethodWISLSTD, MethodGTD2, MethodZero}, epss},
	} {
		if err := curves(out, f.title, "n (trajectories)", "MSPBE", f.rows, f.methods, f.eps, xs, byN, 1); err != nil {
			return err
		}
	}
	out.Markdown(note + " DP-LSW is not run at ε = 2: Balle et al.'s Lemma 1 constants hold for ε ≤ 1 only, " +
		"so there it would have no privacy guarantee (the library refuses it).")

	nMax := ns[len(ns)-1]
	var v1 []float64
	v1Cell, worst := "", math.Inf(1)
	for _, n := range ns {
		for _, e := range epss {
			if e > 1 {
				continue
			}
			x := logRatio(byTrial(rowsOn, MethodDPLSW, n, e, k), byTrial(rowsOn, MethodGPOPE, n, e, k))
			if m, _, _ := ci(x); v1 == nil || m < worst {
				v1, v1Cell, worst = x, fmt.Sprintf("n = %d, ε = %g: log₁₀ ratio ", n, e), m
			}
		}
	}
	lstd := logRatio(byTrial(rowsOn, MethodGPOPE, nMax, 1, k), byTrial(rowsOn, MethodLSTD, nMax, 0, k))
	var rel [][]string
	var offCell string
	offLo, offHi, offMean := 0.0, 0.0, -1.0
	offSeeds := 0
	for _, e := range epss {
		a := logRatio(byTrial(rowsOn, MethodGPOPE, nMax, e, k), byTrial(rowsOn, MethodZero, nMax, 0, k))
		b := logRatio(byTrial(rowsOff, MethodGPOPE, nMax, e, k), byTrial(rowsOff, MethodZero, nMax, 0, k))
		diff, lo, hi := experiment.DiffCI(a, b, 0.95)
		if math.Abs(diff) > offMean {
			offMean = math.Abs(diff)
			offLo, offHi = absInterval(lo, hi)
			offCell = fmt.Sprintf("ε = %g: |Δ log₁₀| ", e)
			offSeeds = min(count(a), count(b))
		}
		rel = append(rel, []string{fmt.Sprint(e), fmtCI("%.4f", ratio(byTrial(rowsOn, MethodGPOPE, nMax, e, k), byTrial(rowsOn, MethodZero, nMax, 0, k))),
			fmtCI("%.4f", ratio(byTrial(rowsOff, MethodGPOPE, nMax, e, k), byTrial(rowsOff, MethodZero, nMax, 0, k)))})
	}
	out.Markdown(fmt.Sprintf("GPOPE's MSPBE relative to θ = 0 at n = %d, mean [95%% interval] over %d trials:", nMax, k))
	out.Table([]string{"ε", "on-policy", "off-policy"}, rel)
	offClaim := testedInterval(repro.Claim{Key: "m-off", Claim: "Mountain Car: off-policy performance is remarkably similar to on-policy", Paper: "Fig. 3(a) vs 3(b)",
		Why: "Test: the difference between on- and off-policy of the mean log₁₀(MSPBE / θ = 0's) (Welch interval, independent samples) at the ε where it is largest; reproduced if |difference| < log₁₀ 3 (a factor 3). Both sit at θ = 0."},
		offMean, offLo, offHi, offSeeds, math.Log10(3), false, offCell, "%.3g")
	repro.Record(out,
		tested(repro.Claim{Key: "m-v1", Claim: "Mountain Car: GPOPE improves on V1 (DP-LSW) by orders of magnitude", Paper: "Fig. 2(a)",
			Why: "Test: log₁₀(MSPBE of DP-LSW / MSPBE of GPOPE) per trial at the (n, ε ≤ 1) cell where its mean is smallest; reproduced if above 2 (100×). DP-LSW on a 10×10 grid of the state box; not run at ε = 2 (no guarantee)."},
			v1, 2, true, v1Cell, "%.3g"),
		tested(repro.Claim{Key: "m-lstd", Claim: "Mountain Car: GPOPE is close in accuracy to non-private LSTD", Paper: "Fig. 2(a), 3(a)",
			Why: fmt.Sprintf("Test: log₁₀(MSPBE of GPOPE / MSPBE of LSTD) per trial at n = %d, ε = 1; reproduced if below 1 (within 10×). θ = 0 has log₁₀ ratio %.2f.", nMax,
				math.Log10(meanAt(rowsOn, MethodZero, nMax, 0)/meanAt(rowsOn, MethodLSTD, nMax, 0)))},
			lstd, 1, false, fmt.Sprintf("n = %d, ε = 1: log₁₀ ratio ", nMax), "%.3g"),
		offClaim)
	return nil
}

// Fig2b reproduces Fig. 2(b): on Mountain Car on-policy at n = 1000 and ε = 1, GPOPE at every step of the
// protocol's grid beside the same runs without noise, LSTD and θ = 0.
func Fig2b(out report.Sink, p Protocol) error {
	d, err := MountainCar(false, experiment.Size(1000, 300))
	if err != nil {
		return err
	}
	cfg := p.Config([]int{1000}, []float64{1})
	bar := out.Bar("trials", cfg.Trials)
	rows, err := StepSweep(d, cfg, 1000, 1, bar)
	if err != nil {
		return err
	}
	bar.Done()
	if _, err = stepPanel(out, "Fig. 2(b): Mountain Car, n = 1000, ε = 1", rows, 1, p.Steps, cfg.Trials); err != nil {
		return err
	}
	out.Markdown(seedsNote(cfg.Trials, cfg.Seed^0x7377_6565))
	return nil
}

// Fig4 reproduces Fig. 4: the HIV simulator off-policy, GPOPE's relative MSPBE (MSPBE / r̄²) for n = 100,
// 250, 500 (100, 150 in quick mode) at ε = 0.5, 1, 2 beside WIS-LSTD, the non-private GTD2 and θ = 0; trials
// subsample a pool of 1200 trajectories (300 in quick mode) and the public data are 600 (150) independent
// ones. The claim: GPOPE's relative MSPBE at ε = 1 halves from the smallest n to the largest (per trial,
// log₁₀ of the ratio above log₁₀ 2, by its 95% interval).
//
// When the merged sweep SweepFig4 is in the repository at root (repro.FullSize), the figure, the tuning table and the claim come
// from its rows (r̄ and the moments' size included) and nothing is simulated or run; otherwise the
// protocol's trials run.
func Fig4(out report.Sink, root string, p Protocol) error {
	full, ok, err := repro.FullSize(out, root, SweepFig4)
	if err != nil {
		return err
	}
	var rows []Row
	var meanReward float64
	ns, epss, k, note := hivN(experiment.Quick()), hivEps, p.Trials, seedsNote(p.Trials, Seed)
	if ok {
		s, err := fromSweep(full, p, "hiv", 1)
		if err != nil {
			return err
		}
		rows, ns, epss, k, note, meanReward = s.rows, s.ns, s.eps, s.trials, s.seeds, s.domain.MeanReward
		out.Markdown(fmt.Sprintf("Mean reward of the evaluated policy r̄ = %.3g; moments from %d transitions.", meanReward, s.domain.MomentTransitions))
		s.showTuning(out, "hiv")
	} else {
		pool, public := experiment.Size(1200, 300), experiment.Size(600, 150)
		bar := out.Bar("simulating", 1)
		d, err := HIV(pool, public)
		if err != nil {
			return err
		}
		bar.Add(1)
		bar.Done()
		out.Markdown(fmt.Sprintf("Mean reward of the evaluated policy r̄ = %.3g; moments from %d transitions.", d.MeanReward, d.MomentTransitions))
		if rows, err = run(out, d, p.Config(ns, hivEps)); err != nil {
			return err
		}
		meanReward = d.MeanReward
	}
	scale := 1 / (meanReward * meanReward)
	if err := curves(out, "Fig. 4: HIV off-policy", "n (trajectories)", "relative MSPBE", rows,
		[]string{MethodGPOPE, MethodWISLSTD, MethodGTD2, MethodZero}, epss, floatsOf(ns), byN, scale); err != nil {
		return err
	}
	out.Markdown(note)
	first, last := ns[0], ns[len(ns)-1]
	fall := logRatio(byTrial(rows, MethodGPOPE, first, 1, k), byTrial(rows, MethodGPOPE, last, 1, k))
	repro.Record(out, tested(repro.Claim{Key: "h", Claim: "HIV: GPOPE's relative MSPBE falls with n", Paper: "Fig. 4",
		Why: fmt.Sprintf("Test: log₁₀(relative MSPBE at n = %d / at n = %d) per trial at ε = 1; reproduced if above log₁₀ 2 = 0.301 (it halves). θ = 0's relative MSPBE is %.3g.",
			first, last, meanAt(rows, MethodZero, first, 0)*scale)},
		fall, math.Log10(2), true, fmt.Sprintf("ε = 1, n = %d → %d: log₁₀ ratio ", first, last), "%.3g"))
	return nil
}
