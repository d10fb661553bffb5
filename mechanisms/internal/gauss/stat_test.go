package gauss

import (
	"math"
	"math/big"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
)

// The tests below check the sampler against the standard normal law. Every one uses fixed keys, so it
// passes or fails the same way on every run; each bound is a two-sided test at level 1e-6 or below (or a
// stated rounding bound), so a correct sampler passes with room to spare and a wrong one (a layer table
// off by a part in 10⁴, a wedge or tail that does not follow the density, a tail cut at 5σ, a sign or a
// chunk stream reused) fails.

// normals returns n standard normals from key.
func normals(n int, key [4]uint64) []float64 {
	z := make([]float64, n)
	Add([][]float64{z}, 1, 1, key)
	return z
}

// phi is the standard normal distribution function; q its upper tail 1 − Φ, accurate far out.
func phi(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }
func q(x float64) float64   { return 0.5 * math.Erfc(x/math.Sqrt2) }

// TestTable: the ziggurat's layers all have the area V (the base layer's rectangle plus tail included),
// to float64 rounding; the fast-accept bounds are exact; the heights are the density at the edges.
func TestTable(t *testing.T) {
	edge := func(i int) float64 {
		if i == layers {
			return 0
		}
		return math.Ldexp(width[i], 52)
	}
	r := tailStart
	if edge(1) != r {
		t.Fatalf("x_1 = %v, want r = %v", edge(1), r)
	}
	v := r*math.Exp(-r*r/2) + math.Sqrt(math.Pi/2)*math.Erfc(r/math.Sqrt2) // rectangle + tail
	for i := range layers {
		var area float64
		if i == 0 {
			area = edge(0) * height[1]
		} else {
			area = edge(i) * (height[i+1] - height[i])
		}
		if math.Abs(area/v-1) > 1e-12 {
			t.Errorf("layer %d: area %v, want %v (relative %.2g)", i, area, v, area/v-1)
		}
		if !(edge(i+1) < edge(i)) || !(height[i] < height[i+1]) {
			t.Errorf("layer %d: edges %v, %v or heights %v, %v out of order", i, edge(i), edge(i+1), height[i], height[i+1])
		}
		// m < fastBelow[i] ⇔ m·2⁻⁵²·x_i < x_{i+1}, exactly.
		lim := new(big.Rat).SetFloat64(edge(i + 1))
		for _, m := range []uint64{fastBelow[i] - 1, fastBelow[i]} {
			if fastBelow[i] == 0 && m != 0 {
				continue
			}
			p := new(big.Rat).Mul(new(big.Rat).SetInt64(int64(m)), new(big.Rat).SetFloat64(width[i]))
			if below := p.Cmp(lim) < 0; below != (m < fastBelow[i]) {
				t.Errorf("layer %d: m = %d is below x_{i+1}: %v, fast test says %v", i, m, below, m < fastBelow[i])
			}
		}
		// (math.Exp's argument is rounded: a relative error of x²/2·2⁻⁵³ on top of its own ulp)
		if h := math.Exp(-edge(i) * edge(i) / 2); math.Abs(h-height[i]) > (1+edge(i)*edge(i)/2)*2.3e-16*h {
			t.Errorf("height[%d] = %v, density %v", i, height[i], h)
		}
	}
	if height[layers] != 1 {
		t.Errorf("height[256] = %v", height[layers])
	}
}

// TestFastAcceptRate: the share of words the fast step accepts is Σ_i (x_{i+1}/x_i)/256 (98.5%; the top
// layer, 1/256, never is), and a million words from the generator agree with it.
func TestFastAcceptRate(t *testing.T) {
	want := 0.0
	for i := range layers {
		want += float64(fastBelow[i]) / (1 << 52) / layers
	}
	if want < 0.984 || want > 0.986 {
		t.Errorf("fast acceptance %v, want about 0.985", want)
	}
	rng := rand.NewChaCha8([32]byte{1})
	const n = 1 << 20
	acc := 0
	for range n {
		if _, ok := fast(rng.Uint64()); ok {
			acc++
		}
	}
	if se := math.Sqrt(want * (1 - want) / n); math.Abs(float64(acc)/n-want) > 6*se {
		t.Errorf("fast step accepted %d of %d words, want %v ± %v", acc, n, want*n, 6*se*n)
	}
}

