package crosscheck

import (
	"math"
	"testing"
)

// TestTrainingMatchesPyTorch trains the same network from the same initialisation on the same batch in dprl
// and in PyTorch (plain SGD) or Opacus (ghost clipping and per-example gradients, noise multiplier 0 so
// that the runs are comparable; Opacus divides by norm + 1e−6 when clipping, dprl by the norm), at float64
// and float32, and compares the loss before every step. Tolerances, relative to the loss: float64 SGD
// 1e−12; float64 clipped 1e−6 (the 1e−6 in Opacus's clip factor); float32 1e−5. The loss must also fall by
// a tenth over the run, so that agreement is not that of two idle runs. It runs in the performance-anchor
// environment, in `make crosscheck-perf` (and so `make bench`), not in `make crosscheck`.
func TestTrainingMatchesPyTorch(t *testing.T) {
	py := perfPython(t)
	type run struct {
		c    MLPCase
		tol  float64
		ours []float64
	}
	var runs []*run
	for _, dtype := range []string{"float64", "float32"} {
		for _, method := range []string{"sgd", "ghost", "opacus"} {
			c := MLPCase{Sizes: []int{8, 64, 64, 4}, Dtype: dtype, Batch: 64, LR: 0.1, Method: method, Clip: 0.5,
				Steps: 40}
			tol := 1e-12
			if method != "sgd" {
				c.LR, tol = 0.3, 1e-6 // clipped gradients are shorter: a larger step to train as far
			}
			if dtype == "float32" {
				tol = 1e-5
			}
			r := &run{c: c, tol: tol}
			var step func() float64
			if dtype == "float64" {
				mr, err := NewMLPRun[float64](&r.c, 7)
				if err != nil {
					t.Fatal(err)
				}
				step = mr.Step
			} else {
				mr, err := NewMLPRun[float32](&r.c, 7)
				if err != nil {
					t.Fatal(err)
				}
				step = mr.Step
			}
			for range c.Steps {
				r.ours = append(r.ours, step())
			}
			runs = append(runs, r)
		}
	}
	var cases []MLPCase
	for _, r := range runs {
		cases = append(cases, r.c)
	}
	var refs []struct {
		Losses []float64 `json:"losses"`
	}
	if err := Reference(py, "train", cases, &refs); err != nil {
		t.Fatal(err)
	}
	for i, r := range runs {
		theirs := refs[i].Losses
		if len(theirs) != len(r.ours) {
			t.Fatalf("%s %s: %d losses from the reference, %d ours", r.c.Dtype, r.c.Method, len(theirs), len(r.ours))
		}
		worst := 0.0
		for s := range theirs {
			d := math.Abs(r.ours[s]-theirs[s]) / theirs[s]
			worst = math.Max(worst, d)
			if !(d <= r.tol) {
				t.Errorf("%s %s step %d: loss %.17g, reference %.17g (relative difference %.3g > %g)", r.c.Dtype, r.c.Method, s, r.ours[s], theirs[s], d, r.tol)
				break
			}
		}
		first, last := r.ours[0], r.ours[len(r.ours)-1]
		if !(last < 0.9*first) {
			t.Errorf("%s %s: loss %g → %g: the run does not train", r.c.Dtype, r.c.Method, first, last)
		}
		t.Logf("%s %-6s loss %.6f → %.6f, largest relative difference from the reference %.2g", r.c.Dtype, r.c.Method, first, last, worst)
	}
}
