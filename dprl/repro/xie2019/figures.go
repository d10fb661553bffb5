package xie2019

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"

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

	s, err := d.Draw(1000, rand.NewPCG(2019, 1))
	if err != nil {
		return err
	}
	lstd, err := s.Data.LSTD(1e-6)
	if err != nil {
		return err
	}
	rows = [][]string{{"θ = 0", "", fmt.Sprintf("%.3g", d.True.MSPBE(make([]float64, d.Dim())))}, {"LSTD", "", fmt.Sprintf("%.3g", d.True.MSPBE(lstd))}}
	for _, T := range []int{1000, 10000, experiment.Size(100000, 20000)} {
		th, err := s.Data.GPOPE(policyeval.GPOPEConfig{Gamma: d.Gamma, Iterations: T, Step: policyeval.Constant(0.3), Clip: 1e6, NonPrivate: true, Src: rand.NewPCG(2019, 2)})
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
// every figure shares (T = n, δ = Delta for every private method, σ by Calibration, seed 2019, the clip rule
// of Domain.Clip, the public choice between a constant and a diminishing step, DP-LSL's schedule constant
// c = 100, and the baselines also at BalleDelta).
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
	return Config{N: ns, Epsilons: eps, Delta: Delta, Trials: p.Trials, Seed: Seed, Steps: p.Steps,
		TuneRuns: p.TuneRuns, Accounting: Calibration, BalleDelta: BalleDelta, LSLC: 100}
}

// runFigure tunes the step size on public data, then runs the trials, with progress bars, and returns the
// figure's tidy table.
func runFigure(out report.Sink, d *Domain, cfg Config) (*experiment.Table, error) {
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
	return Table(d.Info(), rows), nil
}

// The grids of the figures (PrivacyRuns lists their GPOPE configurations).
var (
	fig1aN   = []int{500, 1000, 2000, 5000}
	fig1aEps = []float64{0.1, 1}
	fig1bEps = []float64{0.1, 1}
	mcEps    = []float64{0.1, 0.5, 1, 2}
	hivEps   = []float64{0.5, 1, 2}
)

// stepN is the dataset size of the step-size panels (Fig. 1(b), Fig. 2(b)).
const stepN = 1000

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

// Fig1aData is the data of Fig. 1(a): the chain, every method of Experiment for n = 500, 1000, 2000, 5000 at
// ε = 0.1 and 1. When the merged sweep SweepFig1a is in the repository at root (repro.FullSize), the table
// comes from its rows (its n and trials; it must have run the protocol's step-size search) and nothing runs;
// otherwise the protocol's trials run.
func Fig1aData(out report.Sink, root string, p Protocol) (*experiment.Table, error) {
	full, ok, err := repro.FullSize(out, root, SweepFig1a)
	if err != nil || ok {
		return fromSweep(full, err, p, "chain", 0.1)
	}
	d, err := Chain()
	if err != nil {
		return nil, err
	}
	return runFigure(out, d, p.Config(fig1aN, fig1aEps))
}

// Fig1bData is the data of Fig. 1(b): on the chain at n = 1000, StepSweep at ε = 0.1 and at ε = 1.
func Fig1bData(out report.Sink, p Protocol) (*experiment.Table, error) {
	d, err := Chain()
	if err != nil {
		return nil, err
	}
	return stepData(out, d, p, fig1bEps)
}

// stepData runs StepSweep at n = stepN for each ε, with a progress bar.
func stepData(out report.Sink, d *Domain, p Protocol, eps []float64) (*experiment.Table, error) {
	cfg := p.Config([]int{stepN}, eps)
	var rows []Row
	for _, e := range eps {
		bar := out.Bar(fmt.Sprintf("%s, ε = %g", d.Name, e), cfg.Trials)
		r, err := StepSweep(d, cfg, stepN, e, bar)
		if err != nil {
			return nil, err
		}
		bar.Done()
		rows = append(rows, r...)
	}
	return Table(d.Info(), rows), nil
}

