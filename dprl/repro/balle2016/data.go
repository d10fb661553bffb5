package balle2016

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/dprl-project/dprl/dprl/experiment"
	"github.com/dprl-project/dprl/dprl/policyeval"
	"github.com/dprl-project/dprl/dprl/report"
	"github.com/dprl-project/dprl/dprl/sweep"
)

// Grid sizes a run: the trials (seeds) and the batch sizes m.
type Grid struct {
	Trials int
	M      []float64
}

// DefaultGrid is PaperGrid (the paper's 20 trials on its batch grid); in quick mode 2 trials on
// m = 100, 500, 1000, 2000, 3500, 5000.
func DefaultGrid() Grid {
	if experiment.Quick() {
		return Grid{Trials: 2, M: []float64{100, 500, 1000, 2000, 3500, 5000}}
	}
	return PaperGrid()
}

// PaperGrid runs the paper's 20 trials on its batch grid m = 100, 500, 1000, 1500, …, 5000.
func PaperGrid() Grid {
	ms := []float64{100}
	for m := 500; m <= 5000; m += 500 {
		ms = append(ms, float64(m))
	}
	return Grid{Trials: 20, M: ms}
}

// Fig1Seed is the base seed of Fig. 1's runs: trial i draws its batches and noise from PCG(Fig1Seed, i).
const Fig1Seed = 2016

// Panel2M are the batch sizes of Fig. 1 (2), which also get DP-LSL with the safe bound.
var Panel2M = []float64{1000, 5000}

// The estimators of an Estimate, and its features.
const (
	EstimatorLSW       = "LSW"
	EstimatorLSL       = "LSL"
	EstimatorDPLSW     = "DP-LSW"
	EstimatorDPLSL     = "DP-LSL"
	EstimatorDPLSLSafe = "DP-LSL (safe bound)"
	EstimatorZero      = "θ = 0"

	FeaturesPairs   = "pairs"   // state aggregation, d = 20
	FeaturesTabular = "tabular" // d = 39
)

// Estimate is one estimator's result on one batch: its RMSE against the exact values, its excess
// empirical risk J_X(θ) − J_X(θ̂) over a non-private solution on the same batch (LSL's at the same λ for
// DP-LSL, LSW's for every other, so 0 for LSW itself) and its noise σ (0 for the non-private ones). Arm is
// the privacy arm of a private estimate; Power and C the schedule of LSL and DP-LSL (NaN otherwise).
type Estimate struct {
	Estimator, Features, Arm string
	Power, C                 float64
	RMSE, ExcessRisk, Sigma  float64
}

// features are the two feature sets, in the order BatchEstimates runs them.
var features = []struct {
	name string
	agg  int
}{{FeaturesPairs, 2}, {FeaturesTabular, 1}}

// BatchEstimates computes every estimate the figures and claims read on one batch of m trajectories, for
// the paired then the tabular features: LSW and θ = 0; LSL for every exponent of Powers and c of CGrid;
// DP-LSW in every arm; DP-LSL (the authors' bound) in every arm for every exponent and c; and on the tabular
// features at the sizes of Panel2M, DP-LSL with the safe bound (primary arm, the code's exponent, every c).
// Per feature set, two values u, u′ of src seed the noise: every DP-LSW release draws from PCG(u, 1), every
// DP-LSL release from PCG(u′, 2) and every safe one from PCG(u′, 3), so the arms and schedules differ by
// their setting only, not by their noise draw. Each release is one release at its arm's (ε, δ).
func (s *Setup) BatchEstimates(sig *policyeval.Signature, src rand.Source) ([]Estimate, error) {
	rng := rand.New(src)
	nan := math.NaN()
	var out []Estimate
	for _, f := range features {
		uW, uL := rng.Uint64(), rng.Uint64()
		p := s.Problem(f.agg, 1) // the non-private estimators ignore the bound
		rmse := func(theta []float64) float64 { return policyeval.RMSE(p.Phi, theta, s.V, p.Rho) }
		risk := func(theta []float64) float64 { return policyeval.EmpiricalRisk(p.Phi, theta, sig, p.Rho) }
		base, err := policyeval.LSW(p, sig)
		if err != nil {
			return nil, err
		}
		_, d := p.Phi.Dims()
		jw := risk(base)
		out = append(out, Estimate{EstimatorLSW, f.name, "", nan, nan, rmse(base), 0, 0},
			Estimate{EstimatorZero, f.name, "", nan, nan, rmse(make([]float64, d)), risk(make([]float64, d)) - jw, 0})
		jl := map[[2]float64]float64{}
		for _, power := range Powers {
			for _, c := range CGrid {
				lambda, err := Lambda(p, power, c, sig.M)
				if err != nil {
					return nil, err
				}
				theta, err := policyeval.LSL(p, sig, lambda)
				if err != nil {
					return nil, err
				}
				jl[[2]float64{power, c}] = risk(theta)
				out = append(out, Estimate{EstimatorLSL, f.name, "", power, c, rmse(theta), risk(theta) - jw, 0})
			}
		}
		lsw, lsl := lswPairs, lslPaperPairs
		if f.agg == 1 {
			lsw, lsl = lswTabular, lslPaperTabular
		}
		for _, arm := range Arms() {
			r, err := lsw.release(s, sig, arm, 0, 0, rand.NewPCG(uW, 1))
			if err != nil {
				return nil, err
			}
			out = append(out, Estimate{EstimatorDPLSW, f.name, arm.Name, nan, nan, rmse(r.Theta), risk(r.Theta) - jw, r.Sigma})
			for _, power := range Powers {
				for _, c := range CGrid {
					r, err := lsl.release(s, sig, arm, power, c, rand.NewPCG(uL, 2))
					if err != nil {
						return nil, err
					}
					out = append(out, Estimate{EstimatorDPLSL, f.name, arm.Name, power, c, rmse(r.Theta), risk(r.Theta) - jl[[2]float64{power, c}], r.Sigma})
				}
			}
		}
		if f.agg == 1 && slices.Contains(Panel2M, float64(sig.M)) {
			for _, c := range CGrid {
				r, err := lslSafeTabular.release(s, sig, ArmPublic, CodePower, c, rand.NewPCG(uL, 3))
				if err != nil {
					return nil, err
				}
				out = append(out, Estimate{EstimatorDPLSLSafe, f.name, ArmPublic.Name, CodePower, c, rmse(r.Theta),
					risk(r.Theta) - jl[[2]float64{CodePower, c}], r.Sigma})
			}
		}
	}
	return out, nil
}

