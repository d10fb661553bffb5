package report_test

import (
	"fmt"
	"time"

	"github.com/dprl-project/dprl/dprl/report"
)

// meanReport is an analysis written against a Sink: it shows a sentence and a table and reports progress.
func meanReport(out report.Sink, xs []float64) error {
	bar := out.Bar("summing", len(xs))
	s := 0.0
	for _, x := range xs {
		s += x
		bar.Add(1)
	}
	bar.Done()
	out.Markdown(fmt.Sprintf("The mean of %d numbers:", len(xs)))
	out.Table([]string{"mean"}, [][]string{{fmt.Sprint(s / float64(len(xs)))}})
	return nil
}

// A Recorder keeps what an analysis shows, so a test can check it; a notebook passes display.Default instead.
func ExampleRecorder() {
	var r report.Recorder
	if err := meanReport(&r, []float64{1, 2, 3, 4}); err != nil {
		fmt.Println(err)
	}
	fmt.Println(r.Items[0].Markdown)
	fmt.Println(r.Items[1].Rows[0][0], r.Tables(), r.Figures(), r.Units)
	// Output:
	// The mean of 4 numbers:
	// 2.5 1 0 4
}

// Durations for people.
func ExampleFormatDuration() {
	for _, d := range []time.Duration{350 * time.Millisecond, 12400 * time.Millisecond, 185 * time.Second, 127 * time.Minute} {
		fmt.Println(report.FormatDuration(d))
	}
	// Output:
	// 0.35 s
	// 12.4 s
	// 3m05s
	// 2h07m
}
