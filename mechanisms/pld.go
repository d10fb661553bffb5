package mechanisms

import (
	"fmt"
	"math"
	"math/cmplx"

	"gonum.org/v1/gonum/dsp/fourier"
)

// PLDParams configures a privacy-loss-distribution accountant.
type PLDParams struct {
	// Discretization is the width h of the privacy-loss grid (default 1e-4). Smaller is tighter and slower.
	Discretization float64
	// TailMass is the probability mass a truncation may move (default 1e-15): a distribution's tails
	// beyond it are cut pessimistically (the upper one to +∞, the lower one onto the lowest kept loss).
	TailMass float64
}

// PLDAccountant accounts with privacy loss distributions (Meiser & Mohammadi 2018; Koskela, Jälkö & Honkela
// 2020; Doroshenko et al. 2022): each event's privacy loss is discretised pessimistically on a grid of width
// h by "connecting the dots" of its exact privacy profile δ(ε) at the grid points, compositions are
// convolutions computed by FFT, and δ(ε) = P(L = ∞) + Σ_ℓ p(ℓ)(1 − e^{ε−ℓ})₊. Both directions of the
// neighbouring relation (remove and add) are tracked and the worse is reported.
//
// Supported events: GaussianEvent, LaplaceEvent, and PoissonSampled(GaussianEvent) (add/remove).
type PLDAccountant struct {
	p           PLDParams
	remove, add *pmf
	history     []string
}

// NewPLDAccountant returns an empty accountant.
func NewPLDAccountant(p PLDParams) (*PLDAccountant, error) {
	if p.Discretization == 0 {
		p.Discretization = 1e-4
	}
	if p.TailMass == 0 {
		p.TailMass = 1e-15
	}
	if err := firstErr(inRange("discretization", p.Discretization, 0, 1, false, false),
		inRange("tail mass", p.TailMass, 0, 1e-3, false, true)); err != nil {
		return nil, err
	}
	return &PLDAccountant{p: p, remove: identityPMF(), add: identityPMF()}, nil
}

// pmf is a privacy loss distribution on the grid: mass p[i] at loss (lo+i)·h, plus mass inf at +∞.
type pmf struct {
	lo  int
	p   []float64
	inf float64
}

func identityPMF() *pmf { return &pmf{p: []float64{1}} }

// profile is one direction's privacy profile δ(ε) = P(L > ε) − e^ε Q(L > ε), its complement
// C(ε) = e^ε Q(L ≤ ε) − P(L ≤ ε) = δ(ε) − (1 − e^ε), each computed from its own small tails, and the range of
// losses outside which the mass is negligible.
type profile struct {
	delta, comp func(eps float64) float64
	lo, hi      float64 // losses below lo / above hi carry at most the tail mass
}

// profiles returns the remove and add profiles of one run of e.
func (a *PLDAccountant) profiles(e Event) (remove, add profile, err error) {
	if err := e.validate(); err != nil {
		return profile{}, profile{}, err
	}
	zt := tailQuantile(a.p.TailMass)
	switch ev := e.(type) {
	case GaussianEvent:
		r, d := subsampledGaussianProfiles(1, ev.NoiseMultiplier, zt)
		return r, d, nil
	case LaplaceEvent:
		e0 := 1 / ev.NoiseMultiplier
		pr := profile{
			delta: func(eps float64) float64 { return LaplaceDelta(ev.NoiseMultiplier, 1, eps) },
			comp: func(eps float64) float64 {
				switch {
				case eps <= -e0:
					return 0
				case eps >= e0:
					return math.Expm1(eps)
				}
				return math.Exp(eps) - math.Exp((eps-e0)/2)
			},
			lo: -e0, hi: e0,
		}
		return pr, pr, nil
	case Mixed:
		r, d, err := a.profiles(ev.Event)
		if err != nil {
			return profile{}, profile{}, err
		}
		return mixedProfile(ev.P, r), mixedProfile(ev.P, d), nil
	case PoissonSampled:
		if g, ok := ev.Event.(GaussianEvent); ok {
			r, d := subsampledGaussianProfiles(ev.Q, g.NoiseMultiplier, zt)
			return r, d, nil
		}
	}
	return profile{}, profile{}, &UnsupportedEventError{Accountant: "PLD", Event: e}
}

