package repro

import (
	"gonum.org/v1/plot"

	"github.com/dprl-project/dprl/dprl/report"
)

// Figure is one plot of a reproduction and the note shown under it: what the bands are, which seeds and
// where the runs come from, and the diverged runs per curve or point. A reproduction's figure functions
// return Figures read from data and run nothing; the notebook shows them (Show).
type Figure struct {
	Plot *plot.Plot
	Note string
}

// Show sends the plot and its note to out.
func (f Figure) Show(out report.Sink) error {
	if err := out.Figure(f.Plot); err != nil {
		return err
	}
	out.Markdown(f.Note)
	return nil
}
