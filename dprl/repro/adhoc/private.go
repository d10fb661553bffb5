package adhoc

import (
	"fmt"
	"image/color"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/dprl-project/dprl/dprl/experiment"
	"github.com/dprl-project/dprl/dprl/figure"
	"github.com/dprl-project/dprl/dprl/report"
	"github.com/dprl-project/dprl/dprl/session"
	"github.com/dprl-project/dprl/trajectory"
)

// config is the session configuration of the private file.
func (a *Analysis) config() session.Config {
	return session.Config{Data: a.Data, Actions: a.Actions, Store: a.Store, Src: a.Src}
}

// open opens the private file's session, granting a.Budget if the file has none yet.
func (a *Analysis) open() (*session.Session, bool, error) {
	return session.OpenOrInit(a.config(), a.Budget)
}

// statusRow is a table row describing a budget's use.
func statusRow(st session.Status) []string {
	return []string{fmt.Sprintf("ε = %g, δ = %g", st.Total.Epsilon, st.Total.Delta), st.Total.Filter.String(), fmt.Sprint(st.Releases),
		fmt.Sprintf("ε = %.4g, δ = %.3g", st.Epsilon, st.Delta), fmt.Sprintf("ε = %.4g, δ = %.3g", st.EpsilonLeft, st.DeltaLeft)}
}

var statusHeader = []string{"budget", "filter", "releases", "spent", "left"}

// OpenBudget opens the private file's budget, granting Budget the first time (a file keeps the budget it
// was granted), and shows the dataset, its ledger and what is spent and left. Nothing is released.
func (a *Analysis) OpenBudget(out report.Sink) error {
	s, created, err := a.open()
	if err != nil {
		return err
	}
	l, err := s.Ledger()
	if err != nil {
		return err
	}
	id := s.Identity()
	what := "This dataset already has its budget"
	if created {
		what = "New budget granted to this dataset"
	}
	out.Markdown(fmt.Sprintf("%s: `%s` (%d trajectories, %s), ledger `%s`.", what, id.Data, id.Records, shortHash(id.Hash), s.LedgerPath()))
	out.Table(statusHeader, [][]string{statusRow(l.Status())})
	return nil
}

// privateRelease releases method m at ε on the private file through s: the charge (from public things
// only) first, then the estimate. Only θ leaves the callback: the noise scale of DP-LSW and DP-LSL and the
// number of clipped returns depend on the data and are not released. The estimate reads states through
// totalStates, so no trajectory can make it fail.
func (a *Analysis) privateRelease(s *session.Session, m Method, eps float64) ([]float64, error) {
	c, err := a.Setup.Charge(m, s.Identity().Records, eps)
	if err != nil {
		return nil, err
	}
	setup := a.Setup.totalStates()
	var theta []float64
	err = s.Release(c, func(d *trajectory.Dataset, src rand.Source) error {
		r, err := setup.Estimate(m, d, eps, src)
		if err != nil {
			return err
		}
		theta = r.Theta
		return nil
	})
	return theta, err
}

// totalStates is the setup with a state map that cannot fail: a state below 0 counts as 0, one at or past
// NumStates as NumStates − 1. A release on the private data uses it, since a release that fails on some
// trajectory's state is visible (a *session.ReleaseError) and tells the neighbouring datasets apart; the
// planning data show whether the map covers the states (Setup.Validate).
func (s *Setup) totalStates() *Setup {
	t := *s
	state, n := s.State, s.NumStates
	if state != nil {
		t.State = func(obs []float64) int { return min(max(state(obs), 0), n-1) }
	}
	return &t
}

// ReleaseBest releases, once, on the private file, the estimator with the smallest mean error at ε = eps
// in the planning sweep (Best on sweep.csv: a public choice, free), and shows it (Release).
func (a *Analysis) ReleaseBest(out report.Sink, eps float64) error {
	rows, err := a.restore("sweep")
	if err != nil {
		return err
	}
	best, mean := Best(rows, eps)
	if mean == 0 {
		return fmt.Errorf("adhoc: no estimator ran at ε = %g in the planning sweep", eps)
	}
	out.Markdown(fmt.Sprintf("Chosen on the planning data: **%s** (mean error %.4f at ε = %g there).", best, mean, eps))
	return a.Release(out, best, eps)
}