// mixedProfile is the profile of a pair that with probability p is pr's pair and otherwise an atom common
// to both sides (loss 0): δ(ε) = p·δ_pr(ε) + (1−p)·max(0, 1 − e^ε) and C(ε) = p·C_pr(ε) + (1−p)·max(0, e^ε − 1).
func mixedProfile(p float64, pr profile) profile {
	return profile{
		delta: func(eps float64) float64 { return p*pr.delta(eps) + (1-p)*math.Max(0, -math.Expm1(eps)) },
		comp:  func(eps float64) float64 { return p*pr.comp(eps) + (1-p)*math.Max(0, math.Expm1(eps)) },
		lo:    math.Min(pr.lo, 0), hi: math.Max(pr.hi, 0),
	}
}

// tailQuantile is the z with Φ(−z) = tail.
func tailQuantile(tail float64) float64 {
	lt := math.Log(tail)
	return bisect(func(z float64) float64 { return logNormCDF(-z) - lt }, 0, 40, 1e-10)
}

// subsampledGaussianProfiles returns the privacy profiles of the Poisson-subsampled Gaussian (rate q, noise
// multiplier z, sensitivity 1) for the remove direction, P = (1−q)N(0,z²) + qN(1,z²) against Q = N(0,z²),
// and the add direction (Q against P). zt is the standard-normal tail quantile of the truncation.
func subsampledGaussianProfiles(q, z, zt float64) (remove, add profile) {
	mu := 1 / z
	// Loss of the remove direction at x: ln(1 − q + q·e^{(2x−1)/(2z²)}), increasing in x.
	loss := func(x float64) float64 {
		return logAdd(math.Log1p(-q), math.Log(q)+(2*x-1)/(2*z*z))
	}
	remove = profile{
		// δ_R(ε) = q·δ_G(ε′) with ε′ = ln(1 + (e^ε − 1)/q) and δ_G the Gaussian profile (μ = 1/z).
		delta: func(eps float64) float64 {
			r := math.Expm1(eps) / q
			if r <= -1 {
				return -math.Expm1(eps) // every outcome has loss above ε
			}
			return q * GDPDelta(mu, math.Log1p(r))
		},
		// C_R(ε) = q·C_G(ε′).
		comp: func(eps float64) float64 {
			r := math.Expm1(eps) / q
			if r <= -1 {
				return 0
			}
			return q * gdpComplement(mu, math.Log1p(r))
		},
		lo: loss(-zt * z), hi: loss(1 + zt*z),
	}
	lq := math.Log(q)
	add = profile{
		// Loss −ln(1 − q + q·e^{(2x−1)/(2z²)}) with x ~ N(0, z²), above ε iff x < x′:
		// δ_A(ε) = Φ(x′/z) − e^ε[(1−q)Φ(x′/z) + qΦ((x′−1)/z)] = q·e^ε[e^{ε″}Φ(x′/z) − Φ((x′−1)/z)],
		// ε″ = (2x′−1)/(2z²) = ln((e^{−ε} − 1 + q)/q).
		delta: func(eps float64) float64 {
			r := math.Expm1(-eps)/q + 1 // (e^{−ε} − 1 + q)/q
			if r <= 0 {
				return 0 // ε is above the largest loss, −ln(1−q)
			}
			e2 := math.Log(r)
			x := z*z*e2 + 0.5
			a := eps + lq + e2 + logNormCDF(x/z)
			b := eps + lq + logNormCDF((x-1)/z)
			if b >= a {
				return 0
			}
			return math.Exp(logSub(a, b))
		},
		// C_A(ε) = e^ε[(1−q)Φ̄(x′/z) + qΦ̄((x′−1)/z)] − Φ̄(x′/z) = q·e^ε[Φ̄((x′−1)/z) − e^{ε″}Φ̄(x′/z)].
		comp: func(eps float64) float64 {
			r := math.Expm1(-eps)/q + 1
			if r <= 0 {
				return math.Expm1(eps)
			}
			e2 := math.Log(r)
			x := z*z*e2 + 0.5
			a := eps + lq + logNormCDF((1-x)/z)
			b := eps + lq + e2 + logNormCDF(-x/z)
			if b >= a {
				return 0
			}
			return math.Exp(logSub(a, b))
		},
		lo: -loss(zt * z), hi: -loss(-zt * z),
	}
	return remove, add
}

