package seoyang2020

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/dprl-project/dprl/dprl/actorcritic"
	"github.com/dprl-project/dprl/dprl/experiment"
	"github.com/dprl-project/dprl/dprl/report"
	"github.com/dprl-project/dprl/dprl/repro"
	"github.com/dprl-project/dprl/dprl/repro/claimtest"
)

func TestNoiseScaleTable(t *testing.T) {
	var r report.Recorder
	if err := NoiseScaleTable(&r); err != nil {
		t.Fatal(err)
	}
	if r.Tables() != 1 || len(r.Items) != 2 {
		t.Fatalf("%d items, %d tables", len(r.Items), r.Tables())
	}
	rows := r.Items[1].Rows
	// ε = 10: the typo's σ is ≈ 66.8, about 100× eq. (3)'s; replace-one doubles the analytic σ.
	if len(rows) != 5 || rows[0][0] != "10" || rows[0][2] != "66.8" || rows[4][0] != "0.1" {
		t.Errorf("rows %v", rows)
	}
	if ratio := TypoSigma(10, Delta) / actorcritic.PublishedSigma(10, Delta); ratio < 50 || ratio > 200 {
		t.Errorf("typo / eq. (3) = %g, want about 100", ratio)
	}
}

func TestDefaultSizes(t *testing.T) {
	t.Setenv(experiment.QuickEnv, "1")
	if s := DefaultSizes(false); s.Runs != 2 || s.Episodes != 60 || s.TuneRuns != 1 || len(s.Epsilons) != 3 || s.Both {
		t.Errorf("quick: %+v", s)
	}
	if s := DefaultSizes(true); s.Runs != 10 || s.Episodes != 500 || s.TuneRuns != 10 || len(s.Epsilons) != 4 || !s.Both || len(s.Corrected) != 2 {
		t.Errorf("paper scale: %+v", s)
	}
	t.Setenv(experiment.QuickEnv, "")
	s := DefaultSizes(false)
	if s.Runs < 10 || s.Episodes != 500 || s.TuneRuns < 3 {
		t.Errorf("default: %+v, want at least 10 seeds of 500 episodes", s)
	}
	// The default grid holds every ε at which a Fig. 3 claim is tested.
	for _, byVariant := range paperStable {
		for _, st := range byVariant {
			if e := slices.Min(st); !slices.Contains(s.Epsilons, e) {
				t.Errorf("the default grid %v lacks ε = %g", s.Epsilons, e)
			}
		}
	}
}

// tinySize is a size small enough for a unit test that still runs every section and records every row.
var tinySize = Sizes{Runs: 2, Episodes: 4, TuneRuns: 1, Epsilons: []float64{5, 1, 0.5}, Corrected: []float64{100}}

