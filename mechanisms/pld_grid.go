package mechanisms

import (
	"fmt"
	"math"
	"math/cmplx"
	"sync"
)

// pmf is a discretised privacy loss distribution: mass p[i] at loss (lo+i)·h, plus mass inf at +∞. Beside
// the masses it carries what the certified lower bound needs: steps is the number of discretised runs
// composed (each rounded its loss by less than h), bias bounds the total mean upward shift of those
// roundings, moved bounds the probability of the events where a loss was moved by more than one cell
// (truncations, aliasing), and rel and num bound the round-off of the masses: every true mass is at most
// e^rel times the computed one, up to an ℓ1 error num (both applied to every δ the accountant reports).
type pmf struct {
	lo    int
	p     []float64
	inf   float64
	steps int
	bias  float64
	moved float64
	num   float64
	rel   float64
}

func identityPMF() *pmf { return &pmf{p: []float64{1}} }

func (d *pmf) trivial() bool { return len(d.p) == 1 && d.lo == 0 && d.inf == 0 }

const unitRoundoff = 0x1p-53

// GridError reports a privacy-loss grid larger than the accountant's limit: the privacy loss is too spread
// for the discretisation (too little noise, too many steps, or too fine a Discretization). CalibrateNoise
// and MaxSteps treat it as "does not fit the budget", since more noise or fewer steps shrink the grid.
type GridError struct {
	Points, Limit  int // Points < 0: unbounded
	Event          Event
	Count          int
	Discretization float64
}

func (e *GridError) Error() string {
	need := fmt.Sprintf("%d points", e.Points)
	if e.Points < 0 {
		need = "an unbounded number of points"
	}
	return fmt.Sprintf("mechanisms: the PLD grid for %d × %v at Discretization %g needs %s, more than "+
		"MaxGridPoints = %d: the privacy loss is too spread to account at this Discretization; use more noise, "+
		"fewer steps or a coarser Discretization", e.Count, e.Event, e.Discretization, need, e.Limit)
}

// discretize builds the connect-the-dots PMF of one run on grid h. Each cell (ε_j, ε_{j+1}] of the loss
// splits its P-mass P_j between its two ends so that both the P-mass and the Q-mass e^{−ℓ}dP are kept: the
// upper end gets e^h·r_j/(e^h − 1) with r_j = P_j − e^{ε_j}Q_j = E_P[1 − e^{ε_j−L}; cell] ≥ 0, the lower
// end the rest. This is the pessimistic PLD whose privacy profile meets the true one at every grid point
// and is linear in e^ε between them (Doroshenko et al. 2022); it dominates the true pair, so compositions
// of it stay pessimistic. Working cell by cell from the smaller tails keeps every mass accurate (no
// difference of e^ε-sized numbers), and a round-off allowance is added to each upper share, which moves
// mass only upwards. P-mass below the grid is moved onto its first point, mass above it to +∞.
func discretize(lt lossTails, h, tail float64, maxPoints int) (*pmf, error) {
	g, err := gridSpan(lt, h, tail, maxPoints)
	if err != nil {
		return nil, err
	}
	return discretizeOn(g, h, func(i int) (sp, cp, sq, cq float64) { return lt(float64(i) * h) }), nil
}

// span is the grid a direction is discretised on: the points i·h for lo ≤ i < lo + n.
type span struct{ lo, n int }

// gridSpan returns the grid that holds all but tail of the loss on each side (lossRange), or a *GridError.
func gridSpan(lt lossTails, h, tail float64, maxPoints int) (span, error) {
	loE, hiE, ok := lossRange(lt, tail)
	if !ok || math.Abs(loE/h) > 1<<50 || math.Abs(hiE/h) > 1<<50 {
		return span{}, &GridError{Points: -1, Limit: maxPoints}
	}
	iLo, iHi := int(math.Floor(loE/h)), int(math.Ceil(hiE/h))
	if iHi <= iLo {
		iHi = iLo + 1
	}
	n := iHi - iLo + 1
	if n > maxPoints {
		return span{}, &GridError{Points: n, Limit: maxPoints}
	}
	return span{iLo, n}, nil
}

