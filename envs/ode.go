package envs

import (
	"errors"
	"math"
)

// dopri5 integrates y' = f(t, y) from t0 to t1 with the Dormand–Prince 5(4) pair and adaptive steps
// (Hairer, Nørsett & Wanner, Solving ODEs I, §II.4), keeping the error of every step within
// atol + rtol·|y| per component. y is updated in place. work must hold 8·len(y) values.
type dopri5 struct {
	rtol, atol float64
	h          float64 // the last accepted step size, reused as the next call's first guess
	work       []float64
}

var errStiff = errors.New("envs: ODE step size underflow")

// Dormand–Prince coefficients.
const (
	dpC2, dpC3, dpC4, dpC5 = 1.0 / 5, 3.0 / 10, 4.0 / 5, 8.0 / 9
	dpA21                  = 1.0 / 5
	dpA31, dpA32           = 3.0 / 40, 9.0 / 40
	dpA41, dpA42, dpA43    = 44.0 / 45, -56.0 / 15, 32.0 / 9
	dpA51, dpA52, dpA53    = 19372.0 / 6561, -25360.0 / 2187, 64448.0 / 6561
	dpA54                  = -212.0 / 729
	dpA61, dpA62, dpA63    = 9017.0 / 3168, -355.0 / 33, 46732.0 / 5247
	dpA64, dpA65           = 49.0 / 176, -5103.0 / 18656
	dpA71, dpA73, dpA74    = 35.0 / 384, 500.0 / 1113, 125.0 / 192
	dpA75, dpA76           = -2187.0 / 6784, 11.0 / 84
	// error coefficients: 5th-order minus 4th-order weights
	dpE1, dpE3, dpE4 = 71.0 / 57600, -71.0 / 16695, 71.0 / 1920
	dpE5, dpE6, dpE7 = -17253.0 / 339200, 22.0 / 525, -1.0 / 40
)

func (d *dopri5) integrate(f func(t float64, y, dy []float64), t0, t1 float64, y []float64) error {
	n := len(y)
	if len(d.work) < 8*n {
		d.work = make([]float64, 8*n)
	}
	k1, k2, k3, k4 := d.work[0:n], d.work[n:2*n], d.work[2*n:3*n], d.work[3*n:4*n]
	k5, k6, k7, yt := d.work[4*n:5*n], d.work[5*n:6*n], d.work[6*n:7*n], d.work[7*n:8*n]
	t := t0
	h := d.h
	if h <= 0 || h > t1-t0 {
		h = (t1 - t0) / 100
	}
	f(t, y, k1)
	for t < t1 {
		if t+h > t1 {
			h = t1 - t
		}
		for i := range y {
			yt[i] = y[i] + h*dpA21*k1[i]
		}
		f(t+dpC2*h, yt, k2)
		for i := range y {
			yt[i] = y[i] + h*(dpA31*k1[i]+dpA32*k2[i])
		}
		f(t+dpC3*h, yt, k3)
		for i := range y {
			yt[i] = y[i] + h*(dpA41*k1[i]+dpA42*k2[i]+dpA43*k3[i])
		}
		f(t+dpC4*h, yt, k4)
		for i := range y {
			yt[i] = y[i] + h*(dpA51*k1[i]+dpA52*k2[i]+dpA53*k3[i]+dpA54*k4[i])
		}
		f(t+dpC5*h, yt, k5)
		for i := range y {
			yt[i] = y[i] + h*(dpA61*k1[i]+dpA62*k2[i]+dpA63*k3[i]+dpA64*k4[i]+dpA65*k5[i])
		}
		f(t+h, yt, k6)
		for i := range y {
			yt[i] = y[i] + h*(dpA71*k1[i]+dpA73*k3[i]+dpA74*k4[i]+dpA75*k5[i]+dpA76*k6[i])
		}
		f(t+h, yt, k7) // first stage of the next step (FSAL)
		errNorm := 0.0
		for i := range y {
			e := h * (dpE1*k1[i] + dpE3*k3[i] + dpE4*k4[i] + dpE5*k5[i] + dpE6*k6[i] + dpE7*k7[i])
			sc := d.atol + d.rtol*math.Max(math.Abs(y[i]), math.Abs(yt[i]))
			errNorm += (e / sc) * (e / sc)
		}
		errNorm = math.Sqrt(errNorm / float64(n))
		if errNorm <= 1 {
			t += h
			copy(y, yt)
			copy(k1, k7)
			d.h = h
		}
		// Step-size control with safety factor 0.9, growth limited to [0.2, 5].
		fac := 5.0
		if errNorm > 0 {
			fac = math.Min(5, math.Max(0.2, 0.9*math.Pow(errNorm, -0.2)))
		}
		h *= fac
		if h < 1e-14*math.Max(math.Abs(t), 1) {
			return errStiff
		}
	}
	return nil
}
