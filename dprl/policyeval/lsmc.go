package policyeval

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/dprl-project/dprl/dprl/param"
	"github.com/dprl-project/dprl/mechanisms"
	"github.com/dprl-project/dprl/trajectory"
)

// check rejects values on behalf of this package.
const check param.Checker = "policyeval"

// Signature is the first-visit summary of a batch of m trajectories over N states: F[s], the average
// first-visit return from s over the trajectories that visit it, and Counts[s] = n_s, how many do. Built by
// NewSignature or NewEpisodeSignature, it also keeps every trajectory's first-visit returns, which the
// private releases clip to the declared bounds.
//
// The exported fields are a summary for the non-private estimators (LSW, LSL) and for reading. The private
// releases (DPLSW, DPLSL) never read them: they recompute the summary from the kept returns and the number
// of trajectories and states recorded at construction, so changing a field cannot change their noise.
type Signature struct {
	M      int
	F      []float64
	Counts []int
	m, n   int     // trajectories and states, as built
	visits []visit // each trajectory's first visits, in order
	// The averages and counts as computed from visits at construction, and the range of the first-visit
	// returns: a release whose bounds hold every return uses them instead of clipping visit by visit.
	f            []float64
	counts       []int
	retLo, retHi float64
}

// visit is one trajectory's first visit to a state and the discounted return from there.
type visit struct {
	state int
	ret   float64
}

// NewSignature computes the signature of a dataset over numStates states (discount gamma).
func NewSignature(d *trajectory.Dataset, numStates int, gamma float64, index func(obs []float64) int) (*Signature, error) {
	if d == nil || len(d.Trajectories) == 0 {
		return nil, check.Missing("d", "a dataset with at least one trajectory")
	}
	if index == nil {
		return nil, check.Missing("index", "a function mapping an observation to its state")
	}
	states := make([][]int, len(d.Trajectories))
	rewards := make([][]float64, len(d.Trajectories))
	for i, tr := range d.Trajectories {
		states[i], rewards[i] = make([]int, len(tr.Steps)), make([]float64, len(tr.Steps))
		for t, st := range tr.Steps {
			states[i][t], rewards[i][t] = index(st.Obs), st.Reward
		}
	}
	return NewEpisodeSignature(states, rewards, numStates, gamma)
}

// NewEpisodeSignature computes the signature of m episodes given as their states (in [0, numStates)) and
// rewards, step by step.
func NewEpisodeSignature(states [][]int, rewards [][]float64, numStates int, gamma float64) (*Signature, error) {
	switch {
	case len(states) == 0:
		return nil, check.Missing("states", "at least one episode")
	case len(rewards) != len(states):
		return nil, check.Int("len(rewards)", len(rewards), len(states), len(states))
	case numStates < 1:
		return nil, check.AtLeast("numStates", numStates, 1)
	}
	if err := check.In("gamma", gamma, param.Probability); err != nil {
		return nil, err
	}
	sig := &Signature{M: len(states), F: make([]float64, numStates), Counts: make([]int, numStates), m: len(states), n: numStates,
		retLo: math.Inf(1), retHi: math.Inf(-1)}
	seen := make([]int, numStates) // trajectory number + 1 of the last first visit
	var g []float64
	for i, tr := range states {
		if len(rewards[i]) != len(tr) {
			return nil, check.Int(fmt.Sprintf("len(rewards[%d])", i), len(rewards[i]), len(tr), len(tr))
		}
		g = append(g[:0], make([]float64, len(tr)+1)...)
		for t := len(tr) - 1; t >= 0; t-- {
			if r := rewards[i][t]; math.IsNaN(r) || math.IsInf(r, 0) {
				return nil, check.Errorf(fmt.Sprintf("trajectory %d step %d reward", i, t), r, "finite")
			}
			g[t] = rewards[i][t] + gamma*g[t+1]
		}
		for t, s := range tr {
			if s < 0 || s >= numStates {
				return nil, check.Errorf(fmt.Sprintf("trajectory %d step %d state", i, t), float64(s), "[0, %d]", numStates-1)
			}
			if seen[s] == i+1 {
				continue
			}
			seen[s] = i + 1
			sig.visits = append(sig.visits, visit{s, g[t]})
			sig.retLo, sig.retHi = math.Min(sig.retLo, g[t]), math.Max(sig.retHi, g[t])
			sig.F[s] += g[t]
			sig.Counts[s]++
		}
	}
	for s, c := range sig.Counts {
		if c > 0 {
			sig.F[s] /= float64(c)
		}
	}
	sig.f, sig.counts = slices.Clone(sig.F), slices.Clone(sig.Counts)
	return sig, nil
}

