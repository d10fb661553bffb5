package envs_test

import (
	"fmt"

	"github.com/dprl-project/dprl/envs"
)

// The exact values of Balle et al.'s chain under the policy that stays or advances with probability ½,
// γ = 0.99: a state farther from the goal is worth less.
func ExampleModel_PolicyValue() {
	chain := envs.NewChain(envs.BalleChainParams())
	m := chain.Model()
	pi, _ := envs.ConstantTable(m.NumStates, 0.5, 0.5)
	v, err := m.PolicyValue(pi.P, 0.99)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d states; V(0) = %.3f, V(20) = %.3f, V(38) = %.3f, V(39) = %.0f (absorbing)\n",
		m.NumStates, v[0], v[20], v[38], v[39])
	// Output:
	// 40 states; V(0) = 0.463, V(20) = 0.691, V(38) = 0.990, V(39) = 0 (absorbing)
}

// Make returns a registered environment in its default time limit; an unknown name lists the known ones.
func ExampleMake() {
	env, _ := envs.Make("cartpole")
	fmt.Println(env.Name(), env.NumActions(), env.MaxSteps)
	_, err := envs.Make("cartpol")
	fmt.Println(err)
	// Output:
	// cartpole 2 500
	// envs: name = "cartpol" is not allowed: want one of acrobot, cartpole, chain, hiv, lunarlander, mdp100, mountaincar, taxi, wanghegde
}
