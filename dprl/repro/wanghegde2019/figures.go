package wanghegde2019

import (
	"fmt"

	"github.com/dprl-project/dprl/dprl/experiment"
	"github.com/dprl-project/dprl/dprl/report"
	"github.com/dprl-project/dprl/dprl/repro"
)

// tested decides c from per-seed values d: the 95% Student-t interval of their mean against boundary
// (above: the paper's side is above it), with why saying what was tested.
func tested(c repro.Claim, d []float64, boundary float64, above bool, why string) repro.Claim {
	m, lo, hi := experiment.MeanCI(d, 0.95)
	c = repro.Tested(c, m, lo, hi, len(d), "%.2f", boundary, above)
	c.Why = why
	return c
}

// equivalent decides a claim of similarity from per-seed differences d: reproduced when the 95% interval of
// their mean lies within (−margin, margin), not reproduced when it lies wholly outside, else inconclusive.
func equivalent(c repro.Claim, d []float64, margin float64, why string) repro.Claim {
	c = tested(c, d, -margin, true, why)
	upper := repro.Verdict(c.CILow, c.CIHigh, margin, false)
	switch {
	case c.Verdict == repro.Reproduced && upper == repro.Reproduced:
		c.Verdict = repro.Reproduced
	case c.Verdict == repro.NotReproduced || upper == repro.NotReproduced:
		c.Verdict = repro.NotReproduced
	default:
		c.Verdict = repro.Inconclusive
	}
	return c
}

// pairedTest states the test of a paired difference: what, above or below which boundary.
func pairedTest(what string, boundary float64, above bool) string {
	side := "above"
	if !above {
		side = "below"
	}
	return fmt.Sprintf("Test stated before the run: per seed (every setting of a seed shares its random stream), %s; "+
		"95%% t interval of the mean over seeds; reproduced if it lies wholly %s %g, not reproduced if wholly on the other side.", what, side, boundary)
}

// Fig1Sigmas is Fig. 1(a)'s path-noise grid, the code's.
var Fig1Sigmas = []float64{0, 0.2, 0.4, 0.6, 0.8, 1}

// Fig1Settings are Fig. 1's learners, all in the code configuration: one per σ of Fig1Sigmas with paths reset
// every episode (σ = 0 is the non-private DQN), then σ = 0.4 with paths reset every 10 episodes and never,
// then the random policy.
func Fig1Settings(episodes int) []Setting {
	var s []Setting
	for _, sigma := range Fig1Sigmas {
		name := fmt.Sprintf("σ = %g", sigma)
		if sigma == 0 {
			name = "σ = 0 (non-private DQN)"
		}
		s = append(s, CodeAgent(name, sigma, 1, episodes))
	}
	return append(s, CodeAgent("σ = 0.4, J = 10", 0.4, 10, episodes), CodeAgent("σ = 0.4, J = 1 (never reset)", 0.4, -1, episodes), RandomPolicy(episodes))
}

