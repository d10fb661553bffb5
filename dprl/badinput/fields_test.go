package badinput_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/dprl-project/dprl/dprl/policyeval"
	"github.com/dprl-project/dprl/mechanisms"
)

// privacyPackages are the library packages that hold noise or accounting parameters.
var privacyPackages = []string{"mechanisms", "dprl/policyeval", "dprl/fnq", "dprl/expertdp", "dprl/actorcritic", "dprl/nn"}

// Every exported struct type of the privacy packages that has an exported (settable) field is listed in
// exactly one of the four maps below, with the reason its fields cannot change the noise or the accounting of
// anything already validated. A type with no exported field needs no entry: its parameters are fixed at
// construction and read through methods.
var (
	// settableInputs are parameter structs, events and data handed to a constructor or function, which
	// validates them at the call and keeps a copy (gonum style: XParams{...}, then NewX(p)).
	settableInputs = map[string]string{
		"mechanisms.DPSGDParams":               "NewDPSGD copies and validates it",
		"mechanisms.DiscreteGaussianParams":    "NewDiscreteGaussian copies and validates it",
		"mechanisms.DiscreteLaplaceParams":     "NewDiscreteLaplace copies and validates it",
		"mechanisms.SnappingLaplaceParams":     "NewSnappingLaplace copies and validates it",
		"mechanisms.SparseVectorParams":        "NewSparseVector copies and validates it",
		"mechanisms.PLDParams":                 "NewPLDAccountant copies and validates it",
		"mechanisms.GaussianEvent":             "an event value, validated by Compose",
		"mechanisms.LaplaceEvent":              "an event value, validated by Compose",
		"mechanisms.Mixed":                     "an event value, validated by Compose",
		"mechanisms.PoissonSampled":            "an event value, validated by Compose",
		"mechanisms.SampledWithoutReplacement": "an event value, validated by Compose",
		"policyeval.GPOPEConfig":               "copied and validated by GPOPE at each call",
		"policyeval.PrivacyParams":             "validated by DPLSW and DPLSL at each call",
		"policyeval.Problem":                   "public inputs validated by each call",
		"policyeval.FeatureTrajectory":         "data, read at each call",
		"fnq.BGPConfig":                        "copied and validated by RunBGP16",
		"fnq.Calibration":                      "copied and validated by Compute and RunSpecified",
		"fnq.Config":                           "copied and validated by Run",
		"fnq.SpecifiedConfig":                  "copied and validated by RunSpecified",
		"expertdp.ReleaseParams":               "copied and validated by DataRelease",
		"expertdp.TrainConfig":                 "copied and validated by Train",
		"expertdp.DataConfig":                  "copied and validated by GenerateData",
		"expertdp.ExpertsConfig":               "copied and validated by NewExperts",
		"expertdp.LearnerConfig":               "copied and validated by NewLearner",
		"expertdp.Data":                        "the private log itself, validated by DataRelease and Train",
		"expertdp.Traj":                        "one trajectory of the log",
		"expertdp.Segment":                     "a span of a trajectory, read from a Release",
		"expertdp.Domain":                      "a public environment description; DataRelease validates its DemoLen",
		"expertdp.Axis":                        "a public environment parameter grid",
		"actorcritic.Config":                   "copied and validated by Run",
	}
	// settableReports are results, constants and errors computed for reading: nothing that adds noise or
	// accounts reads them back.
	settableReports = map[string]string{
		"mechanisms.GridError":             "an error report",
		"mechanisms.OverspendError":        "an error report",
		"mechanisms.UnsupportedEventError": "an error report",
		"policyeval.Release":               "the released estimate and the noise it got",
		"policyeval.Moments":               "GTD moments for evaluating an estimate (MSPBE), no noise",
		"fnq.Constants":                    "Theorem 5's derived constants, recomputed by every run",
		"fnq.Tail":                         "the tail bound at one σ, recomputed by every run",
		"fnq.Result":                       "a run's returns; its Released function has no settable field",
		"fnq.SpecifiedResult":              "a run's returns and constants",
		"expertdp.ReleaseConstants":        "DataRelease's constants; DataRelease computes its own",
		"expertdp.TrainResult":             "what a training run did",
		"actorcritic.Result":               "what a run did",
	}
	// settableNoNoise are objects that hold neither noise nor accounting parameters.
	settableNoNoise = map[string]string{
		"expertdp.Experts": "the expert policies; a count over any policies has sensitivity 1, and DataRelease takes p_min from its params",
		"expertdp.Learner": "a learner's network and configuration, no noise (Train draws its own noise)",
		"nn.Network":       "network weights (MLP, MLP32), no noise",
		"nn.GradsOf":       "gradients, no noise (DP-SGD's noise is mechanisms.DPSGD)",
		"nn.Replay":        "a replay buffer of transitions, no noise",
		"nn.Adam":          "optimiser step sizes, no noise",
		"nn.RMSprop":       "optimiser step sizes, no noise",
		"nn.SGD":           "optimiser step size, no noise",
		"nn.Huber":         "a loss's threshold, no noise",
	}
	// settableExercised are objects whose exported fields are a summary for reading and for the non-private
	// estimators; the test perturbs every such field and requires the private releases to be unchanged
	// (or refused).
	settableExercised = map[string]func(obj any) ([]float64, error){
		"policyeval.Signature": releaseFromSignature,
	}
	newExercised = map[string]func() (any, error){
		"policyeval.Signature": newSignature,
	}
)

