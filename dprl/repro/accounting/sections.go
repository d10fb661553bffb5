package accounting

import (
	"fmt"
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
	return show(out, CurveTable("steps", xs, curves), nil)
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
	return show(out, CurveTable("n", xs, curves), nil)
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

// SeoYangConstants shows SeoYangTable: Seo & Yang's eq. (3) σ, the §2.1 typo, the analytic σ and what the
// per-step releases compose to, for each per-step ε at δ.
func SeoYangConstants(out report.Sink, epsilons []float64, delta float64) error {
	t, err := SeoYangTable(epsilons, delta)
	return show(out, t, err)
}

// AuditTable audits every case of Catalog with cfg (cfg.Delta is each case's own), with a progress bar over
// all runs (both variants, both inputs, the threshold-choosing half and the test half), and shows CatalogTable.
func AuditTable(out report.Sink, cfg audit.Config) error {
	cases := Catalog()
	bar := out.Bar("audit runs", len(cases)*2*4*cfg.Runs)
	rs, err := audit.AuditCatalog(cases, cfg, bar)
	bar.Done()
	return show(out, CatalogTable(rs), err)
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
