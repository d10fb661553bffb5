package seoyang2020

import (
	"fmt"
	"math"
	"slices"

	"github.com/dprl-project/dprl/dprl/actorcritic"
	"github.com/dprl-project/dprl/dprl/param"
	"github.com/dprl-project/dprl/dprl/repro"
	"github.com/dprl-project/dprl/mechanisms"
)

// ComposedPublishedEpsilon is the ε at δ of the published variants' noised releases composed over a whole
// run — the most charitable reading of the paper: it treats each noised vector (the normalised actor
// gradient, the critic update, or both per step) as the only thing released, with sensitivity 2|C| under
// replace-one of that step's sample and noise σ|C| (GDP μ = 2/σ per release), and ignores the
// data-dependent |C| and the raw δ applied after the noise (either of which voids the guarantee).
// releases is the total number of noised vectors in the run.
func ComposedPublishedEpsilon(sigma float64, releases int, delta float64) (float64, error) {
	if err := param.First(check.AtLeast("releases", releases, 1), check.In("sigma", sigma, param.Positive)); err != nil {
		return 0, err
	}
	return mechanisms.GDPEpsilon(2*math.Sqrt(float64(releases))/sigma, delta)
}

// TypoSigma is the noise formula as printed in the paper's §2.1, sqrt(2 ln(1.25)/δ)/ε — a typo for eq. (3)'s
// sqrt(2 ln(1.25/δ))/ε (actorcritic.PublishedSigma) that would add about 100× more noise at δ = 1e−6 — kept for
// comparison.
func TypoSigma(eps, delta float64) float64 { return math.Sqrt(2*math.Log(1.25)/delta) / eps }

// MethodPrivacy is the privacy entry of a condition in a claims row on d at nominal per-step ε eps: Non-DP
// as not private; a published variant with its composed ε per patient at Delta in the charitable reading
// (ComposedPublishedEpsilon over the k·H releases of one episode at its StepEpsilon) — not a guarantee: as
// published, nothing holds for a run — so that variants compared at the same eps are at the same ε.
func MethodPrivacy(d Domain, condition string, eps float64) (repro.Privacy, error) {
	if condition == NonDP || condition == NonDPOtherSeed {
		return repro.Privacy{Method: Label(condition), NonPrivate: true}, nil
	}
	sigma := actorcritic.PublishedSigma(StepEpsilon(condition, eps), Delta)
	e, err := ComposedPublishedEpsilon(sigma, releasesPerStep(condition)*d.MaxSteps, Delta)
	return repro.Privacy{Method: Label(condition), Epsilon: e, Delta: Delta}, err
}

// PrivacyRow is one configuration the notebook runs and the ε it really has on each domain.
type PrivacyRow struct {
	Config    string // as labelled in the figures
	Printed   string // the ε printed for it (the paper's per-step ε, or ours)
	Guarantee string // what holds for a whole run
	// PerPatient is, per domain (in Domains order), the ε at Delta between data sets that differ in one
	// episode (one patient): the corrected variant's exact GDP accounting (actorcritic.CorrectedEpsilon);
	// for the published variants only the most charitable reading (ComposedPublishedEpsilon over the
	// releases one episode can make, k·H, with k noised vectors per step), which ignores the data-dependent
	// |C| and the raw TD error after the noise, either of which voids any guarantee; +Inf for Non-DP; 0 for
	// the random policy, whose policy reads no data.
	PerPatient []float64
	// WholeData is, per domain, the same charitable composition over every release a run can make
	// (Episodes·k·H): the ε between data sets that differ in every episode, i.e. the whole data set. It is
	// not a per-patient ε (NaN for the configurations other than the published variants).
	WholeData []float64
}

// releasesPerStep is the number of noised vectors a published variant releases per step.
func releasesPerStep(condition string) int {
	if condition == DPBoth {
		return 2
	}
	return 1
}

