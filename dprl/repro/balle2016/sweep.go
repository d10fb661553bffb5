package balle2016

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/dprl-project/dprl/dprl/experiment"
	"github.com/dprl-project/dprl/dprl/param"
	"github.com/dprl-project/dprl/dprl/policyeval"
	"github.com/dprl-project/dprl/dprl/repro"
	"github.com/dprl-project/dprl/dprl/sweep"
)

// SweepFig1 is the checked-in sweep (sweeps/specs/balle2016-fig1.json, experiment balle2016/rmse) whose
// merged result stands in for Panels34's run.
const SweepFig1 = "balle2016-fig1"

// The configuration of Panels 3 and 4: the λ schedule constant of LSL and DP-LSL, and the return bound F of
// every release (the authors' code: R_max/(1 − γ)). The balle2016/rmse sweep defaults to them.
const (
	PanelC      = 100.0
	ReturnBound = 100.0
)

// The estimators of an Estimate, and its features.
const (
	EstimatorLSW   = "LSW"
	EstimatorLSL   = "LSL"
	EstimatorDPLSW = "DP-LSW"
	EstimatorDPLSL = "DP-LSL"
	EstimatorZero  = "θ = 0"

	FeaturesPairs   = "pairs"   // state aggregation, d = 20
	FeaturesTabular = "tabular" // d = 39
)

// Estimate is one estimator's result on one batch: its RMSE against the exact values and its excess
// empirical risk J_X(θ) − J_X(θ̂) over a non-private solution θ̂ on the same batch: LSL's for DP-LSL, LSW's
// for DP-LSW, LSL and θ = 0 (so 0 for LSW itself).
type Estimate struct {
	Estimator, Features string
	RMSE, ExcessRisk    float64
}

// PanelEstimates computes Panels 3 and 4's estimates on one batch: for the paired features, then the
// tabular ones, LSW, LSL with schedule constant c, DP-LSW and DP-LSL (the authors' bound, c) at privacy
// priv with return bound fBound, and θ = 0, in that order. Per features, DP-LSW's noise draws from
// rand.NewPCG(u, 1) and DP-LSL's from rand.NewPCG(u′, 2), u and u′ the next two values of src. Panels34
// (with c = PanelC, fBound = ReturnBound and Privacy()) and the balle2016/rmse sweep both call it.
func (s *Setup) PanelEstimates(sig *policyeval.Signature, c, fBound float64, priv policyeval.PrivacyParams, src rand.Source) ([]Estimate, error) {
	rng := rand.New(src)
	var out []Estimate
	for _, f := range []struct {
		name string
		agg  int
	}{{FeaturesPairs, 2}, {FeaturesTabular, 1}} {
		p := s.Problem(f.agg, fBound)
		base, err := policyeval.LSW(p, sig)
		if err != nil {
			return nil, err
		}
		dw, err := policyeval.DPLSW(p, sig, priv, false, rand.NewPCG(rng.Uint64(), 1))
		if err != nil {
			return nil, err
		}
		lambda, err := policyeval.LambdaSchedule(p, c, sig.M)
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
		_, d := p.Phi.Dims()
		zero := make([]float64, d)
		rmse := func(theta []float64) float64 { return policyeval.RMSE(p.Phi, theta, s.V, p.Rho) }
		risk := func(theta []float64) float64 { return policyeval.EmpiricalRisk(p.Phi, theta, sig, p.Rho) }
		jw, jl := risk(base), risk(baseL)
		out = append(out,
			Estimate{EstimatorLSW, f.name, rmse(base), 0},
			Estimate{EstimatorLSL, f.name, rmse(baseL), jl - jw},
			Estimate{EstimatorDPLSW, f.name, rmse(dw.Theta), risk(dw.Theta) - jw},
			Estimate{EstimatorDPLSL, f.name, rmse(dl.Theta), risk(dl.Theta) - jl},
			Estimate{EstimatorZero, f.name, rmse(zero), risk(zero) - jw})
	}
	return out, nil
}

// panelValue is one value Panels34 draws from a batch's estimates: an estimator's RMSE or excess risk.
type panelValue struct {
	estimator, features string
	risk                bool
}

// panels34Values are Panels34's curves in order: panel 3's RMSE (pairs: LSW, LSL, DP-LSW, DP-LSL), panel 4's
// excess risk of the private estimates (DP-LSW, DP-LSL; pairs, then tabular) and its references (θ = 0 and
// LSL over LSW; pairs, then tabular).
var panels34Values = []panelValue{
	{EstimatorLSW, FeaturesPairs, false}, {EstimatorLSL, FeaturesPairs, false}, {EstimatorDPLSW, FeaturesPairs, false}, {EstimatorDPLSL, FeaturesPairs, false},
	{EstimatorDPLSW, FeaturesPairs, true}, {EstimatorDPLSL, FeaturesPairs, true}, {EstimatorDPLSW, FeaturesTabular, true}, {EstimatorDPLSL, FeaturesTabular, true},
	{EstimatorZero, FeaturesPairs, true}, {EstimatorLSL, FeaturesPairs, true}, {EstimatorZero, FeaturesTabular, true}, {EstimatorLSL, FeaturesTabular, true},
}

