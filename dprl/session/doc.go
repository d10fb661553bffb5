// Package session keeps the privacy promise of an interactive analysis of one private dataset: a persistent
// budget per dataset, charged before every release, in a ledger that survives the process.
//
// # The model
//
// What is private: the trajectories of one file, each the data of one individual. Two datasets are
// neighbours when one trajectory is replaced by another; the number of trajectories m is public. What is
// public: m, the file's shape (observation dimension, actions), its content hash, the budget, and everything
// released through the session. Everything else computed from the file is private, including what a
// release does not print: a noise scale that depends on the data (smooth sensitivity), how many values
// were clipped, and error messages about particular records. Planning — choosing estimators, ε, bounds,
// features — belongs on public data (a synthetic file from a public model, or a public split) where it
// costs nothing; done on the private file it must be paid for like any release (Selection).
//
// A Session is opened on a trajectory file (Config) and is the only way to the file's data: Release charges
// a Charge (the release's (ε, δ), and optionally its Rényi-DP curve) to the dataset's budget and only then
// calls the release with the data and a noise source; a release that then fails keeps its charge and
// returns a *ReleaseError whose message withholds the cause (it may describe the data). The dataset is
// known by its content hash (Hash):
// the SHA-256 of the sorted SHA-256s of its trajectories in canonical CSV form, so a renamed, copied,
// reformatted or reordered file shares its budget and a file with any value changed is a different
// dataset.
//
// # Filters
//
// A budget (Total) is a promise that everything ever released from the dataset is (ε, δ)-DP, even though
// each release's parameters may be chosen after seeing earlier ones (fully adaptive composition, where
// ordinary composition theorems do not apply: Rogers, Roth, Ullman & Vadhan 2016). A filter admits a
// release only if the promise still holds with it.
//
//   - Basic: Σε_i ≤ ε and Σδ_i ≤ δ, in exact decimal arithmetic (mechanisms.Budget). Rogers et al. show
//     this rule is a valid filter.
//   - Renyi: a Rényi filter (Feldman & Zrnic 2021) over a fixed grid of K orders. Each release contributes
//     a Rényi curve ρ_i(α): its own (Charge.RDP, e.g. a Gaussian's α/(2z²)), or, for an (ε_i, δ_i)-DP
//     release without one, the curve of ε_i-randomized response (RandomizedResponseRDP) plus δ_i to a
//     running sum capped at ApproxDelta. A release is admitted if Σδ_i ≤ ApproxDelta and some order α
//     has Σρ_i(α) small enough that the improved conversion (Canonne, Kamath & Steinke 2020) gives ε at
//     δ' = (δ − ApproxDelta)/K.
//
// Why the Rényi filter holds (fix neighbours x, x′ and the analyst's strategy): (1) every (ε_i, δ_i)-DP
// pair of output distributions is randomized response with outcomes of probability δ_i set aside, then
// post-processed (Kairouz, Oh & Viswanath 2015), with the same mixture weights on both inputs; outside
// the set-aside outcomes the pair is ε_i-indistinguishable, with Rényi divergence at most randomized
// response's. The set-aside outcomes occur with total probability at most Σδ_i ≤ ApproxDelta on every
// path. (2) On the remaining part, for each order α_k, the interaction stopped as soon as α_k's budget would
// be exceeded is a Feldman–Zrnic filter, hence (α_k, B_k)-RDP, hence (ε, δ')-DP. (3) The filter guarantees
// that at the end some order is within its budget; splitting the transcripts by the first such order and
// adding up gives (ε, ApproxDelta + K·δ') = (ε, δ). The union over orders costs log K in the conversion, and
// the δ reserved for conversion costs the (ε, δ)-releases some δ; in exchange many small releases compose
// like the square root of their number. At a total of (1, 1e−5): Gaussian releases calibrated to (0.1,
// 1e−7) with their Rényi curve: 10 by basic composition, 133 by the Rényi filter; (0.01, 1e−9)-releases:
// 100 and 414; but (0.1, 1e−8)-releases: 10 and 9, and a single (1, 1e−6)-release fits only by basic
// composition. Total.Capacity computes such counts without spending; the tests check every admitted
// sequence against the exact composition of the accountants in package mechanisms.
//
// # The ledger
//
// A dataset's ledger is a file of JSON lines: the budget first (dataset hash, m, filter, ε, δ, orders),
// then one line per release (sequence number, time, mechanism, ε, δ, its Rényi curve at the orders if it
// has one), each carrying the SHA-256 of the line before it. A charge, under an exclusive lock on a file
// in the store that every process takes (flock), re-reads and verifies the whole ledger, checks the filter,
// appends the line and syncs it to disk, records the new line count and last hash in the store, and only
// then lets the release draw its noise. So a process killed at any moment has charged at least what it
// released, and two processes cannot both spend the last of a budget.
//
// The store (DefaultStore: $DPRL_BUDGET_DIR, else ~/.local/state/dprl/budgets) knows every dataset that
// has a budget. Opening a dataset it knows refuses to run (a *LedgerError, never a fresh start) when the
// ledger is missing, shorter than recorded, different at the recorded last line, not a chain of hashes,
// or charges more than its budget. A ledger the store has not recorded (copied from elsewhere) is verified
// and adopted. Init grants a dataset its budget once; Open refuses a dataset without one.
//
// What the ledger protects against: kernel restarts and re-runs of a notebook (the budget continues),
// several kernels or processes on one dataset, a crash between charge and release, renamed or copied data,
// and accidental or casual edits of the ledger. What it does not: a user who deletes both the ledger and
// the store's record (or the whole store), or edits both consistently, starts afresh; a changed file is a
// new dataset with a new budget, though it holds nearly the same people; randomness is from crypto/rand
// unless Config.Src fixes it (a fixed seed lets anyone who knows it subtract the noise: tests only), and
// the float path of the mechanisms is not hardened against floating-point attacks. The ledger is a
// bookkeeping tool for an honest analyst, not a defence against the person holding the data.
//
// # Private selection
//
// Selection chooses among candidates on the private data by the exponential mechanism over a bounded
// score (McSherry & Talwar 2007): every trajectory scores every candidate, scores are clipped to a declared
// range [Lo, Hi] and averaged, so replacing one trajectory moves each average by at most (Hi − Lo)/m, and
// the choice is ε-DP. Session.Select charges ε before choosing; Exponential is the mechanism alone, audited
// in the tests (package audit) below its claimed ε, with an unclipped variant caught above it.
//
// References: Rogers, Roth, Ullman & Vadhan, Privacy odometers and filters: pay-as-you-go composition
// (NeurIPS 2016); Feldman & Zrnic, Individual privacy accounting via a Rényi filter (NeurIPS 2021);
// Whitehouse, Ramdas, Rogers & Wu, Fully-adaptive composition in differential privacy (ICML 2023), whose
// filters for approximate DP the Rényi filter here matches in rate; Kairouz, Oh & Viswanath, The
// composition theorem for differential privacy (ICML 2015); Canonne, Kamath & Steinke, The discrete
// Gaussian for differential privacy (NeurIPS 2020), Proposition 12; McSherry & Talwar, Mechanism design via
// differential privacy (FOCS 2007).
package session
