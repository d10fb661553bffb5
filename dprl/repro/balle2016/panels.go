package balle2016

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/dprl-project/dprl/dprl/experiment"
	"github.com/dprl-project/dprl/dprl/policyeval"
	"github.com/dprl-project/dprl/dprl/report"
	"github.com/dprl-project/dprl/dprl/repro"
)

// Panel1 reproduces Fig. 1 (1): the non-private LSW and LSL (schedule constant c = 1) against m, with
// tabular and paired features, beside θ = 0. The claims and their tests: LSW converges faster (per-seed
// RMSE(LSL) − RMSE(LSW) at the largest m, tabular, above 0) and LSL moves to the same solution (per-seed
// RMSE(LSL) at the smallest m minus at the largest, tabular, above 0).
func Panel1(out report.Sink, g Grid) error {
	setup, err := NewSetup()
	if err != nil {
		return err
	}
	bar := out.Bar("trials", g.Trials)
	names := []string{"LSW, tabular", "LSL (c = 1), tabular", "LSW, pairs", "LSL (c = 1), pairs"}
	ys, err := estimates(g, func(sig *policyeval.Signature, m int, _ rand.Source) ([]float64, error) {
		var out []float64
		for _, agg := range []int{1, 2} {
			p := setup.Problem(agg, 100)
			w, err := policyeval.LSW(p, sig)
			if err != nil {
				return nil, err
			}
			lambda, err := policyeval.LambdaSchedule(p, 1, m)
			if err != nil {
				return nil, err
			}
			l, err := policyeval.LSL(p, sig, lambda)
			if err != nil {
				return nil, err
			}
			out = append(out, policyeval.RMSE(p.Phi, w, setup.V, p.Rho), policyeval.RMSE(p.Phi, l, setup.V, p.Rho))
		}
		return out, nil
	}, setup, 4, bar)
	if err != nil {
		return err
	}
	bar.Done()
	out.Markdown("RMSE against the exact values; θ = 0 is the error of publishing zero for every state. " + seeds(g))
	if err := panel(out, "Fig. 1 (1): non-private estimators", "m (trajectories)", "RMSE", g.M, names, ys, constant("θ = 0", g.M, zeroRMSE(setup))); err != nil {
		return err
	}
	last := len(g.M) - 1
	lslFall := make([]float64, g.Trials)
	for t, row := range ys[1] {
		lslFall[t] = row[0] - row[last]
	}
	repro.Record(out,
		tested(repro.Claim{Key: "p1", Claim: "Non-private: LSW converges faster than LSL", Paper: "Fig. 1 (1): both converge to the same solution, LSW faster",
			Why: fmt.Sprintf("test: per-seed RMSE(LSL, c = 1) − RMSE(LSW) at m = %.0f, tabular, same batch; reproduced if the 95%% interval is above 0", g.M[last])},
			paired(ys[1], ys[0], last, diff), 0, true),
		tested(repro.Claim{Key: "p1-conv", Claim: "Non-private: LSL approaches the same solution as m grows", Paper: "Fig. 1 (1): both converge to the same solution, LSW faster",
			Why: fmt.Sprintf("test: per-seed RMSE(LSL, c = 1) at m = %.0f minus at m = %.0f, tabular; reproduced if the 95%% interval is above 0", g.M[0], g.M[last])},
			lslFall, 0, true))
	return nil
}

// regularisationGrid is Fig. 1 (2)'s grid of schedule constants c (λ = ‖Φ‖_F²‖ρ‖∞ + c·m^0.4): 0.01 to 10⁴,
// extended to 10⁶ to show where DP-LSL's curve ends.
var regularisationGrid = []float64{0.01, 0.1, 1, 10, 100, 1000, 1e4, 1e5, 1e6}

