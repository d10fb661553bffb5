package accounting

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"

	"github.com/dprl-project/dprl/dprl/audit"
	"github.com/dprl-project/dprl/dprl/experiment"
	"github.com/dprl-project/dprl/dprl/figure"
	"github.com/dprl-project/dprl/dprl/fnq"
	"github.com/dprl-project/dprl/dprl/report"
)

// The sections of notebook 01: each shows one table or figure of the notebook on a report.Sink and returns the
// first error. The table builders they call (GaussianTable, BalleTable, …) return the tables for other uses.

// show shows t on out, or returns err.
func show(out report.Sink, t *experiment.Table, err error) error {
	if err != nil {
		return err
	}
	out.Table(t.Columns, t.Rows)
	return nil
}

// GaussianNoise shows GaussianTable: classic versus analytic Gaussian σ, the Laplace scale and the SVT scales
// for sensitivity 1 at each ε and the given δ.
func GaussianNoise(out report.Sink, epsilons []float64, delta float64) error {
	t, err := GaussianTable(epsilons, delta)
	return show(out, t, err)
}

// SmoothConstants shows BalleTable: the smooth-sensitivity Gaussian's α and β (Lemma 1 and Appendix A) for
// each (ε, δ) and dimension d, beside the analytic Gaussian's σ.
func SmoothConstants(out report.Sink, privacy [][2]float64, dims []int) error {
	t, err := BalleTable(privacy, dims)
	return show(out, t, err)
}

// Composition shows CompositionTable: k Gaussian mechanisms of multiplier z (no sampling) by exact μ-GDP,
// PLD, RDP, advanced and optimal composition.
func Composition(out report.Sink, z float64, ks []int, delta float64) error {
	t, err := CompositionTable(z, ks, delta)
	return show(out, t, err)
}

// StepsStudy is the ε-versus-steps figure's workload: the sampled Gaussian of Workload (its Steps ignored)
// after each number of Steps, every one of Methods, at Delta.
type StepsStudy struct {
	Methods  []Method
	Workload Workload
	Steps    []int
	Delta    float64
}

// DefaultStepsStudy is notebook 01's: DP-SGD's q = 0.01 and z = 1.1 (N = 10 000 for the without-replacement
// method), δ = 1e−5, 1 to 10 000 steps (1 to 1000 in quick mode), every method.
func DefaultStepsStudy() StepsStudy {
	steps := []int{1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000}
	if experiment.Quick() {
		steps = []int{1, 10, 100, 1000}
	}
	return StepsStudy{Methods: Methods, Workload: Workload{Q: 0.01, Z: 1.1, N: 10000}, Steps: steps, Delta: 1e-5}
}

// EpsilonVsStepsFigure runs the study with a progress bar and shows ε against the number of steps, by every
// method, as a figure and as a table (a gap, "—", where a method fails).
func EpsilonVsStepsFigure(out report.Sink, s StepsStudy) error {
	bar := out.Bar("ε vs steps", len(s.Methods)*len(s.Steps))
	curves := EpsilonVsSteps(s.Methods, s.Workload, s.Steps, s.Delta, 0, bar)
	bar.Done()
	xs := floats(s.Steps)
	p, err := Plot(figure.Options{Title: fmt.Sprintf("ε after T steps (q = %s, z = %s, δ = %s)", num(s.Workload.Q), num(s.Workload.Z), num(s.Delta)),
		XLabel: "steps T", YLabel: "ε", LegendLeft: true}, xs, curves)
	if err != nil {
		return err
	}
	if err := out.Figure(p); err != nil {
		return err
	}
	if err := show(out, CurveTable("steps", xs, curves), nil); err != nil {
		return err
	}
	out.Markdown(RelativeNote("ε", "T", xs, curves, []int{len(xs) / 2, len(xs) - 1}))
	return nil
}

// SizeStudy is the noise-versus-dataset-size figure's workload: Epochs passes with expected batch Batch over
// a dataset of each of Sizes (q = Batch/n, T = Epochs·n/Batch), calibrated for (Eps, Delta) by each of Methods.
type SizeStudy struct {
	Methods       []Method
	Sizes         []int
	Batch, Epochs int
	Eps, Delta    float64
}