// discretizeOn is discretize's cell loop over the grid g, with at(i) the tails at ε = i·h.
func discretizeOn(g span, h float64, at func(i int) (sp, cp, sq, cq float64)) *pmf {
	iLo, n := g.lo, g.n
	out := &pmf{lo: iLo, p: make([]float64, n), steps: 1}
	eh, den := math.Exp(h), math.Expm1(h)
	const slackRel = 64 * unitRoundoff
	sp0, cp0, sq0, cq0 := at(iLo)
	below := math.Exp(cp0)
	out.p[0] = below
	total, shifted, numErr, rho := below, 0.0, 0.0, 0.0
	for j := 0; j < n-1; j++ {
		ej := float64(iLo+j) * h
		sp1, cp1, sq1, cq1 := at(iLo + j + 1)
		pj, perr := cellMass(0, sp0, sp1, cp0, cp1)
		qj, qerr := cellMass(ej, sq0, sq1, cq0, cq1) // e^{ε_j}·Q_j
		if pj > 0 {
			slack := slackRel * (perr + qerr)
			r := pj - qj + slack
			// The builtin min and max (math.Min and math.Max's rules for NaN and ±0, inlined).
			up := min(pj, max(0, eh*r/den))
			out.p[j+1] += up
			out.p[j] += pj - up
			total += pj
			shifted += min(pj, eh*slack/den)
			// The cell's own round-off: relative where it is small against the cell, else absolute.
			if e := slackRel * perr; e <= 1e-6*pj {
				rho = max(rho, e/pj)
			} else {
				numErr += e
			}
		}
		sp0, cp0, sq0, cq0 = sp1, cp1, sq1, cq1
	}
	above := math.Exp(sp0)
	residual := math.Max(0, 1-total-above) // round-off left over: sent to +∞ with the upper tail
	out.inf = above + residual
	out.moved = below + above + residual // every mass moved by more than one cell, the residual included
	out.num = numErr
	out.rel = -math.Log1p(-rho)
	out.bias = ctdBias(h) + h*shifted
	return out
}

// maxSharedTable caps the points of the tail table discretizeMirrored shares between the two directions
// (32 bytes each: 32 MB); larger grids evaluate each direction's tails on its own.
const maxSharedTable = 1 << 20

// discretizeMirrored discretises both directions of a pair whose add direction is the remove one mirrored:
// add(ε) = (cq, sq, cp, sp) of remove(−ε), as for the subsampled Gaussian, where the two directions are
// the same pair of distributions with the roles swapped. The grids of the two directions then mostly ask
// for the same thresholds (add's point i·h is remove's −i·h), so the tails are evaluated once on the union
// of the two grids, in two concurrent halves, and both directions read them from that table. Every value
// is the one discretize computes (the same function at the same point), so the PMFs are identical to it.
func discretizeMirrored(remove lossTails, h, tail float64, maxPoints int) (one [2]*pmf, errs [2]error) {
	dirs := [2]lossTails{remove, func(eps float64) (sp, cp, sq, cq float64) {
		sp, cp, sq, cq = remove(-eps)
		return cq, sq, cp, sp
	}}
	var g [2]span
	for i, lt := range dirs {
		g[i], errs[i] = gridSpan(lt, h, tail, maxPoints)
	}
	// Remove reads points gr.lo … gr.lo+gr.n−1, add the mirror images −(ga.lo+ga.n−1) … −ga.lo.
	gr, ga := g[0], g[1]
	lo, hi := min(gr.lo, -(ga.lo+ga.n-1)), max(gr.lo+gr.n-1, -ga.lo)
	size := hi - lo + 1
	var wg sync.WaitGroup
	if errs[0] != nil || errs[1] != nil || size > gr.n+ga.n || size > maxSharedTable {
		// A direction without a grid, little overlap, or a table too large to keep: evaluate each
		// direction's tails on its own.
		for i, lt := range dirs {
			if errs[i] == nil {
				wg.Go(func() {
					one[i] = discretizeOn(g[i], h, func(j int) (sp, cp, sq, cq float64) { return lt(float64(j) * h) })
				})
			}
		}
		wg.Wait()
		return one, errs
	}
	tab := make([][4]float64, size)
	fill := func(from, to int) {
		for k := from; k < to; k++ {
			t := &tab[k]
			t[0], t[1], t[2], t[3] = remove(float64(lo+k) * h)
		}
	}
	wg.Go(func() { fill(0, size/2) })
	fill(size/2, size)
	wg.Wait()
	wg.Go(func() {
		one[0] = discretizeOn(gr, h, func(i int) (sp, cp, sq, cq float64) {
			t := &tab[i-lo]
			return t[0], t[1], t[2], t[3]
		})
	})
	one[1] = discretizeOn(ga, h, func(i int) (sp, cp, sq, cq float64) {
		t := &tab[-i-lo]
		return t[3], t[2], t[1], t[0]
	})
	wg.Wait()
	return one, errs
}

