package envs_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/dprl-project/dprl/envs"
)

// Run one episode of Balle et al.'s chain under the policy that stays or advances with probability ½, and
// compare the first-visit return of its start state with the exact value.
func ExampleCollect() {
	env, _ := envs.Make("chain")
	pol, _ := envs.ConstantTable(40, 0.5, 0.5)
	trajs, _ := envs.Collect(env, pol, 1, rand.NewPCG(1, 2), 0)
	tr := trajs[0]
	last := tr.Steps[len(tr.Steps)-1]
	fmt.Printf("start %v, %d steps, terminated %v\n", tr.Steps[0].Obs[0], len(tr.Steps), last.Terminated)

	v, _ := envs.NewChain(envs.BalleChainParams()).Model().PolicyValue(pol.P, 0.99)
	fmt.Printf("exact V(38) = %.4f\n", v[38])
	// Output:
	// start 25, 19 steps, terminated true
	// exact V(38) = 0.9901
}

// Taxi's deterministic transition: picking the passenger up at R.
func ExampleTaxiTransition() {
	s := envs.TaxiEncode(0, 0, 0, 2) // taxi at R, passenger at R, destination Y
	next, r, _ := envs.TaxiTransition(s, 4)
	row, col, pass, dest := envs.TaxiDecode(next)
	fmt.Println(row, col, pass, dest, r)
	// Output: 0 0 4 2 -1
}

// Balle et al.'s evaluation problem: the exact value of the state next to the goal (½ of reaching it now,
// ½ of staying: V = 0.5/(1 − 0.99·½) ≈ 0.9901) and a sample of trajectories to estimate it from.
func ExampleBalleEvaluation() {
	b := envs.NewBalleEvaluation()
	d, err := b.Collect(100, rand.NewPCG(1, 2))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("γ = %g, V(38) = %.4f; %d trajectories, %d steps\n", b.Gamma, b.V[38], len(d.Trajectories), d.NumSteps())
	// Output: γ = 0.99, V(38) = 0.9901; 100 trajectories, 4293 steps
}
