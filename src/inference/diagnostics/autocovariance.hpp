#pragma once
// Autocovariances by FFT: the O(n log n) core of the effective sample size.
#include <cstddef>

namespace variate::inference::detail {

// Biased autocovariances of two real series of length n at once (y may be null): one FFT of
// x + iy holds both spectra (X_k = (Z_k + conj Z_{m-k}) / 2, Y_k = (Z_k - conj Z_{m-k}) / 2i), and
// since |X|^2 and |Y|^2 are real and even, one inverse FFT of |X|^2 + i|Y|^2 returns both
// autocovariances; the spectrum being real and even, its inverse transform equals its forward one.
// Zero-padding to m >= 2n keeps the circular correlation from wrapping around.
void autocovariance_pair(const double* x, const double* y, std::size_t n, double* acov_x, double* acov_y);

}  // namespace variate::inference::detail