// TestSections runs every experiment at a tiny size and checks what each section shows and records: the
// runs and tables, every claims row complete (claimtest.Strict: kinds, quotes, trivial references and the
// compared methods' privacy, equal where compared), and the privacy table listing every configuration run.
func TestSections(t *testing.T) {
	var r report.Recorder
	tab, err := Data(&r, tinySize)
	if err != nil {
		t.Fatal(err)
	}
	// Tuning: 2 domains × 5 conditions × 4 settings × 1 run; the corrected variant beside it: 2 × 1 × 2 runs.
	if n := len(tab.Tuning.Rows); n != 2*5*4 {
		t.Errorf("%d tuning rows, want 40", n)
	}
	for _, f := range []func(report.Sink, *Tables) error{TuningTable, Fig2, Fig2Claims, Fig4, Fig4Claims, Fig3, Fig3Claims, Fig5, Fig5Claims,
		CorrectedFigure, CorrectedClaims} {
		if err := f(&r, tab); err != nil {
			t.Fatal(err)
		}
	}
	// Figures: Fig. 2, 4, 3, 5 and the corrected variant per domain; tables: tuning, Table 3 and 4 per domain,
	// Fig. 3's per domain, the privacy table and the corrected returns.
	if r.Figures() != 10 || r.Tables() != 1+2+2+2+2 {
		t.Errorf("%d figures, %d tables", r.Figures(), r.Tables())
	}
	claims := r.ClaimRows()
	claimtest.Strict(t, claims)
	var keys []string
	for _, c := range claims {
		keys = append(keys, c.Key)
		if c.Seeds != tinySize.Runs || c.Verdict != repro.Reproduced && c.Verdict != repro.NotReproduced && c.Verdict != repro.Inconclusive {
			t.Errorf("claim %s: %d seeds, verdict %q", c.Key, c.Seeds, c.Verdict)
		}
		if c.OfPaper() && c.Robust == nil {
			t.Errorf("claim %s: no robustness check", c.Key)
		}
	}
	want := []string{}
	for _, d := range []string{"mdp100", "taxi"} {
		want = append(want, "fig2-critic-vs-actor-"+d, "fig2-critic-vs-both-"+d, "fig2-nondp-vs-actor-"+d, "sanity-nondp-"+d, "tab3-actor-"+d, "tab3-both-"+d)
	}
	want = append(want, "fig2-gap-taxi")
	for _, d := range []string{"mdp100", "taxi"} {
		want = append(want, "tab4-actor-"+d, "tab4-both-"+d, "tab4-critic-vs-actor-"+d)
	}
	want = append(want, "tab4-critic-taxi")
	for _, d := range []string{"mdp100", "taxi"} {
		want = append(want, "fig3-range-actor-"+d, "fig3-range-critic-"+d, "fig3-actor-vs-critic-"+d)
	}
	want = append(want, "fig5-mdp100", "fig5-taxi", "corrected-mdp100", "corrected-taxi")
	if !slices.Equal(keys, want) {
		t.Errorf("claims recorded:\n%s\nwant\n%s", strings.Join(keys, " "), strings.Join(want, " "))
	}
	// Every published configuration Fig. 3 ran has its row in the privacy table.
	prows, err := Privacy(tinySize)
	if err != nil {
		t.Fatal(err)
	}
	configs := map[string]bool{}
	for _, p := range prows {
		configs[p.Config] = true
	}
	checked := 0
	for _, it := range r.Items {
		if len(it.Header) > 1 && it.Header[1] == "ε per step" {
			for _, row := range it.Rows {
				checked++
				if c := fmt.Sprintf("%s, ε = %s per step (published)", row[0], row[1]); !configs[c] {
					t.Errorf("Fig. 3 ran %q, which the privacy table does not list", c)
				}
			}
		}
	}
	if checked != 2*2*4 {
		t.Errorf("checked %d Fig. 3 configurations, want 16", checked)
	}
	if _, err := Data(&r, Sizes{Runs: 2, Episodes: 2, TuneRuns: 1, Corrected: []float64{10}}); err == nil || !strings.Contains(err.Error(), "Sizes.Epsilons") {
		t.Errorf("no ε for Fig. 3: %v", err)
	}
}

// TestDataDoesNotDependOnWorkers: the tables are the same bit for bit with one worker and with several.
func TestDataDoesNotDependOnWorkers(t *testing.T) {
	size := Sizes{Runs: 2, Episodes: 3, TuneRuns: 1, Epsilons: []float64{1}, Corrected: []float64{100}}
	run := func(procs int) *Tables {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		tab, err := Data(report.Discard, size)
		if err != nil {
			t.Fatal(err)
		}
		return tab
	}
	a, b := run(1), run(4)
	for _, p := range [][2]*experiment.Table{{a.Tuning, b.Tuning}, {a.Runs, b.Runs}} {
		if len(p[0].Rows) != len(p[1].Rows) {
			t.Fatalf("%d rows with 1 worker, %d with 4", len(p[0].Rows), len(p[1].Rows))
		}
		for i := range p[0].Rows {
			if !slices.Equal(p[0].Rows[i], p[1].Rows[i]) {
				t.Fatalf("row %d: %v with 1 worker, %v with 4", i, p[0].Rows[i], p[1].Rows[i])
			}
		}
	}
}