// Panel2 reproduces Fig. 1 (2): RMSE against the schedule constant c (0.01, 0.1, …, 10⁶) for m = 1000 and
// 5000, tabular features, for LSW, LSL, DP-LSW and DP-LSL with the authors' and the safe bound, beside
// θ = 0; g.Trials trials per batch size. The claim: DP-LSL's RMSE is U-shaped in c, tested as the per-seed
// RMSE of DP-LSL (paper bound) at the largest c minus at c = 10³ being above 0 (the curve turns up again).
// It then explains, from the noise formula and the λ schedule, where a U could appear.
func Panel2(out report.Sink, g Grid) error {
	setup, err := NewSetup()
	if err != nil {
		return err
	}
	trials := g.Trials
	cs := regularisationGrid
	kEnd, kMid := len(cs)-1, slices.Index(cs, 1000)
	out.Markdown("RMSE against the schedule constant c, tabular features; LSW and DP-LSW do not depend on c. " + seeds(g))
	for _, m := range []float64{1000, 5000} {
		bar := out.Bar(fmt.Sprintf("m = %.0f", m), trials)
		names := []string{"LSW", "LSL", "DP-LSW", "DP-LSL (paper bound)", "DP-LSL (safe bound)"}
		ys := make([][][]float64, len(names))
		for i := range ys {
			ys[i] = make([][]float64, trials)
		}
		res, err := experiment.Trials(trials, 0, 2016, bar, func(t int, src rand.Source) ([][]float64, error) {
			rng := rand.New(src)
			sig, err := setup.Batch(int(m), rand.NewPCG(rng.Uint64(), rng.Uint64()))
			if err != nil {
				return nil, err
			}
			p := setup.Problem(1, 100)
			out := make([][]float64, len(names))
			w, err := policyeval.LSW(p, sig)
			if err != nil {
				return nil, err
			}
			dw, err := lswTabular.release(setup, sig, 0, rand.NewPCG(rng.Uint64(), 1))
			if err != nil {
				return nil, err
			}
			for _, c := range cs {
				lambda, err := policyeval.LambdaSchedule(p, c, int(m))
				if err != nil {
					return nil, err
				}
				l, err := policyeval.LSL(p, sig, lambda)
				if err != nil {
					return nil, err
				}
				dp, err := lslPaperTabular.release(setup, sig, c, rand.NewPCG(rng.Uint64(), 2))
				if err != nil {
					return nil, err
				}
				ds, err := lslSafeTabular.release(setup, sig, c, rand.NewPCG(rng.Uint64(), 3))
				if err != nil {
					return nil, err
				}
				out[0] = append(out[0], policyeval.RMSE(p.Phi, w, setup.V, p.Rho))
				out[1] = append(out[1], policyeval.RMSE(p.Phi, l, setup.V, p.Rho))
				out[2] = append(out[2], policyeval.RMSE(p.Phi, dw.Theta, setup.V, p.Rho))
				out[3] = append(out[3], policyeval.RMSE(p.Phi, dp.Theta, setup.V, p.Rho))
				out[4] = append(out[4], policyeval.RMSE(p.Phi, ds.Theta, setup.V, p.Rho))
			}
			return out, nil
		})
		if err != nil {
			return err
		}
		bar.Done()
		for t, r := range res {
			for i := range names {
				ys[i][t] = r[i]
			}
		}
		if err := panel(out, fmt.Sprintf("Fig. 1 (2): RMSE vs regularisation, m = %.0f (tabular)", m), "c (λ = λ_min + c·m^0.4)", "RMSE", cs, names, ys,
			constant("θ = 0", cs, zeroRMSE(setup))); err != nil {
			return err
		}
		turn := make([]float64, trials)
		for t, row := range ys[3] {
			turn[t] = row[kEnd] - row[kMid]
		}
		repro.Record(out, tested(repro.Claim{Key: fmt.Sprintf("p2-%.0f", m),
			Claim: fmt.Sprintf("DP-LSL's RMSE is U-shaped in λ: a sweet spot (m = %.0f)", m), Paper: "Fig. 1 (2): U-shaped DP-LSL curve",
			Why: fmt.Sprintf("test: per-seed RMSE(DP-LSL, paper bound) at c = %g minus at c = %g, tabular; reproduced if the 95%% interval is above 0 (the curve turns up at large c)", cs[kEnd], cs[kMid])},
			turn, 0, true))
	}
	return explainWindow(out, setup)
}

