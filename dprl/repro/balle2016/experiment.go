package balle2016

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/dprl-project/dprl/dprl/experiment"
	"github.com/dprl-project/dprl/dprl/figure"
	"github.com/dprl-project/dprl/dprl/policyeval"
	"github.com/dprl-project/dprl/dprl/report"
	"github.com/dprl-project/dprl/dprl/repro"
)

// NoiseScales shows the smooth-sensitivity constants on real batches of the chain, before any estimate is
// judged: for DP-LSW (tabular and paired features, m = 100, 1000, 5000) the visit counts, the unsmoothed
// φ(n) = Σ_s ρ_s/max(n_s, 1)², the smooth bound Ψ_β(n) with its maximising k, α, β and σ with the code's
// return bound F = 100 and the tight F = 1; for DP-LSL (tabular, m = 1000) σ by the authors' formula and by
// the safe bound for three schedule constants c; and a figure of σ against the batch size.
func NoiseScales(out report.Sink) error {
	setup, err := NewSetup()
	if err != nil {
		return err
	}
	priv := Privacy()
	var rows [][]string
	for _, agg := range []int{1, 2} {
		p := setup.Problem(agg, 100)
		for _, m := range []int{100, 1000, 5000} {
			sig, err := setup.Batch(m, rand.NewPCG(2016, uint64(m)))
			if err != nil {
				return err
			}
			nMin, nMax := m, 0
			phiN := 0.0
			for s, c := range sig.Counts {
				nMin, nMax = min(nMin, c), max(nMax, c)
				d := math.Max(float64(c), 1)
				phiN += p.Rho[s] / (d * d)
			}
			r, err := policyeval.DPLSW(p, sig, priv, false, rand.NewPCG(1, 1))
			if err != nil {
				return err
			}
			_, d := p.Phi.Dims()
			rows = append(rows, []string{fmt.Sprintf("d = %d", d), fmt.Sprint(m), fmt.Sprintf("%d / %d", nMin, nMax),
				fmt.Sprintf("%.2e", phiN), fmt.Sprintf("%.3g (k = %d)", r.SmoothBound, r.ArgmaxK),
				fmt.Sprintf("%.3g", r.Alpha), fmt.Sprintf("%.3g", r.Beta), fmt.Sprintf("%.3g", r.Sigma), fmt.Sprintf("%.3g", r.Sigma/100)})
		}
	}
	out.Markdown("**DP-LSW**: counts, the unsmoothed φ(n), the smooth bound Ψ_β(n) and the noise σ (F = 100, and with the public bound F = 1).")
	out.Table([]string{"features", "m", "n_min / n_max", "φ(n)", "Ψ_β (argmax k)", "α", "β", "σ, F = 100", "σ, F = 1"}, rows)

	p := setup.Problem(1, 100)
	sig, err := setup.Batch(1000, rand.NewPCG(2016, 1000))
	if err != nil {
		return err
	}
	rows = nil
	for _, c := range []float64{1, 100, 1e4} {
		lambda, err := policyeval.LambdaSchedule(p, c, 1000)
		if err != nil {
			return err
		}
		rp, err := policyeval.DPLSL(p, sig, lambda, priv, policyeval.LSLPaper, rand.NewPCG(1, 1))
		if err != nil {
			return err
		}
		rs, err := policyeval.DPLSL(p, sig, lambda, priv, policyeval.LSLSafe, rand.NewPCG(1, 1))
		if err != nil {
			return err
		}
		rows = append(rows, []string{fmt.Sprint(c), fmt.Sprintf("%.1f", lambda), fmt.Sprintf("%.3g", rp.Sigma), fmt.Sprintf("%.3g", rs.Sigma)})
	}
	out.Markdown("**DP-LSL**, tabular, m = 1000, λ = ‖Φ‖²_F‖ρ‖∞ + c·m^0.4: σ by the authors' formula and by the provably safe bound (see the package documentation of `dprl/repro/balle2016`).")
	out.Table([]string{"c", "λ", "σ (paper/code formula)", "σ (safe bound)"}, rows)

	// σ as the batch grows.
	ms := []float64{100, 250, 500, 1000, 2000, 3000, 5000}
	names := []string{"DP-LSW, tabular", "DP-LSW, pairs", "DP-LSL (c = 100), paper", "DP-LSL (c = 100), safe"}
	y := make([][]float64, len(names))
	for i := range y {
		y[i] = make([]float64, len(ms))
	}
	for k, mf := range ms {
		m := int(mf)
		sig, err := setup.Batch(m, rand.NewPCG(7, uint64(m)))
		if err != nil {
			return err
		}
		for i, agg := range []int{1, 2} {
			r, err := policyeval.DPLSW(setup.Problem(agg, 100), sig, priv, false, rand.NewPCG(1, 1))
			if err != nil {
				return err
			}
			y[i][k] = r.Sigma
		}
		lambda, err := policyeval.LambdaSchedule(p, 100, m)
		if err != nil {
			return err
		}
		for i, b := range []policyeval.LSLBound{policyeval.LSLPaper, policyeval.LSLSafe} {
			r, err := policyeval.DPLSL(p, sig, lambda, priv, b, rand.NewPCG(1, 1))
			if err != nil {
				return err
			}
			y[2+i][k] = r.Sigma
		}
	}
	var series []figure.Series
	for i, n := range names {
		series = append(series, figure.Series{Name: n, X: ms, Y: [][]float64{y[i]}})
	}
	fig, err := figure.Curves(figure.Options{Title: "Noise σ vs batch size (ε = δ = 0.1, F = 100)", XLabel: "m (trajectories)", YLabel: "σ", LogX: true, LogY: true}, series...)
	if err != nil {
		return err
	}
	return out.Figure(fig)
}