// bounded returns the signature rebuilt from its kept returns (never from the exported fields), with every
// first-visit return clipped to [lo, hi], and how many were clipped; it fails for a signature that does not
// keep its returns.
func (sig *Signature) bounded(lo, hi float64) (*Signature, int, error) {
	if len(sig.visits) == 0 {
		return nil, 0, check.Missing("sig's per-trajectory returns", "a Signature built by NewSignature or NewEpisodeSignature, which keeps them: a private release clips them to the declared bounds")
	}
	if lo <= sig.retLo && sig.retHi <= hi {
		// Nothing to clip: the averages and counts as computed from the visits at construction, in the same order.
		return &Signature{M: sig.m, F: slices.Clone(sig.f), Counts: slices.Clone(sig.counts), m: sig.m, n: sig.n, visits: sig.visits,
			f: sig.f, counts: sig.counts, retLo: sig.retLo, retHi: sig.retHi}, 0, nil
	}
	out := &Signature{M: sig.m, F: make([]float64, sig.n), Counts: make([]int, sig.n), m: sig.m, n: sig.n, visits: sig.visits}
	clipped := 0
	for _, v := range sig.visits {
		r := v.ret
		if r < lo || r > hi {
			r = math.Max(lo, math.Min(hi, r))
			clipped++
		}
		if v.state >= len(out.F) {
			return nil, 0, check.Errorf("sig's visited state", float64(v.state), "[0, %d] (the signature's states)", len(out.F)-1)
		}
		out.F[v.state] += r
		out.Counts[v.state]++
	}
	for s, c := range out.Counts {
		if c > 0 {
			out.F[s] /= float64(c)
		}
	}
	return out, clipped, nil
}

// StateAggregation is the n × ⌈n/k⌉ feature matrix of state aggregation over n tabular states: state s has
// the single feature ⌊s/k⌋, so k neighbouring states share a feature (the last block may hold fewer; k = 1
// gives one-hot, tabular features). Balle et al. aggregate the chain's 39 states in pairs into 20 features.
func StateAggregation(n, k int) *mat.Dense {
	phi := mat.NewDense(n, (n+k-1)/k, nil)
	for s := range n {
		phi.Set(s, s/k, 1)
	}
	return phi
}

// UniformWeights is ρ_s = 1/n for each of n states.
func UniformWeights(n int) []float64 {
	rho := make([]float64, n)
	for s := range n {
		rho[s] = 1.0 / float64(n)
	}
	return rho
}

// ReturnRange is the range a private release clips first-visit returns to: [FMin, FMin + FRange].
func (p *Problem) ReturnRange() (lo, hi float64) {
	return p.FMin, p.FMin + p.FRange
}

// Problem is the public part of a least-squares evaluation: the features Φ (N × d), the regression weights
// ρ_s ≥ 0 and the return bounds.
type Problem struct {
	Phi *mat.Dense // rows φ_s
	Rho []float64  // ρ_s
	// FMax bounds |return|; FRange is the width of the set of possible returns (FMax for non-negative
	// rewards, 2·FMax for signed ones). Balle's code uses R_max/(1−γ) for both; a smaller public bound on the
	// returns (1 on the chain) gives 100× less noise.
	FMax, FRange float64
	// FMin is the lowest possible return (0, the default, for non-negative rewards; −FMax for signed ones):
	// private releases clip every first-visit return to [FMin, FMin + FRange], which must lie within
	// [−FMax, FMax].
	FMin float64
}

// checkInputs refuses a missing Problem, features or Signature.
func checkInputs(p *Problem, sig *Signature) error {
	switch {
	case p == nil:
		return check.Missing("p", "a Problem")
	case p.Phi == nil:
		return check.Missing("Phi", "the Problem's features")
	case sig == nil:
		return check.Missing("sig", "a Signature")
	}
	return nil
}