// DataColumns are the columns of a data table, one row per estimate: the seed (a trial's rank, or a
// sweep's seed), the batch size, then Estimate's fields (power and c empty where they do not apply).
var DataColumns = []string{"seed", "m", "estimator", "features", "arm", "power", "c", "rmse", "excess_risk", "sigma"}

// EstimateRow formats an estimate as the columns of DataColumns after seed and m.
func EstimateRow(e Estimate) []string {
	num := func(x float64) string {
		if math.IsNaN(x) {
			return ""
		}
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	return []string{e.Estimator, e.Features, e.Arm, num(e.Power), num(e.C), num(e.RMSE), num(e.ExcessRisk), num(e.Sigma)}
}

// RunData runs g: trial i draws, for each batch size in turn, a batch of m trajectories from
// PCG(u₁, u₂) and the estimates' noise from PCG(u₃, u₄), u₁ … u₄ the next values of the stream
// PCG(seed, i); BatchEstimates on each batch. The trials run in parallel (experiment.Trials, the same
// result whatever the number of workers); bar counts them. The result is the tidy table of every estimate.
func RunData(g Grid, seed uint64, bar report.Bar) (*Data, error) {
	setup, err := NewSetup()
	if err != nil {
		return nil, err
	}
	res, err := experiment.Trials(g.Trials, 0, seed, bar, func(t int, src rand.Source) ([][]Estimate, error) {
		rng := rand.New(src)
		out := make([][]Estimate, len(g.M))
		for k, mf := range g.M {
			sig, err := setup.Batch(int(mf), rand.NewPCG(rng.Uint64(), rng.Uint64()))
			if err != nil {
				return nil, err
			}
			if out[k], err = setup.BatchEstimates(sig, rand.NewPCG(rng.Uint64(), rng.Uint64())); err != nil {
				return nil, err
			}
		}
		return out, nil
	})
	if err != nil {
		return nil, err
	}
	if bar != nil {
		bar.Done()
	}
	t := &experiment.Table{Columns: DataColumns}
	for i, r := range res {
		for k, est := range r {
			for _, e := range est {
				t.Rows = append(t.Rows, append([]string{strconv.Itoa(i), strconv.Itoa(int(g.M[k]))}, EstimateRow(e)...))
			}
		}
	}
	return NewData(t, fmt.Sprintf("seed i draws its batches and noise from the stream PCG(%d, i), i = 0 … %d", seed, g.Trials-1))
}

// Data is a data table (DataColumns) with an index by estimate: what the figures and claims read. Seeds
// and M are the table's seeds and batch sizes in increasing order; Source says where the seeds' batches
// come from.
type Data struct {
	Table  *experiment.Table
	Seeds  []uint64
	M      []float64
	Source string
	vals   map[key]*values
}

// key names one curve of the data: an estimator on a feature set in an arm with a schedule (−1 where
// they do not apply).
type key struct {
	features, estimator, arm string
	power, c                 float64
}

// values are a curve's metrics, each [seed][m] (NaN where no row gave it).
type values struct{ rmse, risk, sigma [][]float64 }

// NewData indexes a data table (DataColumns; other columns, such as a sweep's grid, are ignored); a curve
// has NaN at the (seed, m) no row gives (the safe bound runs at the sizes of Panel2M only).
func NewData(t *experiment.Table, source string) (*Data, error) {
	r, err := sweep.NewReader(t, DataColumns...)
	if err != nil {
		return nil, err
	}
	d := &Data{Table: t, Source: source, vals: map[key]*values{}}
	seeds, ms := make([]uint64, r.Len()), make([]float64, r.Len())
	for i := range r.Len() {
		if seeds[i], err = strconv.ParseUint(r.String(i, "seed"), 10, 64); err != nil {
			return nil, fmt.Errorf("balle2016: data row %d: seed: %w", i, err)
		}
		ms[i] = float64(r.Int(i, "m"))
	}
	d.Seeds, d.M = slices.Compact(slices.Sorted(slices.Values(seeds))), slices.Compact(slices.Sorted(slices.Values(ms)))
	opt := func(i int, col string) float64 { // −1 where the column does not apply
		if r.String(i, col) == "" {
			return -1
		}
		return r.Float(i, col)
	}
	for i := range r.Len() {
		k := key{r.String(i, "features"), r.String(i, "estimator"), r.String(i, "arm"), opt(i, "power"), opt(i, "c")}
		v := d.vals[k]
		if v == nil {
			v = &values{nanGrid(len(d.Seeds), len(d.M)), nanGrid(len(d.Seeds), len(d.M)), nanGrid(len(d.Seeds), len(d.M))}
			d.vals[k] = v
		}
		si, mi := slices.Index(d.Seeds, seeds[i]), slices.Index(d.M, ms[i])
		v.rmse[si][mi], v.risk[si][mi], v.sigma[si][mi] = r.Float(i, "rmse"), r.Float(i, "excess_risk"), r.Float(i, "sigma")
	}
	if err := r.Err(); err != nil {
		return nil, fmt.Errorf("balle2016: data: %w", err)
	}
	return d, nil
}

func nanGrid(rows, cols int) [][]float64 {
	g := make([][]float64, rows)
	for i := range g {
		g[i] = make([]float64, cols)
		for j := range g[i] {
			g[i][j] = math.NaN()
		}
	}
	return g
}

// The keys of the curves the figures and claims read.
func lswKey(f string) key  { return key{f, EstimatorLSW, "", -1, -1} }
func zeroKey(f string) key { return key{f, EstimatorZero, "", -1, -1} }
func lslKey(f string, power, c float64) key {
	return key{f, EstimatorLSL, "", power, c}
}
func dplswKey(f string, arm Arm) key { return key{f, EstimatorDPLSW, arm.Name, -1, -1} }
func dplslKey(f string, arm Arm, power, c float64) key {
	return key{f, EstimatorDPLSL, arm.Name, power, c}
}
func safeKey(c float64) key {
	return key{FeaturesTabular, EstimatorDPLSLSafe, ArmPublic.Name, CodePower, c}
}

// metric picks one metric of a curve.
type metric func(*values) [][]float64

func rmseOf(v *values) [][]float64  { return v.rmse }
func riskOf(v *values) [][]float64  { return v.risk }
func sigmaOf(v *values) [][]float64 { return v.sigma }

// curve is a metric of the curve k, [seed][m]; an error names a curve the data does not hold.
func (d *Data) curve(k key, m metric) ([][]float64, error) {
	v, ok := d.vals[k]
	if !ok {
		return nil, fmt.Errorf("balle2016: the data has no %s (%s features, arm %q, power %g, c %g)", k.estimator, k.features, k.arm, k.power, k.c)
	}
	return m(v), nil
}

// at is a metric of the curve k at batch size index j, one value per seed.
func (d *Data) at(k key, m metric, j int) ([]float64, error) {
	c, err := d.curve(k, m)
	if err != nil {
		return nil, err
	}
	out := make([]float64, len(c))
	for s := range c {
		out[s] = c[s][j]
	}
	return out, nil
}

// overall is a metric averaged over the batch sizes and both feature sets, one value per seed: the curve of
// each feature set is keyOf(features).
func (d *Data) overall(keyOf func(features string) key, m metric) ([]float64, error) {
	out := make([]float64, len(d.Seeds))
	for _, f := range features {
		c, err := d.curve(keyOf(f.name), m)
		if err != nil {
			return nil, err
		}
		for s, row := range c {
			for _, x := range row {
				out[s] += x / float64(len(row)*len(features))
			}
		}
	}
	return out, nil
}
