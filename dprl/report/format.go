package report

import (
	"fmt"
	"time"
)

// FormatDuration prints a duration for people, as progress bars and timing notes show it: "0.35 s",
// "12.4 s", "3m05s", "2h07m".
func FormatDuration(d time.Duration) string {
	s := d.Seconds()
	switch {
	case s < 1:
		return fmt.Sprintf("%.2f s", s)
	case s < 60:
		return fmt.Sprintf("%.1f s", s)
	case s < 3600:
		m := int(s) / 60
		return fmt.Sprintf("%dm%02ds", m, int(s)-60*m)
	default:
		h := int(s) / 3600
		return fmt.Sprintf("%dh%02dm", h, (int(s)-3600*h)/60)
	}
}
