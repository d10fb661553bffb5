package seoyang2020

import (
	"fmt"
	"math"
	"slices"

	"github.com/dprl-project/dprl/dprl/actorcritic"
	"github.com/dprl-project/dprl/dprl/report"
	"github.com/dprl-project/dprl/dprl/sweep"
)

// CorrectedEpsilons are the whole-run ε per patient at which the corrected variant runs.
var CorrectedEpsilons = []float64{100, 10}

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
func releasesPerStep(v actorcritic.Variant) int {
	if v == actorcritic.DPBoth {
		return 2
	}
	return 1
}

// Privacy lists every configuration that Fig2, Fig3 and RealEpsilon run at size, with its true ε per
// domain: Non-DP, the random policy, the published DP-Actor, DP-Critic and DP-Both at their per-step ε
// (ε = 10 in Fig. 2 and size.Epsilons in Fig. 3), and the corrected variant calibrated for each of
// CorrectedEpsilons.
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
	for _, v := range []actorcritic.Variant{actorcritic.DPActor, actorcritic.DPCritic, actorcritic.DPBoth} {
		epsilons := sweep
		if v == actorcritic.DPBoth && !size.Both {
			epsilons = []float64{10}
		}
		for _, eps := range epsilons {
			sigma := actorcritic.PublishedSigma(eps, Delta)
			k := releasesPerStep(v)
			row := PrivacyRow{Config: fmt.Sprintf("%s, ε = %g per step (published)", v, eps), Printed: fmt.Sprintf("%g per step", eps),
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
	for _, eps := range CorrectedEpsilons {
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

// RealEpsilon asks what ε the runs really have. It shows the privacy table of every configuration the
// notebook runs (Privacy at size), then runs, per domain, the corrected variant calibrated for each of
// CorrectedEpsilons (actorcritic.CorrectedNoise with H = the domain's MaxSteps, clip 1) beside Non-DP and
// the random policy, size.Runs seeds each, plots their learning curves with 95% bands and tabulates their
// last-50 returns. It fails if a corrected run made other than Episodes·H releases, the count its
// accounting assumes. With the merged sweeps SweepRealEpsilon and SweepFig2 present in the repository at
// root it shows their runs
// instead of running size; the privacy table lists Fig. 3's configurations as Fig3 ran them (SweepFig3's
// grid when that sweep is merged).
func RealEpsilon(out report.Sink, root string, size Sizes) error {
	full, refs, ok, seeds, episodes, err := withReferences(out, root, SweepRealEpsilon, "the corrected variant's", size)
	if err != nil {
		return err
	}
	runs := len(seeds.Seeds)
	window := min(Window, episodes)
	// The privacy table lists what the notebook ran: Fig. 3's grid is its sweep's when that is merged.
	psize := size
	psize.Runs, psize.Episodes = runs, episodes
	if f3, ok3, err := sweep.LoadFrom(root, SweepFig3); err != nil {
		return err
	} else if ok3 {
		g, err := fig3Size(f3)
		if err != nil {
			return err
		}
		psize.Epsilons, psize.Both = g.Epsilons, g.Both
	}
	prows, err := Privacy(psize)
	if err != nil {
		return err
	}
	header, cells := PrivacyTable(prows)
	out.Markdown(fmt.Sprintf("**What ε the runs have**, at δ = %g, for neighbouring data sets that differ in one patient (one episode). "+
		"For the published variants the per-patient column is only the most charitable reading; the last columns compose every "+
		"release of a %d-episode run, which is the ε for replacing the whole data set, not a per-patient ε.", Delta, episodes))
	out.Table(header, cells)
	var bar report.Bar
	if !ok {
		bar = out.Bar("runs", len(Domains())*(2+len(CorrectedEpsilons))*runs)
	}
	var rows [][]string
	for _, d := range Domains() {
		// get is a condition's runs at ε, from the sweeps or run.
		get := func(cond string, eps float64) ([]*actorcritic.Result, error) {
			switch {
			case ok && cond == Corrected:
				r, err := condition(full, d, cond, map[string]string{"epsilon": sweep.FormatValue(eps)}, seeds, episodes)
				if err != nil {
					return nil, err
				}
				return r.Results, nil
			case ok:
				r, err := condition(refs, d, cond, nil, seeds, episodes)
				if err != nil {
					return nil, err
				}
				return r.Results, nil
			}
			cfg, err := d.Config(cond, eps, episodes)
			if err != nil {
				return nil, err
			}
			return d.RunMany(cfg, runs, Seed, bar)
		}
		names := []string{"Non-DP", "Random policy (θ = 0)"}
		var results [][]*actorcritic.Result
		for _, cond := range []string{NonDP, Random} {
			rs, err := get(cond, 0)
			if err != nil {
				return err
			}
			results = append(results, rs)
		}
		for _, eps := range CorrectedEpsilons {
			s, err := actorcritic.CorrectedNoise(eps, Delta, d.MaxSteps)
			if err != nil {
				return err
			}
			rc, err := get(Corrected, eps)
			if err != nil {
				return err
			}
			for i, r := range rc {
				if r.Releases != episodes*d.MaxSteps {
					return fmt.Errorf("seoyang2020: corrected run %d on %s made %d releases, the accounting assumes %d", i, d.Label, r.Releases, episodes*d.MaxSteps)
				}
			}
			whole, err := actorcritic.CorrectedEpsilon(s, d.MaxSteps, Delta)
			if err != nil {
				return err
			}
			names = append(names, fmt.Sprintf("Corrected, ε = %.3g per patient (σ = %.1f)", whole, s))
			results = append(results, rc)
		}
		if err := learningCurves(out, fmt.Sprintf("Corrected variant — %s (%d seeds)", d.Label, runs), names, results); err != nil {
			return err
		}
		for i, rs := range results {
			f, _, err := d.Finals(rs, window)
			if err != nil {
				return err
			}
			rows = append(rows, []string{d.Label, names[i], ci(f, "%.1f")})
		}
	}
	if bar != nil {
		bar.Done()
	}
	out.Markdown(seedNote(seeds) + fmt.Sprintf(" Every corrected run made exactly %d·H noisy releases.", episodes))
	out.Table([]string{"domain", "condition", fmt.Sprintf("last-%d return, mean [95%% CI]", window)}, rows)
	return nil
}
