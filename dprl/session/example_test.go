package session_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/dprl-project/dprl/dprl/session"
	"github.com/dprl-project/dprl/mechanisms"
	"github.com/dprl-project/dprl/trajectory"
)

// Three one-step trajectories in the project's CSV format.
const tiny = `trajectory,expert,t,obs_0,action,reward,next_obs_0,terminated,truncated,prob
0,0,0,0,1,1,1,1,0,0.5
1,0,0,0,0,0,0,1,0,0.5
2,0,0,1,1,1,2,1,0,0.5
`

// A data owner grants a file a budget of ε = 1 once; every release is then charged before its noise is
// drawn, and the one that would overspend is refused. The store (here a temporary folder) keeps the ledger
// across processes: a restarted program opening the same file continues from what was spent.
func ExampleInit() {
	dir, _ := os.MkdirTemp("", "dprl-example")
	defer os.RemoveAll(dir)
	data := filepath.Join(dir, "trajectories.csv")
	os.WriteFile(data, []byte(tiny), 0o600)
	cfg := session.Config{Data: data, Store: filepath.Join(dir, "budgets"), Src: rand.NewPCG(1, 2)}

	if _, err := session.Init(cfg, session.Total{Epsilon: 1, Delta: 1e-5}); err != nil {
		fmt.Println(err)
		return
	}
	s, err := session.Open(cfg) // e.g. in another process, later
	if err != nil {
		fmt.Println(err)
		return
	}
	mean := session.Charge{Mechanism: "noisy mean reward", Epsilon: 0.6}
	for range 2 {
		err := s.Release(mean, func(d *trajectory.Dataset, src rand.Source) error {
			sum := 0.0
			for _, tr := range d.Trajectories {
				sum += min(max(tr.Steps[0].Reward, 0), 1) // in [0, 1]: the mean moves by ≤ 1/3 when one trajectory is replaced
			}
			lap, err := mechanisms.NewLaplace(mean.Epsilon, 1.0/3, src)
			if err != nil {
				return err
			}
			fmt.Printf("released %.3f\n", lap.Release(sum/3))
			return nil
		})
		fmt.Println(err)
	}
	l, _ := s.Ledger()
	fmt.Println(l.Status())
	// Output:
	// released 0.958
	// <nil>
	// session: privacy budget exhausted for dataset sha256:98b5eb87f696…: noisy mean reward asks (ε = 0.6, δ = 0); the budget is (ε = 1, δ = 1e-05) by basic composition, spent (ε = 0.6, δ = 0) in 1 release, left (ε = 0.4, δ = 1e-05). Nothing was released.
	// spent (ε = 0.6, δ = 0) in 1 release, left (ε = 0.4, δ = 1e-05)
}

// How many releases of one kind fit a budget under each filter, computed without spending: the Rényi
// filter admits four times as many (0.01, 1e−9)-releases as basic composition, but none of size
// (1, 1e−6), which basic composition admits once.
func ExampleTotal_Capacity() {
	for _, c := range []session.Charge{
		{Mechanism: "small", Epsilon: 0.01, Delta: 1e-9},
		{Mechanism: "large", Epsilon: 1, Delta: 1e-6},
	} {
		basic, _ := session.Total{Epsilon: 1, Delta: 1e-5, Filter: session.Basic}.Capacity(c, 1e6)
		renyi, _ := session.Total{Epsilon: 1, Delta: 1e-5, Filter: session.Renyi}.Capacity(c, 1e6)
		fmt.Printf("%s (ε = %g, δ = %g): basic %d, Rényi %d\n", c.Mechanism, c.Epsilon, c.Delta, basic, renyi)
	}
	// Output:
	// small (ε = 0.01, δ = 1e-09): basic 100, Rényi 414
	// large (ε = 1, δ = 1e-06): basic 1, Rényi 0
}
