package envs

import (
	"github.com/dprl-project/dprl/dprl/param"

	"math"
	"math/rand/v2"
	"slices"
)

// CartPoleParams are CartPole-v1's physical constants; zero fields take Gymnasium's values. Sharma et al.
// train experts on variations of them.
type CartPoleParams struct {
	Gravity, CartMass, PoleMass, HalfLength, ForceMag, Tau float64
}

func (p CartPoleParams) withDefaults() CartPoleParams {
	orDefault(&p.Gravity, 9.8)
	orDefault(&p.CartMass, 1.0)
	orDefault(&p.PoleMass, 0.1)
	orDefault(&p.HalfLength, 0.5)
	orDefault(&p.ForceMag, 10)
	orDefault(&p.Tau, 0.02)
	return p
}

// CartPole is Gymnasium's CartPole-v1 (explicit Euler; reward +1 on every step, including the failing one).
// State (x, ẋ, θ, θ̇) in float64; the observation is its float32 rounding.
type CartPole struct {
	p CartPoleParams
	episode
	s   [4]float64
	obs [4]float64
}

// NewCartPole returns CartPole with the given constants.
// Invalid constants (not finite, or a mass, length, force or time step not positive) make every Reset
// return an error naming the field.
func NewCartPole(p CartPoleParams) *CartPole {
	c := &CartPole{p: p.withDefaults()}
	q := c.p
	c.bad = param.First(check.In("Gravity", q.Gravity, param.Finite), check.In("CartMass", q.CartMass, param.Positive),
		check.In("PoleMass", q.PoleMass, param.Positive), check.In("HalfLength", q.HalfLength, param.Positive),
		check.In("ForceMag", q.ForceMag, param.Positive), check.In("Tau", q.Tau, param.Positive))
	return c
}

const cartPoleThetaLimit = 12 * 2 * math.Pi / 360

func (c *CartPole) Name() string    { return "cartpole" }
func (c *CartPole) NumActions() int { return 2 }
func (c *CartPole) ObservationSpace() Box {
	inf := math.Inf(1)
	// Observations can exceed the termination bounds by one step's motion.
	return Box{Low: []float64{-4.8, -inf, -2 * cartPoleThetaLimit, -inf}, High: []float64{4.8, inf, 2 * cartPoleThetaLimit, inf}}
}

func (c *CartPole) Reset(src rand.Source) ([]float64, error) {
	if err := c.begin(src); err != nil {
		return nil, err
	}
	for i := range c.s {
		c.s[i] = -0.05 + 0.1*c.rng.Float64()
	}
	return c.observe(), nil
}

func (c *CartPole) observe() []float64 {
	// By index: ranging over the array by value would copy it with 16-byte loads straight after Step's
	// 8-byte stores to it, which stall.
	for i := range c.s {
		c.obs[i] = f32(c.s[i])
	}
	return c.obs[:]
}

func (c *CartPole) Step(a int) (StepResult, error) {
	obs, r, term, err := c.step(a)
	return StepResult{Obs: obs, Reward: r, Terminated: term}, err
}

// step is Step with the result as separate values (see stepFast).
func (c *CartPole) step(a int) (obs []float64, reward float64, terminated bool, err error) {
	if err := c.check("cartpole", a, 2); err != nil {
		return nil, 0, false, err
	}
	p := c.p
	x, xDot, th, thDot := c.s[0], c.s[1], c.s[2], c.s[3]
	force := -p.ForceMag
	if a == 1 {
		force = p.ForceMag
	}
	total := p.CartMass + p.PoleMass
	pml := p.PoleMass * p.HalfLength
	sin, cos := math.Sincos(th) // bit for bit math.Sin and math.Cos, from one range reduction
	tmp := (force + pml*thDot*thDot*sin) / total
	thAcc := (p.Gravity*sin - cos*tmp) / (p.HalfLength * (4.0/3.0 - p.PoleMass*cos*cos/total))
	xAcc := tmp - pml*thAcc*cos/total
	x += p.Tau * xDot
	xDot += p.Tau * xAcc
	th += p.Tau * thDot
	thDot += p.Tau * thAcc
	c.s = [4]float64{x, xDot, th, thDot}
	term := x < -2.4 || x > 2.4 || th < -cartPoleThetaLimit || th > cartPoleThetaLimit
	c.end(term)
	return c.observe(), 1, term, nil
}

func (c *CartPole) State() []float64 { return slices.Clone(c.s[:]) }
func (c *CartPole) SetState(s []float64) error {
	if len(s) != 4 {
		return stateError("cartpole", len(s), 4)
	}
	copy(c.s[:], s)
	c.observe()
	c.resume()
	return nil
}

