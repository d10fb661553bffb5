package experiment

import "testing"

func TestSize(t *testing.T) {
	for v, want := range map[string]int{"": 100, "0": 100, "1": 3, "yes": 3} {
		t.Setenv(QuickEnv, v)
		if got := Size(100, 3); got != want {
			t.Errorf("%s=%q: Size(100, 3) = %d, want %d", QuickEnv, v, got, want)
		}
	}
}

func ExampleSize() {
	trials := Size(100, 5) // 100 trials by default, 5 with DPRL_QUICK=1
	_ = trials
}