// TestGoodnessOfFit: Kolmogorov–Smirnov and Anderson–Darling against Φ on 2²² draws (four keys, both paths
// where there is a kernel). Critical values at level 1e-6: √n·D < 2.7; A² < 10 (A² exceeds 6 with
// probability 1e-3).
func TestGoodnessOfFit(t *testing.T) {
	for _, path := range []string{"kernel", "portable"} {
		if path == "kernel" && !hasAVX512 {
			continue
		}
		var z []float64
		run := func() {
			for k := range uint64(4) {
				z = append(z, normals(1<<20, [4]uint64{k, 2, 3, 4})...)
			}
		}
		if path == "kernel" {
			run()
		} else {
			withPortable(run)
		}
		slices.Sort(z)
		n := float64(len(z))
		d, a2 := 0.0, 0.0
		for i, x := range z {
			f := phi(x)
			d = max(d, math.Abs(f-float64(i)/n), math.Abs(float64(i+1)/n-f))
			// A² = −n − (1/n) Σ (2i−1)[ln Φ(x_i) + ln(1 − Φ(x_{n+1−i}))]
			a2 -= float64(2*i+1) * (math.Log(f) + math.Log(q(z[len(z)-1-i])))
		}
		a2 = a2/n - n
		if ks := d * math.Sqrt(n); ks > 2.7 {
			t.Errorf("%s: Kolmogorov–Smirnov √n·D = %.3f > 2.7", path, ks)
		}
		if a2 > 10 {
			t.Errorf("%s: Anderson–Darling A² = %.3f > 10", path, a2)
		}
		t.Logf("%s: √n·D = %.3f, A² = %.3f (n = %d)", path, d*math.Sqrt(n), a2, len(z))
	}
}

// TestMoments: mean, variance, skewness and excess kurtosis of 2²² draws within 5.5 standard errors of
// 0, 1, 0, 0.
func TestMoments(t *testing.T) {
	z := normals(1<<22, [4]uint64{9, 9, 9, 9})
	n := float64(len(z))
	var m1, m2, m3, m4 float64
	for _, x := range z {
		x2 := x * x
		m1, m2, m3, m4 = m1+x, m2+x2, m3+x2*x, m4+x2*x2
	}
	m1, m2, m3, m4 = m1/n, m2/n, m3/n, m4/n
	for _, c := range []struct {
		name     string
		got, se  float64
		expected float64
	}{
		{"mean", m1, 1 / math.Sqrt(n), 0},
		{"variance", m2, math.Sqrt(2 / n), 1},
		{"third moment", m3, math.Sqrt(15 / n), 0},
		{"fourth moment", m4, math.Sqrt(96 / n), 3},
	} {
		if math.Abs(c.got-c.expected) > 5.5*c.se {
			t.Errorf("%s = %v, want %v ± %v", c.name, c.got, c.expected, 5.5*c.se)
		}
	}
}

// poissonBounds is a two-sided interval for a Poisson count of mean mu at level about alpha (each side
// alpha/2, by the summed mass function); beyond mu = 500, mu ± 5.5√mu (level 4·10⁻⁸ by the normal
// approximation, whose error there is far smaller).
func poissonBounds(mu, alpha float64) (lo, hi int) {
	if mu > 500 {
		return int(math.Floor(mu - 5.5*math.Sqrt(mu))), int(math.Ceil(mu + 5.5*math.Sqrt(mu)))
	}
	p := math.Exp(-mu)
	cdf := p
	k := 0
	for cdf < alpha/2 {
		k++
		p *= mu / float64(k)
		cdf += p
	}
	lo = k
	for 1-cdf > alpha/2 {
		k++
		p *= mu / float64(k)
		cdf += p
	}
	return lo, k
}

