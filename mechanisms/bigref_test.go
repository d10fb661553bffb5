package mechanisms

import (
	"math"
	"math/big"
	"sync"
	"testing"
)

// High-precision references for the property tests (refprop_test.go), written independently of the code
// under test: every value is computed in math/big.Float at refPrec bits from series and continued fractions,
// never from the package's float64 functions. TestBigReferences checks them against known constants and
// against the standard library.

// refPrec is the working precision of the references: about 96 decimal digits.
const refPrec = 320

func bf(x float64) *big.Float { return new(big.Float).SetPrec(refPrec).SetFloat64(x) }
func bnew() *big.Float        { return new(big.Float).SetPrec(refPrec) }
func bint(n int64) *big.Float { return bnew().SetInt64(n) }

var (
	refConstOnce  sync.Once
	refPi, refLn2 *big.Float
	refSqrtPi     *big.Float
)

// refConsts computes π (Machin's formula) and ln 2 (Σ 1/(k·2^k)) once.
func refConsts() {
	refConstOnce.Do(func() {
		atanInv := func(m int64) *big.Float { // arctan(1/m) = Σ (−1)^k / ((2k+1)·m^{2k+1})
			sum, pow := bnew(), bnew().Quo(bint(1), bint(m))
			m2 := bint(m * m)
			eps := bnew().SetMantExp(bint(1), -refPrec-8)
			for k := int64(0); ; k++ {
				t := bnew().Quo(pow, bint(2*k+1))
				if k%2 == 1 {
					t.Neg(t)
				}
				sum.Add(sum, t)
				if bnew().Abs(t).Cmp(eps) < 0 {
					return sum
				}
				pow.Quo(pow, m2)
			}
		}
		refPi = bnew().Sub(bnew().Mul(bint(16), atanInv(5)), bnew().Mul(bint(4), atanInv(239)))
		refSqrtPi = bnew().Sqrt(refPi)
		refLn2 = bnew()
		half := bf(0.5)
		pow := bf(0.5)
		for k := int64(1); k < refPrec+16; k++ {
			refLn2.Add(refLn2, bnew().Quo(pow, bint(k)))
			pow.Mul(pow, half)
		}
	})
}

// bigExp is e^x: x = k·ln 2 + r, e^r by its Taylor series after halving r ten times, then squared back.
func bigExp(x *big.Float) *big.Float {
	refConsts()
	if x.Sign() == 0 {
		return bf(1)
	}
	xf, _ := x.Float64()
	k := math.Round(xf / math.Ln2)
	r := bnew().Sub(x, bnew().Mul(bf(k), refLn2))
	r.SetMantExp(r, -10)
	sum, term := bf(1), bf(1)
	eps := bnew().SetMantExp(bint(1), -refPrec-16)
	for n := int64(1); ; n++ {
		term.Mul(term, r)
		term.Quo(term, bint(n))
		sum.Add(sum, term)
		if bnew().Abs(term).Cmp(eps) < 0 {
			break
		}
	}
	for range 10 {
		sum.Mul(sum, sum)
	}
	return sum.SetMantExp(sum, int(k))
}

// bigErfc is erfc(x): for |x| < 5 from erf's series of positive terms, erf(x) = (2/√π)·e^{−x²}·Σ_n 2^n
// x^{2n+1}/(1·3·…·(2n+1)), worked at 64 more bits since erfc = 1 − erf cancels; for x ≥ 5 from Laplace's
// continued fraction erfc(x) = e^{−x²}/√π · 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + …)))), evaluated backwards
// at depths N and 2N until they agree; erfc(−x) = 2 − erfc(x).
func bigErfc(x *big.Float) *big.Float {
	refConsts()
	if x.Sign() < 0 {
		return bnew().Sub(bf(2), bigErfc(bnew().Neg(x)))
	}
	xf, _ := x.Float64()
	x2 := bnew().Mul(x, x)
	ex2 := bigExp(bnew().Neg(x2))
	if xf < 5 {
		const guard = 64
		p := uint(refPrec + guard)
		sum := new(big.Float).SetPrec(p).Set(x)
		term := new(big.Float).SetPrec(p).Set(x)
		twoX2 := new(big.Float).SetPrec(p).Mul(x2, bf(2))
		eps := new(big.Float).SetPrec(p).SetMantExp(bint(1), -int(p)-8)
		for n := int64(1); ; n++ {
			term.Mul(term, twoX2)
			term.Quo(term, new(big.Float).SetPrec(p).SetInt64(2*n+1))
			sum.Add(sum, term)
			if term.Cmp(new(big.Float).SetPrec(p).Mul(eps, sum)) <= 0 {
				break
			}
		}
		erf := new(big.Float).SetPrec(p).Mul(sum, ex2)
		erf.Mul(erf, bf(2))
		erf.Quo(erf, refSqrtPi)
		return bnew().Sub(bf(1), erf)
	}
	cf := func(depth int) *big.Float {
		t := bnew().Set(x)
		for n := depth; n >= 1; n-- {
			t = bnew().Add(x, bnew().Quo(bf(float64(n)/2), t))
		}
		return bnew().Quo(bf(1), t)
	}
	depth := 64
	prev := cf(depth)
	for {
		depth *= 2
		cur := cf(depth)
		diff := bnew().Sub(cur, prev)
		diff.Abs(diff)
		if diff.Cmp(bnew().SetMantExp(cur, -refPrec+8)) <= 0 || depth > 1<<16 {
			out := bnew().Mul(cur, ex2)
			return out.Quo(out, refSqrtPi)
		}
		prev = cur
	}
}

