// AutoregressiveBernoulli: the masking of its conditionals (the log-prob of position i does not
// depend on the values at i and after), the chain rule (its per-position conditionals, computed one
// position at a time, sum to log_prob), normalization over every binary vector, and keyed draws.
#include "variate/distributions/autoregressive_bernoulli.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "support/expect_error.hpp"
#include "variate/autodiff/transforms.hpp"
#include "variate/random/samplers.hpp"

namespace variate::dist {
namespace {

nn::AutoregressiveTransformer network(std::int64_t length, std::int64_t block_length) {
  return nn::AutoregressiveTransformer(
      {.length = length, .embed_dim = 8, .layers = 2, .num_heads = 2, .block_length = block_length}, random::Key(20));
}

Tensor random_bits(random::Key key, const Shape& shape) {
  return cast(lt(random::uniform(key, shape), Tensor::scalar(0.5)), DType::f64);
}

// Pixel i's log-prob differentiated with respect to the whole image, on random images: exactly zero
// at pixels i and after (the logits see only earlier pixels; the Bernoulli term has no gradient in
// its value).
TEST(AutoregressiveBernoulli, APositionsLogProbDoesNotDependOnLaterPositions) {
  for (std::int64_t block : {0, 4}) {
    const nn::AutoregressiveTransformer net = network(16, block);
    const AutoregressiveBernoulli image(net);
    const Tensor x = random_bits(random::Key(21), Shape{3, 16});
    for (std::int64_t i = 0; i < 16; ++i) {
      const Tensor g = grad([&](const Tensor& v) { return sum(slice(image.position_log_probs(v), 1, i, i + 1)); }, x);
      double before = 0;
      for (std::int64_t b = 0; b < 3; ++b)
        for (std::int64_t j = 0; j < 16; ++j) {
          const double d = g.at(b * 16 + j);
          if (j >= i) {
            ASSERT_EQ(d, 0.0) << "pixel " << i << ", input " << j << ", block " << block;
          }
          before += std::abs(d);
        }
      if (i > 0) {
        EXPECT_GT(before, 0.0) << "pixel " << i;
      }
    }
  }
}

// The conditionals one position at a time (the decoder, fed the true values) sum to log_prob,
// which is the sum of position_log_probs.
TEST(AutoregressiveBernoulli, TheConditionalsSumToTheImageLogProb) {
  const nn::AutoregressiveTransformer net = network(16, 4);
  const AutoregressiveBernoulli image(net);
  const Tensor x = random_bits(random::Key(22), Shape{4, 16});
  nn::AutoregressiveTransformer::Decoder decoder(net, 4);
  Tensor total = Tensor::zeros(Shape{4});
  const Tensor columns = transpose(x);
  for (std::int64_t t = 0; t < 16; ++t) {
    const Tensor logits = decoder.next(t == 0 ? Tensor() : index(columns, {t - 1}));
    total = total + index(columns, {t}) * logits - softplus(logits);
  }
  const Tensor lp = image.log_prob(x);
  ASSERT_EQ(lp.shape(), Shape{4});
  for (std::int64_t b = 0; b < 4; ++b) EXPECT_NEAR(lp.at(b), total.at(b), 1e-10) << "image " << b;
  const Tensor per_position = image.position_log_probs(x);
  for (std::int64_t b = 0; b < 4; ++b) {
    double s = 0;
    for (std::int64_t t = 0; t < 16; ++t) s += per_position.at(b * 16 + t);
    EXPECT_NEAR(s, lp.at(b), 1e-12);
  }
}

TEST(AutoregressiveBernoulli, SumsToOneOverEveryBinaryVector) {
  const nn::AutoregressiveTransformer net = network(6, 2);
  const AutoregressiveBernoulli image(net);
  std::vector<double> bits;
  for (int v = 0; v < 64; ++v)
    for (int t = 0; t < 6; ++t) bits.push_back(double((v >> t) & 1));
  const Tensor all = Tensor::from(bits, Shape{64, 6});
  EXPECT_NEAR(exp(logsumexp(image.log_prob(all))).item(), 1.0, 1e-12);
  EXPECT_EQ(image.event_shape(), Shape{6});
  EXPECT_EQ(image.batch_shape(), Shape{});
}

TEST(AutoregressiveBernoulli, DrawsAreBinaryAndAFunctionOfTheKey) {
  const nn::AutoregressiveTransformer net = network(16, 4);
  const AutoregressiveBernoulli image(net);
  const Tensor a = image.sample(random::Key(23), Shape{2, 3}), b = image.sample(random::Key(23), Shape{2, 3});
  ASSERT_EQ(a.shape(), (Shape{2, 3, 16}));
  EXPECT_EQ(a.to_vector<double>(), b.to_vector<double>());
  EXPECT_NE(a.to_vector<double>(), image.sample(random::Key(24), Shape{2, 3}).to_vector<double>());
  for (double v : a.to_vector<double>()) EXPECT_TRUE(v == 0.0 || v == 1.0) << v;
  EXPECT_TRUE(std::isfinite(sum(image.log_prob(a)).item()));
}

TEST(AutoregressiveBernoulli, ValuesOfAnotherLengthAreAnError) {
  const nn::AutoregressiveTransformer net = network(16, 4);
  const AutoregressiveBernoulli image(net);
  EXPECT_ERROR(image.log_prob(Tensor::zeros(Shape{2, 15})), "values must be (..., 16) of dtype f64");
}

}  // namespace
}  // namespace variate::dist
