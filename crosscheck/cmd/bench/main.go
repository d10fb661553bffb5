package main

import (
	"encoding/csv"
	"flag"
	"fmt"
	"log"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/dprl-project/dprl/crosscheck"
	"github.com/dprl-project/dprl/dprl/nn"
	"github.com/dprl-project/dprl/envs"
	"github.com/dprl-project/dprl/mechanisms"
)

type refCase struct {
	Workload string    `json:"workload"`
	Q        float64   `json:"q,omitempty"`
	Sigma    float64   `json:"sigma,omitempty"`
	Steps    int       `json:"steps,omitempty"`
	Delta    float64   `json:"delta,omitempty"`
	Epsilon  float64   `json:"epsilon,omitempty"`
	H        float64   `json:"h,omitempty"`
	EpsError float64   `json:"eps_error,omitempty"`
	Orders   []float64 `json:"orders,omitempty"`
	MinTime  float64   `json:"min_time"`
}

type refResult struct {
	Seconds float64         `json:"seconds"`
	Value   *crosscheck.Num `json:"value"`
}

// row is one line of the output: ours is timed by fn (which returns our value, or NaN).
type row struct {
	name, reference string
	ref             refCase
	fn              func() float64
	value           float64
	res             testing.BenchmarkResult
	perOp           int // operations per fn call (env steps)
}

func main() {
	out := flag.String("out", "build/bench/ratios.csv", "CSV to write")
	minTime := flag.Float64("mintime", 1, "seconds each reference workload is timed for")
	flag.Parse()
	py, ok := crosscheck.Python()
	if !ok {
		log.Fatalf("no reference environment at %s: run crosscheck/venv.sh", py)
	}
	const (
		q, sigma, steps, delta = 0.01, 1.0, 10000, 1e-5
	)
	orders, _ := mechanisms.Orders(mechanisms.DefaultOrders)
	pld := func() float64 {
		a, _ := mechanisms.NewPLDAccountant(mechanisms.PLDParams{Discretization: 1e-4})
		a.Compose(mechanisms.PoissonSampled{Q: q, Event: mechanisms.GaussianEvent{NoiseMultiplier: sigma}}, steps)
		e, err := a.Epsilon(delta)
		if err != nil {
			log.Fatal(err)
		}
		return e
	}
	rdp := func() float64 {
		a, _ := mechanisms.NewRDPAccountant(orders, mechanisms.ConversionImproved)
		a.Compose(mechanisms.PoissonSampled{Q: q, Event: mechanisms.GaussianEvent{NoiseMultiplier: 1.1}}, steps)
		e, err := a.Epsilon(delta)
		if err != nil {
			log.Fatal(err)
		}
		return e
	}
	agauss := func() float64 {
		s, err := mechanisms.AnalyticGaussianSigma(0.5, delta, 1)
		if err != nil {
			log.Fatal(err)
		}
		return s
	}
	pldCase := refCase{Q: q, Sigma: sigma, Steps: steps, Delta: delta}
	rows := []*row{
		{name: "pld_10k_poisson_gaussian_h1e-4", reference: "dp_accounting PLD h=1e-4", fn: pld,
			ref: with(pldCase, func(c *refCase) { c.Workload, c.H = "pld_dpa", 1e-4 })},
		{name: "pld_10k_poisson_gaussian_h1e-4", reference: "prv_accountant eps_error=0.1", fn: pld,
			ref: with(pldCase, func(c *refCase) { c.Workload, c.EpsError = "pld_prv", 0.1 })},
		{name: "pld_10k_poisson_gaussian_h1e-4", reference: "prv_accountant eps_error=0.01", fn: pld,
			ref: with(pldCase, func(c *refCase) { c.Workload, c.EpsError = "pld_prv", 0.01 })},
		{name: "rdp_10k_poisson_gaussian_dpa_default", reference: "dp_accounting RDP", fn: rdp,
			ref: refCase{Workload: "rdp", Q: q, Sigma: 1.1, Steps: steps, Delta: delta, Orders: orders}},
		{name: "analytic_gaussian_sigma", reference: "dp_accounting GaussianPrivacyLoss.from_privacy_guarantee", fn: agauss,
			ref: refCase{Workload: "analytic_gaussian_sigma", Epsilon: 0.5, Delta: delta}},
	}
	for _, name := range []string{"cartpole", "mountaincar", "acrobot", "taxi", "lunarlander"} {
		rows = append(rows, &row{name: name + "_step", reference: "gymnasium 1.4.0 gym.make step", fn: envSteps(name),
			ref: refCase{Workload: "env_" + name}, perOp: 1000})
	}
	var cases []refCase
	for _, r := range rows {
		r.ref.MinTime = *minTime
		cases = append(cases, r.ref)
	}
	// Ours first, then the references, back to back in this one run. A workload compared with several
	// references is timed once.
	timed := map[string]*row{}
	for _, r := range rows {
		if prev, ok := timed[r.name]; ok {
			r.value, r.res = prev.value, prev.res
			continue
		}
		timed[r.name] = r
		r.value = r.fn()
		r.res = testing.Benchmark(func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				r.fn()
			}
		})
		log.Printf("%s: %v %d allocs/op", r.name, time.Duration(float64(r.res.NsPerOp())/float64(max(r.perOp, 1))), r.res.AllocsPerOp()/int64(max(r.perOp, 1)))
	}
	var refs []refResult
	if err := crosscheck.Reference(py, "bench", cases, &refs); err != nil {
		log.Fatal(err)
	}
	sgd, dpsgd := mlpStep(false), mlpStep(true)
	if err := os.MkdirAll(filepath.Dir(*out), 0o755); err != nil {
		log.Fatal(err)
	}
	f, err := os.Create(*out)
	if err != nil {
		log.Fatal(err)
	}
	w := csv.NewWriter(f)
	w.Write([]string{"workload", "ours_seconds", "reference", "reference_seconds", "ratio", "max_abs_diff"})
	g := func(x float64) string { return strconv.FormatFloat(x, 'g', 4, 64) }
	for i, r := range rows {
		ours := float64(r.res.NsPerOp()) / 1e9 / float64(max(r.perOp, 1))
		diff := ""
		if v := refs[i].Value; v != nil && !math.IsNaN(r.value) {
			diff = g(math.Abs(r.value - float64(*v)))
		}
		w.Write([]string{r.name, g(ours), r.reference, g(refs[i].Seconds), g(refs[i].Seconds / ours), diff})
	}
	// DP-SGD against plain SGD (both dprl): the ratio is the DP overhead, DP-SGD time / SGD time.
	w.Write([]string{"dpsgd_step_mlp_8x256x256x4_batch256", g(dpsgd), "dprl plain SGD step (ratio = DP-SGD / SGD)", g(sgd), g(dpsgd / sgd), ""})
	w.Flush()
	if err := firstErr(w.Error(), f.Close()); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("wrote %s\n", *out)
}

