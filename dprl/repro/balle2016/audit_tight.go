package balle2016

import "github.com/dprl-project/dprl/dprl/audit"

// DPLSWTargets are DP-LSW's rows of the tight audit table at ε = 1: the worst-case trajectory of
// LSWAuditProblem (the only visit to a state, its return moved across the whole declared range [0, 1]) with
// the GDP fit, valid because the noise σ is the same for both inputs (their visit counts agree) so the pair is
// exactly a Gaussian mechanism; and the broken variant (noise without the factor α) with the threshold test.
// The valid variant audits far below its claim because its pair's exact ε is itself far below: the smooth
// sensitivity calibration (Lemma 1's constants) is loose, not the audit.
func DPLSWTargets() []audit.Target {
	c := DPLSWCase(1)
	return []audit.Target{
		{Mechanism: "DP-LSW (Balle et al.)", Neighbours: c.Neighbours, Variant: "valid", Holds: true, Epsilon: c.Epsilon, Delta: c.Delta,
			PairEpsilon: c.PairEpsilon, Method: audit.MethodGDP, Procedure: c.Valid, Runs: 50_000,
			Note: "the audit meets the pair's exact ε; the pair is far below the claim because the smooth-sensitivity constants are loose"},
		{Mechanism: "DP-LSW (Balle et al.), broken", Neighbours: c.Neighbours, Variant: "broken: " + c.Break, Epsilon: c.Epsilon, Delta: c.Delta,
			Method: audit.MethodThreshold, Procedure: c.Broken, Runs: 10_000},
	}
}
