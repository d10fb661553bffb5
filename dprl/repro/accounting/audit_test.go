package accounting

import (
	"testing"

	"github.com/dprl-project/dprl/dprl/audit"
)

// TestCatalog: every case audits below its claimed ε, and below the pair's exact ε where that is known (the
// auditor is sound); it audits above 0.05 (the auditor has power) unless the pair's own ε is below 0.5, where
// it must still be positive; and every broken variant is caught, all at 95% confidence.
func TestCatalog(t *testing.T) {
	rs, err := audit.AuditCatalog(Catalog(), audit.Config{Runs: 10000, Seed: 5}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		c, good, bad := r.Case, r.Valid.EpsilonLower, r.Broken.EpsilonLower
		t.Logf("%s: claimed %g, pair %.3f; audited ≥ %.3f (valid), ≥ %.3f (%s); %v", c.Name, c.Epsilon, c.PairEpsilon, good, bad, c.Break, r.Valid.Elapsed+r.Broken.Elapsed)
		if !(good < c.Epsilon) {
			t.Errorf("%s: audited %g ≥ claimed %g", c.Name, good, c.Epsilon)
		}
		if c.PairEpsilon > 0 && !(good <= c.PairEpsilon) {
			t.Errorf("%s: audited %g above the pair's exact ε %g", c.Name, good, c.PairEpsilon)
		}
		floor := 0.05
		if c.PairEpsilon > 0 && c.PairEpsilon < 0.5 {
			floor = 0 // a pair this private leaves any 10 000-run test little to show
		}
		if !(good > floor) {
			t.Errorf("%s: audited %g: the auditor shows no power", c.Name, good)
		}
		if !(bad > c.Epsilon) {
			t.Errorf("%s (%s): audited %g, not caught", c.Name, c.Break, bad)
		}
	}
}
