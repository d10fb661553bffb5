// Command bench times dprl and the reference libraries (dp_accounting, prv_accountant, Gymnasium, PyTorch,
// Opacus, dp-accelerator) on the same workloads in one run and writes a CSV: workload, ours_seconds,
// reference, reference_seconds, ratio (reference time / ours; for the DP-SGD/SGD rows, the DP overhead
// ours/ours), goal (issue 32's target for the ratio), met, max_abs_diff (|our value − the reference's|, or
// for the MLP rows the largest relative difference of the training losses from the same initialisation and
// batch) and agreement (whether that is within the stated tolerance).
//
// The MLP rows are the DP-SGD workload (8→256→256→4 ReLU, batch 256, Huber loss on one output per
// example; DP-SGD clips to 1 with noise multiplier 1) at float64 and float32 on one and two threads, against
// PyTorch's SGD step and Opacus's DP-SGD step (ghost clipping and per-example gradients) at the same
// precision and thread count. The dp-accelerator row runs dprl's RDP accountant on dp-accelerator's own
// 116-order grid. Both sides are timed alike: the median of at least three calls over at least -mintime
// seconds. `make bench` runs it in the performance-anchor environment (crosscheck/venv.sh perf,
// requirements-perf.lock), which holds every reference library.
package main
