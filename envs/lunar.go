package envs

import (
	"github.com/dprl-project/dprl/dprl/param"

	"math"
	"math/rand/v2"

	"github.com/ByteArena/box2d"
)

// LunarLanderParams configures LunarLander-v3 (discrete). Zero fields take Gymnasium's defaults.
type LunarLanderParams struct {
	Gravity float64 // negative, −10 by default (Gymnasium allows (−12, 0))
	// EnableWind turns on Gymnasium's wind and turbulence, with WindPower (15) and TurbulencePower (1.5).
	EnableWind                 bool
	WindPower, TurbulencePower float64
}

func (p LunarLanderParams) withDefaults() LunarLanderParams {
	if p.Gravity == 0 {
		p.Gravity = -10
	}
	if p.WindPower == 0 {
		p.WindPower = 15
	}
	if p.TurbulencePower == 0 {
		p.TurbulencePower = 1.5
	}
	return p
}

// Gymnasium's LunarLander constants.
const (
	llFPS           = 50.0
	llScale         = 30.0
	llMainPower     = 13.0
	llSidePower     = 0.6
	llInitialRandom = 1000.0
	llLegAway       = 20.0
	llLegDown       = 18.0
	llLegW, llLegH  = 2.0, 8.0
	llLegTorque     = 40.0
	llSideHeight    = 14.0
	llSideAway      = 12.0
	llMainY         = 4.0
	llW             = 600 / llScale
	llH             = 400 / llScale
	llChunks        = 11
)

var llPoly = [6][2]float64{{-14, 17}, {-17, 0}, {-17, -10}, {17, -10}, {17, 0}, {14, 17}}

// llPolyVerts is llPoly in world units (the polygon shape copies them).
var llPolyVerts = func() (v [len(llPoly)]box2d.B2Vec2) {
	for i, p := range llPoly {
		v[i] = box2d.MakeB2Vec2(p[0]/llScale, p[1]/llScale)
	}
	return v
}()

// LunarLander is Gymnasium's LunarLander-v3 with discrete actions (0 nothing, 1 left engine, 2 main,
// 3 right engine) on the ByteArena port of Box2D 2.3. A fresh world is built at every reset, as in v3.
//
// Box2D here computes in float64 where pybox2d uses float32, so trajectories agree with Gymnasium's only for
// the first steps (about 1e−6 after 1–3 steps, 1e−3 after 25; package doc, "Agreement with the references");
// after that agreement is statistical. The observation is float32 like Gymnasium's.
type LunarLander struct {
	p LunarLanderParams
	episode
	// Draws, when set, replaces the random draws: it is called as Draws(lo, hi) for every uniform draw in
	// Gymnasium's order (12 terrain heights, 2 initial-force components, then 2 dispersion draws per step,
	// the reset's internal step included), so recorded draws can be replayed.
	Draws func(lo, hi float64) float64

	world       *box2d.B2World
	lander      *box2d.B2Body
	legs        [2]*box2d.B2Body
	legContact  [2]bool
	gameOver    bool
	helipadY    float64
	prevShaping float64
	hasPrev     bool
	windIdx     int
	torqueIdx   int
	obs         [8]float64
	// Terrain of the current episode: the x and smoothed y of the chunk corners.
	ChunkX, ChunkY [llChunks]float64
}

// NewLunarLander returns LunarLander-v3.
// Invalid parameters (Gravity outside (−12, 0), a wind or turbulence power negative or not finite) make
// every Reset return an error naming the field.
func NewLunarLander(p LunarLanderParams) *LunarLander {
	l := &LunarLander{p: p.withDefaults()}
	q := l.p
	l.bad = param.First(check.In("Gravity", q.Gravity, param.Interval{Lo: -12, Hi: 0}),
		check.In("WindPower", q.WindPower, param.NonNegative), check.In("TurbulencePower", q.TurbulencePower, param.NonNegative))
	return l
}

func (l *LunarLander) Name() string    { return "lunarlander" }
func (l *LunarLander) NumActions() int { return 4 }

