package seoyang2020

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/dprl-project/dprl/dprl/actorcritic"
	"github.com/dprl-project/dprl/dprl/experiment"
	"github.com/dprl-project/dprl/dprl/report"
	"github.com/dprl-project/dprl/dprl/repro"
	"github.com/dprl-project/dprl/dprl/repro/claimtest"
	"github.com/dprl-project/dprl/dprl/sweep"
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
	if s := DefaultSizes(false); s.Runs != 2 || s.Episodes != 60 || len(s.Epsilons) != 3 || s.Both {
		t.Errorf("quick: %+v", s)
	}
	if s := DefaultSizes(true); s.Runs != 10 || s.Episodes != 500 || len(s.Epsilons) != 5 || !s.Both {
		t.Errorf("paper scale: %+v", s)
	}
	t.Setenv(experiment.QuickEnv, "")
	if s := DefaultSizes(false); s.Runs < 10 || s.Episodes != 500 {
		t.Errorf("default: %+v, want at least 10 seeds of 500 episodes", s)
	}
}

func TestJoinFloats(t *testing.T) {
	if joinFloats(nil) != "" || joinFloats([]float64{10, 0.5}) != "10, 0.5" {
		t.Error(joinFloats(nil), joinFloats([]float64{10, 0.5}))
	}
}

// TestMarginTest: the stability test of Fig. 2 and Fig. 3 compares with 1.2 × Non-DP's (negative) return.
func TestMarginTest(t *testing.T) {
	non := []float64{-100, -110, -90}
	if d, lo, hi := marginTest([]float64{-110, -115, -105}, non); math.Abs(d-10) > 1e-9 || !(lo < d && d < hi) || stability(lo, hi) == "not stable" {
		t.Errorf("10%% worse: diff %g [%g, %g], %s", d, lo, hi, stability(lo, hi))
	}
	if _, lo, hi := marginTest([]float64{-300, -310, -290}, non); stability(lo, hi) != "not stable" {
		t.Errorf("3× worse called %s", stability(lo, hi))
	}
}

// TestFinalsImputeOverflow: a run whose weights overflowed counts with the lowest possible return.
func TestFinalsImputeOverflow(t *testing.T) {
	d := Domains()[1]
	rs := []*actorcritic.Result{{Returns: []float64{-5, -7}, DivergedAt: -1}, {Returns: []float64{-5, math.NaN()}, DivergedAt: 1}}
	f, div, err := d.Finals(rs, 1)
	if err != nil || div != 1 || f[0] != -7 || f[1] != -2000 {
		t.Errorf("finals %v, %d diverged, %v", f, div, err)
	}
	if r := d.RandomPolicy(); r.AlphaU != 0 || r.Acting != actorcritic.Softmax || r.Variant != actorcritic.NonDP {
		t.Errorf("random policy %+v", r)
	}
}

// TestSections runs the three experiment sections at a tiny size and checks what they show and record.
func TestSections(t *testing.T) {
	var r report.Recorder
	size := Sizes{Runs: 2, Episodes: 2, Epsilons: []float64{1, 0.5}}
	root := t.TempDir() // no merged sweeps there: the default size runs
	t.Setenv(sweep.SweepsEnv, "")
	if err := Fig2(&r, root, size); err != nil {
		t.Fatal(err)
	}
	// Per domain: learning curves, Table 3, the cosine figure, Table 4; Non-DP, 3 DP variants, random, other seeds.
	if r.Figures() != 4 || r.Tables() != 4 || r.Units != 2*6*2 {
		t.Errorf("Fig. 2: %d figures, %d tables, %d runs", r.Figures(), r.Tables(), r.Units)
	}
	if err := Fig3(&r, root, size); err != nil {
		t.Fatal(err)
	}
	if r.Figures() != 6 || r.Tables() != 6 || r.Units != 24+2*(2+2*2)*2 {
		t.Errorf("Fig. 3: %d figures, %d tables, %d runs", r.Figures(), r.Tables(), r.Units)
	}
	// Every published configuration Fig. 3 ran has its row in the privacy table.
	prows, err := Privacy(size)
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
	if checked != 2*2*2 {
		t.Errorf("checked %d Fig. 3 configurations, want 8", checked)
	}
	if err := RealEpsilon(&r, root, size); err != nil {
		t.Fatal(err)
	}
	last := r.Items[len(r.Items)-1]
	if r.Figures() != 8 || len(last.Rows) != 8 || last.Rows[0][0] != "MDP-100" || last.Rows[2][1] != "Corrected, ε = 100 per patient (σ = 6.2)" {
		t.Errorf("real ε: %d figures, last table %v", r.Figures(), last.Rows)
	}
	claims := r.ClaimRows()
	claimtest.Rows(t, claims)
	var keys []string
	for _, c := range claims {
		keys = append(keys, c.Key)
		if c.Seeds != size.Runs || c.Verdict != repro.Reproduced && c.Verdict != repro.NotReproduced && c.Verdict != repro.Inconclusive {
			t.Errorf("claim %s: %d seeds, verdict %q", c.Key, c.Seeds, c.Verdict)
		}
	}
	// Fig. 3 tests at the smallest ε the paper calls stable that the grid holds: 0.5 and 1 on MDP-100, 1 on Taxi.
	want := "fig2-mdp100 tab3-mdp100 tab4-mdp100 fig2-taxi tab3-taxi tab4-taxi fig3-actor-mdp100 fig3-critic-mdp100 fig3-actor-taxi"
	if got := strings.Join(keys, " "); got != want {
		t.Errorf("claims recorded: %s", got)
	}
}

