package sharma

import (
	"fmt"
	"math"

	"github.com/dprl-project/dprl/dprl/experiment"
	"github.com/dprl-project/dprl/dprl/expertdp"
	"github.com/dprl-project/dprl/dprl/sweep"
)

// OutcomesFromSweep reads a merged sharma/jobs table (OutcomeTable's columns, a task's seed in column
// seed) back as outcomes, Job.Seed being the rank of the task's seed among the table's seeds. A run the
// table holds twice (the same setting and seed) is kept once, the first.
func OutcomesFromSweep(t *experiment.Table) ([]Outcome, error) { return readOutcomes(t, true) }

// checkExperts checks that every cell of a sharma/jobs spec draws its experts from a setup of NumExperts
// (params.experts_total, whose default that is): the figures and δ = 1/m read a run on all experts (m = 0
// in its row) as m = NumExperts.
func checkExperts(s *sweep.Spec) error {
	for cell := range s.Cells() {
		t, err := s.Task(cell * s.Seeds.Len())
		if err != nil {
			return err
		}
		if n, err := t.Params.Int("experts_total", NumExperts, 1, math.MaxInt); err != nil || n != NumExperts {
			return fmt.Errorf("sharma: the sweep's experts_total is %v (%v); the notebook's runs and δ = 1/m are for %d experts", t.Params["experts_total"], err, NumExperts)
		}
	}
	return nil
}

// checkComparable checks that runs may be compared with each other as the notebook's are: every private
// run calibrated with the exact mixture accounting, its DP-SGD steps spending at most their budget (ε2 for
// ours, the certificate for the baseline).
func checkComparable(all []Outcome) error {
	for _, o := range all {
		if o.Method != Ours && o.Method != ExpertDPSGD {
			continue
		}
		if o.Accounting != expertdp.AccountingMixed {
			return fmt.Errorf("sharma: run %+v is calibrated with the %v accounting; compared runs use the exact mixture", o.Job, o.Accounting)
		}
		budget := o.CertEps
		if o.Method == Ours {
			budget = o.Split.Eps2
		}
		if !(o.Eps2Exact <= budget*(1+1e-9)) {
			return fmt.Errorf("sharma: run %+v spends ε = %g in its DP-SGD steps, above its budget %g", o.Job, o.Eps2Exact, budget)
		}
	}
	return nil
}
