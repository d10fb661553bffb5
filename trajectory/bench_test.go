package trajectory

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
)

// benchDataset is a synthetic dataset of n steps in trajectories of 200, with 4-dimensional observations
// (CartPole's shape) and full-precision numbers, as an environment writes them.
func benchDataset(n int) *Dataset {
	r := rand.New(rand.NewPCG(1, 2))
	d := &Dataset{ObsDim: 4, NumActions: 2}
	for steps := 0; steps < n; {
		tr := Trajectory{Expert: r.IntN(10)}
		for t := 0; t < 200 && steps < n; t++ {
			obs, next := make([]float64, 4), make([]float64, 4)
			for i := range obs {
				obs[i], next[i] = r.NormFloat64(), r.NormFloat64()
			}
			tr.Steps = append(tr.Steps, Step{Obs: obs, Action: r.IntN(2), Reward: 1, NextObs: next, Prob: 0.5})
			steps++
		}
		d.Trajectories = append(d.Trajectories, tr)
	}
	return d
}

// BenchmarkReadJSON and BenchmarkReadCSV read the same dataset of 10⁴ and 10⁵ steps written by WriteJSON and
// WriteCSV (the issue-31 target: ReadJSON within 3× of ReadCSV).
func BenchmarkReadJSON(b *testing.B) { benchRead(b, true) }
func BenchmarkReadCSV(b *testing.B)  { benchRead(b, false) }

func benchRead(b *testing.B, json bool) {
	for _, n := range []int{10_000, 100_000} {
		var buf bytes.Buffer
		d := benchDataset(n)
		if json {
			if err := d.WriteJSON(&buf); err != nil {
				b.Fatal(err)
			}
		} else if err := d.WriteCSV(&buf); err != nil {
			b.Fatal(err)
		}
		data := buf.Bytes()
		b.Run(fmt.Sprintf("steps=%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				var err error
				if json {
					_, err = ReadJSON(bytes.NewReader(data))
				} else {
					_, err = ReadCSV(bytes.NewReader(data), 2)
				}
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