// Grid sizes Fig. 1's runs: the trials per point and the batch sizes m.
type Grid struct {
	Trials int
	M      []float64
}

// DefaultGrid runs 10 trials (2 in quick mode) on m = 100, 500, 1000, 2000, 3500, 5000.
func DefaultGrid() Grid {
	return Grid{Trials: experiment.Size(10, 2), M: []float64{100, 500, 1000, 2000, 3500, 5000}}
}

// PaperGrid runs the paper's 20 trials on its batch grid m = 100, 500, 1000, 1500, …, 5000.
func PaperGrid() Grid {
	ms := []float64{100}
	for m := 500; m <= 5000; m += 500 {
		ms = append(ms, float64(m))
	}
	return Grid{Trials: 20, M: ms}
}

// estimates runs fn on a fresh batch of each size of the grid for every trial and returns nOut curves of
// values, each [trial][m]. Trial t's batches and fn's streams come from experiment.Trials' stream (seed 2016).
func estimates(g Grid, fn func(sig *policyeval.Signature, m int, src rand.Source) ([]float64, error), setup *Setup, nOut int, bar report.Bar) ([][][]float64, error) {
	out := make([][][]float64, nOut)
	for i := range out {
		out[i] = make([][]float64, g.Trials)
		for t := range out[i] {
			out[i][t] = make([]float64, len(g.M))
		}
	}
	res, err := experiment.Trials(g.Trials, 0, 2016, bar, func(t int, src rand.Source) ([][]float64, error) {
		rng := rand.New(src)
		r := make([][]float64, len(g.M))
		for k, mf := range g.M {
			sig, err := setup.Batch(int(mf), rand.NewPCG(rng.Uint64(), rng.Uint64()))
			if err != nil {
				return nil, err
			}
			if r[k], err = fn(sig, int(mf), rand.NewPCG(rng.Uint64(), rng.Uint64())); err != nil {
				return nil, err
			}
		}
		return r, nil
	})
	if err != nil {
		return nil, err
	}
	for t, r := range res {
		for k := range g.M {
			for i := range nOut {
				out[i][t][k] = r[k][i]
			}
		}
	}
	return out, nil
}