// panels34Vector picks panels34Values from a batch's estimates.
func panels34Vector(est []Estimate) ([]float64, error) {
	out := make([]float64, len(panels34Values))
	for i, v := range panels34Values {
		k := slices.IndexFunc(est, func(e Estimate) bool { return e.Estimator == v.estimator && e.Features == v.features })
		if k < 0 {
			return nil, fmt.Errorf("balle2016: no %s estimate with %s features", v.estimator, v.features)
		}
		out[i] = est[k].RMSE
		if v.risk {
			out[i] = est[k].ExcessRisk
		}
	}
	return out, nil
}

// SweepBatch is one batch of a balle2016/rmse sweep: the trial (the seed's rank), the batch size and the
// estimates on it.
type SweepBatch struct {
	Trial, M  int
	Estimates []Estimate
}

// EstimatesFromSweep reads a merged balle2016/rmse table (columns m, seed, estimator, features, rmse,
// excess_risk; the spec's grid over m) as one SweepBatch per (seed, m), in the table's order; the seeds in
// increasing order become trials 0, 1, ….
func EstimatesFromSweep(t *experiment.Table) ([]SweepBatch, error) {
	c, err := sweep.NewReader(t, "m", "seed", "estimator", "features", "rmse", "excess_risk")
	if err != nil {
		return nil, err
	}
	trial := c.SeedRanks("seed")
	var out []SweepBatch
	at := map[[2]int]int{}
	for r := range c.Len() {
		key := [2]int{trial[c.String(r, "seed")], c.Int(r, "m")}
		k, ok := at[key]
		if !ok {
			k = len(out)
			at[key] = k
			out = append(out, SweepBatch{Trial: key[0], M: key[1]})
		}
		out[k].Estimates = append(out[k].Estimates, Estimate{Estimator: c.String(r, "estimator"), Features: c.String(r, "features"),
			RMSE: c.Float(r, "rmse"), ExcessRisk: c.Float(r, "excess_risk")})
	}
	return out, c.Err()
}

// panels34FromSweep turns a merged sweep's batches into Panels34's curves [value][trial][m] over the sweep's
// batch sizes; every (trial, m) must be there.
func panels34FromSweep(batches []SweepBatch) (ms []float64, trials int, ys [][][]float64, err error) {
	for _, b := range batches {
		if !slices.Contains(ms, float64(b.M)) {
			ms = append(ms, float64(b.M))
		}
		trials = max(trials, b.Trial+1)
	}
	slices.Sort(ms)
	ys = make([][][]float64, len(panels34Values))
	for i := range ys {
		ys[i] = make([][]float64, trials)
		for t := range ys[i] {
			ys[i][t] = make([]float64, len(ms))
			for k := range ms {
				ys[i][t][k] = math.NaN()
			}
		}
	}
	seen := map[[2]int]bool{}
	for _, b := range batches {
		v, err := panels34Vector(b.Estimates)
		if err != nil {
			return nil, 0, nil, fmt.Errorf("%w (seed rank %d, m = %d)", err, b.Trial, b.M)
		}
		k := slices.Index(ms, float64(b.M))
		seen[[2]int{b.Trial, k}] = true
		for i, x := range v {
			ys[i][b.Trial][k] = x
		}
	}
	if len(seen) != trials*len(ms) {
		return nil, 0, nil, fmt.Errorf("balle2016: the sweep has %d of the %d (seed, m) batches of %d seeds × %d batch sizes", len(seen), trials*len(ms), trials, len(ms))
	}
	return ms, trials, ys, nil
}

// checkSweepConfig checks that a balle2016/rmse spec runs Panels34's configuration (ε, δ, c, F; the
// sweep's defaults where left out): the figures' legends and claims name it.
func checkSweepConfig(s *sweep.Spec) error {
	priv := Privacy()
	for _, f := range []struct {
		key  string
		want float64
		iv   param.Interval
	}{{"epsilon", priv.Epsilon, param.Positive}, {"delta", priv.Delta, param.OpenUnit}, {"c", PanelC, param.Positive}, {"f", ReturnBound, param.Positive}} {
		if _, ok := s.Grid[f.key]; ok {
			return fmt.Errorf("the grid varies %s, which Panels34 keeps at %g", f.key, f.want)
		}
		v, err := s.Params.Float(f.key, f.want, f.iv)
		if err != nil {
			return err
		}
		if v != f.want {
			return fmt.Errorf("params.%s = %g, Panels34 runs with %g", f.key, v, f.want)
		}
	}
	if _, ok := s.Grid["m"]; !ok {
		return fmt.Errorf("the batch size m is not a grid axis: Panels34 needs the curves over m")
	}
	return nil
}

// sweepSeeds lists the seeds behind a figure drawn from the sweep: seed s's batch of m trajectories and its
// noise draw from the stream PCG(s, m).
func sweepSeeds(trials int, seeds []uint64) string {
	slices.Sort(seeds)
	return fmt.Sprintf("Bands: 95%% confidence interval of the mean over the sweep's %d seeds (Student t); seed s draws its batch of m "+
		"trajectories and its noise from the stream PCG(s, m), s %s.", trials, repro.SeedRange(seeds))
}
