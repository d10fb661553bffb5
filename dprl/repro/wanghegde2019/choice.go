package wanghegde2019

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/dprl-project/dprl/dprl/experiment"
	"github.com/dprl-project/dprl/dprl/figure"
	"github.com/dprl-project/dprl/dprl/fnq"
	"github.com/dprl-project/dprl/dprl/report"
	"github.com/dprl-project/dprl/dprl/repro"
)

// Alg1Config is a configuration of Algorithm 1 in what the paper leaves open: the batch size B, the SGD step
// size α and the discount γ. The rest is fixed: T = Samples, m = Actions, L = 2 (enforced by projection; the
// initial network's bound is 1.42), ε-greedy 0.1 on Q̃ and a fresh path every step (J = T′).
type Alg1Config struct {
	B         int
	LR, Gamma float64
}

func (c Alg1Config) String() string {
	return fmt.Sprintf("B = %d, α = %g, γ = %g", c.B, c.LR, c.Gamma)
}

// Calibration is Theorem 5's input for c at privacy level eps (δ = Delta) with tail level k.
func (c Alg1Config) Calibration(eps, k float64) fnq.Calibration {
	return fnq.Calibration{Epsilon: eps, Delta: Delta, T: Samples, B: c.B, LR: c.LR, L: 2, K: k, Actions: Actions, Resets: Samples / c.B}
}

// Fig2Epsilons are the privacy levels of Fig. 2's two panels (δ = Delta).
var Fig2Epsilons = []float64{0.9, 0.45}

// WorkedConfig is the worked setting (ours) of Algorithm 1 at eps, last round's Fig. 2 configuration: the
// B = 128 rows of WorkedSettings (α = 3e−5 and tail level k = 420 at ε = 0.45, else α = 7e−5 and k = 210; the
// paper states none of these) with the code's γ = 0.999. Theorem 5 as printed uses k.
func WorkedConfig(eps float64) (c Alg1Config, k float64) {
	w := WorkedSettings()[1]
	if third := WorkedSettings()[2]; eps == third.Epsilon {
		w = third
	}
	return Alg1Config{B: w.B, LR: w.LR, Gamma: 0.999}, w.K
}

// SelectionGrid is the grid Choose picks Algorithm 1's configuration from: B ∈ {32, 128, 512} (T′ = 156, 39,
// 9 steps), α ∈ {0.01, 0.03, 0.1, 0.3}, γ ∈ {0.5, 0.999}.
func SelectionGrid() []Alg1Config {
	var g []Alg1Config
	for _, gamma := range []float64{0.5, 0.999} {
		for _, b := range []int{32, 128, 512} {
			for _, lr := range []float64{0.01, 0.03, 0.1, 0.3} {
				g = append(g, Alg1Config{B: b, LR: lr, Gamma: gamma})
			}
		}
	}
	return g
}

// SelectionSeed is the base seed of the selection runs: run s draws from rand.NewPCG(SelectionSeed, s),
// streams disjoint from the figures' (Seed).
const SelectionSeed = 1901

// Alg1Arm is Algorithm 1 in one configuration at every ε of Fig2Epsilons: the corrected calibration there,
// the privacy it certifies and its σ, or why there is no guarantee.
type Alg1Arm struct {
	Config  Alg1Config
	Cal     []fnq.Calibration // per ε of Fig2Epsilons; the zero value where there is no guarantee
	Privacy []Privacy         // per ε: what the corrected calibration certifies
	Sigma   []float64         // per ε: its path noise σ (the exact GDP σ)
	Why     []string          // per ε: why there is no guarantee ("" where there is one)
}

// Feasible says the corrected calibration gives a guarantee at every ε of Fig2Epsilons.
func (a Alg1Arm) Feasible() bool {
	for _, w := range a.Why {
		if w != "" {
			return false
		}
	}
	return true
}

