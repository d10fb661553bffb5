package trajectory

// Policy is a stochastic policy over a finite action set that reports its action probabilities: a step's
// Prob is the behaviour policy's π(a|obs), and off-policy estimators divide the target policy's by it
// (importance ratios π(a|s)/b(a|s)). Package envs implements it (tables, ε-greedy, softmax, mixtures).
type Policy interface {
	// NumActions is the size of the action set.
	NumActions() int
	// Probs writes π(·|obs) into dst (len NumActions) and returns it.
	Probs(dst, obs []float64) []float64
}

// Features maps an observation to a feature vector, the form in which linear estimators read a trajectory.
// Package envs implements it (one-hot, Fourier basis).
type Features interface {
	// Dim is the number of features.
	Dim() int
	// Into writes the features of obs into dst (len Dim()) and returns it; no allocation.
	Into(dst, obs []float64) []float64
}
