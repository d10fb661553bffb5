// Command bench times dprl and the reference libraries (dp_accounting, prv_accountant, Gymnasium) on the same
// workloads in one run and writes a CSV: workload, ours_seconds, reference, reference_seconds, ratio
// (reference time / ours) and max_abs_diff (|our value − the reference's| where the workload has a value).
// `make bench` runs it; the reference environment is crosscheck/venv.sh's.
package main
