// Package envs holds the environments of the five papers behind one Gymnasium-style contract (Reset, Step
// with terminated and truncated kept apart), their feature maps, policies, and trajectory datasets.
package envs
