package wanghegde2019

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/dprl-project/dprl/dprl/fnq"
	"github.com/dprl-project/dprl/envs"
)

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
