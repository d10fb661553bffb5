// Package nn is a small neural-network toolkit for the project's deep RL learners (packages fnq and
// expertdp): multilayer perceptrons with manual backpropagation on blocked, vectorised matrix products
// (float64 or float32), per-example gradient norms
// without forming per-example gradients, clipped-and-noised DP-SGD gradients, Huber and squared losses, SGD,
// RMSprop and Adam with PyTorch's defaults, target-network copies, a replay buffer and a bound on the
// network's Lipschitz constant.
//
// # Networks and training
//
// An MLP maps Sizes[0] → … → Sizes[L] with ReLU or tanh after every hidden layer and a linear output layer;
// NewMLP initialises weights and biases uniformly in ±1/√fan_in, like PyTorch's nn.Linear. A Workspace holds
// one batch's activations: Forward, then Backward with ∂loss/∂output (SelectedLoss builds it for Q-learning,
// where each example's loss touches one output), then Gradient. Losses: Squared, ½(p − t)², and Huber,
// ½x² for |x| ≤ Δ and Δ(|x| − ½Δ) beyond (PyTorch's smooth L1 with Δ = 1). Optimisers: SGD; RMSprop without
// momentum, v ← αv + (1 − α)g², θ ← θ − lr·g/(√v + eps) (defaults lr 0.01, α 0.99, eps 1e−8); Adam with bias
// correction (defaults lr 1e−3, β1 0.9, β2 0.999, eps 1e−8). Replay is a ring buffer of transitions sampled
// uniformly with replacement.
//
// # Per-example norms and DP-SGD
//
// For a dense layer the gradient of one example is δaᵀ (δ the backpropagated error, a the layer input), whose
// Frobenius norm is ‖δ‖·‖a‖; with the bias, the squared norm is ‖δ‖²(‖a‖² + 1) (ExampleNormsSq). Summing over
// layers gives each example's gradient norm from quantities backpropagation computes anyway, so clipping
// costs one rescaling of the stored errors and one matrix product per layer, as plain SGD does. The sums
// of squares run sixteen at a time in vector registers (gemm.SumSq).
//
// Workspace.PrivateGradient is one DP-SGD aggregation (Abadi et al. 2016): every example's gradient is
// clipped to norm C, the clipped gradients are summed, N(0, (zC)²) is added to each coordinate and the result
// is divided by the batch size. Under add/remove of one example the sum has ℓ2 sensitivity C (2C under
// replace-one), so one aggregation is the Gaussian mechanism with noise multiplier z; the accountant that
// composes the steps, and the neighbouring relation, belong to the caller (package mechanisms,
// "Accountants"). It is mechanisms.DPSGD applied to a network's batch: it takes a *mechanisms.DPSGD, whose
// Clip and NoiseMultiplier lie in (0, ∞), and uses its clip factor and noise (mechanisms.AddScaledNoise, on
// the gradient's blocks as one vector, with the division by the batch size), so it always adds noise;
// ClippedGradient is the noiseless, non-private counterpart for audits and baselines. An example whose
// gradient has a NaN or infinite entry, or a norm beyond the largest float64, is dropped: it contributes
// zero to the sum, which keeps the sensitivity, and is counted.
//
// # Lipschitz bound
//
// ReLU and tanh are 1-Lipschitz, so the product of the weight matrices' spectral norms bounds the network's
// ℓ2 Lipschitz constant (MLP.Lipschitz). Wang & Hegde's Theorem 5 assumes such a bound L (package fnq).
//
// # Precision and speed
//
// Network[F] holds its weights in F: MLP is the float64 network, MLP32 the float32 one (NewNetwork[float32]
// rounds the float64 initialisation of the same source), with WorkspaceOf[F] and GradsOf[F] beside them;
// SGDStep updates either (the RMSprop and Adam optimisers are float64). Losses, per-example norms and
// clip factors are computed in float64 whatever F; in float32 DP-SGD's noisy sum is formed in float64 and
// rounded to float32 with the division by the batch size, and a clip factor is rounded toward zero, so the
// clipped norm never grows by rounding.
//
// The three products of a step (A·Wᵀ forward, D·W backward, Dᵀ·A for the weight gradient) run on the
// internal package gemm: operands packed into panels, 12 × 16 (float64) or 12 × 32 (float32) AVX-512
// micro-kernels in assembly (AVX2 ones where AVX-512 is missing, a Go kernel elsewhere), and the rows of large
// products split across GOMAXPROCS goroutines. On the issue-32 workload (8→256→256→4, batch 256) a float64
// SGD step costs about a fifth of what it did on gonum's BLAS. A DP-SGD step adds the per-example norms,
// the clipping and 69 124 normals; the target is at most 1.3 times a plain step, at one thread and at two
// (BenchmarkDPSGDStep beside BenchmarkSGDStep; make bench's ratio rows).
//
// # Determinism
//
// Everything is deterministic for a given rand.Source: initialisation, minibatch sampling and noise draw from
// explicit streams, and every element of a matrix product is accumulated by fused multiply-adds in one fixed
// order, so results are the same bit for bit whatever GOMAXPROCS, whichever of the kernels runs, and
// whether an input is evaluated alone or within a batch.
//
// # References
//
//   - Abadi, Chu, Goodfellow, McMahan, Mironov, Talwar & Zhang (2016), Deep learning with differential
//     privacy.
//   - Goodfellow (2015), Efficient per-example gradient computations.
//   - Kingma & Ba (2015), Adam: a method for stochastic optimization.
//   - Paszke et al. (2019), PyTorch: an imperative style, high-performance deep learning library.
package nn