// NewAlg1Arm calibrates configuration c at every ε of Fig2Epsilons with the corrected calibration
// (Corrected): an ε at which no tail level k gives a guarantee is recorded in Why, not an error. So is one
// whose k leaves 4(k + 1)/B below 1: Theorem 5's step bound v·L = 4α(k + 1)L/B assumes a step moves Q by
// little when B is large, but every reward of a batch may differ, and the output bias alone then moves Q by α
// (the end-to-end audit in dprl/repro/accounting catches the bound at B = 4096, k = 60). This is a necessary
// condition, not a proof of the bound.
func NewAlg1Arm(c Alg1Config) (Alg1Arm, error) {
	a := Alg1Arm{Config: c}
	for _, eps := range Fig2Epsilons {
		var cal fnq.Calibration
		var p Privacy
		var sigma float64
		why := ""
		cor, err := Corrected(c.Calibration(eps, 1))
		if err == nil {
			p, sigma, err = alg1Privacy(cor, true)
			if err != nil {
				return a, err
			}
			switch {
			case !p.Guarantee:
				why = p.Basis
			case 4*(cor.K+1) < float64(c.B):
				why = fmt.Sprintf("Theorem 5's step bound v·L = 4α(k + 1)L/B is below the α by which one step can move Q through the output bias alone (4(k + 1)/B = %.2g < 1)", 4*(cor.K+1)/float64(c.B))
			default:
				cal = cor
			}
		} else if noTailLevel(err) {
			why = fmt.Sprintf("no tail level k gives a guarantee at ε = %g: the corrected tail needs k ≥ 8.68√β·σ + 6σ or so, and σ grows with k as fast as k when 4α√(T′m)·L/B is large", eps)
		} else {
			return a, err
		}
		a.Cal, a.Privacy, a.Sigma, a.Why = append(a.Cal, cal), append(a.Privacy, p), append(a.Sigma, sigma), append(a.Why, why)
	}
	return a, nil
}

// Selection is the data Choose decides from: every configuration of a grid, its corrected calibration, and
// the last-fifth mean return of Algorithm 1 without noise on each selection seed (runs from
// rand.NewPCG(SelectionSeed, s)), beside the random policy's on the same seeds.
type Selection struct {
	Arms     []Alg1Arm
	Returns  [][]float64 // [configuration][seed]
	Diverged []int       // runs whose network diverged, per configuration
	Random   []float64   // [seed]
	Seeds    repro.RunSeeds
}

// noiselessSetting is Algorithm 1 in configuration c without paths (the non-private reference), over
// Samples samples.
func noiselessSetting(c Alg1Config) Setting {
	cal := c.Calibration(Fig2Epsilons[0], 1)
	return alg1Setting(fmt.Sprintf("Alg. 1 without noise (%s)", c), nonPrivate(fmt.Sprintf("Algorithm 1's %d SGD steps without paths", Samples/c.B)),
		fnq.SpecifiedConfig{Calibration: cal, Gamma: c.Gamma, Explore: alg1Explore, Noiseless: true})
}

// alg1Explore is Algorithm 1's probability of a uniformly random action (post-processing of Q̃).
const alg1Explore = 0.1

// RunSelection runs Algorithm 1 without noise in every configuration of grid, and the random policy, for
// seeds seeds from SelectionSeed (on the public simulator: no privacy is spent), under a progress bar on out,
// and calibrates each configuration (NewAlg1Arm).
func RunSelection(out report.Sink, grid []Alg1Config, seeds int) (*Selection, error) {
	if seeds < 2 {
		return nil, fmt.Errorf("wanghegde2019: a selection needs at least 2 seeds for its intervals, got %d", seeds)
	}
	s := &Selection{Seeds: repro.FirstRunSeeds(SelectionSeed, seeds)}
	settings := []Setting{RandomPolicy(Samples / 50)}
	for _, c := range grid {
		a, err := NewAlg1Arm(c)
		if err != nil {
			return nil, err
		}
		s.Arms = append(s.Arms, a)
		settings = append(settings, noiselessSetting(c))
	}
	bar := out.Bar("selection runs", len(settings)*seeds)
	runs, err := RunSettings(settings, seeds, SelectionSeed, bar)
	if err != nil {
		return nil, err
	}
	bar.Done()
	for i, st := range settings {
		r, err := runs.Returns(st.Name)
		if err != nil {
			return nil, err
		}
		if i == 0 {
			s.Random = lastFifth(r)
			continue
		}
		d, _, _ := runs.Diverged(st.Name)
		s.Returns, s.Diverged = append(s.Returns, lastFifth(r)), append(s.Diverged, d)
	}
	return s, nil
}