// DefaultSizeStudy is notebook 01's: ten epochs of batch 100, target (1, 1e−5), n from 1000 to 100 000
// (1000 and 10 000 in quick mode), by PLD, RDP, the moments accountant, RDP without replacement and advanced
// composition.
func DefaultSizeStudy() SizeStudy {
	sizes := []int{1000, 3000, 10000, 30000, 100000}
	if experiment.Quick() {
		sizes = []int{1000, 10000}
	}
	return SizeStudy{Methods: []Method{PLD, RDP, MomentsAccountant, RDPWithoutReplacement, AdvancedComposition}, Sizes: sizes,
		Batch: 100, Epochs: 10, Eps: 1, Delta: 1e-5}
}

// NoiseVsSizeFigure runs the study with a progress bar and shows the noise multiplier each method needs
// against the dataset size, as a figure and as a table (a gap, "—", where no z in [0.3, 100] meets the target).
func NoiseVsSizeFigure(out report.Sink, s SizeStudy) error {
	bar := out.Bar("σ vs dataset size", len(s.Methods)*len(s.Sizes))
	curves := NoiseVsSize(s.Methods, s.Sizes, s.Batch, s.Epochs, s.Eps, s.Delta, 0, bar)
	bar.Done()
	xs := floats(s.Sizes)
	p, err := Plot(figure.Options{Title: fmt.Sprintf("noise multiplier for (%s, %s): %d epochs, batch %d", num(s.Eps), num(s.Delta), s.Epochs, s.Batch),
		XLabel: "dataset size n", YLabel: "z = σ/C", LegendLeft: true, LegendBottom: true}, xs, curves)
	if err != nil {
		return err
	}
	if err := out.Figure(p); err != nil {
		return err
	}
	if err := show(out, CurveTable("n", xs, curves), nil); err != nil {
		return err
	}
	out.Markdown(RelativeNote("z", "n", xs, curves, []int{0, len(xs) - 1}))
	return nil
}

// RelativeNote says, at the x values of the given indices, how far each curve lies above the first (the
// reference, PLD in notebook 01's studies): "ε relative to PLD (Poisson) = 0.55 at T = 100: RDP ×1.74, …".
// Gaps are "—".
func RelativeNote(what, xname string, xs []float64, curves []Curve, at []int) string {
	if len(curves) == 0 {
		return ""
	}
	var b strings.Builder
	for k, i := range at {
		if i < 0 || i >= len(xs) || (k > 0 && i == at[k-1]) {
			continue
		}
		ref := curves[0].Y[i]
		fmt.Fprintf(&b, "* %s relative to %s = %s at %s = %s:", what, curves[0].Method, sig4(ref), xname, num(xs[i]))
		for j, c := range curves[1:] {
			sep := ","
			if j == 0 {
				sep = ""
			}
			r := c.Y[i] / ref
			if math.IsNaN(r) || math.IsInf(r, 0) {
				fmt.Fprintf(&b, "%s %s —", sep, c.Method)
				continue
			}
			fmt.Fprintf(&b, "%s %s ×%.3g", sep, c.Method, r)
		}
		b.WriteString(".\n")
	}
	return b.String()
}

// ExplorerDeltas are the δ the explorer offers, and ExplorerDeltaLabels their names in its drop-down list.
var (
	ExplorerDeltas      = []float64{1e-7, 1e-6, 1e-5, 1e-4}
	ExplorerDeltaLabels = []string{"1e−7", "1e−6", "1e−5", "1e−4"}
)

// ExplorerDraw is the explorer's Draw function: v holds the target ε, the index of δ in ExplorerDeltas, the
// sampling rate q and the number of steps T, in that order (the order of the notebook's controls).
func ExplorerDraw(v []float64) (*plot.Plot, error) {
	if len(v) != 4 {
		return nil, fmt.Errorf("accounting: ExplorerDraw needs 4 values (ε, δ's index, q, T), got %d", len(v))
	}
	i := int(v[1])
	if i < 0 || i >= len(ExplorerDeltas) {
		return nil, check.Errorf("v[1]", v[1], "an index of ExplorerDeltas, [0, %d]", len(ExplorerDeltas)-1)
	}
	return ExplorerFigure(v[0], ExplorerDeltas[i], v[2], int(v[3]))
}

// XieConstants shows XieTable: GPOPE's σ by the paper's accounting for each (n, T, ε), the implied c₂ and
// the Poisson add/remove ε of the same σ.
func XieConstants(out report.Sink, rows []XieRow) error {
	t, err := XieTable(rows)
	return show(out, t, err)
}

// WangHegdeConstants shows WangHegdeTable: Theorem 5's σ for each calibration beside the exact μ-GDP
// accounting of the same releases.
func WangHegdeConstants(out report.Sink, cals []fnq.Calibration) error {
	t, err := WangHegdeTable(cals)
	return show(out, t, err)
}

