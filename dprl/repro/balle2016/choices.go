package balle2016

import (
	"fmt"
	"math"
	"slices"

	"github.com/dprl-project/dprl/dprl/experiment"
	"github.com/dprl-project/dprl/dprl/policyeval"
)

// Arm is one setting of the privacy-side choices the paper leaves open: the public bound F on a
// first-visit return (FMax = FRange = F; the chain's returns are all in [0, 1]) and δ. ε is the authors'
// code's 0.1 in every arm.
type Arm struct {
	Name  string
	F     float64
	Delta float64
}

// The arms. ArmPublic is the public bound of the chain (every return is at most 1, and notebook 03 runs the
// same estimators with it) with δ = 0.1 as recalled from the paper; the other two are the sensitivity
// settings: the authors' code's F = R_max/(1 − γ) = 100, and the δ = 0.05 of their March 2016 code.
var (
	ArmPublic    = Arm{Name: "F = 1, δ = 0.1", F: 1, Delta: 0.1}
	ArmCodeBound = Arm{Name: "F = 100, δ = 0.1", F: 100, Delta: 0.1}
	ArmCodeDelta = Arm{Name: "F = 1, δ = 0.05", F: 1, Delta: 0.05}
)

// Arms lists the arms every private estimate of the data runs in, ArmPublic first.
func Arms() []Arm { return []Arm{ArmPublic, ArmCodeBound, ArmCodeDelta} }

// Privacy is the privacy of a release in the arm: ε = 0.1 (the authors' code) and the arm's δ, with Lemma 1's
// smooth-sensitivity constants.
func (a Arm) Privacy() policyeval.PrivacyParams {
	return policyeval.PrivacyParams{Epsilon: 0.1, Delta: a.Delta}
}

// Privacy is the primary arm's privacy, ε = δ = 0.1.
func Privacy() policyeval.PrivacyParams { return ArmPublic.Privacy() }

// CodePower is the exponent of the authors' code's schedule λ = ‖Φ‖_F²‖ρ‖∞ + c·m^0.4 (the paper's text
// lost it: "a regularization schedule proportional to" m^p).
const CodePower = 0.4

// Powers are the exponents p of the schedules λ = ‖Φ‖_F²‖ρ‖∞ + c·m^p the data runs: a constant λ (p = 0),
// the code's p = 0.4, and λ growing like m (p = 1), with which, by our reading of Corollary 13 (its
// statement is lost in the text), the excess-risk bound falls like 1/m² while the regulariser λ/(2m) no
// longer vanishes: the theory's side of the trade-off the paper describes.
var Powers = []float64{0, CodePower, 1}

// CGrid is the authors' code's grid of schedule constants c; every schedule runs each of them, and Choose
// picks one per arm and exponent.
var CGrid = []float64{0.01, 0.1, 1, 10, 100, 1000, 1e4}

// Lambda is the schedule's λ = ‖Φ‖_F²‖ρ‖∞ + c·m^power on p's features (policyeval.LambdaSchedule for the
// code's power 0.4; its first term, where the authors' DP-LSL bound starts to hold, otherwise).
func Lambda(p *policyeval.Problem, power, c float64, m int) (float64, error) {
	if power == CodePower {
		return policyeval.LambdaSchedule(p, c, m)
	}
	base, err := policyeval.LambdaSchedule(p, 0, m)
	if err != nil {
		return 0, err
	}
	return base + c*math.Pow(float64(m), power), nil
}