func (p *Problem) check(sig *Signature) error {
	if err := checkInputs(p, sig); err != nil {
		return err
	}
	n, _ := p.Phi.Dims()
	if err := param.First(check.Int("len(Rho)", len(p.Rho), n, n), check.Int("len(sig.F)", len(sig.F), n, n)); err != nil {
		return err // the rows of Phi fix the number of states
	}
	if err := param.First(check.In("FMax", p.FMax, param.Positive), check.In("FRange", p.FRange, param.Positive),
		check.In("FMin", p.FMin, param.Interval{Lo: -p.FMax, Hi: p.FMax - p.FRange, LoClosed: true, HiClosed: true})); err != nil {
		return err
	}
	// The names are formatted only for a bad value: this check runs on every estimate.
	for s, r := range p.Rho {
		if !(r >= 0) || math.IsInf(r, 1) {
			return check.In(fmt.Sprintf("Rho[%d]", s), r, param.Interval{Lo: 0, Hi: math.Inf(1), LoClosed: true})
		}
	}
	_, d := p.Phi.Dims()
	for s := range n {
		for j, v := range p.Phi.RawRowView(s)[:d] {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return check.In(fmt.Sprintf("Phi[%d, %d]", s, j), v, param.Finite)
			}
		}
	}
	if len(sig.Counts) != n {
		return check.Int("len(sig.Counts)", len(sig.Counts), n, n)
	}
	if sig.M < 1 {
		return check.AtLeast("Signature.M", sig.M, 1)
	}
	return nil
}

// checkPrivacy refuses (ε, δ) outside (0, ∞) × (0, 1): a private release always has noise.
func checkPrivacy(priv PrivacyParams) error {
	return param.First(check.In("Epsilon", priv.Epsilon, mechanisms.SmoothEpsilonRange), check.In("Delta", priv.Delta, param.OpenUnit))
}

// privateSignature validates a private release's inputs and clips the signature's returns to p's range.
func privateSignature(p *Problem, sig *Signature, priv PrivacyParams) (*Signature, int, error) {
	if err := checkInputs(p, sig); err != nil {
		return nil, 0, err
	}
	if err := checkPrivacy(priv); err != nil {
		return nil, 0, err
	}
	if err := p.check(sig); err != nil {
		return nil, 0, err
	}
	lo, hi := p.ReturnRange()
	out, clipped, err := sig.bounded(lo, hi)
	if err != nil {
		return nil, 0, err
	}
	// The rebuilt signature is what the release uses: check it against the problem too.
	return out, clipped, p.check(out)
}

// weighted solves min_θ Σ_s c_s (F_s − φ_sᵀθ)² + reg·‖θ‖² (normal equations, Cholesky with a pseudo-inverse
// fallback for singular systems).
func weighted(phi *mat.Dense, c, f []float64, reg float64) ([]float64, error) {
	n, d := phi.Dims()
	A := mat.NewSymDense(d, nil)
	b := mat.NewVecDense(d, nil)
	for s := range n {
		if c[s] == 0 {
			continue
		}
		row := phi.RawRowView(s)
		for i := range d {
			if row[i] == 0 {
				continue
			}
			b.SetVec(i, b.AtVec(i)+c[s]*row[i]*f[s])
			for j := i; j < d; j++ {
				A.SetSym(i, j, A.At(i, j)+c[s]*row[i]*row[j])
			}
		}
	}
	for i := range d {
		A.SetSym(i, i, A.At(i, i)+reg)
	}
	var chol mat.Cholesky
	var theta mat.VecDense
	if chol.Factorize(A) {
		if err := chol.SolveVecTo(&theta, b); err == nil {
			return theta.RawVector().Data, nil
		}
	}
	// Singular (unvisited states with zero weight): minimum-norm least squares by SVD.
	var svd mat.SVD
	if !svd.Factorize(A, mat.SVDThin) {
		return nil, fmt.Errorf("policyeval: least-squares system could not be factorised")
	}
	var x mat.Dense
	svd.SolveTo(&x, mat.NewDense(d, 1, b.RawVector().Data), svd.Rank(1e-12))
	return mat.Col(nil, 0, &x), nil
}