// MountainCar is Gymnasium's MountainCar-v0 (Sutton & Barto): reward −1 per step, terminated at the goal.
type MountainCar struct {
	episode
	s   [2]float64
	obs [2]float64
}

// NewMountainCar returns MountainCar-v0.
func NewMountainCar() *MountainCar { return &MountainCar{} }

func (m *MountainCar) Name() string    { return "mountaincar" }
func (m *MountainCar) NumActions() int { return 3 }
func (m *MountainCar) ObservationSpace() Box {
	return Box{Low: []float64{f32(-1.2), f32(-0.07)}, High: []float64{f32(0.6), f32(0.07)}}
}

func (m *MountainCar) Reset(src rand.Source) ([]float64, error) {
	if err := m.begin(src); err != nil {
		return nil, err
	}
	m.s = [2]float64{-0.6 + 0.2*m.rng.Float64(), 0}
	return m.observe(), nil
}

func (m *MountainCar) observe() []float64 {
	m.obs = [2]float64{f32(m.s[0]), f32(m.s[1])}
	return m.obs[:]
}

func (m *MountainCar) Step(a int) (StepResult, error) {
	obs, r, term, err := m.step(a)
	return StepResult{Obs: obs, Reward: r, Terminated: term}, err
}

// step is Step with the result as separate values (see stepFast).
func (m *MountainCar) step(a int) (obs []float64, reward float64, terminated bool, err error) {
	if err := m.check("mountaincar", a, 3); err != nil {
		return nil, 0, false, err
	}
	p, v := m.s[0], m.s[1]
	v += float64(a-1)*0.001 + math.Cos(3*p)*(-0.0025)
	v = clamp(v, -0.07, 0.07)
	p += v
	p = clamp(p, -1.2, 0.6)
	if p == -1.2 && v < 0 {
		v = 0
	}
	m.s = [2]float64{p, v}
	term := p >= 0.5 && v >= 0
	m.end(term)
	return m.observe(), -1, term, nil
}

func (m *MountainCar) State() []float64 { return slices.Clone(m.s[:]) }
func (m *MountainCar) SetState(s []float64) error {
	if len(s) != 2 {
		return stateError("mountaincar", len(s), 2)
	}
	copy(m.s[:], s)
	m.observe()
	m.resume()
	return nil
}

// AcrobotParams are Acrobot-v1's constants; zero fields take Gymnasium's values ("book" dynamics).
type AcrobotParams struct {
	LinkLength1, LinkLength2, LinkMass1, LinkMass2 float64
	// LinkCOM1, LinkCOM2 are the distances of the links' centres of mass from their joints (0.5). Like
	// Gymnasium, they do not follow the link lengths.
	LinkCOM1, LinkCOM2 float64
	// NIPS selects the "nips" dynamics, which drop the θ̇1² term.
	NIPS bool
}

func (p AcrobotParams) withDefaults() AcrobotParams {
	orDefault(&p.LinkLength1, 1)
	orDefault(&p.LinkLength2, 1)
	orDefault(&p.LinkMass1, 1)
	orDefault(&p.LinkMass2, 1)
	orDefault(&p.LinkCOM1, 0.5)
	orDefault(&p.LinkCOM2, 0.5)
	return p
}

// Acrobot is Gymnasium's Acrobot-v1: one RK4 step of 0.2 s per action, torques −1, 0, +1, reward −1 per
// step and 0 on the terminating one. The moments of inertia are 1, as in Gymnasium.
type Acrobot struct {
	p AcrobotParams
	k acrobotConsts
	episode
	s   [4]float64
	obs [6]float64
	sc2 [2]float64 // sin θ2 and cos θ2 of s (observe sets them whenever s changes)
}

// acrobotConsts are the products of constants in deriv's expressions, each formed as deriv's left-to-right
// evaluation forms it, so that deriv gives bit for bit the values of the expressions written out.
type acrobotConsts struct {
	d1a, d1b, d1c    float64 // m1·lc1·lc1, l1·l1 + lc2·lc2, 2·l1·lc2
	d2a, d2b         float64 // lc2·lc2, l1·lc2
	phi2             float64 // m2·lc2·g
	phi1a, phi1b     float64 // −m2·l1·lc2, 2·m2·l1·lc2
	phi1c            float64 // (m1·lc1 + m2·l1)·g
	ddt2a, ddt2Denom float64 // m2·l1·lc2, m2·lc2·lc2 + i2
}