// TestPrivacyAsRun asserts the true ε of every configuration the notebook runs at its default size, as
// the notebook prints it (PrivacyTable), against values computed independently of the package's
// accountants (mpmath, exact μ-GDP: δ(ε) = Φ(−ε/μ + μ/2) − e^ε·Φ(−ε/μ − μ/2), solved for ε at δ = 10⁻⁶).
func TestPrivacyAsRun(t *testing.T) {
	t.Setenv(experiment.QuickEnv, "")
	rows, err := Privacy(DefaultSizes(false))
	if err != nil {
		t.Fatal(err)
	}
	header, cells := PrivacyTable(rows)
	if len(header) != 7 || len(cells) != 2+4+4+1+2 {
		t.Fatalf("%d columns, %d rows: %v", len(header), len(cells), header)
	}
	byConfig := map[string][]string{}
	for _, c := range cells {
		byConfig[c[0]] = c
	}
	// configuration → printed ε, guarantee prefix, per-patient ε on MDP-100 and Taxi, whole data set on both.
	want := map[string][]string{
		"Non-DP":                                  {"—", "none", "∞", "∞", "—", "—"},
		"Random policy (θ = 0)":                   {"—", "the policy reads no data", "0.0", "0.0", "—", "—"},
		"DP-Actor, ε = 10 per step (published)":   {"10 per step", "none for a run", mdpActor10, taxiActor10, mdpWhole10, taxiWhole10},
		"DP-Critic, ε = 10 per step (published)":  {"10 per step", "none for a run", mdpActor10, taxiActor10, mdpWhole10, taxiWhole10},
		"DP-Both, ε = 10 per step (published)":    {"10 per step", "none for a run", mdpBoth10, taxiBoth10, "", ""},
		"DP-Critic, ε = 0.5 per step (published)": {"0.5 per step", "none for a run", mdpActor05, taxiActor05, mdpWhole05, taxiWhole05},
		"Corrected, ε = 100 per patient":          {"100 per patient", "exact μ-GDP", "100.0", "100.0", "—", "—"},
		"Corrected, ε = 10 per patient":           {"10 per patient", "exact μ-GDP", "10.0", "10.0", "—", "—"},
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
	for i, target := range CorrectedEpsilons {
		r := rows[len(rows)-len(CorrectedEpsilons)+i]
		for k, e := range r.PerPatient {
			if math.Abs(e-target) > 1e-6*target {
				t.Errorf("%s on domain %d: ε = %.9g, want %g", r.Config, k, e, target)
			}
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
const (
	mdpActor10  = "7689.6"   // μ = 119.358 (k = 1, H = 1000)
	taxiActor10 = "1677.4"   // μ = 53.379 (k = 1, H = 200)
	mdpBoth10   = "1.50e+04" // 15047.8, μ = 168.80 (k = 2)
	taxiBoth10  = "3207.1"   // μ = 75.489 (k = 2)
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
// (one episode's releases composed), and of the corrected variant, as the notebook prints them.
func ExamplePrivacy() {
	rows, err := Privacy(Sizes{Runs: 10, Episodes: 500, Epsilons: []float64{10}})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range rows[2:3] {
		fmt.Println(r.Config, FormatEpsilon(r.PerPatient[0]), FormatEpsilon(r.PerPatient[1]), FormatEpsilon(r.WholeData[0]))
	}
	c := rows[len(rows)-1]
	fmt.Println(c.Config, FormatEpsilon(c.PerPatient[0]), FormatEpsilon(c.PerPatient[1]))
	// Output:
	// DP-Actor, ε = 10 per step (published) 7689.6 1677.4 3.57e+06
	// Corrected, ε = 10 per patient 10.0 10.0
}
