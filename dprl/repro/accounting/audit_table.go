package accounting

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/dprl-project/dprl/dprl/audit"
	"github.com/dprl-project/dprl/dprl/report"
	"github.com/dprl-project/dprl/dprl/repro/balle2016"
	"github.com/dprl-project/dprl/dprl/repro/seoyang2020"
	"github.com/dprl-project/dprl/dprl/repro/sharma"
	"github.com/dprl-project/dprl/dprl/repro/wanghegde2019"
	"github.com/dprl-project/dprl/dprl/repro/xie2019"
)

// TightCatalog is every row of the tight audit table (issue #19), in order: the mechanisms (Gaussian,
// Laplace, sparse vector, functional noise, DP-SGD one step, 100 steps and one run), then each paper's
// pipeline (functional-noise Q-learning end to end, DP-LSW, DP-LSL, GPOPE, DataRelease, Selective DP-SGD
// threshold and one run, Sharma et al.'s pipeline end to end, the actor–critic), each with its valid or
// corrected variant and its broken or published ones.
func TightCatalog() ([]audit.Target, error) {
	var ts []audit.Target
	ts = append(ts, audit.GaussianTargets()...)
	ts = append(ts, audit.LaplaceTargets()...)
	ts = append(ts, audit.SVTTargets()...)
	ts = append(ts, audit.OUDiracTargets()...)
	ts = append(ts, DPSGDTargets()...)
	ts = append(ts, DPSGDOneRunTargets(4)...)
	fq, err := wanghegde2019.FNQTargets()
	if err != nil {
		return nil, err
	}
	ts = append(ts, fq...)
	ts = append(ts, balle2016.DPLSWTargets()...)
	lsl, err := balle2016.DPLSLTargets()
	if err != nil {
		return nil, err
	}
	ts = append(ts, lsl...)
	ts = append(ts, xie2019.GPOPETargets()...)
	ts = append(ts, xie2019.GPOPEOneRunTargets(2)...)
	ts = append(ts, sharma.DataReleaseTargets()...)
	sel, err := sharma.SelectiveDPSGDTargets()
	if err != nil {
		return nil, err
	}
	ts = append(ts, sel...)
	one, err := sharma.SelectiveOneRunTargets(1000, 1)
	if err != nil {
		return nil, err
	}
	ts = append(ts, one...)
	e2e, err := sharma.E2ETargets(sharma.DefaultE2ESetting())
	if err != nil {
		return nil, err
	}
	ts = append(ts, e2e...)
	ts = append(ts, seoyang2020.ActorCriticTargets()...)
	return ts, nil
}

// AuditColumns are the columns of build/audit/audit.csv: the ten, then the variant, the
// assumption-free bound from the same runs, the pair's exact ε where known (empty otherwise), whether the
// variant is expected to hold, and the verdict.
var AuditColumns = []string{"mechanism", "neighbours", "claimed_epsilon", "delta", "audited_epsilon_lower", "ratio", "runs", "method",
	"broken_variant_caught", "seconds", "variant", "assumption_free_lower", "exact_pair_epsilon", "claim_should_hold", "verdict"}

// Verdict says what a row shows: for a variant expected to hold, "below claim" (sound) or "ABOVE CLAIM"
// (an auditor or accounting bug); for a broken or published one, "caught" or "not caught".
func Verdict(r audit.TargetResult) string {
	switch {
	case r.Target.Holds && r.Caught():
		return "ABOVE CLAIM"
	case r.Target.Holds:
		return "below claim"
	case r.Caught():
		return "caught"
	}
	return "not caught"
}

// AuditRow is a result as the CSV row of AuditColumns. broken_variant_caught is true exactly for a broken or
// published variant whose lower bound exceeds its claim.
func AuditRow(r audit.TargetResult) []string {
	t := r.Target
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', 4, 64) }
	pair := ""
	if t.PairEpsilon > 0 {
		pair = f(t.PairEpsilon)
	}
	return []string{t.Mechanism, t.Neighbours, f(t.Epsilon), strconv.FormatFloat(t.Delta, 'g', -1, 64), f(r.EpsilonLower), f(r.Ratio()),
		strconv.Itoa(r.Runs), string(t.Method), strconv.FormatBool(!t.Holds && r.Caught()), strconv.FormatFloat(r.Elapsed.Seconds(), 'f', 2, 64),
		t.Variant, f(r.AssumptionFree), pair, strconv.FormatBool(t.Holds), Verdict(r)}
}

// WriteAuditCSV writes the results as CSV with the AuditColumns header.
func WriteAuditCSV(w io.Writer, rs []audit.TargetResult) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(AuditColumns); err != nil {
		return err
	}
	for _, r := range rs {
		if err := cw.Write(AuditRow(r)); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// AuditMarkdownTable is the results as a Markdown table (the columns a reader needs).
func AuditMarkdownTable(rs []audit.TargetResult) string {
	s := "| mechanism | variant | method | claimed ε | δ | audited ε ≥ | ratio | exact ε of pair | assumption-free ε ≥ | runs | s | verdict |\n" +
		"|---|---|---|---|---|---|---|---|---|---|---|---|\n"
	for _, r := range rs {
		row := AuditRow(r)
		pair := row[12]
		if pair == "" {
			pair = "—"
		}
		cell := func(x string) string { return strings.ReplaceAll(x, "|", `\|`) }
		s += fmt.Sprintf("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", cell(row[0]), cell(row[10]), row[7], row[2], row[3], row[4], row[5],
			pair, row[11], row[6], row[9], row[14])
	}
	return s
}

// ShowAuditTable shows the results in a report.Sink: the table and, per row, what the audit can and cannot
// show (the notebook's audit section).
func ShowAuditTable(out report.Sink, rs []audit.TargetResult) {
	header := []string{"mechanism", "variant", "method", "claimed ε", "δ", "audited ε ≥", "ratio", "exact ε of pair", "assumption-free ε ≥", "runs", "s", "verdict"}
	rows := make([][]string, len(rs))
	for i, r := range rs {
		row := AuditRow(r)
		rows[i] = []string{row[0], row[10], row[7], row[2], row[3], row[4], row[5], row[12], row[11], row[6], row[9], row[14]}
	}
	out.Table(header, rows)
	notes := ""
	for _, r := range rs {
		if r.Target.Note != "" {
			notes += fmt.Sprintf("* **%s** (%s): %s\n", r.Target.Mechanism, r.Target.Variant, r.Target.Note)
		}
	}
	if notes != "" {
		out.Markdown(notes)
	}
}

// SweepRepeats is how many independent audits GaussianSweep runs at each run count (audit.SweepRepeated).
const SweepRepeats = 4

// GaussianSweep is the analytic Gaussian's tight audit at growing run counts (per input and half): at each
// count the best of SweepRepeats independent audits, each at confidence 1 − 0.05/SweepRepeats, so every
// bound is still a 95% lower bound (audit.SweepRepeated).
func GaussianSweep(runs []int, seed uint64) ([]*audit.TightResult, error) {
	c := audit.GaussianCase()
	return audit.SweepRepeated(c.Valid, audit.Config{Delta: c.Delta, Seed: seed}, runs, SweepRepeats, nil)
}
