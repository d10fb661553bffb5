package wanghegde2019

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dprl-project/dprl/dprl/figure"
	"github.com/dprl-project/dprl/dprl/repro"
)

// Figure is one plot and the note shown under it: what the bands are, which seeds, where the runs come
// from and the diverged runs per curve. The functions that make figures read data (Runs, Curves, Choice) and
// run nothing.
type Figure = repro.Figure

// LearningCurves draws the named settings of r as episode returns against samples (50 per episode), the mean
// over seeds with a 95% confidence band (Student t), legends with each setting's privacy label; the note
// says which seeds, where the runs come from, and how many runs of each curve diverged.
func LearningCurves(r *Runs, title string, settings ...string) (Figure, error) {
	var series []figure.Series
	for _, name := range settings {
		s, err := r.Setting(name)
		if err != nil {
			return Figure{}, err
		}
		runs, err := r.Returns(name)
		if err != nil {
			return Figure{}, err
		}
		xs := make([]float64, len(runs[0]))
		for k := range xs {
			xs[k] = float64(50 * (k + 1))
		}
		series = append(series, figure.Series{Name: s.Legend(), X: xs, Y: runs})
	}
	p, err := figure.Curves(figure.Options{Title: title, XLabel: "training samples", YLabel: "episode return", LegendBottom: true, Band: figure.BandCI95}, series...)
	if err != nil {
		return Figure{}, err
	}
	return Figure{Plot: p, Note: seedCaption(r.Seeds) + " Runs: " + r.Source + ". " + divergedNote(r, settings...)}, nil
}

// seedCaption lists the seeds behind a figure.
func seedCaption(s repro.RunSeeds) string {
	return fmt.Sprintf("Mean over %d seeds with its 95%% confidence band (Student t); seed s %s runs every setting from rand.NewPCG(%d, s).",
		len(s.Seeds), repro.SeedRange(s.Seeds), s.Base)
}

// divergedNote counts, per curve, the runs whose network diverged (a parameter not finite at the end; the
// runs' returns are kept in the mean).
func divergedNote(r *Runs, settings ...string) string {
	var parts, unknown []string
	runs := 0
	for _, name := range settings {
		n, of, recorded := r.Diverged(name)
		runs = max(runs, of)
		switch {
		case !recorded:
			unknown = append(unknown, name)
		case n > 0:
			parts = append(parts, fmt.Sprintf("%s: %d of %d", name, n, of))
		}
	}
	note := "Diverged runs (a network parameter not finite at the end; their returns are kept): "
	if len(parts) == 0 {
		note += fmt.Sprintf("none, on every curve (%d runs each)", runs)
	} else {
		note += strings.Join(parts, "; ")
	}
	if len(unknown) > 0 {
		note += "; not recorded by the sweep for " + strings.Join(unknown, ", ")
	}
	return note + "."
}

// constant is a reference line at y over x (one trial, no band).
func constant(name string, x []float64, y float64) figure.Series {
	row := make([]float64, len(x))
	for i := range row {
		row[i] = y
	}
	return figure.Series{Name: name, X: x, Y: [][]float64{row}}
}

// joinOr joins parts with "; ", or is none when there are none.
func joinOr(parts []string, none string) string {
	if len(parts) == 0 {
		return none
	}
	return strings.Join(parts, "; ")
}

// Fig1a is Fig. 1(a): the code configuration with a fresh path every episode (J = 100) for every σ of
// Fig1Sigmas, beside the random policy.
func Fig1a(c *Curves) (Figure, error) {
	var s []string
	for _, sigma := range Fig1Sigmas {
		s = append(s, SigmaName(sigma))
	}
	return LearningCurves(c.Fig1, "Fig. 1(a): code configuration, paths reset every episode (J = 100)", append(s, RandomName)...)
}

// Fig1b is Fig. 1(b): σ = 0.4 with paths reset every 1 or 10 episodes or never, beside the non-private DQN
// and the random policy.
func Fig1b(c *Curves) (Figure, error) {
	return LearningCurves(c.Fig1, "Fig. 1(b): code configuration, σ = 0.4, paths reset every 1 or 10 episodes or never",
		SigmaName(0.4), J10Name, NeverName, NonPrivateName, RandomName)
}

// ReturnTable lists, for the named settings of r, the privacy label and the first- and last-fifth mean
// returns with their 95% intervals.
func ReturnTable(r *Runs, settings ...string) (header []string, rows [][]string, err error) {
	for _, name := range settings {
		s, err := r.Setting(name)
		if err != nil {
			return nil, nil, err
		}
		runs, err := r.Returns(name)
		if err != nil {
			return nil, nil, err
		}
		rows = append(rows, []string{name, s.Privacy.Label(), ci(firstFifth(runs)), ci(lastFifth(runs))})
	}
	return []string{"setting", "privacy", "mean return, first fifth [95% CI]", "last fifth [95% CI]"}, rows, nil
}

// Fig1Table is ReturnTable for every setting of Fig. 1.
func Fig1Table(c *Curves) ([]string, [][]string, error) {
	return ReturnTable(c.Fig1, names(c.Fig1.Settings)...)
}

// panel is the Fig2Panel of eps.
func (c *Curves) panel(eps float64) (Fig2Panel, error) {
	i := slices.IndexFunc(c.Panels, func(p Fig2Panel) bool { return p.Epsilon == eps })
	if i < 0 {
		return Fig2Panel{}, fmt.Errorf("wanghegde2019: no Fig. 2 panel at ε = %g (the panels are at %v)", eps, Fig2Epsilons)
	}
	return c.Panels[i], nil
}