// TestTails: the frequency of |Z| > k for k = 1…5 in 2²⁴ draws, and, for the tail sampler alone (what the
// ziggurat draws beyond r = 3.654), the frequency beyond 4, 5, 5.5 and 6 in 4·10⁶ draws (about 30 beyond 6,
// where P(|Z| > 6) = 2·10⁻⁹), with a Kolmogorov–Smirnov test of its conditional law. A sampler cut off
// anywhere below 6σ fails the last count.
func TestTails(t *testing.T) {
	z := normals(1<<24, [4]uint64{11, 12, 13, 14})
	n := float64(len(z))
	for k := 1; k <= 5; k++ {
		c := 0
		for _, x := range z {
			if math.Abs(x) > float64(k) {
				c++
			}
		}
		lo, hi := poissonBounds(n*2*q(float64(k)), 1e-6)
		if c < lo || c > hi {
			t.Errorf("|Z| > %d: %d of %d draws, want [%d, %d]", k, c, len(z), lo, hi)
		}
	}
	rng := rand.NewChaCha8([32]byte{2})
	const m = 4_000_000
	tails := make([]float64, m)
	for i := range tails {
		tails[i] = tail(rng.Uint64)
	}
	qr := q(tailStart)
	for _, x := range []float64{4, 5, 5.5, 6} {
		c := 0
		for _, v := range tails {
			if v > x {
				c++
			}
		}
		lo, hi := poissonBounds(m*q(x)/qr, 1e-6)
		if c < lo || c > hi {
			t.Errorf("tail sampler beyond %v: %d of %d, want [%d, %d]", x, c, m, lo, hi)
		}
	}
	slices.Sort(tails)
	d := 0.0
	for i, x := range tails {
		f := 1 - q(x)/qr
		d = max(d, math.Abs(f-float64(i)/m), math.Abs(float64(i+1)/m-f))
	}
	if ks := d * math.Sqrt(m); ks > 2.7 {
		t.Errorf("tail sampler: Kolmogorov–Smirnov √n·D = %.3f > 2.7", ks)
	}
}

// TestUntruncatedTail: the tail is not cut where a 53-bit uniform would cut it (r + 53·ln2/r ≈ 13.7):
// words of zeros refine the uniforms (openUniform), and scripted words take the tail sampler past 20.
func TestUntruncatedTail(t *testing.T) {
	words := func(w ...uint64) func() uint64 {
		return func() uint64 {
			v := w[0]
			w = w[1:]
			return v
		}
	}
	if u := openUniform(words(0, 0, 5<<12)); u != 11*0x1p-53*0x1p-104 {
		t.Errorf("openUniform(0, 0, 5) = %v, want 11·2⁻¹⁵⁷", u)
	}
	if u := openUniform(words(^uint64(0))); !(u < 1) {
		t.Errorf("openUniform(all ones) = %v, want below 1", u)
	}
	// U₁ = 2⁻¹⁰⁸·…: a ≈ 75/r ≈ 20.5; U₂ tiny enough that 2b > a² (b ≈ 2·10⁸·ln 2… from 4 refinements).
	zs := make([]uint64, 0, 40)
	zs = append(zs, 0, 0, 1<<12)           // U₁ = 3·2⁻¹⁵⁷
	zs = append(zs, make([]uint64, 18)...) // U₂: 18 refinements, then k = 1
	zs = append(zs, 1<<12)
	x := tail(words(zs...))
	if want := tailStart - math.Log(3*0x1p-157)/tailStart; x != want || x < 20 {
		t.Errorf("tail = %v, want %v (beyond 20)", x, want)
	}
}

