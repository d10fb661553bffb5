package seoyang2020

import (
	"fmt"
	"math"
	"strconv"

	"github.com/dprl-project/dprl/dprl/actorcritic"
)

// runSet is one evaluated condition read back from Tables.Runs: its runs in seed order.
type runSet struct {
	setting Setting
	// results have Returns, Lengths, DivergedAt and Releases.
	results []*actorcritic.Result
	// per run and episode: the cosines of Tables.Runs (NaN for the conditions without traces).
	cosU, cosV, avgU, avgV, withoutU, withoutV [][]float64
}

// armKey names an evaluated condition: domain, variant, setting, epsilon (as the table writes them).
type armKey struct{ domain, variant, setting, eps string }

// study is Tables read back for the figures and claims.
type study struct {
	size   Sizes
	arms   map[armKey]*runSet
	chosen map[string]Setting
}

// read parses t's Runs table (rows of one condition by seed, then episode, as Data writes them) and its
// tuning choices.
func read(t *Tables) (*study, error) {
	if t == nil || t.Runs == nil || t.Tuning == nil {
		return nil, check.Missing("tables", "the tables of Data")
	}
	chosen, err := Choose(t.Tuning)
	if err != nil {
		return nil, err
	}
	cols, err := columns(t.Runs, runColumns...)
	if err != nil {
		return nil, err
	}
	s := &study{size: t.Size, arms: map[armKey]*runSet{}, chosen: chosen}
	num := func(row []string, c int) float64 {
		v, e := strconv.ParseFloat(row[cols[c]], 64)
		if e != nil && err == nil {
			err = fmt.Errorf("seoyang2020: runs table, column %s: %q is not a number", runColumns[c], row[cols[c]])
		}
		return v
	}
	for _, row := range t.Runs.Rows {
		k := armKey{row[cols[0]], row[cols[1]], row[cols[2]], row[cols[3]]}
		a := s.arms[k]
		if a == nil {
			a = &runSet{setting: Setting{num(row, 4), num(row, 5)}}
			s.arms[k] = a
		}
		seed := int(num(row, 6))
		if seed == len(a.results) {
			a.results = append(a.results, &actorcritic.Result{DivergedAt: int(num(row, 10)), Releases: int(num(row, 11))})
			for _, p := range []*[][]float64{&a.cosU, &a.cosV, &a.avgU, &a.avgV, &a.withoutU, &a.withoutV} {
				*p = append(*p, nil)
			}
		}
		if seed != len(a.results)-1 {
			return nil, fmt.Errorf("seoyang2020: runs table: %v, seed %d out of order", k, seed)
		}
		r := a.results[seed]
		if ep := int(num(row, 7)); ep != len(r.Returns)+1 {
			return nil, fmt.Errorf("seoyang2020: runs table: %v, seed %d: episode %d out of order", k, seed, ep)
		}
		r.Returns = append(r.Returns, num(row, 8))
		r.Lengths = append(r.Lengths, int(num(row, 9)))
		for i, p := range [][][]float64{a.cosU, a.cosV, a.avgU, a.avgV, a.withoutU, a.withoutV} {
			p[seed] = append(p[seed], num(row, 12+i))
		}
	}
	return s, err
}

// get is the evaluated condition cond on d at setting and nominal ε (NaN: a non-private condition).
func (s *study) get(d Domain, cond, setting string, eps float64) (*runSet, error) {
	if a := s.arms[armKey{d.Name, cond, setting, epsKey(eps)}]; a != nil {
		return a, nil
	}
	return nil, fmt.Errorf("seoyang2020: the tables have no runs of %s on %s (%s, ε = %s)", cond, d.Name, setting, epsKey(eps))
}

// fig2 is condition cond of Fig. 2 on d, tuned (the random policy: Table 2), at ε = 10 per step.
func (s *study) fig2(d Domain, cond string) (*runSet, error) {
	switch cond {
	case NonDP, NonDPOtherSeed:
		return s.get(d, cond, Tuned, math.NaN())
	case Random:
		return s.get(d, cond, Table2, math.NaN())
	}
	return s.get(d, cond, Tuned, d.Base.Epsilon)
}

// table2 is cond at ε = 10 with Table 2's step sizes: its own runs where its tuned choice differs, else the
// tuned runs (the same setting).
func (s *study) table2(d Domain, cond string) (*runSet, error) {
	if s.chosen[d.Name+"/"+cond] == d.Table2() {
		return s.fig2(d, cond)
	}
	eps := d.Base.Epsilon
	if cond == NonDP {
		eps = math.NaN()
	}
	return s.get(d, cond, Table2, eps)
}

// scores is each run's Domain.Score over the last window episodes.
func (a *runSet) scores(d Domain, window int) []float64 {
	out := make([]float64, len(a.results))
	for i, r := range a.results {
		out[i] = d.Score(r.Returns, window)
	}
	return out
}

// diverged counts the runs whose weights overflowed.
func (a *runSet) diverged() int {
	n := 0
	for _, r := range a.results {
		if r.DivergedAt >= 0 {
			n++
		}
	}
	return n
}

// returns are the runs' per-episode returns (rows: runs), for figure.Series.
func (a *runSet) returns() [][]float64 {
	out := make([][]float64, len(a.results))
	for i, r := range a.results {
		out[i] = r.Returns
	}
	return out
}

// stds is each run's ReturnStd.
func (a *runSet) stds() []float64 {
	out := make([]float64, len(a.results))
	for i, r := range a.results {
		out[i] = ReturnStd(r.Returns)
	}
	return out
}
