package policyeval

import (
	"slices"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/dprl-project/dprl/dprl/param"
)

// Prepared is a dataset of feature trajectories made ready for GTD2 and GPOPE: checked once, and each
// trajectory i reduced to its averaged moments Â_i, b̂_i, Ĉ_i (Xie et al. (2.2)), so that its stacked
// gradient g_i(x) = [−Â_iᵀw; Â_iθ − b̂_i + Ĉ_iw] costs at most 3d² multiply–adds (two matrix–vector products)
// instead of a pass over its transitions. Where most entries are zero (tabular or aggregated features) the
// moments are kept as sparse rows and a gradient costs a few operations per non-zero. Sums over the
// trajectories give the sample moments (Moments), LSTD and WIS-LSTD without another pass over the data.
//
// The stored moments are the transitions' sums in a different order than Gradient adds them, so the two
// agree to rounding, not bit for bit; every method of Prepared uses the stored form.
type Prepared struct {
	d     int
	gamma float64
	trajs []preparedTraj
}

// preparedTraj is one trajectory's averaged moments: b̂ and M = [Â | Ĉ] (d × 2d), dense or as sparse rows.
type preparedTraj struct {
	h     int       // transitions
	b     []float64 // b̂
	dense []float64 // M row-major (stride 2d), or nil when sparse
	// Sparse rows: row rows[k] of M holds the entries start[k] … start[k+1]−1; a column below d is in Â,
	// one at d or above is column col − d of Ĉ. Rows that are not listed are zero, and so is b̂ there.
	rows, cols []int32
	start      []int32
	vals       []float64
}

// sparseShare is the share of non-zero entries of M below which a trajectory's moments are kept sparse.
const sparseShare = 0.25

// Prepare checks the feature trajectories (every trajectory's features of one dimension, finite rewards,
// ratios and features) and reduces each to its averaged moments.
func Prepare(trajs []FeatureTrajectory, gamma float64) (*Prepared, error) {
	if err := check.In("gamma", gamma, param.Probability); err != nil {
		return nil, err
	}
	d, err := featureDim(trajs)
	if err != nil {
		return nil, err
	}
	p := &Prepared{d: d, gamma: gamma, trajs: make([]preparedTraj, len(trajs))}
	m := make([]float64, 2*d*d)
	var phi, rhs []float64 // the transitions' Φ (H × d) and [ρ(Φ − γΦ′) | Φ]/H (H × 2d), row by row
	for i, tr := range trajs {
		h := len(tr.R)
		b := make([]float64, d)
		phi, rhs = slices.Grow(phi[:0], h*d)[:h*d], slices.Grow(rhs[:0], 2*h*d)[:2*h*d]
		sparse := 0
		for k := range h {
			cur, next := tr.Phi[k], tr.Phi[k+1]
			copy(phi[k*d:], cur)
			rho := tr.Rho[k] / float64(h)
			row := rhs[2*k*d : 2*(k+1)*d]
			for j, v := range cur {
				row[j] = rho * (v - gamma*next[j])
				row[d+j] = v / float64(h)
				if v == 0 {
					sparse++
				}
			}
			floats.AddScaled(b, rho*tr.R[k], cur)
		}
		if float64(sparse) > (1-sparseShare)*float64(h*d) {
			// Mostly zero features (tabular, aggregated): only the non-zero entries of each row add up.
			clear(m)
			for k := range h {
				row := rhs[2*k*d : 2*(k+1)*d]
				for r, v := range phi[k*d : (k+1)*d] {
					if v != 0 {
						floats.AddScaled(m[2*d*r:2*d*(r+1)], v, row)
					}
				}
			}
		} else {
			// M = Φᵀ[ρ(Φ − γΦ′) | Φ]/H in one matrix product.
			blas64.Gemm(blas.Trans, blas.NoTrans, 1, blas64.General{Rows: h, Cols: d, Stride: d, Data: phi},
				blas64.General{Rows: h, Cols: 2 * d, Stride: 2 * d, Data: rhs}, 0, blas64.General{Rows: d, Cols: 2 * d, Stride: 2 * d, Data: m})
		}
		p.trajs[i] = compact(m, b, d, h)
	}
	return p, nil
}

// compact stores M (d × 2d, row-major) sparse when its share of non-zeros is below sparseShare, dense
// (a copy) otherwise.
func compact(m, b []float64, d, h int) preparedTraj {
	nz := 0
	for _, v := range m {
		if v != 0 {
			nz++
		}
	}
	t := preparedTraj{h: h, b: b}
	if float64(nz) >= sparseShare*float64(len(m)) {
		t.dense = append([]float64(nil), m...)
		return t
	}
	t.cols, t.vals = make([]int32, 0, nz), make([]float64, 0, nz)
	for r := range d {
		row := m[2*d*r : 2*d*(r+1)]
		first := len(t.vals)
		for c, v := range row {
			if v != 0 {
				t.cols = append(t.cols, int32(c))
				t.vals = append(t.vals, v)
			}
		}
		if len(t.vals) > first {
			t.rows = append(t.rows, int32(r))
			t.start = append(t.start, int32(first))
		}
	}
	t.start = append(t.start, int32(len(t.vals)))
	return t
}

