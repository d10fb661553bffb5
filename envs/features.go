package envs

import (
	"github.com/dprl-project/dprl/dprl/param"
	"github.com/dprl-project/dprl/trajectory"

	"fmt"
	"math"
)

// TabularFeatures is the one-hot encoding of a finite state set: feature s is 1 in state s.
type TabularFeatures struct {
	N     int
	Index func(obs []float64) int // the state of an observation; nil: int(obs[0])
}

func (f TabularFeatures) Dim() int { return f.N }
func (f TabularFeatures) Into(dst, obs []float64) []float64 {
	for i := range dst {
		dst[i] = 0
	}
	s := int(obs[0])
	if f.Index != nil {
		s = f.Index(obs)
	}
	dst[s] = 1
	return dst
}

// Fourier is the Fourier basis of order n (Konidaris, Osentoski & Thomas 2011) on observations scaled to
// [0, 1]^d by (obs − Low)/(High − Low): φ_c(s) = cos(π c·s̄) for every integer vector c ∈ {0, …, n}^d, in
// lexicographic order of c ((n+1)^d features, φ_0 = 1).
type Fourier struct {
	Order     int
	Low, High []float64
	coeffs    [][]float64
	scaled    []float64
}

// MaxFourierFeatures bounds the size (order+1)^d of a Fourier basis.
const MaxFourierFeatures = 1 << 20

// NewFourier returns the full Fourier basis of the given order over the box [low, high].
func NewFourier(order int, low, high []float64) (*Fourier, error) {
	if err := check.AtLeast("order", order, 0); err != nil {
		return nil, err
	}
	if len(low) == 0 {
		return nil, check.Errorf("low", 0, "at least one dimension (len(low) ≥ 1)")
	}
	if len(high) != len(low) {
		return nil, check.Errorf("high", float64(len(high)), "len(low) = %d entries", len(low))
	}
	// (order+1)^d features: keep the basis within MaxFourierFeatures.
	if n := math.Pow(float64(order)+1, float64(len(low))); n > MaxFourierFeatures {
		return nil, check.Errorf("order", float64(order), "orders whose (order+1)^%d features stay within MaxFourierFeatures = %d", len(low), MaxFourierFeatures)
	}
	for i := range low {
		if err := check.In(fmt.Sprintf("low[%d]", i), low[i], param.Finite); err != nil {
			return nil, err
		}
		if err := check.In(fmt.Sprintf("high[%d]", i), high[i], param.Interval{Lo: low[i], Hi: math.Inf(1)}); err != nil {
			return nil, err
		}
	}
	d := len(low)
	n := 1
	for range d {
		n *= order + 1
	}
	if n > 1<<20 {
		return nil, check.Errorf("order", float64(order), "orders whose (order+1)^d features stay within MaxFourierFeatures = 2^20 (here d = %d: %d features)", d, n)
	}
	f := &Fourier{Order: order, Low: low, High: high, scaled: make([]float64, d)}
	c := make([]int, d)
	for range n {
		v := make([]float64, d)
		for i := range c {
			v[i] = float64(c[i])
		}
		f.coeffs = append(f.coeffs, v)
		for i := d - 1; i >= 0; i-- { // next c in lexicographic order
			c[i]++
			if c[i] <= order {
				break
			}
			c[i] = 0
		}
	}
	return f, nil
}

func (f *Fourier) Dim() int { return len(f.coeffs) }

// Coefficients returns the frequency vector c of each feature (shared; do not modify).
func (f *Fourier) Coefficients() [][]float64 { return f.coeffs }

// StepSizes returns Konidaris et al.'s per-feature step sizes α/‖c‖₂ (α for c = 0).
func (f *Fourier) StepSizes(alpha float64) []float64 {
	out := make([]float64, len(f.coeffs))
	for k, c := range f.coeffs {
		n := 0.0
		for _, v := range c {
			n += v * v
		}
		out[k] = alpha
		if n > 0 {
			out[k] = alpha / math.Sqrt(n)
		}
	}
	return out
}

// Into writes the features of obs (clamped into the box) into dst. Not safe for concurrent use: it reuses a
// scratch buffer; give each goroutine its own Fourier (Clone).
func (f *Fourier) Into(dst, obs []float64) []float64 {
	for i := range f.scaled {
		s := (obs[i] - f.Low[i]) / (f.High[i] - f.Low[i])
		f.scaled[i] = math.Min(math.Max(s, 0), 1)
	}
	for k, c := range f.coeffs {
		dot := 0.0
		for i, v := range c {
			dot += v * f.scaled[i]
		}
		dst[k] = math.Cos(math.Pi * dot)
	}
	return dst
}

// Clone returns a copy with its own scratch buffer.
func (f *Fourier) Clone() *Fourier {
	g := *f
	g.scaled = make([]float64, len(f.scaled))
	return &g
}

// MountainCarFourier is the order-n Fourier basis over MountainCar's state box ([−1.2, 0.6] × [−0.07, 0.07]);
// order 5 gives the 36 features the papers use.
func MountainCarFourier(order int) *Fourier {
	f, err := NewFourier(order, []float64{-1.2, -0.07}, []float64{0.6, 0.07})
	if err != nil {
		panic(err)
	}
	return f
}

// FeatureMatrix returns the features of the states 0 … n−1 of a tabular environment as rows (n × Dim).
func FeatureMatrix(f trajectory.Features, n int) [][]float64 {
	out := make([][]float64, n)
	for s := range out {
		out[s] = f.Into(make([]float64, f.Dim()), []float64{float64(s)})
	}
	return out
}
