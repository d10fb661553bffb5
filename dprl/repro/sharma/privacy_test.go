package sharma

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/dprl-project/dprl/dprl/experiment"
	"github.com/dprl-project/dprl/dprl/expertdp"
	"github.com/dprl-project/dprl/mechanisms"
)

// lchoose is ln C(n, k).
func lchoose(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}

// spent is ε at delta after steps steps of Selective DP-SGD with probability p of a step Poisson-sampling
// experts at rate q with noise multiplier s, recomputed from the mechanisms (the exact mixture; the plain
// subsampled Gaussian at p = 1) on the library's PLD grid.
func spent(t *testing.T, p, q, s float64, steps int, delta float64) float64 {
	t.Helper()
	var ev mechanisms.Event = mechanisms.PoissonSampled{Q: q, Event: mechanisms.GaussianEvent{NoiseMultiplier: s}}
	if p < 1 {
		ev = mechanisms.Mixed{P: p, Event: ev}
	}
	a, _ := mechanisms.NewPLDAccountant(mechanisms.PLDParams{Discretization: 1e-3})
	if err := a.Compose(ev, steps); err != nil {
		t.Fatal(err)
	}
	e, err := a.Epsilon(delta)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestPrivacyTruth asserts the privacy of every setting the notebook runs, at default size and in quick
// mode, against the table it prints (PrivacyTable of PrivacyRows), recomputed here from the mechanisms and
// the paper's formulas rather than through the package's code: p_T from binomial coefficients, the
// certificate (ε1 + ln(1/(1 − p_T)) + ε2, δ1 + p_T + δ2) from the split, and the ε the DP-SGD steps spend
// by a PLD accountant on the exact Selective DP-SGD step. Every baseline is certified as the ours it is
// compared with; every run's DP-SGD steps spend at most their budget, and calibrated ones within 0.01 of
// it; the paper's accounting spends more than its nominal ε2.
func TestPrivacyTruth(t *testing.T) {
	for _, quick := range []string{"", "1"} {
		t.Run("quick="+quick, func(t *testing.T) {
			t.Setenv(experiment.QuickEnv, quick)
			cfg := NewConfig(false)
			rows, err := PrivacyRows(cfg)
			if err != nil {
				t.Fatal(err)
			}
			table := PrivacyTable(rows)
			certCol, e2Col := slices.Index(PrivacyHeader, "certified (ε, δ)"), slices.Index(PrivacyHeader, "ε2 spent (exact)")
			n := map[string]int{"cartpole": 4, "acrobot": 4, "lunarlander": 1, "hiv": 1}
			certOf := func(sp Split, env string, m int) (float64, float64) {
				delta := 1 / float64(m)
				if sp.Eps1 == 0 {
					return sp.Eps2, sp.Delta2 * delta
				}
				N := n[env]
				pt := -math.Expm1(lchoose(m*N-N, sp.T) - lchoose(m*N, sp.T))
				return sp.Eps1 - math.Log1p(-pt) + sp.Eps2, (sp.Delta1+sp.Delta2)*delta + pt
			}
			baselines, paper := 0, 0
			for i, r := range rows {
				what := fmt.Sprintf("%s %s m = %d ε = %g p = %g", label(r.Setting), r.Env, r.M, r.Epsilon, r.P)
				eps, delta := certOf(r.Split, r.Env, r.M)
				if r.Method == ExpertDPSGD {
					baselines++
					if r.Split == (Split{Eps2: r.Epsilon, Delta2: 1}) {
						eps, delta = r.Epsilon, 1/float64(r.M)
					}
				}
				if math.Abs(r.CertEps-eps) > 1e-9*eps || math.Abs(r.CertDelta-delta) > 1e-8*delta {
					t.Errorf("%s: certified (%g, %g), the formulas (%g, %g)", what, r.CertEps, r.CertDelta, eps, delta)
				}
				if got, want := table[i][certCol], fmt.Sprintf("(%.4g, %.2g)", eps, delta); got != want {
					t.Errorf("%s: the notebook prints %s, want %s", what, got, want)
				}
				budget, d2 := r.Abs.Eps2, r.Abs.Delta2
				q := 128 / float64(r.M)
				for _, st := range []struct {
					p, s  float64
					steps int
					eps2  float64
				}{{r.P, r.S, r.Steps, r.Eps2}, {1, r.FallbackS, r.FallbackSteps, r.FallbackEps2}} {
					if st.s == 0 {
						continue
					}
					p := st.p
					if r.Method == ExpertDPSGD {
						p = 1
					}
					e2 := spent(t, p, q, st.s, st.steps, d2)
					switch {
					case math.Abs(e2-st.eps2) > 1e-9:
						t.Errorf("%s: ε2 spent %g, the mechanisms say %g", what, st.eps2, e2)
					case e2 > budget+1e-12:
						t.Errorf("%s: spends ε2 = %g > its budget %g", what, e2, budget)
					case r.Noise == NoiseCalibrated && e2 < budget-0.01:
						t.Errorf("%s: calibrated to spend %g, well under its budget %g", what, e2, budget)
					}
				}
				if r.S > 0 && table[i][e2Col] != fmt.Sprintf("%.3f", r.Eps2) {
					t.Errorf("%s: prints ε2 %s", what, table[i][e2Col])
				}
				if r.PaperS > 0 {
					paper++
					if e := spent(t, r.P, q, r.PaperS, cfg.Steps, d2); !(e > budget+0.05) || math.Abs(e-r.PaperEps2) > 1e-9 {
						t.Errorf("%s: the paper's calibration spends %g (row %g), want more than ε2 = %g", what, e, r.PaperEps2, budget)
					}
				}
			}
			if len(rows) < 15 || baselines < 8 || paper < 2 {
				t.Errorf("%d rows, %d baselines, %d with the paper's calibration", len(rows), baselines, paper)
			}
		})
	}
}

// The 10⁻³ grid calibrates close to the true ε at the notebook's step count: a PLD ten times finer
// certifies that expert-level DP-SGD at ε = 10 and ours' mixed steps (CartPole, ε2 = 2.5, p = 0.8) spend
// within 0.02 of their nominal ε2, and not more.
func TestCalibrationIsTight(t *testing.T) {
	t.Setenv(experiment.QuickEnv, "")
	steps := NewConfig(false).Steps
	for _, j := range []Job{{Method: ExpertDPSGD, Epsilon: 10}, OursJob("cartpole", expertdp.CQL, 10)} {
		tc, sp, _, err := trainConfig(j, &Setup{PerExpert: 4}, NumExperts, 128, steps)
		if err != nil {
			t.Fatal(err)
		}
		s, err := tc.CalibrateNoise(NumExperts, steps)
		if err != nil {
			t.Fatal(err)
		}
		tc.NoiseMultiplier = s
		a, _ := mechanisms.NewPLDAccountant(mechanisms.PLDParams{Discretization: 1e-4})
		if err := a.Compose(tc.StepEvent(NumExperts), steps); err != nil {
			t.Fatal(err)
		}
		budget := tc.Epsilon
		hi, lo, err := a.EpsilonBounds(tc.Delta)
		if err != nil {
			t.Fatal(err)
		}
		if lo < budget-0.02 || hi > budget+1e-3 {
			t.Errorf("%v (split %+v): s = %g certifies a true ε2 in [%g, %g], budget %g", j.Method, sp, s, lo, hi, budget)
		}
	}
}

// RunJobs on a tiny Acrobot setup (40 experts, whose release is empty): ours on D_stable alone has no
// budget to fall back on and evaluates its initial network; ours with the 3/4 split falls back to
// expert-level DP-SGD within ε2; the baseline runs at ours' certificate, p_T included; a setting draws the
// same stream in any list of jobs.
func TestRunJobsSmall(t *testing.T) {
	st, err := NewSetup("acrobot", SetupConfig{Bases: 2, Experts: 40, PerExpert: 1, RefEpisodes: 2, Workers: 1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	f := FallbackJob("acrobot", expertdp.CQL, 10)
	jobs := []Job{StableOnlyJob("acrobot", expertdp.CQL, 10), f, BaselineJob("acrobot", expertdp.CQL, 10, f.Split), {Env: "acrobot", Method: Untrained}}
	cfg := ExperimentConfig{Batch: 8, Steps: 20, Workers: 1, Seed: 3, Learner: expertdp.LearnerConfig{Hidden: []int{8}}}
	out, err := RunJobs(map[string]*Setup{"acrobot": st}, jobs, cfg)
	if err != nil {
		t.Fatal(err)
	}
	pt, _ := expertdp.FixedLogDelta(40, 1, 25)
	eps, delta := Certificate(Split{Eps1: 10, Delta1: 1.0 / 40, T: 25}, pt)
	if o := out[0]; o.Stable != 0 || !strings.Contains(o.Note, "initial network") || o.Steps != 0 || o.PT != pt || o.CertEps != eps || o.CertDelta != delta {
		t.Errorf("D_stable alone, empty: %+v", o)
	}
	if o := out[1]; !o.FellBack || o.Private != 20 || !(o.Eps2Exact <= 2.5) || o.Eps2Exact < 2.4 || math.Abs(o.CertEps-eps) > 1e-12 || math.Abs(o.CertDelta-delta) > 1e-15 {
		t.Errorf("the fallback: %+v", o)
	}
	if o := out[2]; o.CertEps != out[1].CertEps || o.CertDelta != out[1].CertDelta || o.Eps2Exact > o.CertEps || o.Private != 20 {
		t.Errorf("the baseline at ours' certificate (%g, %g): %+v", out[1].CertEps, out[1].CertDelta, o)
	}
	if o := out[3]; o.Note != "" || o.Steps != 0 || o.CertEps != 0 || math.IsNaN(o.Normalized) {
		t.Errorf("untrained: %+v", o)
	}
	again, err := RunJobs(map[string]*Setup{"acrobot": st}, []Job{jobs[3], jobs[1]}, cfg)
	if err != nil || again[0] != out[3] || again[1] != out[1] {
		t.Errorf("the same settings in another list: %+v, %+v (%v)", again[0], again[1], err)
	}
	st.PerExpert = 0
	if _, err := RunJobs(map[string]*Setup{"acrobot": st}, jobs[:1], cfg); err == nil {
		t.Error("a setup without PerExpert ran a release")
	}
}
