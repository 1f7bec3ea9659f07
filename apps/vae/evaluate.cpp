#include "evaluate.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ostream>
#include <vector>

#include "variate/autodiff/ops.hpp"
#include "variate/core/error.hpp"

namespace variate::cli::vae {

MeanAndError mean_and_error(const std::vector<double>& values) {
  double total = 0;
  for (double v : values) total += v;
  const double n = double(values.size()), mean = total / n;
  double squares = 0;
  for (double v : values) squares += (v - mean) * (v - mean);
  return {mean, values.size() > 1 ? std::sqrt(squares / (n - 1) / n) : 0.0};
}

namespace {

// Each image's bound, `chunk` images at a time, with a fresh key per chunk.
template <class PerChunk>
std::vector<double> per_image(const Tensor& images, std::int64_t chunk, random::Key key, const PerChunk& bound_of) {
  const std::int64_t n = images.dim(0);
  std::vector<double> out;
  out.reserve(std::size_t(n));
  for (std::int64_t first = 0; first < n; first += chunk) {
    const Tensor x = slice(images, 0, first, std::min(n, first + chunk));
    const Tensor pointwise = cast(bound_of(x, random::fold_in(key, std::uint64_t(first))), DType::f64);
    for (double v : pointwise.to_vector<double>()) out.push_back(v);
  }
  return out;
}

}  // namespace

MeanAndError mean_bound(const Vae& vae, const Tensor& images, const Bound& bound, random::Key key, std::int64_t chunk) {
  VARIATE_CHECK(images.dim(0) >= 1 && chunk >= 1, "vae::mean_bound", "need images and chunk >= 1, got ", images.dim(0),
                " images and chunk ", chunk);
  return mean_and_error(per_image(
      images, chunk, key, [&](const Tensor& x, random::Key k) { return minibatch_bound(vae, x, bound, k).pointwise; }));
}

std::vector<double> test_negative_log_likelihoods(const Vae& vae, const Tensor& images, int samples, random::Key key,
                                                  std::ostream* progress, std::int64_t chunk) {
  VARIATE_CHECK(images.dim(0) >= 1 && samples >= 1 && chunk >= 1, "vae::test_negative_log_likelihood",
                "need images, samples >= 1 and chunk >= 1, got ", images.dim(0), " images, ", samples,
                " samples and chunk ", chunk);
  const auto start = std::chrono::steady_clock::now();
  double reported = 0;  // seconds at the last progress line
  std::int64_t done = 0;
  std::vector<double> nll = per_image(images, chunk, key, [&](const Tensor& x, random::Key k) {
    const Tensor bound = minibatch_bound(vae, x, {BoundKind::iwae, samples}, k).pointwise;
    done += x.dim(0);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    // A line every half minute or so, and at the end.
    if (progress != nullptr && (seconds - reported >= 30 || done == images.dim(0))) {
      *progress << "  test NLL: " << done << "/" << images.dim(0) << " images, " << std::llround(seconds) << " s\n";
      reported = seconds;
    }
    return bound;
  });
  for (double& v : nll) v = -v;
  return nll;
}

}  // namespace variate::cli::vae
