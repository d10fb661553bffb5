package wanghegde2019

import (
	"fmt"
	"strconv"

	"github.com/dprl-project/dprl/dprl/experiment"
	"github.com/dprl-project/dprl/dprl/repro"
)

// RunColumns are the columns of a Runs table: the setting's name, the run's seed s (the run drew from
// rand.NewPCG(Runs.Seeds.Base, s)), the episode (from 1), its return, and whether the run diverged: "1" on
// every row of a run whose network ended with a parameter that is not finite, "0" otherwise, "" where the
// source did not record it.
var RunColumns = []string{"setting", "seed", "episode", "return", "diverged"}

// Runs is the data of a learning-curve figure: every episode return of every run of its settings, as a tidy
// table (RunColumns), with the settings (their names key the table; their privacy labels the curves) and the
// seeds every setting ran. Source says where the runs come from (a run of this package at some size, or a
// merged sweep). The figures and claims read a Runs and run nothing.
type Runs struct {
	Table    experiment.Table
	Settings []Setting
	Seeds    repro.RunSeeds
	Source   string
}

// add appends one run's episodes.
func (r *Runs) add(setting string, seed uint64, returns []float64, diverged string) {
	s := strconv.FormatUint(seed, 10)
	for e, v := range returns {
		r.Table.Rows = append(r.Table.Rows, []string{setting, s, strconv.Itoa(e + 1), strconv.FormatFloat(v, 'g', -1, 64), diverged})
	}
}

// divergedCell is the diverged column's value for a run.
func divergedCell(d bool) string {
	if d {
		return "1"
	}
	return "0"
}

// Setting is the setting of that name.
func (r *Runs) Setting(name string) (Setting, error) {
	for _, s := range r.Settings {
		if s.Name == name {
			return s, nil
		}
	}
	return Setting{}, fmt.Errorf("wanghegde2019: no setting %q in these runs", name)
}

// Returns is the named setting's episode returns as [seed][episode], seeds in the order of r.Seeds. Every
// seed must be there, each with its episodes in order.
func (r *Runs) Returns(name string) ([][]float64, error) {
	if len(r.Table.Columns) < 4 || r.Table.Columns[0] != "setting" || r.Table.Columns[3] != "return" {
		return nil, fmt.Errorf("wanghegde2019: a Runs table has the columns %q, not %q", RunColumns, r.Table.Columns)
	}
	rank := make(map[string]int, len(r.Seeds.Seeds))
	for i, s := range r.Seeds.Seeds {
		rank[strconv.FormatUint(s, 10)] = i
	}
	out := make([][]float64, len(r.Seeds.Seeds))
	for i, row := range r.Table.Rows {
		if row[0] != name {
			continue
		}
		k, ok := rank[row[1]]
		if !ok {
			return nil, fmt.Errorf("wanghegde2019: row %d of %q: seed %s is not one of the runs' seeds", i, name, row[1])
		}
		if ep, err := strconv.Atoi(row[2]); err != nil || ep != len(out[k])+1 {
			return nil, fmt.Errorf("wanghegde2019: row %d of %q: episode %s of seed %s out of order", i, name, row[2], row[1])
		}
		v, err := strconv.ParseFloat(row[3], 64)
		if err != nil {
			return nil, fmt.Errorf("wanghegde2019: row %d of %q: return %q: %w", i, name, row[3], err)
		}
		out[k] = append(out[k], v)
	}
	for k, run := range out {
		if len(run) == 0 {
			return nil, fmt.Errorf("wanghegde2019: setting %q has no run of seed %d", name, r.Seeds.Seeds[k])
		}
	}
	return out, nil
}

// Diverged counts the named setting's runs that diverged, of runs; recorded is false when the source did not
// record divergence for some of them.
func (r *Runs) Diverged(name string) (n, runs int, recorded bool) {
	seen := map[string]string{}
	for _, row := range r.Table.Rows {
		if row[0] == name {
			seen[row[1]] = row[4]
		}
	}
	recorded = true
	for _, d := range seen {
		switch d {
		case "1":
			n++
		case "":
			recorded = false
		}
	}
	return n, len(seen), recorded
}

// lastFifth is each seed's mean return over the last fifth of its episodes.
func lastFifth(runs [][]float64) []float64 {
	out := make([]float64, len(runs))
	for i, r := range runs {
		out[i] = mean(r[len(r)*4/5:])
	}
	return out
}

// firstFifth is each seed's mean return over the first fifth of its episodes.
func firstFifth(runs [][]float64) []float64 {
	out := make([]float64, len(runs))
	for i, r := range runs {
		out[i] = mean(r[:max(1, len(r)/5)])
	}
	return out
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// paired is a·x − b·y seed by seed.
func paired(x []float64, a float64, y []float64, b float64) []float64 {
	out := make([]float64, len(x))
	for i := range x {
		out[i] = a*x[i] - b*y[i]
	}
	return out
}

// interval is the mean of xs with its 95% Student-t interval.
func interval(xs []float64) repro.Interval {
	m, lo, hi := experiment.MeanCI(xs, 0.95)
	return repro.Interval{Mean: m, Low: lo, High: hi}
}

// ci prints the mean of xs with its 95% t interval.
func ci(xs []float64) string {
	i := interval(xs)
	return fmt.Sprintf("%.2f [%.2f, %.2f]", i.Mean, i.Low, i.High)
}
