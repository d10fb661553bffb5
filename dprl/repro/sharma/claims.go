package sharma

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/dprl-project/dprl/dprl/experiment"
	"github.com/dprl-project/dprl/dprl/expertdp"
	"github.com/dprl-project/dprl/dprl/report"
	"github.com/dprl-project/dprl/dprl/repro"
)

// The paper's words the claims quote (testdata/quotes.txt holds the passages).
const (
	quoteFig3     = "Our method consistently outperforms DP-SGD, especially in the high"
	quoteHigh     = "recover much of the performance loss due to DP-SGD, especially in the high"
	quoteFig4     = "We observe increasing improvements of our method over DP-SGD as"
	quoteEmpty    = "the stable dataset is empty and our algorithm defaults towards the baseline"
	quoteCombine  = "combining both stages of the algorithm described above, performs better than either of them individually"
	quoteLow      = "is optimal as we minimize the noise injected by the DP-SGD training"
	quoteSuffices = "suffices to get the optimal performance in high"
	quoteInf      = "inf (infeasible) denotes that the stable dataset … was empty, and training was infeasible"
)

// matchMargin is the stated margin of a "matches" test: A matches B when the 95% interval of mean(A) −
// mean(B), in normalised return (0 the uniform policy, 1 the best expert), lies wholly above −matchMargin.
const matchMargin = 0.1

// alternative is one setting of a choice the paper leaves open: how the settings of a test change under it
// (ok false: the setting does not depend on the choice).
type alternative struct {
	name string
	sub  func(Setting) (Setting, bool)
}

// test is a claims row stated before the run: the contrast Σ coef[k]·mean(groups[k]) of normalised returns
// (or of |D_stable| with stable set) against boundary, the claimed side above or below it. A comparison
// (a != "") also measures A (its setting aAt) against the trivial reference and lists A's and B's
// certified (ε, δ) (aAt, bAt).
type test struct {
	claim    repro.Claim
	groups   []Setting
	coef     []float64
	boundary float64
	above    bool
	stable   bool
	a, b     string
	aAt, bAt Setting
	trivial  Setting
	choice   string        // what the paper leaves open that the alternatives change
	alts     []alternative // recomputed when the verdict is not reproduced
}

// diff is the test "mean(a) − mean(b) above boundary" as a comparison of A (a) with B (b).
func diff(c repro.Claim, a, b Setting, aName, bName string, boundary float64) test {
	return test{claim: c, groups: []Setting{a, b}, coef: []float64{1, -1}, boundary: boundary, above: true, a: aName, b: bName, aAt: a, bAt: b,
		trivial: untrainedSetting(a.Env, a.Algorithm)}
}

// evaluate decides t on r's runs (without its alternatives), as repro.Record will.
func (r *runSet) evaluate(t test) repro.Claim {
	groups := make([][]float64, len(t.groups))
	for k, g := range t.groups {
		if t.stable {
			groups[k] = r.stable(g)
		} else {
			groups[k] = r.values(g)
		}
	}
	est, lo, hi, n := ContrastCI(groups, t.coef, 0.95)
	format := "%+.2f"
	if t.stable {
		format = "%.3g"
	}
	c := repro.Tested(t.claim, est, lo, hi, n, format, t.boundary, t.above)
	if t.a != "" {
		d, dlo, dhi := experiment.DiffCI(r.values(t.aAt), r.values(t.trivial), 0.95)
		c.Compare = &repro.Comparison{A: t.a, B: t.b, Trivial: Untrained.String(), Margin: repro.Interval{Mean: d, Low: dlo, High: dhi}}
		c.Privacy = []repro.Privacy{r.privacy(t.a, t.aAt), r.privacy(t.b, t.bAt)}
	}
	return repro.Decide(c)
}

// privacy is the certified (ε, δ) of set's runs, as the runs recorded it, under name.
func (r *runSet) privacy(name string, set Setting) repro.Privacy {
	p := repro.Privacy{Method: name, NonPrivate: set.Method == NonPrivate}
	if g := r.by[set]; len(g) > 0 && !p.NonPrivate {
		p.Epsilon, p.Delta = g[0].CertEps, g[0].CertDelta
	} else if !p.NonPrivate {
		p.Epsilon, p.Delta = math.NaN(), math.NaN()
	}
	return p
}

