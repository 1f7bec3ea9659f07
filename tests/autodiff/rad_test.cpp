// Randomized autodiff (autodiff/rad.hpp): the sketches are unbiased, checked by enumerating every
// random choice; the choices are valid and reproducible; keep fraction 1 is the exact path; the
// tape stores what the memory model says, per op kind.
#include "variate/autodiff/rad.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>

#include "support/ad_check.hpp"
#include "support/expect_error.hpp"
#include "support/heap_allocations.hpp"
#include "variate/autodiff/nn_ops.hpp"
#include "variate/autodiff/tape_bytes.hpp"
#include "variate/autodiff/transforms.hpp"

namespace variate {
namespace {

using autodiff::RadConfig;
using autodiff::RadMode;
using autodiff::RadScope;
using autodiff::RadSharing;
using testing::random_tensor;

constexpr std::array<std::uint32_t, 2> test_key = {0x2a, 0x7};

// The weight gradient g^T x_hat of a linear layer whose input x (rows, d) is estimated by x_hat.
Tensor weight_grad(const Tensor& g, const Tensor& x_hat) { return prim::matmul(g, x_hat, true, false); }

// The average over all choices of the weight gradient from the sketch under each choice, each
// choice equally likely.
Tensor average_weight_grad(RadMode mode, const Tensor& g, const Tensor& x, const std::vector<Tensor>& choices) {
  Tensor total = Tensor::zeros(Shape{g.dim(1), x.dim(1)});
  for (const Tensor& c : choices) {
    const Tensor x_hat = autodiff::detail::rad_expand(mode, autodiff::detail::rad_sketch(mode, x, c), c, x.dim(1));
    total = prim::add(total, weight_grad(g, x_hat));
  }
  return prim::div(total, Tensor::scalar(double(choices.size())));
}

void expect_equal_to(const Tensor& got, const Tensor& want, double tol) {
  ASSERT_EQ(got.shape(), want.shape());
  for (std::int64_t i = 0; i < want.numel(); ++i) EXPECT_NEAR(got.at(i), want.at(i), tol) << "element " << i;
}

// Every assignment of one of `options` to each of `rows` rows, as index tensors (rows, k).
std::vector<Tensor> all_row_choices(const std::vector<std::vector<std::int64_t>>& options, std::int64_t rows) {
  std::vector<Tensor> out;
  std::vector<std::size_t> pick(std::size_t(rows), 0);
  const std::size_t k = options[0].size();
  while (true) {
    std::vector<std::int64_t> index;
    for (std::size_t p : pick) index.insert(index.end(), options[p].begin(), options[p].end());
    out.push_back(Tensor::from(index, Shape{rows, std::int64_t(k)}));
    std::size_t r = 0;
    while (r < pick.size() && ++pick[r] == options.size()) pick[r++] = 0;
    if (r == pick.size()) return out;
  }
}

TEST(Rad, WithReplacementOneIndexIsUnbiasedOverEveryChoice) {
  // k = 1 with replacement: each of the d indices with probability 1/d, independently per row.
  for (std::int64_t d : {2, 5, 8}) {
    const Tensor x = random_tensor(Shape{2, d}, 1), g = random_tensor(Shape{2, 3}, 2);
    std::vector<std::vector<std::int64_t>> singles;
    for (std::int64_t j = 0; j < d; ++j) singles.push_back({j});
    expect_equal_to(average_weight_grad(RadMode::with_replacement, g, x, all_row_choices(singles, 2)),
                    weight_grad(g, x), 1e-12);
    // Shared: one index for the whole batch.
    expect_equal_to(average_weight_grad(RadMode::with_replacement, g, x, all_row_choices(singles, 1)),
                    weight_grad(g, x), 1e-12);
  }
}

TEST(Rad, WithReplacementRepeatsAddUp) {
  // k = 2 of d = 3 with replacement: all 9 ordered pairs; a repeated index counts twice.
  const Tensor x = random_tensor(Shape{1, 3}, 3), g = random_tensor(Shape{1, 2}, 4);
  std::vector<std::vector<std::int64_t>> pairs;
  for (std::int64_t a = 0; a < 3; ++a)
    for (std::int64_t b = 0; b < 3; ++b) pairs.push_back({a, b});
  expect_equal_to(average_weight_grad(RadMode::with_replacement, g, x, all_row_choices(pairs, 1)), weight_grad(g, x),
                  1e-12);
}

TEST(Rad, WithoutReplacementIsUnbiasedOverEverySubset) {
  // All 15 subsets of size 2 of d = 6; shared across a batch of 3 rows.
  const Tensor x = random_tensor(Shape{3, 6}, 5), g = random_tensor(Shape{3, 4}, 6);
  std::vector<std::vector<std::int64_t>> subsets;
  for (std::int64_t a = 0; a < 6; ++a)
    for (std::int64_t b = a + 1; b < 6; ++b) subsets.push_back({a, b});
  ASSERT_EQ(subsets.size(), 15u);
  expect_equal_to(average_weight_grad(RadMode::without_replacement, g, x, all_row_choices(subsets, 1)),
                  weight_grad(g, x), 1e-12);
}

TEST(Rad, ProjectionIsUnbiasedOverEverySignMatrix) {
  // All 2^6 sign matrices R (3, 2), one shared by a batch of 4 rows.
  const Tensor x = random_tensor(Shape{4, 3}, 7), g = random_tensor(Shape{4, 2}, 8);
  std::vector<Tensor> choices;
  for (int bits = 0; bits < 64; ++bits) {
    std::vector<double> signs;
    for (int b = 0; b < 6; ++b) signs.push_back((bits >> b) & 1 ? 1.0 : -1.0);
    choices.push_back(Tensor::from(signs, Shape{1, 3, 2}));
  }
  expect_equal_to(average_weight_grad(RadMode::projection, g, x, choices), weight_grad(g, x), 1e-12);
}

TEST(Rad, ChoicesAreValidAndAPureFunctionOfKeyAndOp) {
  for (RadMode mode : {RadMode::with_replacement, RadMode::without_replacement}) {
    const RadConfig config{.keep_fraction = 0.3, .mode = mode, .key = test_key};
    const Tensor c = autodiff::detail::rad_choice(config, 4, 50, 20, 6, DType::f64);
    ASSERT_EQ(c.shape(), (Shape{50, 6}));
    for (std::int64_t r = 0; r < 50; ++r) {
      std::set<std::int64_t> seen;
      for (std::int64_t i = 0; i < 6; ++i) {
        const auto j = std::int64_t(c.at(r * 6 + i));
        EXPECT_TRUE(j >= 0 && j < 20) << j;
        seen.insert(j);
      }
      if (mode == RadMode::without_replacement) {
        EXPECT_EQ(seen.size(), 6u) << "row " << r << " repeats an index";
      }
    }
    EXPECT_EQ(c.to_vector<std::int64_t>(),
              autodiff::detail::rad_choice(config, 4, 50, 20, 6, DType::f64).to_vector<std::int64_t>());
    EXPECT_NE(c.to_vector<std::int64_t>(),
              autodiff::detail::rad_choice(config, 5, 50, 20, 6, DType::f64).to_vector<std::int64_t>());
  }
  const RadConfig shared{.keep_fraction = 0.5, .mode = RadMode::projection, .sharing = RadSharing::shared};
  EXPECT_EQ(autodiff::detail::rad_choice(shared, 0, 9, 4, 2, DType::f32).shape(), (Shape{1, 4, 2}));
}

TEST(Rad, KeepsTheCeilingOfTheFraction) {
  EXPECT_EQ(autodiff::rad_kept(0.1, 784), 79);
  EXPECT_EQ(autodiff::rad_kept(0.1, 300), 30);
  EXPECT_EQ(autodiff::rad_kept(1e-9, 300), 1);
  EXPECT_EQ(autodiff::rad_kept(1.0, 7), 7);
  EXPECT_NE(testing::error_of([] { RadScope s({.keep_fraction = 0.0}); }).find("keep fraction"), std::string::npos);
}

// A small ReLU network with a log-softmax cross-entropy loss; params: W1, b1, W2, b2, W3, b3, and
// the input x (so its exact gradient can be compared).
struct Mlp {
  std::vector<std::int64_t> widths;
  std::int64_t batch;
  Tensor labels_one_hot;

