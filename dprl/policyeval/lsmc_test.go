package policyeval

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/dprl-project/dprl/envs"
	"github.com/dprl-project/dprl/mechanisms"
	"github.com/dprl-project/dprl/trajectory"
)

// chainData collects m trajectories of Balle's chain under the stay/advance-½ policy.
func chainData(t testing.TB, m int, seed uint64) *trajectory.Dataset {
	t.Helper()
	env, err := envs.Make("chain")
	if err != nil {
		t.Fatal(err)
	}
	pol, _ := envs.ConstantTable(40, 0.5, 0.5)
	tr, err := envs.Collect(env, pol, m, rand.NewPCG(seed, 1), 0)
	if err != nil {
		t.Fatal(err)
	}
	return &trajectory.Dataset{ObsDim: 1, NumActions: 2, Trajectories: tr}
}

func index(o []float64) int { return int(o[0]) }

func tabular(n int) *Problem { return aggregated(n, 1) }

func aggregated(n, size int) *Problem {
	return &Problem{Phi: StateAggregation(n, size), Rho: UniformWeights(n), FMax: 100, FRange: 100}
}

func TestStateAggregationAndUniformWeights(t *testing.T) {
	phi := StateAggregation(39, 2)
	if r, c := phi.Dims(); r != 39 || c != 20 {
		t.Fatalf("dims %d × %d, want 39 × 20", r, c)
	}
	for s := range 39 {
		for j := range 20 {
			if want := map[bool]float64{true: 1, false: 0}[j == s/2]; phi.At(s, j) != want {
				t.Fatalf("φ(%d, %d) = %g", s, j, phi.At(s, j))
			}
		}
	}
	rho, sum := UniformWeights(39), 0.0
	for _, r := range rho {
		sum += r
	}
	if len(rho) != 39 || rho[0] != 1.0/39 || math.Abs(sum-1) > 1e-12 {
		t.Errorf("weights %v", rho)
	}
}

func TestLSWAndLSLFitTheAverages(t *testing.T) {
	sig, err := NewSignature(chainData(t, 2000, 1), 39, 0.99, index)
	if err != nil {
		t.Fatal(err)
	}
	p := tabular(39)
	w, err := LSW(p, sig)
	if err != nil {
		t.Fatal(err)
	}
	for s := range 39 {
		if math.Abs(w[s]-sig.F[s]) > 1e-9 {
			t.Fatalf("tabular LSW θ[%d] = %g, want the first-visit average %g", s, w[s], sig.F[s])
		}
	}
	l, _ := LSL(p, sig, 1e-9)
	if math.Abs(l[20]-sig.F[20]) > 1e-6 {
		t.Errorf("LSL with λ → 0: %g, want %g", l[20], sig.F[20])
	}
	l2, _ := LSL(p, sig, 1e4)
	if !(math.Abs(l2[20]) < math.Abs(sig.F[20])) {
		t.Error("ridge did not shrink the estimate")
	}
	// Both converge to the exact values as m grows.
	pi, _ := envs.ConstantTable(40, 0.5, 0.5)
	v, _ := envs.NewChain(envs.BalleChainParams()).Model().PolicyValue(pi.P, 0.99)
	if e := RMSE(p.Phi, w, v[:39], p.Rho); e > 0.03 {
		t.Errorf("LSW RMSE %g with 2000 trajectories", e)
	}
}