// TestWedge: in layers across the table, a point uniform in the wedge (between x_{i+1} and x_i, between
// the layer's heights) is kept with the probability ∫(f − f(x_i))/(width·height) of lying under the density
// (by Simpson's rule), and the kept points' positions follow that density (KS).
func TestWedge(t *testing.T) {
	rng := rand.NewChaCha8([32]byte{3})
	for _, i := range []uint64{1, 2, 50, 128, 200, 203, 204, 205, 254, 255} {
		x0, x1 := math.Ldexp(width[i], 52), 0.0
		if i+1 < layers {
			x1 = math.Ldexp(width[i+1], 52)
		}
		f := func(x float64) float64 { return math.Exp(-x*x/2) - height[i] }
		const steps = 2000
		integral := 0.0
		for s := 0; s <= steps; s++ {
			c := map[bool]float64{true: 1, false: 2}[s == 0 || s == steps]
			if s%2 == 1 {
				c = 4
			}
			integral += c * f(x1+(x0-x1)*float64(s)/steps)
		}
		integral *= (x0 - x1) / steps / 3
		p := integral / ((x0 - x1) * (height[i+1] - height[i]))
		const n = 200_000
		kept := make([]float64, 0, n)
		for range n {
			// a word in layer i beyond the fast bound: m uniform in [fastBelow[i], 2⁵²)
			m := fastBelow[i] + rng.Uint64()%(1<<52-fastBelow[i])
			w := m<<12 | i
			_, _, x := decode(w)
			if wedge(i, x, float64(rng.Uint64()>>11)*0x1p-53) {
				kept = append(kept, x)
			}
		}
		if se := math.Sqrt(p * (1 - p) / n); math.Abs(float64(len(kept))/n-p) > 5.5*se {
			t.Errorf("layer %d: wedge kept %d of %d, want %v ± %v", i, len(kept), n, p*n, 5.5*se*n)
		}
		// The kept x follow f − f(x_i) on [x1, x0]: compare with its distribution function.
		slices.Sort(kept)
		cdf := func(x float64) float64 {
			// ∫_{x1}^{x} e^{−t²/2} dt − (x − x1)·f(x_i), over the integral
			g := math.Sqrt(math.Pi/2) * (math.Erf(x/math.Sqrt2) - math.Erf(x1/math.Sqrt2))
			return (g - (x-x1)*height[i]) / integral
		}
		d := 0.0
		k := float64(len(kept))
		for j, x := range kept {
			c := cdf(x)
			d = max(d, math.Abs(c-float64(j)/k), math.Abs(float64(j+1)/k-c))
		}
		if ks := d * math.Sqrt(k); ks > 2.7 {
			t.Errorf("layer %d: kept positions, Kolmogorov–Smirnov √n·D = %.3f > 2.7", i, ks)
		}
	}
}

// TestIndependence: correlations (of values and of squares) between neighbouring coordinates, between the
// same coordinate of neighbouring chunks, between the halves two workers fill, and between keys that
// differ in one bit, are within 5.5/√N of 0.
func TestIndependence(t *testing.T) {
	const chunks = 256
	z := normals(chunks*ChunkLen, [4]uint64{21, 22, 23, 24})
	other := normals(chunks*ChunkLen, [4]uint64{21 ^ 1, 22, 23, 24})
	check := func(name string, a, b func(i int) float64, n int) {
		t.Helper()
		for _, sq := range []bool{false, true} {
			s := 0.0
			for i := range n {
				x, y := a(i), b(i)
				if sq { // squares, centred (E Z² = 1, Var Z² = 2)
					x, y = (x*x-1)/math.Sqrt2, (y*y-1)/math.Sqrt2
				}
				s += x * y
			}
			if r := s / float64(n); math.Abs(r) > 5.5/math.Sqrt(float64(n)) {
				t.Errorf("%s (squares %v): correlation %.4g over %d pairs, bound %.3g", name, sq, r, n, 5.5/math.Sqrt(float64(n)))
			}
		}
	}
	n := len(z)
	check("neighbouring coordinates", func(i int) float64 { return z[i] }, func(i int) float64 { return z[i+1] }, n-1)
	check("coordinate 124 apart (next iteration)", func(i int) float64 { return z[i] }, func(i int) float64 { return z[i+iterWords] }, n-iterWords)
	check("same coordinate of the next chunk", func(i int) float64 { return z[i] }, func(i int) float64 { return z[i+ChunkLen] }, n-ChunkLen)
	check("the two halves", func(i int) float64 { return z[i] }, func(i int) float64 { return z[i+n/2] }, n/2)
	check("keys one bit apart", func(i int) float64 { return z[i] }, func(i int) float64 { return other[i] }, n)
}