// nonEmpty drops the empty names.
func nonEmpty(names ...string) []string {
	return slices.DeleteFunc(names, func(s string) bool { return s == "" })
}

// Fig2 is Fig. 2's panel at eps, in two figures: (1) as the caption says, "same configurations as Figure 1":
// functional noise in the code configuration (no guarantee), input perturbation and DP-SGD in the same
// DQN, BGP16 (no guarantee), the non-private DQN and the random policy; (2) Algorithm 1 with a guarantee
// (the corrected calibration in the chosen configuration and in the worked setting (ours)), each beside its
// run without noise, and Theorem 5 as printed (no guarantee), with the random policy. The runner-up's runs
// are in Fig2Table.
func Fig2(c *Curves, eps float64) ([]Figure, error) {
	p, err := c.panel(eps)
	if err != nil {
		return nil, err
	}
	a, err := LearningCurves(c.Fig2, fmt.Sprintf("Fig. 2, ε = %g, δ = 1e−4: the paper's learners (the caption: same configurations as Fig. 1)", eps),
		p.Code, p.Input, p.DPSGD, p.BGP16, p.NonPrivate, p.Random)
	if err != nil {
		return nil, err
	}
	b, err := LearningCurves(c.Fig2, fmt.Sprintf("Fig. 2, ε = %g, δ = 1e−4: Algorithm 1, corrected and as printed", eps),
		p.Ours, p.OursNoiseless, p.Worked, p.WorkedNoiseless, p.Printed, p.Random)
	if err != nil {
		return nil, err
	}
	return []Figure{a, b}, nil
}

// Fig2Table is ReturnTable for every learner of Fig. 2's panel at eps.
func Fig2Table(c *Curves, eps float64) ([]string, [][]string, error) {
	p, err := c.panel(eps)
	if err != nil {
		return nil, nil, err
	}
	return ReturnTable(c.Fig2, nonEmpty(p.Code, p.Input, p.DPSGD, p.BGP16, p.Ours, p.RunnerUp, p.Worked, p.Printed,
		p.OursNoiseless, p.RunnerUpNoiseless, p.WorkedNoiseless, p.NonPrivate, p.Random)...)
}

// Fig2Privacy is PrivacyTable for every learner of Fig. 2's panel at eps.
func Fig2Privacy(c *Curves, eps float64) ([]string, [][]string, error) {
	p, err := c.panel(eps)
	if err != nil {
		return nil, nil, err
	}
	var settings []Setting
	for _, name := range nonEmpty(p.Code, p.Input, p.DPSGD, p.BGP16, p.Ours, p.RunnerUp, p.Worked, p.Printed,
		p.OursNoiseless, p.RunnerUpNoiseless, p.WorkedNoiseless, p.NonPrivate, p.Random) {
		s, err := c.Fig2.Setting(name)
		if err != nil {
			return nil, nil, err
		}
		settings = append(settings, s)
	}
	h, rows := PrivacyTable(settings)
	return h, rows, nil
}

// EpsilonSweep draws the last-fifth return of the corrected Algorithm 1 in the chosen configuration against
// ε (where a guarantee is possible), beside its run without noise and the random policy; the note lists the
// ε without a guarantee, the seeds and the diverged runs.
func EpsilonSweep(c *Curves) (Figure, error) {
	var xs []float64
	var names, missing []string
	for _, pt := range c.Sweep {
		if pt.Name == "" {
			missing = append(missing, fmt.Sprintf("ε = %g (%s)", pt.Epsilon, pt.Why))
			continue
		}
		xs, names = append(xs, pt.Epsilon), append(names, pt.Name)
	}
	if len(xs) == 0 {
		return Figure{}, fmt.Errorf("wanghegde2019: the chosen configuration has no guarantee at any ε of %v", ReturnEpsilons)
	}
	y := make([][]float64, len(c.Fig2.Seeds.Seeds))
	for _, name := range names {
		runs, err := c.Fig2.Returns(name)
		if err != nil {
			return Figure{}, err
		}
		for s, v := range lastFifth(runs) {
			y[s] = append(y[s], v)
		}
	}
	flat := func(name string) (figure.Series, error) {
		s, err := c.Fig2.Setting(name)
		if err != nil {
			return figure.Series{}, err
		}
		runs, err := c.Fig2.Returns(name)
		if err != nil {
			return figure.Series{}, err
		}
		rows := make([][]float64, len(runs))
		for i, v := range lastFifth(runs) {
			rows[i] = make([]float64, len(xs))
			for j := range rows[i] {
				rows[i][j] = v
			}
		}
		return figure.Series{Name: s.Legend(), X: xs, Y: rows}, nil
	}
	p := c.Panels[0]
	series := []figure.Series{{Name: fmt.Sprintf("Alg. 1 corrected (%s) [ε on the axis]", c.Choice.Arms[c.Choice.Chosen].Config), X: xs, Y: y}}
	for _, name := range []string{p.OursNoiseless, p.Random} {
		s, err := flat(name)
		if err != nil {
			return Figure{}, err
		}
		series = append(series, s)
	}
	plt, err := figure.Curves(figure.Options{Title: "Corrected Algorithm 1: last-fifth return against ε (δ = 1e−4)", XLabel: "ε", YLabel: "mean return, last fifth",
		Band: figure.BandCI95, LegendBottom: true}, series...)
	if err != nil {
		return Figure{}, err
	}
	note := seedCaption(c.Fig2.Seeds) + " " + divergedNote(c.Fig2, append(names, p.OursNoiseless)...)
	if len(missing) > 0 {
		note += " No guarantee possible in this configuration at " + strings.Join(missing, "; ") + "."
	}
	return Figure{Plot: plt, Note: note}, nil
}
