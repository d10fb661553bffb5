package balle2016

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/dprl-project/dprl/dprl/figure"
	"github.com/dprl-project/dprl/dprl/repro"
)

// Figure is one panel and the note shown under it: what the bands are, where the seeds' batches come from
// and the diverged runs per point. The functions that make figures read a Data or a Choice and run nothing.
type Figure = repro.Figure

// curve is one series of a figure drawn from the data: its legend, its curve and the metric.
type curve struct {
	name string
	k    key
	m    metric
}

// panelOf draws curves of d against the batch size (or, with xs and pick, against another axis) with 95%
// bands, the references refs after them, and the note: bands, seeds, diverged runs.
func panelOf(d *Data, opt figure.Options, curves []curve, refs ...figure.Series) (Figure, error) {
	var series []figure.Series
	for _, c := range curves {
		y, err := d.curve(c.k, c.m)
		if err != nil {
			return Figure{}, err
		}
		series = append(series, figure.Series{Name: c.name, X: d.M, Y: y})
	}
	return draw(opt, series, refs, d.note())
}

// draw makes the figure of series (with bands) and refs, and its note: note, then the diverged runs of
// series per point.
func draw(opt figure.Options, series, refs []figure.Series, note string) (Figure, error) {
	opt.Band = figure.BandCI95
	p, err := figure.Curves(opt, append(series, refs...)...)
	if err != nil {
		return Figure{}, err
	}
	note += " " + diverged(series)
	if opt.LogY {
		note += hidden(series)
	}
	return Figure{Plot: p, Note: note}, nil
}

