package experiment

import (
	"math"
	"testing"
)

func TestGather(t *testing.T) {
	type row struct {
		trial int
		x, y  float64
	}
	rows := []row{{0, 1, 10}, {1, 2, 20}, {1, 1, 11}, {0, 3, 99}, {1, 2, -1}}
	g := Gather(rows, []float64{1, 2}, func(r row) int { return r.trial }, func(r row) float64 { return r.x },
		func(r row) (float64, bool) { return r.y, r.y >= 0 })
	if len(g) != 2 || g[0][0] != 10 || !math.IsNaN(g[0][1]) || g[1][0] != 11 || g[1][1] != 20 {
		t.Errorf("Gather = %v", g)
	}
}