// window is where a U in DP-LSL's RMSE against c could appear at batch size m (tabular, on the batch
// PCG(2016, m)): Zero is θ = 0's RMSE; CHalf the smallest c at which the non-private LSL's RMSE reaches half
// of it; CNoise[b][f] the smallest c at which DP-LSL's noise σ falls below Zero, with bound b (LSLPaper,
// LSLSafe) and return bound F = 100 (f = 0) or F = 1 (f = 1; σ is linear in F).
type window struct {
	M, Zero, CHalf float64
	CNoise         [2][2]float64
}

// regularisationWindow scans c over 10⁻³ … 10⁹ (20 points a decade) on one batch of m trajectories.
func regularisationWindow(setup *Setup, m int) (window, error) {
	nan := math.NaN()
	w := window{M: float64(m), Zero: zeroRMSE(setup), CHalf: nan, CNoise: [2][2]float64{{nan, nan}, {nan, nan}}}
	sig, err := setup.Batch(m, rand.NewPCG(2016, uint64(m)))
	if err != nil {
		return w, err
	}
	p := setup.Problem(1, 100)
	for i := 0; i <= 240; i++ {
		c := math.Pow(10, -3+float64(i)/20)
		done := true
		for b, cfg := range []Config{lslPaperTabular, lslSafeTabular} {
			if !math.IsNaN(w.CNoise[b][0]) {
				continue
			}
			r, err := cfg.release(setup, sig, c, rand.NewPCG(1, 1))
			if err != nil {
				return w, err
			}
			for f, scale := range []float64{1, 0.01} {
				if math.IsNaN(w.CNoise[b][f]) && scale*r.Sigma <= w.Zero {
					w.CNoise[b][f] = c
				}
			}
			done = done && !math.IsNaN(w.CNoise[b][0])
		}
		if math.IsNaN(w.CHalf) {
			lambda, err := policyeval.LambdaSchedule(p, c, m)
			if err != nil {
				return w, err
			}
			l, err := policyeval.LSL(p, sig, lambda)
			if err != nil {
				return w, err
			}
			if policyeval.RMSE(p.Phi, l, setup.V, p.Rho) >= w.Zero/2 {
				w.CHalf = c
			}
		}
		if done && !math.IsNaN(w.CHalf) {
			break
		}
	}
	return w, nil
}

// explainWindow shows, from the noise formula and the λ schedule, why DP-LSL's curve has no U at these
// batch sizes and from which m one could appear.
func explainWindow(out report.Sink, setup *Setup) error {
	var rows [][]string
	var w window
	var open []string
	for _, m := range []int{1000, 5000} {
		var err error
		if w, err = regularisationWindow(setup, m); err != nil {
			return err
		}
		for f, fb := range []string{"100", "1"} {
			for b, bound := range []string{"paper", "safe"} {
				r := w.CNoise[b][f] / w.CHalf
				rows = append(rows, []string{fmt.Sprint(m), bound + " bound, F = " + fb, fmt.Sprintf("%.3f", w.Zero), fmt.Sprintf("%.3g", w.CHalf),
					fmt.Sprintf("%.3g", w.CNoise[b][f]), fmt.Sprintf("%.2g", r)})
				if r < 1 {
					open = append(open, fmt.Sprintf("m = %d with the %s bound and F = %s", m, bound, fb))
				}
			}
		}
	}
	out.Markdown("**Where a U could appear.** With λ = λ_min + c·m^0.4 and λ_min = ‖Φ‖_F²‖ρ‖∞, the paper bound's noise is " +
		"σ = 2αF‖Φ‖_F/(λ − λ_min)·√Ψ = 2αF‖Φ‖_F/(c·m^0.4)·√Ψ, and √Ψ falls to ‖ρ‖₂ as λ grows (its other term shrinks like 1/√λ): " +
		"σ ≈ 2αF‖Φ‖_F‖ρ‖₂/(c·m^0.4) falls like 1/c (the safe bound's σ = 2α‖Φ‖₂/λ·√Ψ likewise). LSL (tabular) estimates state s as " +
		"F_s·ρ_s n_s/(ρ_s n_s + λ/2): once λ/2 passes ρ_s n_s the estimate is shrunk towards 0. So at large c both curves end on the " +
		"θ = 0 line: LSL rises to it and DP-LSL, whose error is about √(bias² + σ²), falls to it from above as σ → 0. Raising c further " +
		"cannot turn DP-LSL up again: the bias has already reached that of θ = 0 and only the noise keeps shrinking. A dip below the θ = 0 line " +
		"needs, roughly, a range of c where σ is already below θ = 0's error while LSL still keeps most of the signal: c_noise < c_half " +
		"(one batch per m; σ is linear in F, so F = 1 divides it by 100):")
	out.Table([]string{"m", "noise", "RMSE(θ = 0)", "c_half: LSL's RMSE reaches half of θ = 0's", "c_noise: σ falls below θ = 0's RMSE", "c_noise/c_half"}, rows)
	mPaper := w.M * w.CNoise[0][0] / w.CHalf
	where := "in none of these settings"
	if len(open) > 0 {
		where = "only at " + strings.Join(open, "; ") + " (not run here)"
	}
	out.Markdown(fmt.Sprintf("With the configuration the panels run (paper bound, F = 100) the noise is small only far beyond the c "+
		"at which LSL has shrunk to about 0. Both thresholds fall like m^−0.4, but c_half carries an extra factor m (it compares λ "+
		"with ρ_s n_s, which grows like m), so c_noise/c_half closes like 1/m: from the m = %.0f row, that configuration's window "+
		"opens near m ≈ %.2g trajectories. The window is open (ratio below 1) %s.", w.M, mPaper, where))
	return nil
}