// substitute is t under alternative a (ok false when no setting of t depends on it).
func (t test) substitute(a alternative) (test, bool) {
	changed := false
	sub := func(s Setting) Setting {
		if s2, ok := a.sub(s); ok {
			changed = true
			return s2
		}
		return s
	}
	u := t
	u.groups = make([]Setting, len(t.groups))
	for k, g := range t.groups {
		u.groups[k] = sub(g)
	}
	u.aAt, u.bAt = sub(t.aAt), sub(t.bAt)
	return u, changed
}

// decide is t's row: evaluate, and when a paper row's verdict is not reproduced its Robust, the verdict
// under each of t's alternatives (alternatives that change nothing are left out; one whose runs r does not
// hold gets the verdict "no runs", which the data functions prevent by running them, withAlternatives).
func (r *runSet) decide(t test) repro.Claim {
	c := r.evaluate(t)
	if c.Verdict != repro.NotReproduced || (t.claim.Kind != repro.KindPaper && t.claim.Kind != repro.KindFigure) {
		return c
	}
	rob := &repro.Robustness{Choice: t.choice}
	for _, a := range t.alts {
		u, ok := t.substitute(a)
		if !ok {
			continue
		}
		v := "no runs"
		if len(r.absent(u)) == 0 {
			v = r.evaluate(u).Verdict
		}
		rob.Alternatives = append(rob.Alternatives, repro.Alternative{Setting: a.name, Verdict: v})
	}
	if len(rob.Alternatives) == 0 {
		rob.Choice = "" // nothing the paper leaves open changes this test's runs
	}
	c.Robust = rob
	return c
}

// absent are the settings t reads that r holds no run of.
func (r *runSet) absent(t test) []Setting {
	var out []Setting
	for _, g := range append([]Setting{t.aAt, t.bAt}, t.groups...) {
		if g != (Setting{}) && len(r.by[g]) == 0 {
			out = append(out, g)
		}
	}
	return out
}

// missing are the settings t's alternatives need that r does not hold, for a test whose verdict is not
// reproduced (what the data functions run before returning their table).
func (r *runSet) missing(t test) []Setting {
	if r.evaluate(t).Verdict != repro.NotReproduced {
		return nil
	}
	var out []Setting
	for _, a := range t.alts {
		if u, ok := t.substitute(a); ok {
			out = append(out, r.absent(u)...)
		}
	}
	return out
}

// otherNoise is the alternative noise regime of a test decided in regime n, at step count steps.
func otherNoise(n Noise, steps int) alternative {
	name := fmt.Sprintf("the paper's noise multipliers (Table 3; s = %d for the baseline), until the budget is spent or %d steps", BaselineS, steps)
	to := NoisePaper
	if n == NoisePaper {
		name, to = fmt.Sprintf("s calibrated to spend the budget in %d steps", steps), NoiseCalibrated
	}
	return alternative{name: name, sub: func(s Setting) (Setting, bool) {
		if !noisy(s) {
			return s, false
		}
		s.Noise = to
		return s.Job("", 0).Setting(), true
	}}
}

// noisy reports whether a setting runs DP-SGD steps, whose noise the regime sets.
func noisy(s Setting) bool {
	return s.Method == ExpertDPSGD || s.Method == Ours && s.Split.Eps2 > 0 && (s.P > 0 || s.Fallback)
}

// steps is the step count (or cap) of r's private runs tagged tag.
func (r *runSet) steps(tag string) int {
	n := 0
	for _, o := range r.all {
		if o.Tag == tag && o.Private > 0 {
			n = max(n, o.Steps)
		}
	}
	return n
}

// setupNote is what every default-size row says about its setup.
func setupNote(n Noise, steps int) string {
	if n == NoisePaper {
		return fmt.Sprintf("the paper's noise regime (s from Table 3, s = %d for the baseline) capped at %d steps", BaselineS, steps)
	}
	return fmt.Sprintf("setup-conditional: our worked setting (64×64 networks, s calibrated to spend the budget in %d steps; the paper: s ∈ {10, …, 80} "+
		"until the budget is spent, 10⁵ steps and more, in the full-size sweep)", steps)
}

