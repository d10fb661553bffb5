package report

import (
	"sync"
	"testing"
	"time"
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

func TestFormatDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		350 * time.Millisecond:   "0.35 s",
		12400 * time.Millisecond: "12.4 s",
		65 * time.Second:         "1m05s",
		7620 * time.Second:       "2h07m",
	} {
		if got := FormatDuration(d); got != want {
			t.Errorf("FormatDuration(%v) = %q, want %q", d, got, want)
		}
	}
}