// MountainCarData is the data of Figs. 2(a), 3(a) and 3(b): Mountain Car on-policy (domain "mountaincar")
// and off-policy ("mountaincar-off"), every method of Experiment for n = 500, 1000, 2000 (500, 1000 in quick
// mode) at ε = 0.1, 0.5, 1, 2, in one table. When the merged sweep SweepFig2_3 is in the repository at root,
// both domains come from its rows and nothing runs.
func MountainCarData(out report.Sink, root string, p Protocol) (*experiment.Table, error) {
	full, ok, err := repro.FullSize(out, root, SweepFig2_3)
	if err != nil || ok {
		on, err := fromSweep(full, err, p, "mountaincar", 1)
		if err != nil {
			return nil, err
		}
		off, err := fromSweep(full, nil, p, "mountaincar-off", 1)
		if err != nil {
			return nil, err
		}
		return Concat(on, off), nil
	}
	momentTrajs := experiment.Size(1000, 300)
	cfg := p.Config(mcN(experiment.Quick()), mcEps)
	var ts []*experiment.Table
	for _, off := range []bool{false, true} {
		d, err := MountainCar(off, momentTrajs)
		if err != nil {
			return nil, err
		}
		t, err := runFigure(out, d, cfg)
		if err != nil {
			return nil, err
		}
		ts = append(ts, t)
	}
	return Concat(ts...), nil
}

// Fig2bData is the data of Fig. 2(b): on Mountain Car on-policy at n = 1000, StepSweep at ε = 1.
func Fig2bData(out report.Sink, p Protocol) (*experiment.Table, error) {
	d, err := MountainCar(false, experiment.Size(1000, 300))
	if err != nil {
		return nil, err
	}
	return stepData(out, d, p, []float64{1})
}

// Fig4Data is the data of Fig. 4: the HIV simulator off-policy, every method of Experiment for n = 100, 250,
// 500 (100, 150 in quick mode) at ε = 0.5, 1, 2; trials subsample a pool of 1200 trajectories (300 in quick
// mode) and the public data are 600 (150) independent ones. When the merged sweep SweepFig4 is in the
// repository at root, the table comes from its rows and nothing is simulated or run.
func Fig4Data(out report.Sink, root string, p Protocol) (*experiment.Table, error) {
	full, ok, err := repro.FullSize(out, root, SweepFig4)
	if err != nil || ok {
		return fromSweep(full, err, p, "hiv", 1)
	}
	bar := out.Bar("simulating", 1)
	d, err := HIV(experiment.Size(1200, 300), experiment.Size(600, 150))
	if err != nil {
		return nil, err
	}
	bar.Add(1)
	bar.Done()
	return runFigure(out, d, p.Config(hivN(experiment.Quick()), hivEps))
}

// A panel is one plot of a figure: its curves are rows of one domain selected by sel, over n or the step.
type panel struct {
	title, xlabel, ylabel string
	curves                []curveSpec
	scale                 float64 // the MSPBE is multiplied by it (HIV: 1/r̄²)
	bottom                bool    // legend at the bottom
}

// curveSpec is one curve of a panel: a name and the rows it draws.
type curveSpec struct {
	name string
	sel  sel
}

// draw plots the panel from rows: each curve's mean with a 95% t-interval band over the trials, log–log,
// against x (xs its values).
func (pn panel) draw(rows []Row, xs []float64, x func(Row) float64) (*plot.Plot, error) {
	var series []figure.Series
	for _, c := range pn.curves {
		y := curve(rows, c.sel, xs, x)
		if pn.scale != 0 {
			for _, r := range y {
				for i := range r {
					r[i] *= pn.scale
				}
			}
		}
		series = append(series, figure.Series{Name: c.name, X: xs, Y: y})
	}
	return figure.Curves(figure.Options{Title: pn.title, XLabel: pn.xlabel, YLabel: pn.ylabel, LogX: true, LogY: true, Band: figure.BandCI95,
		LegendBottom: pn.bottom}, series...)
}

