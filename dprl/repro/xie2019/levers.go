package xie2019

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/dprl-project/dprl/dprl/experiment"
	"github.com/dprl-project/dprl/dprl/policyeval"
	"github.com/dprl-project/dprl/dprl/report"
)

// lever is one change to the paper's protocol: clip at the median public gradient norm at θ = 0 instead of
// the maximum, the accounting (and with it the sampling that runs), T/n and ε.
type lever struct {
	name   string
	median bool
	acc    policyeval.GPOPEAccounting
	iters  float64
	eps    float64
}

// leverN is the dataset size of every lever.
const leverN = 1000

// levers are the protocol changes Levers runs. The Poisson rows run Poisson sampling at rate 1/n and are
// calibrated for ε = 1 under add/remove neighbours with the PLD accountant: a different neighbouring
// relation from the paper's, whose replace-one ε the table also shows.
var levers = []lever{
	{"paper protocol (C = max, one per step, WBK Thm 9, T = n)", false, policyeval.AccountingPaper, 1, 1},
	{"C = median public gradient norm", true, policyeval.AccountingPaper, 1, 1},
	{"T = 10n", false, policyeval.AccountingPaper, 10, 1},
	{"median C + T = 10n", true, policyeval.AccountingPaper, 10, 1},
	{"ε = 10", false, policyeval.AccountingPaper, 1, 10},
	{"Poisson sampling, add/remove ε = 1 (PLD)", false, policyeval.AccountingPoissonPLD, 1, 1},
	{"median C + Poisson (add/remove ε = 1) + T = 10n", true, policyeval.AccountingPoissonPLD, 10, 1},
}

// Levers runs the protocol changes the paper leaves open, one at a time and combined, on the chain and
// Mountain Car (on-policy) at n = 1000: a clip at the median public gradient norm at θ = 0 (200 public
// trajectories), T = 10n, ε = 10, and Poisson sampling with add/remove neighbours (Δ = C), each run with
// the sampling its accounting is about. The table shows C, σ, the ε the run certifiably has under the
// paper's replace-one relation (and under add/remove for the Poisson runs), the tuned step, the share of
// clipped gradients, GPOPE's MSPBE divided by θ = 0's (mean and 95% interval over the protocol's trials) and
// LSTD's.
func Levers(out report.Sink, p Protocol) error {
	chain, err := Chain()
	if err != nil {
		return err
	}
	mc, err := MountainCar(false, experiment.Size(1000, 300))
	if err != nil {
		return err
	}
	var table [][]string
	bar := out.Bar("settings", 2*len(levers))
	var trials int
	var seed uint64
	for _, d := range []*Domain{chain, mc} {
		maxClip := d.Clip
		_, pub, err := d.DrawPublic(200, rand.NewPCG(2019, 9))
		if err != nil {
			return err
		}
		zero := make([]float64, d.Dim())
		norms := GradientNorms(pub, d.Gamma, zero, zero)
		slices.Sort(norms)
		for _, s := range levers {
			d.Clip = maxClip
			if s.median {
				d.Clip = norms[len(norms)/2]
			}
			cfg := p.Config([]int{leverN}, []float64{s.eps})
			cfg.Accounting, cfg.IterationsPerTrajectory, cfg.TunedOnly = s.acc, s.iters, true
			tu, err := Tune(d, cfg, nil)
			if err != nil {
				return err
			}
			rows, err := Experiment(d, cfg, tu, nil)
			if err != nil {
				return err
			}
			trials, seed = cfg.Trials, cfg.Seed
			priv, err := Certify(s.acc, leverN, cfg.Iterations(leverN), tu[0].Sigma/d.Clip)
			if err != nil {
				return err
			}
			ar := "—"
			if !math.IsNaN(priv.AddRemove) {
				ar = fmt.Sprintf("%.3g", priv.AddRemove)
			}
			z := byTrial(rows, MethodZero, leverN, 0, cfg.Trials)
			table = append(table, []string{d.Name, s.name, s.acc.Sampling().String(), fmt.Sprintf("%.3g", d.Clip), fmt.Sprintf("%.3g", tu[0].Sigma),
				fmt.Sprintf("%.3g", priv.ReplaceOne), ar, fmt.Sprint(tu[0].Best), fmt.Sprintf("%.0f%%", 100*clippedShare(rows, leverN, s.eps)),
				fmtCI("%.3f", ratio(byTrial(rows, MethodGPOPE, leverN, s.eps, cfg.Trials), z)),
				fmt.Sprintf("%.2g", meanAt(rows, MethodLSTD, leverN, 0)/meanAt(rows, MethodZero, leverN, 0))})
			bar.Add(1)
		}
		d.Clip = maxClip
	}
	bar.Done()
	out.Table([]string{"domain", "setting (n = 1000)", "sampling", "C", "σ", "certified ε (replace-one)", "ε (add/remove)", "tuned step", "clipped",
		"GPOPE / θ = 0", "LSTD / θ = 0"}, table)
	out.Markdown(fmt.Sprintf("GPOPE / θ = 0: mean [95%% interval] over %d trials; trial k draws from rand.NewPCG(%d, k). *Certified ε "+
		"(replace-one)* is the paper's privacy notion (WBK Theorem 27); the Poisson rows are calibrated for ε = 1 under *add/remove* "+
		"neighbours instead, which under replace-one is a much weaker guarantee, so they are not comparable with the other rows at "+
		"the paper's privacy level.", trials, seed))
	return nil
}