// Panels34 reproduces Fig. 1 (3) and (4). Panel 3: RMSE against m with paired features for LSW, LSL (c = 100),
// DP-LSW and DP-LSL (c = 100, the authors' bound), beside θ = 0. Panel 4: the excess empirical risk
// J_X(θ̃) − J_X(θ̂) of each private estimate over its non-private counterpart on the same batch, paired and
// tabular, beside θ = 0's J_X(0) − J_X(θ̂_LSW) and the non-private LSL's J_X(θ̂_LSL) − J_X(θ̂_LSW). The claims and their tests (per-seed values at the largest
// or smallest m): each DP method reaches its non-private counterpart (RMSE ratio below 2), DP-LSL beats
// DP-LSW at the smallest m and DP-LSW beats DP-LSL at the largest (RMSE differences above 0), and
// aggregation lowers each DP method's excess risk (tabular minus pairs above 0).
//
// When the merged sweep SweepFig1 is in the repository at root (repro.FullSize), both panels and the claims come from its rows
// (its batch sizes and seeds; it must run this configuration) and nothing is run; otherwise g's trials run.
func Panels34(out report.Sink, root string, g Grid) error {
	setup, err := NewSetup()
	if err != nil {
		return err
	}
	full, ok, err := repro.FullSize(out, root, SweepFig1)
	if err != nil {
		return err
	}
	names := []string{"LSW, pairs", "LSL (c = 100), pairs", "DP-LSW, pairs", "DP-LSL (c = 100), pairs"}
	riskNames := []string{"DP-LSW, pairs", "DP-LSL (c = 100), pairs", "DP-LSW, tabular", "DP-LSL (c = 100), tabular",
		"θ = 0 vs LSW, pairs", "LSL (c = 100) vs LSW, pairs", "θ = 0 vs LSW, tabular", "LSL (c = 100) vs LSW, tabular"}
	var ys [][][]float64
	ms, note := g.M, seeds(g)
	if ok {
		where := fmt.Sprintf("balle2016: merged sweep %s (%s)", full.Spec.Name, full.Dir)
		if err := checkSweepConfig(full.Spec); err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		batches, err := EstimatesFromSweep(full.Table)
		if err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		var trials int
		if ms, trials, ys, err = panels34FromSweep(batches); err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		note = sweepSeeds(trials, full.Spec.Seeds.Values())
	} else {
		bar := out.Bar("trials", g.Trials)
		ys, err = estimates(g, func(sig *policyeval.Signature, _ int, src rand.Source) ([]float64, error) {
			est, err := setup.PanelEstimates(sig, PanelC, ReturnBound, Privacy(), src)
			if err != nil {
				return nil, err
			}
			return panels34Vector(est)
		}, setup, len(panels34Values), bar)
		if err != nil {
			return err
		}
		bar.Done()
	}
	out.Markdown("**Panel 3**: RMSE against m with state aggregation (pairs), each private estimator beside its non-private counterpart " +
		"on the same batches. " + note)
	if err := panel(out, "Fig. 1 (3): RMSE vs m, state aggregation", "m (trajectories)", "RMSE", ms, names, ys[:len(names)], constant("θ = 0", ms, zeroRMSE(setup))); err != nil {
		return err
	}
	out.Markdown("**Panel 4**: excess empirical risk J_X(θ̃) − J_X(θ̂) of each private estimate over its non-private counterpart on the same " +
		"batch (DP-LSW over LSW, DP-LSL over LSL with c = 100), J_X(θ) = Σ_s ρ_s (n_s/m)(F_s − φ_sᵀθ)² (the paper's loss up to a term free of θ), " +
		"as the paper plots it. The non-private estimators are 0 by this definition (below the log axis); as references, on the " +
		"same batches, J_X(0) − J_X(θ̂_LSW) is what publishing θ = 0 would cost and J_X(θ̂_LSL) − J_X(θ̂_LSW) what the non-private LSL's " +
		"regulariser costs. " + note)
	if err := panel(out, "Fig. 1 (4): excess empirical risk vs m", "m (trajectories)", "excess empirical risk", ms, riskNames, ys[len(names):]); err != nil {
		return err
	}

	first, last := 0, len(ms)-1
	lsw, lsl, dw, dl := ys[0], ys[1], ys[2], ys[3]
	risk := ys[len(names):]
	mLast, mFirst := fmt.Sprintf("m = %.0f", ms[last]), fmt.Sprintf("m = %.0f", ms[first])
	repro.Record(out,
		tested(repro.Claim{Key: "p3-lsw", Claim: "DP-LSW reaches the non-private LSW for large m (pairs)", Paper: "Fig. 1 (3): the DP algorithms converge to their non-private versions",
			Why: "test: per-seed RMSE(DP-LSW)/RMSE(LSW) at " + mLast + ", pairs; reproduced if the 95% interval is below 2"},
			paired(dw, lsw, last, ratio), 2, false),
		tested(repro.Claim{Key: "p3-lsl", Claim: "DP-LSL reaches the non-private LSL for large m (pairs, c = 100)", Paper: "Fig. 1 (3): the DP algorithms converge to their non-private versions",
			Why: "test: per-seed RMSE(DP-LSL)/RMSE(LSL) at " + mLast + ", pairs, c = 100; reproduced if the 95% interval is below 2"},
			paired(dl, lsl, last, ratio), 2, false),
		tested(repro.Claim{Key: "p3-small", Claim: "DP-LSL is better than DP-LSW for small batches (pairs)", Paper: "Fig. 1 (3): LSL for small batches, LSW for large",
			Why: "test: per-seed RMSE(DP-LSW) − RMSE(DP-LSL) at " + mFirst + ", pairs; reproduced if the 95% interval is above 0"},
			paired(dw, dl, first, diff), 0, true),
		tested(repro.Claim{Key: "p3-large", Claim: "DP-LSW is better than DP-LSL for large batches (pairs)", Paper: "Fig. 1 (3): LSL for small batches, LSW for large",
			Why: "test: per-seed RMSE(DP-LSL) − RMSE(DP-LSW) at " + mLast + ", pairs; reproduced if the 95% interval is above 0"},
			paired(dl, dw, last, diff), 0, true),
		tested(repro.Claim{Key: "p4-lsw", Claim: "Aggregation (d = 20) lowers DP-LSW's excess empirical risk", Paper: "Fig. 1 (4): more aggressive function approximation helps both DP algorithms",
			Why: "test: per-seed excess risk of DP-LSW, tabular minus pairs, at " + mLast + "; reproduced if the 95% interval is above 0"},
			paired(risk[2], risk[0], last, diff), 0, true),
		tested(repro.Claim{Key: "p4-lsl", Claim: "Aggregation (d = 20) lowers DP-LSL's excess empirical risk (c = 100)", Paper: "Fig. 1 (4): more aggressive function approximation helps both DP algorithms",
			Why: "test: per-seed excess risk of DP-LSL, tabular minus pairs, at " + mLast + "; reproduced if the 95% interval is above 0"},
			paired(risk[3], risk[1], last, diff), 0, true),
	)
	return nil
}
