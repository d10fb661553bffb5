// Package mechanisms holds the noise mechanisms (Gaussian, Laplace, sparse vector, smooth-sensitivity,
// Gaussian-process functional noise, DP-SGD primitives) and the privacy accountants (RDP, moments, μ-GDP,
// advanced and optimal composition, PLD) the five papers use. Every mechanism takes an explicit rand.Source.
package mechanisms