// NewAcrobot returns Acrobot with the given constants.
// Invalid constants (a length, mass or centre of mass not positive and finite) make every Reset return an
// error naming the field.
func NewAcrobot(p AcrobotParams) *Acrobot {
	a := &Acrobot{p: p.withDefaults()}
	q := a.p
	m1, m2, l1, lc1, lc2 := q.LinkMass1, q.LinkMass2, q.LinkLength1, q.LinkCOM1, q.LinkCOM2
	const i2, g = 1.0, acrobotGravity
	a.k = acrobotConsts{
		d1a: m1 * lc1 * lc1, d1b: l1*l1 + lc2*lc2, d1c: 2 * l1 * lc2,
		d2a: lc2 * lc2, d2b: l1 * lc2,
		phi2:  m2 * lc2 * g,
		phi1a: -m2 * l1 * lc2, phi1b: 2 * m2 * l1 * lc2, phi1c: (m1*lc1 + m2*l1) * g,
		ddt2a: m2 * l1 * lc2, ddt2Denom: m2*lc2*lc2 + i2,
	}
	a.bad = param.First(check.In("LinkLength1", q.LinkLength1, param.Positive), check.In("LinkLength2", q.LinkLength2, param.Positive),
		check.In("LinkMass1", q.LinkMass1, param.Positive), check.In("LinkMass2", q.LinkMass2, param.Positive),
		check.In("LinkCOM1", q.LinkCOM1, param.Positive), check.In("LinkCOM2", q.LinkCOM2, param.Positive))
	return a
}

const (
	acrobotDt      = 0.2
	acrobotMaxV1   = 4 * math.Pi
	acrobotMaxV2   = 9 * math.Pi
	acrobotGravity = 9.8
)

func (ac *Acrobot) Name() string    { return "acrobot" }
func (ac *Acrobot) NumActions() int { return 3 }
func (ac *Acrobot) ObservationSpace() Box {
	return Box{Low: []float64{-1, -1, -1, -1, f32(-acrobotMaxV1), f32(-acrobotMaxV2)}, High: []float64{1, 1, 1, 1, f32(acrobotMaxV1), f32(acrobotMaxV2)}}
}

func (ac *Acrobot) Reset(src rand.Source) ([]float64, error) {
	if err := ac.begin(src); err != nil {
		return nil, err
	}
	for i := range ac.s {
		ac.s[i] = f32(-0.1 + 0.2*ac.rng.Float64()) // Gymnasium casts the reset state to float32
	}
	return ac.observe(), nil
}

func (ac *Acrobot) observe() []float64 {
	s1, c1 := math.Sincos(ac.s[0])
	s2, c2 := math.Sincos(ac.s[1])
	return ac.observeTrig(s1, c1, s2, c2)
}

// observeTrig is observe given the sines and cosines of θ1 and θ2.
func (ac *Acrobot) observeTrig(s1, c1, s2, c2 float64) []float64 {
	ac.sc2 = [2]float64{s2, c2}
	ac.obs = [6]float64{f32(c1), f32(s1), f32(c2), f32(s2), f32(ac.s[2]), f32(ac.s[3])}
	return ac.obs[:]
}

// deriv is the time derivative (dθ1, dθ2, dθ̇1, dθ̇2) of (θ1, θ2, θ̇1, θ̇2) under torque tau, given
// sin θ2 and cos θ2. It takes and returns scalars, which stay in registers (arrays would be copied through
// the stack between the Runge–Kutta stages).
func (ac *Acrobot) deriv(t1, t2, dt1, dt2, tau, sin2, cos2 float64) (float64, float64, float64, float64) {
	// Gymnasium's _dsdt:
	//   d1 = m1·lc1² + m2·(l1² + lc2² + 2·l1·lc2·cos θ2) + I1 + I2,  d2 = m2·(lc2² + l1·lc2·cos θ2) + I2
	//   φ2 = m2·lc2·g·cos(θ1 + θ2 − π/2)
	//   φ1 = −m2·l1·lc2·θ̇2²·sin θ2 − 2·m2·l1·lc2·θ̇2·θ̇1·sin θ2 + (m1·lc1 + m2·l1)·g·cos(θ1 − π/2) + φ2
	//   θ̈2 = (τ + d2/d1·φ1 − m2·l1·lc2·θ̇1²·sin θ2 − φ2) / (m2·lc2² + I2 − d2²/d1)  (no θ̇1² term for "nips")
	// with the constant products from ac.k, in the same order of operations.
	k := &ac.k
	m2 := ac.p.LinkMass2
	const i1, i2 = 1.0, 1.0
	d1 := k.d1a + m2*(k.d1b+k.d1c*cos2) + i1 + i2
	d2 := m2*(k.d2a+k.d2b*cos2) + i2
	phi2 := k.phi2 * math.Cos(t1+t2-math.Pi/2)
	phi1 := k.phi1a*dt2*dt2*sin2 - k.phi1b*dt2*dt1*sin2 + k.phi1c*math.Cos(t1-math.Pi/2) + phi2
	var ddt2 float64
	if ac.p.NIPS {
		ddt2 = (tau + d2/d1*phi1 - phi2) / (k.ddt2Denom - d2*d2/d1)
	} else {
		ddt2 = (tau + d2/d1*phi1 - k.ddt2a*dt1*dt1*sin2 - phi2) / (k.ddt2Denom - d2*d2/d1)
	}
	ddt1 := -(d2*ddt2 + phi1) / d1
	return dt1, dt2, ddt1, ddt2
}

