// The watch matrices as tensors: a WatchData's dense matrix and the synthetic model. Apart from
// load_movielens_100k, which needs only the core layer, so the fuzzers (fuzz/) build the reader
// without the tensor library.
#include <algorithm>
#include <cmath>

#include "variate/core/error.hpp"
#include "variate/data/movielens.hpp"
#include "variate/random/samplers.hpp"

namespace variate::data {

namespace {

// A histogram of the logits (count and sum per bin) is all the offset's equation needs, and one
// pass over the matrix builds it. Replacing each logit by its bin's mean changes sigma(c + x) by
// about sigma''(x) w^2 / 24 for bins of width w; where ones are rare, sigma'' ~ sigma, so the
// expected count moves by about count / 1.6e6 with w = 1/256: below 1 for MovieLens-1M's 1M ones,
// far below the Bernoulli noise of sqrt(count).
struct LogitHistogram {
  static constexpr double kBinsPerUnit = 256;
  double low = 0;
  std::vector<double> count, sum;

  LogitHistogram(double min, double max) : low(min) {
    const auto bins = static_cast<std::size_t>((max - min) * kBinsPerUnit) + 1;
    count.assign(bins, 0);
    sum.assign(bins, 0);
  }
  void add(double x) {
    // Clamped: x may pass the bounds by a rounding error, as they are summed in another order.
    const double position = std::clamp((x - low) * kBinsPerUnit, 0.0, double(count.size() - 1));
    const auto bin = static_cast<std::size_t>(position);
    count[bin] += 1;
    sum[bin] += x;
  }
  // Expected number of ones and its derivative in the offset.
  std::pair<double, double> expected_ones(double offset) const {
    double ones = 0, slope = 0;
    for (std::size_t b = 0; b < count.size(); ++b) {
      if (count[b] == 0) continue;
      const double p = 1 / (1 + std::exp(-(offset + sum[b] / count[b])));
      ones += count[b] * p;
      slope += count[b] * p * (1 - p);
    }
    return {ones, slope};
  }
};

// The offset c with sum sigma(c + x) = target: Newton steps, bisecting whenever a step leaves the
// bracket [lo, hi] known to hold the root (sigma's curvature changes sign, so plain Newton can
// overshoot).
double solve_offset(const LogitHistogram& h, double min_x, double max_x, double target, double cells) {
  const double base = std::log(target / (cells - target));  // the offset if all x were 0
  double lo = base - max_x, hi = base - min_x;              // every sigma(c + x) is below / above target / cells
  double c = 0.5 * (lo + hi);
  for (int iteration = 0; iteration < 200 && hi - lo > 1e-12; ++iteration) {
    const auto [ones, slope] = h.expected_ones(c);
    if (std::abs(ones - target) < 1e-6 * target) break;
    (ones < target ? lo : hi) = c;
    const double newton = slope > 0 ? c - (ones - target) / slope : lo - 1;
    c = newton > lo && newton < hi ? newton : 0.5 * (lo + hi);
  }
  return c;
}

}  // namespace

Tensor WatchData::watch_matrix(DType dtype) const {
  VARIATE_CHECK(dtype == DType::f64 || dtype == DType::f32, "WatchData::watch_matrix", "dtype ", dtype,
                "; expected f64 or f32");
  Tensor matrix = Tensor::zeros(Shape{num_users, num_movies}, dtype);
  dispatch_dtype(dtype, [&](auto zero) {
    using T = decltype(zero);
    T* cells = matrix.data<T>();
    for (const Watch& w : watches) cells[w.user * num_movies + w.movie] = T(1);
  });
  return matrix;
}

WatchData synthetic_watch_matrix(random::Key key, std::int64_t num_users, std::int64_t num_movies,
                                 std::int64_t target_ones, std::int64_t latent_dim) {
  constexpr const char* op = "synthetic_watch_matrix";
  VARIATE_CHECK(num_users >= 1 && num_movies >= 1, op, "num_users ", num_users, " and num_movies ", num_movies,
                "; expected both >= 1");
  VARIATE_CHECK(latent_dim >= 0, op, "latent_dim ", latent_dim, "; expected >= 0");
  const double cells = double(num_users) * double(num_movies);
  VARIATE_CHECK(target_ones > 0 && double(target_ones) < cells, op, "target_ones ", target_ones,
                "; expected between 0 and num_users * num_movies = ", cells, ", both excluded");

  // Scales chosen so that counts spread as in MovieLens-1M, whose largest count is 24 times the
  // median per user (2314 / 96) and 28 times per movie (3428 / 123.5). At the default size these
  // give about 12 times per user (median ~115, largest ~1400) and 25 times per movie. Unlike
  // MovieLens, which kept only users with 20 ratings or more, a few users here watch almost nothing.
  constexpr double kActivityScale = 1.2, kPopularityScale = 1.5;
  const double embedding_scale = latent_dim > 0 ? std::pow(double(latent_dim), -0.25) : 0.0;
  const std::vector<random::Key> keys = random::split(key, 5);
  const std::vector<double> activity = random::normal(keys[0], Shape{num_users}).to_vector<double>();
  const std::vector<double> popularity = random::normal(keys[1], Shape{num_movies}).to_vector<double>();
  const std::vector<double> z = random::normal(keys[2], Shape{num_users, latent_dim}).to_vector<double>();
  const std::vector<double> w = random::normal(keys[3], Shape{num_movies, latent_dim}).to_vector<double>();
  const auto dim = static_cast<std::size_t>(latent_dim);
  const auto logit = [&](std::size_t u, std::size_t m) {
    double dot = 0;
    for (std::size_t k = 0; k < dim; ++k) dot += z[u * dim + k] * w[m * dim + k];
    return kActivityScale * activity[u] + kPopularityScale * popularity[m] + embedding_scale * embedding_scale * dot;
  };
  const auto users = static_cast<std::size_t>(num_users), movies = static_cast<std::size_t>(num_movies);

  // Bounds on the logits without a pass over them (Cauchy-Schwarz bounds the dot products); they
  // size the histogram and bracket the offset. Logits are recomputed, not stored: MovieLens-1M's
  // 22M cells would take 179 MB.
  const auto extent = [](const std::vector<double>& v) { return std::minmax_element(v.begin(), v.end()); };
  const auto largest_norm = [dim](const std::vector<double>& rows) {
    double largest = 0;
    for (std::size_t i = 0; i + dim <= rows.size() && dim > 0; i += dim) {
      double squares = 0;
      for (std::size_t k = 0; k < dim; ++k) squares += rows[i + k] * rows[i + k];
      largest = std::max(largest, std::sqrt(squares));
    }
    return largest;
  };
  const auto [a_min, a_max] = extent(activity);
  const auto [b_min, b_max] = extent(popularity);
  const double dot_bound = embedding_scale * embedding_scale * largest_norm(z) * largest_norm(w);
  const double min_x = kActivityScale * *a_min + kPopularityScale * *b_min - dot_bound;
  const double max_x = kActivityScale * *a_max + kPopularityScale * *b_max + dot_bound;
  LogitHistogram histogram(min_x, max_x);
  for (std::size_t u = 0; u < users; ++u) {
    for (std::size_t m = 0; m < movies; ++m) histogram.add(logit(u, m));
  }
  const double offset = solve_offset(histogram, min_x, max_x, double(target_ones), cells);

  // One uniform stream per user, so a row does not depend on how many movies came before it.
  WatchData data;
  data.num_users = num_users;
  data.num_movies = num_movies;
  data.watches.reserve(static_cast<std::size_t>(target_ones + 6 * std::sqrt(double(target_ones))));
  for (std::size_t u = 0; u < users; ++u) {
    const Tensor draws = random::uniform(random::fold_in(keys[4], u), Shape{num_movies});
    const double* uniform = draws.data<double>();
    for (std::size_t m = 0; m < movies; ++m) {
      // u < sigma(t) written as u (1 + exp(-t)) < 1, one division fewer per cell.
      if (uniform[m] * (1 + std::exp(-(offset + logit(u, m)))) < 1) {
        data.watches.push_back({std::int64_t(u), std::int64_t(m)});
      }
    }
  }
  data.titles.reserve(movies);
  for (std::size_t m = 0; m < movies; ++m) data.titles.push_back("movie " + std::to_string(m));
  return data;
}

}  // namespace variate::data