// hidden names the points of series whose mean is not positive, which a log axis cannot draw (an excess risk
// over a regularised solution can be negative: LSL minimises the regularised loss, not J_X).
func hidden(series []figure.Series) string {
	var parts []string
	for _, s := range series {
		mean, _, _ := figure.MeanStd(s.Y)
		var xs []string
		for j, m := range mean {
			if m <= 0 {
				xs = append(xs, fmt.Sprint(s.X[j]))
			}
		}
		if len(xs) > 0 {
			parts = append(parts, fmt.Sprintf("%s at %s", s.Name, strings.Join(xs, ", ")))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " Not drawn on the log axis (a mean at or below 0): " + strings.Join(parts, "; ") + "."
}

// note says what the bands are and where the seeds' batches come from.
func (d *Data) note() string {
	return fmt.Sprintf("Bands: 95%% confidence interval of the mean over %d seeds (Student t); %s.", len(d.Seeds), d.Source)
}

// diverged counts, per series and point, the runs whose value is not finite (an estimate that diverged).
func diverged(series []figure.Series) string {
	var parts []string
	runs := 0
	for _, s := range series {
		runs = max(runs, len(s.Y))
		for j, x := range s.X {
			n := 0
			for _, row := range s.Y {
				if math.IsNaN(row[j]) || math.IsInf(row[j], 0) {
					n++
				}
			}
			if n > 0 {
				parts = append(parts, fmt.Sprintf("%s at %g: %d of %d", s.Name, x, n, len(s.Y)))
			}
		}
	}
	if len(parts) == 0 {
		return fmt.Sprintf("Diverged runs (a non-finite estimate): none, at every point of every curve (%d runs each).", runs)
	}
	return "Diverged runs (a non-finite estimate, left out of the mean): " + strings.Join(parts, "; ") + "."
}

// constant is a reference line at y over x (one trial, no band).
func constant(name string, x []float64, y float64) figure.Series {
	row := make([]float64, len(x))
	for i := range row {
		row[i] = y
	}
	return figure.Series{Name: name, X: x, Y: [][]float64{row}}
}

// zeroLine is θ = 0's RMSE over xs (the same on every batch: it does not look at the data).
func zeroLine(xs []float64) (figure.Series, error) {
	s, err := NewSetup()
	if err != nil {
		return figure.Series{}, err
	}
	return constant("θ = 0", xs, zeroRMSE(s)), nil
}

func mAxis(opt figure.Options) figure.Options {
	opt.XLabel, opt.LogX, opt.LogY = "m (trajectories)", true, true
	return opt
}

// SelectionFigure draws the choice of c: DP-LSL's overall RMSE on the selection batches against c for every
// exponent in the primary arm and for the code's exponent in the other arms, beside θ = 0's; the note
// lists the c chosen for each.
func SelectionFigure(ch *Choice) (Figure, error) {
	var series []figure.Series
	var chosen []string
	for _, arm := range Arms() {
		for _, power := range Powers {
			if arm != ArmPublic && power != CodePower {
				continue
			}
			per := ch.PerSeed[arm.Name][power]
			y := make([][]float64, ch.Seeds)
			for s := range y {
				y[s] = make([]float64, len(CGrid))
				for k := range CGrid {
					y[s][k] = per[k][s]
				}
			}
			name := fmt.Sprintf("%s, p = %g", arm.Name, power)
			series = append(series, figure.Series{Name: name, X: CGrid, Y: y})
			chosen = append(chosen, fmt.Sprintf("%s: c = %g", name, ch.C[arm.Name][power]))
		}
	}
	ms := make([]string, len(ch.M))
	for i, m := range ch.M {
		ms[i] = fmt.Sprint(m)
	}
	note := fmt.Sprintf("DP-LSL (the authors' bound) on the selection batches: RMSE averaged over m = %s and both feature sets. "+
		"Chosen (lowest mean): %s. Bands: 95%% confidence interval of the mean over %d seeds (Student t); %s.",
		strings.Join(ms, ", "), strings.Join(chosen, "; "), ch.Seeds, ch.Source)
	return draw(figure.Options{Title: "Choosing c: DP-LSL's overall RMSE on simulated batches", XLabel: "c (λ = λ_min + c·m^p)",
		YLabel: "overall RMSE", LogX: true, LogY: true}, series, []figure.Series{constant("θ = 0", CGrid, ch.Zero)}, note)
}

// Panel1 is Fig. 1 (1): the non-private LSW and LSL (the setting's LSLC) against m, tabular and paired
// features, beside θ = 0.
func Panel1(d *Data, s Setting) (Figure, error) {
	lsl := fmt.Sprintf("LSL (c = %g)", s.LSLC)
	zero, err := zeroLine(d.M)
	if err != nil {
		return Figure{}, err
	}
	return panelOf(d, mAxis(figure.Options{Title: "Fig. 1 (1): non-private estimators", YLabel: "RMSE"}), []curve{
		{"LSW, tabular", lswKey(FeaturesTabular), rmseOf}, {lsl + ", tabular", lslKey(FeaturesTabular, CodePower, s.LSLC), rmseOf},
		{"LSW, pairs", lswKey(FeaturesPairs), rmseOf}, {lsl + ", pairs", lslKey(FeaturesPairs, CodePower, s.LSLC), rmseOf},
	}, zero)
}

// cCurve is a curve of Fig. 1 (2): its legend and its key at schedule constant c.
type cCurve struct {
	name string
	k    func(c float64) key
}

// Panel2 is Fig. 1 (2): RMSE against the schedule constant c at each batch size of Panel2M, tabular
// features, in the setting's arm: LSW, LSL, DP-LSW, DP-LSL with the authors' and (primary arm only) the safe
// bound, beside θ = 0. LSW and DP-LSW do not depend on c.
func Panel2(d *Data, s Setting) ([]Figure, error) {
	var out []Figure
	for _, m := range Panel2M {
		j := slices.Index(d.M, m)
		if j < 0 {
			continue
		}
		curves := []cCurve{
			{"LSW", func(float64) key { return lswKey(FeaturesTabular) }},
			{"LSL", func(c float64) key { return lslKey(FeaturesTabular, CodePower, c) }},
			{"DP-LSW", func(float64) key { return dplswKey(FeaturesTabular, s.Arm) }},
			{"DP-LSL (paper bound)", func(c float64) key { return dplslKey(FeaturesTabular, s.Arm, CodePower, c) }},
		}
		if s.Arm == ArmPublic {
			curves = append(curves, cCurve{"DP-LSL (safe bound)", safeKey})
		}
		var series []figure.Series
		for _, c := range curves {
			y := nanGrid(len(d.Seeds), len(CGrid))
			for k, cc := range CGrid {
				col, err := d.at(c.k(cc), rmseOf, j)
				if err != nil {
					return nil, err
				}
				for t, v := range col {
					y[t][k] = v
				}
			}
			series = append(series, figure.Series{Name: c.name, X: CGrid, Y: y})
		}
		zero, err := zeroLine(CGrid)
		if err != nil {
			return nil, err
		}
		f, err := draw(figure.Options{Title: fmt.Sprintf("Fig. 1 (2): RMSE vs regularisation, m = %g (tabular, %s)", m, s.Arm.Name),
			XLabel: "c (λ = λ_min + c·m^0.4)", YLabel: "RMSE", LogX: true, LogY: true}, series, []figure.Series{zero}, d.note())
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

// Panel3 is Fig. 1 (3): RMSE against m with paired features for LSW, LSL, DP-LSW and DP-LSL (the authors'
// bound) in the setting, beside θ = 0.
func Panel3(d *Data, s Setting) (Figure, error) {
	zero, err := zeroLine(d.M)
	if err != nil {
		return Figure{}, err
	}
	return panelOf(d, mAxis(figure.Options{Title: fmt.Sprintf("Fig. 1 (3): RMSE vs m, pairs (%s, c = %g)", s.Arm.Name, s.C), YLabel: "RMSE"}), []curve{
		{"LSW", lswKey(FeaturesPairs), rmseOf}, {"LSL", lslKey(FeaturesPairs, CodePower, s.C), rmseOf},
		{"DP-LSW", dplswKey(FeaturesPairs, s.Arm), rmseOf}, {"DP-LSL", dplslKey(FeaturesPairs, s.Arm, CodePower, s.C), rmseOf},
	}, zero)
}

// Panel4 is Fig. 1 (4): the excess empirical risk of each private estimate over its non-private counterpart
// on the same batch, paired and tabular, beside θ = 0's over LSW and the non-private LSL's over LSW.
func Panel4(d *Data, s Setting) (Figure, error) {
	var curves []curve
	for _, f := range []string{FeaturesPairs, FeaturesTabular} {
		curves = append(curves, curve{"DP-LSW, " + f, dplswKey(f, s.Arm), riskOf}, curve{"DP-LSL, " + f, dplslKey(f, s.Arm, CodePower, s.C), riskOf})
	}
	for _, f := range []string{FeaturesPairs, FeaturesTabular} {
		curves = append(curves, curve{"θ = 0 vs LSW, " + f, zeroKey(f), riskOf}, curve{"LSL vs LSW, " + f, lslKey(f, CodePower, s.C), riskOf})
	}
	return panelOf(d, mAxis(figure.Options{Title: fmt.Sprintf("Fig. 1 (4): excess empirical risk vs m (%s, c = %g)", s.Arm.Name, s.C),
		YLabel: "excess empirical risk"}), curves)
}

// NoiseFigure draws the noise σ of DP-LSW and DP-LSL against m (paired and tabular features) in the
// setting, beside θ = 0's RMSE: on these features noise N(0, σ²I) alone adds an RMSE of about σ.
func NoiseFigure(d *Data, s Setting) (Figure, error) {
	zero, err := zeroLine(d.M)
	if err != nil {
		return Figure{}, err
	}
	zero.Name = "θ = 0 (its RMSE)"
	var curves []curve
	for _, f := range []string{FeaturesPairs, FeaturesTabular} {
		curves = append(curves, curve{"DP-LSW, " + f, dplswKey(f, s.Arm), sigmaOf}, curve{"DP-LSL, " + f, dplslKey(f, s.Arm, CodePower, s.C), sigmaOf})
	}
	return panelOf(d, mAxis(figure.Options{Title: fmt.Sprintf("Noise σ vs m (%s, c = %g)", s.Arm.Name, s.C), YLabel: "σ"}), curves, zero)
}