// ObservationSpace is Gymnasium's bounds.
func (l *LunarLander) ObservationSpace() Box {
	return Box{
		Low:  []float64{-2.5, -2.5, -10, -10, -2 * math.Pi, -10, 0, 0},
		High: []float64{2.5, 2.5, 10, 10, 2 * math.Pi, 10, 1, 1},
	}
}

func (l *LunarLander) uniform(lo, hi float64) float64 {
	if l.Draws != nil {
		return l.Draws(lo, hi)
	}
	return lo + (hi-lo)*l.rng.Float64()
}

// contacts is the contact listener: the lander touching anything ends the game; legs record ground contact.
type contacts struct{ l *LunarLander }

func (c contacts) BeginContact(contact box2d.B2ContactInterface) {
	a, b := contact.GetFixtureA().GetBody(), contact.GetFixtureB().GetBody()
	if a == c.l.lander || b == c.l.lander {
		c.l.gameOver = true
	}
	for i, leg := range c.l.legs {
		if a == leg || b == leg {
			c.l.legContact[i] = true
		}
	}
}

func (c contacts) EndContact(contact box2d.B2ContactInterface) {
	a, b := contact.GetFixtureA().GetBody(), contact.GetFixtureB().GetBody()
	for i, leg := range c.l.legs {
		if a == leg || b == leg {
			c.l.legContact[i] = false
		}
	}
}

func (contacts) PreSolve(box2d.B2ContactInterface, box2d.B2Manifold)         {}
func (contacts) PostSolve(box2d.B2ContactInterface, *box2d.B2ContactImpulse) {}

// Reset builds a new world: terrain, lander (with a random initial push) and legs, then takes Gymnasium's
// internal first step with action 0.
func (l *LunarLander) Reset(src rand.Source) ([]float64, error) {
	if err := l.begin(src); err != nil {
		return nil, err
	}
	w := box2d.MakeB2World(box2d.MakeB2Vec2(0, l.p.Gravity))
	l.world = &w
	l.world.SetContactListener(contacts{l})
	l.gameOver, l.hasPrev, l.legContact = false, false, [2]bool{}
	if l.p.EnableWind {
		l.windIdx = l.rng.IntN(19998) - 9999
		l.torqueIdx = l.rng.IntN(19998) - 9999
	}

	// Terrain.
	var height [llChunks + 1]float64
	for i := range height {
		height[i] = l.uniform(0, llH/2)
	}
	for i := range l.ChunkX {
		l.ChunkX[i] = llW / (llChunks - 1) * float64(i)
	}
	l.helipadY = llH / 4
	for i := llChunks/2 - 2; i <= llChunks/2+2; i++ {
		height[i] = l.helipadY
	}
	for i := range l.ChunkY {
		prev := height[(i-1+len(height))%len(height)] // Python's height[-1] is the last element
		l.ChunkY[i] = 0.33 * (prev + height[i] + height[i+1])
	}
	moonDef := box2d.MakeB2BodyDef()
	moon := l.world.CreateBody(&moonDef)
	// One edge shape serves every edge: the fixture keeps a clone of it.
	es := box2d.MakeB2EdgeShape()
	edge := func(x1, y1, x2, y2, friction float64) {
		es.Set(box2d.MakeB2Vec2(x1, y1), box2d.MakeB2Vec2(x2, y2))
		fd := box2d.MakeB2FixtureDef()
		fd.Shape = &es
		fd.Friction = friction
		moon.CreateFixtureFromDef(&fd)
	}
	edge(0, 0, llW, 0, 0.2)
	for i := 0; i < llChunks-1; i++ {
		edge(l.ChunkX[i], l.ChunkY[i], l.ChunkX[i+1], l.ChunkY[i+1], 0.1)
	}

	// Lander.
	x0, y0 := llW/2, llH
	bd := box2d.MakeB2BodyDef()
	bd.Type = box2d.B2BodyType.B2_dynamicBody
	bd.Position = box2d.MakeB2Vec2(x0, y0)
	l.lander = l.world.CreateBody(&bd)
	poly := box2d.MakeB2PolygonShape()
	poly.Set(llPolyVerts[:], len(llPolyVerts))
	fd := box2d.MakeB2FixtureDef()
	fd.Shape = &poly
	fd.Density, fd.Friction, fd.Restitution = 5, 0.1, 0
	fd.Filter.CategoryBits, fd.Filter.MaskBits = 0x0010, 0x001
	l.lander.CreateFixtureFromDef(&fd)
	fx := l.uniform(-llInitialRandom, llInitialRandom)
	fy := l.uniform(-llInitialRandom, llInitialRandom)
	l.lander.ApplyForceToCenter(box2d.MakeB2Vec2(fx, fy), true)

	// Legs.
	for k, i := range []float64{-1, 1} {
		ld := box2d.MakeB2BodyDef()
		ld.Type = box2d.B2BodyType.B2_dynamicBody
		ld.Position = box2d.MakeB2Vec2(x0-i*llLegAway/llScale, y0)
		ld.Angle = i * 0.05
		leg := l.world.CreateBody(&ld)
		box := box2d.MakeB2PolygonShape()
		box.SetAsBox(llLegW/llScale, llLegH/llScale)
		lf := box2d.MakeB2FixtureDef()
		lf.Shape = &box
		lf.Density, lf.Restitution = 1, 0
		lf.Filter.CategoryBits, lf.Filter.MaskBits = 0x0020, 0x001
		leg.CreateFixtureFromDef(&lf)
		l.legs[k] = leg
		jd := box2d.MakeB2RevoluteJointDef()
		jd.BodyA, jd.BodyB = l.lander, leg
		jd.LocalAnchorA = box2d.MakeB2Vec2(0, 0)
		jd.LocalAnchorB = box2d.MakeB2Vec2(i*llLegAway/llScale, llLegDown/llScale)
		jd.EnableMotor, jd.EnableLimit = true, true
		jd.MaxMotorTorque = llLegTorque
		jd.MotorSpeed = 0.3 * i
		if i == -1 {
			jd.LowerAngle, jd.UpperAngle = 0.9-0.5, 0.9
		} else {
			jd.LowerAngle, jd.UpperAngle = -0.9, -0.9+0.5
		}
		l.world.CreateJoint(&jd)
	}
	r, err := l.step(0)
	if err != nil {
		return nil, err
	}
	return r.Obs, nil
}