// bigPhi is the standard normal distribution function, Φ(x) = erfc(−x/√2)/2.
func bigPhi(x *big.Float) *big.Float {
	arg := bnew().Quo(bnew().Neg(x), bnew().Sqrt(bf(2)))
	out := bigErfc(arg)
	return out.SetMantExp(out, -1)
}

// refGaussianDelta is the exact privacy profile of μ-GDP (Balle & Wang 2018, Theorem 8), for the μ and ε
// given as exact real numbers: δ(ε) = Φ(−ε/μ + μ/2) − e^ε·Φ(−ε/μ − μ/2).
func refGaussianDelta(mu, eps *big.Float) *big.Float {
	r := bnew().Quo(eps, mu)
	h := bnew().SetMantExp(mu, -1) // μ/2
	a := bigPhi(bnew().Sub(h, r))
	b := bigPhi(bnew().Sub(bnew().Neg(r), h))
	b.Mul(b, bigExp(eps))
	return a.Sub(a, b)
}

// refLaplaceDelta is the exact profile of one Laplace mechanism with ε0 = sensitivity/scale (closed form):
// δ(ε) = 1 − e^{(ε − ε0)/2} for 0 ≤ ε < ε0, 0 above.
func refLaplaceDelta(eps0, eps float64) *big.Float {
	if eps >= eps0 {
		return bnew()
	}
	e := bnew().Sub(bf(eps), bf(eps0))
	e.SetMantExp(e, -1)
	return bnew().Sub(bf(1), bigExp(e))
}

// refRRDelta is the exact δ(ε) of the k-fold composition of ε0-DP randomized response (the worst case of
// homogeneous (ε0, 0)-DP composition, Kairouz, Oh & Viswanath 2015): with l ~ Binomial(k, 1/(1+e^{ε0})),
// the loss is (k − 2l)·ε0 and δ = E[(1 − e^{ε − loss})₊]. The binomial weights are the recurrence
// P(l+1)/P(l) = (k − l)/(l + 1)·e^{−ε0} in big.Float (rrPrec bits) from the mode, over the mode ± (14
// standard deviations + 64), beyond which Bernstein's inequality leaves less than e^{−90}, normalised by
// their sum; the factors e^{ε − loss} by the recurrence e^{ε − loss(l+1)} = e^{ε − loss(l)}·e^{2ε0}.
func refRRDelta(eps0 float64, k int, eps float64) *big.Float {
	const rrPrec = 192
	nf := func() *big.Float { return new(big.Float).SetPrec(rrPrec) }
	p := 1 / (1 + math.Exp(eps0))
	mode := int(math.Floor(float64(k+1) * p))
	sd := math.Sqrt(float64(k) * p * (1 - p))
	lo, hi := max(0, mode-int(14*sd)-64), min(k, mode+int(14*sd)+64)
	ratio := nf().Set(bigExp(bf(-eps0))) // p/(1−p)
	w := make([]*big.Float, hi-lo+1)
	w[mode-lo] = nf().SetInt64(1)
	num, den := nf(), nf()
	for l := mode; l < hi; l++ {
		t := nf().Mul(w[l-lo], num.SetInt64(int64(k-l)))
		t.Quo(t, den.SetInt64(int64(l+1)))
		w[l+1-lo] = t.Mul(t, ratio)
	}
	for l := mode; l > lo; l-- {
		t := nf().Mul(w[l-lo], num.SetInt64(int64(l)))
		t.Quo(t, den.SetInt64(int64(k-l+1)))
		w[l-1-lo] = t.Quo(t, ratio)
	}
	total, sum := nf(), nf()
	var f, step *big.Float // e^{ε − loss(l)} and e^{2ε0}
	one := nf().SetInt64(1)
	for i, v := range w {
		total.Add(total, v)
		l := lo + i
		d := bnew().Sub(bnew().Mul(bint(int64(k-2*l)), bf(eps0)), bf(eps)) // loss − ε, exact at refPrec
		if d.Sign() <= 0 {
			continue
		}
		if f == nil {
			f = nf().Set(bigExp(bnew().Neg(d)))
			step = nf().Set(bigExp(bf(2 * eps0)))
		} else {
			f.Mul(f, step)
		}
		sum.Add(sum, nf().Mul(v, nf().Sub(one, f)))
	}
	return bnew().Quo(sum, total)
}