// TestSensitivityBounds replaces one trajectory of real datasets by another and checks that the estimates
// move no more than the local-sensitivity bounds the noise is calibrated from: DP-LSW's
// ‖(Γ^{1/2}Φ)⁺‖·F_range·sqrt(Σ_s w_s/max(n_s,1)²) and the safe DP-LSL bound (2‖Φ‖₂/λ)·H(n). The bound must
// hold at both datasets' counts (we check the larger of the two movements against the smaller bound too).
func TestSensitivityBounds(t *testing.T) {
	for _, prob := range []*Problem{tabular(39), aggregated(39, 2)} {
		// Tight public bound on the chain's returns (every return is in [0, 1]).
		prob.FMax, prob.FRange = 1, 1
		pn, err := pinvNorm(prob.Phi, prob.Rho, false)
		if err != nil {
			t.Fatal(err)
		}
		var svd mat.SVD
		svd.Factorize(prob.Phi, mat.SVDNone)
		phi2 := svd.Values(nil)[0]
		rho2 := math.Sqrt(39) / 39
		worstLSW, worstLSL := 0.0, 0.0
		for trial := range 60 {
			base := chainData(t, 30+trial%40, uint64(trial+10))
			other := chainData(t, 1, uint64(1000+trial))
			nb := &trajectory.Dataset{ObsDim: 1, NumActions: 2, Trajectories: append(append([]trajectory.Trajectory{}, base.Trajectories[:len(base.Trajectories)-1]...), other.Trajectories[0])}
			sa, _ := NewSignature(base, 39, 0.99, index)
			sb, _ := NewSignature(nb, 39, 0.99, index)
			phiW := func(c []int) float64 {
				s := 0.0
				for i, n := range c {
					d := math.Max(float64(n), 1)
					s += prob.Rho[i] / (d * d)
				}
				return s
			}
			ta, errA := LSW(prob, sa)
			tb, errB := LSW(prob, sb)
			if errA == nil && errB == nil {
				bound := pn * prob.FRange * math.Sqrt(math.Max(phiW(sa.Counts), phiW(sb.Counts)))
				worstLSW = math.Max(worstLSW, dist(ta, tb)/bound)
			}
			const lambda = 5.0
			la, _ := LSL(prob, sa, lambda)
			lb, _ := LSL(prob, sb, lambda)
			H := func(c []int) float64 {
				sum := 0.0
				for i, n := range c {
					sum += prob.Rho[i] * float64(n)
				}
				return prob.FRange*rho2 + phi2*(1.0/39)*prob.FMax*math.Sqrt(2*sum/lambda)
			}
			bound := 2 * phi2 / lambda * math.Min(H(sa.Counts), H(sb.Counts))
			worstLSL = math.Max(worstLSL, dist(la, lb)/bound)
		}
		if worstLSW > 1+1e-9 {
			t.Errorf("LSW moved %.3f× its sensitivity bound", worstLSW)
		}
		if worstLSL > 1+1e-9 {
			t.Errorf("LSL moved %.3f× its safe sensitivity bound", worstLSL)
		}
		t.Logf("largest movement / bound: LSW %.3f, LSL %.3f", worstLSW, worstLSL)
	}
}

func dist(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += (a[i] - b[i]) * (a[i] - b[i])
	}
	return math.Sqrt(s)
}

func TestDPLSWCalibration(t *testing.T) {
	sig, _ := NewSignature(chainData(t, 1000, 3), 39, 0.99, index)
	p := tabular(39)
	priv := PrivacyParams{Epsilon: 0.1, Delta: 0.1, Variant: mechanisms.SmoothLemma1}
	r, err := DPLSW(p, sig, priv, false, rand.NewPCG(1, 1))
	if err != nil {
		t.Fatal(err)
	}
	// Balle's chain at ε = δ = 0.1 (package doc, "Balle et al.'s chain"): α = 122.39, β = 5.953e−4,
	// ‖(Γ^{1/2}Φ)⁺‖ = √39.
	if math.Abs(r.Alpha-122.39) > 0.01 || math.Abs(r.Beta-5.953e-4) > 1e-6 {
		t.Errorf("α, β = %g, %g", r.Alpha, r.Beta)
	}
	psi, k := LSWSmoothBound(p.Rho, sig.Counts, r.Beta)
	if want := r.Alpha * 100 * math.Sqrt(39) * math.Sqrt(psi); math.Abs(r.Sigma-want) > 1e-9*want || k != r.ArgmaxK {
		t.Errorf("σ = %g, want %g", r.Sigma, want)
	}
	// Smoothness (Lemma 1 condition b): Ψ(n) ≤ e^β Ψ(n') for counts differing by at most 1 everywhere.
	rng := rand.New(rand.NewPCG(2, 2))
	for range 500 {
		a, b := make([]int, 39), make([]int, 39)
		for i := range a {
			a[i] = rng.IntN(400)
			b[i] = max(0, a[i]+rng.IntN(3)-1)
		}
		pa, _ := LSWSmoothBound(p.Rho, a, r.Beta)
		pb, _ := LSWSmoothBound(p.Rho, b, r.Beta)
		if pa > math.Exp(r.Beta)*pb*(1+1e-12) {
			t.Fatalf("Ψ(n) = %g > e^β Ψ(n') = %g", pa, math.Exp(r.Beta)*pb)
		}
	}
	// The released noise has standard deviation σ on every coordinate.
	theta, _ := LSW(p, sig)
	var s2 float64
	n := 0
	for i := range 400 {
		r, _ := DPLSW(p, sig, priv, false, rand.NewPCG(uint64(i), 7))
		for j := range theta {
			d := r.Theta[j] - theta[j]
			s2 += d * d
			n++
		}
	}
	if sd := math.Sqrt(s2 / float64(n)); math.Abs(sd/r.Sigma-1) > 0.02 {
		t.Errorf("noise std %g, want σ = %g", sd, r.Sigma)
	}
}