// Fig1 reproduces Fig. 1 in the code configuration (no privacy guarantee: Theorem 5 does not cover it):
// (a) learning curves for path noise σ ∈ Fig1Sigmas with paths reset every episode, with a table of the
// first- and last-fifth returns; (b) σ = 0.4 with paths reset every 1 or 10 episodes or never; both with the
// non-private DQN and the random policy. It records three claims, each decided from a paired 95% interval
// over seeds: σ = 0.2 keeps 80% and σ = 0.4 keeps 70% of the non-private last-fifth return, and resetting
// every episode beats never resetting. With the merged sweeps SweepFig1a and SweepFig1b present in the repository at root it
// draws all of this from their runs instead of running p (repro.FullSize says which on out).
func Fig1(out report.Sink, root string, p Protocol) error {
	settings := Fig1Settings(p.Episodes)
	res, seeds, err := fig1Curves(out, root, settings, p)
	if err != nil {
		return err
	}
	nSig := len(Fig1Sigmas)
	rnd := curve{settings[nSig+2].Legend(), res[nSig+2]}
	var a []curve
	var t [][]string
	for i := range Fig1Sigmas {
		a = append(a, curve{settings[i].Legend(), res[i]})
		t = append(t, []string{settings[i].Name, settings[i].Privacy.Label(), ci(firstFifth(res[i])), ci(lastFifth(res[i]))})
	}
	t = append(t, []string{settings[nSig+2].Name, settings[nSig+2].Privacy.Label(), ci(firstFifth(rnd.runs)), ci(lastFifth(rnd.runs))})
	if err := plotCurves(out, "Fig. 1(a): code configuration, paths reset every episode (J = 100)", seeds, append(a, rnd)...); err != nil {
		return err
	}
	out.Table([]string{"setting", "privacy", "mean return, first fifth [95% CI]", "last fifth [95% CI]"}, t)
	j100 := settings[2]
	j100.Name = "σ = 0.4, J = 100 (every episode)"
	if err := plotCurves(out, "Fig. 1(b): code configuration, σ = 0.4, paths reset every 1 or 10 episodes or never", seeds,
		curve{j100.Legend(), res[2]}, curve{settings[nSig].Legend(), res[nSig]}, curve{settings[nSig+1].Legend(), res[nSig+1]},
		a[0], rnd); err != nil {
		return err
	}
	PrivacyTable(out, settings)

	base, s2, s4 := lastFifth(res[0]), lastFifth(res[1]), lastFifth(res[2])
	util := " A utility claim about the code configuration, which has no privacy guarantee."
	repro.Record(out,
		tested(repro.Claim{Key: "f1", Claim: "Code configuration, a fresh path every episode: σ = 0.2 keeps at least 80% of the non-private last-fifth return",
			Paper: "Fig. 1: converges with limited sub-optimality, especially for σ < 0.4"},
			paired(s2, 1, base, 0.8), 0, true, pairedTest("last-fifth mean return at σ = 0.2 minus 0.8 × the non-private DQN's", 0, true)+util),
		tested(repro.Claim{Key: "f1-04", Claim: "Code configuration, a fresh path every episode: σ = 0.4 keeps at least 70% of the non-private last-fifth return",
			Paper: "Fig. 1: converges with limited sub-optimality, especially for σ < 0.4"},
			paired(s4, 1, base, 0.7), 0, true, pairedTest("last-fifth mean return at σ = 0.4 minus 0.7 × the non-private DQN's", 0, true)+util),
		tested(repro.Claim{Key: "f1-j", Claim: "Resetting the path every episode (J = 100) learns better than never (J = 1), σ = 0.4",
			Paper: "Fig. 1, recommends J = T/B"},
			paired(s4, 1, lastFifth(res[nSig+1]), 1), 0, true, pairedTest("last-fifth mean return with J = 100 minus with J = 1", 0, true)+util))
	return nil
}

