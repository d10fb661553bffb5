package balle2016

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/dprl-project/dprl/dprl/figure"
	"github.com/dprl-project/dprl/dprl/policyeval"
	"github.com/dprl-project/dprl/dprl/report"
)

// NoiseScales shows the smooth-sensitivity constants on real batches of the chain, before any estimate is
// judged: for DP-LSW (tabular and paired features, m = 100, 1000, 5000) the visit counts, the unsmoothed
// φ(n) = Σ_s ρ_s/max(n_s, 1)², the smooth bound Ψ_β(n) with its maximising k, α, β and σ with the code's
// return bound F = 100 and the tight F = 1; for DP-LSL (tabular, m = 1000) σ by the authors' formula and by
// the safe bound for three schedule constants c; and a figure of σ against the batch size with the θ = 0
// reference (the σ at which the noise alone costs as much as publishing θ = 0).
func NoiseScales(out report.Sink) error {
	setup, err := NewSetup()
	if err != nil {
		return err
	}
	var rows [][]string
	for _, cfg := range []Config{lswTabular, lswPairs} {
		p := setup.Problem(cfg.Aggregate, 100)
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
			r, err := cfg.release(setup, sig, 0, rand.NewPCG(1, 1))
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
		rp, err := lslPaperTabular.release(setup, sig, c, rand.NewPCG(1, 1))
		if err != nil {
			return err
		}
		rs, err := lslSafeTabular.release(setup, sig, c, rand.NewPCG(1, 1))
		if err != nil {
			return err
		}
		rows = append(rows, []string{fmt.Sprint(c), fmt.Sprintf("%.1f", lambda), fmt.Sprintf("%.3g", rp.Sigma), fmt.Sprintf("%.3g", rs.Sigma)})
	}
	out.Markdown("**DP-LSL**, tabular, m = 1000, λ = ‖Φ‖²_F‖ρ‖∞ + c·m^0.4: σ by the authors' formula and by the provably safe bound (see the package documentation of `dprl/repro/balle2016`).")
	out.Table([]string{"c", "λ", "σ (paper/code formula)", "σ (safe bound)"}, rows)

	// σ as the batch grows.
	ms := []float64{100, 250, 500, 1000, 2000, 3000, 5000}
	cfgs := []Config{lswTabular, lswPairs, lslPaperTabular, lslSafeTabular}
	names := []string{"DP-LSW, tabular", "DP-LSW, pairs", "DP-LSL (c = 100), paper", "DP-LSL (c = 100), safe"}
	y := make([][]float64, len(names)+1)
	for i := range y {
		y[i] = make([]float64, len(ms))
	}
	zero := zeroRMSE(setup)
	for k, mf := range ms {
		m := int(mf)
		sig, err := setup.Batch(m, rand.NewPCG(7, uint64(m)))
		if err != nil {
			return err
		}
		for i, cfg := range cfgs {
			r, err := cfg.release(setup, sig, 100, rand.NewPCG(1, 1))
			if err != nil {
				return err
			}
			y[i][k] = r.Sigma
		}
		y[len(names)][k] = zero
	}
	names = append(names, "θ = 0 (its RMSE)")
	var series []figure.Series
	for i, n := range names {
		series = append(series, figure.Series{Name: n, X: ms, Y: [][]float64{y[i]}})
	}
	out.Markdown(fmt.Sprintf("One batch per m (seed PCG(7, m)); σ is deterministic given the batch's visit counts. "+
		"On these features every row of Φ has a single 1 and ρ sums to 1, so noise N(0, σ²I) alone adds an RMSE of about σ: "+
		"above the θ = 0 line (RMSE %.3f, publishing zero for every state) a release is expected to be worse than "+
		"publishing nothing. The non-private LSW and LSL have σ = 0 (below the log axis).", zero))
	fig, err := figure.Curves(figure.Options{Title: "Noise σ vs batch size (ε = δ = 0.1, F = 100)", XLabel: "m (trajectories)", YLabel: "σ", LogX: true, LogY: true}, series...)
	if err != nil {
		return err
	}
	return out.Figure(fig)
}

// zeroRMSE is the RMSE of θ = 0, √(Σ_s ρ_s V(s)²): the trivial reference of every RMSE figure.
func zeroRMSE(s *Setup) float64 {
	p := s.Problem(1, 100)
	_, d := p.Phi.Dims()
	return policyeval.RMSE(p.Phi, make([]float64, d), s.V, p.Rho)
}
