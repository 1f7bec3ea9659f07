// Unit tests of the samplers: shapes, dtypes, broadcasting, support, edge parameters, errors, and
// independence from the thread count. Their distributions are tested in samplers_stat_test.cpp.
#include "variate/random/samplers.hpp"

#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "variate/tensor/prim.hpp"

namespace variate::random {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

Tensor vec(std::initializer_list<double> v) { return Tensor::vec(v); }
Tensor scalar(double v) { return Tensor::scalar(v); }

bool same_bits(const Tensor& a, const Tensor& b) {
  return a.shape() == b.shape() && a.dtype() == b.dtype() && std::memcmp(a.raw(), b.raw(), a.nbytes()) == 0;
}

// Expects an Error whose message contains every one of `parts` (the sampler and the parameter).
void expect_error(const std::function<void()>& fn, std::initializer_list<const char*> parts) {
  try {
    fn();
    ADD_FAILURE() << "no error thrown; expected one mentioning " << *parts.begin();
  } catch (const Error& e) {
    for (const char* part : parts) EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

TEST(Samplers, SameKeySameNumbersForAnyThreadCount) {
  const Key key(11);
  const std::int64_t n = 20000;  // well above the parallel grain
  const std::vector<std::pair<const char*, std::function<Tensor()>>> samplers = {
      {"uniform", [&] { return uniform(key, {n}); }},
      {"uniform f32", [&] { return uniform(key, {n}, DType::f32); }},
      {"normal", [&] { return normal(key, {n}); }},
      {"exponential", [&] { return exponential(key, {n}); }},
      {"gamma",
       [&] {
         return gamma(key, vec({0.3, 2.5}), {n / 2, 2});
       }},
      {"beta",
       [&] {
         return beta(key, vec({0.2, 3.0}), scalar(0.7), {n / 2, 2});
       }},
      {"dirichlet",
       [&] {
         return dirichlet(key, vec({0.2, 1.0, 5.0}), {n / 3});
       }},
      {"poisson",
       [&] {
         return poisson(key, vec({3.0, 40.0}), {n / 2, 2});
       }},
      {"binomial",
       [&] {
         return binomial(key, vec({5.0, 1000.0}), vec({0.3, 0.6}), {n / 2, 2});
       }},
      {"bernoulli", [&] { return bernoulli(key, scalar(0.4), {n}); }},
      {"categorical",
       [&] {
         return categorical(key, vec({1.0, 2.0, 3.0}), {n});
       }},
      {"multinomial",
       [&] {
         return multinomial(key, scalar(30.0), vec({0.2, 0.3, 0.5}), {n / 3});
       }},
  };
  const int threads_before = omp_get_max_threads();
  for (const auto& [name, draw] : samplers) {
    omp_set_num_threads(1);
    const Tensor one = draw();
    for (int threads : {2, 3}) {
      omp_set_num_threads(threads);
      EXPECT_TRUE(same_bits(one, draw())) << name << " differs between 1 and " << threads << " threads";
    }
  }
  omp_set_num_threads(threads_before);
}

TEST(Samplers, ElementsDependOnlyOnKeyAndPosition) {
  const Key key(3);
  // The same elements whatever the shape they are drawn in, and a prefix of a larger sample.
  EXPECT_EQ(uniform(key, {4, 5}).to_vector<double>(), uniform(key, {20}).to_vector<double>());
  const std::vector<double> big = gamma(key, scalar(2.0), {100}).to_vector<double>();
  const std::vector<double> small = gamma(key, scalar(2.0), {10}).to_vector<double>();
  EXPECT_EQ(std::vector<double>(big.begin(), big.begin() + 10), small);
  EXPECT_NE(uniform(key, {5}).to_vector<double>(), uniform(Key(4), {5}).to_vector<double>());
  EXPECT_NE(uniform(key, {5}).to_vector<double>(), uniform(split_at(key, 0), {5}).to_vector<double>());
}

TEST(Samplers, ParametersBroadcastToTheSampleShape) {
  const Key key(8);
  std::vector<double> repeated;
  for (int i = 0; i < 50; ++i) repeated.insert(repeated.end(), {0.5, 3.0});
  const Tensor explicit_params = Tensor::from(repeated, {50, 2});
  EXPECT_EQ(gamma(key, vec({0.5, 3.0}), {50, 2}).to_vector<double>(),
            gamma(key, explicit_params, {50, 2}).to_vector<double>());
  EXPECT_EQ(poisson(key, vec({0.5, 3.0}), {50, 2}).to_vector<double>(),
            poisson(key, explicit_params, {50, 2}).to_vector<double>());
  // Event-shaped parameters: the batch dims of logits (2, K) broadcast against (50, 2).
  const Tensor logits = Tensor::from(std::vector<double>{0.0, -kInf, -kInf, 0.0}, {2, 2});
  const std::vector<std::int64_t> picks = categorical(key, logits, {50, 2}).to_vector<std::int64_t>();
  for (std::size_t i = 0; i < picks.size(); ++i) EXPECT_EQ(picks[i], std::int64_t(i % 2));
  EXPECT_EQ(dirichlet(key, vec({1.0, 2.0, 3.0}), {4, 5}).shape(), Shape({4, 5, 3}));
  EXPECT_EQ(multinomial(key, vec({3.0, 4.0}), vec({0.5, 0.5}), {6, 2}).shape(), Shape({6, 2, 2}));
  EXPECT_EQ(uniform(key, {}).shape(), Shape{});
  EXPECT_EQ(normal(key, {0, 3}).numel(), 0);
}

TEST(Samplers, ResultDtypesFollowTheParameters) {
  const Key key(1);
  EXPECT_EQ(uniform(key, {3}, DType::f32).dtype(), DType::f32);
  EXPECT_EQ(normal(key, {3}, DType::f32).dtype(), DType::f32);
  EXPECT_EQ(gamma(key, Tensor::scalar(2.0, DType::f32), {3}).dtype(), DType::f32);
  EXPECT_EQ(poisson(key, Tensor::scalar(2.0, DType::i64), {3}).dtype(), DType::f64);
  EXPECT_EQ(binomial(key, Tensor::scalar(5.0, DType::i64), Tensor::scalar(0.5, DType::f32), {3}).dtype(), DType::f32);
  EXPECT_EQ(beta(key, Tensor::scalar(2.0, DType::f32), scalar(2.0), {3}).dtype(), DType::f64);
  EXPECT_EQ(categorical(key, vec({0.0, 1.0}), {3}).dtype(), DType::i64);
  // f32 draws come from their own 24 bits and stay below 1.
  for (float u : uniform(key, {10000}, DType::f32).to_vector<float>()) {
    EXPECT_GE(u, 0.0f);
    EXPECT_LT(u, 1.0f);
  }
}

TEST(Samplers, DrawsStayInTheirSupport) {
  const Key key(21);
  for (double u : uniform(key, {10000}).to_vector<double>()) {
    EXPECT_GE(u, 0.0);
    EXPECT_LT(u, 1.0);
  }
  for (double e : exponential(key, {10000}).to_vector<double>()) EXPECT_TRUE(e >= 0.0 && std::isfinite(e));
  // Tiny concentrations underflow without the log-space boost; draws are clamped into (0, inf).
  for (DType dtype : {DType::f64, DType::f32}) {
    const Tensor g = gamma(key, Tensor::full({1}, 1e-3, dtype), {2000});
    for (double x : g.to_vector<double>()) EXPECT_TRUE(x > 0.0 && std::isfinite(x)) << dtype;
    const Tensor b = beta(key, Tensor::full({1}, 1e-3, dtype), Tensor::full({1}, 1e-3, dtype), {2000});
    for (double x : b.to_vector<double>()) EXPECT_TRUE(x > 0.0 && x < 1.0) << dtype;
  }
  const Tensor d = dirichlet(key, vec({1e-3, 0.5, 1e-2}), {2000});
  const std::vector<double> dv = d.to_vector<double>();
  for (std::size_t i = 0; i < dv.size(); i += 3) {
    EXPECT_NEAR(dv[i] + dv[i + 1] + dv[i + 2], 1.0, 1e-12);
    for (int j = 0; j < 3; ++j) EXPECT_GT(dv[i + j], 0.0);
  }
  for (double k : poisson(key, vec({0.3, 7.0, 2e4}), {1000, 3}).to_vector<double>())
    EXPECT_TRUE(k >= 0.0 && k == std::floor(k));
  const std::vector<double> n = {3.0, 1e12, 40.0};
  const std::vector<double> x =
      binomial(key, vec({3.0, 1e12, 40.0}), vec({0.5, 0.3, 0.97}), {1000, 3}).to_vector<double>();
  for (std::size_t i = 0; i < x.size(); ++i) EXPECT_TRUE(x[i] >= 0.0 && x[i] <= n[i % 3] && x[i] == std::floor(x[i]));
  const std::vector<double> m =
      multinomial(key, vec({25.0, 0.0}), vec({0.1, 0.0, 0.6, 0.3}), {500, 2}).to_vector<double>();
  for (std::size_t row = 0; row < m.size() / 4; ++row) {
    const double* c = m.data() + 4 * row;
    EXPECT_EQ(c[0] + c[1] + c[2] + c[3], row % 2 == 0 ? 25.0 : 0.0);
    EXPECT_EQ(c[1], 0.0);  // a category of probability 0
  }
}

TEST(Samplers, DegenerateParametersGiveTheirOnlyValue) {
  const Key key(2);
  EXPECT_EQ(binomial(key, vec({7.0, 7.0, 0.0}), vec({0.0, 1.0, 0.4}), {3}).to_vector<double>(),
            (std::vector<double>{0.0, 7.0, 0.0}));
  EXPECT_EQ(poisson(key, scalar(0.0), {3}).to_vector<double>(), (std::vector<double>{0.0, 0.0, 0.0}));
  EXPECT_EQ(bernoulli(key, vec({0.0, 1.0}), {2}).to_vector<double>(), (std::vector<double>{0.0, 1.0}));
  for (std::int64_t c : categorical(key, vec({-kInf, 3.0, -kInf}), {100}).to_vector<std::int64_t>()) EXPECT_EQ(c, 1);
  // With logits 80 apart the small categories have mass below 2^-53 and are never drawn.
  for (std::int64_t c : categorical(key, vec({-40.0, 40.0, -40.0}), {1000}).to_vector<std::int64_t>()) EXPECT_EQ(c, 1);
  EXPECT_EQ(multinomial(key, scalar(9.0), vec({0.0, 1.0, 0.0}), {1}).to_vector<double>(),
            (std::vector<double>{0.0, 9.0, 0.0}));
  EXPECT_EQ(dirichlet(key, vec({0.3}), {2}).to_vector<double>(), (std::vector<double>{1.0, 1.0}));
}

TEST(Samplers, BetaIsTheFirstComponentOfATwoComponentDirichlet) {
  const Key key(17);
  const std::vector<double> b = beta(key, scalar(0.4), scalar(2.5), {1000}).to_vector<double>();
  const std::vector<double> d = dirichlet(key, vec({0.4, 2.5}), {1000}).to_vector<double>();
  for (std::size_t i = 0; i < b.size(); ++i) EXPECT_NEAR(b[i], d[2 * i], 1e-14 + 1e-12 * b[i]);
}

TEST(Samplers, InvalidArgumentsNameTheSamplerAndParameter) {
  const Key key(0);
  expect_error([&] { uniform(key, {2}, DType::i64); }, {"uniform", "dtype"});
  expect_error([&] { normal(key, {2}, DType::boolean); }, {"normal", "dtype"});
  expect_error([&] { gamma(key, scalar(0.0), {2}); }, {"gamma", "concentration", "positive"});
  expect_error([&] { gamma(key, vec({1.0, kNaN}), {2}); }, {"gamma", "concentration", "index 1"});
  expect_error([&] { gamma(key, scalar(kInf), {2}); }, {"gamma", "concentration"});
  expect_error([&] { gamma(key, vec({1.0, 2.0}), {3}); }, {"gamma", "concentration", "[2]", "[3]"});
  expect_error([&] { gamma(key, Tensor(), {3}); }, {"gamma", "concentration", "undefined"});
  expect_error([&] { beta(key, scalar(1.0), scalar(-1.0), {2}); }, {"beta", "concentration0"});
  expect_error([&] { dirichlet(key, vec({1.0, 0.0}), {2}); }, {"dirichlet", "concentration"});
  expect_error([&] { dirichlet(key, scalar(1.0), {2}); }, {"dirichlet", "concentration", "last"});
  expect_error([&] { dirichlet(key, vec({1.0, 1.0}), {1, 2, 3, 4, 5, 6, 7, 8}); }, {"dirichlet", "event"});
  expect_error([&] { poisson(key, scalar(-0.5), {2}); }, {"poisson", "rate", "non-negative"});
  expect_error([&] { poisson(key, scalar(kNaN), {2}); }, {"poisson", "rate"});
  expect_error([&] { binomial(key, scalar(2.5), scalar(0.5), {2}); }, {"binomial", "total_count", "integer"});
  expect_error([&] { binomial(key, scalar(-1.0), scalar(0.5), {2}); }, {"binomial", "total_count"});
  expect_error([&] { binomial(key, scalar(4.0), scalar(1.5), {2}); }, {"binomial", "probs", "[0, 1]"});
  expect_error([&] { binomial(key, scalar(4.0), scalar(kNaN), {2}); }, {"binomial", "probs"});
  expect_error([&] { bernoulli(key, scalar(-0.1), {2}); }, {"bernoulli", "probs"});
  expect_error([&] { categorical(key, vec({0.0, kNaN}), {2}); }, {"categorical", "logits"});
  expect_error([&] { categorical(key, vec({0.0, kInf}), {2}); }, {"categorical", "logits"});
  expect_error([&] { categorical(key, vec({-kInf, -kInf}), {2}); }, {"categorical", "logits", "-inf"});
  expect_error([&] { categorical(key, Tensor::zeros({2, 3}), {4}); }, {"categorical", "logits", "[2]", "[4]"});
  expect_error([&] { multinomial(key, scalar(3.0), vec({0.5, 0.6}), {2}); }, {"multinomial", "probs", "sum"});
  expect_error([&] { multinomial(key, scalar(3.0), vec({-0.5, 1.5}), {2}); }, {"multinomial", "probs"});
  expect_error([&] { multinomial(key, scalar(0.5), vec({0.5, 0.5}), {2}); }, {"multinomial", "total_count"});
}

}  // namespace
}  // namespace variate::random
