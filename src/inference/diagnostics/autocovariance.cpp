#include "inference/diagnostics/autocovariance.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <numbers>
#include <utility>
#include <vector>

#include "variate/inference/diagnostics.hpp"

namespace variate::inference {
namespace {

// What a transform of size n needs, built once per size and thread: the bit-reversal permutation
// and, stage after stage, the twiddles exp(-2 pi i k / len) for k < len/2 (each computed directly,
// not by recurrence, so they are accurate to rounding), stored contiguously so the butterflies
// read them in order.
struct FftPlan {
  std::size_t n = 0;
  std::vector<std::uint32_t> reversed;
  std::vector<double> cos, sin;  // stage len starts at len/2 - 1
};

const FftPlan& fft_plan(std::size_t n) {
  thread_local FftPlan plan;
  if (plan.n == n) return plan;
  plan.n = n;
  plan.reversed.assign(n, 0);
  for (std::size_t i = 1, j = 0; i < n; ++i) {
    std::size_t bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    plan.reversed[i] = static_cast<std::uint32_t>(j);
  }
  plan.cos.assign(n - 1, 0.0);
  plan.sin.assign(n - 1, 0.0);
  for (std::size_t len = 2; len <= n; len <<= 1)
    for (std::size_t k = 0; k < len / 2; ++k) {
      const double angle = -2.0 * std::numbers::pi * static_cast<double>(k) / static_cast<double>(len);
      plan.cos[len / 2 - 1 + k] = std::cos(angle);
      plan.sin[len / 2 - 1 + k] = std::sin(angle);
    }
  return plan;
}

// One FFT stage's butterflies on a block: (u, v) <- (u + w v, u - w v). Restrict-qualified
// parameters tell the compiler the four arrays do not overlap, so the loop vectorizes.
void butterflies(double* __restrict ur, double* __restrict ui, double* __restrict vr, double* __restrict vi,
                 const double* __restrict wr, const double* __restrict wi, std::size_t half) {
  for (std::size_t k = 0; k < half; ++k) {
    const double tr = vr[k] * wr[k] - vi[k] * wi[k], ti = vr[k] * wi[k] + vi[k] * wr[k];
    vr[k] = ur[k] - tr;
    vi[k] = ui[k] - ti;
    ur[k] += tr;
    ui[k] += ti;
  }
}

// In-place iterative radix-2 Cooley-Tukey FFT (Cooley & Tukey 1965), forward and unnormalized, on
// split real and imaginary arrays of a power-of-two length.
void fft(std::vector<double>& re, std::vector<double>& im) {
  const std::size_t n = re.size();
  const FftPlan& plan = fft_plan(n);
  for (std::size_t i = 1; i < n; ++i) {
    const std::size_t j = plan.reversed[i];
    if (i < j) {
      std::swap(re[i], re[j]);
      std::swap(im[i], im[j]);
    }
  }
  for (std::size_t start = 0; start < n; start += 2) {  // first stage: w = 1
    const double ur = re[start], ui = im[start];
    re[start] += re[start + 1];
    im[start] += im[start + 1];
    re[start + 1] = ur - re[start + 1];
    im[start + 1] = ui - im[start + 1];
  }
  for (std::size_t len = 4; len <= n; len <<= 1) {
    const std::size_t half = len / 2;
    for (std::size_t start = 0; start < n; start += len)
      butterflies(&re[start], &im[start], &re[start + half], &im[start + half], &plan.cos[half - 1],
                  &plan.sin[half - 1], half);
  }
}

}  // namespace

namespace detail {

void autocovariance_pair(const double* x, const double* y, std::size_t n, double* acov_x, double* acov_y) {
  std::size_t m = 2;
  while (m < 2 * n) m <<= 1;
  thread_local std::vector<double> re, im;
  re.assign(m, 0.0);
  im.assign(m, 0.0);
  double mean_x = 0, mean_y = 0;
  for (std::size_t i = 0; i < n; ++i) {
    mean_x += x[i];
    if (y) mean_y += y[i];
  }
  mean_x /= static_cast<double>(n);
  mean_y /= static_cast<double>(n);
  for (std::size_t i = 0; i < n; ++i) {
    re[i] = x[i] - mean_x;
    if (y) im[i] = y[i] - mean_y;
  }
  fft(re, im);
  for (std::size_t k = 0; k <= m / 2; ++k) {
    const std::size_t j = (m - k) % m;
    const double sum_r = re[k] + re[j], sum_i = im[k] - im[j];    // Z_k + conj Z_j
    const double diff_r = re[k] - re[j], diff_i = im[k] + im[j];  // Z_k - conj Z_j
    const double power_x = (sum_r * sum_r + sum_i * sum_i) / 4, power_y = (diff_r * diff_r + diff_i * diff_i) / 4;
    re[k] = re[j] = power_x;
    im[k] = im[j] = power_y;
  }
  fft(re, im);
  const double scale = 1.0 / (static_cast<double>(m) * static_cast<double>(n));
  for (std::size_t t = 0; t < n; ++t) {
    acov_x[t] = re[t] * scale;
    if (acov_y) acov_y[t] = im[t] * scale;
  }
}

}  // namespace detail

std::vector<double> autocovariance(const std::vector<double>& x) {
  std::vector<double> out(x.size()), unused(x.size());
  if (!x.empty()) detail::autocovariance_pair(x.data(), nullptr, x.size(), out.data(), unused.data());
  return out;
}

}  // namespace variate::inference
