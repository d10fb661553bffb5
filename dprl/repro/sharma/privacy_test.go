package sharma

import (
	"fmt"
	"math"
	"slices"
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

// TestPrivacyTruth asserts the true ε of every setting the notebook runs, at default size and in quick
// mode, against the table the notebook prints (PrivacyTable of PrivacyRows). Each ε2 is recomputed here
// from the mechanisms, not through expertdp's accounting: a PLD accountant (the library's, h = 10⁻³) on the
// exact Selective DP-SGD step, mechanisms.Mixed{p, Poisson(b/m)-subsampled Gaussian(s)} (the plain
// subsampled Gaussian at p = 1), composed over the run's steps; p_T from binomial coefficients. Then: every
// run compared with another spends at most its nominal ε, and the calibrated ones within 0.01 of it (ours
// and expert-level DP-SGD at the same ε spend the same); the runs labelled "published accounting" spend
// more than their nominal ε, by what the table says.
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
			col := func(name string) int { return slices.Index(PrivacyHeader, name) }
			epsCol, fixedCol := col("ε (exact)"), col("(ε, δ) on the fixed log")
			published := 0
			for i, r := range rows {
				eps2 := 0.0
				if r.S > 0 {
					var ev mechanisms.Event = mechanisms.PoissonSampled{Q: 128 / float64(r.M), Event: mechanisms.GaussianEvent{NoiseMultiplier: r.S}}
					if r.P < 1 { // the published runs too: what they really spend
						ev = mechanisms.Mixed{P: r.P, Event: ev}
					}
					a, _ := mechanisms.NewPLDAccountant(mechanisms.PLDParams{Discretization: 1e-3})
					if err := a.Compose(ev, cfg.Steps); err != nil {
						t.Fatal(err)
					}
					if eps2, err = a.Epsilon(r.Split.Delta2); err != nil {
						t.Fatal(err)
					}
				}
				pt := 0.0
				if r.Split.Eps1 > 0 {
					n := map[string]int{"cartpole": 4, "acrobot": 4, "lunarlander": 1, "hiv": 1}[r.Env]
					pt = -math.Expm1(lchoose(r.M*n-n, r.Split.T) - lchoose(r.M*n, r.Split.T))
				}
				eps := r.Split.Eps1 + eps2
				what := fmt.Sprintf("%s %s m = %d ε = %g p = %g %v", r.Method, r.Env, r.M, r.Epsilon, r.P, r.Accounting)
				if got, want := table[i][epsCol], fmt.Sprintf("%.3f", eps); got != want {
					t.Errorf("%s: the notebook prints ε %s, the mechanisms say %s", what, got, want)
				}
				if got, want := table[i][fixedCol], fmt.Sprintf("(%.3f, %.2g)", eps-math.Log1p(-pt), r.Split.Delta1+pt+r.Split.Delta2); got != want {
					t.Errorf("%s: the notebook prints %s on the fixed log, want %s", what, got, want)
				}
				if math.Abs(r.PT-pt) > 1e-7*pt {
					t.Errorf("%s: p_T %g, want %g", what, r.PT, pt)
				}
				switch {
				case r.Published():
					published++
					if !(eps > r.Epsilon+0.05) {
						t.Errorf("%s: the published calibration spends %g, want more than its nominal ε", what, eps)
					}
				case eps > r.Epsilon+1e-12:
					t.Errorf("%s: spends ε %g > its nominal %g", what, eps, r.Epsilon)
				case r.S > 0 && eps < r.Epsilon-0.01:
					t.Errorf("%s: calibrated to spend ε %g, well under its nominal %g", what, eps, r.Epsilon)
				}
			}
			if published != 2 || len(rows) < 15 {
				t.Errorf("%d rows, %d published", len(rows), published)
			}
		})
	}
}

// RunJobs on a tiny Acrobot setup (40 experts): ours with the release only (p = 0) finds D_stable empty
// and evaluates its initial network instead of failing or returning NaN; a published-accounting run
// records what it really spends (more than ε2), an exact one spends at most ε2; every release records p_T.
func TestRunJobsSmall(t *testing.T) {
	st, err := NewSetup("acrobot", SetupConfig{Bases: 2, Experts: 40, PerExpert: 1, RefEpisodes: 2, Workers: 1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	split := PaperSplit("cartpole", 10, 1, false)
	jobs := []Job{
		{Env: "acrobot", Algorithm: expertdp.CQL, Method: Ours, Epsilon: 10, Split: PaperSplit("acrobot", 10, 1, false)},
		{Env: "acrobot", Algorithm: expertdp.CQL, Method: Ours, Epsilon: 10, Split: split, P: 0.5, Accounting: expertdp.AccountingPaper},
		{Env: "acrobot", Algorithm: expertdp.CQL, Method: Ours, Epsilon: 10, Split: split, P: 0.5},
	}
	out, err := RunJobs(map[string]*Setup{"acrobot": st}, jobs, ExperimentConfig{Batch: 8, Steps: 20, Workers: 1, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if o := out[0]; o.Stable != 0 || o.Note == "" || math.IsNaN(o.Normalized) || o.Steps != 0 {
		t.Errorf("release only, D_stable empty: %+v", o)
	}
	if o := out[1]; !(o.Eps2 <= 2.5 && o.Eps2Exact > 2.5) {
		t.Errorf("published accounting: ε2 %g (paper), %g (exact); want ≤ 2.5 and > 2.5", o.Eps2, o.Eps2Exact)
	}
	if o := out[2]; !(o.Eps2Exact <= 2.5 && o.Eps2Exact == o.Eps2 && o.S > out[1].S) {
		t.Errorf("exact accounting: ε2 %g, s %g (published s %g)", o.Eps2Exact, o.S, out[1].S)
	}
	for _, o := range out {
		if want, _ := expertdp.FixedLogDelta(40, 1, o.Split.T); o.FixedLogDelta != want {
			t.Errorf("p_T %g, want %g", o.FixedLogDelta, want)
		}
	}
	st.PerExpert = 0
	if _, err := RunJobs(map[string]*Setup{"acrobot": st}, jobs[:1], ExperimentConfig{Steps: 20, Workers: 1}); err == nil {
		t.Error("a setup without PerExpert ran a release")
	}
}

// The 10⁻³ grid calibrates close to the true ε at the notebook's step count: a PLD ten times finer
// certifies that expert-level DP-SGD at ε = 10 and ours' mixed steps (CartPole, ε2 = 2.5, p = 0.8) spend
// within 0.02 of their nominal ε2, and not more.
func TestCalibrationIsTight(t *testing.T) {
	t.Setenv(experiment.QuickEnv, "")
	steps := NewConfig(false).Steps
	for _, j := range []Job{{Method: ExpertDPSGD, Epsilon: 10}, {Method: Ours, Epsilon: 10, Split: PaperSplit("cartpole", 10, 1, false), P: 0.8}} {
		tc, sp, err := trainConfig(j, NumExperts, 128, steps)
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
		hi, lo, err := a.EpsilonBounds(sp.Delta2)
		if err != nil {
			t.Fatal(err)
		}
		if lo < sp.Eps2-0.02 || hi > sp.Eps2+1e-3 {
			t.Errorf("%v at ε2 = %g: s = %g certifies a true ε2 in [%g, %g]", j.Method, sp.Eps2, s, lo, hi)
		}
	}
}