  std::vector<Tensor> params(unsigned seed) const {
    std::vector<Tensor> p;
    for (std::size_t l = 0; l + 1 < widths.size(); ++l) {
      p.push_back(random_tensor(Shape{widths[l + 1], widths[l]}, seed + 2 * unsigned(l), 0.5));
      p.push_back(random_tensor(Shape{widths[l + 1]}, seed + 2 * unsigned(l) + 1, 0.1));
    }
    p.push_back(random_tensor(Shape{batch, widths[0]}, seed + 100));
    return p;
  }

  Tensor loss(std::span<const Tensor> p) const {
    Tensor h = p.back();
    const std::size_t layers = widths.size() - 1;
    for (std::size_t l = 0; l < layers; ++l) {
      h = linear(h, p[2 * l], p[2 * l + 1]);
      if (l + 1 < layers) h = relu(h);
    }
    return -sum(log_softmax(h) * labels_one_hot);
  }
};

Mlp small_mlp() {
  const std::int64_t batch = 6;
  std::vector<std::int64_t> labels;
  for (std::int64_t i = 0; i < batch; ++i) labels.push_back(i % 3);
  return {{8, 7, 5, 3}, batch, prim::one_hot(Tensor::from(labels), 3)};
}

std::vector<Tensor> gradients(const Mlp& mlp, const std::vector<Tensor>& params) {
  std::vector<Tensor> grads(params.size()), scratch;
  value_and_grad([&](std::span<const Tensor> p) { return mlp.loss(p); }, params, grads, scratch);
  return grads;
}

TEST(Rad, KeepFractionOneIsTheExactPath) {
  const Mlp mlp = small_mlp();
  const auto params = mlp.params(10);
  const auto exact = gradients(mlp, params);
  const std::size_t exact_bytes = autodiff::last_sweep_saved_bytes();
  const RadScope rad({.keep_fraction = 1.0, .key = test_key});
  const auto same = gradients(mlp, params);
  EXPECT_EQ(autodiff::last_sweep_saved_bytes(), exact_bytes);
  for (std::size_t i = 0; i < exact.size(); ++i) EXPECT_EQ(same[i].to_vector<double>(), exact[i].to_vector<double>());
}

TEST(Rad, BiasAndInputGradientsStayExact) {
  const Mlp mlp = small_mlp();
  const auto params = mlp.params(20);
  const auto exact = gradients(mlp, params);
  for (RadMode mode : {RadMode::with_replacement, RadMode::without_replacement, RadMode::projection}) {
    const RadScope rad({.keep_fraction = 0.3, .mode = mode, .key = test_key});
    const auto sampled = gradients(mlp, params);
    for (std::size_t i = 1; i < exact.size(); i += 2) expect_equal_to(sampled[i], exact[i], 1e-12);
    expect_equal_to(sampled.back(), exact.back(), 1e-12);
    // The weights' gradients are sampled: they differ from the exact ones.
    EXPECT_NE(sampled[0].to_vector<double>(), exact[0].to_vector<double>());
  }
}

TEST(Rad, CompressionKeepsBiasAndInputGradientsExact) {
  const Mlp mlp = small_mlp();
  const auto params = mlp.params(25);
  const auto exact = gradients(mlp, params);
  for (double keep : {1.0, 0.3}) {
    const RadScope rad({.keep_fraction = keep, .key = test_key, .quantize_bits = 2, .quantize_group = 4});
    const auto compressed = gradients(mlp, params);
    for (std::size_t i = 1; i < exact.size(); i += 2) expect_equal_to(compressed[i], exact[i], 1e-12);
    expect_equal_to(compressed.back(), exact.back(), 1e-12);
    EXPECT_NE(compressed[0].to_vector<double>(), exact[0].to_vector<double>());
  }
}

// The gradients of sum(c * layer(x, W)) for x (rows, 8), W (4, 8) and a fixed c.
std::vector<Tensor> layer_gradients(const std::function<Tensor(const Tensor&, const Tensor&)>& layer) {
  const Tensor c = random_tensor(Shape{5, 4}, 46);
  std::vector<Tensor> grads(2), scratch;
  value_and_grad([&](std::span<const Tensor> p) { return sum(c * layer(p[0], p[1])); },
                 std::vector<Tensor>{random_tensor(Shape{5, 8}, 44), random_tensor(Shape{4, 8}, 45)}, grads, scratch);
  return grads;
}

TEST(Rad, MatmulSketchesItsLeftOperandAsLinearDoes) {
  auto as_linear = [](const Tensor& x, const Tensor& w) { return linear(x, w); };
  auto as_matmul = [](const Tensor& x, const Tensor& w) { return matmul(x, w, false, true); };
  const auto exact = layer_gradients(as_matmul);
  const RadConfig configs[] = {{.keep_fraction = 0.3, .key = test_key},
                               {.keep_fraction = 0.5, .mode = RadMode::projection, .key = test_key},
                               {.key = test_key, .quantize_bits = 2, .quantize_group = 4}};
  for (const RadConfig& config : configs) {
    std::vector<Tensor> by_linear, by_matmul;
    {
      const RadScope rad(config);
      by_linear = layer_gradients(as_linear);
    }
    const std::size_t linear_bytes = autodiff::last_sweep_saved_bytes("linear");
    {
      const RadScope rad(config);
      by_matmul = layer_gradients(as_matmul);
    }
    // The same choices and draws as linear's, so the same weight gradient; the input's is exact.
    EXPECT_EQ(by_matmul[1].to_vector<double>(), by_linear[1].to_vector<double>());
    EXPECT_NE(by_matmul[1].to_vector<double>(), exact[1].to_vector<double>());
    expect_equal_to(by_matmul[0], exact[0], 1e-12);
    EXPECT_EQ(autodiff::last_sweep_saved_bytes("matmul"), linear_bytes);
  }
}

TEST(Rad, MatmulSketchesBatchesAndOnlyWhenTheRightOperandIsTracked) {
  // a (2, 3, 8) b (8, 4): the six rows of a keep 2 values each; b saved whole.
  const Tensor a = random_tensor(Shape{2, 3, 8}, 47), b = random_tensor(Shape{8, 4}, 48);
  const Tensor c = random_tensor(Shape{2, 3, 4}, 49);
  auto loss = [&](const Tensor& x, const Tensor& w) { return sum(c * matmul(x, w)); };
  const auto exact = value_and_grad(loss, a, b);
  EXPECT_EQ(autodiff::last_sweep_saved_bytes("matmul"), std::size_t(8 * (48 + 32)));
  const RadScope rad({.keep_fraction = 0.25, .key = test_key});
  const auto sketched = value_and_grad(loss, a, b);
  EXPECT_EQ(autodiff::last_sweep_saved_bytes("matmul"), std::size_t(8 * (6 * 2 + 32)));
  expect_equal_to(sketched.grads[0], exact.grads[0], 1e-12);
  EXPECT_EQ(sketched.grads[1].shape(), b.shape());
  // A constant right operand: nothing to sketch for, so the exact rule.
  const auto input_only = value_and_grad([&](const Tensor& x) { return sum(c * matmul(x, b)); }, a);
  EXPECT_EQ(autodiff::last_sweep_saved_bytes("matmul"), std::size_t(8 * (48 + 32)));
  expect_equal_to(input_only.grads[0], exact.grads[0], 1e-12);
}

TEST(Rad, SameKeySameGradient) {
  const Mlp mlp = small_mlp();
  const auto params = mlp.params(30);
  const RadConfig config{.keep_fraction = 0.4, .mode = RadMode::without_replacement, .key = test_key};
  std::vector<Tensor> first, second;
  {
    const RadScope rad(config);
    first = gradients(mlp, params);
  }
  {
    const RadScope rad(config);
    second = gradients(mlp, params);
  }
  for (std::size_t i = 0; i < first.size(); ++i) EXPECT_EQ(first[i].to_vector<double>(), second[i].to_vector<double>());
}

TEST(Rad, SteadyStateSketchedGradientMakesNoHeapAllocation) {
  const Mlp mlp = small_mlp();
  const auto params = mlp.params(35);
  std::vector<Tensor> grads(params.size()), scratch;
  scratch.reserve(params.size());
  auto loss = [&](std::span<const Tensor> p) { return mlp.loss(p); };
  const RadConfig configs[] = {
      {.keep_fraction = 0.3, .mode = RadMode::with_replacement, .key = test_key},
      {.keep_fraction = 0.3, .mode = RadMode::without_replacement, .key = test_key},
      {.keep_fraction = 0.3, .mode = RadMode::projection, .key = test_key},
      {.key = test_key, .quantize_bits = 2},
  };
  for (const RadConfig& config : configs) {
    for (int i = 0; i < 3; ++i) {  // warm-up: pools and arenas grow here
      const RadScope rad(config);
      value_and_grad(loss, params, grads, scratch);
    }
    const std::int64_t before = testing::heap_allocations();
    for (int i = 0; i < 5; ++i) {
      const RadScope rad(config);
      value_and_grad(loss, params, grads, scratch);
    }
    EXPECT_EQ(testing::heap_allocations() - before, 0) << "C++ heap allocations in steady state";
  }
}

TEST(Rad, TapeBytesPerOpMatchTheMemoryModel) {
  // 784-300-300-300-10 at batch 150 in f64, as the paper's MNIST network.
  const std::vector<std::int64_t> widths = {784, 300, 300, 300, 10};
  const std::int64_t batch = 150;
  std::vector<std::int64_t> labels(std::size_t(batch), 3);
  const Mlp mlp{widths, batch, prim::one_hot(Tensor::from(labels), 10)};
  const auto params = mlp.params(40);
  auto model = [&](double f) {  // the bytes of linear's saved tensors: the (sketched) input and the weight
    double bytes = 0;
    for (std::size_t l = 0; l + 1 < widths.size(); ++l)
      bytes += 8.0 * double(batch * (f < 1 ? autodiff::rad_kept(f, widths[l]) : widths[l]) + widths[l] * widths[l + 1]);
    return bytes;
  };
  // The masks as bits, 53 hidden units to an 8-byte word.
  const double relu_model = 3 * 8 * std::ceil(double(batch * 300) / 53);

  gradients(mlp, params);
  const double exact_linear = double(autodiff::last_sweep_saved_bytes("linear"));
  const double exact_total = double(autodiff::last_sweep_saved_bytes());
  EXPECT_NEAR(exact_linear / model(1.0), 1.0, 0.1);
  EXPECT_NEAR(double(autodiff::last_sweep_saved_bytes("relu")) / relu_model, 1.0, 0.1);

  for (RadSharing sharing : {RadSharing::per_example, RadSharing::shared}) {
    const RadScope rad({.keep_fraction = 0.1, .sharing = sharing, .key = test_key});
    gradients(mlp, params);
    EXPECT_NEAR(double(autodiff::last_sweep_saved_bytes("linear")) / model(0.1), 1.0, 0.1);
    EXPECT_NEAR(double(autodiff::last_sweep_saved_bytes("relu")) / relu_model, 1.0, 0.1);
    // The paper's figure for this network: weights dominate, so about 2/3 of the exact tape.
    const double ratio = double(autodiff::last_sweep_saved_bytes()) / exact_total;
    EXPECT_GT(ratio, 0.6);
    EXPECT_LT(ratio, 0.72);
  }
  // Compressed: per row, ceil(d b / 32) i32 words of codes and a minimum and step per group of 128.
  for (int bits : {2, 4}) {
    double compressed_model = 0;
    for (std::size_t l = 0; l + 1 < widths.size(); ++l) {
      const double words = std::ceil(double(widths[l] * bits) / 32), groups = std::ceil(double(widths[l]) / 128);
      compressed_model += double(batch) * (4 * words + 2 * 8 * groups) + 8.0 * double(widths[l] * widths[l + 1]);
    }
    const RadScope rad({.key = test_key, .quantize_bits = bits});
    gradients(mlp, params);
    EXPECT_NEAR(double(autodiff::last_sweep_saved_bytes("linear")) / compressed_model, 1.0, 0.1) << bits << " bits";
    EXPECT_NEAR(double(autodiff::last_sweep_saved_bytes("relu")) / relu_model, 1.0, 0.1);
    // The activations alone (linear's bytes less the weights): b bits a value, about 1 more for the
    // ranges (two f64 per 128 values), against 64.
    const double weights = model(1.0) - 8.0 * double(batch * (784 + 300 + 300 + 300));
    const double activation_ratio =
        (double(autodiff::last_sweep_saved_bytes("linear")) - weights) / (exact_linear - weights);
    EXPECT_LT(activation_ratio, (bits + 2.0) / 64) << bits << " bits";
  }
  double listed = 0;
  for (const auto& [op, bytes] : autodiff::last_sweep_saved_bytes_by_op()) listed += double(bytes);
  EXPECT_EQ(listed, double(autodiff::last_sweep_saved_bytes()));
}

}  // namespace
}  // namespace variate
