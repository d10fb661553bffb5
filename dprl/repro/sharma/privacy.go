package sharma

import (
	"encoding/json"
	"fmt"
	"math"
	"os"

	"github.com/dprl-project/dprl/dprl/expertdp"
	"github.com/dprl-project/dprl/dprl/report"
)

// PrivacyRow is the privacy of one setting the notebook runs; every seed and both learners of a setting
// spend the same. Budgets are at δ = 1/m.
type PrivacyRow struct {
	Method     Method
	Env        string // "" for expert-level DP-SGD, whose privacy does not depend on the environment
	M          int    // experts
	Epsilon    float64
	Split      Split // absolute δ's; for expert-level DP-SGD ε2 = ε, δ2 = δ
	P          float64
	Accounting expertdp.Accounting
	Steps      int
	S          float64 // noise multiplier of the DP-SGD steps (0: none run)
	Eps2       float64 // ε2 at δ2 under the accounting the runs were calibrated with
	Eps2Exact  float64 // ε2 at δ2 under the exact mixture accounting (expertdp.AccountingMixed)
	// PaperS is the noise multiplier the paper's accounting calibrates for the same nominal ε2 and steps
	// (Ours with 0 < p < 1), and PaperEps2Exact what that s really spends.
	PaperS, PaperEps2Exact float64
	PT                     float64 // p_T: what the fixed log adds to the release's δ1 (Ours with ε1 > 0)
}

// Exact is the (ε, δ) the runs spend: ε1 + ε2 with ε2 under the exact mixture accounting, δ1 + δ2, and
// DataRelease as the paper analyses it (each examined trajectory a fresh draw).
func (r PrivacyRow) Exact() (eps, delta float64) {
	return r.Split.Eps1 + r.Eps2Exact, r.Split.Delta1 + r.Split.Delta2
}

// FixedLog is what the runs certify on the fixed log DataRelease actually walks:
// (ε1 + ln(1/(1 − p_T)) + ε2, δ1 + p_T + δ2) (expertdp.FixedLogGuarantee).
func (r PrivacyRow) FixedLog() (eps, delta float64) {
	e1, d1 := r.Split.Eps1, r.Split.Delta1
	if r.PT > 0 {
		e1, d1 = expertdp.FixedLogGuarantee(e1, d1, r.PT)
	}
	return e1 + r.Eps2Exact, d1 + r.Split.Delta2
}

// Published reports whether the row's runs were calibrated with the paper's optimistic accounting (they
// spend more than their nominal ε).
func (r PrivacyRow) Published() bool {
	return r.Method == Ours && r.Accounting == expertdp.AccountingPaper && r.P > 0 && r.P < 1 && r.Split.Eps2 > 0
}

// privacyKey is a job's Setting without what does not change its privacy: the learner, and the
// environment for expert-level DP-SGD.
func privacyKey(j Job) Setting {
	k := j.Setting()
	k.Algorithm = 0
	if k.Method == ExpertDPSGD {
		k.Env = ""
	}
	return k
}

// PrivacyRows accounts every private setting of cfg.Jobs() (one row each, in order of first appearance)
// at cfg.Steps steps, b = 128 and m = NumExperts (or the job's m), calibrating s exactly as RunJobs does
// (same TrainConfig, same cached calibration), then re-accounting it under the exact mixture; for Ours
// with 0 < p < 1 it also calibrates the paper's accounting for the same nominal ε2 and says what that s
// really spends.
func PrivacyRows(cfg Config) ([]PrivacyRow, error) {
	return privacyRows(cfg, cfg.Jobs())
}