// Choice is the schedule constant c chosen, for every arm and exponent, by the paper's own criterion: the
// best overall accuracy of DP-LSL (the paper: the schedule "achieves the best overall accuracy"), measured on
// the selection batches (SelectionGrid: simulated with the public chain, seeds disjoint from Fig. 1's) as
// DP-LSL's RMSE averaged over the batch sizes, both feature sets and the seeds.
type Choice struct {
	Seeds  int
	M      []float64
	Source string // where the selection batches come from (Data.Source)
	// Score[arm][power][k] is the overall RMSE of DP-LSL with CGrid[k] (the mean over seeds), and
	// PerSeed[arm][power][k] its value per seed.
	Score   map[string]map[float64][]float64
	PerSeed map[string]map[float64][][]float64
	C       map[string]map[float64]float64
	Zero    float64 // θ = 0's overall RMSE
	// LSLScore[k] is the non-private LSL's overall RMSE with CGrid[k] on the code's schedule, and LSLC the c
	// chosen for it by the same criterion (Fig. 1 (1) runs LSL on its own).
	LSLScore []float64
	LSLC     float64
}

// Of is the c chosen for the arm and exponent (NaN if the selection did not run them).
func (ch *Choice) Of(arm Arm, power float64) float64 {
	if c, ok := ch.C[arm.Name][power]; ok {
		return c
	}
	return math.NaN()
}

// Choose picks, for every arm and exponent of the selection data, the c of CGrid whose DP-LSL (the
// authors' bound) has the lowest overall RMSE: the mean over the data's batch sizes, both feature sets and
// seeds. A c with a non-finite RMSE on any batch is never chosen.
func Choose(sel *Data) (*Choice, error) {
	ch := &Choice{Seeds: len(sel.Seeds), M: sel.M, Source: sel.Source, Score: map[string]map[float64][]float64{}, PerSeed: map[string]map[float64][][]float64{},
		C: map[string]map[float64]float64{}}
	zero, err := sel.overall(zeroKey, rmseOf)
	if err != nil {
		return nil, err
	}
	ch.Zero = mean(zero)
	best := math.Inf(1)
	for _, c := range CGrid {
		per, err := sel.overall(func(f string) key { return lslKey(f, CodePower, c) }, rmseOf)
		if err != nil {
			return nil, err
		}
		ch.LSLScore = append(ch.LSLScore, mean(per))
		if s := mean(per); s < best {
			best, ch.LSLC = s, c
		}
	}
	if math.IsInf(best, 1) {
		return nil, fmt.Errorf("balle2016: no c of the grid gives LSL a finite RMSE on the selection batches")
	}
	for _, arm := range Arms() {
		ch.Score[arm.Name], ch.PerSeed[arm.Name], ch.C[arm.Name] = map[float64][]float64{}, map[float64][][]float64{}, map[float64]float64{}
		for _, power := range Powers {
			best, bestC := math.Inf(1), math.NaN()
			for _, c := range CGrid {
				per, err := sel.overall(func(f string) key { return dplslKey(f, arm, power, c) }, rmseOf)
				if err != nil {
					return nil, err
				}
				s := mean(per)
				ch.Score[arm.Name][power] = append(ch.Score[arm.Name][power], s)
				ch.PerSeed[arm.Name][power] = append(ch.PerSeed[arm.Name][power], per)
				if s < best { // NaN and +Inf never win
					best, bestC = s, c
				}
			}
			if math.IsNaN(bestC) {
				return nil, fmt.Errorf("balle2016: no c of the grid gives DP-LSL (%s, p = %g) a finite RMSE on the selection batches", arm.Name, power)
			}
			ch.C[arm.Name][power] = bestC
		}
	}
	return ch, nil
}

// Setting is what a claim is computed under: an arm, the schedule constant of DP-LSL and of its
// non-private counterpart (LSL at the same λ) at the code's exponent, the constant of every exponent for
// the schedule claim, and the constant of the non-private LSL of Fig. 1 (1).
type Setting struct {
	Name   string
	Arm    Arm
	C      float64             // DP-LSL's c at CodePower, and its counterpart LSL's
	PowerC map[float64]float64 // DP-LSL's c per exponent (the schedule claim)
	LSLC   float64             // the non-private LSL's c in Fig. 1 (1)
}

// Main is the setting of the claims: the primary arm, every constant chosen by the paper's criterion.
func (ch *Choice) Main() Setting { return ch.In(ArmPublic) }