// gpopeArms are the GPOPE curves of an "MSPBE vs n" panel at ε: each schedule tuned on public data, and the
// public choice at 10× and 0.1× of its step.
func gpopeArms(eps float64) []curveSpec {
	return []curveSpec{
		{"GPOPE, constant step (public tuning)", sel{method: MethodGPOPEConstant, eps: eps}},
		{"GPOPE, diminishing step (public tuning)", sel{method: MethodGPOPEDiminishing, eps: eps}},
		{"GPOPE, 10× step", sel{method: MethodGPOPE10x, eps: eps}},
		{"GPOPE, 0.1× step", sel{method: MethodGPOPETenth, eps: eps}},
	}
}

// baselineArms are DP-LSW's (and, with lsl, DP-LSL's paper-bound) curves at ε, at Delta and at BalleDelta.
func baselineArms(eps float64, lsl bool) []curveSpec {
	var out []curveSpec
	for _, delta := range []float64{Delta, BalleDelta} {
		out = append(out, curveSpec{"DP-LSW (V1), δ = " + deltaText(delta), sel{method: MethodDPLSW, eps: eps, delta: delta}})
		if lsl {
			out = append(out, curveSpec{"DP-LSL (V2), δ = " + deltaText(delta), sel{method: MethodDPLSLPaper, eps: eps, delta: delta}})
		}
	}
	return out
}

// deltaText writes δ as the notebook does: 0.1, 1e−5.
func deltaText(d float64) string {
	return strings.Replace(strings.Replace(strconv.FormatFloat(d, 'g', -1, 64), "e-0", "e−", 1), "e-", "e−", 1)
}

// ref is the curve of a non-private reference method.
func ref(name, method string) curveSpec { return curveSpec{name, sel{method: method}} }

// rowsOf reads one domain of the table, for a figure function.
func rowsOf(t *experiment.Table, domain string) ([]Row, DomainInfo, []float64, error) {
	rows, info, err := ReadTable(t, domain)
	if err != nil {
		return nil, info, nil, err
	}
	ns := values(rows, func(Row) bool { return true }, byN)
	return rows, info, ns, nil
}

// Fig1aPlots draws Fig. 1(a) from Fig1aData's table: per ε, GPOPE's arms with LSTD, the noiseless GTD2 and
// θ = 0; then GPOPE's public choice against DP-LSW and DP-LSL at GPOPE's δ and at Balle et al.'s (DP-LSL with
// the safe bound lies at θ = 0 and is left out).
func Fig1aPlots(t *experiment.Table) ([]*plot.Plot, error) {
	rows, _, ns, err := rowsOf(t, "chain")
	if err != nil {
		return nil, err
	}
	var out []*plot.Plot
	for _, e := range values(rows, func(r Row) bool { return r.Method == MethodGPOPE }, func(r Row) float64 { return r.Epsilon }) {
		refs := []curveSpec{ref("LSTD (non-private)", MethodLSTD), ref("GTD2 (σ = 0)", MethodGTD2), ref("θ = 0", MethodZero)}
		for _, pn := range []panel{
			{title: fmt.Sprintf("Fig. 1(a): chain, ε = %g, GPOPE", e), curves: append(gpopeArms(e), refs...)},
			{title: fmt.Sprintf("Fig. 1(a): chain, ε = %g, against output perturbation", e),
				curves: append(append([]curveSpec{{"GPOPE (public choice)", sel{method: MethodGPOPE, eps: e}}}, baselineArms(e, true)...), refs[0], refs[2])},
		} {
			pn.xlabel, pn.ylabel = "n (trajectories)", "MSPBE"
			p, err := pn.draw(rows, ns, byN)
			if err != nil {
				return nil, err
			}
			out = append(out, p)
		}
	}
	return out, nil
}

