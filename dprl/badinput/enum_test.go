package badinput_test

import (
	"fmt"
	"testing"

	"github.com/dprl-project/dprl/dprl/actorcritic"
	"github.com/dprl-project/dprl/dprl/expertdp"
	"github.com/dprl-project/dprl/dprl/figure"
	"github.com/dprl-project/dprl/dprl/fnq"
	"github.com/dprl-project/dprl/dprl/nn"
	"github.com/dprl-project/dprl/dprl/policyeval"
	"github.com/dprl-project/dprl/mechanisms"
)

// TestEnumStrings covers every enum type of the library: each valid value has its name, and a value outside
// the enum prints as Type(n), never as a valid name and never with a panic.
func TestEnumStrings(t *testing.T) {
	for _, c := range []struct {
		v    fmt.Stringer
		want string
	}{
		{mechanisms.ConversionImproved, "improved"},
		{mechanisms.ConversionClassic, "classic"},
		{mechanisms.Conversion(7), "Conversion(7)"},
		{mechanisms.SmoothLemma1, "Lemma 1"},
		{mechanisms.SmoothAppendixA, "Appendix A"},
		{mechanisms.SmoothVariant(-1), "SmoothVariant(-1)"},
		{mechanisms.StopAtAbove, "stop at above"},
		{mechanisms.StopAtBelow, "stop at below"},
		{mechanisms.StopRule(2), "StopRule(2)"},

		{nn.ReLU, "ReLU"},
		{nn.Tanh, "tanh"},
		{nn.Activation(9), "Activation(9)"},

		{actorcritic.NonDP, "Non-DP"},
		{actorcritic.DPActor, "DP-Actor"},
		{actorcritic.DPCritic, "DP-Critic"},
		{actorcritic.DPBoth, "DP-Both"},
		{actorcritic.Corrected, "Corrected"},
		{actorcritic.Variant(5), "Variant(5)"},
		{actorcritic.Variant(-1), "Variant(-1)"},
		{actorcritic.EpsilonGreedy, "ε-greedy"},
		{actorcritic.Softmax, "softmax"},
		{actorcritic.Acting(3), "Acting(3)"},

		{figure.BandStd, "± 1 std"},
		{figure.BandStdErr, "± 1 standard error"},
		{figure.BandNone, "mean only"},
		{figure.BandCI95, "95% CI of the mean"},
		{figure.Band(4), "Band(4)"},

		{expertdp.CQL, "CQL"},
		{expertdp.BCQ, "BCQ"},
		{expertdp.Algorithm(2), "Algorithm(2)"},
		{expertdp.AccountingPaper, "q = p·b/m (paper)"},
		{expertdp.AccountingMixed, "mixture (exact)"},
		{expertdp.Accounting(2), "Accounting(2)"},

		{fnq.NonPrivate, "non-private DQN"},
		{fnq.FunctionalNoise, "functional noise"},
		{fnq.InputPerturbation, "input perturbation"},
		{fnq.DPSGD, "DP-SGD"},
		{fnq.Method(7), "Method(7)"},

		{policyeval.LSLPaper, "paper/code bound"},
		{policyeval.LSLSafe, "safe bound"},
		{policyeval.LSLBound(2), "LSLBound(2)"},
		{policyeval.AccountingTheorem9, "without replacement, replace-one, Δ = 2C (WBK Theorem 9, conservative bound)"},
		{policyeval.AccountingPoisson, "Poisson, add/remove, Δ = C (RDP)"},
		{policyeval.AccountingTight, "without replacement, replace-one, Δ = 2C (WBK Theorem 27)"},
		{policyeval.AccountingPoissonPLD, "Poisson, add/remove, Δ = C (PLD)"},
		{policyeval.GPOPEAccounting(4), "GPOPEAccounting(4)"},
		{policyeval.SampleOne, "one per step"},
		{policyeval.SamplePoisson, "Poisson"},
		{policyeval.GPOPESampling(2), "GPOPESampling(2)"},
	} {
		var got string
		func() {
			defer func() {
				if p := recover(); p != nil {
					got = fmt.Sprintf("panic: %v", p)
				}
			}()
			got = c.v.String()
		}()
		if got != c.want {
			t.Errorf("%T(%d).String() = %q, want %q", c.v, c.v, got, c.want)
		}
	}
}