// discretize builds the pessimistic PMF of a profile on grid h by connecting the dots: the PMF whose
// privacy profile equals δ at every grid point and is linear in e^ε between them, which lies above the
// true profile because δ is convex in e^ε. Mass above the top grid point goes to +∞.
func discretize(pr profile, h float64) *pmf {
	lo := int(math.Floor(pr.lo / h))
	hi := int(math.Ceil(pr.hi / h))
	if hi <= lo {
		hi = lo + 1
	}
	n := hi - lo + 1
	d, c := make([]float64, n), make([]float64, n)
	for i := range d {
		eps := float64(lo+i) * h
		d[i], c[i] = pr.delta(eps), pr.comp(eps)
	}
	out := &pmf{lo: lo, p: make([]float64, n), inf: d[n-1]}
	// On [ε_j, ε_{j+1}] the profile is linear in e^ε with slope −B_j; b_j = e^{ε_j}·B_j, and the mass at
	// ε_{j+1} is e^h·b_j − b_{j+1} (b_{n−1} = 0). Where δ is near 1 − e^ε (low losses), b_j = e^{ε_j} + β_j
	// with β_j from the complement C, and the e^{ε_j} parts cancel exactly: the mass is e^h·β_j − β_{j+1}.
	eh, den := math.Exp(h), math.Expm1(h)
	lower := func(j int) bool { return j < n-1 && d[j+1] > 0.25 }
	b := func(j int) float64 {
		switch {
		case j >= n-1:
			return 0
		case lower(j):
			return math.Exp(float64(lo+j)*h) + (c[j]-c[j+1])/den
		}
		return (d[j] - d[j+1]) / den
	}
	sum := out.inf
	for j := n - 2; j >= 0; j-- {
		var m float64
		if lower(j) && lower(j+1) {
			m = (eh*(c[j]-c[j+1]) - (c[j+1] - c[j+2])) / den
		} else {
			m = eh*b(j) - b(j+1)
		}
		out.p[j+1] = math.Max(m, 0)
		sum += out.p[j+1]
	}
	out.p[0] = math.Max(1-sum, 0)
	return out
}

// compose returns the distribution of the sum of k independent draws from d convolved with acc, truncating
// tails of at most tail mass each.
func compose(acc, d *pmf, k int, tail float64) (*pmf, error) {
	if k == 0 {
		return acc, nil
	}
	self, err := selfCompose(d, k, tail)
	if err != nil {
		return nil, err
	}
	if len(acc.p) == 1 && acc.lo == 0 && acc.inf == 0 {
		return self, nil
	}
	return convolve(acc, self, tail)
}

// selfCompose returns the k-fold self-convolution of d, computed in the frequency domain over a window
// [L, U] of the sum that Chernoff bounds show to hold all but 2·tail of its mass.
func selfCompose(d *pmf, k int, tail float64) (*pmf, error) {
	if k == 1 {
		return d, nil
	}
	L, U := chernoffWindow(d, k, tail)
	n := U - L + 1
	size, err := fftSize(max(n, len(d.p)))
	if err != nil {
		return nil, err
	}
	fft := fourier.NewFFT(size)
	seq := make([]float64, size)
	copy(seq, d.p)
	coef := fft.Coefficients(nil, seq)
	fk := float64(k)
	for i, c := range coef {
		r, th := cmplx.Polar(c)
		if r == 0 {
			continue
		}
		coef[i] = cmplx.Rect(math.Exp(fk*math.Log(r)), math.Mod(fk*th, 2*math.Pi))
	}
	fft.Sequence(seq, coef)
	// Sum index s (relative to k·d.lo) sits at s mod size; read the window [L, U].
	out := &pmf{lo: L, p: make([]float64, n)}
	base := k * d.lo
	sum := 0.0
	for i := range out.p {
		s := L + i - base
		v := seq[((s%size)+size)%size] / float64(size)
		if v > 0 {
			out.p[i] = v
			sum += v
		}
	}
	// The +∞ mass comes from the step's, not from the finite masses (whose rounding must not lower it).
	totalFinite := math.Pow(1-d.inf, fk)
	out.inf = 1 - totalFinite + tail // the upper tail beyond U, pessimistically at +∞
	if deficit := totalFinite - tail - sum; deficit > 0 {
		out.p[0] += deficit // the lower tail below L, moved up onto L
	}
	return truncate(out, tail), nil
}