// cellMass returns e^{shift}·(the mass between two thresholds), from whichever of the upper tails
// (s0 ≥ s1) or lower tails (c0 ≤ c1) is smaller, and the magnitude its round-off scales with
// (e^{shift}·tail·(1 + |ln tail|)).
func cellMass(shift, s0, s1, c0, c1 float64) (m, scale float64) {
	if s0 < c1 { // the upper tail is the smaller side
		if math.IsInf(s0, -1) || s1 >= s0 {
			return 0, 0
		}
		e := math.Exp(shift + s0)
		return e * -math.Expm1(s1-s0), e * (1 + absFinite(s0) + absFinite(s1))
	}
	if math.IsInf(c1, -1) || c0 >= c1 {
		return 0, 0
	}
	e := math.Exp(shift + c1)
	return e * -math.Expm1(c0-c1), e * (1 + absFinite(c0) + absFinite(c1))
}

// absFinite is |x|, or 0 for an infinite x (a tail that is exactly 0 carries no round-off).
func absFinite(x float64) float64 {
	if math.IsInf(x, 0) {
		return 0
	}
	return math.Abs(x)
}

// ctdBias bounds the mean upward shift of one connect-the-dots rounding: a loss ε_j + x (0 ≤ x ≤ h) moves
// to ε_{j+1} with probability w = e^h(1 − e^{−x})/(e^h − 1), on average by w·h − x, which is concave in x,
// zero at both ends and largest (≈ h²/8) where e^{−x} = (1 − e^{−h})/h.
func ctdBias(h float64) float64 {
	x := -math.Log(-math.Expm1(-h) / h)
	w := -math.Expm1(-x) / -math.Expm1(-h)
	return math.Max(0, w*h-x)
}