// TestBigReferences checks the references: π, ln 2 and e against their known digits, erfc against known
// values and against math.Erfc, the Gaussian profile at a point computed by hand, and the randomized-response
// profile against its sum over every l for small k.
func TestBigReferences(t *testing.T) {
	refConsts()
	digits := func(name string, got *big.Float, want string) {
		t.Helper()
		w, _, err := big.ParseFloat(want, 10, refPrec, big.ToNearestEven)
		if err != nil {
			t.Fatal(err)
		}
		d := bnew().Sub(got, w)
		d.Quo(d, w)
		if f, _ := d.Float64(); math.Abs(f) > 1e-45 {
			t.Errorf("%s = %s, want %s (relative error %g)", name, got.Text('g', 50), want, f)
		}
	}
	digits("π", refPi, "3.14159265358979323846264338327950288419716939937510582097494459")
	digits("ln 2", refLn2, "0.693147180559945309417232121458176568075500134360255254120680009")
	digits("e", bigExp(bf(1)), "2.71828182845904523536028747135266249775724709369995957496696763")
	digits("erfc(1)", bigErfc(bf(1)), "0.157299207050285130658779364917390740703933002034")
	for _, c := range []struct{ x, want float64 }{{5, 1.5374597944280349e-12}, {10, 2.088487583762545e-45}} {
		if got, _ := bigErfc(bf(c.x)).Float64(); math.Abs(got-c.want) > 1e-15*c.want {
			t.Errorf("erfc(%g) = %.17g, want %.17g", c.x, got, c.want)
		}
	}
	for _, x := range []float64{-3, -0.5, 0, 0.25, 1.5, 4.9, 5, 7.5, 12, 26} {
		got, _ := bigErfc(bf(x)).Float64()
		if want := math.Erfc(x); math.Abs(got-want) > 4e-16*want {
			t.Errorf("erfc(%g): reference %.17g, math.Erfc %.17g", x, got, want)
		}
	}
	// One Gaussian at μ = 1, ε = 1: Φ(−1/2) − e·Φ(−3/2), from math.Erfc.
	want := 0.5*math.Erfc(0.5/math.Sqrt2) - math.E*0.5*math.Erfc(1.5/math.Sqrt2)
	if got, _ := refGaussianDelta(bf(1), bf(1)).Float64(); math.Abs(got-want) > 1e-15 {
		t.Errorf("δ(μ = 1, ε = 1) = %.17g, from math.Erfc %.17g", got, want)
	}
	for _, k := range []int{1, 2, 7, 30} {
		for _, e := range []float64{0, 0.3, 1.7} {
			eps0 := 0.4
			// Every l, each weight from the binomial coefficient directly.
			p := 1 / (1 + math.Exp(eps0))
			want := 0.0
			for l := 0; l <= k; l++ {
				c, _ := new(big.Float).SetInt(new(big.Int).Binomial(int64(k), int64(l))).Float64()
				if loss := float64(k-2*l) * eps0; loss > e {
					want += c * math.Pow(p, float64(l)) * math.Pow(1-p, float64(k-l)) * -math.Expm1(e-loss)
				}
			}
			if got, _ := refRRDelta(eps0, k, e).Float64(); math.Abs(got-want) > 1e-14*math.Max(want, 1e-300) {
				t.Errorf("RR k=%d ε=%g: reference %.17g, direct %.17g", k, e, got, want)
			}
		}
	}
}