// stepPlots draws a step sweep's panels (Fig. 1(b), 2(b)), one per ε: GPOPE with each schedule and the
// noiseless GTD2 against the (initial) step, beside the non-private LSTD (WIS-LSTD off-policy) and θ = 0.
func stepPlots(t *experiment.Table, domain, title string) ([]*plot.Plot, error) {
	rows, info, _, err := rowsOf(t, domain)
	if err != nil {
		return nil, err
	}
	steps := values(rows, func(r Row) bool { return r.Method == MethodGPOPEAtStep }, byStep)
	var out []*plot.Plot
	for _, e := range values(rows, func(r Row) bool { return r.Method == MethodGPOPEAtStep }, func(r Row) float64 { return r.Epsilon }) {
		// The non-private references are one value per trial, drawn flat over the steps.
		flat := append([]Row(nil), rows...)
		var refs []Row
		for _, r := range rows {
			if r.Method == MethodLSTD || r.Method == MethodWISLSTD || r.Method == MethodZero {
				for _, a := range steps {
					r.Step = a
					refs = append(refs, r)
				}
			}
		}
		flat = append(flat, refs...)
		ls := "LSTD (non-private)"
		lsMethod := MethodLSTD
		if strings.HasSuffix(info.Name, "-off") || info.Name == "hiv" {
			ls, lsMethod = "WIS-LSTD (non-private)", MethodWISLSTD
		}
		pn := panel{title: fmt.Sprintf("%s, n = %d, ε = %g", title, rows[0].N, e), xlabel: "step size α (diminishing: α₀)", ylabel: "MSPBE",
			curves: []curveSpec{
				{"GPOPE, constant step", sel{method: MethodGPOPEAtStep, eps: e, schedule: Constant.String()}},
				{"GPOPE, diminishing step", sel{method: MethodGPOPEAtStep, eps: e, schedule: Diminishing.String()}},
				{"GTD2 (σ = 0), constant step", sel{method: MethodGTD2AtStep, eps: e}},
				ref(ls, lsMethod), ref("θ = 0", MethodZero),
			}}
		p, err := pn.draw(flat, steps, byStep)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// Fig1bPlots draws Fig. 1(b) from Fig1bData's table.
func Fig1bPlots(t *experiment.Table) ([]*plot.Plot, error) {
	return stepPlots(t, "chain", "Fig. 1(b): chain")
}

// Fig2bPlots draws Fig. 2(b) from Fig2bData's table.
func Fig2bPlots(t *experiment.Table) ([]*plot.Plot, error) {
	return stepPlots(t, "mountaincar", "Fig. 2(b): Mountain Car")
}

// MountainCarPlots draws Figs. 2(a), 3(a) and 3(b) from MountainCarData's table: on-policy at ε = 1 every
// GPOPE arm against DP-LSW (δ = 1e−5 and 0.1) and LSTD; GPOPE's public choice for every ε on-policy and
// off-policy, with LSTD (WIS-LSTD), the noiseless GTD2 and θ = 0. DP-LSW runs at ε ≤ 1 only.
func MountainCarPlots(t *experiment.Table) ([]*plot.Plot, error) {
	on, _, ns, err := rowsOf(t, "mountaincar")
	if err != nil {
		return nil, err
	}
	off, _, _, err := rowsOf(t, "mountaincar-off")
	if err != nil {
		return nil, err
	}
	eps := values(on, func(r Row) bool { return r.Method == MethodGPOPE }, func(r Row) float64 { return r.Epsilon })
	byEps := func(ls string, lsMethod string) []curveSpec {
		var c []curveSpec
		for _, e := range eps {
			c = append(c, curveSpec{fmt.Sprintf("GPOPE, ε = %g", e), sel{method: MethodGPOPE, eps: e}})
		}
		return append(c, ref(ls, lsMethod), ref("GTD2 (σ = 0)", MethodGTD2), ref("θ = 0", MethodZero))
	}
	var out []*plot.Plot
	for _, f := range []struct {
		pn   panel
		rows []Row
	}{
		{panel{title: "Fig. 2(a): Mountain Car on-policy, ε = 1",
			curves: append(append(gpopeArms(1), baselineArms(1, false)...), ref("LSTD (non-private)", MethodLSTD), ref("θ = 0", MethodZero))}, on},
		{panel{title: "Fig. 3(a): Mountain Car on-policy, GPOPE (public choice) for several ε", curves: byEps("LSTD (non-private)", MethodLSTD)}, on},
		{panel{title: "Fig. 3(b): Mountain Car off-policy (π uniform), several ε", curves: byEps("WIS-LSTD (non-private)", MethodWISLSTD)}, off},
	} {
		f.pn.xlabel, f.pn.ylabel = "n (trajectories)", "MSPBE"
		p, err := f.pn.draw(f.rows, ns, byN)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// Fig4Plots draws Fig. 4 from Fig4Data's table: GPOPE's public choice for every ε beside WIS-LSTD, the
// noiseless GTD2 and θ = 0, as relative MSPBE (MSPBE / r̄²).
func Fig4Plots(t *experiment.Table) ([]*plot.Plot, error) {
	rows, info, ns, err := rowsOf(t, "hiv")
	if err != nil {
		return nil, err
	}
	var c []curveSpec
	for _, e := range values(rows, func(r Row) bool { return r.Method == MethodGPOPE }, func(r Row) float64 { return r.Epsilon }) {
		c = append(c, curveSpec{fmt.Sprintf("GPOPE, ε = %g", e), sel{method: MethodGPOPE, eps: e}})
	}
	c = append(c, ref("WIS-LSTD (non-private)", MethodWISLSTD), ref("GTD2 (σ = 0)", MethodGTD2), ref("θ = 0", MethodZero))
	p, err := panel{title: "Fig. 4: HIV off-policy", xlabel: "n (trajectories)", ylabel: "relative MSPBE", curves: c,
		scale: 1 / (info.MeanReward * info.MeanReward)}.draw(rows, ns, byN)
	if err != nil {
		return nil, err
	}
	return []*plot.Plot{p}, nil
}

// Show shows a figure: the tuning table of every domain in t that ran the public tuning, the plots, and the
// caption under them (Caption).
func Show(out report.Sink, t *experiment.Table, plots []*plot.Plot) error {
	domains, err := Domains(t)
	if err != nil {
		return err
	}
	for _, d := range domains {
		rows, info, err := ReadTable(t, d)
		if err != nil {
			return err
		}
		if header, cells := TuningTable(rows); len(cells) > 0 {
			out.Markdown(fmt.Sprintf("**%s**: C = %.3g, T = n, δ = 1e−5, one trajectory per step, σ by WBK Theorem 27 (the ledger at the end "+
				"lists the privacy of every run); per (n, ε) the step each schedule got on public data, the public choice, the share of its "+
				"gradients clipped, and the step tuned for the non-private GTD2:", info.Name, info.Clip))
			out.Table(header, cells)
		}
	}
	for _, p := range plots {
		if err := out.Figure(p); err != nil {
			return err
		}
	}
	caption, err := Caption(t)
	if err != nil {
		return err
	}
	out.Markdown(caption)
	return nil
}

// TuningTable is the public tuning as the rows record it, per (n, ε) of GPOPE's public choice: σ, each
// schedule's tuned step, the choice, the mean share of the choice's clipped gradients over the trials, and
// GTD2's step; empty for rows without a public choice (step sweeps).
func TuningTable(rows []Row) (header []string, cells [][]string) {
	header = []string{"n", "ε", "σ", "constant: α", "diminishing: α₀", "public choice", "clipped", "GTD2 step"}
	type key struct {
		n   int
		eps float64
	}
	var keys []key
	for _, r := range rows {
		if k := (key{r.N, r.Epsilon}); r.Method == MethodGPOPE && !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	first := func(s sel) (Row, bool) {
		i := slices.IndexFunc(rows, s.match)
		if i < 0 {
			return Row{}, false
		}
		return rows[i], true
	}
	for _, k := range keys {
		choice, _ := first(sel{method: MethodGPOPE, eps: k.eps, n: k.n})
		c, _ := first(sel{method: MethodGPOPEConstant, eps: k.eps, n: k.n})
		dm, _ := first(sel{method: MethodGPOPEDiminishing, eps: k.eps, n: k.n})
		g, _ := first(sel{method: MethodGTD2, n: k.n})
		clipped, m := 0.0, 0
		for _, r := range rows {
			if (sel{method: MethodGPOPE, eps: k.eps, n: k.n}).match(r) {
				clipped, m = clipped+r.ClippedShare, m+1
			}
		}
		cells = append(cells, []string{fmt.Sprint(k.n), fmt.Sprint(k.eps), fmt.Sprintf("%.3g", choice.Sigma), fmt.Sprint(c.Step), fmt.Sprint(dm.Step),
			choice.Schedule, fmt.Sprintf("%.0f%%", 100*clipped/float64(m)), fmt.Sprint(g.Step)})
	}
	return header, cells
}

// Caption is the note under a figure: the seeds behind its bands and the diverged runs, counted per point
// (method, ε, δ, schedule and n or step) of every domain in t.
func Caption(t *experiment.Table) (string, error) {
	domains, err := Domains(t)
	if err != nil {
		return "", err
	}
	var notes []string
	for _, d := range domains {
		rows, _, err := ReadTable(t, d)
		if err != nil {
			return "", err
		}
		if len(domains) > 1 {
			notes = append(notes, "*"+d+"*:")
		}
		notes = append(notes, seedsNote(rows), divergedNote(rows))
	}
	return strings.Join(notes, " "), nil
}

// seedsNote says which streams the trials drew from: rand.NewPCG(seed, k) for trial k of a notebook run, or
// rand.NewPCG(s, 0) for the trial of seed s of a merged sweep.
func seedsNote(rows []Row) string {
	k := trials(rows)
	seeds := make([]uint64, k)
	streams := make([]uint64, k)
	for _, r := range rows {
		seeds[r.Trial], streams[r.Trial] = r.Seed, r.Stream
	}
	if k > 0 && slices.Min(seeds) == slices.Max(seeds) {
		return fmt.Sprintf("Bands: 95%% Student-t intervals of the mean over %d trials; trial k draws from rand.NewPCG(%d, k), k = 0…%d.", k, seeds[0], k-1)
	}
	slices.Sort(seeds)
	return fmt.Sprintf("Bands: 95%% Student-t intervals of the mean over the sweep's %d trials; the trial of seed s draws from rand.NewPCG(s, 0), s %s, "+
		"after the public step-size tuning with seed %d (the notebook's).", k, repro.SeedRange(seeds), Seed)
}

// divergedNote counts the diverged runs per point: method, ε, δ, schedule and n (or the step of a step sweep).
func divergedNote(rows []Row) string {
	type point struct {
		method, schedule string
		eps, delta, x    float64
		byStep           bool
	}
	var order []point
	count, total := map[point]int{}, map[point]int{}
	for _, r := range rows {
		p := point{method: r.Method, schedule: r.Schedule, eps: r.Epsilon, delta: r.Delta, x: float64(r.N)}
		if r.Method == MethodGPOPEAtStep || r.Method == MethodGTD2AtStep {
			p.x, p.byStep = r.Step, true
		}
		if _, ok := total[p]; !ok {
			order = append(order, p)
		}
		total[p]++
		if r.Diverged() {
			count[p]++
		}
	}
	var parts []string
	all := 0
	for _, p := range order {
		if c := count[p]; c > 0 {
			all += c
			where := fmt.Sprintf("n = %g", p.x)
			if p.byStep {
				where = fmt.Sprintf("α = %g", p.x)
			}
			name := p.method
			if p.schedule != "" && (p.method == MethodGPOPEAtStep || p.method == MethodGPOPE10x || p.method == MethodGPOPETenth || p.method == MethodGPOPE) {
				name += ", " + p.schedule
			}
			parts = append(parts, fmt.Sprintf("%s, ε = %g, %s: %d/%d", name, p.eps, where, c, total[p]))
		}
	}
	if all == 0 {
		return fmt.Sprintf("Diverged runs: none (of %d).", len(rows))
	}
	return fmt.Sprintf("Diverged runs (left out of the curves and of the claims' intervals), per point: %s; none at the other points.", strings.Join(parts, "; "))
}

// mean is the mean of the finite values.
func mean(xs []float64) float64 {
	s, k := 0.0, 0
	for _, x := range xs {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			s, k = s+x, k+1
		}
	}
	return s / float64(k)
}
