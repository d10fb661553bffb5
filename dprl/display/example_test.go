package display_test

import (
	"fmt"
	"time"

	"github.com/dprl-project/dprl/dprl/display"
)

// Outside a notebook a table prints as aligned text.
func ExampleTableText() {
	fmt.Print(display.TableText([]string{"ε", "σ", "method"}, [][]string{
		{"0.5", "7.03", "analytic"},
		{"0.5", "9.69", "classic"},
		{"1", "3.73", "analytic"},
	}))
	// Output:
	// ε    σ     method
	// -------------------
	// 0.5  7.03  analytic
	// 0.5  9.69  classic
	// 1    3.73  analytic
}

// The status line of a progress bar while running and when finished.
func ExampleProgressText() {
	fmt.Println(display.ProgressText("trials", 30, 120, 2*time.Second, false))
	fmt.Println(display.ProgressText("trials", 120, 120, 8100*time.Millisecond, true))
	fmt.Println(display.ProgressText("steps", 7, 0, time.Second, false)) // unknown total: no ETA
	// Output:
	// trials 30/120 (25%) · 2.0 s elapsed · ETA 6.0 s
	// trials 120/120 · done in 8.1 s
	// steps 7 · 1.0 s elapsed
}