// privacyRows is PrivacyRows for the given jobs of cfg (the ones that run at the notebook's size).
func privacyRows(cfg Config, jobs []Job) ([]PrivacyRow, error) {
	perExpert := map[string]int{}
	for _, s := range cfg.Sizes {
		perExpert[s.Env] = s.PerExpert
	}
	seen := map[Setting]bool{}
	var rows []PrivacyRow
	for _, j := range jobs {
		if j.Method == NonPrivate {
			continue
		}
		key := privacyKey(j)
		if seen[key] {
			continue
		}
		seen[key] = true
		m := NumExperts
		if j.Experts > 0 {
			m = j.Experts
		}
		tc, sp, err := trainConfig(j, m, 128, cfg.Steps)
		if err != nil {
			return nil, err
		}
		r := PrivacyRow{Method: key.Method, Env: key.Env, M: m, Epsilon: j.Epsilon, Split: sp, P: tc.P, Accounting: key.Accounting, Steps: cfg.Steps}
		if tc.P > 0 {
			if r.S, err = tc.CalibrateNoise(m, cfg.Steps); err != nil {
				return nil, err
			}
			tc.NoiseMultiplier = r.S
			if r.Eps2, err = tc.SpentEpsilon(m, cfg.Steps); err != nil {
				return nil, err
			}
			exact := tc
			exact.Accounting = expertdp.AccountingMixed
			if r.Eps2Exact, err = exact.SpentEpsilon(m, cfg.Steps); err != nil {
				return nil, err
			}
			if r.Method == Ours && tc.P < 1 {
				paper := tc
				paper.Accounting, paper.NoiseMultiplier = expertdp.AccountingPaper, 0
				if r.PaperS, err = paper.CalibrateNoise(m, cfg.Steps); err != nil {
					return nil, err
				}
				exact.NoiseMultiplier = r.PaperS
				if r.PaperEps2Exact, err = exact.SpentEpsilon(m, cfg.Steps); err != nil {
					return nil, err
				}
			}
		}
		if r.Method == Ours && sp.Eps1 > 0 {
			n := perExpert[j.Env]
			if n < 1 {
				return nil, fmt.Errorf("sharma: environment %q has no EnvSize in Config.Sizes (trajectories per expert)", j.Env)
			}
			if r.PT, err = expertdp.FixedLogDelta(m*n, n, sp.T); err != nil {
				return nil, err
			}
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// PrivacyHeader names the columns of PrivacyTable.
var PrivacyHeader = []string{"method", "env", "m", "ε (nominal)", "ε1 / δ1 (T)", "ε2 / δ2", "p", "s", "ε2 (calibrated by)",
	"ε2 (exact)", "ε (exact)", "δ", "p_T (fixed log)", "(ε, δ) on the fixed log"}

// methodLabel names a row's method; runs calibrated with the paper's accounting say so.
func methodLabel(m Method, published bool) string {
	if published {
		return "ours (published accounting)"
	}
	return m.String()
}

// PrivacyTable formats the rows as the notebook shows them: ε to three decimals (the calibrated runs spend
// at most their nominal ε), δ to two significant digits.
func PrivacyTable(rows []PrivacyRow) [][]string {
	out := make([][]string, len(rows))
	for i, r := range rows {
		env, rel, p, s, e2, e2x := "any", "—", "—", "—", "—", "—"
		if r.Env != "" {
			env = r.Env
		}
		if r.Split.Eps1 > 0 {
			rel = fmt.Sprintf("%.3g / %.2g (%d)", r.Split.Eps1, r.Split.Delta1, r.Split.T)
		}
		if r.Method == Ours {
			p = fmt.Sprint(r.P)
		}
		if r.S > 0 {
			acc := "exact"
			if r.Accounting == expertdp.AccountingPaper {
				acc = "paper"
			}
			s, e2, e2x = fmt.Sprintf("%.4g", r.S), fmt.Sprintf("%.3f (%s)", r.Eps2, acc), fmt.Sprintf("%.3f", r.Eps2Exact)
		}
		eps, delta := r.Exact()
		fe, fd := r.FixedLog()
		pt, fixed := "—", fmt.Sprintf("(%.3f, %.2g)", fe, fd)
		if r.PT > 0 {
			pt = fmt.Sprintf("%.2g", r.PT)
		}
		out[i] = []string{methodLabel(r.Method, r.Published()), env, fmt.Sprint(r.M), fmt.Sprint(r.Epsilon), rel,
			fmt.Sprintf("%.3g / %.2g", r.Split.Eps2, r.Split.Delta2), p, s, e2, e2x, fmt.Sprintf("%.3f", eps), fmt.Sprintf("%.2g", delta), pt, fixed}
	}
	return out
}

// privacyFile is where Experiments saves the privacy rows for the later cells.
func privacyFile() string { return tempFile("privacy.json") }

// loadPrivacy reads the rows Experiments saved.
func loadPrivacy() ([]PrivacyRow, error) {
	b, err := os.ReadFile(privacyFile())
	if err != nil {
		return nil, err
	}
	var rows []PrivacyRow
	return rows, json.Unmarshal(b, &rows)
}

// rowOf finds the privacy row of an outcome's setting (nil for non-private runs).
func rowOf(rows []PrivacyRow, o Outcome) *PrivacyRow {
	if o.Method == NonPrivate {
		return nil
	}
	k := privacyKey(o.Job)
	for i := range rows {
		r := &rows[i]
		m := k.Experts
		if m == 0 {
			m = NumExperts
		}
		if r.Method == k.Method && r.Env == k.Env && r.M == m && r.Epsilon == o.Epsilon && r.Accounting == k.Accounting &&
			(r.Method == ExpertDPSGD || (r.Split.Eps1 == k.Split.Eps1 && r.Split.Eps2 == k.Split.Eps2 && r.Split.T == k.Split.T && r.P == k.P)) {
			return r
		}
	}
	return nil
}

// Privacy shows the privacy of every setting the experiments ran (PrivacyRows, saved by Experiments) and
// checks that each run used its row's noise multiplier and spent its row's ε2; for a figure read from a
// merged sweep it adds the privacy of the sweep's settings from the runs' own rows. Compared runs are calibrated
// with the exact mixture accounting, so that ours and expert-level DP-SGD at the same nominal ε spend the
// same ε; the runs labelled "published accounting" spend more.
func Privacy(out report.Sink) error {
	rows, err := loadPrivacy()
	if err != nil {
		return err
	}
	all, err := LoadOutcomes(tempFile("outcomes.json"))
	if err != nil {
		return err
	}
	for _, o := range all {
		r := rowOf(rows, o)
		if o.Method == NonPrivate || o.Private == 0 {
			continue
		}
		if r == nil {
			return fmt.Errorf("sharma: run %+v has no privacy row", o.Job)
		}
		if math.Abs(o.S-r.S) > 1e-12*r.S || math.Abs(o.Eps2Exact-r.Eps2Exact) > 1e-9 {
			return fmt.Errorf("sharma: run %+v used s = %g (ε2 exact %g), its privacy row says s = %g (%g)", o.Job, o.S, o.Eps2Exact, r.S, r.Eps2Exact)
		}
	}
	out.Table(PrivacyHeader, PrivacyTable(rows))
	worstPT, worstFixed := 0.0, 0.0
	for _, r := range rows {
		if r.PT > worstPT && r.M == NumExperts {
			worstPT = r.PT
			_, worstFixed = r.FixedLog()
		}
	}
	out.Markdown(fmt.Sprintf("Every run above was checked to have used its row's s and spent its row's ε2. "+
		"**ε (exact)** is what a run spends with DataRelease as the paper analyses it and the DP-SGD steps under the exact mixture accounting: "+
		"at most the nominal ε for every run that is compared with another. The rows \"published accounting\" are calibrated as the paper does (q = p·b/m) "+
		"and spend more: they are shown only under that label, never in a comparison. "+
		"**On the fixed log** DataRelease certifies less than (ε1, δ1): the chance p_T that one expert's trajectories are among the T examined adds to δ "+
		"(up to %.2g at m = 3000, against δ = 1/m = %.2g; overall δ up to %.2g) and ln(1/(1 − p_T)) to ε. Every \"ours\" run with ε1 > 0 carries that δ; "+
		"expert-level DP-SGD does not, so at equal ε the comparison favours ours.", worstPT, 1.0/NumExperts, worstFixed))
	for _, s := range Sweeps {
		sw, ok, err := loadSwept(s.Tag)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		srows, err := privacyOfRuns(sw.Outcomes)
		if err != nil {
			return err
		}
		out.Markdown(fmt.Sprintf("**Full size:** %s's runs come from the %s; their privacy, from the runs' own noise multipliers and spent ε "+
			"(every private run calibrated with the exact accounting and spending at most its nominal ε, checked when they were read):", figureName(s.Tag), sw.Source))
		out.Table(PrivacyHeader, PrivacyTable(srows))
	}
	return nil
}
