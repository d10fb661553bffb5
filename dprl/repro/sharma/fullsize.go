package sharma

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"

	"github.com/dprl-project/dprl/dprl/experiment"
	"github.com/dprl-project/dprl/dprl/expertdp"
	"github.com/dprl-project/dprl/dprl/report"
	"github.com/dprl-project/dprl/dprl/repro"
	"github.com/dprl-project/dprl/dprl/sweep"
)

// Sweeps names the checked-in sweeps (sweeps/specs/<name>.json, experiment sharma/jobs) that stand in for
// the notebook's runs of a figure, by the figure's tag: when one has been merged, Experiments reads that
// figure's runs from it instead of running them, and Fig3 or Fig4 draws the figure, its intervals and its
// claims from those rows.
var Sweeps = []struct{ Tag, Name string }{{"fig3", "sharma-fig3"}, {"fig4", "sharma-fig4"}}

// OutcomesFromSweep reads a merged sharma/jobs table (OutcomeTable's columns without fraction, plus the
// grid's) back as outcomes, Job.Seed being the rank of the task's seed among the table's seeds, for
// Fraction, Fig3Plot, Fig4Plot and Summary. A run the table holds twice (the same setting and seed, e.g. a
// grid with both ours:5 and dpsgd:5 where ours is expert-level DP-SGD) is kept once, the first.
func OutcomesFromSweep(t *experiment.Table) ([]Outcome, error) {
	c, err := sweep.NewReader(t, "seed", "tag", "env", "learner", "method", "epsilon", "eps1", "delta1_frac", "eps2", "delta2_frac", "release_t", "p", "m",
		"stable", "steps", "private_steps", "s", "eps2_spent", "return", "normalized", "accounting", "eps2_exact", "fixed_log_delta", "note")
	if err != nil {
		return nil, err
	}
	seed := c.SeedRanks("seed")
	methods := map[string]Method{}
	for _, m := range []Method{Ours, ExpertDPSGD, NonPrivate} {
		methods[m.String()] = m
	}
	learners := map[string]expertdp.Algorithm{expertdp.CQL.String(): expertdp.CQL, expertdp.BCQ.String(): expertdp.BCQ}
	accountings := map[string]expertdp.Accounting{expertdp.AccountingMixed.String(): expertdp.AccountingMixed, expertdp.AccountingPaper.String(): expertdp.AccountingPaper}
	var out []Outcome
	seen := map[runKey]bool{}
	for r := range c.Len() {
		m, ok := methods[c.String(r, "method")]
		alg, okAlg := learners[c.String(r, "learner")]
		acc, okAcc := accountings[c.String(r, "accounting")]
		switch {
		case !ok:
			return nil, fmt.Errorf("sharma: sweep row %d: method %q is not one of ours, expert-level DP-SGD, non-private", r, c.String(r, "method"))
		case !okAlg:
			return nil, fmt.Errorf("sharma: sweep row %d: learner %q is not CQL or BCQ", r, c.String(r, "learner"))
		case !okAcc:
			return nil, fmt.Errorf("sharma: sweep row %d: accounting %q is not %q or %q", r, c.String(r, "accounting"), expertdp.AccountingMixed, expertdp.AccountingPaper)
		}
		sp := Split{Eps1: c.Float(r, "eps1"), Delta1: c.Float(r, "delta1_frac"), Eps2: c.Float(r, "eps2"), Delta2: c.Float(r, "delta2_frac"), T: c.Int(r, "release_t")}
		job := Job{Tag: c.String(r, "tag"), Env: c.String(r, "env"), Algorithm: alg, Method: m, Epsilon: c.Float(r, "epsilon"), Split: sp, P: c.Float(r, "p"),
			Experts: c.Int(r, "m"), Seed: seed[c.String(r, "seed")], Accounting: acc}
		o := Outcome{Job: job, Stable: c.Int(r, "stable"), Steps: c.Int(r, "steps"), Private: c.Int(r, "private_steps"), S: c.Float(r, "s"),
			Eps2: c.Float(r, "eps2_spent"), Return: c.Float(r, "return"), Normalized: c.Float(r, "normalized"), Note: c.String(r, "note"),
			Eps2Exact: c.Float(r, "eps2_exact"), FixedLogDelta: c.Float(r, "fixed_log_delta")}
		if k := (runKey{o.Setting(), o.Seed}); !seen[k] {
			seen[k] = true
			out = append(out, o)
		}
	}
	return out, c.Err()
}

// sweptRuns are a figure's runs read from a merged sweep, saved by Experiments for the figure's cell.
type sweptRuns struct {
	Source   string // the sweep's Describe(): where the numbers come from
	Outcomes []Outcome
}

func sweptFile(tag string) string { return tempFile("sweep-" + tag + ".json") }

