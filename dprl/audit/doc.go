// Package audit measures empirical lower bounds on the privacy loss of randomized procedures. A procedure
// is run many times on two neighbouring inputs; a threshold on a scalar statistic of its output, chosen on
// separate runs, tells the inputs apart; and the test's false-positive and false-negative rates, bounded
// with Clopper–Pearson intervals, give the smallest ε that any (ε, δ)-DP procedure could have. A correct
// implementation audits below its claimed ε; a broken one (too little noise, clipping skipped, noise not
// kept) is caught when its audited bound exceeds the claim.
//
// # The bound
//
// If a procedure is (ε, δ)-DP, every test that says "input 1" on some set of outputs has
// FPR + e^ε·FNR ≥ 1 − δ and FNR + e^ε·FPR ≥ 1 − δ (Kairouz, Oh & Viswanath 2015), hence
//
//	ε ≥ max{ln((1 − δ − FPR)/FNR), ln((1 − δ − FNR)/FPR)}     (EpsilonFromRates)
//
// Run replaces both rates by one-sided Clopper–Pearson upper limits at level 1 − (1 − conf)/2 each, so by a
// union bound Result.EpsilonLower holds with confidence conf (0.95 by default); EpsilonPoint is the same
// formula at the observed rates. ClopperPearson(k, n, conf) is the exact interval
// from Beta quantiles: lower B(a; k, n − k + 1) and upper B(1 − a; k + 1, n − k), a = (1 − conf)/2.
//
// # Procedure and runs
//
// A Procedure returns one run's statistic on input 0 or input 1, drawing all its randomness from the source
// it is given. Run makes 2·Runs runs per input: the first half chooses the threshold and direction that
// maximise the point estimate, the second half measures the rates. Run i of a configuration always draws
// from the same stream (Seed and i), so the result does not depend on the number of workers; a run that
// fails or panics becomes an error naming it and its stream. Projected makes the natural statistic for a
// vector release: its projection on a direction, such as the difference of the non-private answers on the
// two inputs.
//
// # Catalog
//
// A Case pairs the procedure as implemented with a deliberately broken variant, the claimed (ε, δ), the
// neighbouring relation audited and, where it has a closed form, the exact ε of the valid variant on the
// audited pair (PairEpsilon; GaussianPairEpsilon for a Gaussian pair μ = Δ/σ apart): no test can show more,
// so an audit above it would be a bug in the auditor. The cases here cover package mechanisms:
//   - GaussianCase: the analytic Gaussian at (1, 1e−5) on a sensitivity-1 query; broken: a tenth of the
//     noise.
//   - LaplaceCase: the Laplace mechanism at ε = 1; broken: a tenth of the noise.
//   - SVTCase: AboveThreshold with ε = 1 on ten queries all moved by Δ between the inputs, statistic minus
//     the index of the stopping query; broken: noise calibrated for ε = 10.
//   - OUCase: the functional mechanism, f + g with g an OU path (β = 1) and neighbouring functions differing
//     by a constant of RKHS norm 1, σ = √(2 ln(1.25/δ))/ε at (0.9, 1e−4), the adversary averaging 100
//     queries; broken: fresh noise for every query, which averaging removes.
//
// The reproductions (dprl/repro) add cases for DP-SGD, DP-LSW, GPOPE and DataRelease. AuditCatalog audits
// both variants of every case.
//
// # References
//
//   - Clopper & Pearson (1934), The use of confidence or fiducial limits illustrated in the case of the
//     binomial.
//   - Jagielski, Ullman & Oprea (2020), Auditing differentially private machine learning: how private is
//     private SGD?
//   - Kairouz, Oh & Viswanath (2015), The composition theorem for differential privacy.
//   - Nasr, Song, Thakurta, Papernot & Carlini (2021), Adversary instantiation: lower bounds for
//     differentially private machine learning.
package audit
