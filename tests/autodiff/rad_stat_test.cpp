// Randomized autodiff, statistically: the gradient of a whole network, feed-forward or recurrent,
// is unbiased (z-scores of K draws against the exact gradient, Bonferroni-bounded), an estimator
// without the d/k scale fails the same check, and the variance of a layer's weight gradient
// follows the analytic per-entry variance of each sketch.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>

#include "support/ad_check.hpp"
#include "support/test_seed.hpp"
#include "variate/autodiff/nn_ops.hpp"
#include "variate/autodiff/rad.hpp"
#include "variate/autodiff/tape.hpp"
#include "variate/autodiff/transforms.hpp"
#include "variate/inference/diagnostics.hpp"

namespace variate {
namespace {

using autodiff::RadConfig;
using autodiff::RadMode;
using autodiff::RadScope;
using autodiff::RadSharing;
using testing::random_tensor;

std::string name_of(RadMode mode, RadSharing sharing) {
  const char* m = mode == RadMode::with_replacement      ? "with replacement"
                  : mode == RadMode::without_replacement ? "without replacement"
                                                         : "projection";
  return std::string(m) + (sharing == RadSharing::shared ? ", shared" : ", per example");
}

// The gradient of `loss` at `params`, every parameter's entries in turn.
template <class Loss>
std::vector<double> flat_gradient(const Loss& loss, const std::vector<Tensor>& params) {
  std::vector<Tensor> grads(params.size()), scratch;
  value_and_grad(loss, params, grads, scratch);
  std::vector<double> flat;
  for (const Tensor& g : grads)
    for (double v : g.to_vector<double>()) flat.push_back(v);
  return flat;
}

// A 8-7-5-3 ReLU network at batch 6 with a cross-entropy loss; the parameters are W1, b1, W2, b2,
// W3, b3, then the input.
const std::vector<std::int64_t> widths = {8, 7, 5, 3};
constexpr std::int64_t batch = 6;

std::vector<Tensor> mlp_params() {
  std::vector<Tensor> p;
  for (std::size_t l = 0; l + 1 < widths.size(); ++l) {
    p.push_back(random_tensor(Shape{widths[l + 1], widths[l]}, 50 + 2 * unsigned(l), 0.5));
    p.push_back(random_tensor(Shape{widths[l + 1]}, 51 + 2 * unsigned(l), 0.1));
  }
  p.push_back(random_tensor(Shape{batch, widths[0]}, 99));
  return p;
}

// The MLP's gradient with `layer(x, W, b, l)` as its l-th linear layer.
using Layer = std::function<Tensor(const Tensor&, const Tensor&, const Tensor&, std::size_t)>;
std::vector<double> mlp_gradient(
    const std::vector<Tensor>& params, const Layer& layer = [](const Tensor& x, const Tensor& w, const Tensor& b,
                                                               std::size_t) { return linear(x, w, b); }) {
  std::vector<std::int64_t> labels;
  for (std::int64_t i = 0; i < batch; ++i) labels.push_back(i % 3);
  const Tensor targets = prim::one_hot(Tensor::from(labels), 3);
  auto loss = [&](std::span<const Tensor> p) {
    Tensor h = p.back();
    for (std::size_t l = 0; l + 1 < widths.size(); ++l) {
      h = layer(h, p[2 * l], p[2 * l + 1], l);
      if (l + 2 < widths.size()) h = relu(h);
    }
    return -sum(log_softmax(h) * targets);
  };
  return flat_gradient(loss, params);
}

// Which flat components are weights (sampled), and the k/d that an unscaled sketch would shrink
// each by in expectation.
std::vector<double> unscaled_factor(double keep_fraction) {
  std::vector<double> factor;
  for (std::size_t l = 0; l + 1 < widths.size(); ++l) {
    const double d = double(widths[l]);
    factor.insert(factor.end(), std::size_t(widths[l + 1] * widths[l]),
                  double(autodiff::rad_kept(keep_fraction, widths[l])) / d);
    factor.insert(factor.end(), std::size_t(widths[l + 1]), 1.0);
  }
  factor.insert(factor.end(), std::size_t(batch * widths[0]), 1.0);
  return factor;
}

// The largest |z| of the mean of `draws` against `exact` over the sampled components and over
// projections on fixed random directions; components with no spread must equal exact to 1e-12.
struct Check {
  double max_z;
  int tests;
};
Check z_scores(const std::vector<std::vector<double>>& draws, const std::vector<double>& exact) {
  const std::size_t n = exact.size(), K = draws.size();
  std::vector<std::vector<double>> directions;
  for (unsigned s = 0; s < 5; ++s)
    directions.push_back(random_tensor(Shape{std::int64_t(n)}, 700 + s).to_vector<double>());
  Check out{0, 0};
  auto update = [&](auto value_of, double want) {
    double mean = 0, sq = 0;
    for (std::size_t k = 0; k < K; ++k) mean += value_of(draws[k]);
    mean /= double(K);
    for (std::size_t k = 0; k < K; ++k) sq += std::pow(value_of(draws[k]) - mean, 2);
    const double se = std::sqrt(sq / double(K - 1) / double(K));
    if (se < 1e-13) {
      EXPECT_NEAR(mean, want, 1e-12) << "a component with no spread is not exact";
      return;
    }
    out.max_z = std::max(out.max_z, std::abs(mean - want) / se);
    ++out.tests;
  };
  for (std::size_t i = 0; i < n; ++i) update([i](const std::vector<double>& g) { return g[i]; }, exact[i]);
  for (const auto& u : directions) {
    auto dot = [&u](const std::vector<double>& g) {
      double s = 0;
      for (std::size_t i = 0; i < g.size(); ++i) s += u[i] * g[i];
      return s;
    };
    update(dot, dot(exact));
  }
  return out;
}

TEST(RadStatistics, MlpGradientIsUnbiasedAndTheUnscaledOneIsNot) {
  const auto params = mlp_params();
  const std::vector<double> exact = mlp_gradient(params);
  const double keep = 0.3;
  const std::vector<double> factor = unscaled_factor(keep);
  constexpr int K = 3000;
  for (RadMode mode : {RadMode::with_replacement, RadMode::without_replacement, RadMode::projection})
    for (RadSharing sharing : {RadSharing::per_example, RadSharing::shared}) {
      std::vector<std::vector<double>> draws, unscaled;
      for (int k = 0; k < K; ++k) {
        const RadScope rad({.keep_fraction = keep,
                            .mode = mode,
                            .sharing = sharing,
                            .key = {std::uint32_t(k), std::uint32_t(variate::testing::test_seed(0x5eed))}});
        draws.push_back(mlp_gradient(params));
        // The same draw without the d/k scale: a sketch whose expectation is (k/d) x.
        unscaled.push_back(draws.back());
        for (std::size_t i = 0; i < factor.size(); ++i) unscaled.back()[i] *= factor[i];
      }
      const Check good = z_scores(draws, exact);
      // Family-wise error 0.001 over all the z-scores of this configuration.
      const double bound = inference::normal_quantile(1 - 0.001 / good.tests / 2);  // two-sided
      EXPECT_LT(good.max_z, bound) << name_of(mode, sharing) << ": max |z| over " << good.tests << " tests";
      if (mode == RadMode::projection) continue;  // its sketch has no d/k factor to forget
      const Check bad = z_scores(unscaled, exact);
      EXPECT_GT(bad.max_z, bound) << name_of(mode, sharing) << ": the unscaled estimator passed";
    }
}

// A linear layer that keeps a sketch of its input compressed to codes as
// linear does under a RadScope, rounding with draws from rad_rounding_uniforms, or with every draw
// 1/2: rounding to the nearest level, the deliberately broken (biased) estimator.
Tensor compressed_linear(const Tensor& x, const Tensor& w, const Tensor& b, const RadConfig& rad, std::uint64_t op,
                         bool nearest) {
  namespace ad = autodiff::detail;
  const std::int64_t d = w.dim(1), k = autodiff::rad_kept(rad.keep_fraction, d);
  const Tensor y = prim::add(prim::matmul(x, w, false, true), b);
  const Tensor sketch = ad::rad_sketch(rad.mode, x, ad::rad_choice(rad, op, x.dim(0), d, k, x.dtype()));
  const Tensor draws =
      nearest ? Tensor::full(sketch.shape(), 0.5) : ad::rad_rounding_uniforms(rad.key, op, x.dim(0), k);
  const ad::QuantizedRows q = ad::quantize(sketch, rad.quantize_bits, rad.quantize_group, draws);
  const Tensor saved[] = {q.codes, q.ranges, autodiff::stop_gradient(w)};
  const Tensor inputs[] = {x, w, b};
  return autodiff::record(y, inputs, saved, [rad, op, d, k](const autodiff::BackwardContext& ctx) {
    const Tensor& g = ctx.grad();
    const Tensor kept = ad::dequantize({ctx.saved(0), ctx.saved(1), k}, rad.quantize_bits, rad.quantize_group);
    const Tensor x_hat = ad::rad_expand(rad.mode, kept, ad::rad_choice(rad, op, kept.dim(0), d, k, kept.dtype()), d);
    ctx.add(0, matmul(g, ctx.saved(2)));
    ctx.add(1, matmul(g, x_hat, true, false));
    ctx.add(2, g);
  });
}

TEST(RadStatistics, CompressedMlpGradientIsUnbiasedAndNearestRoundingIsNot) {
  const auto params = mlp_params();
  const std::vector<double> exact = mlp_gradient(params);
  constexpr int K = 3000;
  // Compression alone (2 and 4 bits), and compressing a sketch to 1 bit (each value its group's
  // minimum or maximum), where rounding to the nearest is far off.
  const RadConfig configs[] = {
      {.quantize_bits = 2, .quantize_group = 4},
      {.quantize_bits = 4, .quantize_group = 4},
      {.keep_fraction = 0.5, .quantize_bits = 1, .quantize_group = 4},
  };
  for (const RadConfig& config : configs) {
    std::vector<std::vector<double>> draws;
    for (int k = 0; k < K; ++k) {
      RadConfig keyed = config;
      keyed.key = {std::uint32_t(k), std::uint32_t(variate::testing::test_seed(0x5eed))};
      const RadScope rad(keyed);
      draws.push_back(mlp_gradient(params));
    }
    const Check good = z_scores(draws, exact);
    const double bound = inference::normal_quantile(1 - 0.001 / good.tests / 2);  // two-sided, family-wise 0.001
    EXPECT_LT(good.max_z, bound) << config.quantize_bits << " bits, keep " << config.keep_fraction << ": max |z| over "
                                 << good.tests << " tests";
  }
  const RadConfig sketched = configs[2];
  auto layer = [&](bool nearest, std::uint32_t key) {
    return [&sketched, nearest, key](const Tensor& x, const Tensor& w, const Tensor& b, std::size_t l) {
      RadConfig keyed = sketched;
      keyed.key = {key, std::uint32_t(variate::testing::test_seed(0x5eed))};
      return compressed_linear(x, w, b, keyed, l, nearest);
    };
  };
  {  // the copy above is linear's rule: the same draws give the same gradient
    RadConfig keyed = sketched;
    keyed.key = {7, std::uint32_t(variate::testing::test_seed(0x5eed))};
    const RadScope rad(keyed);
    EXPECT_EQ(mlp_gradient(params, layer(false, 7)), mlp_gradient(params));
  }
  std::vector<std::vector<double>> nearest;
  for (int k = 0; k < K; ++k) nearest.push_back(mlp_gradient(params, layer(true, std::uint32_t(k))));
  const Check bad = z_scores(nearest, exact);
  EXPECT_GT(bad.max_z, inference::normal_quantile(1 - 0.001 / bad.tests / 2)) << "nearest rounding passed";
}

TEST(RadStatistics, BatchedMatmulGradientIsUnbiased) {
  // sum(c * relu(a b)) for a batch a (2, 3, 8) against b (8, 4) and against b^T (4, 8).
  const Tensor a = random_tensor(Shape{2, 3, 8}, 80), c = random_tensor(Shape{2, 3, 4}, 81);
  for (bool transposed : {false, true}) {
    const std::vector<Tensor> params = {a, random_tensor(transposed ? Shape{4, 8} : Shape{8, 4}, 82)};
    auto loss = [&](std::span<const Tensor> p) { return sum(c * relu(matmul(p[0], p[1], false, transposed))); };
    const std::vector<double> exact = flat_gradient(loss, params);
    std::vector<std::vector<double>> draws;
    for (int k = 0; k < 2000; ++k) {
      const RadScope rad({.keep_fraction = 0.3,
                          .key = {std::uint32_t(k), std::uint32_t(variate::testing::test_seed(0xa7))},
                          .quantize_bits = 2});
      draws.push_back(flat_gradient(loss, params));
    }
    const Check check = z_scores(draws, exact);  // a's gradient has no spread: it must be exact
    EXPECT_LT(check.max_z, inference::normal_quantile(1 - 0.001 / check.tests / 2))
        << (transposed ? "a b^T" : "a b") << ": max |z| over " << check.tests << " tests";
  }
}

// An Elman ReLU network over T = 10 steps, h_t = relu(x_t W_ih^T + b + h_{t-1} W_hh^T), read out
// by a linear layer into a cross-entropy, at batch 3. Every step's two linear maps keep a sketch of
// their input, and the recurrent weight is shared by all steps, so its gradient sums nine sketched
// terms. The parameters are W_ih, b, W_hh, W_out, b_out, then the input (batch, T, 4).
constexpr std::int64_t rnn_steps = 10, rnn_in = 4, rnn_hidden = 5, rnn_classes = 3, rnn_batch = 3;

std::vector<Tensor> rnn_params() {
  const Tensor identity = prim::one_hot(Tensor::arange(rnn_hidden), rnn_hidden);
  return {random_tensor(Shape{rnn_hidden, rnn_in}, 60, 0.5),
          random_tensor(Shape{rnn_hidden}, 61, 0.1, 0.2),
          prim::add(prim::mul(identity, Tensor::scalar(0.8)), random_tensor(Shape{rnn_hidden, rnn_hidden}, 62, 0.2)),
          random_tensor(Shape{rnn_classes, rnn_hidden}, 63, 0.5),
          random_tensor(Shape{rnn_classes}, 64, 0.1),
          random_tensor(Shape{rnn_batch, rnn_steps, rnn_in}, 65)};
}

std::vector<double> rnn_gradient(const std::vector<Tensor>& params) {
  const Tensor targets = prim::one_hot(Tensor::from(std::vector<std::int64_t>{0, 2, 1}), rnn_classes);
  auto loss = [&](std::span<const Tensor> p) {
    auto input_at = [&](std::int64_t t) { return reshape(slice(p[5], 1, t, t + 1), {rnn_batch, rnn_in}); };
    Tensor h = relu(linear(input_at(0), p[0], p[1]));
    for (std::int64_t t = 1; t < rnn_steps; ++t) h = relu(linear(input_at(t), p[0], p[1]) + linear(h, p[2]));
    return -sum(log_softmax(linear(h, p[3], p[4])) * targets);
  };
  return flat_gradient(loss, params);
}

// The k/d that an unscaled sketch would shrink each flat component of rnn_gradient by.
std::vector<double> rnn_unscaled_factor(double keep_fraction) {
  auto shrink = [&](std::int64_t d) { return double(autodiff::rad_kept(keep_fraction, d)) / double(d); };
  std::vector<double> factor;
  factor.insert(factor.end(), std::size_t(rnn_hidden * rnn_in), shrink(rnn_in));
  factor.insert(factor.end(), std::size_t(rnn_hidden), 1.0);
  factor.insert(factor.end(), std::size_t(rnn_hidden * rnn_hidden), shrink(rnn_hidden));
  factor.insert(factor.end(), std::size_t(rnn_classes * rnn_hidden), shrink(rnn_hidden));
  factor.insert(factor.end(), std::size_t(rnn_classes + rnn_batch * rnn_steps * rnn_in), 1.0);
  return factor;
}

TEST(RadStatistics, RnnGradientIsUnbiasedAndTheUnscaledOneIsNot) {
  const auto params = rnn_params();
  const std::vector<double> exact = rnn_gradient(params);
  const double keep = 0.3;
  const std::vector<double> factor = rnn_unscaled_factor(keep);
  ASSERT_EQ(factor.size(), exact.size());
  constexpr int K = 2000;
  for (RadMode mode : {RadMode::with_replacement, RadMode::without_replacement, RadMode::projection}) {
    std::vector<std::vector<double>> draws, unscaled;
    for (int k = 0; k < K; ++k) {
      const RadScope rad({.keep_fraction = keep,
                          .mode = mode,
                          .key = {std::uint32_t(k), std::uint32_t(variate::testing::test_seed(0x7a11))}});
      draws.push_back(rnn_gradient(params));
      unscaled.push_back(draws.back());
      for (std::size_t i = 0; i < factor.size(); ++i) unscaled.back()[i] *= factor[i];
    }
    const Check good = z_scores(draws, exact);
    const double bound = inference::normal_quantile(1 - 0.001 / good.tests / 2);
    EXPECT_LT(good.max_z, bound) << name_of(mode, RadSharing::per_example) << ": max |z| over " << good.tests
                                 << " tests";
    if (mode == RadMode::projection) continue;
    const Check bad = z_scores(unscaled, exact);
    EXPECT_GT(bad.max_z, bound) << name_of(mode, RadSharing::per_example) << ": the unscaled estimator passed";
  }
}

// The analytic variance of each entry (o, j) of g^T x_hat (see rad.hpp's sketches): a sampled
// entry is x (d/k) N with N ~ Binomial(k, 1/d) with replacement, or Bernoulli(k/d) without, so its
// variance is x^2 c with c = (d-1)/k or d/k - 1; a projected entry R R^T x / k has variance
// sum_{l != j} x_l^2 / k. Independent rows add; a shared choice scales the column G_j = g^T x_j.
std::vector<double> analytic_variance(RadMode mode, RadSharing sharing, const Tensor& g, const Tensor& x,
                                      std::int64_t k) {
  const std::int64_t rows = x.dim(0), d = x.dim(1), out = g.dim(1);
  const Tensor exact = prim::matmul(g, x, true, false);
  std::vector<double> v(std::size_t(out * d), 0.0);
  const double c = mode == RadMode::with_replacement ? double(d - 1) / double(k) : double(d) / double(k) - 1.0;
  for (std::int64_t o = 0; o < out; ++o)
    for (std::int64_t j = 0; j < d; ++j) {
      double& vj = v[std::size_t(o * d + j)];
      if (sharing == RadSharing::shared) {
        if (mode != RadMode::projection) {
          vj = c * std::pow(exact.at(o * d + j), 2);
        } else {
          for (std::int64_t l = 0; l < d; ++l)
            if (l != j) vj += std::pow(exact.at(o * d + l), 2) / double(k);
        }
        continue;
      }
      for (std::int64_t b = 0; b < rows; ++b) {
        const double gb = std::pow(g.at(b * out + o), 2);
        if (mode != RadMode::projection) {
          vj += gb * c * std::pow(x.at(b * d + j), 2);
        } else {
          for (std::int64_t l = 0; l < d; ++l)
            if (l != j) vj += gb * std::pow(x.at(b * d + l), 2) / double(k);
        }
      }
    }
  return v;
}

TEST(RadStatistics, WeightGradientVarianceFollowsTheKeepFraction) {
  const std::int64_t rows = 10, d = 20, out = 4;
  const Tensor x = random_tensor(Shape{rows, d}, 11), cotangent = random_tensor(Shape{rows, out}, 12);
  const Tensor w = random_tensor(Shape{out, d}, 13);
  constexpr int K = 4000;
  for (double keep : {0.1, 0.25, 0.5})
    for (RadMode mode : {RadMode::with_replacement, RadMode::without_replacement, RadMode::projection})
      for (RadSharing sharing : {RadSharing::per_example, RadSharing::shared}) {
        std::vector<double> total(std::size_t(out * d), 0.0), total_sq(total.size(), 0.0);
        for (int i = 0; i < K; ++i) {
          const RadScope rad({.keep_fraction = keep,
                              .mode = mode,
                              .sharing = sharing,
                              .key = {std::uint32_t(i), std::uint32_t(variate::testing::test_seed(3))}});
          const Tensor gw = grad([&](const Tensor& w) { return sum(cotangent * linear(x, w)); }, w);
          for (std::size_t e = 0; e < total.size(); ++e) {
            const double v = gw.at(std::int64_t(e));
            total[e] += v;
            total_sq[e] += v * v;
          }
        }
        double empirical = 0, analytic = 0;
        for (std::size_t e = 0; e < total.size(); ++e) {
          const double mean = total[e] / K;
          empirical += (total_sq[e] - K * mean * mean) / (K - 1);
        }
        for (double v : analytic_variance(mode, sharing, cotangent, x, autodiff::rad_kept(keep, d))) analytic += v;
        EXPECT_NEAR(empirical / analytic, 1.0, 0.15) << name_of(mode, sharing) << ", keep " << keep;
      }
}

}  // namespace
}  // namespace variate
