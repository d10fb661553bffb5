package wanghegde2019

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/dprl-project/dprl/dprl/fnq"
	"github.com/dprl-project/dprl/dprl/nn"
	"github.com/dprl-project/dprl/dprl/report"
	"github.com/dprl-project/dprl/envs"
)

// The privacy setting shared by every worked calibration and by Fig. 2 (the paper's δ, and its 100 episodes of
// 50 samples).
const (
	Delta   = 1e-4 // δ
	Samples = 5000 // T: samples of a run (100 episodes of 50 steps)
	Actions = 2    // m
)

// WorkedSetting is one of three worked settings (ours) at which Theorem 5's σ is worked out: the target ε,
// the batch size B, the step size α and the tail level k. The paper states none of them (its Appendix E.3,
// which gives its parameters, is lost); they are ours, chosen so that Theorem 5 gives σ ≤ 1 as in the code's
// σ grid.
type WorkedSetting struct {
	Epsilon float64
	B       int
	LR, K   float64
}

// WorkedSettings returns the three worked settings (ours), (ε, B, α, k) = (0.9, 50, 0.01, 230),
// (0.9, 128, 7e−5, 210) and (0.45, 128, 3e−5, 420). With δ = 1e−4, T = 5000 and L = 1, Theorem 5 gives
// σ ≈ 22.2, 0.637 and 1.13.
func WorkedSettings() []WorkedSetting {
	return []WorkedSetting{{0.9, 50, 0.01, 230}, {0.9, 128, 7e-5, 210}, {0.45, 128, 3e-5, 420}}
}

// Calibration is Theorem 5's input for the setting with δ = Delta, T = Samples, m = Actions, Lipschitz bound
// L and J = resets independent paths.
func (w WorkedSetting) Calibration(L float64, resets int) fnq.Calibration {
	return fnq.Calibration{Epsilon: w.Epsilon, Delta: Delta, T: Samples, B: w.B, LR: w.LR, L: L, K: w.K, Actions: Actions, Resets: resets}
}

// CalibrationTable shows Theorem 5's constants for the worked settings (ours; L = 1, a fresh path every SGD
// step, J = T′) beside the exact μ-GDP σ, the ε that the theorem's σ really certifies (exactly and by the
// proof's KOV formula), the tail margin and whether Theorem 5's precondition holds, the printed tail term,
// the corrected tail term and σ with the m-action correction.
func CalibrationTable(out report.Sink) error {
	rows := [][]string{}
	for _, r := range WorkedSettings() {
		cal := r.Calibration(1, Samples/r.B)
		c, err := cal.Compute()
		if err != nil {
			return err
		}
		cal.MActionCorrection = true
		cm, err := cal.Compute()
		if err != nil {
			return err
		}
		rows = append(rows, []string{fmt.Sprint(r.Epsilon), fmt.Sprintf("%d / %d", r.B, c.Steps), fmt.Sprint(r.LR), fmt.Sprint(r.K),
			fmt.Sprintf("%.3g", c.V), fmt.Sprintf("%.3g", c.NormSq), fmt.Sprintf("%.4g", c.Beta),
			fmt.Sprintf("%.3g", c.SigmaThm5), fmt.Sprintf("%.3g", c.SigmaGDP), fmt.Sprintf("%.3g", cm.SigmaThm5),
			fmt.Sprintf("%.3f / %.3f", c.EpsilonGDP, c.EpsilonKOV), fmt.Sprintf("%.3g", c.TailMargin), yesNo(c.Covered),
			fmt.Sprintf("%.3g", Delta+c.TailPaper), fmt.Sprintf("%.3g", math.Min(1, Delta+c.TailConservative))})
	}
	out.Markdown("Worked settings (ours: the paper states none of these α, B and k), δ = 1e−4, T = 5000 samples, L = 1, m = 2 actions, " +
		"J = T′ (a fresh path every step):")
	out.Table([]string{"ε", "B / T′", "α", "k", "v", "C", "β", "σ Thm 5", "σ exact GDP", "σ ×√m", "ε of σ Thm 5 (exact / KOV)",
		"2k − 8.68√βσ", "Thm 5 applies", "δ + tail (printed)", "δ + tail (corrected)"}, rows)
	return nil
}

// yesNo prints a boolean for a table cell.
func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// LipschitzPoint is the spectral-norm product bound L of the code's 1→16→16→2 network after Episodes
// episodes of non-private DQN training (seed (1, 1)).
type LipschitzPoint struct {
	Episodes int
	L        float64
}

// TrainedLipschitz is the network's bound at initialisation and after 20 and 100 episodes of training.
func TrainedLipschitz() ([]LipschitzPoint, error) {
	var pts []LipschitzPoint
	for _, episodes := range []int{0, 20, 100} {
		var L float64
		if episodes == 0 {
			net, err := nn.NewMLP([]int{1, 16, 16, 2}, nn.ReLU, rand.NewPCG(1, 1))
			if err != nil {
				return nil, err
			}
			L = net.Lipschitz()
		} else {
			env, err := envs.Make("wanghegde")
			if err != nil {
				return nil, err
			}
			res, err := fnq.Run(env, fnq.Config{Episodes: episodes, Src: rand.NewPCG(1, 1)})
			if err != nil {
				return nil, err
			}
			L = res.Released.Network().Lipschitz()
		}
		pts = append(pts, LipschitzPoint{episodes, L})
	}
	return pts, nil
}

// LipschitzTable is, for each point, L and the C, σ and tail margin Theorem 5 would need with that L at the
// second worked setting (ours; J = 39).
func LipschitzTable(pts []LipschitzPoint) (header []string, rows [][]string, err error) {
	for _, p := range pts {
		c, err := WorkedSettings()[1].Calibration(p.L, 39).Compute()
		if err != nil {
			return nil, nil, err
		}
		rows = append(rows, []string{fmt.Sprint(p.Episodes), fmt.Sprintf("%.3g", p.L), fmt.Sprintf("%.3g", c.NormSq), fmt.Sprintf("%.3g", c.SigmaThm5), fmt.Sprintf("%.3g", c.TailMargin)})
	}
	return []string{"DQN episodes trained", "L (spectral product)", "C = (v² + v)L²", "σ (Thm 5, ε = 0.9)", "2k − 8.68√βσ"}, rows, nil
}

// WorkedSigmas is Theorem 5's σ at the worked settings (ours; L = 1, J = 1).
func WorkedSigmas() ([]float64, error) {
	var got []float64
	for _, r := range WorkedSettings() {
		c, err := r.Calibration(1, 1).Compute()
		if err != nil {
			return nil, err
		}
		got = append(got, c.SigmaThm5)
	}
	return got, nil
}
