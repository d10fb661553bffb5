package envs

import (
	"math/rand/v2"
	"testing"
)

// TestBalleEpisodes: Episodes records Collect's trajectories, state by state and reward by reward, for
// the same source; a negative n or a nil source is refused.
func TestBalleEpisodes(t *testing.T) {
	b := NewBalleEvaluation()
	for seed := range uint64(3) {
		d, err := b.Collect(300, rand.NewPCG(seed, 9))
		if err != nil {
			t.Fatal(err)
		}
		states, rewards, err := b.Episodes(300, rand.NewPCG(seed, 9))
		if err != nil || len(states) != 300 || len(rewards) != 300 {
			t.Fatalf("seed %d: %d episodes, %v", seed, len(states), err)
		}
		for i, tr := range d.Trajectories {
			if len(tr.Steps) != len(states[i]) || len(tr.Steps) != len(rewards[i]) {
				t.Fatalf("seed %d, episode %d: %d steps, Episodes %d", seed, i, len(tr.Steps), len(states[i]))
			}
			for k, st := range tr.Steps {
				if int(st.Obs[0]) != states[i][k] || st.Reward != rewards[i][k] {
					t.Fatalf("seed %d, episode %d, step %d: (%v, %v), Episodes (%d, %v)", seed, i, k, st.Obs[0], st.Reward, states[i][k], rewards[i][k])
				}
			}
		}
	}
	if _, _, err := b.Episodes(-1, rand.NewPCG(1, 1)); err == nil {
		t.Error("n = −1 accepted")
	}
	if _, _, err := b.Episodes(1, nil); err == nil {
		t.Error("nil source accepted")
	}
}