// TestNoSettableNoiseFields walks the exported API of the privacy packages (their source, so a new type
// cannot be missed) and fails on any exported struct type with a settable field that is not an input, a
// report or an object whose settable fields are shown not to change its private releases. Before the fields
// were made unexported, mechanisms.Gaussian.Sigma, Laplace.Scale, SmoothGaussian's constants, SparseVector's
// scales, OUPath's σ and β, RDPAccountant.Orders and Conversion, fnq.Released's noise paths and
// expertdp.Release's stable/unstable split were all settable after validation (g.Sigma = 0 made Release
// return its input exactly), and policyeval's DP-LSL read the settable Signature.M.
func TestNoSettableNoiseFields(t *testing.T) {
	root := filepath.Join("..", "..") // go test runs in the package's folder, dprl/badinput
	found := map[string][]string{}
	for _, dir := range privacyPackages {
		for typ, fields := range exportedStructFields(t, filepath.Join(root, dir)) {
			found[typ] = fields
		}
	}
	for _, typ := range slices.Sorted(maps.Keys(found)) {
		fields := found[typ]
		classes := 0
		for _, m := range []map[string]string{settableInputs, settableReports, settableNoNoise} {
			if _, ok := m[typ]; ok {
				classes++
			}
		}
		ex, exercised := settableExercised[typ]
		if exercised {
			classes++
		}
		switch {
		case classes == 0:
			t.Errorf("%s has settable fields %v and is not classified: a field that sets noise or accounting must be unexported (read through a method, validated by the constructor); list an input, report or exercised object here with its reason",
				typ, fields)
		case classes > 1:
			t.Errorf("%s is classified more than once", typ)
		case exercised:
			checkPerturbations(t, typ, newExercised[typ], ex)
		}
	}
	for _, m := range []map[string]string{settableInputs, settableReports, settableNoNoise} {
		for typ := range m {
			if _, ok := found[typ]; !ok {
				t.Errorf("%s is classified but has no settable field (or no longer exists): remove its entry", typ)
			}
		}
	}
	for typ := range settableExercised {
		if _, ok := found[typ]; !ok {
			t.Errorf("%s is exercised but has no settable field: remove its entry", typ)
		}
	}
}

// checkPerturbations sets each exported field of a fresh object to several other values and requires its
// private output to stay the same bit for bit or to be refused.
func checkPerturbations(t *testing.T, typ string, make func() (any, error), run func(any) ([]float64, error)) {
	base, err := make()
	if err != nil {
		t.Fatal(err)
	}
	want, err := run(base)
	if err != nil {
		t.Fatalf("%s: %v", typ, err)
	}
	v := reflect.ValueOf(base).Elem()
	for i := range v.NumField() {
		f := v.Type().Field(i)
		if !f.IsExported() {
			continue
		}
		for k, perturb := range perturbations(v.Field(i)) {
			obj, err := make()
			if err != nil {
				t.Fatal(err)
			}
			reflect.ValueOf(obj).Elem().Field(i).Set(perturb)
			got, err := run(obj)
			if err == nil && !slices.Equal(floatBits(got), floatBits(want)) {
				t.Errorf("%s.%s (perturbation %d) changes the private release: %v, want %v", typ, f.Name, k, got, want)
			}
		}
	}
}