// derivAt is deriv at a state whose sin θ2 and cos θ2 are not known yet: one Sincos (bit for bit math.Sin
// and math.Cos) serves the five places they appear.
func (ac *Acrobot) derivAt(t1, t2, dt1, dt2, tau float64) (float64, float64, float64, float64) {
	sin2, cos2 := math.Sincos(t2)
	return ac.deriv(t1, t2, dt1, dt2, tau, sin2, cos2)
}

func (ac *Acrobot) Step(a int) (StepResult, error) {
	obs, r, term, err := ac.step(a)
	return StepResult{Obs: obs, Reward: r, Terminated: term}, err
}

// step is Step with the result as separate values (see stepFast).
func (ac *Acrobot) step(a int) (obs []float64, reward float64, terminated bool, err error) {
	if err := ac.check("acrobot", a, 3); err != nil {
		return nil, 0, false, err
	}
	tau := float64(a - 1)
	// Classic RK4 over one step of h (Gymnasium's rk4 with the endpoints [0, dt]): y + h/6·(k1 + 2k2 + 2k3 + k4).
	y0, y1, y2, y3 := ac.s[0], ac.s[1], ac.s[2], ac.s[3]
	const h = acrobotDt
	a1, b1, c1, d1 := ac.deriv(y0, y1, y2, y3, tau, ac.sc2[0], ac.sc2[1]) // sin θ2, cos θ2 kept from observe
	a2, b2, c2, d2 := ac.derivAt(y0+h/2*a1, y1+h/2*b1, y2+h/2*c1, y3+h/2*d1, tau)
	a3, b3, c3, d3 := ac.derivAt(y0+h/2*a2, y1+h/2*b2, y2+h/2*c2, y3+h/2*d2, tau)
	a4, b4, c4, d4 := ac.derivAt(y0+h*a3, y1+h*b3, y2+h*c3, y3+h*d3, tau)
	y0 += h / 6 * (a1 + 2*a2 + 2*a3 + a4)
	y1 += h / 6 * (b1 + 2*b2 + 2*b3 + b4)
	y2 += h / 6 * (c1 + 2*c2 + 2*c3 + c4)
	y3 += h / 6 * (d1 + 2*d2 + 2*d3 + d4)
	y0, y1 = wrapPi(y0), wrapPi(y1)
	y2 = clamp(y2, -acrobotMaxV1, acrobotMaxV1)
	y3 = clamp(y3, -acrobotMaxV2, acrobotMaxV2)
	ac.s = [4]float64{y0, y1, y2, y3}
	s1, co1 := math.Sincos(y0)
	s2, co2 := math.Sincos(y1)
	term := -co1-math.Cos(y1+y0) > 1.0
	r := -1.0
	if term {
		r = 0
	}
	ac.end(term)
	return ac.observeTrig(s1, co1, s2, co2), r, term, nil
}

// clamp is math.Min(math.Max(x, lo), hi) for bounds lo < hi that are not zero (so no signed-zero case
// arises), NaN included, without the two calls math.Min and math.Max cost on amd64.
func clamp(x, lo, hi float64) float64 {
	if x < lo {
		return lo
	}
	if x > hi {
		return hi
	}
	return x
}

// wrapPi maps x into [−π, π] by whole turns, leaving exactly ±π alone (Gymnasium's wrap).
func wrapPi(x float64) float64 {
	for x > math.Pi {
		x -= 2 * math.Pi
	}
	for x < -math.Pi {
		x += 2 * math.Pi
	}
	return x
}

func (ac *Acrobot) State() []float64 { return slices.Clone(ac.s[:]) }
func (ac *Acrobot) SetState(s []float64) error {
	if len(s) != 4 {
		return stateError("acrobot", len(s), 4)
	}
	copy(ac.s[:], s)
	ac.observe()
	ac.resume()
	return nil
}