func mean(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

// lastMean is the mean over trials of the last point of each row.
func lastMean(rows [][]float64) float64 {
	var v []float64
	for _, r := range rows {
		v = append(v, r[len(r)-1])
	}
	return mean(v)
}

// firstMean is the mean over trials of the first point of each row.
func firstMean(rows [][]float64) float64 {
	var v []float64
	for _, r := range rows {
		v = append(v, r[0])
	}
	return mean(v)
}

// verdict is the claims table's verdict for a test's outcome.
func verdict(ok bool) string {
	if ok {
		return "reproduced"
	}
	return "not reproduced"
}

// panel shows one log–log panel: each series is a name and its [trial][x] values (bands: ± one standard
// deviation).
func panel(out report.Sink, title, xlabel, ylabel string, x []float64, names []string, ys [][][]float64) error {
	var series []figure.Series
	for i, n := range names {
		series = append(series, figure.Series{Name: n, X: x, Y: ys[i]})
	}
	p, err := figure.Curves(figure.Options{Title: title, XLabel: xlabel, YLabel: ylabel, LogX: true, LogY: true}, series...)
	if err != nil {
		return err
	}
	return out.Figure(p)
}

// Panel1 reproduces Fig. 1 (1): the non-private LSW and LSL (schedule constant c = 1) against m, with
// tabular and paired features. The claim: both converge to the same solution, LSW faster, tested as LSW's
// mean RMSE at the largest m being no larger than LSL's (tabular).
func Panel1(out report.Sink, g Grid) error {
	setup, err := NewSetup()
	if err != nil {
		return err
	}
	bar := out.Bar("trials", g.Trials)
	names := []string{"LSW, tabular", "LSL, tabular", "LSW, pairs", "LSL, pairs"}
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
	if err := panel(out, "Fig. 1 (1): non-private estimators", "m (trajectories)", "RMSE", g.M, names, ys); err != nil {
		return err
	}
	ms := g.M
	lsw, lsl := lastMean(ys[0]), lastMean(ys[1])
	return repro.RecordClaims(repro.ClaimsFile(Notebook), repro.Claim{Key: "p1", Claim: "Non-private: LSW and LSL converge to the same solution, LSW faster",
		Paper: "Fig. 1 (1), no numbers", Measured: fmt.Sprintf("RMSE at m = %.0f: LSW %.4f, LSL %.4f (tabular)", ms[len(ms)-1], lsw, lsl), Verdict: verdict(lsw <= lsl)})
}

// regularisationGrid is Fig. 1 (2)'s grid of schedule constants c (λ = ‖Φ‖_F²‖ρ‖∞ + c·m^0.4).
var regularisationGrid = []float64{0.01, 0.1, 1, 10, 100, 1000, 10000}

// Panel2 reproduces Fig. 1 (2): RMSE against the schedule constant c (0.01, 0.1, …, 10⁴) for m = 1000 and
// 5000, tabular features, for LSW, LSL, DP-LSW and DP-LSL with the authors' and the safe bound; g.Trials
// trials per batch size. The claim: DP-LSL has a sweet spot in λ, tested as the c of the lowest mean
// DP-LSL (paper bound) RMSE lying strictly inside the grid.
func Panel2(out report.Sink, g Grid) error {
	setup, err := NewSetup()
	if err != nil {
		return err
	}
	trials := g.Trials
	priv := Privacy()
	cs := regularisationGrid
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
			dw, err := policyeval.DPLSW(p, sig, priv, false, rand.NewPCG(rng.Uint64(), 1))
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
				dp, err := policyeval.DPLSL(p, sig, lambda, priv, policyeval.LSLPaper, rand.NewPCG(rng.Uint64(), 2))
				if err != nil {
					return nil, err
				}
				ds, err := policyeval.DPLSL(p, sig, lambda, priv, policyeval.LSLSafe, rand.NewPCG(rng.Uint64(), 3))
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
		if err := panel(out, fmt.Sprintf("Fig. 1 (2): RMSE vs regularisation, m = %.0f (tabular)", m), "c (λ = λ_min + c·m^0.4)", "RMSE", cs, names, ys); err != nil {
			return err
		}
		best, bestC := math.Inf(1), 0.0
		for k, c := range cs {
			var v []float64
			for _, row := range ys[3] {
				v = append(v, row[k])
			}
			if mv := mean(v); mv < best {
				best, bestC = mv, c
			}
		}
		if err := repro.RecordClaims(repro.ClaimsFile(Notebook), repro.Claim{Key: fmt.Sprintf("p2-%.0f", m), Claim: fmt.Sprintf("DP-LSL has an accuracy/privacy sweet spot in λ (m = %.0f)", m),
			Paper: "Fig. 1 (2): U-shaped DP-LSL curve", Measured: fmt.Sprintf("best c = %g, RMSE %.3f; DP-LSW RMSE %.3g", bestC, best, lastMean(ys[2])),
			Verdict: verdict(bestC > cs[0] && bestC < cs[len(cs)-1])}); err != nil {
			return err
		}
	}
	return nil
}