// LSW is Balle et al.'s least squares with fixed weights: θ = argmin Σ_s w_s (F_s − φ_sᵀθ)², w = ρ.
func LSW(p *Problem, sig *Signature) ([]float64, error) {
	if err := p.check(sig); err != nil {
		return nil, err
	}
	return weighted(p.Phi, p.Rho, sig.F, 0)
}

// LSL is the ridge-regularised estimator θ = (ΦᵀΓ_XΦ + λ/(2m) I)⁻¹ ΦᵀΓ_X F with Γ_X = diag(ρ_s n_s/m).
func LSL(p *Problem, sig *Signature, lambda float64) ([]float64, error) {
	if err := p.check(sig); err != nil {
		return nil, err
	}
	if err := check.In("lambda", lambda, param.Positive); err != nil {
		return nil, err
	}
	c := make([]float64, len(p.Rho))
	for s := range c {
		c[s] = p.Rho[s] * float64(sig.Counts[s]) / float64(sig.M)
	}
	return weighted(p.Phi, c, sig.F, lambda/(2*float64(sig.M)))
}

// PrivacyParams are the (ε, δ) of a release and the smooth-sensitivity constants' variant. ε must lie in
// (0, 1] (mechanisms.SmoothEpsilonRange): the constants are proven there only, so DP-LSW and DP-LSL refuse a
// larger ε rather than release without a guarantee.
type PrivacyParams struct {
	Epsilon, Delta float64
	Variant        mechanisms.SmoothVariant
}

// Release is a private estimate with the noise that produced it.
type Release struct {
	Theta       []float64
	Clipped     int     // first-visit returns clipped to the problem's ReturnRange
	Sigma       float64 // noise standard deviation per coordinate
	SmoothBound float64 // Ψ (DP-LSW) or its LSL counterpart: the squared smooth bound
	ArgmaxK     int     // the distance k attaining the smooth bound
	Alpha, Beta float64
}

// pinvNorm is ‖(Γ_w^{1/2}Φ)⁺‖₂ = 1/σ_min of Γ_w^{1/2}Φ restricted to states with w_s > 0 (frob: the
// Frobenius norm √Σ 1/σ_i², which Balle's code uses and which is never smaller).
func pinvNorm(phi *mat.Dense, w []float64, frob bool) (float64, error) {
	n, d := phi.Dims()
	G := mat.NewDense(n, d, nil)
	for s := range n {
		sw := math.Sqrt(w[s])
		for j := range d {
			G.Set(s, j, sw*phi.At(s, j))
		}
	}
	var svd mat.SVD
	if !svd.Factorize(G, mat.SVDNone) {
		return 0, fmt.Errorf("policyeval: SVD failed")
	}
	vals := svd.Values(nil)
	if len(vals) < d || vals[d-1] <= 1e-12*vals[0] {
		return 0, fmt.Errorf("policyeval: Γ_w^{1/2}Φ does not have full column rank: LSW needs features that are independent on the weighted states")
	}
	if !frob {
		return 1 / vals[d-1], nil
	}
	s := 0.0
	for _, v := range vals {
		s += 1 / (v * v)
	}
	return math.Sqrt(s), nil
}

// LSWSmoothBound is Ψ_β(n) = max_{0≤k≤‖n‖∞} e^{−kβ} Σ_s w_s / max(n_s − k, 1)² (Balle et al. Lemmas 4–5),
// with the k attaining it.
func LSWSmoothBound(w []float64, counts []int, beta float64) (psi float64, argmax int) {
	nMax := 0
	for _, c := range counts {
		nMax = max(nMax, c)
	}
	return mechanisms.SmoothUpperBound(beta, nMax, func(k int) float64 {
		s := 0.0
		for i, c := range counts {
			d := 1.0
			if c-k > 1 {
				d = float64(c - k)
			}
			s += w[i] / (d * d)
		}
		return s
	})
}