// perturbations are other values of a field's type: zero, small, large and NaN values, and slices with
// their elements changed, cut short or nil.
func perturbations(v reflect.Value) []reflect.Value {
	var out []reflect.Value
	val := func(x any) reflect.Value { return reflect.ValueOf(x).Convert(v.Type()) }
	switch v.Kind() {
	case reflect.Int:
		for _, x := range []int64{0, 1, -1, v.Int() * 1000} {
			out = append(out, val(x))
		}
	case reflect.Float64:
		for _, x := range []float64{0, 1e-300, v.Float() * 0.5, v.Float() * 1e3, math.NaN()} {
			out = append(out, val(x))
		}
	case reflect.Slice:
		out = append(out, reflect.Zero(v.Type()))
		if v.Len() > 0 {
			out = append(out, v.Slice(0, v.Len()-1))
			for _, e := range perturbations(v.Index(0)) {
				c := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
				reflect.Copy(c, v)
				for j := range c.Len() {
					c.Index(j).Set(e)
				}
				out = append(out, c)
			}
		}
	case reflect.Pointer, reflect.Interface:
		out = append(out, reflect.Zero(v.Type()))
	case reflect.Bool:
		out = append(out, reflect.ValueOf(!v.Bool()))
	}
	return out
}

func floatBits(x []float64) []uint64 {
	out := make([]uint64, len(x))
	for i, v := range x {
		out[i] = math.Float64bits(v)
	}
	return out
}

// newSignature is a three-state signature of five episodes with returns inside [0, 1].
func newSignature() (any, error) {
	return policyeval.NewEpisodeSignature([][]int{{0, 1, 2}, {1, 2}, {0, 2}, {2}, {0, 1}},
		[][]float64{{0.1, 0.2, 0.3}, {0.4, 0.1}, {0.2, 0.2}, {0.5}, {0.1, 0.3}}, 3, 0.9)
}

// releaseFromSignature runs DP-LSW and DP-LSL (both bounds) on a signature with a fixed seed and returns
// their estimates and noise levels.
func releaseFromSignature(obj any) ([]float64, error) {
	sig := obj.(*policyeval.Signature)
	p := &policyeval.Problem{Phi: mat.NewDense(3, 3, []float64{1, 0, 0, 0, 1, 0, 0, 0, 1}), Rho: []float64{1, 1, 1}, FMax: 1, FRange: 1}
	priv := policyeval.PrivacyParams{Epsilon: 0.5, Delta: 1e-3, Variant: mechanisms.SmoothLemma1}
	var out []float64
	w, err := policyeval.DPLSW(p, sig, priv, false, rand.NewPCG(1, 2))
	if err != nil {
		return nil, err
	}
	out = append(append(out, w.Theta...), w.Sigma)
	for _, b := range []policyeval.LSLBound{policyeval.LSLPaper, policyeval.LSLSafe} {
		l, err := policyeval.DPLSL(p, sig, 100, priv, b, rand.NewPCG(3, 4))
		if err != nil {
			return nil, err
		}
		out = append(append(out, l.Theta...), l.Sigma)
	}
	return out, nil
}

// exportedStructFields parses the non-test Go files of dir and returns, for every exported struct type with
// exported fields, "pkg.Type" → its exported field names (embedded fields by their type).
func exportedStructFields(t *testing.T, dir string) map[string][]string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	out := map[string][]string{}
	for _, e := range entries {
		if name := e.Name(); !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		name := f.Name.Name
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.TYPE {
				continue
			}
			for _, s := range g.Specs {
				ts := s.(*ast.TypeSpec)
				st, ok := ts.Type.(*ast.StructType)
				if !ok || !ts.Name.IsExported() {
					continue
				}
				var fields []string
				for _, fl := range st.Fields.List {
					for _, n := range fl.Names {
						if n.IsExported() {
							fields = append(fields, n.Name)
						}
					}
					if len(fl.Names) == 0 { // embedded: settable when its type is exported
						if s := embeddedName(fl.Type); ast.IsExported(s) {
							fields = append(fields, s)
						}
					}
				}
				if len(fields) > 0 {
					out[name+"."+ts.Name.Name] = fields
				}
			}
		}
	}
	return out
}

// embeddedName names an embedded field's type (the last identifier of T, *T or pkg.T).
func embeddedName(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.Ident:
		return x.Name
	case *ast.StarExpr:
		return embeddedName(x.X)
	case *ast.SelectorExpr:
		return x.Sel.Name
	}
	return fmt.Sprint(e)
}