// Panels34 reproduces Fig. 1 (3) and (4): the private estimators against m with paired and tabular
// features (RMSE, beside the non-private LSW), and their excess empirical risk over their non-private
// counterparts; DP-LSL uses the schedule constant c = 100 and the authors' bound. The claims: the private
// estimators reach the non-private solution for large m (one of them within 2× of LSW's RMSE at the
// largest m), DP-LSL is better for small batches and DP-LSW for large ones (pairs), and aggregation helps
// both (pairs below tabular at the largest m).
func Panels34(out report.Sink, g Grid) error {
	setup, err := NewSetup()
	if err != nil {
		return err
	}
	priv := Privacy()
	bar := out.Bar("trials", g.Trials)
	names := []string{"LSW (non-private)", "DP-LSW, pairs", "DP-LSL c = 100, pairs", "DP-LSW, tabular", "DP-LSL c = 100, tabular"}
	riskNames := []string{"DP-LSW, pairs", "DP-LSL, pairs", "DP-LSW, tabular", "DP-LSL, tabular"}
	ys, err := estimates(g, func(sig *policyeval.Signature, m int, src rand.Source) ([]float64, error) {
		rng := rand.New(src)
		var rmse, risk []float64
		pt := setup.Problem(1, 100)
		w, err := policyeval.LSW(pt, sig)
		if err != nil {
			return nil, err
		}
		rmse = append(rmse, policyeval.RMSE(pt.Phi, w, setup.V, pt.Rho))
		for _, agg := range []int{2, 1} {
			p := setup.Problem(agg, 100)
			base, err := policyeval.LSW(p, sig)
			if err != nil {
				return nil, err
			}
			dw, err := policyeval.DPLSW(p, sig, priv, false, rand.NewPCG(rng.Uint64(), 1))
			if err != nil {
				return nil, err
			}
			lambda, err := policyeval.LambdaSchedule(p, 100, m)
			if err != nil {
				return nil, err
			}
			baseL, err := policyeval.LSL(p, sig, lambda)
			if err != nil {
				return nil, err
			}
			dl, err := policyeval.DPLSL(p, sig, lambda, priv, policyeval.LSLPaper, rand.NewPCG(rng.Uint64(), 2))
			if err != nil {
				return nil, err
			}
			rmse = append(rmse, policyeval.RMSE(p.Phi, dw.Theta, setup.V, p.Rho), policyeval.RMSE(p.Phi, dl.Theta, setup.V, p.Rho))
			risk = append(risk,
				policyeval.EmpiricalRisk(p.Phi, dw.Theta, sig, p.Rho)-policyeval.EmpiricalRisk(p.Phi, base, sig, p.Rho),
				policyeval.EmpiricalRisk(p.Phi, dl.Theta, sig, p.Rho)-policyeval.EmpiricalRisk(p.Phi, baseL, sig, p.Rho))
		}
		return append(rmse, risk...), nil
	}, setup, len(names)+len(riskNames), bar)
	if err != nil {
		return err
	}
	bar.Done()
	ms := g.M
	if err := panel(out, "Fig. 1 (3): RMSE vs m, private estimators", "m (trajectories)", "RMSE", ms, names, ys[:len(names)]); err != nil {
		return err
	}
	if err := panel(out, "Fig. 1 (4): excess empirical risk vs m", "m (trajectories)", "excess risk", ms, riskNames, ys[len(names):]); err != nil {
		return err
	}

	lsw := lastMean(ys[0])
	dpPairs, dpTab := lastMean(ys[1]), lastMean(ys[3])
	dlPairs, dlTab := lastMean(ys[2]), lastMean(ys[4])
	return repro.RecordClaims(repro.ClaimsFile(Notebook),
		repro.Claim{Key: "p3", Claim: "DP methods reach the non-private solution for large m",
			Paper: "Fig. 1 (3)", Measured: fmt.Sprintf("RMSE at m = %.0f: LSW %.4f, DP-LSW %.3g (pairs), DP-LSL %.3g (pairs)", ms[len(ms)-1], lsw, dpPairs, dlPairs),
			Verdict: verdict(dpPairs < 2*lsw || dlPairs < 2*lsw)},
		repro.Claim{Key: "p3-small", Claim: "DP-LSL is better for small batches, DP-LSW for large",
			Paper: "Fig. 1 (3)", Measured: fmt.Sprintf("m = %.0f: DP-LSL %.3g vs DP-LSW %.3g; m = %.0f: %.3g vs %.3g (pairs)", ms[0], firstMean(ys[2]), firstMean(ys[1]), ms[len(ms)-1], dlPairs, dpPairs),
			Verdict: verdict(firstMean(ys[2]) < firstMean(ys[1]) && dpPairs < dlPairs)},
		repro.Claim{Key: "p4", Claim: "Smaller d (aggregation) helps both DP algorithms",
			Paper: "Fig. 1 (4)", Measured: fmt.Sprintf("RMSE at m = %.0f, pairs vs tabular: DP-LSW %.3g vs %.3g, DP-LSL %.3g vs %.3g", ms[len(ms)-1], dpPairs, dpTab, dlPairs, dlTab),
			Verdict: verdict(dpPairs < dpTab && dlPairs < dlTab)},
	)
}