// Len is the number of trajectories.
func (p *Prepared) Len() int { return len(p.trajs) }

// Dim is the feature dimension d (a stacked gradient has 2d entries).
func (p *Prepared) Dim() int { return p.d }

// Gamma is the discount the moments were formed with.
func (p *Prepared) Gamma() float64 { return p.gamma }

// Transitions is the number of transitions of trajectory i.
func (p *Prepared) Transitions(i int) int { return p.trajs[i].h }

// Subset is the prepared dataset of the trajectories idx (in that order, repeats allowed), sharing their
// stored moments with p.
func (p *Prepared) Subset(idx []int) *Prepared {
	out := &Prepared{d: p.d, gamma: p.gamma, trajs: make([]preparedTraj, len(idx))}
	for k, i := range idx {
		out.trajs[k] = p.trajs[i]
	}
	return out
}

// Gradient writes trajectory i's stacked gradient at x = [θ; w] (length 2d) into g (length 2d):
// g = [−Â_iᵀw; Â_iθ − b̂_i + Ĉ_iw], Xie et al. (4.1).
func (p *Prepared) Gradient(g []float64, i int, x []float64) {
	d := p.d
	t := &p.trajs[i]
	gt, gw := g[:d], g[d:]
	if t.dense != nil {
		m := blas64.General{Rows: d, Cols: 2 * d, Stride: 2 * d, Data: t.dense}
		a := blas64.General{Rows: d, Cols: d, Stride: 2 * d, Data: t.dense}
		blas64.Gemv(blas.Trans, -1, a, blas64.Vector{N: d, Inc: 1, Data: x[d:]}, 0, blas64.Vector{N: d, Inc: 1, Data: gt})
		copy(gw, t.b)
		blas64.Gemv(blas.NoTrans, 1, m, blas64.Vector{N: 2 * d, Inc: 1, Data: x}, -1, blas64.Vector{N: d, Inc: 1, Data: gw})
		return
	}
	clear(g)
	w := x[d:]
	for k, r := range t.rows {
		wr, s := w[r], -t.b[r]
		for e := t.start[k]; e < t.start[k+1]; e++ {
			c, v := int(t.cols[e]), t.vals[e]
			s += v * x[c] // x[c] is θ_c for c < d and w_{c−d} above
			if c < d {
				gt[c] -= v * wr
			}
		}
		gw[r] = s
	}
}

// Moments are the sample moments of the prepared trajectories, every transition weighted equally
// (SampleMoments of the same data, up to rounding).
func (p *Prepared) Moments() *Moments {
	a, c, b, n := p.sums()
	a.Scale(1/n, a)
	c.Scale(1/n, c)
	floats.Scale(1/n, b)
	return &Moments{A: a, C: c, B: b}
}

// sums returns Σ_i h_i·Â_i, Σ_i h_i·Ĉ_i, Σ_i h_i·b̂_i and the number of transitions.
func (p *Prepared) sums() (a, c *mat.Dense, b []float64, n float64) {
	d := p.d
	a, c, b = mat.NewDense(d, d, nil), mat.NewDense(d, d, nil), make([]float64, d)
	ar, cr := a.RawMatrix(), c.RawMatrix()
	for _, t := range p.trajs {
		h := float64(t.h)
		n += h
		floats.AddScaled(b, h, t.b)
		if t.dense != nil {
			for r := range d {
				row := t.dense[2*d*r : 2*d*(r+1)]
				floats.AddScaled(ar.Data[r*ar.Stride:r*ar.Stride+d], h, row[:d])
				floats.AddScaled(cr.Data[r*cr.Stride:r*cr.Stride+d], h, row[d:])
			}
			continue
		}
		for k, r := range t.rows {
			for e := t.start[k]; e < t.start[k+1]; e++ {
				col, v := int(t.cols[e]), h*t.vals[e]
				if col < d {
					ar.Data[int(r)*ar.Stride+col] += v
				} else {
					cr.Data[int(r)*cr.Stride+col-d] += v
				}
			}
		}
	}
	return a, c, b, n
}

// LSTD is LSTD on the prepared data: θ = (Â + ridge·I)⁻¹b̂ with the sample moments (LSTD of the same data, up
// to rounding).
func (p *Prepared) LSTD(ridge float64) ([]float64, error) {
	if err := check.In("ridge", ridge, param.NonNegative); err != nil {
		return nil, err
	}
	mo := p.Moments()
	for i := range mo.B {
		mo.A.Set(i, i, mo.A.At(i, i)+ridge)
	}
	return mo.Solve(), nil
}

// WISLSTD is WIS-LSTD(0) on the prepared data (WISLSTD of the same data, up to rounding): the summed A with
// ridge·I added, and the summed b.
func (p *Prepared) WISLSTD(ridge float64) ([]float64, error) {
	if err := check.In("ridge", ridge, param.NonNegative); err != nil {
		return nil, err
	}
	a, _, b, _ := p.sums()
	for i := range b {
		a.Set(i, i, a.At(i, i)+ridge)
	}
	return (&Moments{A: a, B: b}).Solve(), nil
}