// fig3Tests are Fig. 3's claims on r: for each environment, learner and ε ∈ {7.5, 10}, ours above
// expert-level DP-SGD at ours' certificate; for each environment and learner, the gain at ε = 10 above the
// gain at ε = 5; and on Acrobot, ours on D_stable alone matching the non-private learner at ε = 10.
func (r *runSet) fig3Tests() []test {
	n, steps := r.noise("fig3"), r.steps("fig3")
	note := setupNote(n, steps)
	var ts []test
	envs := r.envs(func(env string) Setting { return npSetting(env, expertdp.CQL, 0) })
	for _, env := range envs {
		for _, alg := range learners {
			for _, eps := range []float64{7.5, 10} {
				o, b := fig3Sets(env, alg, eps, n)
				c := repro.Claim{Key: fmt.Sprintf("fig3-%s%v-%g", env, alg, eps), Kind: repro.KindPaper, Where: "Fig. 3 caption; §6.1",
					Claim: fmt.Sprintf("Fig. 3, %s %v, ε = %g: ours above expert-level DP-SGD at equal certified (ε, δ)", envNames[env], alg, eps),
					Quote: quoteFig3, Paper: "ours above DP-SGD",
					Why: "test stated before the run: Welch 95% interval of mean normalised return, ours − DP-SGD, above 0; the baseline runs at ours' " +
						"certified (ε, δ), p_T included; " + note}
				t := diff(c, o, b, "ours", "expert-level DP-SGD", 0)
				t.choice, t.alts = "noise regime", []alternative{otherNoise(n, steps)}
				ts = append(ts, t)
			}
			o10, b10 := fig3Sets(env, alg, 10, n)
			o5, b5 := fig3Sets(env, alg, 5, n)
			if len(r.by[o5]) == 0 {
				continue
			}
			c := repro.Claim{Key: fmt.Sprintf("fig3-high-%s%v", env, alg), Kind: repro.KindPaper, Where: "§6.1",
				Claim: fmt.Sprintf("Fig. 3, %s %v: the gain of ours over DP-SGD is larger at ε = 10 than at ε = 5", envNames[env], alg),
				Quote: quoteHigh, Paper: "gain largest at high ε",
				Why: "test stated before the run: Welch 95% interval of (ours − DP-SGD at ε = 10) − (ours − DP-SGD at ε = 5), mean normalised returns, " +
					"above 0; ours measured against the untrained network at ε = 5 (where it is weakest), privacy listed at ε = 5; " + note}
			t := test{claim: c, groups: []Setting{o10, b10, o5, b5}, coef: []float64{1, -1, -1, 1}, above: true, a: "ours", b: "expert-level DP-SGD",
				aAt: o5, bAt: b5, trivial: untrainedSetting(env, alg), choice: "noise regime", alts: []alternative{otherNoise(n, steps)}}
			ts = append(ts, t)
		}
	}
	if slices.Contains(envs, "acrobot") {
		for _, alg := range learners {
			o, _ := fig3Sets("acrobot", alg, 10, n)
			ts = append(ts, sufficesTest("acrobot", alg, o, nil, note))
		}
	}
	return ts
}

// sufficesTest is "D_stable suffices" on env with alg at ε = 10: ours on D_stable alone (o) matches the
// non-private learner, within matchMargin; alt, if any, is the other split the paper states.
func sufficesTest(env string, alg expertdp.Algorithm, o Setting, alt *alternative, note string) test {
	c := repro.Claim{Key: fmt.Sprintf("suffices-%s%v", env, alg), Kind: repro.KindPaper, Where: "§6.1; Table 1",
		Claim: fmt.Sprintf("%s %v, ε = 10: D_stable alone (p = 0, no DP-SGD step) matches the non-private learner", envNames[env], alg),
		Quote: quoteSuffices, Paper: "p = 0 best (Table 1): D_stable suffices",
		Why: fmt.Sprintf("test stated before the run: Welch 95%% interval of mean normalised return, ours on D_stable alone − non-private, above −%g "+
			"(a match within a tenth of the expert–random gap); ", matchMargin) + note}
	t := diff(c, o, npSetting(env, alg, 0), "ours (D_stable alone)", "non-private", -matchMargin)
	if alt != nil {
		t.choice, t.alts = "budget split (§6.1 vs App. B.3)", []alternative{*alt}
	}
	return t
}

// Fig3Claims records Fig. 3's claims from Fig3Data's table (fig3Tests) through out.
func Fig3Claims(out report.Sink, t *experiment.Table) error {
	return record(out, t, (*runSet).fig3Tests)
}

// record decides the tests the runs table t states and records them.
func record(out report.Sink, t *experiment.Table, tests func(*runSet) []test) error {
	r, err := readRuns(t)
	if err != nil {
		return err
	}
	ts := tests(r)
	rows := make([]repro.Claim, len(ts))
	for i, c := range ts {
		rows[i] = r.decide(c)
	}
	repro.Record(out, rows...)
	return nil
}