// Fig2 reproduces Fig. 2: for each row of Fig2Rows, the learning curves of Fig2Settings (the non-private
// DQN and the random policy are shared by the two rows) in two figures, the learners with a guarantee at
// that ε and those without one (each beside the corrected Algorithm 1 and the references), a table of first- and last-fifth returns and the
// privacy of every learner. Functional noise enters the claims only as Algorithm 1 with the corrected
// calibration, the one configuration with a guarantee, at the same true ε as input perturbation and DP-SGD.
// Per ε it records, each from a paired 95% interval over seeds: ours beats input perturbation, ours beats
// DP-SGD, BGP16 is within 2 of ours, ours beats the random policy; at ε = 0.45 also that input perturbation
// and DP-SGD each improve by less than 2 from the first to the last fifth.
func Fig2(out report.Sink, p Protocol) error {
	rows := Fig2Rows()
	var all []Setting
	per := make([][]Setting, len(rows))
	for r, row := range rows {
		s, err := Fig2Settings(row, p.Episodes)
		if err != nil {
			return err
		}
		per[r] = s
		all = append(all, s[:F2NonPrivate]...)
	}
	shared := len(all)
	all = append(all, per[0][F2NonPrivate:]...)
	res, err := runCurves(out, "Fig. 2", all, p)
	if err != nil {
		return err
	}
	for r, row := range rows {
		get := func(i int) [][]float64 {
			if i >= F2NonPrivate {
				return res[shared+i-F2NonPrivate]
			}
			return res[r*F2NonPrivate+i]
		}
		var t [][]string
		for i, s := range per[r] {
			t = append(t, []string{s.Name, s.Privacy.Label(), ci(firstFifth(get(i))), ci(lastFifth(get(i)))})
		}
		for _, panel := range []struct {
			title string
			which []int
		}{
			{"Fig. 2: ε = %g, δ = 1e−4: the private learners, all at this ε", []int{F2Alg1, F2Input, F2DPSGD, F2Alg1Noiseless, F2NonPrivate, F2Random}},
			{"Fig. 2: ε = %g, δ = 1e−4: the learners without a privacy guarantee", []int{F2Code, F2Alg1Paper, F2BGP, F2Alg1, F2Alg1Noiseless, F2NonPrivate, F2Random}},
		} {
			var cs []curve
			for _, i := range panel.which {
				cs = append(cs, curve{per[r][i].Legend(), get(i)})
			}
			if err := plotCurves(out, fmt.Sprintf(panel.title, row.Epsilon), repro.FirstRunSeeds(Seed, p.Seeds), cs...); err != nil {
				return err
			}
		}
		out.Table([]string{"setting", "privacy", "mean return, first fifth [95% CI]", "last fifth [95% CI]"}, t)
		PrivacyTable(out, per[r])

		ours, code, ip, dp, bgp, rnd := lastFifth(get(F2Alg1)), lastFifth(get(F2Code)), lastFifth(get(F2Input)), lastFifth(get(F2DPSGD)), lastFifth(get(F2BGP)), lastFifth(get(F2Random))
		eps, key := row.Epsilon, fmt.Sprintf("f2-%g", row.Epsilon)
		same := fmt.Sprintf(" Both at ε = %g by the exact accountant (privacy table).", eps)
		aside := func(base []float64) string {
			return fmt.Sprintf(" Not eligible, shown for comparison: the code configuration (no privacy guarantee) minus it: %s; the random policy minus it: %s.",
				ci(paired(code, 1, base, 1)), ci(paired(rnd, 1, base, 1)))
		}
		claims := []repro.Claim{
			tested(repro.Claim{Key: key + "-ip", Claim: fmt.Sprintf("ε = %g: functional noise with a guarantee (Algorithm 1, corrected) outperforms input perturbation", eps),
				Paper: "Fig. 2: ours significantly outperforms input perturbation and DP-SGD"},
				paired(ours, 1, ip, 1), 0, true, pairedTest("last-fifth mean return of Algorithm 1 (corrected) minus input perturbation's", 0, true)+same+aside(ip)),
			tested(repro.Claim{Key: key + "-dp", Claim: fmt.Sprintf("ε = %g: functional noise with a guarantee (Algorithm 1, corrected) outperforms DP-SGD", eps),
				Paper: "Fig. 2: ours significantly outperforms input perturbation and DP-SGD"},
				paired(ours, 1, dp, 1), 0, true, pairedTest("last-fifth mean return of Algorithm 1 (corrected) minus DP-SGD's", 0, true)+same+aside(dp)),
			equivalent(repro.Claim{Key: key + "-bgp", Claim: fmt.Sprintf("ε = %g: BGP16 performs similarly to functional noise with a guarantee (Algorithm 1, corrected)", eps),
				Paper: "Fig. 2: BGP16 performs similarly to ours"},
				paired(bgp, 1, ours, 1), 2, fmt.Sprintf("Test stated before the run: per seed, last-fifth mean return of BGP16 minus Algorithm 1 (corrected); "+
					"reproduced if the 95%% t interval lies within (−2, 2), not reproduced if wholly outside, else inconclusive. "+
					"BGP16 has no guarantee for neighbouring reward functions: a utility comparison only. The code configuration minus BGP16: %s.", ci(paired(code, 1, bgp, 1)))),
			tested(repro.Claim{Key: key + "-random", Kind: repro.KindSanity, Claim: fmt.Sprintf("ε = %g: functional noise with a guarantee (Algorithm 1, corrected) learns: it ends above the random policy", eps),
				Paper: "Fig. 2 (implicit: ours learns a useful policy)"},
				paired(ours, 1, rnd, 1), 0, true, pairedTest("last-fifth mean return of Algorithm 1 (corrected) minus the random policy's", 0, true)+
					fmt.Sprintf(" Algorithm 1 without noise minus the random policy: %s.", ci(paired(lastFifth(get(F2Alg1Noiseless)), 1, rnd, 1)))),
		}
		if eps == 0.45 {
			for _, c := range []struct {
				key, name string
				i         int
			}{{"f2-flat-ip", "input perturbation", F2Input}, {"f2-flat-dp", "DP-SGD", F2DPSGD}} {
				claims = append(claims, tested(repro.Claim{Key: c.key, Claim: fmt.Sprintf("At ε = 0.45 %s does not improve during training", c.name), Paper: "Fig. 2(b)"},
					paired(lastFifth(get(c.i)), 1, firstFifth(get(c.i)), 1), 2, false, pairedTest("last-fifth minus first-fifth mean return of "+c.name, 2, false)))
			}
		}
		repro.Record(out, claims...)
	}
	return nil
}