// SharmaConstants shows SharmaTable: DataRelease's SVT constants for each setting and what advanced
// composition certifies for its rounds.
func SharmaConstants(out report.Sink, rows []SharmaRow) error {
	t, err := SharmaTable(rows)
	return show(out, t, err)
}

// SharmaPaperConstants shows SharmaTable for SharmaPaperRows(eps): DataRelease's constants at overall ε with
// the paper's budget split, as the reproduction package sharma runs it.
func SharmaPaperConstants(out report.Sink, eps float64) error {
	rows, err := SharmaPaperRows(eps)
	if err != nil {
		return err
	}
	return SharmaConstants(out, rows)
}

// SeoYangConstants shows SeoYangTable: Seo & Yang's eq. (3) σ, the §2.1 typo, the analytic σ and what the
// per-step releases compose to, for each per-step ε at δ.
func SeoYangConstants(out report.Sink, epsilons []float64, delta float64) error {
	t, err := SeoYangTable(epsilons, delta)
	return show(out, t, err)
}

// AuditTable audits every case of Catalog with cfg (cfg.Delta is each case's own), with a progress bar over
// all runs (both variants, both inputs, the threshold-choosing half and the test half), shows CatalogTable
// and then AuditSummary, so that what the notebook says about the audit comes from this run.
func AuditTable(out report.Sink, cfg audit.Config) error {
	cases := Catalog()
	bar := out.Bar("audit runs", len(cases)*2*4*cfg.Runs)
	rs, err := audit.AuditCatalog(cases, cfg, bar)
	bar.Done()
	if err := show(out, CatalogTable(rs), err); err != nil {
		return err
	}
	out.Markdown(AuditSummary(rs))
	return nil
}

// AuditSummary states what the audit results show: how many valid variants audit below their claim and how
// many broken ones are caught, each valid variant's audited lower bound as a fraction of its claim (largest
// first), and, where the audited pair's exact ε is known, that exact ε beside the claim: no audit can
// exceed it, so a pair whose exact ε is below the claim means the accounting, not only the audit, is loose.
func AuditSummary(rs []audit.CaseResult) string {
	if len(rs) == 0 {
		return ""
	}
	below, caught := 0, 0
	for _, r := range rs {
		if r.Valid.EpsilonLower <= r.Case.Epsilon {
			below++
		}
		if r.Broken.EpsilonLower > r.Case.Epsilon {
			caught++
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "**In this run** (%.0f%% lower bounds): %d of %d valid implementations audit below their claim, and %d of %d broken variants are caught.\n\n",
		100*rs[0].Valid.Confidence, below, len(rs), caught, len(rs))
	order := make([]int, len(rs))
	for i := range order {
		order[i] = i
	}
	ratio := func(i int) float64 { return rs[i].Valid.EpsilonLower / rs[i].Case.Epsilon }
	slices.SortStableFunc(order, func(i, j int) int { return cmp.Compare(ratio(j), ratio(i)) })
	b.WriteString("* audited ε of the valid variant as a fraction of its claim:")
	for k, i := range order {
		sep := ","
		if k == 0 {
			sep = ""
		}
		fmt.Fprintf(&b, "%s %s %.2g", sep, rs[i].Case.Name, ratio(i))
	}
	b.WriteString(".\n")
	var exact []string
	for _, r := range rs {
		if r.Case.PairEpsilon > 0 {
			exact = append(exact, fmt.Sprintf("%s %.3g (claimed %g)", r.Case.Name, r.Case.PairEpsilon, r.Case.Epsilon))
		}
	}
	if len(exact) > 0 {
		fmt.Fprintf(&b, "* exact ε of the audited pair, which bounds any audit of it: %s.\n", strings.Join(exact, ", "))
	}
	return b.String()
}

// floats converts step counts or sizes to plot coordinates.
func floats(xs []int) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = float64(x)
	}
	return out
}

// num formats x as %g does, with a typographic minus and no leading zeros in the exponent: 1e−5, 0.01, 1.1.
func num(x float64) string {
	s := strconv.FormatFloat(x, 'g', -1, 64)
	mant, exp, ok := strings.Cut(s, "e")
	if !ok {
		return strings.Replace(s, "-", "−", 1)
	}
	sign := ""
	if exp[0] == '-' {
		sign = "−"
	}
	return strings.Replace(mant, "-", "−", 1) + "e" + sign + strings.TrimLeft(exp[1:], "0")
}