// fullSizeRuns says for each of Sweeps whether its merged result is there (repro.FullSize writes the note)
// and saves the runs of every one that is for its figure's cell, removing what an earlier run of the
// notebook saved for the others; it returns the tags of the figures whose runs the sweeps replace. The
// runs must be comparable as the notebook's are: every private run calibrated with the exact mixture
// accounting, spending at most its nominal ε (ε1 + ε2 exact); a sweep whose runs are not is an error.
func fullSizeRuns(out report.Sink, root string) (map[string]bool, error) {
	swept := map[string]bool{}
	for _, s := range Sweeps {
		if err := os.Remove(sweptFile(s.Tag)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		r, ok, err := repro.FullSize(out, root, s.Name)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		if err := checkExperts(r.Spec); err != nil {
			return nil, fmt.Errorf("%s: %w", r.Describe(), err)
		}
		all, err := OutcomesFromSweep(r.Table)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", r.Describe(), err)
		}
		if len(all) == 0 {
			return nil, fmt.Errorf("sharma: %s has no runs", r.Describe())
		}
		if err := checkComparable(all); err != nil {
			return nil, fmt.Errorf("%s: %w", r.Describe(), err)
		}
		if err := writeJSON(sweptFile(s.Tag), sweptRuns{Source: r.Describe(), Outcomes: all}); err != nil {
			return nil, err
		}
		swept[s.Tag] = true
	}
	return swept, nil
}

// checkExperts checks that every cell of a sharma/jobs spec draws its experts from a setup of NumExperts
// (params.experts_total, whose default that is): the figures, δ = 1/m and the privacy rows read a run on
// all experts (m = 0 in its row) as m = NumExperts.
func checkExperts(s *sweep.Spec) error {
	for cell := range s.Cells() {
		t, err := s.Task(cell * s.Seeds.Len())
		if err != nil {
			return err
		}
		if n, err := t.Params.Int("experts_total", NumExperts, 1, math.MaxInt); err != nil || n != NumExperts {
			return fmt.Errorf("sharma: the sweep's experts_total is %v (%v); the notebook's runs, δ = 1/m and its privacy rows are for %d experts", t.Params["experts_total"], err, NumExperts)
		}
	}
	return nil
}

// checkComparable checks that runs may be compared with each other as the notebook's are: every private run
// calibrated with the exact mixture accounting and spending at most its nominal ε.
func checkComparable(all []Outcome) error {
	for _, o := range all {
		if o.Method == NonPrivate {
			continue
		}
		if o.Accounting != expertdp.AccountingMixed {
			return fmt.Errorf("sharma: run %+v is calibrated with the %v accounting; compared runs use the exact mixture", o.Job, o.Accounting)
		}
		if spent := o.Split.Eps1 + o.Eps2Exact; !(spent <= o.Epsilon*(1+1e-9)) {
			return fmt.Errorf("sharma: run %+v spends ε = %g (ε1 + ε2 exact) above its nominal %g", o.Job, spent, o.Epsilon)
		}
	}
	return nil
}

// loadSwept reads the runs Experiments saved from the merged sweep of the figure tagged tag; ok is false
// when that figure's runs are the notebook's own.
func loadSwept(tag string) (s *sweptRuns, ok bool, err error) {
	b, err := os.ReadFile(sweptFile(tag))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	s = &sweptRuns{}
	if err := json.Unmarshal(b, s); err != nil {
		return nil, false, err
	}
	return s, true, nil
}

// figureRuns are the runs the figure tagged tag is drawn from: the merged sweep's when Experiments read
// one (said on out), else the notebook's own.
func figureRuns(out report.Sink, tag string) ([]Outcome, error) {
	s, ok, err := loadSwept(tag)
	if err != nil {
		return nil, err
	}
	if ok {
		out.Markdown(fmt.Sprintf("**Full size:** this figure, its intervals and its claims come from the %s, not from this notebook's runs.", s.Source))
		return s.Outcomes, nil
	}
	return LoadOutcomes(tempFile("outcomes.json"))
}

// privacyOfRuns is the privacy of every private setting of runs read from a sweep, one row per setting
// (privacyKey) in order of first appearance, from the runs' own noise multipliers and spent ε (the runs of
// a setting must agree: one calibration). The paper's calibration (PaperS) is not computed for them.
func privacyOfRuns(all []Outcome) ([]PrivacyRow, error) {
	var rows []PrivacyRow
	index := map[Setting]int{}
	for _, o := range all {
		if o.Method == NonPrivate {
			continue
		}
		key := privacyKey(o.Job)
		i, ok := index[key]
		if !ok {
			m := NumExperts
			if o.Experts > 0 {
				m = o.Experts
			}
			tc, sp, err := trainConfig(o.Job, m, 128, o.Steps)
			if err != nil {
				return nil, err
			}
			i = len(rows)
			index[key] = i
			rows = append(rows, PrivacyRow{Method: key.Method, Env: key.Env, M: m, Epsilon: o.Epsilon, Split: sp, P: tc.P, Accounting: key.Accounting, PT: o.FixedLogDelta})
		}
		r := &rows[i]
		r.Steps = max(r.Steps, o.Steps)
		if o.Private == 0 {
			continue
		}
		if r.S == 0 {
			r.S, r.Eps2, r.Eps2Exact = o.S, o.Eps2, o.Eps2Exact
		} else if math.Abs(o.S-r.S) > 1e-12*r.S || math.Abs(o.Eps2Exact-r.Eps2Exact) > 1e-9 {
			return nil, fmt.Errorf("sharma: run %+v used s = %g (ε2 exact %g), another run of its setting s = %g (%g)", o.Job, o.S, o.Eps2Exact, r.S, r.Eps2Exact)
		}
	}
	return rows, nil
}