// chernoffWindow returns global indices L ≤ U such that the k-fold sum of d (conditioned on finite losses)
// falls below L or above U with probability at most tail each, by Chernoff bounds over a grid of
// exponents (and never wider than the sum's support).
func chernoffWindow(d *pmf, k int, tail float64) (L, U int) {
	var mean, m2, tot float64
	for i, v := range d.p {
		mean += v * float64(i)
		tot += v
	}
	mean /= tot
	for i, v := range d.p {
		m2 += v * (float64(i) - mean) * (float64(i) - mean)
	}
	sd := math.Sqrt(m2 / tot)
	fk := float64(k)
	upper, lower := fk*float64(len(d.p)-1), 0.0 // support of the sum, relative to k·d.lo
	if sd > 0 {
		lt := math.Log(tail)
		lp := make([]float64, len(d.p)) // ln(p_i/tot), −∞ for empty entries
		for i, v := range d.p {
			lp[i] = math.Log(v / tot)
		}
		// dev(t) = (k·ln E[e^{±t(X−mean)}] − ln tail)/t bounds the deviation of the sum for every t > 0;
		// search t = 2^m/(sd·√k) coarsely, then around the best m.
		dev := func(m int, sign float64) float64 {
			t := math.Ldexp(1, m) / (sd * math.Sqrt(fk))
			mx, acc := math.Inf(-1), 0.0
			for i, l := range lp {
				if math.IsInf(l, -1) {
					continue
				}
				x := l + sign*t*(float64(i)-mean)
				if x > mx {
					acc = acc*math.Exp(mx-x) + 1
					mx = x
				} else {
					acc += math.Exp(x - mx)
				}
			}
			return (fk*(mx+math.Log(acc)) - lt) / t
		}
		for _, sign := range []float64{1, -1} {
			best, bestM := math.Inf(1), 0
			for m := -12; m <= 12; m += 4 {
				if v := dev(m, sign); v < best {
					best, bestM = v, m
				}
			}
			for m := bestM - 2; m <= bestM+2; m++ {
				if m != bestM {
					best = math.Min(best, dev(m, sign))
				}
			}
			if sign > 0 {
				upper = math.Min(upper, fk*mean+best)
			} else {
				lower = math.Max(lower, fk*mean-best)
			}
		}
	}
	base := k * d.lo
	return base + int(math.Floor(lower)), base + int(math.Ceil(upper))
}

// convolve returns a ⊛ b, truncated.
func convolve(a, b *pmf, tail float64) (*pmf, error) {
	n := len(a.p) + len(b.p) - 1
	size, err := fftSize(n)
	if err != nil {
		return nil, err
	}
	fft := fourier.NewFFT(size)
	sa, sb := make([]float64, size), make([]float64, size)
	copy(sa, a.p)
	copy(sb, b.p)
	ca := fft.Coefficients(nil, sa)
	cb := fft.Coefficients(nil, sb)
	for i := range ca {
		ca[i] *= cb[i]
	}
	fft.Sequence(sa, ca)
	out := &pmf{lo: a.lo + b.lo, p: make([]float64, n), inf: 1 - (1-a.inf)*(1-b.inf)}
	for i := range out.p {
		out.p[i] = math.Max(sa[i]/float64(size), 0)
	}
	return truncate(out, tail), nil
}

// truncate drops leading and trailing masses of at most tail in total at each end: the upper ones to +∞,
// the lower ones onto the first kept loss.
func truncate(d *pmf, tail float64) *pmf {
	i, low := 0, 0.0
	for i < len(d.p)-1 && low+d.p[i] <= tail {
		low += d.p[i]
		i++
	}
	j, high := len(d.p)-1, 0.0
	for j > i && high+d.p[j] <= tail {
		high += d.p[j]
		j--
	}
	out := &pmf{lo: d.lo + i, p: d.p[i : j+1], inf: d.inf + high}
	out.p[0] += low
	return out
}

