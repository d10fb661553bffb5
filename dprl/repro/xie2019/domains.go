package xie2019

import (
	"github.com/dprl-project/dprl/envs"
	"github.com/dprl-project/dprl/trajectory"
)

// MountainCarEnergy is a deterministic "decent" Mountain Car policy: push in the direction of the velocity
// (pumping energy), left when at rest. It reached the goal in 86–191 steps from 200 random starts, inside the
// 200-step limit. It stands in
// for the Q-learning policy Xie et al. evaluate, whose parameters the paper does not give.
func MountainCarEnergy() trajectory.Policy {
	return &envs.Greedy{N: 3, Q: func(dst, obs []float64) []float64 {
		clear(dst)
		if obs[1] > 0 {
			dst[2] = 1
		} else {
			dst[0] = 1
		}
		return dst
	}}
}

// HIVThreshold is a deterministic HIV treatment policy standing in for Xie et al.'s Q-learning policy: give
// both drugs while log10 V > 4, only the RTI while 2 < log10 V ≤ 4, nothing below.
func HIVThreshold() trajectory.Policy {
	return &envs.Greedy{N: 4, Q: func(dst, obs []float64) []float64 {
		clear(dst)
		switch v := obs[4]; {
		case v > 4:
			dst[3] = 1
		case v > 2:
			dst[1] = 1
		default:
			dst[0] = 1
		}
		return dst
	}}
}

// Explore mixes a deterministic policy with uniform actions: the greedy action gets 1 − (|A|−1)·p and the
// others p each (a behaviour policy that covers every action, so importance ratios exist).
func Explore(p trajectory.Policy, pEach float64) trajectory.Policy {
	return envs.MixMin{Base: p, PMin: pEach}
}