// Choice is Algorithm 1's configuration chosen by the paper's own criterion, the return of the non-private
// version on the (public) simulator: among the configurations whose corrected calibration gives a guarantee
// at every ε of Fig. 2 (Alg1Arm.Feasible), the one with the highest mean last-fifth return without noise on
// the selection seeds. RunnerUp is the second best of those (−1 if none) and Best the best of all,
// feasible or not. Learns says whether Chosen beats the random policy: the 95% t interval of its paired
// difference over the selection seeds lies above 0.
type Choice struct {
	*Selection
	Chosen, RunnerUp, Best int
	Learns                 bool
}

// Choose applies the criterion (Choice) to s. It is an error when no configuration is feasible.
func Choose(s *Selection) (*Choice, error) {
	order := make([]int, len(s.Arms))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return -cmp.Compare(mean(s.Returns[a]), mean(s.Returns[b])) })
	c := &Choice{Selection: s, Chosen: -1, RunnerUp: -1, Best: order[0]}
	for _, i := range order {
		if !s.Arms[i].Feasible() {
			continue
		}
		if c.Chosen < 0 {
			c.Chosen = i
		} else if c.RunnerUp < 0 {
			c.RunnerUp = i
		}
	}
	if c.Chosen < 0 {
		return nil, fmt.Errorf("wanghegde2019: no configuration of the grid has a corrected calibration with a guarantee at every ε of %v", Fig2Epsilons)
	}
	c.Learns = c.Margin(c.Chosen).Low > 0
	return c, nil
}

// Margin is configuration i's noiseless last-fifth return minus the random policy's on the same selection
// seed, with its 95% interval.
func (s *Selection) Margin(i int) repro.Interval {
	return interval(paired(s.Returns[i], 1, s.Random, 1))
}

// SelectionFigure draws the noiseless last-fifth return on the selection seeds against α, one curve per
// (B, γ), beside the random policy; the note says which configurations have a guarantee, which was chosen,
// and the diverged runs per point.
func SelectionFigure(c *Choice) (Figure, error) {
	type key struct {
		b     int
		gamma float64
	}
	var keys []key
	pts := map[key][]int{}
	for i, a := range c.Arms {
		k := key{a.Config.B, a.Config.Gamma}
		if _, ok := pts[k]; !ok {
			keys = append(keys, k)
		}
		pts[k] = append(pts[k], i)
	}
	var series []figure.Series
	var xs []float64
	for _, k := range keys {
		s := figure.Series{Name: fmt.Sprintf("B = %d, γ = %g", k.b, k.gamma)}
		y := make([][]float64, len(c.Seeds.Seeds))
		for _, i := range pts[k] {
			s.X = append(s.X, c.Arms[i].Config.LR)
			for r := range y {
				y[r] = append(y[r], c.Returns[i][r])
			}
		}
		s.Y = y
		series = append(series, s)
		xs = s.X
	}
	rnd := mean(c.Random)
	ref := constant(fmt.Sprintf("%s (%.1f)", RandomName, rnd), xs, rnd)
	p, err := figure.Curves(figure.Options{Title: "Algorithm 1 without noise: last-fifth return on the selection seeds", XLabel: "step size α",
		YLabel: "mean return, last fifth", LogX: true, Band: figure.BandCI95, LegendBottom: true}, append(series, ref)...)
	if err != nil {
		return Figure{}, err
	}
	var feasible, diverged []string
	for i, a := range c.Arms {
		if a.Feasible() {
			feasible = append(feasible, a.Config.String())
		}
		if c.Diverged[i] > 0 {
			diverged = append(diverged, fmt.Sprintf("%s: %d of %d", a.Config, c.Diverged[i], len(c.Seeds.Seeds)))
		}
	}
	note := fmt.Sprintf("Bands: 95%% confidence interval of the mean over %d selection seeds (Student t); run s draws from rand.NewPCG(%d, s), "+
		"apart from the figures' seeds. A guarantee at ε = 0.9 and 0.45 is possible only for %s. Chosen: **%s**.",
		len(c.Seeds.Seeds), c.Seeds.Base, joinOr(feasible, "no configuration"), c.Arms[c.Chosen].Config)
	if len(diverged) == 0 {
		note += " Diverged runs (a network parameter not finite): none."
	} else {
		note += " Diverged runs (a network parameter not finite; their returns are kept): " + joinOr(diverged, "") + "."
	}
	return Figure{Plot: p, Note: note}, nil
}