// TestPrivacyAsRun asserts the true ε of every configuration the notebook runs at its default size, as
// the notebook prints it (PrivacyTable), against values computed independently of the package's
// accountants (mpmath, exact μ-GDP: δ(ε) = Φ(−ε/μ + μ/2) − e^ε·Φ(−ε/μ − μ/2), solved for ε at δ = 10⁻⁶).
func TestPrivacyAsRun(t *testing.T) {
	t.Setenv(experiment.QuickEnv, "")
	size := DefaultSizes(false)
	rows, err := Privacy(size)
	if err != nil {
		t.Fatal(err)
	}
	header, cells := PrivacyTable(rows)
	if len(header) != 7 || len(cells) != 2+4+4+1+1+1 {
		t.Fatalf("%d columns, %d rows: %v", len(header), len(cells), header)
	}
	byConfig := map[string][]string{}
	for _, c := range cells {
		byConfig[c[0]] = c
	}
	// configuration → printed ε, guarantee prefix, per-patient ε on MDP-100 and Taxi, whole data set on both.
	want := map[string][]string{
		"Non-DP":                                          {"—", "none", "∞", "∞", "—", "—"},
		"Random policy (θ = 0)":                           {"—", "the policy reads no data", "0.0", "0.0", "—", "—"},
		"DP-Actor, ε = 10 per step (published)":           {"10 per step", "none for a run", mdpActor10, taxiActor10, mdpWhole10, taxiWhole10},
		"DP-Critic, ε = 10 per step (published)":          {"10 per step", "none for a run", mdpActor10, taxiActor10, mdpWhole10, taxiWhole10},
		"DP-Both, ε = 7.07 per step (published)":          {"7.07 per step", "none for a run", mdpActor10, taxiActor10, mdpWhole10, taxiWhole10},
		"DP-Actor (softmax), ε = 10 per step (published)": {"10 per step", "none for a run", mdpActor10, taxiActor10, mdpWhole10, taxiWhole10},
		"DP-Critic, ε = 0.5 per step (published)":         {"0.5 per step", "none for a run", mdpActor05, taxiActor05, mdpWhole05, taxiWhole05},
		"Corrected, ε = 100 per patient":                  {"100 per patient", "exact μ-GDP", "100.0", "100.0", "—", "—"},
	}
	for cfg, w := range want {
		c, ok := byConfig[cfg]
		if !ok {
			t.Errorf("no row %q", cfg)
			continue
		}
		if c[1] != w[0] || !strings.HasPrefix(c[2], w[1]) {
			t.Errorf("%s: printed %q, guarantee %q", cfg, c[1], c[2])
		}
		for k := 2; k < 6; k++ {
			if w[k] != "" && c[k+1] != w[k] {
				t.Errorf("%s, %s: %s, want %s", cfg, header[k+1], c[k+1], w[k])
			}
		}
	}
	// The corrected variant's ε is exact to the accountant's precision.
	r := rows[len(rows)-1]
	for k, e := range r.PerPatient {
		if math.Abs(e-100) > 1e-6*100 {
			t.Errorf("%s on domain %d: ε = %.9g, want 100", r.Config, k, e)
		}
	}
	// The run makes the releases the accounting counts: a chain episode that reaches the goal before H steps
	// is padded to H releases.
	d := Domains()[0]
	c := d.Base
	s, err := actorcritic.CorrectedNoise(10, Delta, 150)
	if err != nil {
		t.Fatal(err)
	}
	c.Variant, c.Episodes, c.Clip, c.NoiseMultiplier, c.MaxEpisodeLen, c.Explore = actorcritic.Corrected, 3, 1, s, 150, 0
	c.Acting = actorcritic.Softmax
	rs, err := d.RunMany(c, 1, Seed, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rs[0].Releases != 3*150 {
		t.Errorf("corrected run: %d releases over episodes of %v steps, want %d", rs[0].Releases, rs[0].Lengths, 3*150)
	}
}

// Independent values (mpmath, 50 digits) of the charitable per-patient and whole-data-set compositions at
// δ = 10⁻⁶: μ = 2√(k·H·E)/σ with σ = eq. (3)'s, k noised vectors per step, H the time limit, E episodes.
// DP-Both at 10/√2 per step (k = 2) has DP-Actor's μ at 10 (k = 1).
const (
	mdpActor10  = "7689.6"   // μ = 119.358 (k = 1, H = 1000)
	taxiActor10 = "1677.4"   // μ = 53.379 (k = 1, H = 200)
	mdpActor05  = "45.4"     // 45.442, μ = 5.968 (ε = 0.5 per step)
	taxiActor05 = "15.7"     // 15.676, μ = 2.669
	mdpWhole05  = "9537.3"   // 9537.333, μ = 133.45
	taxiWhole05 = "2063.5"   // 2063.515, μ = 59.68
	mdpWhole10  = "3.57e+06" // 3574280.5, E = 500 episodes
	taxiWhole10 = "7.18e+05" // 717991.6
)

// The noise formula as the paper's §2.1 prints it, against eq. (3), at ε = 10 and δ = 1e−6.
func ExampleTypoSigma() {
	fmt.Printf("%.1f %.3f\n", TypoSigma(10, 1e-6), actorcritic.PublishedSigma(10, 1e-6))
	// Output: 66.8 0.530
}

// The true ε per patient of the published DP-Actor at ε = 10 per step under the most charitable reading
// (one episode's releases composed), of DP-Both at the per-step ε that matches it, and of the corrected
// variant, as the notebook prints them.
func ExamplePrivacy() {
	rows, err := Privacy(Sizes{Runs: 10, Episodes: 500, Epsilons: []float64{10}, Corrected: []float64{10}})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range rows {
		if strings.HasPrefix(r.Config, "DP-Actor,") || strings.HasPrefix(r.Config, "DP-Both") || strings.HasPrefix(r.Config, "Corrected") {
			fmt.Println(r.Config, FormatEpsilon(r.PerPatient[0]), FormatEpsilon(r.PerPatient[1]))
		}
	}
	// Output:
	// DP-Actor, ε = 10 per step (published) 7689.6 1677.4
	// DP-Both, ε = 7.07 per step (published) 7689.6 1677.4
	// Corrected, ε = 10 per patient 10.0 10.0
}

// TestDPBothGrid: with DP-Both in Fig. 3's grid (paper scale) it runs at ε/√2 per step, shows in the figure
// and the privacy table, and its cross-domain drop from ε = 5 to ε = 1 is a claims row.
func TestDPBothGrid(t *testing.T) {
	size := tinySize
	size.Both = true
	var r report.Recorder
	tab, err := Data(report.Discard, size)
	if err != nil {
		t.Fatal(err)
	}
	if err := Fig3(&r, tab); err != nil {
		t.Fatal(err)
	}
	if err := Fig3Claims(&r, tab); err != nil {
		t.Fatal(err)
	}
	claims := r.ClaimRows()
	claimtest.Strict(t, claims)
	if k := claims[len(claims)-1].Key; k != "fig3-both-drop-taxi" {
		t.Errorf("last Fig. 3 row %q, want fig3-both-drop-taxi", k)
	}
	prows, err := Privacy(size)
	if err != nil {
		t.Fatal(err)
	}
	configs := map[string]bool{}
	for _, p := range prows {
		configs[p.Config] = true
	}
	for _, it := range r.Items {
		for _, row := range it.Rows {
			if row[0] == "DP-Both" && !configs[fmt.Sprintf("DP-Both, ε = %s per step (published)", row[1])] {
				t.Errorf("Fig. 3 ran DP-Both at %s per step, which the privacy table does not list", row[1])
			}
		}
	}
}