// chernoffWindow returns offsets L ≤ U (relative to k·d.lo) such that the k-fold sum of d (conditioned on
// finite losses) falls below L or above U with probability at most tail each, by Chernoff bounds over a
// grid of exponents (and never wider than the sum's support). The window follows the composed
// distribution's mean and spread: about k·mean ± c·√k·sd cells. ok is false if it is beyond ±2⁶².
func chernoffWindow(d *pmf, k int, tail float64) (L, U float64) {
	var mean, m2, tot float64
	for i, v := range d.p {
		mean += v * float64(i)
		tot += v
	}
	if tot <= 0 {
		return 0, 0
	}
	mean /= tot
	for i, v := range d.p {
		m2 += v * (float64(i) - mean) * (float64(i) - mean)
	}
	sd := math.Sqrt(m2 / tot)
	fk := float64(k)
	upper, lower := fk*float64(len(d.p)-1), 0.0
	if sd > 0 {
		lt := math.Log(tail)
		// Only entries holding mass matter; gather them once.
		idx := make([]float64, 0, len(d.p))
		lp := make([]float64, 0, len(d.p))
		for i, v := range d.p {
			if v > 0 {
				idx = append(idx, float64(i)-mean)
				lp = append(lp, math.Log(v/tot))
			}
		}
		// dev(t) = (k·ln E[e^{±t(X−mean)}] − ln tail)/t bounds the deviation of the sum for every t > 0;
		// search t = 2^m/(sd·√k) coarsely, then around the best m.
		ys := make([]float64, len(lp))
		dev := func(m int, sign float64) float64 {
			t := math.Ldexp(1, m) / (sd * math.Sqrt(fk))
			st := sign * t
			mx := math.Inf(-1)
			for i, l := range lp {
				y := l + st*idx[i]
				ys[i] = y
				if y > mx { // finite values: the same as math.Max, much cheaper
					mx = y
				}
			}
			acc := 0.0
			for _, y := range ys {
				// A term below e^{−40} < 2^{−54} cannot change a sum that has reached 1 (it is under half its
				// last place): skipping its exponential leaves the sum bit for bit the same.
				if y-mx < -40 && acc >= 1 {
					continue
				}
				acc += math.Exp(y - mx)
			}
			return (fk*(mx+math.Log(acc)) - lt) / t
		}
		// For a near-Gaussian sum the best t is about √(2 ln(1/tail))/(sd·√k), i.e. m ≈ 3: start there and
		// walk downhill (any t gives a valid bound; the search only tightens it).
		m0 := int(math.Round(math.Log2(math.Sqrt(-2 * lt))))
		for _, sign := range []float64{1, -1} {
			best := dev(m0, sign)
			for _, step := range []int{1, -1} {
				for m := m0 + step; m >= -30 && m <= 30; m += step {
					v := dev(m, sign)
					if v >= best {
						break
					}
					best = v
				}
			}
			if sign > 0 {
				upper = math.Min(upper, fk*mean+best)
			} else {
				lower = math.Max(lower, fk*mean-best)
			}
		}
	}
	return math.Floor(lower), math.Ceil(upper)
}