// Step fires the chosen engine and advances the world by 1/50 s.
func (l *LunarLander) Step(a int) (StepResult, error) {
	if err := l.check("lunarlander", a, 4); err != nil {
		return StepResult{}, err
	}
	return l.step(a)
}

func (l *LunarLander) step(a int) (StepResult, error) {
	if l.p.EnableWind && !(l.legContact[0] || l.legContact[1]) {
		wind := math.Tanh(math.Sin(0.02*float64(l.windIdx))+math.Sin(math.Pi*0.01*float64(l.windIdx))) * l.p.WindPower
		l.windIdx++
		l.lander.ApplyForceToCenter(box2d.MakeB2Vec2(wind, 0), true)
		torque := math.Tanh(math.Sin(0.02*float64(l.torqueIdx))+math.Sin(math.Pi*0.01*float64(l.torqueIdx))) * l.p.TurbulencePower
		l.torqueIdx++
		l.lander.ApplyTorque(torque, true)
	}
	angle := l.lander.GetAngle()
	tip := [2]float64{math.Sin(angle), math.Cos(angle)}
	side := [2]float64{-tip[1], tip[0]}
	d0 := l.uniform(-1, 1) / llScale
	d1 := l.uniform(-1, 1) / llScale
	pos := l.lander.GetPosition()
	mPower, sPower := 0.0, 0.0
	if a == 2 {
		mPower = 1
		ox := tip[0]*(llMainY/llScale+2*d0) + side[0]*d1
		oy := -tip[1]*(llMainY/llScale+2*d0) - side[1]*d1
		l.lander.ApplyLinearImpulse(box2d.MakeB2Vec2(-ox*llMainPower, -oy*llMainPower), box2d.MakeB2Vec2(pos.X+ox, pos.Y+oy), true)
	}
	if a == 1 || a == 3 {
		sPower = 1
		dir := float64(a - 2)
		ox := tip[0]*d0 + side[0]*(3*d1+dir*llSideAway/llScale)
		oy := -tip[1]*d0 - side[1]*(3*d1+dir*llSideAway/llScale)
		// The impulse point uses 17/SCALE across and SIDE_ENGINE_HEIGHT up: Gymnasium's documented quirk.
		at := box2d.MakeB2Vec2(pos.X+ox-tip[0]*17/llScale, pos.Y+oy+tip[1]*llSideHeight/llScale)
		l.lander.ApplyLinearImpulse(box2d.MakeB2Vec2(-ox*llSidePower, -oy*llSidePower), at, true)
	}
	l.world.Step(1/llFPS, 6*30, 2*30)

	pos = l.lander.GetPosition()
	vel := l.lander.GetLinearVelocity()
	s := [8]float64{
		(pos.X - llW/2) / (llW / 2),
		(pos.Y - (l.helipadY + llLegDown/llScale)) / (llH / 2),
		vel.X * (llW / 2) / llFPS,
		vel.Y * (llH / 2) / llFPS,
		l.lander.GetAngle(),
		20 * l.lander.GetAngularVelocity() / llFPS,
		b2f(l.legContact[0]),
		b2f(l.legContact[1]),
	}
	shaping := -100*math.Sqrt(s[0]*s[0]+s[1]*s[1]) - 100*math.Sqrt(s[2]*s[2]+s[3]*s[3]) - 100*math.Abs(s[4]) + 10*s[6] + 10*s[7]
	reward := 0.0
	if l.hasPrev {
		reward = shaping - l.prevShaping
	}
	l.prevShaping, l.hasPrev = shaping, true
	reward -= mPower*0.30 + sPower*0.03
	term := false
	if l.gameOver || math.Abs(s[0]) >= 1 {
		term, reward = true, -100
	}
	if !l.lander.IsAwake() {
		term, reward = true, 100
	}
	for i, v := range s {
		l.obs[i] = f32(v)
	}
	l.end(term)
	return StepResult{Obs: l.obs[:], Reward: reward, Terminated: term}, nil
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// State is the lander body's (x, y, vx, vy, angle, angular velocity) in world units.
func (l *LunarLander) State() []float64 {
	if l.lander == nil {
		return make([]float64, 6)
	}
	p, v := l.lander.GetPosition(), l.lander.GetLinearVelocity()
	return []float64{p.X, p.Y, v.X, v.Y, l.lander.GetAngle(), l.lander.GetAngularVelocity()}
}

// SetState is not supported: a Box2D world (contacts, joints, legs) is not a vector of numbers. Replay a
// recorded episode by injecting its draws (Draws) instead.
func (l *LunarLander) SetState([]float64) error { return ErrNoSetState }

// LunarLanderHeuristic is the hand-written controller of Gymnasium's LunarLander module (discrete form):
// point the lander towards the pad, hover at a height proportional to the horizontal offset, and after
// touchdown only damp the fall.
func LunarLanderHeuristic(s []float64) int { return LunarLanderHeuristicGains(LunarLanderGains, s) }

// LunarLanderGains are the heuristic's constants g: angle target clip(g0·x + g1·ẋ, ±0.4), hover target
// g2·|x|, angle todo g3·(target − angle) − g4·ω, hover todo g5·(target − y) − g6·ẏ (after touchdown −g6·ẏ).
var LunarLanderGains = []float64{0.5, 1, 0.55, 0.5, 1, 0.5, 0.5}

// LunarLanderHeuristicGains is the heuristic with gains g (Sharma et al.'s LunarLander experts vary them).
func LunarLanderHeuristicGains(g, s []float64) int {
	angleTarget := math.Max(-0.4, math.Min(0.4, g[0]*s[0]+g[1]*s[2]))
	hoverTarget := g[2] * math.Abs(s[0])
	angleTodo := g[3]*(angleTarget-s[4]) - g[4]*s[5]
	hoverTodo := g[5]*(hoverTarget-s[1]) - g[6]*s[3]
	if s[6] != 0 || s[7] != 0 {
		angleTodo = 0
		hoverTodo = -g[6] * s[3]
	}
	switch {
	case hoverTodo > math.Abs(angleTodo) && hoverTodo > 0.05:
		return 2
	case angleTodo < -0.05:
		return 3
	case angleTodo > 0.05:
		return 1
	}
	return 0
}
