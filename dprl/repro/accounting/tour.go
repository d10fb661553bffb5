package accounting

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/dprl-project/dprl/dprl/experiment"
	"github.com/dprl-project/dprl/dprl/figure"
	"github.com/dprl-project/dprl/dprl/param"
	"github.com/dprl-project/dprl/dprl/report"
	"github.com/dprl-project/dprl/mechanisms"
)

// MeanStudy is the tour's first private estimate (notebook 00): the average of n returns U², U uniform on
// [0, 1] (so the true mean is 1/3), released with the classic Gaussian mechanism for sensitivity 1/n
// (replace-one neighbours) at (ε, Delta) for every ε of Epsilons (0: released without noise), over Trials
// trials at each n of Ns. At is the n the table reports (one of Ns).
type MeanStudy struct {
	Delta    float64
	Ns       []float64
	Epsilons []float64
	Trials   int
	At       float64
}

// PrivateMeanErrors returns, for each trial and each n, |private mean − 1/3| of n returns U² in [0, 1] with
// classic Gaussian noise at (eps, delta) for sensitivity 1/n; eps = 0 means no noise. Trial t draws from its
// own stream PCG(2026, t), returns first and then the noise for each n in turn, so the results are
// reproducible. progress (which may be nil) sees one unit per trial.
func PrivateMeanErrors(ns []float64, eps, delta float64, trials int, progress experiment.Progress) ([][]float64, error) {
	errs := make([][]float64, trials)
	for t := range trials {
		rng := rand.New(rand.NewPCG(2026, uint64(t)))
		errs[t] = make([]float64, len(ns))
		for i, n := range ns {
			sum := 0.0
			for range int(n) {
				u := rng.Float64()
				sum += u * u
			}
			mean := sum / n
			if eps > 0 {
				s, err := mechanisms.ClassicGaussianSigma(eps, delta, 1/n)
				if err != nil {
					return nil, err
				}
				mean += s * rng.NormFloat64()
			}
			errs[t][i] = math.Abs(mean - 1.0/3)
		}
		if progress != nil {
			progress.Add(1)
		}
	}
	return errs, nil
}

// PrivateMean runs the study with a progress bar over its trials, then shows the mean absolute error ± one
// standard deviation against n on log axes (one curve per ε) and a table of σ and the mean error at n = At.
func PrivateMean(out report.Sink, s MeanStudy) error {
	at := slices.Index(s.Ns, s.At)
	if at < 0 {
		return check.Errorf("At", s.At, "one of Ns %v", s.Ns)
	}
	if err := param.First(check.AtLeast("Trials", s.Trials, 1), check.In("Delta", s.Delta, param.OpenUnit)); err != nil {
		return err
	}
	bar := out.Bar("trials", s.Trials*len(s.Epsilons))
	var series []figure.Series
	var rows [][]string
	for _, eps := range s.Epsilons {
		errs, err := PrivateMeanErrors(s.Ns, eps, s.Delta, s.Trials, bar)
		if err != nil {
			return err
		}
		name := fmt.Sprintf("ε = %g", eps)
		if eps == 0 {
			name = "not private"
		}
		series = append(series, figure.Series{Name: name, X: s.Ns, Y: errs})
		mean, _, _ := figure.MeanStd(errs)
		sigma := "0"
		if eps > 0 {
			v, err := mechanisms.ClassicGaussianSigma(eps, s.Delta, 1/s.At)
			if err != nil {
				return err
			}
			sigma = fmt.Sprintf("%.2e", v)
		}
		rows = append(rows, []string{name, sigma, fmt.Sprintf("%.2e", mean[at])})
	}
	bar.Done()
	p, err := figure.Curves(figure.Options{
		Title:  fmt.Sprintf("Private mean of n returns in [0,1] (δ = %g, %d trials)", s.Delta, s.Trials),
		XLabel: "n (episodes)", YLabel: "|error|", LogX: true, LogY: true,
	}, series...)
	if err != nil {
		return err
	}
	if err := out.Figure(p); err != nil {
		return err
	}
	out.Table([]string{"setting", fmt.Sprintf("σ at n = %g", s.At), fmt.Sprintf("mean |error| at n = %g", s.At)}, rows)
	return nil
}