// In is the setting of the arm with the constants chosen for it (the non-private LSL's too).
func (ch *Choice) In(arm Arm) Setting {
	name := "primary"
	if arm != ArmPublic {
		name = fmt.Sprintf("%s, c = %g (chosen)", arm.Name, ch.Of(arm, CodePower))
	}
	return ch.setting(name, arm, ch.Of(arm, CodePower), ch.LSLC)
}

func (ch *Choice) setting(name string, arm Arm, c, lslC float64) Setting {
	return Setting{Name: name, Arm: arm, C: c, PowerC: ch.C[arm.Name], LSLC: lslC}
}

// Alternatives are the settings every claim is recomputed under (its Robust column; a claim lists those
// that change what it depends on): each other arm with the c chosen for it; the primary arm with the
// neighbours of DP-LSL's chosen c on the grid; last round's worked setting (ours), F = 100 with c = 100; and
// for the non-private LSL of Fig. 1 (1) the neighbours of its chosen c, DP-LSL's chosen c and last round's
// c = 1.
func (ch *Choice) Alternatives() []Setting {
	main := ch.Main()
	var out []Setting
	for _, arm := range Arms()[1:] {
		out = append(out, ch.In(arm))
	}
	for _, c := range neighbours(main.C) {
		out = append(out, ch.setting(fmt.Sprintf("%s, c = %g", ArmPublic.Name, c), ArmPublic, c, main.LSLC))
	}
	out = append(out, ch.setting("F = 100, δ = 0.1, c = 100 (last round's worked setting)", ArmCodeBound, 100, main.LSLC))
	for _, c := range append(neighbours(main.LSLC), main.C, 1) {
		out = append(out, ch.setting(fmt.Sprintf("LSL with c = %g", c), ArmPublic, main.C, c))
	}
	return out
}

// neighbours are the values next to c on CGrid.
func neighbours(c float64) []float64 {
	k := slices.Index(CGrid, c)
	var out []float64
	for _, j := range []int{k - 1, k + 1} {
		if k >= 0 && j >= 0 && j < len(CGrid) {
			out = append(out, CGrid[j])
		}
	}
	return out
}

// SelectionSeed is the base seed of the selection batches: trial i draws from PCG(SelectionSeed, i),
// streams disjoint from Fig. 1's PCG(2016, i).
const SelectionSeed = 1603

// SelectionGrid sizes the selection: 10 seeds on m = 100, 500, 1000, 2000, 3500, 5000 (quick mode: 2 seeds
// on m = 100, 1000, 5000).
func SelectionGrid() Grid {
	if experiment.Quick() {
		return Grid{Trials: 2, M: []float64{100, 1000, 5000}}
	}
	return Grid{Trials: 10, M: []float64{100, 500, 1000, 2000, 3500, 5000}}
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// ChoiceTable is the table of the choice: per arm and exponent, the overall RMSE of DP-LSL at every c of
// the grid (the chosen one starred), and the non-private LSL's; θ = 0's overall RMSE in the header.
func ChoiceTable(ch *Choice) (header []string, rows [][]string) {
	header = []string{"estimator (overall RMSE on the selection batches; θ = 0: " + fmt.Sprintf("%.4f", ch.Zero) + ")"}
	for _, c := range CGrid {
		header = append(header, fmt.Sprintf("c = %g", c))
	}
	row := func(name string, scores []float64, chosen float64) {
		r := []string{name}
		for k, v := range scores {
			cell := fmt.Sprintf("%.4g", v)
			if CGrid[k] == chosen {
				cell = "**" + cell + "** ✓"
			}
			r = append(r, cell)
		}
		rows = append(rows, r)
	}
	for _, arm := range Arms() {
		for _, p := range Powers {
			row(fmt.Sprintf("DP-LSL, %s, λ ∝ m^%g", arm.Name, p), ch.Score[arm.Name][p], ch.C[arm.Name][p])
		}
	}
	row("LSL (non-private), λ ∝ m^0.4", ch.LSLScore, ch.LSLC)
	return header, rows
}
