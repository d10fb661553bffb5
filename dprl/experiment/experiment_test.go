package experiment

import (
	"fmt"
	"os"
	"testing"
)

func TestSize(t *testing.T) {
	for v, want := range map[string]int{"": 100, "0": 100, "1": 3, "yes": 3} {
		t.Setenv(QuickEnv, v)
		if got := Size(100, 3); got != want {
			t.Errorf("%s=%q: Size(100, 3) = %d, want %d", QuickEnv, v, got, want)
		}
	}
}

func ExampleSize() {
	os.Setenv(QuickEnv, "1") // what make test sets for the notebooks
	fmt.Println(Size(100, 5), "trials in quick mode")
	os.Setenv(QuickEnv, "0")
	fmt.Println(Size(100, 5), "trials at the default size")
	os.Unsetenv(QuickEnv)
	// Output:
	// 5 trials in quick mode
	// 100 trials at the default size
}