// DPLSW releases LSW's estimate plus N(0, σ_X² I_d), σ_X = α·F_range·‖(Γ_w^{1/2}Φ)⁺‖₂·√Ψ_β(n_X)
// (Balle et al. Algorithm 1). frobenius selects the authors' code's (more conservative) Frobenius norm.
//
// Every trajectory's first-visit returns are first clipped to p.ReturnRange (counted in Release.Clipped), so
// the noise's calibration holds whatever the data; ε must lie in (0, ∞), δ in (0, 1).
func DPLSW(p *Problem, sig *Signature, priv PrivacyParams, frobenius bool, src rand.Source) (*Release, error) {
	sig, clipped, err := privateSignature(p, sig, priv)
	if err != nil {
		return nil, err
	}
	theta, err := LSW(p, sig)
	if err != nil {
		return nil, err
	}
	_, d := p.Phi.Dims()
	alpha, beta, err := mechanisms.SmoothGaussianConstants(priv.Epsilon, priv.Delta, d, priv.Variant)
	if err != nil {
		return nil, err
	}
	pn, err := pinvNorm(p.Phi, p.Rho, frobenius)
	if err != nil {
		return nil, err
	}
	psi, k := LSWSmoothBound(p.Rho, sig.Counts, beta)
	sigma := alpha * p.FRange * pn * math.Sqrt(psi)
	return release(theta, sigma, psi, k, alpha, beta, clipped, src)
}

func release(theta []float64, sigma, psi float64, k int, alpha, beta float64, clipped int, src rand.Source) (*Release, error) {
	if src == nil {
		return nil, check.Missing("src", "a non-nil rand.Source")
	}
	g, err := mechanisms.NewGaussian(sigma, src)
	if err != nil {
		return nil, err
	}
	out := append([]float64(nil), theta...)
	g.AddNoise(out)
	return &Release{Theta: out, Sigma: sigma, SmoothBound: psi, ArgmaxK: k, Alpha: alpha, Beta: beta, Clipped: clipped}, nil
}

// LSLBound selects DP-LSL's sensitivity analysis.
type LSLBound int

const (
	// LSLPaper is the form recovered from the authors' newest code (Lemmas 7–9): it needs
	// λ > ‖ρ‖∞‖Φ‖² and uses the Frobenius norm of Φ.
	LSLPaper LSLBound = iota
	// LSLSafe is the bound derived for dprl (package doc, "DP-LSL"), provably valid for any λ > 0 (spectral
	// norms).
	LSLSafe
)

// String names the bound ("paper/code bound", "safe bound"), or gives LSLBound(n) for any other value.
func (b LSLBound) String() string {
	switch b {
	case LSLPaper:
		return "paper/code bound"
	case LSLSafe:
		return "safe bound"
	}
	return fmt.Sprintf("LSLBound(%d)", int(b))
}

