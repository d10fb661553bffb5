package report

import (
	"sync"
	"testing"
)

// TestRecorderBarsAreSafe: units added from many goroutines are all counted (run with -race to see why).
func TestRecorderBarsAreSafe(t *testing.T) {
	var r Recorder
	bar := r.Bar("work", 8000)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 1000 {
				bar.Add(1)
			}
		}()
	}
	wg.Wait()
	bar.Done()
	if r.Units != 8000 {
		t.Errorf("counted %d units, want 8000", r.Units)
	}
}
