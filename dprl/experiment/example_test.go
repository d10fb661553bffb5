package experiment_test

import (
	"fmt"
	"math/rand/v2"
	"os"

	"github.com/dprl-project/dprl/dprl/experiment"
)

// Trial i draws from rand.NewPCG(seed, i), so the results do not depend on the number of workers.
func ExampleTrials() {
	trial := func(i int, src rand.Source) (float64, error) {
		return rand.New(src).NormFloat64(), nil
	}
	one, _ := experiment.Trials(4, 1, 7, nil, trial)
	many, _ := experiment.Trials(4, 4, 7, nil, trial)
	fmt.Printf("%.3f\n%.3f\n", one, many)
	// A failing trial is reported with the stream that reproduces it.
	_, err := experiment.Trials(4, 2, 7, nil, func(i int, src rand.Source) (float64, error) {
		if i == 2 {
			return 0, fmt.Errorf("diverged")
		}
		return 0, nil
	})
	fmt.Println(err)
	// Output:
	// [1.033 0.498 0.334 2.728]
	// [1.033 0.498 0.334 2.728]
	// experiment: trial 2 (seed 7, stream rand.NewPCG(7, 2)) diverged
}

// A tidy table, one row per observation, written as CSV.
func ExampleTable_WriteCSV() {
	t := experiment.Table{Columns: []string{"method", "epsilon", "sigma"}}
	t.Add("analytic", 0.5, 7.032)
	t.Add("classic", 0.5, 9.69)
	if err := t.WriteCSV(os.Stdout); err != nil {
		fmt.Println(err)
	}
	// Output:
	// method,epsilon,sigma
	// analytic,0.5,7.032
	// classic,0.5,9.69
}
