package wanghegde2019

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/dprl-project/dprl/dprl/experiment"
	"github.com/dprl-project/dprl/dprl/fnq"
	"github.com/dprl-project/dprl/dprl/repro"
	"github.com/dprl-project/dprl/envs"
)

func experimentTable() experiment.Table { return experiment.Table{Columns: RunColumns} }

func TestReturnCurves(t *testing.T) {
	dqn := Setting{Name: "DQN", Run: func(env envs.Env, src rand.Source) (*fnq.Result, error) {
		return fnq.Run(env, fnq.Config{Episodes: 3, Src: src})
	}}
	noisy := Setting{Name: "noisy", Run: func(env envs.Env, src rand.Source) (*fnq.Result, error) {
		return fnq.Run(env, fnq.Config{Episodes: 3, Method: fnq.FunctionalNoise, Sigma: 0.5, Src: src})
	}}
	a, err := ReturnCurves([]Setting{dqn, noisy}, 3, 9, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(a) != 2 || len(a[0]) != 3 || len(a[1][2]) != 3 {
		t.Fatalf("shape %d × %d × %d", len(a), len(a[0]), len(a[1][2]))
	}
	one, _ := fnq.Run(must(envs.Make("wanghegde")), fnq.Config{Episodes: 3, Src: rand.NewPCG(9, 2)})
	if !reflect.DeepEqual(one.Returns, a[0][2]) {
		t.Error("seed 2 of the first setting is not rand.NewPCG(9, 2)'s run")
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestRuns: a Runs table gives each setting's returns by seed and counts its diverged runs; a table out of
// order or missing a seed is an error.
func TestRuns(t *testing.T) {
	r := &Runs{Table: experimentTable(), Seeds: repro.FirstRunSeeds(1, 2), Settings: []Setting{{Name: "a"}, {Name: "b"}}}
	r.add("a", 0, []float64{1, 2}, "0")
	r.add("a", 1, []float64{3, 4}, "1")
	r.add("b", 1, []float64{5}, "")
	got, err := r.Returns("a")
	if err != nil || !reflect.DeepEqual(got, [][]float64{{1, 2}, {3, 4}}) {
		t.Errorf("a: %v %v", got, err)
	}
	if n, of, rec := r.Diverged("a"); n != 1 || of != 2 || !rec {
		t.Errorf("a diverged %d of %d, recorded %v", n, of, rec)
	}
	if _, _, rec := r.Diverged("b"); rec {
		t.Error("b's divergence reported as recorded")
	}
	if _, err := r.Returns("b"); err == nil || !strings.Contains(err.Error(), "no run of seed 0") {
		t.Errorf("b lacks seed 0: %v", err)
	}
	if _, err := r.Setting("c"); err == nil {
		t.Error("setting c found")
	}
	s := r.subset("a")
	if len(s.Settings) != 1 || len(s.Table.Rows) != 4 {
		t.Errorf("subset: %d settings, %d rows", len(s.Settings), len(s.Table.Rows))
	}
	r.Table.Rows[1][2] = "3"
	if _, err := r.Returns("a"); err == nil || !strings.Contains(err.Error(), "out of order") {
		t.Errorf("episode out of order: %v", err)
	}
}