// composePower returns acc convolved with the k-fold self-convolution of d, from one forward transform of
// d (and of acc, when it is not trivial), a pointwise k-th power and one inverse transform, over a window
// of the result that holds all but 2·tail of its mass (chernoffWindow). The mass outside the window either
// wraps around into it (extra mass, which can only raise δ) or is accounted pessimistically: tail more at
// +∞ for the upper side, and the lower side's deficit moved onto the window's first point.
func composePower(acc, d *pmf, k int, tail float64, maxPoints int) (*pmf, error) {
	if k == 0 {
		return acc, nil
	}
	if k == 1 && acc.trivial() {
		out := *d
		out.p = append([]float64(nil), d.p...)
		return &out, nil
	}
	Lk, Uk := chernoffWindow(d, k, tail)
	base := float64(acc.lo) + float64(k)*float64(d.lo)
	width := Uk - Lk + float64(len(acc.p))
	if width > float64(maxPoints) || math.Abs(base+Lk) > 1<<60 || math.Abs(base+Uk) > 1<<60 {
		return nil, &GridError{Points: int(math.Min(width, math.MaxInt32*4)), Limit: maxPoints}
	}
	n := int(width)
	need := max(n, len(d.p), len(acc.p))
	size, err := fftSize(need)
	if err != nil || size > maxPoints {
		return nil, &GridError{Points: need, Limit: maxPoints}
	}
	fft := planFFT(size)
	bufs := getFFTBuffers(size)
	defer fftBuffers.Put(bufs)
	seq := bufs.seq
	copy(seq, d.p)
	clear(seq[len(d.p):])
	coef := fft.forward(bufs.coef, seq)
	bufs.coef = coef
	var accCoef []complex128
	if !acc.trivial() {
		clear(seq)
		copy(seq, acc.p)
		accCoef = fft.forward(bufs.acc, seq)
		bufs.acc = accCoef
	}
	fk := float64(k)
	logN := math.Log2(float64(size)) + 2 // + the real-packing steps
	// Round-off: the forward coefficients are off by at most ec = 8u·log₂N·√N·‖x‖₂ in ℓ2 (Higham 2002,
	// §24.1), so each by at most ec, and their k-th powers by k·(|X| + ec)^{k−1} times their own error, at
	// most k·(1 + ec)^{k−1}·ec in ℓ2 in all, plus the power's own rounding.
	ec := 8 * unitRoundoff * logN * math.Sqrt(float64(size)) * norm2(d.p)
	ea := 0.0
	if accCoef != nil {
		ea = 8 * unitRoundoff * logN * math.Sqrt(float64(size)) * norm2(acc.p)
	}
	errSq := 0.0
	thr := math.Exp(-1490 / fk) // |X|² below it: |X|^k underflows
	for i, c := range coef {
		if r2 := real(c)*real(c) + imag(c)*imag(c); r2 < thr {
			coef[i] = 0
			continue
		}
		r := cmplx.Abs(c)
		lr := math.Log(r)
		th := cmplx.Phase(c)
		pw := math.Exp(fk * lr)
		v := cmplx.Rect(pw, math.Mod(fk*th, 2*math.Pi))
		e := pw * (fk*(math.Abs(lr)+math.Pi) + 8) * unitRoundoff
		if accCoef != nil {
			a := accCoef[i]
			e *= cmplx.Abs(a) + ea
			v *= a
		}
		coef[i] = v
		w := 2.0 // each coefficient stands for itself and its conjugate
		if i == 0 {
			w = 1
		}
		errSq += w * e * e
	}
	fft.inverse(seq, coef)
	out := &pmf{lo: int(base + Lk), p: make([]float64, n)}
	start := int(Lk) // offset of the window's first point from base
	sum := 0.0
	sq := 0.0
	mask := size - 1 // size is a power of two: s & mask is s mod size, negative s included
	for i := range out.p {
		v := seq[(start+i)&mask]
		if v > 0 {
			out.p[i] = v
			sum += v
			sq += v * v
		}
	}
	// ℓ2 error of the output: the spectrum's over √N (unitary inverse) plus the inverse's own rounding; ℓ1
	// over the n window entries is at most √n times it.
	spec := math.Sqrt(errSq) + fk*math.Exp((fk-1)*math.Log1p(ec))*ec*math.Sqrt2*(1+ea) + ea*math.Sqrt2
	l2 := spec/math.Sqrt(float64(size)) + 8*unitRoundoff*logN*math.Sqrt(sq)
	out.num = acc.num + fk*d.num + math.Sqrt(float64(n))*l2
	out.rel = acc.rel + fk*d.rel
	finite := (1 - acc.inf) * math.Pow(1-d.inf, fk)
	out.inf = 1 - finite + tail
	if deficit := finite - tail - sum; deficit > 0 {
		out.p[0] += deficit
	}
	out.steps = acc.steps + k*d.steps
	out.bias = acc.bias + fk*d.bias
	out.moved = acc.moved + fk*d.moved + 3*tail
	return truncate(out, tail), nil
}

// fftBuffers holds composePower's scratch buffers between calls (for a transform of length N: N floats, and
// N/2 + 1 complex coefficients for each of the one or two spectra), so that repeated compositions do not
// allocate and clear them again.
var fftBuffers sync.Pool // *fftBufs

type fftBufs struct {
	seq       []float64    // the real sequence, of the transform length
	coef, acc []complex128 // the coefficients of the new runs and of what was composed before
}