// ChoiceTable lists every configuration: its corrected calibration at each ε of Fig. 2 (k and σ, or why
// there is none), its noiseless return and its margin over the random policy, with 95% intervals, and the
// role Choose gave it.
func ChoiceTable(c *Choice) (header []string, rows [][]string) {
	header = []string{"configuration", "T′"}
	for _, eps := range Fig2Epsilons {
		header = append(header, fmt.Sprintf("corrected k, σ at ε = %g", eps))
	}
	header = append(header, "noiseless return, last fifth [95% CI]", "minus the random policy [95% CI]", "role")
	for i, a := range c.Arms {
		row := []string{a.Config.String(), fmt.Sprint(Samples / a.Config.B)}
		for e := range Fig2Epsilons {
			if a.Why[e] != "" {
				row = append(row, "no guarantee possible")
			} else {
				row = append(row, fmt.Sprintf("k = %.4g, σ = %.3g", a.Cal[e].K, a.Sigma[e]))
			}
		}
		m := c.Margin(i)
		role := ""
		switch i {
		case c.Chosen:
			role = "chosen"
		case c.RunnerUp:
			role = "runner-up (alternative)"
		}
		if i == c.Best && i != c.Chosen {
			role = "best without a guarantee"
		}
		rows = append(rows, append(row, ci(c.Returns[i]), fmt.Sprintf("%.2f [%.2f, %.2f]", m.Mean, m.Low, m.High), role))
	}
	return header, rows
}

// AlphaCeiling is the largest step size α (to 5%) at which Algorithm 1 with batch b at privacy level eps
// (T = Samples, L = 2, a fresh path every step) has a corrected calibration with a guarantee. The corrected
// tail needs k above 8.68√β·σ by several σ, and σ grows linearly in k through v = 4α(k + 1)/B, so past a
// step size of order B·μ/(4√(T′m)·L·z), μ the GDP parameter of (ε, δ) and z ≈ 6 the tail's quantile, no k
// will do.
func AlphaCeiling(b int, eps float64) (float64, error) {
	ok := func(lr float64) (bool, error) {
		cor, err := Corrected(Alg1Config{B: b, LR: lr}.Calibration(eps, 1))
		if noTailLevel(err) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		p, _, err := alg1Privacy(cor, true)
		return p.Guarantee, err
	}
	lo, hi := 1e-6, 10.0
	if good, err := ok(lo); err != nil || !good {
		return 0, fmt.Errorf("wanghegde2019: no guarantee at B = %d, ε = %g even at α = %g (%v)", b, eps, lo, err)
	}
	for hi/lo > 1.05 {
		mid := math.Sqrt(lo * hi)
		good, err := ok(mid)
		if err != nil {
			return 0, err
		}
		if good {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo, nil
}

// CeilingTable lists, for each batch size of the selection grid, the SGD steps T′ = Samples/B and, at each ε
// of Fig. 2, the largest step size with a guarantee (AlphaCeiling, computed on every core).
func CeilingTable() (header []string, rows [][]string, err error) {
	batches := []int{32, 128, 512}
	n := len(Fig2Epsilons)
	ceil, err := experiment.Trials(len(batches)*n, 0, 0, nil, func(i int, _ rand.Source) (float64, error) {
		return AlphaCeiling(batches[i/n], Fig2Epsilons[i%n])
	})
	if err != nil {
		return nil, nil, err
	}
	header = []string{"B", "T′"}
	for _, eps := range Fig2Epsilons {
		header = append(header, fmt.Sprintf("largest α with a guarantee, ε = %g", eps))
	}
	for i, b := range batches {
		row := []string{fmt.Sprint(b), fmt.Sprint(Samples / b)}
		for _, a := range ceil[i*n : (i+1)*n] {
			row = append(row, fmt.Sprintf("%.2g", a))
		}
		rows = append(rows, row)
	}
	return header, rows, nil
}