func TestDPLSLBounds(t *testing.T) {
	sig, _ := NewSignature(chainData(t, 1000, 4), 39, 0.99, index)
	p := tabular(39)
	priv := PrivacyParams{Epsilon: 0.1, Delta: 0.1}
	// The paper's bound needs λ > ‖ρ‖∞‖Φ‖_F² = 1.
	if _, err := DPLSL(p, sig, 0.5, priv, LSLPaper, rand.NewPCG(1, 1)); err == nil {
		t.Error("paper bound accepted λ below its validity range")
	}
	// Reference values (package doc, "Balle et al.'s chain"), tabular m = 1000: σ (code formula) ≈ 8.2e3 and
	// σ (safe) ≈ 537 at λ = 16.8;
	// 21.6 and 2.79 at λ = 1586. Counts differ from the authors' sample, so agreement is to within 25%.
	for _, c := range []struct{ lambda, paper, safe float64 }{{16.8, 8.2e3, 537}, {1586, 21.6, 2.79}} {
		rp, err := DPLSL(p, sig, c.lambda, priv, LSLPaper, rand.NewPCG(1, 1))
		if err != nil {
			t.Fatal(err)
		}
		rs, _ := DPLSL(p, sig, c.lambda, priv, LSLSafe, rand.NewPCG(1, 1))
		if math.Abs(rp.Sigma/c.paper-1) > 0.25 || math.Abs(rs.Sigma/c.safe-1) > 0.25 {
			t.Errorf("λ = %g: σ paper %.4g (reference %.4g), safe %.4g (reference %.4g)", c.lambda, rp.Sigma, c.paper, rs.Sigma, c.safe)
		}
	}
}

// TestLambdaSchedule: λ_min = ‖Φ‖_F²‖ρ‖∞ = 39·(1/39) = 1 for tabular features, so λ = 1 + c·m^0.4.
func TestLambdaSchedule(t *testing.T) {
	b, err := newBalleChain()
	if err != nil {
		t.Fatal(err)
	}
	l, _ := LambdaSchedule(b.Problem(1, 100), 1, 1000)
	if math.Abs(l-(1+math.Pow(1000, 0.4))) > 1e-12 {
		t.Errorf("λ = %g", l)
	}
	if _, err := LambdaSchedule(b.Problem(1, 100), -1, 1000); err == nil {
		t.Error("c = −1 accepted")
	}
}

// TestReleaseReadsTheVisits: a private release computes its averages and counts from the signature's
// recorded first visits, never from the exported F and Counts a caller could have changed: with bounds that
// hold every return (nothing clipped) and with a bound that clips, an edited signature releases what the
// untouched one does, and an unclipped release equals the clipped path's computation when the bound is
// loose enough for the clipping to change nothing.
func TestReleaseReadsTheVisits(t *testing.T) {
	priv := PrivacyParams{Epsilon: 0.1, Delta: 0.1}
	for _, f := range []float64{1, 0.3} {
		p := &Problem{Phi: StateAggregation(39, 2), Rho: UniformWeights(39), FMax: f, FRange: f}
		clean, _ := NewSignature(chainData(t, 300, 5), 39, 0.99, index)
		edited, _ := NewSignature(chainData(t, 300, 5), 39, 0.99, index)
		edited.F[0], edited.Counts[3] = 1e9, edited.Counts[3]+50
		for _, lsl := range []bool{false, true} {
			release := func(sig *Signature) *Release {
				var r *Release
				var err error
				if lsl {
					r, err = DPLSL(p, sig, 50, priv, LSLSafe, rand.NewPCG(4, 4))
				} else {
					r, err = DPLSW(p, sig, priv, false, rand.NewPCG(4, 4))
				}
				if err != nil {
					t.Fatal(err)
				}
				return r
			}
			a, b := release(clean), release(edited)
			if !slices.Equal(a.Theta, b.Theta) || a.Sigma != b.Sigma || a.Clipped != b.Clipped || (f == 1) != (a.Clipped == 0) {
				t.Errorf("F = %g, LSL %v: clean σ %v, clipped %d; edited σ %v, clipped %d", f, lsl, a.Sigma, a.Clipped, b.Sigma, b.Clipped)
			}
		}
	}
	sig, _ := NewSignature(chainData(t, 300, 5), 39, 0.99, index)
	fast, n, err := sig.bounded(0, 1)
	if err != nil || n != 0 {
		t.Fatal(n, err)
	}
	sig.retLo = math.Inf(-1) // force the visit-by-visit path
	slow, n, err := sig.bounded(0, 1)
	if err != nil || n != 0 || !slices.Equal(fast.F, slow.F) || !slices.Equal(fast.Counts, slow.Counts) {
		t.Errorf("the two paths differ: %d clipped, %v", n, err)
	}
}