// Release charges one release of method m at (eps, Setup.Delta) to the private file's budget, makes it,
// saves θ and the state values as release.csv in Dir, and shows the released values with the planning
// sweep's error at that ε as a band (what the plan expects a release to be off by), and the budget after.
// A release that does not fit is refused with the budget's *session.BudgetError.
func (a *Analysis) Release(out report.Sink, m Method, eps float64) error {
	s, _, err := a.open()
	if err != nil {
		return err
	}
	theta, err := a.privateRelease(s, m, eps)
	if err != nil {
		return err
	}
	values := a.Setup.Values(theta)
	if err := a.saveRelease(m, eps, theta, values); err != nil {
		return err
	}
	band := math.NaN()
	if rows, err := a.restore("sweep"); err == nil {
		if _, mean := meanError(rows, m, eps); mean > 0 {
			band = mean
		}
	}
	p, err := ReleaseFigure(m, eps, a.Setup.Delta, values, band)
	if err != nil {
		return err
	}
	if err := out.Figure(p); err != nil {
		return err
	}
	l, err := s.Ledger()
	if err != nil {
		return err
	}
	out.Markdown(fmt.Sprintf("Released %s at (ε = %g, δ = %g) on `%s`; θ and the values are in `%s`.", m, eps, a.Setup.Delta, a.Data, filepath.Join(a.Dir, "release.csv")))
	out.Table(statusHeader, [][]string{statusRow(l.Status())})
	return nil
}

// meanError is the number of releases and mean error of method m at ε = eps among rows that ran.
func meanError(rows []Row, m Method, eps float64) (int, float64) {
	sum, n := 0.0, 0
	for _, r := range rows {
		if r.Method == m && r.Eps == eps && r.Err == "" {
			sum += r.Error
			n++
		}
	}
	if n == 0 {
		return 0, 0
	}
	return n, sum / float64(n)
}

// ReleaseFigure draws one release's state values; band, when not NaN, is drawn as ± band around them (the
// planning data's mean error at that ε).
func ReleaseFigure(m Method, eps, delta float64, values []float64, band float64) (*plot.Plot, error) {
	xs := make([]float64, len(values))
	for i := range xs {
		xs[i] = float64(i)
	}
	s := figure.Series{Name: fmt.Sprintf("%s (one release)", m), X: xs, Y: [][]float64{values}}
	title := fmt.Sprintf("the release: %s at ε = %g, δ = %g", m, eps, delta)
	if !math.IsNaN(band) {
		s.Lo, s.Hi = make([]float64, len(values)), make([]float64, len(values))
		for i, v := range values {
			s.Lo[i], s.Hi[i] = v-band, v+band
		}
		title += fmt.Sprintf(" (band: ± the planned error %.3g)", band)
	}
	return figure.Curves(figure.Options{Title: title, XLabel: "state s", YLabel: "released value V(s)"}, s)
}