// fig4Tests are Fig. 4's claims: the gain of ours (with the fallback) over expert-level DP-SGD grows from the
// smallest m to the largest, its alternative ours on D_stable alone (the paper's Acrobot split); and at the
// smallest m the stable set is empty.
func (r *runSet) fig4Tests() []test {
	ms, n := r.ms(), r.noise("fig4")
	if len(ms) < 2 {
		return nil
	}
	note := setupNote(n, r.steps("fig4"))
	lo, hi := ms[0], ms[len(ms)-1]
	fl, sl, bl := fig4Sets(mOf(float64(lo)), n)
	fh, sh, bh := fig4Sets(mOf(float64(hi)), n)
	toStableOnly := alternative{name: "the paper's Acrobot split ε1 = ε (D_stable alone; no budget to fall back on: the initial network where D_stable is empty)",
		sub: func(s Setting) (Setting, bool) {
			switch s {
			case fl:
				return sl, true
			case fh:
				return sh, true
			}
			return s, false
		}}
	c := repro.Claim{Key: "fig4", Kind: repro.KindPaper, Where: "Fig. 4 caption; §6.1",
		Claim: fmt.Sprintf("Fig. 4 (Acrobot, ε = 10, CQL): the gain of ours over DP-SGD grows from m = %d to %d", lo, hi), Quote: quoteFig4,
		Paper: "gain grows with m",
		Why: fmt.Sprintf("test stated before the run: Welch 95%% interval of (ours − DP-SGD at m = %d) − (ours − DP-SGD at m = %d), mean normalised returns, "+
			"above 0; ours is the 3/4 split with the paper's fallback to DP-SGD when D_stable is empty (worked setting, ours: the paper's Acrobot split "+
			"leaves no budget to fall back on), measured against the untrained network at m = %d, privacy listed at m = %d (δ = 1/m; the baseline at "+
			"ours' certificate for each m); ", hi, lo, lo, lo) + note}
	grow := test{claim: c, groups: []Setting{fh, bh, fl, bl}, coef: []float64{1, -1, -1, 1}, above: true, a: "ours", b: "expert-level DP-SGD",
		aAt: fl, bAt: bl, trivial: untrainedSetting("acrobot", expertdp.CQL), choice: "budget split for the fallback", alts: []alternative{toStableOnly}}
	ce := repro.Claim{Key: "fig4-empty", Kind: repro.KindPaper, Where: "§6.1 (Fig. 4)",
		Claim: fmt.Sprintf("Fig. 4: at m = %d the stable set is empty", lo), Quote: quoteEmpty, Paper: "empty for very low m",
		Why: fmt.Sprintf("test stated before the run: 95%% t-interval of mean |D_stable| (transitions) over the runs' releases at m = %d below 0.5; "+
			"ours' release (ε1 = 7.5, T = 25)", lo)}
	empty := test{claim: ce, groups: []Setting{fl}, coef: []float64{1}, boundary: 0.5, stable: true, choice: "budget split for the fallback",
		alts: []alternative{{name: "the paper's Acrobot split ε1 = ε", sub: toStableOnly.sub}}}
	return []test{grow, empty}
}

// Fig4Claims records Fig. 4's claims from Fig4Data's table (fig4Tests) through out.
func Fig4Claims(out report.Sink, t *experiment.Table) error {
	return record(out, t, (*runSet).fig4Tests)
}

// table2P is Table 2's CartPole ε = 10 row: the fraction of the non-private return at p = 0 / Table 1's p
// / p = 1, per learner.
var table2P = map[expertdp.Algorithm]string{expertdp.CQL: "0.67 / 1.03 / 0.92", expertdp.BCQ: "0.31 / 0.99 / 0.67"}