func with(c refCase, f func(*refCase)) refCase { f(&c); return c }

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// envSteps returns a function taking 1000 steps of the named environment (inside its time limit), cycling
// the actions in runs of three as the Python side does, resetting when an episode ends.
func envSteps(name string) func() float64 {
	env, err := envs.Make(name)
	if err != nil {
		log.Fatal(err)
	}
	seed := uint64(1)
	if _, err := env.Reset(rand.NewPCG(seed, 0)); err != nil {
		log.Fatal(err)
	}
	n, k := env.NumActions(), 0
	return func() float64 {
		for range 1000 {
			r, err := env.Step((k / 3) % n)
			if err != nil {
				log.Fatal(err)
			}
			k++
			if r.Terminated || r.Truncated {
				seed++
				env.Reset(rand.NewPCG(seed, 0))
			}
		}
		return math.NaN()
	}
}

// mlpStep times one training step of the 8→256→256→4 ReLU MLP on a batch of 256 (forward, backward,
// gradient — plain, or DP-SGD's per-example clipping and noise — and the SGD update), in seconds.
func mlpStep(private bool) float64 {
	m, _ := nn.NewMLP([]int{8, 256, 256, 4}, nn.ReLU, rand.NewPCG(1, 1))
	src := rand.NewPCG(2, 2)
	rng := rand.New(src)
	const n = 256
	x := make([]float64, n*8)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	acts, targets := make([]int, n), make([]float64, n)
	for i := range n {
		acts[i], targets[i] = rng.IntN(4), rng.NormFloat64()
	}
	ws, g := nn.NewWorkspace(m, n), nn.NewGrads(m)
	dOut, norms := make([]float64, n*4), make([]float64, n)
	opt := &nn.SGD{LR: 1e-4}
	dp, err := mechanisms.NewDPSGD(mechanisms.DPSGDParams{Clip: 1, NoiseMultiplier: 1, Src: src})
	if err != nil {
		panic(err)
	}
	res := testing.Benchmark(func(b *testing.B) {
		for b.Loop() {
			out := ws.Forward(m, x)
			nn.SelectedLoss(nn.Huber{}, out, 4, acts, targets, dOut)
			ws.Backward(m, dOut)
			if private {
				ws.PrivateGradient(m, dp, g, norms)
			} else {
				ws.Gradient(m, nil, g)
				g.Scale(1.0 / n)
			}
			opt.Step(m, g)
		}
	})
	return float64(res.NsPerOp()) / 1e9
}