// maxPLDPoints caps a privacy-loss grid: 2²³ points (a few hundred MB of FFT buffers).
const maxPLDPoints = 1 << 23

// fftSize is the smallest 2^a·3^b·5^c ≥ n (sizes gonum's FFT handles fast) that gonum's FFT can factor: its
// fftpack keeps at most 13 factors (fours first, then a two, threes and fives). Grids beyond maxPLDPoints are
// an error: the privacy loss is too spread for the discretisation (noise far too small, or h too fine).
func fftSize(n int) (int, error) {
	if n > maxPLDPoints {
		return 0, fmt.Errorf("mechanisms: the PLD grid needs %d points, more than the limit %d: the privacy loss is too spread for Discretization h (more noise, or a coarser h)", n, maxPLDPoints)
	}
	factors := func(a, b, c int) int { return a/2 + a%2 + b + c }
	best := 1 // the power of two: at most 12 factors below the cap
	for best < n {
		best *= 2
	}
	for p5, c := 1, 0; p5 < best; p5, c = p5*5, c+1 {
		for p35, b := p5, 0; p35 < best; p35, b = p35*3, b+1 {
			s, a := p35, 0
			for s < n {
				s *= 2
				a++
			}
			if s < best && factors(a, b, c) <= 13 {
				best = s
			}
		}
	}
	return best, nil
}

// Compose records count runs of e.
func (a *PLDAccountant) Compose(e Event, count int) error {
	if err := checkSteps(count); err != nil {
		return err
	}
	r, d, err := a.profiles(e)
	if err != nil {
		return err
	}
	h := a.p.Discretization
	remove, err := compose(a.remove, discretize(r, h), count, a.p.TailMass)
	if err != nil {
		return err
	}
	add, err := compose(a.add, discretize(d, h), count, a.p.TailMass)
	if err != nil {
		return err
	}
	a.remove, a.add = remove, add
	a.history = append(a.history, fmt.Sprintf("%d × %v", count, e))
	return nil
}

// Delta is the larger δ(ε) of the two directions.
func (a *PLDAccountant) Delta(epsilon float64) (float64, error) {
	if err := inRange("epsilon", epsilon, 0, math.Inf(1), true, false); err != nil {
		return 0, err
	}
	h := a.p.Discretization
	return math.Min(math.Max(a.remove.delta(epsilon, h), a.add.delta(epsilon, h)), 1), nil
}

// Epsilon is the larger ε(δ) of the two directions. It returns +Inf when δ is at or below the mass at +∞.
func (a *PLDAccountant) Epsilon(delta float64) (float64, error) {
	if err := checkDeltaPositive(delta); err != nil {
		return 0, err
	}
	h := a.p.Discretization
	return math.Max(a.remove.epsilon(delta, h), a.add.epsilon(delta, h)), nil
}

// History lists the recorded events.
func (a *PLDAccountant) History() []string { return append([]string(nil), a.history...) }

func (d *pmf) delta(eps, h float64) float64 {
	s := d.inf
	for i := len(d.p) - 1; i >= 0; i-- {
		l := float64(d.lo+i) * h
		if l <= eps {
			break
		}
		s += d.p[i] * -math.Expm1(eps-l)
	}
	return s
}

// epsilon scans down from the top: on [ε_j, ε_{j+1}), δ(ε) = inf + A_j − e^ε·B_j with A_j, B_j the sums of p_i
// and p_i·e^{−ε_i} over i > j; B is kept in log space so that ε beyond 709 does not overflow.
func (d *pmf) epsilon(delta, h float64) float64 {
	if d.inf >= delta {
		return math.Inf(1)
	}
	A, logB := 0.0, math.Inf(-1)
	for j := len(d.p) - 1; j >= 0; j-- {
		lj := float64(d.lo+j) * h
		// δ at ε_j, using the sums over i > j.
		dj := d.inf + A - math.Exp(lj+logB)
		if dj > delta {
			// The crossing is in [ε_j, ε_{j+1}).
			e := math.Log(d.inf+A-delta) - logB
			return math.Max(e, 0)
		}
		if lj <= 0 {
			return 0
		}
		if d.p[j] > 0 {
			A += d.p[j]
			logB = logAdd(logB, math.Log(d.p[j])-lj)
		}
	}
	return 0
}