// table2Tests are Table 2's claims: Table 1's p above p = 0 and above p = 1 on CartPole at ε = 10 (per
// learner), and pure expert-level DP-SGD above the 3/4 split at each low-ε row, at the split's certificate.
func (r *runSet) table2Tests() []test {
	n, steps := r.noise("table2"), r.steps("table2")
	note := setupNote(n, steps)
	var ts []test
	for _, alg := range learners {
		mid := PaperP("cartpole", alg, 10)
		for _, p := range []float64{0, 1} {
			c := repro.Claim{Key: fmt.Sprintf("t2-%v-p%g", alg, p), Kind: repro.KindPaper, Where: "§1; Table 2",
				Claim: fmt.Sprintf("Table 2, CartPole %v ε = 10: p = %g (both stages) above p = %g", alg, mid, p), Quote: quoteCombine,
				Paper: table2P[alg] + fmt.Sprintf(" (p = 0 / %g / 1)", mid),
				Why: fmt.Sprintf("test stated before the run: Welch 95%% interval of mean normalised return, p = %g − p = %g, above 0; the same split "+
					"(ε1 = 7.5, ε2 = 2.5) and certificate; ", mid, p) + note}
			t := diff(c, withNoise(table2Job(alg, mid), n, 0), withNoise(table2Job(alg, p), n, 0), fmt.Sprintf("ours (p = %g)", mid), fmt.Sprintf("ours (p = %g)", p), 0)
			t.choice, t.alts = "noise regime", []alternative{otherNoise(n, steps)}
			ts = append(ts, t)
		}
	}
	for _, lc := range lowCases {
		l := lowJob(lc.env, lc.eps)
		c := repro.Claim{Key: fmt.Sprintf("t2-low-%s-%g", lc.env, lc.eps), Kind: repro.KindPaper, Where: "§6.1; Table 2",
			Claim: fmt.Sprintf("Table 2, %s BCQ ε = %g: pure DP-SGD (ε1 = 0) above the 3/4 split (p = 0.5)", envNames[lc.env], lc.eps), Quote: quoteLow,
			Paper: "split vs ε1 = 0: " + lc.paper,
			Why:   "test stated before the run: Welch 95% interval of mean normalised return, DP-SGD − split, above 0; DP-SGD at the split's certified (ε, δ); " + note}
		t := diff(c, withNoise(BaselineJob(lc.env, expertdp.BCQ, lc.eps, l.Split), n, 0), withNoise(l, n, 0), "expert-level DP-SGD", "ours (3/4 split)", 0)
		t.choice, t.alts = "noise regime", []alternative{otherNoise(n, steps)}
		ts = append(ts, t)
	}
	return ts
}

// Table2Claims records Table 2's claims from Table2Data's table (table2Tests) through out.
func Table2Claims(out report.Sink, t *experiment.Table) error {
	return record(out, t, (*runSet).table2Tests)
}

// withAlternatives runs, for every test of tests(r) whose verdict is not reproduced, the settings its
// alternatives need (tag tag + "/alt", seeds seeds each) on setups, and returns t with their runs added:
// what its claims' Robust column reports.
func (c Config) withAlternatives(out report.Sink, t *experiment.Table, setups map[string]*Setup, tag string, tests func(*runSet) []test) (*experiment.Table, error) {
	r, err := readRuns(t)
	if err != nil {
		return nil, err
	}
	var jobs []Job
	seen := map[Setting]bool{}
	for _, ts := range tests(r) {
		for _, s := range r.missing(ts) {
			if seen[s] {
				continue
			}
			seen[s] = true
			for k := range c.Seeds {
				jobs = append(jobs, s.Job(tag+"/alt", k))
			}
		}
	}
	if len(jobs) == 0 {
		return t, nil
	}
	out.Markdown(fmt.Sprintf("Not reproduced at this size: %d more settings run under the alternatives the paper leaves open (the claims' robust column).", len(seen)))
	more, err := c.run(out, setups, jobs)
	if err != nil {
		return nil, err
	}
	return &experiment.Table{Columns: t.Columns, Rows: append(append([][]string(nil), t.Rows...), more.Rows...)}, nil
}

// ContrastCI is the contrast Σ coef[k]·mean(groups[k]) of independent samples with its Welch–Satterthwaite
// interval at level conf (NaN entries skipped; a NaN interval when a group has fewer than two values), and
// the smallest group size.
func ContrastCI(groups [][]float64, coef []float64, conf float64) (est, lo, hi float64, n int) {
	var v, dfDen float64
	n = math.MaxInt
	for k, g := range groups {
		m, _, _ := experiment.MeanCI(g, conf)
		c := len(experiment.Finite(g))
		n = min(n, c)
		est += coef[k] * m
		if c < 2 {
			v = math.NaN()
			continue
		}
		var ss float64
		for _, x := range g {
			if !math.IsNaN(x) && !math.IsInf(x, 0) {
				ss += (x - m) * (x - m)
			}
		}
		vk := coef[k] * coef[k] * ss / float64(c-1) / float64(c)
		v += vk
		dfDen += vk * vk / float64(c-1)
	}
	if math.IsNaN(v) || !(conf > 0 && conf < 1) {
		return est, math.NaN(), math.NaN(), n
	}
	if v == 0 {
		return est, est, est, n
	}
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: v * v / dfDen}.Quantile(1 - (1-conf)/2)
	return est, est - t*math.Sqrt(v), est + t*math.Sqrt(v), n
}