// getFFTBuffers returns scratch buffers for a transform of length size (contents undefined).
func getFFTBuffers(size int) *fftBufs {
	b, _ := fftBuffers.Get().(*fftBufs)
	if b == nil || cap(b.seq) < size {
		b = &fftBufs{seq: make([]float64, size)} // the coefficient buffers are made by realFFT.forward
	}
	b.seq = b.seq[:size]
	return b
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
	out := *d
	out.lo, out.p, out.inf = d.lo+i, d.p[i:j+1], d.inf+high
	out.p[0] += low
	out.moved += low + high
	return &out
}

// maxPLDPoints is the default cap on a privacy-loss grid: 2²² points, about 220 MB of buffers per direction
// at most (two directions are composed at once).
const maxPLDPoints = 1 << 22

// fftSize is the smallest power of two ≥ max(n, 4) (the lengths realFFT takes). Grids beyond maxPLDPoints
// are an error.
func fftSize(n int) (int, error) {
	if n > maxPLDPoints {
		return 0, &GridError{Points: n, Limit: maxPLDPoints}
	}
	size := 4
	for size < n {
		size *= 2
	}
	return size, nil
}

// delta is Σ_{ℓ>ε} p(ℓ)(1 − e^{ε−ℓ}) + inf.
func (d *pmf) delta(eps, h float64) float64 {
	s, _ := d.deltaTerms(eps, h)
	return s
}

// deltaTerms is delta and the number of terms summed (its round-off is at most about 4·n·u relative: every
// term is positive).
func (d *pmf) deltaTerms(eps, h float64) (float64, int) {
	s := d.inf
	n := 0
	for i := len(d.p) - 1; i >= 0; i-- {
		l := float64(d.lo+i) * h
		if l <= eps {
			break
		}
		s += d.p[i] * -math.Expm1(eps-l)
		n++
	}
	return s, n
}

// deltaLower is delta rounded down by a bound on its round-off: for the certified lower bounds.
func (d *pmf) deltaLower(eps, h float64) float64 {
	s, n := d.deltaTerms(eps, h)
	return s * (1 - 4*float64(n+2)*unitRoundoff)
}

// epsilon is the smallest ε ≥ 0 with delta(ε) ≤ target (+Inf if inf ≥ target). It scans down from the top:
// on [ε_j, ε_{j+1}], δ(ε) = inf + A_j − e^{ε−ε_j}·G_j with A_j = Σ_{i>j} p_i and G_j = Σ_{i>j} p_i·e^{ε_j−ε_i},
// where G_{j−1} = e^{−h}(G_j + p_j) stays below 1 whatever ε is. The target is lowered by a bound on the
// sums' round-off, so the crossing found is never below the exact one.
func (d *pmf) epsilon(target, h float64) float64 { return d.crossing(target, h, -1) }

// epsilonLower is epsilon with the target raised by the round-off bound instead: the crossing found is
// never above the exact one (for the certified lower bound).
func (d *pmf) epsilonLower(target, h float64) float64 { return d.crossing(target, h, 1) }

// crossing is epsilon with the round-off bound applied to the target with the given sign.
func (d *pmf) crossing(target, h, sign float64) float64 {
	if d.inf >= target {
		return math.Inf(1)
	}
	eh := math.Exp(-h)
	A, G := 0.0, 0.0
	for j := len(d.p) - 1; j >= 0; j-- {
		lj := float64(d.lo+j) * h
		n := float64(len(d.p) - j)
		tj := target + sign*4*n*unitRoundoff*(d.inf+A+G)
		if d.inf+A-G > tj {
			// The crossing is in [ε_j, ε_{j+1}): e^{ε−ε_j}·G = inf + A − target.
			return math.Max(lj+math.Log((d.inf+A-tj)/G), 0)
		}
		if lj <= 0 {
			return 0
		}
		A += d.p[j]
		G = eh * (G + d.p[j])
	}
	return 0
}
