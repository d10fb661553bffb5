package envs

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
)

// replayLunarLander replays a recorded LunarLander episode: the draws made during reset (from the
// companion *_reset.json) and during each step (the dispersion columns) are injected, the recorded actions
// applied, and the lander's body state and observation compared within 1e−4 for the first 10 steps
// (float64 Box2D against pybox2d's float32 diverges after that: package doc, "Agreement with the
// references"), with the flags and,
// within 1e−2, the rewards.
func replayLunarLander(t *testing.T, path string) {
	tb := readTable(t, path)
	var reset struct {
		Terrain    []float64 `json:"terrain_height_draws"`
		Force      []float64 `json:"initial_force_draws"`
		Dispersion []float64 `json:"reset_step_dispersion_draws"`
	}
	raw, err := os.ReadFile(strings.TrimSuffix(path, ".csv") + "_reset.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &reset); err != nil {
		t.Fatal(err)
	}
	if len(reset.Terrain) != 12 || len(reset.Force) != 2 || len(reset.Dispersion) != 2 {
		t.Fatalf("reset draws: %d terrain, %d force, %d dispersion; want 12, 2, 2", len(reset.Terrain), len(reset.Force), len(reset.Dispersion))
	}
	draws := append(append(append([]float64{}, reset.Terrain...), reset.Force...), reset.Dispersion...)
	for r := 1; r < len(tb.rows); r++ {
		draws = append(draws, tb.f(t, r, "dispersion0_raw_uniform"), tb.f(t, r, "dispersion1_raw_uniform"))
	}
	env := NewLunarLander(LunarLanderParams{})
	next := 0
	env.Draws = func(lo, hi float64) float64 {
		if next >= len(draws) {
			t.Fatalf("draw %d requested; only %d recorded", next, len(draws))
		}
		v := draws[next]
		next++
		if v < lo || v > hi {
			t.Fatalf("recorded draw %g outside the requested [%g, %g]: draws out of order", v, lo, hi)
		}
		return v
	}
	body := []string{"body_x", "body_y", "body_vx", "body_vy", "body_angle", "body_angvel"}
	obs := []string{"obs_x", "obs_y", "obs_vx", "obs_vy", "obs_angle", "obs_angvel", "obs_leg1", "obs_leg2"}
	compare := func(r int, o []float64) {
		st := env.State()
		for i, c := range body {
			if want := tb.f(t, r, c); math.Abs(st[i]-want) > 1e-4 {
				t.Errorf("row %d: %s = %.9g, want %.9g", r, c, st[i], want)
			}
		}
		for i, c := range obs {
			if want := tb.f(t, r, c); math.Abs(o[i]-want) > 1e-4 {
				t.Errorf("row %d: %s = %.9g, want %.9g", r, c, o[i], want)
			}
		}
	}
	o, err := env.Reset(rand.NewPCG(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	if next != 16 {
		t.Fatalf("reset made %d draws, want 16 (12 terrain, 2 force, 2 dispersion)", next)
	}
	compare(0, o)
	for r := 1; r <= 10 && r < len(tb.rows); r++ {
		res, err := env.Step(int(tb.f(t, r, "action")))
		if err != nil {
			t.Fatal(err)
		}
		compare(r, res.Obs)
		if want := tb.f(t, r, "reward"); math.Abs(res.Reward-want) > 1e-2 {
			t.Errorf("row %d: reward %.6g, want %.6g", r, res.Reward, want)
		}
		if res.Terminated != tb.flag(t, r, "terminated") || res.Truncated != tb.flag(t, r, "truncated") {
			t.Errorf("row %d: flags differ", r)
		}
	}
}

// TestLunarLanderHeuristicLands is the statistical check: Gymnasium's heuristic controller averages more
// than 200 over 20 seeds (Gymnasium scores 245–297 on seeds 0–4).
func TestLunarLanderHeuristicLands(t *testing.T) {
	total, landed := 0.0, 0
	for seed := range 20 {
		env := must(Make("lunarlander"))
		o, err := env.Reset(rand.NewPCG(uint64(seed), 42))
		if err != nil {
			t.Fatal(err)
		}
		ret := 0.0
		for {
			r, err := env.Step(LunarLanderHeuristic(o))
			if err != nil {
				t.Fatal(err)
			}
			ret += r.Reward
			o = r.Obs
			if r.Terminated || r.Truncated {
				if r.Terminated && r.Reward == 100 {
					landed++
				}
				break
			}
		}
		total += ret
	}
	if mean := total / 20; mean <= 200 {
		t.Errorf("heuristic mean return %.1f over 20 seeds (%d landed), want > 200", mean, landed)
	} else {
		t.Logf("heuristic mean return %.1f over 20 seeds, %d came to rest", mean, landed)
	}
}