// DPLSL releases LSL's estimate plus N(0, σ_X² I_d) with σ_X from the chosen bound's smooth sensitivity
// (package doc, "DP-LSL"): the smooth bound maxes over k of e^{−kβ}·H(min(n + k, m))², counts growing
// towards m.
// Returns are clipped to p.ReturnRange first, as in DPLSW.
func DPLSL(p *Problem, sig *Signature, lambda float64, priv PrivacyParams, bound LSLBound, src rand.Source) (*Release, error) {
	sig, clipped, err := privateSignature(p, sig, priv)
	if err != nil {
		return nil, err
	}
	theta, err := LSL(p, sig, lambda)
	if err != nil {
		return nil, err
	}
	_, d := p.Phi.Dims()
	alpha, beta, err := mechanisms.SmoothGaussianConstants(priv.Epsilon, priv.Delta, d, priv.Variant)
	if err != nil {
		return nil, err
	}
	rhoInf, rho2 := 0.0, 0.0
	for _, r := range p.Rho {
		rhoInf = math.Max(rhoInf, r)
		rho2 += r * r
	}
	rho2 = math.Sqrt(rho2)
	m := sig.M
	// raised(k) is Σ_s ρ_s·min(n_s + k, m): the weighted counts with every count raised by k.
	raised := func(k int) float64 {
		sum := 0.0
		for s, c := range sig.Counts {
			sum += p.Rho[s] * float64(min(c+k, m))
		}
		return sum
	}
	// h(k) is the bound's count-dependent factor with every count raised by k (capped at m).
	var h func(k int) float64
	var scale float64
	switch bound {
	case LSLPaper:
		phiF := mat.Norm(p.Phi, 2) // Frobenius
		if lambda <= rhoInf*phiF*phiF {
			return nil, check.Errorf("lambda", lambda, "(‖ρ‖∞‖Φ‖_F², ∞) = (%g, ∞) for the paper's bound (LSLSafe accepts any λ > 0)", rhoInf*phiF*phiF)
		}
		h = func(k int) float64 { return phiF*rhoInf/math.Sqrt(2*lambda)*math.Sqrt(raised(k)) + rho2 }
		scale = 2 * alpha * p.FMax * phiF / (lambda - rhoInf*phiF*phiF)
	case LSLSafe:
		phi2 := mat.Norm(p.Phi, 2)
		var svd mat.SVD
		if svd.Factorize(p.Phi, mat.SVDNone) {
			phi2 = svd.Values(nil)[0] // spectral norm
		}
		h = func(k int) float64 { return p.FRange*rho2 + phi2*rhoInf*p.FMax*math.Sqrt(2*raised(k)/lambda) }
		scale = alpha * 2 * phi2 / lambda
	default:
		return nil, check.Int("bound", int(bound), int(LSLPaper), int(LSLSafe))
	}
	// H grows with k, so the scan stops once e^{−kβ}·H(m)² cannot beat the maximum found.
	psi, kBest := mechanisms.SmoothUpperBound(beta, m, func(k int) float64 { v := h(k); return v * v })
	return release(theta, scale*math.Sqrt(psi), psi, kBest, alpha, beta, clipped, src)
}

// LambdaSchedule is Balle et al.'s regularisation schedule for LSL and DP-LSL on a batch of m trajectories,
// λ = ‖Φ‖_F²‖ρ‖∞ + c·m^0.4: the first term is where the authors' DP-LSL noise formula (LSLPaper) starts to
// hold, the second grows with the batch (package doc, "DP-LSL").
func LambdaSchedule(p *Problem, c float64, m int) (float64, error) {
	switch {
	case p == nil:
		return 0, check.Missing("p", "a Problem")
	case p.Phi == nil:
		return 0, check.Missing("Phi", "the Problem's features")
	}
	if err := param.First(check.In("c", c, param.NonNegative), check.AtLeast("m", m, 1)); err != nil {
		return 0, err
	}
	rhoInf := 0.0
	for _, r := range p.Rho {
		rhoInf = math.Max(rhoInf, r)
	}
	f := mat.Norm(p.Phi, 2)
	return f*f*rhoInf + c*math.Pow(float64(m), 0.4), nil
}

// RMSE is Balle et al.'s error "averaged over the state space": sqrt(Σ_s ρ_s (V(s) − φ_sᵀθ)²)/sqrt(Σρ_s)
// (with ρ summing to 1 the normalisation is 1).
func RMSE(phi *mat.Dense, theta, v, rho []float64) float64 {
	n, _ := phi.Dims()
	num, den := 0.0, 0.0
	for s := range n {
		est := mat.Dot(mat.NewVecDense(len(theta), phi.RawRowView(s)), mat.NewVecDense(len(theta), theta))
		num += rho[s] * (v[s] - est) * (v[s] - est)
		den += rho[s]
	}
	return math.Sqrt(num / den)
}

// EmpiricalRisk is the θ-dependent part of Balle et al.'s loss J_X(θ) = Σ_s ρ_s (n_s/m)(F_s − φ_sᵀθ)² +
// (a within-state variance that does not depend on θ). Excess risk is EmpiricalRisk(θ̂) − EmpiricalRisk(θ*).
func EmpiricalRisk(phi *mat.Dense, theta []float64, sig *Signature, rho []float64) float64 {
	n, _ := phi.Dims()
	r := 0.0
	for s := range n {
		est := mat.Dot(mat.NewVecDense(len(theta), phi.RawRowView(s)), mat.NewVecDense(len(theta), theta))
		r += rho[s] * float64(sig.Counts[s]) / float64(sig.M) * (sig.F[s] - est) * (sig.F[s] - est)
	}
	return r
}
