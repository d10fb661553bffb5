package repro_test

import (
	"fmt"

	"github.com/dprl-project/dprl/dprl/report"
	"github.com/dprl-project/dprl/dprl/repro"
)

// A reproduction records a paper row that compares two methods, fully specified, and a sanity check of its
// own; Record decides them. The paper row's test passes, but GPOPE does no better than θ = 0, so the row is
// inconclusive and says why.
func ExampleRecord() {
	out := &report.Recorder{} // a notebook passes display.Default
	paper := repro.Tested(repro.Claim{Key: "c1-v1", Kind: repro.KindPaper,
		Claim: "Chain: GPOPE beats DP-LSW by an order of magnitude",
		Quote: "our method outperforms previous methods", Where: "Abstract; Fig. 1(a)", Paper: "10× or more",
		Compare: &repro.Comparison{A: "GPOPE", B: "DP-LSW", Trivial: "θ = 0", Margin: repro.Interval{Mean: 0.001, Low: -0.01, High: 0.012}},
		Privacy: []repro.Privacy{{Method: "GPOPE", Epsilon: 0.1, Delta: 1e-5}, {Method: "DP-LSW", Epsilon: 0.1, Delta: 1e-5}},
		Robust:  &repro.Robustness{Choice: "step size", Alternatives: []repro.Alternative{{Setting: "tuned ×10", Verdict: repro.Inconclusive}}},
		Why:     "test: log₁₀(MSPBE of DP-LSW / MSPBE of GPOPE) per trial; reproduced if above 1"},
		2.1, 1.8, 2.4, 10, "%.2g", 1, true)
	sanity := repro.Tested(repro.Claim{Key: "c1-zero", Kind: repro.KindSanity, Claim: "Chain: GPOPE beats θ = 0", Paper: "not shown",
		Why: "test: MSPBE of GPOPE / θ = 0's per trial; reproduced if below 1"}, 0.999, 0.99, 1.01, 10, "%.3g", 1, false)
	repro.Record(out, paper, sanity)
	for _, c := range out.ClaimRows() {
		fmt.Printf("%s (%s): %s — %s\n", c.Key, c.Kind, c.Verdict, c.Why)
	}
	fmt.Println(report.ClaimCounts(out.ClaimRows()))
	// Output:
	// c1-v1 (paper): inconclusive — uninformative: GPOPE ≈ θ = 0 (GPOPE − θ = 0: 0.001 [-0.01, 0.012]); the test alone: reproduced. test: log₁₀(MSPBE of DP-LSW / MSPBE of GPOPE) per trial; reproduced if above 1
	// c1-zero (sanity check): inconclusive — test: MSPBE of GPOPE / θ = 0's per trial; reproduced if below 1
	// 2 rows: 2 inconclusive; 1 paper, 1 sanity check
}