// saveRelease writes the released θ and values to Dir/release.csv.
func (a *Analysis) saveRelease(m Method, eps float64, theta, values []float64) error {
	t := &experiment.Table{Columns: []string{"method", "epsilon", "delta", "index", "theta", "value"}}
	for i := range max(len(theta), len(values)) {
		th, v := math.NaN(), math.NaN()
		if i < len(theta) {
			th = theta[i]
		}
		if i < len(values) {
			v = values[i]
		}
		t.Add(m.String(), eps, a.Setup.Delta, i, th, v)
	}
	if err := os.MkdirAll(a.Dir, 0o755); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(a.Dir, "release.csv"))
	if err != nil {
		return err
	}
	if err := t.WriteCSV(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// Ledger shows the private file's ledger as a table (every release, its ε and δ, what was spent and left
// after it) and a gauge figure of the budget. Nothing is released.
func (a *Analysis) Ledger(out report.Sink) error {
	s, err := session.Open(a.config())
	if err != nil {
		return err
	}
	l, err := s.Ledger()
	if err != nil {
		return err
	}
	out.Markdown(fmt.Sprintf("Ledger `%s` of dataset %s:", l.Path, shortHash(l.Dataset)))
	out.Table(l.Table())
	p, err := Gauge(l.Status())
	if err != nil {
		return err
	}
	return out.Figure(p)
}

// Gauge draws a budget's use: for ε and for δ, the spent share of the total as a filled bar, the rest as a
// grey one, each labelled with the amounts.
func Gauge(st session.Status) (*plot.Plot, error) {
	dTotal, dWhat, how := st.Total.Delta, "δ", "basic composition"
	if st.Total.Filter == session.Renyi {
		// the share of δ that (ε, δ)-releases may spend; the rest pays the filter's conversion
		dTotal, dWhat, how = st.Total.ApproxDelta, "δ of (ε, δ)-releases", "Rényi filter"
	}
	share := func(spent, total float64) float64 {
		if total == 0 {
			return 0
		}
		return min(1, spent/total)
	}
	spent := plotter.Values{share(st.Delta, dTotal), share(st.Epsilon, st.Total.Epsilon)}
	left := plotter.Values{1 - spent[0], 1 - spent[1]}
	plural := "s"
	if st.Releases == 1 {
		plural = ""
	}
	p := figure.New(figure.Options{Title: fmt.Sprintf("privacy budget (%s) after %d release%s", how, st.Releases, plural),
		XLabel: "share of the budget spent"})
	w := vg.Points(60)
	a, err := plotter.NewBarChart(spent, w)
	if err != nil {
		return nil, err
	}
	b, err := plotter.NewBarChart(left, w)
	if err != nil {
		return nil, err
	}
	a.Horizontal, b.Horizontal = true, true
	a.Color, b.Color = figure.Color(1), color.Gray{Y: 0xDC}
	a.LineStyle.Width, b.LineStyle.Width = 0, 0
	b.StackOn(a)
	labels, err := plotter.NewLabels(plotter.XYLabels{
		XYs: plotter.XYs{{X: 0.02, Y: 0.5}, {X: 0.02, Y: 1.5}},
		Labels: []string{fmt.Sprintf("%s: %.3g spent of %.3g, %.3g left", dWhat, st.Delta, dTotal, st.DeltaLeft),
			fmt.Sprintf("ε: %.4g spent of %g, %.4g left", st.Epsilon, st.Total.Epsilon, st.EpsilonLeft)},
	})
	if err != nil {
		return nil, err
	}
	for i := range labels.TextStyle {
		labels.TextStyle[i].Font = font.From(figure.Sans, figure.LabelSize)
	}
	p.Add(a, b, labels)
	p.Legend.Add("spent", a)
	p.Legend.Add("left", b)
	p.NominalY("δ", "ε")
	p.X.Min, p.X.Max = 0, 1
	p.Y.Min, p.Y.Max = -0.6, 1.9
	return p, nil
}

// Planned is a kind of release for CompareFilters: method, ε and δ.
type Planned struct {
	Method         Method
	Epsilon, Delta float64
}

// CompareFilters shows, for each planned kind of release, how many of them fit Budget's total (ε, δ) by
// basic composition and by the Rényi filter (session.Total.Capacity: planning, nothing is spent), or why
// it cannot run. The number of trajectories (public) is the private file's.
func (a *Analysis) CompareFilters(out report.Sink, planned []Planned) error {
	id, err := session.Identify(a.Data, a.Actions)
	if err != nil {
		return err
	}
	basic, renyi := a.Budget, a.Budget
	basic.Filter, renyi.Filter = session.Basic, session.Renyi
	basic.Orders, basic.ApproxDelta = nil, 0
	var rows [][]string
	for _, p := range planned {
		s := *a.Setup
		s.Delta = p.Delta
		c, err := s.Charge(p.Method, id.Records, p.Epsilon)
		if err != nil { // e.g. GPOPE's accounting cannot reach this ε on this many trajectories
			rows = append(rows, []string{p.Method.String(), fmt.Sprint(p.Epsilon), fmt.Sprint(p.Delta), "cannot run: " + err.Error(), "—", "—", "—"})
			continue
		}
		nb, err := basic.Capacity(c, 100000)
		if err != nil {
			return err
		}
		nr, err := renyi.Capacity(c, 100000)
		if err != nil {
			return err
		}
		kind := "(ε, δ)-DP"
		if c.RDP != nil {
			kind = "Rényi curve"
		}
		rows = append(rows, []string{p.Method.String(), fmt.Sprint(p.Epsilon), fmt.Sprint(p.Delta), kind, fmt.Sprint(nb), fmt.Sprint(nr), fmt.Sprintf("%+d", nr-nb)})
	}
	out.Markdown(fmt.Sprintf("Releases that fit a total of (ε = %g, δ = %g), one after another (none spent):", a.Budget.Epsilon, a.Budget.Delta))
	out.Table([]string{"release", "ε", "δ", "charged as", "basic composition", "Rényi filter", "Rényi − basic"}, rows)
	return nil
}

// PrivateEstimateDraw is an explorer's Draw function on the private file, for when exploring there is
// worth its price: every redraw is one release (v holds ε and the estimator's index in Methods), charged
// to the budget, and the figure's title says what is left. A redraw that does not fit shows the refusal.
func (a *Analysis) PrivateEstimateDraw() func(v []float64) (*plot.Plot, error) {
	var s *session.Session
	return func(v []float64) (*plot.Plot, error) {
		if len(v) != 2 {
			return nil, fmt.Errorf("adhoc: PrivateEstimateDraw needs 2 values (ε, the estimator's index), got %d", len(v))
		}
		i := int(v[1])
		if i < 0 || i >= len(Methods) {
			return nil, check.Errorf("v[1]", v[1], "an index of Methods, [0, %d]", len(Methods)-1)
		}
		if s == nil {
			var err error
			if s, _, err = a.open(); err != nil {
				return nil, err
			}
		}
		theta, err := a.privateRelease(s, Methods[i], v[0])
		if err != nil {
			return nil, err
		}
		l, err := s.Ledger()
		if err != nil {
			return nil, err
		}
		p, err := ReleaseFigure(Methods[i], v[0], a.Setup.Delta, a.Setup.Values(theta), math.NaN())
		if err != nil {
			return nil, err
		}
		st := l.Status()
		p.Title.Text += fmt.Sprintf("\nrelease %d on the private file; left ε = %.3g, δ = %.3g", st.Releases, st.EpsilonLeft, st.DeltaLeft)
		return p, nil
	}
}

// SelectPrivately chooses among candidate estimators on the private file and pays for it: each candidate
// is released once at (epsEach, Setup.Delta), then the exponential mechanism at epsSelect (session.Selection)
// picks one by a bounded score of how well its released values predict each trajectory's first-visit
// returns: minus the ρ-weighted mean squared difference over the states the trajectory visits, returns
// and values clipped to the declared return range R, so every score lies in [−R², 0]. The chosen release
// is the result (no further release), saved as release.csv; the scores are not shown (they are private).
// Cost: len(candidates) releases and one ε-DP selection.
func (a *Analysis) SelectPrivately(out report.Sink, candidates []Method, epsEach, epsSelect float64) error {
	if len(candidates) == 0 {
		return check.Missing("candidates", "at least one estimator")
	}
	s, _, err := a.open()
	if err != nil {
		return err
	}
	values := make([][]float64, len(candidates))
	thetas := make([][]float64, len(candidates))
	for j, m := range candidates {
		if thetas[j], err = a.privateRelease(s, m, epsEach); err != nil {
			return err
		}
		values[j] = a.Setup.Values(thetas[j])
	}
	lo, hi := a.Setup.returnRange()
	r := hi - lo
	names := make([]string, len(candidates))
	for j, m := range candidates {
		names[j] = m.String()
	}
	choice, err := s.Select(session.Selection{Mechanism: "choice among " + strings.Join(names, ", ") + " (exponential mechanism)",
		Epsilon: epsSelect, Candidates: len(candidates), Lo: -r * r, Hi: 0,
		Score: func(tr trajectory.Trajectory, j int) float64 { return a.Setup.predictionScore(tr, values[j]) }})
	if err != nil {
		return err
	}
	if err := a.saveRelease(candidates[choice], epsEach, thetas[choice], values[choice]); err != nil {
		return err
	}
	rows := make([][]string, len(candidates))
	for j, m := range candidates {
		mark := ""
		if j == choice {
			mark = "chosen"
		}
		rows[j] = []string{m.String(), fmt.Sprint(epsEach), fmt.Sprint(a.Setup.Delta), mark}
	}
	out.Table([]string{"candidate", "ε", "δ", "private choice (ε = " + fmt.Sprint(epsSelect) + ")"}, rows)
	return nil
}

// returnRange is the declared range of first-visit returns: [0, ReturnMax], or [−ReturnMax, ReturnMax]
// when Signed.
func (s *Setup) returnRange() (lo, hi float64) {
	if s.Signed {
		return -s.ReturnMax, s.ReturnMax
	}
	return 0, s.ReturnMax
}

// predictionScore is minus the ρ-weighted mean of (F_s − v_s)² over the states tr visits (first-visit
// discounted returns F_s; returns and values v clipped to the declared return range), 0 when it visits no
// state of positive weight: a score in [−R², 0] whatever tr holds. Observations the state map puts outside
// [0, NumStates) are skipped.
func (s *Setup) predictionScore(tr trajectory.Trajectory, v []float64) float64 {
	lo, hi := s.returnRange()
	clip := func(x float64) float64 { return min(max(x, lo), hi) }
	first := make([]int, s.NumStates) // the first visit's step + 1; 0 when not visited
	for t, st := range tr.Steps {
		if k := s.State(st.Obs); k >= 0 && k < s.NumStates && first[k] == 0 {
			first[k] = t + 1
		}
	}
	// G[t] = Σ_{u ≥ t} γ^{u−t} r_u
	g := make([]float64, len(tr.Steps)+1)
	for t := len(tr.Steps) - 1; t >= 0; t-- {
		g[t] = tr.Steps[t].Reward + s.Gamma*g[t+1]
	}
	num, den := 0.0, 0.0
	for k, t := range first {
		if t == 0 {
			continue
		}
		d := clip(g[t-1]) - clip(v[k])
		num += s.Rho[k] * d * d
		den += s.Rho[k]
	}
	if !(den > 0) || math.IsNaN(num) {
		return 0
	}
	return -num / den
}
