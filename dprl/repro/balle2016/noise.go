package balle2016

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/dprl-project/dprl/dprl/policyeval"
	"github.com/dprl-project/dprl/dprl/report"
)

// NoiseScales shows the smooth-sensitivity constants on real batches of the chain, before any estimate is
// judged: for DP-LSW (tabular and paired features, m = 100, 1000, 5000) the visit counts, the unsmoothed
// φ(n) = Σ_s ρ_s/max(n_s, 1)², the smooth bound Ψ_β(n) with its maximising k, α, β and σ with the public
// return bound F = 1 and the authors' code's F = 100; for DP-LSL (tabular, m = 1000) σ by the authors'
// formula and by the safe bound for three schedule constants c, at F = 1.
func NoiseScales(out report.Sink) error {
	setup, err := NewSetup()
	if err != nil {
		return err
	}
	var rows [][]string
	for _, cfg := range []Config{lswTabular, lswPairs} {
		p := setup.Problem(cfg.Aggregate, 1)
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
			var sigma [2]float64
			var r *policyeval.Release
			for i, arm := range []Arm{ArmPublic, ArmCodeBound} {
				if r, err = cfg.release(setup, sig, arm, 0, 0, rand.NewPCG(1, 1)); err != nil {
					return err
				}
				sigma[i] = r.Sigma
			}
			_, d := p.Phi.Dims()
			rows = append(rows, []string{fmt.Sprintf("d = %d", d), fmt.Sprint(m), fmt.Sprintf("%d / %d", nMin, nMax),
				fmt.Sprintf("%.2e", phiN), fmt.Sprintf("%.3g (k = %d)", r.SmoothBound, r.ArgmaxK),
				fmt.Sprintf("%.3g", r.Alpha), fmt.Sprintf("%.3g", r.Beta), fmt.Sprintf("%.3g", sigma[0]), fmt.Sprintf("%.3g", sigma[1])})
		}
	}
	out.Markdown("**DP-LSW**: counts, the unsmoothed φ(n), the smooth bound Ψ_β(n) and the noise σ with the public bound F = 1 " +
		"(the primary setting) and the authors' code's F = 100 (one batch per m, seed PCG(2016, m)).")
	out.Table([]string{"features", "m", "n_min / n_max", "φ(n)", "Ψ_β (argmax k)", "α", "β", "σ, F = 1", "σ, F = 100"}, rows)

	p := setup.Problem(1, 1)
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
		rp, err := lslPaperTabular.release(setup, sig, ArmPublic, CodePower, c, rand.NewPCG(1, 1))
		if err != nil {
			return err
		}
		rs, err := lslSafeTabular.release(setup, sig, ArmPublic, CodePower, c, rand.NewPCG(1, 1))
		if err != nil {
			return err
		}
		rows = append(rows, []string{fmt.Sprint(c), fmt.Sprintf("%.1f", lambda), fmt.Sprintf("%.3g", rp.Sigma), fmt.Sprintf("%.3g", rs.Sigma)})
	}
	out.Markdown(fmt.Sprintf("**DP-LSL**, tabular, m = 1000, λ = ‖Φ‖²_F‖ρ‖∞ + c·m^0.4, F = 1: σ by the authors' formula and by the "+
		"provably safe bound (see the package documentation of `dprl/repro/balle2016`; both are linear in F). On these features "+
		"noise N(0, σ²I) alone adds an RMSE of about σ, so a σ above θ = 0's RMSE (%.3f) is expected to do worse than publishing zero.", zeroRMSE(setup)))
	out.Table([]string{"c", "λ", "σ (paper/code formula)", "σ (safe bound)"}, rows)
	return nil
}

// zeroRMSE is the RMSE of θ = 0, √(Σ_s ρ_s V(s)²): the trivial reference of every RMSE figure.
func zeroRMSE(s *Setup) float64 {
	p := s.Problem(1, 1)
	_, d := p.Phi.Dims()
	return policyeval.RMSE(p.Phi, make([]float64, d), s.V, p.Rho)
}