// TestDeterminism: the same key gives the same bits whatever GOMAXPROCS, however the vector is cut into
// slices, and in float32 the float64 result rounded; values and scale enter as documented.
func TestDeterminism(t *testing.T) {
	const n = 9*ChunkLen + 77
	key := [4]uint64{31, 32, 33, 34}
	base := make([]float64, n)
	for i := range base {
		base[i] = float64(i%5) - 2
	}
	run := func(procs int, cuts []int) []float64 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		x := append([]float64(nil), base...)
		var parts [][]float64
		prev := 0
		for _, c := range append(cuts, n) {
			parts = append(parts, x[prev:c])
			prev = c
		}
		Add(parts, 0.5, 0.25, key)
		return x
	}
	want := run(1, nil)
	for _, c := range []struct {
		procs int
		cuts  []int
	}{
		{2, nil}, {3, nil}, {8, nil},
		{1, []int{1, 1, 5, 124, 1000, 1984, 1985, 4000, 4000, 9000}},
		{2, []int{3, 2047, 2048, 10000, 17000}},
	} {
		got := run(c.procs, c.cuts)
		for i := range got {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				t.Fatalf("GOMAXPROCS %d, cuts %v: element %d = %v, want %v", c.procs, c.cuts, i, got[i], want[i])
			}
		}
	}
	z := normals(n, key)
	x32 := make([]float32, n)
	for i := range x32 {
		x32[i] = float32(base[i]) + 0.1
	}
	Add([][]float32{x32}, 0.5, 0.25, key)
	for i := range z {
		if w := float32(math.FMA(0.5, z[i], float64(float32(base[i])+0.1)) * 0.25); x32[i] != w || want[i] != math.FMA(0.5, z[i], base[i])*0.25 {
			t.Fatalf("element %d: float32 %v, want %v; float64 %v, want %v", i, x32[i], w, want[i], math.FMA(0.5, z[i], base[i])*0.25)
		}
	}
}

// TestStream: Add follows its documented definition, written out here directly: chunk c's generator is
// seeded with words 4c–4c+3 of the key's generator; coordinate j of a chunk takes word j; the rejected
// ones are finished in order from the words after the chunk's last whole iteration.
func TestStream(t *testing.T) {
	for _, n := range []int{1, 124, 125, ChunkLen, 3*ChunkLen + 5} {
		key := [4]uint64{uint64(n), 1, 4, 1}
		want := make([]float64, n)
		master := rand.NewChaCha8(seedBytes(key))
		for c0 := 0; c0 < n; c0 += ChunkLen {
			chunk := want[c0:min(c0+ChunkLen, n)]
			gen := rand.NewChaCha8(seedBytes([4]uint64{master.Uint64(), master.Uint64(), master.Uint64(), master.Uint64()}))
			var rejected []int
			var ws []uint64
			for j := range chunk {
				w := gen.Uint64()
				ws = append(ws, w)
				z, ok := fast(w)
				chunk[j] = z
				if !ok {
					rejected = append(rejected, j)
				}
			}
			for j := len(chunk); j%iterWords != 0; j++ {
				gen.Uint64()
			}
			for _, j := range rejected {
				chunk[j] = slow(ws[j], gen.Uint64)
			}
		}
		got := normals(n, key)
		for i := range got {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				t.Fatalf("n = %d: coordinate %d = %v, definition %v", n, i, got[i], want[i])
			}
		}
	}
}

// TestChordTest: wherever the chord decides the wedge test, it agrees with the test against the density
// (math.Exp), in every layer; and it leaves few points to the exponential.
func TestChordTest(t *testing.T) {
	rng := rand.NewChaCha8([32]byte{4})
	undecided, total := 0, 0
	for i := uint64(1); i < layers; i++ {
		for range 20000 {
			m := fastBelow[i] + rng.Uint64()%(1<<52-fastBelow[i])
			_, _, x := decode(m<<12 | i)
			u := float64(rng.Uint64()>>11) * 0x1p-53
			keep, ok := chordTest(i, x, u)
			total++
			if !ok {
				undecided++
				continue
			}
			if exact := math.FMA(u, height[i+1]-height[i], height[i]) < math.Exp(-0.5*x*x); keep != exact {
				t.Fatalf("layer %d, x = %v, u = %v: chord says %v, density %v", i, x, u, keep, exact)
			}
		}
	}
	if f := float64(undecided) / float64(total); f > 0.01 {
		t.Errorf("the chord left %.2g of the points to the exponential, want under 1%%", f)
	}
}