// Privacy lists every configuration that Data runs at size, with its true ε per domain: Non-DP, the random
// policy, the published DP-Actor, DP-Critic and DP-Both at their per-step ε (ε = 10 in Fig. 2 and
// size.Epsilons in Fig. 3; DP-Both at StepEpsilon, so that its composed ε equals theirs), DP-Actor acting by
// softmax (Fig. 5), and the corrected variant calibrated for each of size.Corrected.
func Privacy(size Sizes) ([]PrivacyRow, error) {
	doms := Domains()
	fill := func(x float64) []float64 {
		out := make([]float64, len(doms))
		for i := range out {
			out[i] = x
		}
		return out
	}
	rows := []PrivacyRow{
		{Config: "Non-DP", Printed: "—", Guarantee: "none (not private)", PerPatient: fill(math.Inf(1)), WholeData: fill(math.NaN())},
		{Config: "Random policy (θ = 0)", Printed: "—", Guarantee: "the policy reads no data", PerPatient: fill(0), WholeData: fill(math.NaN())},
	}
	sweep := slices.Clone(size.Epsilons)
	if !slices.Contains(sweep, 10) {
		sweep = append([]float64{10}, sweep...)
	}
	for _, v := range []string{DPActor, DPCritic, DPBoth, DPActorSoftmax} {
		epsilons := sweep
		if v == DPBoth && !size.Both || v == DPActorSoftmax {
			epsilons = []float64{10}
		}
		for _, eps := range epsilons {
			step := StepEpsilon(v, eps)
			sigma := actorcritic.PublishedSigma(step, Delta)
			k := releasesPerStep(v)
			row := PrivacyRow{Config: fmt.Sprintf("%s, ε = %.3g per step (published)", Label(v), step), Printed: fmt.Sprintf("%.3g per step", step),
				Guarantee: "none for a run (per step only; data-dependent |C|; raw TD error after the noise)"}
			for _, d := range doms {
				per, err := ComposedPublishedEpsilon(sigma, k*d.MaxSteps, Delta)
				if err != nil {
					return nil, err
				}
				whole, err := ComposedPublishedEpsilon(sigma, k*d.MaxSteps*size.Episodes, Delta)
				if err != nil {
					return nil, err
				}
				row.PerPatient, row.WholeData = append(row.PerPatient, per), append(row.WholeData, whole)
			}
			rows = append(rows, row)
		}
	}
	for _, eps := range size.Corrected {
		row := PrivacyRow{Config: fmt.Sprintf("Corrected, ε = %g per patient", eps), Printed: fmt.Sprintf("%g per patient", eps),
			Guarantee: "exact μ-GDP, μ = 2√H/σ; every episode makes exactly H releases (padded)", WholeData: fill(math.NaN())}
		for _, d := range doms {
			s, err := actorcritic.CorrectedNoise(eps, Delta, d.MaxSteps)
			if err != nil {
				return nil, err
			}
			e, err := actorcritic.CorrectedEpsilon(s, d.MaxSteps, Delta)
			if err != nil {
				return nil, err
			}
			row.PerPatient = append(row.PerPatient, e)
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// FormatEpsilon writes an ε for the privacy table: ∞ for no guarantee, one decimal below 10⁴, and
// scientific notation above.
func FormatEpsilon(e float64) string {
	switch {
	case math.IsNaN(e):
		return "—"
	case math.IsInf(e, 1):
		return "∞"
	case e >= 1e4:
		return fmt.Sprintf("%.2e", e)
	}
	return fmt.Sprintf("%.1f", e)
}

// PrivacyTable is the table of Privacy's rows, one column per domain for the per-patient ε and for the
// whole-data-set composition.
func PrivacyTable(rows []PrivacyRow) (header []string, cells [][]string) {
	header = []string{"configuration", "printed ε", "guarantee for a run"}
	for _, d := range Domains() {
		header = append(header, fmt.Sprintf("true ε per patient, %s (H = %d)", d.Label, d.MaxSteps))
	}
	for _, d := range Domains() {
		header = append(header, fmt.Sprintf("whole data set, %s (not per patient)", d.Label))
	}
	for _, r := range rows {
		c := []string{r.Config, r.Printed, r.Guarantee}
		for _, e := range r.PerPatient {
			c = append(c, FormatEpsilon(e))
		}
		for _, e := range r.WholeData {
			c = append(c, FormatEpsilon(e))
		}
		cells = append(cells, c)
	}
	return header, cells
}
